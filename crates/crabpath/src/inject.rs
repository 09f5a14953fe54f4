//! Injection of new nodes and corrections into a live graph, connected to their
//! nearest neighbours in the vector index (reference `crabpath/inject.py`).
//!
//! Corrections reproduce the reference by default: the correction→target edge is moved
//! towards the inhibition strength from the similarity weight that [`inject_node`] just
//! gave it, and clamped to [−1, 0] — so it always ends at 0.0 (reference
//! `crabpath/inject.py`, discrepancy C9). [`InjectConfig::correction_negative`] switches to
//! the corrected rule, under which a correction genuinely suppresses its targets.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::embed::Embedder;
use crate::error::{finite, Error, Result};
use crate::graph::{Edge, EdgeKind, Graph, Metadata, Node, NodeId};
use crate::index::VectorStore;
use crate::maintain::first_line;
use crate::profile::Profile;

/// Default number of neighbours an injected node is connected to.
pub const DEFAULT_CONNECT_TOP_K: usize = 3;
/// Default minimum similarity of a neighbour.
pub const DEFAULT_CONNECT_MIN_SIM: f64 = 0.3;
/// Default inhibition strength of a correction.
pub const DEFAULT_INHIBITION_STRENGTH: f64 = -0.5;
/// Default rate at which a correction edge moves towards the inhibition strength.
pub const DEFAULT_INHIBITION_LR: f64 = 0.08;
/// The `type` metadata of corrections.
pub const CORRECTION_TYPE: &str = "CORRECTION";

/// Optional arguments of [`inject_node`] / [`inject_correction`] (reference `crabpath/inject.py`).
#[derive(Clone)]
pub struct InjectOptions<'a> {
    /// Summary; `None` or empty → first line of the content.
    pub summary: Option<String>,
    /// Node metadata.
    pub metadata: Metadata,
    /// The node's vector; else `embedder.embed(content)`.
    pub vector: Option<Vec<f64>>,
    /// Embedder used when no vector is given.
    pub embedder: Option<&'a dyn Embedder>,
    /// Neighbours searched (the search asks for `connect_top_k + 1` hits, the node
    /// itself being one of them).
    pub connect_top_k: usize,
    /// Minimum similarity of a neighbour.
    pub connect_min_sim: f64,
}

impl Default for InjectOptions<'_> {
    fn default() -> Self {
        InjectOptions {
            summary: None,
            metadata: Metadata::new(),
            vector: None,
            embedder: None,
            connect_top_k: DEFAULT_CONNECT_TOP_K,
            connect_min_sim: DEFAULT_CONNECT_MIN_SIM,
        }
    }
}

/// Parameters of a correction (reference `crabpath/inject.py`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CorrectionOptions {
    /// Target weight of correction edges (−0.5).
    pub inhibition_strength: f64,
    /// Step towards it (0.08; reference rule only).
    pub inhibition_lr: f64,
}

impl Default for CorrectionOptions {
    fn default() -> Self {
        CorrectionOptions {
            inhibition_strength: DEFAULT_INHIBITION_STRENGTH,
            inhibition_lr: DEFAULT_INHIBITION_LR,
        }
    }
}

/// Reference-vs-corrected switches of injection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct InjectConfig {
    /// `false` (reference; REPRODUCE.md discrepancy C9): the correction→target edge becomes
    /// `clamp(existing + (strength − existing)·lr, −1, 0)`; since `existing` is the
    /// similarity (≥ min_sim) just assigned by [`inject_node`], this is always 0.0.
    ///
    /// `true` (corrected): the edge is set to `clamp(strength · similarity, −1, 0)`.
    /// Rationale: the paper's corrections suppress their targets, and the closer the
    /// correction is to a target, the more it concerns that target; with the defaults
    /// (strength −0.5, similarity ≥ 0.3) the weight is ≤ −0.15, well inside the inhibitory
    /// tier (≤ −0.01), so an active correction vetoes the target during traversal
    /// (reference `crabpath/traverse.py::_incoming_inhibition`). `inhibition_lr` is not
    /// used: a correction is an explicit instruction, not a gradual learning signal.
    pub correction_negative: bool,
}

impl InjectConfig {
    /// The switch values of a profile: the paper profile reproduces the reference,
    /// the corrected one makes corrections negative (profile table item 5).
    pub fn for_profile(profile: Profile) -> Self {
        InjectConfig {
            correction_negative: profile.fixes_bugs(),
        }
    }
}

/// What an injection did (reference `crabpath/inject.py`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InjectReport {
    /// The injected node's id.
    pub node_id: String,
    /// Edges added (2 per connected neighbour).
    pub edges_added: usize,
    /// Connected neighbours, in search order.
    pub connected_to: Vec<String>,
    /// Their similarities.
    pub similarities: Vec<f64>,
    /// Correction edges that were not already of kind `inhibitory` (corrections only).
    pub inhibitory_edges: usize,
    /// Whether the id already existed (nothing was done).
    pub skipped: bool,
}

/// Checks the vector's dimension against the index's (reference `crabpath/inject.py`);
/// components are checked by [`VectorStore::upsert`].
fn check_vector(index: &dyn VectorStore, vector: &[f64]) -> Result<()> {
    match index.dim() {
        Some(dim) if dim != vector.len() => Err(Error::DimensionMismatch {
            expected: dim,
            got: vector.len(),
        }),
        _ => Ok(()),
    }
}

/// Inject and return the connected neighbours with their similarity.
fn inject_inner(
    graph: &mut Graph,
    index: &mut dyn VectorStore,
    id: &str,
    content: &str,
    options: InjectOptions<'_>,
) -> Result<(InjectReport, Vec<(NodeId, f64)>)> {
    let mut report = InjectReport {
        node_id: id.to_string(),
        ..InjectReport::default()
    };
    if graph.get_node(id).is_some() {
        report.skipped = true;
        return Ok((report, Vec::new()));
    }
    let vector = match (options.vector, options.embedder) {
        (Some(v), _) => v,
        (None, Some(e)) => e.embed(content)?,
        (None, None) => {
            return Err(Error::MissingVector(format!(
                "node `{id}`: no vector and no embedder"
            )))
        }
    };
    check_vector(index, &vector)?;
    let summary = match options.summary {
        Some(s) if !s.is_empty() => s,
        _ => first_line(content).to_string(),
    };
    // Upsert first: it validates the components, so an error leaves both unchanged.
    index.upsert(id, &vector)?;
    let me = graph.add_node(Node {
        id: id.to_string(),
        content: content.to_string(),
        summary,
        metadata: options.metadata,
    });
    let hits = index.search(&vector, options.connect_top_k.saturating_add(1));
    let mut connected = Vec::new();
    for (cid, score) in hits {
        if cid == id
            || score
                .partial_cmp(&options.connect_min_sim)
                .is_none_or(Ordering::is_lt)
        {
            continue;
        }
        let Some(other) = graph.lookup(&cid).filter(|&o| graph.has_node(o)) else {
            continue;
        };
        report.connected_to.push(cid);
        report.similarities.push(score);
        connected.push((other, score));
    }
    report.edges_added = link_neighbours(graph, me, &connected)?;
    Ok((report, connected))
}

/// Connects an injected node `me` to its neighbours, in order, both ways (node →
/// neighbour, then neighbour → node; kind `cross_file`, metadata `{source: "inject",
/// score}`, weight `clamp(score, 0, 1)`); returns the edges added. [`inject_node`]'s
/// edges, and what the unlearning replay of a recorded injection adds again (issue 30
/// item 3).
pub fn link_neighbours(
    graph: &mut Graph,
    me: NodeId,
    neighbours: &[(NodeId, f64)],
) -> Result<usize> {
    let mut added = 0;
    for &(other, score) in neighbours {
        let weight = score.clamp(0.0, 1.0);
        let edge = || {
            let mut metadata = Metadata::new();
            metadata.insert("source".into(), json!("inject"));
            metadata.insert("score".into(), json!(score));
            Edge::new(weight)
                .with_kind(EdgeKind::CrossFile)
                .with_metadata(metadata)
        };
        graph.add_edge(me, other, edge())?;
        graph.add_edge(other, me, edge())?;
        added += 2;
    }
    Ok(added)
}

/// Injects a node (reference `crabpath/inject.py`): no-op (`skipped`) if the id exists. The
/// vector is `options.vector` or the embedding of the content (error if neither); if the
/// index is non-empty its first vector's dimension must match. The node is added (summary
/// defaulting to the content's first line), its vector upserted, and it is connected in
/// both directions (node→neighbour, then neighbour→node; kind `cross_file`, metadata
/// `{source: "inject", score}`, weight `clamp(score, 0, 1)`) to every hit of
/// `index.search(vector, connect_top_k + 1)` other than itself with `score >=
/// connect_min_sim` that is a graph node.
pub fn inject_node(
    graph: &mut Graph,
    index: &mut dyn VectorStore,
    id: &str,
    content: &str,
    options: InjectOptions<'_>,
) -> Result<InjectReport> {
    inject_inner(graph, index, id, content, options).map(|(r, _)| r)
}

/// Injects a correction (reference `crabpath/inject.py`): metadata `type` defaults to
/// `CORRECTION`, the node is injected with [`inject_node`], then every correction→neighbour
/// edge is made `inhibitory` with the weight rule chosen by
/// [`InjectConfig::correction_negative`] (reference: always 0.0). The reverse
/// neighbour→correction edges stay positive.
pub fn inject_correction(
    graph: &mut Graph,
    index: &mut dyn VectorStore,
    id: &str,
    content: &str,
    mut options: InjectOptions<'_>,
    correction: &CorrectionOptions,
    config: &InjectConfig,
) -> Result<InjectReport> {
    // checked before anything changes
    finite(
        || "inhibition_strength".into(),
        correction.inhibition_strength,
    )?;
    finite(|| "inhibition_lr".into(), correction.inhibition_lr)?;
    options
        .metadata
        .entry("type")
        .or_insert_with(|| Value::String(CORRECTION_TYPE.into()));
    let (mut report, connected) = inject_inner(graph, index, id, content, options)?;
    if report.skipped {
        return Ok(report);
    }
    let me = graph.require(id)?;
    report.inhibitory_edges = inhibit_neighbours(graph, me, &connected, correction, config)?;
    Ok(report)
}

/// Makes a correction's edges to its neighbours (`me` → neighbour, just linked by
/// [`link_neighbours`]) inhibitory, with the weight rule of
/// [`InjectConfig::correction_negative`]; returns how many were not inhibitory before.
/// [`inject_correction`]'s second step, and the unlearning replay's (issue 30 item 3).
pub fn inhibit_neighbours(
    graph: &mut Graph,
    me: NodeId,
    neighbours: &[(NodeId, f64)],
    correction: &CorrectionOptions,
    config: &InjectConfig,
) -> Result<usize> {
    let strength = finite(
        || "inhibition_strength".into(),
        correction.inhibition_strength,
    )?;
    let lr = finite(|| "inhibition_lr".into(), correction.inhibition_lr)?;
    let mut made = 0;
    for &(target, similarity) in neighbours {
        let weight = if config.correction_negative {
            strength * similarity
        } else {
            match graph.weight(me, target) {
                Some(existing) => existing + (strength - existing) * lr,
                None => strength,
            }
        }
        .clamp(-1.0, 0.0);
        // the reference marks every correction edge `{"source": "inject", "type":
        // "correction"}` (`inject.py::_apply_inhibitory_edges`)
        match graph.edge_mut(me, target) {
            Some(e) => {
                if e.kind != EdgeKind::Inhibitory {
                    made += 1;
                }
                e.weight = weight;
                e.kind = EdgeKind::Inhibitory;
                e.metadata.insert("source", "inject");
                e.metadata.insert("type", "correction");
            }
            None => {
                let mut metadata = Metadata::new();
                metadata.insert("source".into(), json!("inject"));
                metadata.insert("type".into(), json!("correction"));
                graph.add_edge(
                    me,
                    target,
                    Edge::new(weight)
                        .with_kind(EdgeKind::Inhibitory)
                        .with_metadata(metadata),
                )?;
                made += 1;
            }
        }
    }
    Ok(made)
}

/// One item of [`inject_batch`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InjectItem {
    /// Node id.
    pub id: String,
    /// Content.
    pub content: String,
    /// Optional summary.
    #[serde(default)]
    pub summary: Option<String>,
    /// Node metadata.
    #[serde(default)]
    pub metadata: Metadata,
    /// Precomputed vector.
    #[serde(default)]
    pub vector: Option<Vec<f64>>,
    /// `CORRECTION` (any ASCII case) makes the item a correction; so does metadata
    /// `type` = `CORRECTION`.
    #[serde(default, rename = "type")]
    pub node_type: Option<String>,
    /// Inhibition strength of a correction (default −0.5).
    #[serde(default)]
    pub inhibition_strength: Option<f64>,
}

impl InjectItem {
    /// Whether the item is a correction.
    pub fn is_correction(&self) -> bool {
        let is = |s: &str| s.eq_ignore_ascii_case(CORRECTION_TYPE);
        self.node_type.as_deref().is_some_and(is)
            || self
                .metadata
                .get("type")
                .and_then(Value::as_str)
                .is_some_and(is)
    }
}

/// Options of [`inject_batch`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BatchOptions {
    /// See [`InjectOptions::connect_top_k`].
    pub connect_top_k: usize,
    /// See [`InjectOptions::connect_min_sim`].
    pub connect_min_sim: f64,
    /// Reference / corrected correction rule.
    pub config: InjectConfig,
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            connect_top_k: DEFAULT_CONNECT_TOP_K,
            connect_min_sim: DEFAULT_CONNECT_MIN_SIM,
            config: InjectConfig::default(),
        }
    }
}

/// Totals of [`inject_batch`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BatchReport {
    /// Items injected.
    pub injected: usize,
    /// Edges added.
    pub edges: usize,
    /// Correction edges made inhibitory.
    pub inhibitory: usize,
    /// Items whose id already existed.
    pub skipped: usize,
    /// Per-item reports, in item order.
    pub reports: Vec<InjectReport>,
}

/// Injects many items (reference `crabpath/inject.py`): vectors missing from the items are
/// computed first with one `embed_batch` call (error before any change if some are missing
/// and there is no embedder, or the embedder returns the wrong number of vectors); then
/// each item is injected in order — corrections with [`inject_correction`] (the item's
/// strength, default lr), others with [`inject_node`].
pub fn inject_batch(
    graph: &mut Graph,
    index: &mut dyn VectorStore,
    items: &[InjectItem],
    embedder: Option<&dyn Embedder>,
    options: &BatchOptions,
) -> Result<BatchReport> {
    let missing: Vec<usize> = (0..items.len())
        .filter(|&i| items[i].vector.is_none())
        .collect();
    let mut vectors: Vec<Option<Vec<f64>>> = items.iter().map(|it| it.vector.clone()).collect();
    if !missing.is_empty() {
        let Some(e) = embedder else {
            return Err(Error::MissingVector(format!(
                "item `{}`: no vector and no embedder",
                items[missing[0]].id
            )));
        };
        let texts: Vec<&str> = missing.iter().map(|&i| items[i].content.as_str()).collect();
        let embedded = e.embed_batch(&texts)?;
        if embedded.len() != texts.len() {
            return Err(Error::Embed {
                name: e.name().to_string(),
                message: format!(
                    "embed_batch returned {} vectors for {} texts",
                    embedded.len(),
                    texts.len()
                ),
            });
        }
        for (&i, v) in missing.iter().zip(embedded) {
            vectors[i] = Some(v);
        }
    }
    let mut out = BatchReport::default();
    for (item, vector) in items.iter().zip(vectors) {
        let opts = InjectOptions {
            summary: item.summary.clone(),
            metadata: item.metadata.clone(),
            vector,
            embedder: None,
            connect_top_k: options.connect_top_k,
            connect_min_sim: options.connect_min_sim,
        };
        let report = if item.is_correction() {
            let correction = CorrectionOptions {
                inhibition_strength: item
                    .inhibition_strength
                    .unwrap_or(DEFAULT_INHIBITION_STRENGTH),
                inhibition_lr: DEFAULT_INHIBITION_LR,
            };
            inject_correction(
                graph,
                index,
                &item.id,
                &item.content,
                opts,
                &correction,
                &options.config,
            )?
        } else {
            inject_node(graph, index, &item.id, &item.content, opts)?
        };
        if report.skipped {
            out.skipped += 1;
        } else {
            out.injected += 1;
        }
        out.edges += report.edges_added;
        out.inhibitory += report.inhibitory_edges;
        out.reports.push(report);
    }
    Ok(out)
}
