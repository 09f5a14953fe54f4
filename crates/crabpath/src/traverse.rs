//! Query-time traversal: seeding, beam, hop loop, reflex/habitual routing, inhibition veto,
//! per-episode edge damping, budgets, context assembly (paper §2–3; reference
//! `crabpath/traverse.py`, commit 134c676).
//!
//! [`Traverser`] owns scratch buffers so that repeated queries allocate nothing once
//! the buffers have grown ([`Traverser::run`] into a reused result, without a router or
//! with one of [`crate::router`]). With the `paper` profile every tie-break and quirk of
//! the reference is kept (reference `crabpath/traverse.py::traverse`, discrepancy C5).
//!
//! A query runs in phases ([`Traverser::run`]): seeding, then per hop the expansion of
//! the frontier into candidates, their selection (router) and their acceptance; each
//! phase is a method whose documentation states its cost.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::error::{finite, Result};
use crate::graph::{Edge, EdgeKind, Graph, NodeId};
use crate::tier::{Tier, TierThresholds};

/// Traversal parameters (reference `crabpath/traverse.py::TraversalConfig`) plus the
/// corrected profile's switches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraversalConfig {
    /// Maximum number of hop iterations (0 → empty result).
    pub max_hops: usize,
    /// Maximum seeds kept and candidate transitions accepted per hop (0 → empty result).
    pub beam_width: usize,
    /// Damping λ: an edge used k times this episode counts `w · λ^k`.
    pub edge_damping: f64,
    /// Minimum score for a seed or a candidate.
    pub fire_threshold: f64,
    /// Subtracted from a candidate's score when its target was already visited.
    pub visit_penalty: f64,
    /// Tier thresholds; `tiers.inhibitory` is also the suppression threshold.
    pub tiers: TierThresholds,
    /// Budget on distinct fired nodes.
    pub max_fired_nodes: Option<usize>,
    /// Budget on summed content length (code points) of fired nodes.
    pub max_context_chars: Option<usize>,
    /// Corrected switch: drop duplicate targets before the beam cut, so that two candidates
    /// for one target do not consume two slots (paper profile: cut first, as the reference
    /// does).
    pub dedup_before_beam: bool,
    /// Corrected switch: keep the maximum score a node reached this episode (paper:
    /// the latest hop's score overwrites it, as in the reference).
    pub keep_max_fired_score: bool,
    /// Corrected switch: only edges of kind [`EdgeKind::Inhibitory`] inhibit (veto) their
    /// targets — the edges explicit corrections make ([`crate::inject::inject_correction`]);
    /// a learned negative weight only makes its own edge non-traversable, so the policy
    /// routes around the target instead of vetoing it from everywhere (paper: every edge
    /// with `w <= inhibitory` inhibits, reference `crabpath/traverse.py::traverse`).
    /// See [`crate::profile`] fix 10.
    #[serde(default)]
    pub explicit_inhibition_only: bool,
}

impl Default for TraversalConfig {
    fn default() -> Self {
        TraversalConfig {
            max_hops: 30,
            beam_width: 8,
            edge_damping: 0.3,
            fire_threshold: 0.01,
            visit_penalty: 0.0,
            tiers: TierThresholds::default(),
            max_fired_nodes: None,
            max_context_chars: None,
            dedup_before_beam: false,
            keep_max_fired_score: false,
            explicit_inhibition_only: false,
        }
    }
}

/// One accepted transition (reference `crabpath/traverse.py::TraversalStep`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// Source node.
    pub from: NodeId,
    /// Target node.
    pub to: NodeId,
    /// Raw weight at the time.
    pub weight: f64,
    /// Damped weight `w · λ^k`.
    pub effective: f64,
    /// Reflex or habitual.
    pub tier: Tier,
}

/// The outcome of one traversal (reference `crabpath/traverse.py::TraversalResult`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TraversalResult {
    /// Accepted seeds (descending score) then each node at its first acceptance.
    pub fired: Vec<NodeId>,
    /// Every accepted transition, revisits included.
    pub steps: Vec<Step>,
    /// Final activation score per fired node, in first-activation order.
    pub fired_scores: Vec<(NodeId, f64)>,
    /// Whether the hop loop was reached (the reference attaches a tier summary only then).
    pub reached_hop_loop: bool,
}

impl TraversalResult {
    /// The fired ids as strings.
    pub fn fired_names<'g>(&self, graph: &'g Graph) -> Vec<&'g str> {
        self.fired.iter().map(|&n| graph.name(n)).collect()
    }

    /// Fired ids in context order: score desc, then earlier fired position (reference
    /// `crabpath/traverse.py::_build_context`).
    pub fn context_order(&self) -> Vec<NodeId> {
        let score: FxHashMap<NodeId, f64> = self.fired_scores.iter().copied().collect();
        let mut order: Vec<(usize, NodeId, f64)> = self
            .fired
            .iter()
            .enumerate()
            .map(|(i, &n)| (i, n, score.get(&n).copied().unwrap_or(0.0)))
            .collect();
        order.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
        order.into_iter().map(|(_, n, _)| n).collect()
    }

    /// The assembled context (reference `crabpath/traverse.py::_build_context`): contents
    /// joined by `"\n\n"` in context order, greedily cut to `max_chars` code points when a
    /// budget is given.
    pub fn context(&self, graph: &Graph, max_chars: Option<usize>) -> String {
        const SEP: &str = "\n\n";
        let contents = self
            .context_order()
            .into_iter()
            .filter_map(|n| graph.node(n).map(|node| node.content.as_str()));
        match max_chars {
            None => contents.collect::<Vec<_>>().join(SEP),
            Some(0) => String::new(),
            Some(max) => {
                let mut out = String::new();
                let mut used = 0usize;
                for (i, c) in contents.enumerate() {
                    let sep = if i == 0 { 0 } else { 2 };
                    let len = c.chars().count();
                    if used + sep + len <= max {
                        if i > 0 {
                            out.push_str(SEP);
                        }
                        out.push_str(c);
                        used += sep + len;
                    } else {
                        if i == 0 {
                            out = c.chars().take(max).collect();
                        }
                        break;
                    }
                }
                out
            }
        }
    }

    /// Length in code points of the unbudgeted context: `Σ len + 2·(n − 1)`
    /// (reference `crabpath/traverse.py::_build_context`).
    pub fn context_chars(&self, graph: &Graph) -> usize {
        let n = self.fired.len();
        let total: usize = self
            .fired
            .iter()
            .filter_map(|&id| graph.node(id))
            .map(|node| node.content_chars())
            .sum();
        total + 2 * n.saturating_sub(1)
    }

    /// The reference's `tier_summary` strings (reference `crabpath/traverse.py::_tier`),
    /// empty unless the hop loop was reached.
    pub fn tier_summary(&self, config: &TraversalConfig) -> Vec<(&'static str, String)> {
        if !self.reached_hop_loop {
            return Vec::new();
        }
        let t = &config.tiers;
        vec![
            ("reflex", format!(">= {:?}", t.reflex)),
            (
                "habitual",
                format!("{:?} - {:?}", t.habitual.0, t.habitual.1),
            ),
            ("dormant", format!("< {:?}", t.habitual.0)),
            ("inhibitory", format!("< {:?}", t.inhibitory)),
        ]
    }
}

/// One habitual candidate offered to a [`Router`]: the edge `source → target` (raw
/// weight `weight`) and the candidate's traversal score at this hop.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Offer {
    /// Target node.
    pub target: NodeId,
    /// Raw edge weight.
    pub weight: f64,
    /// The candidate's score (source score · damped weight, after inhibition).
    pub score: f64,
}

/// A router for habitual edges (reference `crabpath/traverse.py::traverse`, `route_fn`,
/// commit 134c676): called once per source that has habitual candidates this hop, in
/// lexicographic order of source id, with that source's candidates in generation order;
/// it sets `keep[i]` for the offers to follow (`keep` arrives all `false`, one entry per
/// offer). Reflex candidates never reach it; rejected offers are dropped.
///
/// The query-aware routers are in [`crate::router`]. Closures of the reference's shape
/// `FnMut(source, &[(target, &Edge)], query) -> Vec<target>` implement it too (they
/// allocate; the routers of [`crate::router`] do not).
pub trait Router {
    /// Whether the router needs the reference's protocol (the default): sources called in
    /// lexicographic order of id, and the kept habituals, then the reflexes, stably
    /// sorted by score (ties: source id, then generation order). A router whose calls
    /// are independent of each other returns `false`: sources are then called in
    /// generation order and what it keeps is ordered exactly as without a router (ties:
    /// habitual before reflex, then generation order), so a router that keeps every
    /// offer traverses exactly as no router does.
    fn lexicographic_sources(&self) -> bool {
        true
    }

    /// Marks in `keep` the offers of `source` to follow.
    fn route(
        &mut self,
        graph: &Graph,
        source: NodeId,
        offers: &[Offer],
        query: &str,
        keep: &mut [bool],
    );
}

impl<F> Router for F
where
    F: FnMut(NodeId, &[(NodeId, &Edge)], &str) -> Vec<NodeId>,
{
    fn route(
        &mut self,
        graph: &Graph,
        source: NodeId,
        offers: &[Offer],
        query: &str,
        keep: &mut [bool],
    ) {
        let offered: Vec<(NodeId, &Edge)> = offers
            .iter()
            .filter_map(|o| graph.edge(source, o.target).map(|e| (o.target, e)))
            .collect();
        let chosen = self(source, &offered, query);
        for (k, o) in keep.iter_mut().zip(offers) {
            *k = chosen.contains(&o.target);
        }
    }
}

/// A 4096-bit set of node ids modulo 4096: `false` from [`IdFilter::may_contain`]
/// proves an id was never inserted since the last clear.
#[derive(Debug, Clone)]
struct IdFilter([u64; 64]);

impl Default for IdFilter {
    fn default() -> Self {
        IdFilter([0; 64])
    }
}

impl IdFilter {
    #[inline]
    fn slot(id: NodeId) -> (usize, u64) {
        let b = id.0 as usize & 4095;
        (b >> 6, 1u64 << (b & 63))
    }

    #[inline]
    fn insert(&mut self, id: NodeId) {
        let (word, mask) = Self::slot(id);
        self.0[word] |= mask;
    }

    #[inline]
    fn may_contain(&self, id: NodeId) -> bool {
        let (word, mask) = Self::slot(id);
        self.0[word] & mask != 0
    }

    fn clear(&mut self) {
        self.0 = [0; 64];
    }
}

/// Negative edges (`w < 0` and `w <= threshold`) out of the active nodes, by target:
/// per target a list, in registration order, of (source, w), linked through a flat
/// arena so that clearing it frees nothing. A 4096-bit filter on the target id answers
/// "no such edge" for most targets without a hash lookup.
#[derive(Debug, Default)]
struct NegIndex {
    /// target → (first, last) arena index of its list.
    heads: FxHashMap<NodeId, (u32, u32)>,
    /// (source, w, next arena index or `u32::MAX`).
    arena: Vec<(NodeId, f64, u32)>,
    /// The targets that have a list.
    filter: IdFilter,
}

impl NegIndex {
    fn clear(&mut self) {
        if !self.arena.is_empty() {
            self.heads.clear();
            self.arena.clear();
            self.filter.clear();
        }
    }

    fn push(&mut self, target: NodeId, source: NodeId, w: f64) {
        let ix = self.arena.len() as u32;
        self.arena.push((source, w, u32::MAX));
        self.filter.insert(target);
        match self.heads.get_mut(&target) {
            Some(h) => {
                self.arena[h.1 as usize].2 = ix;
                h.1 = ix;
            }
            None => {
                self.heads.insert(target, (ix, ix));
            }
        }
    }

    /// The (source, w) list of `target`, in registration order.
    #[inline]
    fn get(&self, target: NodeId) -> Option<NegIter<'_>> {
        if !self.filter.may_contain(target) {
            return None;
        }
        self.heads.get(&target).map(|&(first, _)| NegIter {
            arena: &self.arena,
            next: first,
        })
    }
}

struct NegIter<'a> {
    arena: &'a [(NodeId, f64, u32)],
    next: u32,
}

impl Iterator for NegIter<'_> {
    type Item = (NodeId, f64);
    #[inline]
    fn next(&mut self) -> Option<(NodeId, f64)> {
        let &(s, w, next) = self.arena.get(self.next as usize)?;
        self.next = next;
        Some((s, w))
    }
}

/// Work done by the last [`Traverser::run`], counted (not timed): what the scaling
/// study fits against graph size. Counting costs two additions per expanded or
/// registered node, nothing per edge.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraversalStats {
    /// Frontier nodes whose out-edges were generated as candidates.
    pub nodes_expanded: usize,
    /// Out-edges examined as candidates (the expanded nodes' out-degrees summed).
    pub edges_examined: usize,
    /// Nodes whose out-edges were scanned for the inhibition index.
    pub nodes_indexed: usize,
    /// Out-edges scanned for the inhibition index (the indexed nodes' out-degrees).
    pub edges_indexed: usize,
}

impl TraversalStats {
    /// Edges touched in total: candidates examined plus edges scanned for inhibition.
    pub fn edges_touched(&self) -> usize {
        self.edges_examined + self.edges_indexed
    }
}

#[derive(Debug, Clone, Copy)]
struct Candidate {
    source: NodeId,
    target: NodeId,
    score: f64,
    weight: f64,
    effective: f64,
    tier: Tier,
}

impl Candidate {
    /// The step a traversal records when it takes this candidate.
    fn step(&self) -> Step {
        Step {
            from: self.source,
            to: self.target,
            weight: self.weight,
            effective: self.effective,
            tier: self.tier,
        }
    }
}

/// The selection order of the router-less path (reference `crabpath/traverse.py::traverse`)
/// as an integer key, ascending: score descending (in `f64::total_cmp` order), then
/// habitual before reflex, then generation order (`index` in the candidate list, the low 32
/// bits). The reference gets this order from a stable sort of the habituals, a stable sort
/// of the reflexes and a stable sort of their concatenation; the key is a strict total
/// order giving the same sequence, so keeping the `beam_width` smallest keys gives the same
/// prefix.
#[inline]
fn selection_key(c: &Candidate, index: usize) -> u128 {
    let reflex = (c.tier != Tier::Habitual) as u128;
    (u128::from(descending(c.score)) << 64) | (reflex << 32) | index as u128
}

/// A key whose ascending order is `score` descending in [`f64::total_cmp`] order: the bit
/// trick of `total_cmp`, made unsigned, then inverted.
#[inline]
fn descending(score: f64) -> u64 {
    let bits = score.to_bits() as i64;
    let ordered = (bits ^ (((bits >> 63) as u64) >> 1) as i64) as u64 ^ (1 << 63);
    !ordered
}

/// Reusable traversal engine: scratch buffers survive between queries.
#[derive(Debug, Default)]
pub struct Traverser {
    scores: FxHashMap<NodeId, usize>,
    used: FxHashMap<(NodeId, NodeId), u32>,
    frontier: Vec<(NodeId, f64)>,
    next: Vec<(NodeId, f64)>,
    cands: Vec<Candidate>,
    selected: Vec<Candidate>,
    inh: Vec<(NodeId, f64)>,
    /// Negative edges (≤ threshold) out of the active set, by target.
    neg: NegIndex,
    /// Nodes activated but not yet in `neg`.
    pending: Vec<NodeId>,
    target_seen: Vec<NodeId>,
    /// Selection keys of the candidates (see [`selection_key`]).
    keys: Vec<u128>,
    valid: Vec<(NodeId, f64)>,
    seed_scores: FxHashMap<NodeId, f64>,
    /// 4096-bit filter on the sources of `used` entries (most frontier nodes have
    /// none, which saves a pair lookup per candidate).
    used_filter: IdFilter,
    /// Routed selection scratch: sources with habitual candidates, one source's offers
    /// and their candidate positions, the router's marks, the routed candidates.
    route_sources: Vec<NodeId>,
    offers: Vec<Offer>,
    offer_at: Vec<usize>,
    keep: Vec<bool>,
    route_buf: Vec<Candidate>,
    /// Per candidate: kept by the router (order-independent routers).
    cand_keep: Vec<bool>,
    /// Which nodes a walk reaches but sets aside ([`Traverser::set_aside`]).
    aside: Option<AsideFn>,
    /// How many of `out.fired` were set aside (they count in no budget).
    aside_fired: usize,
    stats: TraversalStats,
}

/// A test of the nodes a traversal sets aside ([`Traverser::set_aside`]).
pub type AsideFn = fn(&Graph, NodeId) -> bool;

impl Traverser {
    /// A traverser with empty scratch space.
    pub fn new() -> Self {
        Self::default()
    }

    /// What the last traversal examined (zero before the first).
    pub fn stats(&self) -> TraversalStats {
        self.stats
    }

    /// Sets which nodes the next traversals set aside (`None`, the default: none).
    ///
    /// A node set aside that a hop reaches is recorded (in `fired`, `fired_scores` and
    /// `steps`, so an answer can list it) but takes no place of the beam, counts in no
    /// budget (`max_fired_nodes`, `max_context_chars`), is never expanded and inhibits
    /// nothing: the walk goes on among the other nodes as if it were not there. The
    /// served brain of the corrected profile sets its corrections aside, so that a
    /// correction is returned as a guardrail beside the content a question would get
    /// without it (issue 31 item 4). A seed is never set aside. No reference
    /// counterpart (the paper profile sets nothing aside).
    ///
    /// Cost: one call of `aside` per candidate of each hop.
    pub fn set_aside(&mut self, aside: Option<AsideFn>) {
        self.aside = aside;
    }

    /// Runs one traversal (reference `crabpath/traverse.py::traverse`) without a router.
    pub fn traverse(
        &mut self,
        graph: &Graph,
        seeds: &[(NodeId, f64)],
        config: &TraversalConfig,
    ) -> Result<TraversalResult> {
        let mut out = TraversalResult::default();
        self.run(graph, seeds, config, None, "", &mut out)?;
        Ok(out)
    }

    /// Runs one traversal with a router for habitual edges.
    pub fn traverse_routed(
        &mut self,
        graph: &Graph,
        seeds: &[(NodeId, f64)],
        config: &TraversalConfig,
        router: &mut dyn Router,
        query: &str,
    ) -> Result<TraversalResult> {
        let mut out = TraversalResult::default();
        self.run(graph, seeds, config, Some(router), query, &mut out)?;
        Ok(out)
    }

    /// Sets a fired node's score; a node scored for the first time becomes active and
    /// is queued for [`register_active`].
    fn set_score(&mut self, out: &mut TraversalResult, id: NodeId, score: f64) {
        match self.scores.get(&id) {
            Some(&i) => out.fired_scores[i].1 = score,
            None => {
                self.scores.insert(id, out.fired_scores.len());
                out.fired_scores.push((id, score));
                self.pending.push(id);
            }
        }
    }

    /// The traversal itself, writing into `out` (cleared first): the seeding phase
    /// (`Traverser::seed`), then up to `max_hops` hops (`Traverser::hop`: expansion,
    /// selection, acceptance) while the frontier is not empty and no budget is reached.
    ///
    /// Cost: clearing the scratch maps (proportional to their capacity, which stops
    /// growing once warm), the seeding, and per hop the expansion of at most
    /// `beam_width` frontier nodes — so with bounded out-degree the work does not
    /// depend on the graph's size (`BENCHMARKS.md`, "Traversal per query"). No
    /// allocation once the scratch buffers and `out` have grown (`tests/it/alloc_free.rs`).
    pub fn run(
        &mut self,
        graph: &Graph,
        seeds: &[(NodeId, f64)],
        config: &TraversalConfig,
        mut router: Option<&mut dyn Router>,
        query: &str,
        out: &mut TraversalResult,
    ) -> Result<()> {
        self.reset(out);
        for &(id, s) in seeds {
            finite(|| format!("seed score of node #{}", id.0), s)?;
        }
        finite(|| "edge_damping".into(), config.edge_damping)?;
        if config.max_hops == 0 || config.beam_width == 0 {
            return Ok(());
        }
        let Some(mut budget) = self.seed(graph, seeds, config, out) else {
            return Ok(());
        };
        out.reached_hop_loop = true;
        for hop in 0..config.max_hops {
            if self.frontier.is_empty() {
                break;
            }
            let last = hop + 1 == config.max_hops;
            let more = self.hop(
                graph,
                config,
                router.as_deref_mut(),
                query,
                last,
                &mut budget,
                out,
            );
            if !more {
                break;
            }
        }
        Ok(())
    }

    /// Clears `out` and the per-query scratch state.
    ///
    /// Cost: clearing a hash map is proportional to its capacity (the largest active
    /// set / set of used edges of any query so far); `used` and its filter are cleared
    /// only when the last query used an edge.
    #[inline]
    fn reset(&mut self, out: &mut TraversalResult) {
        out.fired.clear();
        out.steps.clear();
        out.fired_scores.clear();
        out.reached_hop_loop = false;
        self.scores.clear();
        if !self.used.is_empty() {
            self.used.clear();
            self.used_filter.clear();
        }
        self.neg.clear();
        self.pending.clear();
        self.frontier.clear();
        self.stats = TraversalStats::default();
        self.aside_fired = 0;
    }

    /// Seeding (phase 1): the seeds that are nodes of the graph, by score descending
    /// (stable), each adjusted by the inhibition from the other seeds, those above the
    /// inhibitory threshold and at or above `fire_threshold` become the frontier (at
    /// most `beam_width`, and `max_fired_nodes`) and fire. The active set for the seeds'
    /// inhibition is every seed (the last duplicate's score wins); after this phase it
    /// is the fired set.
    ///
    /// Returns the characters fired so far (the context budget's count), or `None` when
    /// the traversal is over: no seed fired, or a budget is reached by the seeds.
    ///
    /// Cost, for `s` seeds: O(s log s) for the sort, plus one scan of each distinct
    /// valid seed's out-edges to index its negative edges ([`register_active`]), plus
    /// one inhibition lookup per valid seed (its indexed negative in-edges from other
    /// seeds, sorted when two or more).
    #[inline]
    fn seed(
        &mut self,
        graph: &Graph,
        seeds: &[(NodeId, f64)],
        config: &TraversalConfig,
        out: &mut TraversalResult,
    ) -> Option<usize> {
        let thr = config.tiers.inhibitory;
        let explicit = config.explicit_inhibition_only;
        // valid seeds, last duplicate score wins for the active map
        let valid = &mut self.valid;
        valid.clear();
        valid.extend(seeds.iter().copied().filter(|(id, _)| graph.has_node(*id)));
        if valid.is_empty() {
            return None;
        }
        let seed_scores = &mut self.seed_scores;
        seed_scores.clear();
        for &(id, s) in valid.iter() {
            if seed_scores.insert(id, s).is_none() {
                register_active(&mut self.neg, &mut self.stats, graph, id, thr, explicit);
            }
        }
        valid.sort_by(|a, b| b.1.total_cmp(&a.1));
        for &(id, score) in valid.iter() {
            let s = inhibition(&mut self.inh, &self.neg, graph, id, |n| {
                seed_scores.get(&n).copied()
            });
            if s <= thr {
                continue;
            }
            let adjusted = score + s;
            if adjusted < config.fire_threshold {
                continue;
            }
            self.frontier.push((id, adjusted));
        }
        self.frontier.truncate(config.beam_width);
        if self.frontier.is_empty() {
            return None;
        }
        // from here on the active set is the fired set, registered as nodes fire
        self.neg.clear();
        if let Some(m) = config.max_fired_nodes {
            self.frontier.truncate(m);
        }
        let mut chars = 0usize;
        for i in 0..self.frontier.len() {
            let (id, score) = self.frontier[i];
            out.fired.push(id);
            self.set_score(out, id, score);
            if config.max_context_chars.is_some() {
                chars += graph.node(id).map_or(0, |n| n.content_chars());
            }
        }
        if config.max_fired_nodes.is_some_and(|m| out.fired.len() >= m)
            || config.max_context_chars.is_some_and(|m| chars >= m)
        {
            return None;
        }
        Some(chars)
    }

    /// One hop (phase 2) from the frontier: the nodes activated since the last hop
    /// enter the inhibition index, then (a) [`Traverser::expand`] generates the
    /// candidates, (b) [`Traverser::select`] orders and filters them (router), (c)
    /// [`Traverser::accept`] fires up to `beam_width` of them, which become the next
    /// frontier. `last`: this is the final hop (its targets are never expanded).
    /// `chars` is the context budget's running count. Returns whether another hop may
    /// follow (`false`: no candidate, or a budget is reached).
    ///
    /// Cost: registering the newly active nodes scans their out-edges (each node once
    /// per traversal); then the expansion, the selection and the acceptance below.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn hop(
        &mut self,
        graph: &Graph,
        config: &TraversalConfig,
        router: Option<&mut (dyn Router + '_)>,
        query: &str,
        last: bool,
        chars: &mut usize,
        out: &mut TraversalResult,
    ) -> bool {
        // Nodes activated since the last hop enter the inhibition index now, the first
        // time it is read; the index is only read in (a), so registering later than the
        // reference does changes nothing, and the nodes fired in the last hop are never
        // registered (their buckets are never loaded).
        let (thr, explicit) = (config.tiers.inhibitory, config.explicit_inhibition_only);
        for i in 0..self.pending.len() {
            let id = self.pending[i];
            register_active(&mut self.neg, &mut self.stats, graph, id, thr, explicit);
        }
        self.pending.clear();

        self.expand(graph, config, out);
        if let Some(aside) = self.aside {
            self.set_candidates_aside(graph, aside, out);
        }
        if self.cands.is_empty() {
            return false;
        }
        self.select(graph, config, router, query);
        let stop = self.accept(graph, config, last, chars, out);

        // (d) hop end
        std::mem::swap(&mut self.frontier, &mut self.next);
        if !config.keep_max_fired_score {
            for i in 0..self.frontier.len() {
                let (id, s) = self.frontier[i];
                self.set_score(out, id, s);
            }
        }
        !stop
    }

    /// Expansion (a): every out-edge of every frontier node becomes a candidate
    /// `source → target` unless its damped weight (`w · λ^k`, `k` = times the edge was
    /// already taken in this traversal) is ≤ 0, its tier is dormant or inhibitory, the
    /// target's inhibition from the fired nodes is ≤ the inhibitory threshold, or the
    /// score (`source score · damped weight + inhibition − visit penalty`) is below
    /// `fire_threshold`. Candidates go to `self.cands` in generation order (frontier
    /// order, then bucket order).
    ///
    /// Cost: O(Σ out-degree of the frontier) edge visits — at most `beam_width` sources,
    /// so independent of the graph's size for bounded degree (hubs: their degree). Per
    /// edge: a tier comparison, an inhibition lookup (a 4096-bit filter, then a hash
    /// lookup only for targets with an indexed negative in-edge, plus a sort of their
    /// terms when two or more), and a `used` lookup only for sources with a used edge
    /// (another 4096-bit filter).
    #[inline]
    fn expand(&mut self, graph: &Graph, config: &TraversalConfig, out: &TraversalResult) {
        let thr = config.tiers.inhibitory;
        self.cands.clear();
        let penalize = config.visit_penalty.to_bits() != 0;
        for &(source, source_score) in &self.frontier {
            let maybe_used = self.used_filter.may_contain(source);
            self.stats.nodes_expanded += 1;
            self.stats.edges_examined += graph.bucket(source).map_or(0, |b| b.len());
            for (target, edge) in graph.outgoing(source) {
                let w = edge.weight;
                let k = if maybe_used {
                    self.used.get(&(source, target)).copied().unwrap_or(0)
                } else {
                    0
                };
                // λ^0 is exactly 1.0, and w · 1.0 is exactly w
                let eff = if k == 0 {
                    w
                } else {
                    w * config.edge_damping.powf(k as f64)
                };
                if eff <= 0.0 {
                    continue;
                }
                let tier = config.tiers.classify(w);
                if matches!(tier, Tier::Dormant | Tier::Inhibitory) {
                    continue;
                }
                let mut score = source_score * eff;
                let (scores, fs) = (&self.scores, &out.fired_scores);
                let inh = inhibition(&mut self.inh, &self.neg, graph, target, |n| {
                    scores.get(&n).map(|&i| fs[i].1)
                });
                if inh <= thr {
                    continue;
                }
                score += inh;
                // x − (+0.0) is exactly x, so the lookup is only needed otherwise
                // (visited = has a score: both sets grow together)
                if penalize && self.scores.contains_key(&target) {
                    score -= config.visit_penalty;
                }
                if score < config.fire_threshold {
                    continue;
                }
                self.cands.push(Candidate {
                    source,
                    target,
                    score,
                    weight: w,
                    effective: eff,
                    tier,
                });
            }
        }
    }

    /// Selection (b): the candidates in the order they are accepted, into
    /// `self.selected`. With a router of the reference's protocol
    /// ([`Router::lexicographic_sources`]) and habitual candidates:
    /// [`Traverser::select_lexicographic`]; otherwise [`Traverser::select_keyed`].
    #[inline]
    fn select(
        &mut self,
        graph: &Graph,
        config: &TraversalConfig,
        router: Option<&mut (dyn Router + '_)>,
        query: &str,
    ) {
        self.selected.clear();
        let has_habitual = self.cands.iter().any(|c| c.tier == Tier::Habitual);
        match router {
            Some(r) if has_habitual && r.lexicographic_sources() => {
                self.select_lexicographic(graph, r, query)
            }
            Some(r) if has_habitual => self.select_keyed(graph, config, Some(r), query),
            _ => self.select_keyed(graph, config, None, query),
        }
    }

    /// The reference's routed selection: the router is called per source with
    /// habitual candidates, sources in lexicographic order of id; the habituals it
    /// keeps, then the reflexes, stably sorted by score descending.
    ///
    /// Cost, for `c` candidates from `f` frontier sources: O(c · f) to collect the
    /// sources and each one's offers, O(f log f) name comparisons, the router's calls,
    /// and O(c log c) for the sort.
    fn select_lexicographic(&mut self, graph: &Graph, r: &mut (dyn Router + '_), query: &str) {
        let sources = &mut self.route_sources;
        sources.clear();
        for c in self.cands.iter().filter(|c| c.tier == Tier::Habitual) {
            if !sources.contains(&c.source) {
                sources.push(c.source);
            }
        }
        // distinct ids have distinct names: unstable is the stable order
        sources.sort_unstable_by(|a, b| graph.name(*a).cmp(graph.name(*b)));
        let routed = &mut self.route_buf;
        routed.clear();
        for &s in sources.iter() {
            offers_of(&self.cands, s, &mut self.offers, &mut self.offer_at);
            self.keep.clear();
            self.keep.resize(self.offers.len(), false);
            r.route(graph, s, &self.offers, query, &mut self.keep);
            let cands = &self.cands;
            routed.extend(
                self.offer_at
                    .iter()
                    .zip(&self.keep)
                    .filter(|(_, &k)| k)
                    .map(|(&i, _)| cands[i]),
            );
        }
        routed.extend(self.cands.iter().filter(|c| c.tier == Tier::Reflex));
        // stable sort by score, descending: ties keep this order
        let keys = &mut self.keys;
        keys.clear();
        keys.extend(
            routed
                .iter()
                .enumerate()
                .map(|(i, c)| (u128::from(descending(c.score)) << 64) | i as u128),
        );
        keys.sort_unstable();
        self.selected
            .extend(keys.iter().map(|&key| routed[key as u32 as usize]));
    }

    /// The router-less order (see [`selection_key`]) of the candidates — with a router
    /// whose calls are independent of each other (sources in generation order), of the
    /// candidates it keeps (habitual ones it rejects are dropped; reflexes always
    /// stay). Only the `beam_width` first are kept, unless `dedup_before_beam` (then
    /// all, deduplicated by [`Traverser::accept`] before the beam cut).
    ///
    /// Cost, for `c` candidates and beam width `b`: O(c · log b) comparisons and
    /// O(c · b) moves at worst to keep the `b` smallest keys in order (typically far
    /// fewer: a key larger than the `b`-th is rejected at once); with
    /// `dedup_before_beam` a sort, O(c log c). A router adds O(c · f) to collect the
    /// `f` sources and their offers, and its calls.
    fn select_keyed(
        &mut self,
        graph: &Graph,
        config: &TraversalConfig,
        router: Option<&mut (dyn Router + '_)>,
        query: &str,
    ) {
        let filtered = match router {
            Some(r) => {
                let kept = &mut self.cand_keep;
                kept.clear();
                kept.resize(self.cands.len(), true);
                let sources = &mut self.route_sources;
                sources.clear();
                for c in self.cands.iter().filter(|c| c.tier == Tier::Habitual) {
                    if !sources.contains(&c.source) {
                        sources.push(c.source);
                    }
                }
                for &s in sources.iter() {
                    offers_of(&self.cands, s, &mut self.offers, &mut self.offer_at);
                    self.keep.clear();
                    self.keep.resize(self.offers.len(), false);
                    r.route(graph, s, &self.offers, query, &mut self.keep);
                    for (&i, &k) in self.offer_at.iter().zip(&self.keep) {
                        kept[i] = k;
                    }
                }
                true
            }
            None => false,
        };
        // every candidate is habitual or reflex; see `selection_key`
        let keys = &mut self.keys;
        keys.clear();
        let kept = &self.cand_keep;
        let keyed = self
            .cands
            .iter()
            .enumerate()
            .filter(|&(i, _)| !filtered || kept[i])
            .map(|(i, c)| selection_key(c, i));
        if config.dedup_before_beam {
            keys.extend(keyed);
            keys.sort_unstable();
        } else {
            // the `beam_width` smallest keys, in order
            let k = config.beam_width;
            for key in keyed {
                if keys.len() == k && keys.last().is_some_and(|&l| key > l) {
                    continue;
                }
                let at = keys.partition_point(|&x| x < key);
                keys.insert(at, key);
                keys.truncate(k);
            }
        }
        let cands = &self.cands;
        self.selected
            .extend(keys.iter().map(|&key| cands[key as u32 as usize]));
    }

    /// Acceptance (c): the selected candidates (deduplicated by target first with
    /// `dedup_before_beam`), cut to `beam_width`, are taken in order; each target once
    /// per hop. A new target fires (checking `max_fired_nodes` and, with `chars`, the
    /// context budget); a target that already fired keeps the better score. Every
    /// accepted candidate is a step, counts as a use of its edge (damping), and its
    /// target enters `self.next` with its score. Unless `last`, the accepted targets'
    /// buckets are loaded first ([`touch_buckets`]). Returns whether a budget is
    /// reached (the traversal stops after this hop).
    ///
    /// Cost: O(b²) target comparisons for `b` = `beam_width` (linear scans of at most
    /// `b` targets; `c · b` with `dedup_before_beam` on `c` selected candidates), and
    /// per accepted candidate two hash-map updates (`scores`, `used`).
    #[inline]
    fn accept(
        &mut self,
        graph: &Graph,
        config: &TraversalConfig,
        last: bool,
        chars: &mut usize,
        out: &mut TraversalResult,
    ) -> bool {
        if config.dedup_before_beam {
            let kept = &mut self.target_seen;
            kept.clear();
            self.selected.retain(|c| {
                if kept.contains(&c.target) {
                    false
                } else {
                    kept.push(c.target);
                    true
                }
            });
        }
        self.selected.truncate(config.beam_width);
        self.next.clear();
        self.target_seen.clear();
        let mut stop = false;
        let selected = std::mem::take(&mut self.selected);
        if !last {
            touch_buckets(graph, &selected);
        }
        for c in &selected {
            if self.target_seen.contains(&c.target) {
                continue;
            }
            self.target_seen.push(c.target);
            match self.scores.get(&c.target) {
                Some(&i) => keep_better(&mut out.fired_scores[i].1, c.score),
                None => {
                    out.fired.push(c.target);
                    if config
                        .max_fired_nodes
                        .is_some_and(|m| out.fired.len() - self.aside_fired >= m)
                    {
                        stop = true;
                    }
                    if let Some(m) = config.max_context_chars {
                        *chars += graph.node(c.target).map_or(0, |n| n.content_chars());
                        if *chars >= m {
                            stop = true;
                        }
                    }
                    self.set_score(out, c.target, c.score);
                }
            }
            *self.used.entry((c.source, c.target)).or_insert(0) += 1;
            self.used_filter.insert(c.source);
            out.steps.push(c.step());
            self.next.push((c.target, c.score));
            if stop {
                break;
            }
        }
        self.selected = selected;
        stop
    }

    /// Takes the candidates whose target `aside` sets aside out of the hop's candidates
    /// before the selection ([`Traverser::set_aside`]): each target is recorded once
    /// (fired, its best score, the first step to it) without entering the active set.
    ///
    /// Cost: one call of `aside` per candidate, one pass over the candidates.
    fn set_candidates_aside(&mut self, graph: &Graph, aside: AsideFn, out: &mut TraversalResult) {
        let (scores, aside_fired) = (&mut self.scores, &mut self.aside_fired);
        self.cands.retain(|c| {
            if !aside(graph, c.target) {
                return true;
            }
            match scores.get(&c.target) {
                Some(&k) => keep_better(&mut out.fired_scores[k].1, c.score),
                None => {
                    out.fired.push(c.target);
                    *aside_fired += 1;
                    scores.insert(c.target, out.fired_scores.len());
                    out.fired_scores.push((c.target, c.score));
                    out.steps.push(c.step());
                }
            }
            false
        });
    }
}

/// Keeps the better of a fired node's score and a new one: the reference's comparison,
/// `prev >= score` keeps `prev`, otherwise `score` (so either being NaN takes `score`).
#[inline]
fn keep_better(prev: &mut f64, score: f64) {
    *prev = if *prev >= score { *prev } else { score };
}

/// The habitual candidates of `source` as offers, with their positions in `cands`.
fn offers_of(cands: &[Candidate], source: NodeId, offers: &mut Vec<Offer>, at: &mut Vec<usize>) {
    offers.clear();
    at.clear();
    for (i, c) in cands.iter().enumerate() {
        if c.tier == Tier::Habitual && c.source == source {
            offers.push(Offer {
                target: c.target,
                weight: c.weight,
                score: c.score,
            });
            at.push(i);
        }
    }
}

/// Loads the bucket headers, then the first edges, of every selected target
/// before any of them is used. On a graph much larger than the cache each is a memory
/// access; issued back to back, the accesses of the (up to `beam_width`) accepted
/// targets overlap instead of following one another, and the buckets are in cache when
/// the targets are registered and expanded. Reads only; no effect on results.
#[inline]
fn touch_buckets(graph: &Graph, selected: &[Candidate]) {
    for c in selected {
        std::hint::black_box(graph.bucket(c.target).map(|b| b.len()));
    }
    for c in selected {
        if let Some(b) = graph.bucket(c.target) {
            // every cache line of a typical bucket (hubs: the first 16 edges)
            let sum = b.values().take(16).fold(0.0, |acc, e| acc + e.weight);
            std::hint::black_box(sum);
        }
    }
}

/// Records the negative edges (`w < 0` and `w <= threshold`; with `explicit_only`, of
/// kind [`EdgeKind::Inhibitory`] only) out of a node that has just become active, keyed
/// by target.
fn register_active(
    neg: &mut NegIndex,
    stats: &mut TraversalStats,
    graph: &Graph,
    source: NodeId,
    threshold: f64,
    explicit_only: bool,
) {
    let Some(bucket) = graph.bucket(source) else {
        return;
    };
    stats.nodes_indexed += 1;
    stats.edges_indexed += bucket.len();
    for (&t, e) in bucket {
        if e.weight < 0.0
            && e.weight <= threshold
            && (!explicit_only || e.kind == EdgeKind::Inhibitory)
        {
            neg.push(t, source, e.weight);
        }
    }
}

/// Inhibition of `target` (reference `crabpath/traverse.py::_incoming_inhibition`): the
/// sum, in outer bucket order, of `score(source) · w` over incoming edges with `w < 0` and
/// `w <= threshold` whose source is active. The reference scans every bucket for each call;
/// here the negative edges of active nodes are indexed by target ([`register_active`],
/// before the next read), which visits the same edges and sums them in the same order (the
/// sources' bucket positions are looked up only when two or more terms must be ordered).
/// `buf` is scratch.
fn inhibition(
    buf: &mut Vec<(NodeId, f64)>,
    neg: &NegIndex,
    graph: &Graph,
    target: NodeId,
    active: impl Fn(NodeId) -> Option<f64>,
) -> f64 {
    let Some(list) = neg.get(target) else {
        return 0.0;
    };
    buf.clear();
    for (s, w) in list {
        if let Some(score) = active(s) {
            buf.push((s, score * w));
        }
    }
    match buf.len() {
        0 => 0.0,
        1 => 0.0 + buf[0].1,
        _ => {
            // each source registers once, so the positions are distinct
            buf.sort_unstable_by_key(|x| graph.bucket_position(x.0).unwrap_or(usize::MAX));
            buf.iter().fold(0.0, |sum, &(_, v)| sum + v)
        }
    }
}

/// One traversal with fresh scratch space (convenience for [`Traverser::traverse`]).
pub fn traverse(
    graph: &Graph,
    seeds: &[(NodeId, f64)],
    config: &TraversalConfig,
) -> Result<TraversalResult> {
    Traverser::new().traverse(graph, seeds, config)
}

/// Resolves `(id, score)` seeds given as strings; an unknown id is an error
/// (`traverse` itself silently drops seeds without a node, as the reference does).
pub fn resolve_seeds(graph: &Graph, seeds: &[(&str, f64)]) -> Result<Vec<(NodeId, f64)>> {
    seeds
        .iter()
        .map(|&(id, s)| Ok((graph.require(id)?, s)))
        .collect()
}
