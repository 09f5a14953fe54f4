//! Query-time traversal: seeding, beam, hop loop, reflex/habitual routing, inhibition
//! veto, per-episode edge damping, budgets, context assembly (paper §2–3; CORE.md §3–4).
//!
//! [`Traverser`] owns scratch buffers so that repeated queries allocate nothing but
//! their results. With the `paper` profile every tie-break and quirk of the reference
//! is kept (CORE.md §4.7, §14 item 5).

use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use serde::{Deserialize, Serialize};

use crate::error::{finite, Result};
use crate::graph::{Edge, Graph, NodeId};
use crate::tier::{Tier, TierThresholds};

/// Traversal parameters (CORE.md §3.1) plus the corrected profile's switches.
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
    /// Corrected switch: drop duplicate targets before the beam cut, so that two
    /// candidates for one target do not consume two slots (paper: cut first, §4.4 c).
    pub dedup_before_beam: bool,
    /// Corrected switch: keep the maximum score a node reached this episode (paper:
    /// the latest hop's score overwrites it, §4.4 d).
    pub keep_max_fired_score: bool,
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
        }
    }
}

/// One accepted transition (CORE.md §3.2).
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

/// The outcome of one traversal (CORE.md §3.3, §4.5).
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

    /// Fired ids in context order: score desc, then earlier fired position (§4.6).
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

    /// The assembled context (CORE.md §4.6): contents joined by `"\n\n"` in context
    /// order, greedily cut to `max_chars` code points when a budget is given.
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

    /// Length in code points of the unbudgeted context: `Σ len + 2·(n − 1)` (§4.6).
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

    /// The reference's `tier_summary` strings (CORE.md §2), empty unless the hop loop
    /// was reached.
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

/// A router for habitual edges: given a source and its habitual candidates (target,
/// edge, in generation order) and the query text, returns the targets to follow
/// (CORE.md §4.4 b). Closures of the same shape implement it.
pub trait Router {
    /// Chooses targets among `candidates`.
    fn route(&mut self, source: NodeId, candidates: &[(NodeId, &Edge)], query: &str)
        -> Vec<NodeId>;
}

impl<F> Router for F
where
    F: FnMut(NodeId, &[(NodeId, &Edge)], &str) -> Vec<NodeId>,
{
    fn route(
        &mut self,
        source: NodeId,
        candidates: &[(NodeId, &Edge)],
        query: &str,
    ) -> Vec<NodeId> {
        self(source, candidates, query)
    }
}

/// Negative edges out of active nodes, by target: (source bucket position, source, w).
type NegIndex = FxHashMap<NodeId, SmallVec<[(usize, NodeId, f64); 2]>>;

#[derive(Debug, Clone, Copy)]
struct Candidate {
    source: NodeId,
    target: NodeId,
    score: f64,
    weight: f64,
    effective: f64,
    tier: Tier,
}

/// Reusable traversal engine: scratch buffers survive between queries.
#[derive(Debug, Default)]
pub struct Traverser {
    seen: FxHashMap<NodeId, u32>,
    scores: FxHashMap<NodeId, usize>,
    used: FxHashMap<(NodeId, NodeId), u32>,
    frontier: Vec<(NodeId, f64)>,
    next: Vec<(NodeId, f64)>,
    cands: Vec<Candidate>,
    selected: Vec<Candidate>,
    inh: Vec<(usize, f64)>,
    /// Negative edges (≤ threshold) out of the active set, by target:
    /// (bucket position of the source, source, weight).
    neg: NegIndex,
    target_seen: Vec<NodeId>,
}

impl Traverser {
    /// A traverser with empty scratch space.
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs one traversal (CORE.md §4) without a router.
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

    fn set_score(
        &mut self,
        graph: &Graph,
        thr: f64,
        out: &mut TraversalResult,
        id: NodeId,
        score: f64,
    ) {
        match self.scores.get(&id) {
            Some(&i) => out.fired_scores[i].1 = score,
            None => {
                self.scores.insert(id, out.fired_scores.len());
                out.fired_scores.push((id, score));
                register_active(&mut self.neg, graph, id, thr);
            }
        }
    }

    fn score_of(&self, out: &TraversalResult, id: NodeId) -> Option<f64> {
        self.scores.get(&id).map(|&i| out.fired_scores[i].1)
    }

    /// The traversal itself, writing into `out` (cleared first).
    pub fn run(
        &mut self,
        graph: &Graph,
        seeds: &[(NodeId, f64)],
        config: &TraversalConfig,
        mut router: Option<&mut dyn Router>,
        query: &str,
        out: &mut TraversalResult,
    ) -> Result<()> {
        out.fired.clear();
        out.steps.clear();
        out.fired_scores.clear();
        out.reached_hop_loop = false;
        self.seen.clear();
        self.scores.clear();
        self.used.clear();
        self.neg.clear();
        self.frontier.clear();

        for &(id, s) in seeds {
            finite(|| format!("seed score of node #{}", id.0), s)?;
        }
        finite(|| "edge_damping".into(), config.edge_damping)?;
        if config.max_hops == 0 || config.beam_width == 0 {
            return Ok(());
        }
        let thr = config.tiers.inhibitory;

        // §4.3 seeding: valid seeds, last duplicate score wins for the active map.
        let mut valid: Vec<(NodeId, f64)> = seeds
            .iter()
            .copied()
            .filter(|(id, _)| graph.has_node(*id))
            .collect();
        if valid.is_empty() {
            return Ok(());
        }
        let mut seed_scores: FxHashMap<NodeId, f64> = FxHashMap::default();
        for &(id, s) in &valid {
            if seed_scores.insert(id, s).is_none() {
                register_active(&mut self.neg, graph, id, thr);
            }
        }
        valid.sort_by(|a, b| b.1.total_cmp(&a.1));
        for &(id, score) in &valid {
            let s = inhibition(&mut self.inh, &self.neg, id, |n| seed_scores.get(&n).copied());
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
            return Ok(());
        }
        // from here on the active set is the fired set, registered as nodes fire
        self.neg.clear();
        if let Some(m) = config.max_fired_nodes {
            self.frontier.truncate(m);
        }
        let mut cum_chars = 0usize;
        for i in 0..self.frontier.len() {
            let (id, score) = self.frontier[i];
            out.fired.push(id);
            self.seen.insert(id, 1);
            self.set_score(graph, thr, out, id, score);
            if config.max_context_chars.is_some() {
                cum_chars += graph.node(id).map_or(0, |n| n.content_chars());
            }
        }
        if config.max_fired_nodes.is_some_and(|m| out.fired.len() >= m)
            || config.max_context_chars.is_some_and(|m| cum_chars >= m)
        {
            return Ok(());
        }
        out.reached_hop_loop = true;

        // §4.4 hop loop.
        for _hop in 0..config.max_hops {
            if self.frontier.is_empty() {
                break;
            }
            // (a) candidate generation
            self.cands.clear();
            let frontier = std::mem::take(&mut self.frontier);
            for &(source, source_score) in &frontier {
                for (target, edge) in graph.outgoing(source) {
                    let w = edge.weight;
                    let k = self.used.get(&(source, target)).copied().unwrap_or(0);
                    let eff = w * config.edge_damping.powf(k as f64);
                    if eff <= 0.0 {
                        continue;
                    }
                    let tier = config.tiers.classify(w);
                    if matches!(tier, Tier::Dormant | Tier::Inhibitory) {
                        continue;
                    }
                    let mut score = source_score * eff;
                    let (scores, fs) = (&self.scores, &out.fired_scores);
                    let inh = inhibition(&mut self.inh, &self.neg, target, |n| {
                        scores.get(&n).map(|&i| fs[i].1)
                    });
                    if inh <= thr {
                        continue;
                    }
                    score += inh;
                    if self.seen.contains_key(&target) {
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
            self.frontier = frontier;
            if self.cands.is_empty() {
                break;
            }

            // (b) selection
            self.selected.clear();
            let has_habitual = self.cands.iter().any(|c| c.tier == Tier::Habitual);
            match router.as_deref_mut() {
                Some(r) if has_habitual => {
                    let mut sources: Vec<NodeId> = Vec::new();
                    for c in self.cands.iter().filter(|c| c.tier == Tier::Habitual) {
                        if !sources.contains(&c.source) {
                            sources.push(c.source);
                        }
                    }
                    sources.sort_by(|a, b| graph.name(*a).cmp(graph.name(*b)));
                    for s in sources {
                        let mine: Vec<Candidate> = self
                            .cands
                            .iter()
                            .filter(|c| c.tier == Tier::Habitual && c.source == s)
                            .copied()
                            .collect();
                        let offered: Vec<(NodeId, &Edge)> = mine
                            .iter()
                            .filter_map(|c| graph.edge(c.source, c.target).map(|e| (c.target, e)))
                            .collect();
                        let chosen = r.route(s, &offered, query);
                        self.selected
                            .extend(mine.into_iter().filter(|c| chosen.contains(&c.target)));
                    }
                    self.selected.extend(
                        self.cands
                            .iter()
                            .filter(|c| c.tier == Tier::Reflex)
                            .copied(),
                    );
                    self.selected.sort_by(|a, b| b.score.total_cmp(&a.score));
                }
                _ => {
                    self.selected.extend(
                        self.cands
                            .iter()
                            .filter(|c| c.tier == Tier::Habitual)
                            .copied(),
                    );
                    self.selected.sort_by(|a, b| b.score.total_cmp(&a.score));
                    let split = self.selected.len();
                    self.selected.extend(
                        self.cands
                            .iter()
                            .filter(|c| c.tier == Tier::Reflex)
                            .copied(),
                    );
                    self.selected[split..].sort_by(|a, b| b.score.total_cmp(&a.score));
                    self.selected.sort_by(|a, b| b.score.total_cmp(&a.score));
                }
            }

            // (c) acceptance
            if config.dedup_before_beam {
                let mut kept: Vec<NodeId> = Vec::new();
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
            for c in &selected {
                if self.target_seen.contains(&c.target) {
                    continue;
                }
                self.target_seen.push(c.target);
                match self.seen.get_mut(&c.target) {
                    Some(n) => *n += 1,
                    None => {
                        self.seen.insert(c.target, 1);
                        out.fired.push(c.target);
                        if config.max_fired_nodes.is_some_and(|m| out.fired.len() >= m) {
                            stop = true;
                        }
                        if let Some(m) = config.max_context_chars {
                            cum_chars += graph.node(c.target).map_or(0, |n| n.content_chars());
                            if cum_chars >= m {
                                stop = true;
                            }
                        }
                    }
                }
                let best = match self.score_of(out, c.target) {
                    Some(prev) if prev >= c.score => prev,
                    _ => c.score,
                };
                self.set_score(graph, thr, out, c.target, best);
                *self.used.entry((c.source, c.target)).or_insert(0) += 1;
                out.steps.push(Step {
                    from: c.source,
                    to: c.target,
                    weight: c.weight,
                    effective: c.effective,
                    tier: c.tier,
                });
                self.next.push((c.target, c.score));
                if stop {
                    break;
                }
            }
            self.selected = selected;

            // (d) hop end
            std::mem::swap(&mut self.frontier, &mut self.next);
            if !config.keep_max_fired_score {
                for i in 0..self.frontier.len() {
                    let (id, s) = self.frontier[i];
                    self.set_score(graph, thr, out, id, s);
                }
            }
            if stop {
                break;
            }
        }
        Ok(())
    }
}

/// Records the negative edges (`w < 0` and `w <= threshold`) out of a node that has
/// just become active, keyed by target, with the source's outer bucket position.
fn register_active(
    neg: &mut NegIndex,
    graph: &Graph,
    source: NodeId,
    threshold: f64,
) {
    let Some(bucket) = graph.bucket(source) else {
        return;
    };
    let pos = graph.bucket_position(source).unwrap_or(usize::MAX);
    for (&t, e) in bucket {
        if e.weight < 0.0 && e.weight <= threshold {
            neg.entry(t).or_default().push((pos, source, e.weight));
        }
    }
}

/// Inhibition of `target` (CORE.md §4.2): the sum, in outer bucket order, of
/// `score(source) · w` over incoming edges with `w < 0` and `w <= threshold` whose
/// source is active. The reference scans every bucket for each call; here the negative
/// edges of active nodes are indexed by target as nodes activate ([`register_active`]),
/// which visits the same edges and sums them in the same order. `buf` is scratch.
fn inhibition(
    buf: &mut Vec<(usize, f64)>,
    neg: &NegIndex,
    target: NodeId,
    active: impl Fn(NodeId) -> Option<f64>,
) -> f64 {
    let Some(list) = neg.get(&target) else {
        return 0.0;
    };
    buf.clear();
    for &(pos, s, w) in list {
        if let Some(score) = active(s) {
            buf.push((pos, score * w));
        }
    }
    if buf.len() > 1 {
        buf.sort_by_key(|x| x.0);
    }
    buf.iter().fold(0.0, |sum, &(_, v)| sum + v)
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
