//! Query-aware routing when serving: the `--route-mode` of `query`, the daemon and the
//! MCP server, and the node vectors the routers read from a brain.
//!
//! A route mode picks the router of habitual edges ([`crabpath::router`]): `off` (no
//! router: every habitual edge that passes the traversal's thresholds is followed, the
//! reference v11.2.1 behaviour), `edge` (the `route_top_k` edges of highest weight per
//! source), `edge+sim` (weight + α·cos(query, target)) or `adaptive` (the cosine term
//! weighted by how unsure the source's learned weights are). Upstream v12's daemon
//! (`openclawbrain/protocol.py`) names the modes `off`, `edge`, `edge+sim` and `learned`;
//! `learned` without a trained route model falls back to `edge+sim` there
//! (`daemon.py::_handle_query`), and is accepted here with that meaning.
//!
//! **Defaults.** `corrected`: `edge+sim`, with the parameters the benchmark's held-out
//! runs used (top-k 5, α = 1, chosen on the dev pool: `results/bench/DEV-SWEEP.md`). On
//! held-out MultiHop-RAG queries (MiniLM, 20 splits, `results/bench/HELDOUT.md`) cold
//! traversal reaches recall@10 0.705 with `edge+sim` against 0.611 with `edge`; hash-v1
//! 0.340 against 0.263; `adaptive` equals `edge+sim` before learning and stays within
//! noise of it after. `paper`: `off`, the reference's traversal bit for bit.
//!
//! **Vectors.** A router reads `cos(query, target)` for the targets it is offered only.
//! A database answers it from its `vectors` rows (one indexed lookup per target the
//! first time, cached while the brain's vectors do not change); a state file from its
//! index (`f64`, normalised on the fly). Cost per offered target: O(non-zero
//! components) after the first lookup.

use std::cell::RefCell;

use crabpath::graph::{Graph, NodeId};
use crabpath::index::VectorIndex;
use crabpath::profile::Profile;
use crabpath::router::{QueryRouter, RouterConfig, RouterKind};
use crabpath::traverse::{TraversalConfig, TraversalResult, Traverser};
use crabpath::vectors::NodeVectors;
use rusqlite::{Connection, OptionalExtension};
use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::store::search::RowData;
use crate::store::Layout;

/// How a served query routes habitual edges (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RouteMode {
    /// No router.
    Off,
    /// Weight only.
    Edge,
    /// Weight + α·cosine.
    EdgeSim,
    /// Weight + β(s)·α·cosine, β(s) the uncertainty of the source's weights.
    Adaptive,
}

/// The spellings `parse` accepts, for messages and `--help`.
pub const ROUTE_MODES: &str = "off, edge, edge+sim, adaptive";

/// Offers kept per source (upstream default, and the benchmark's `--router-top-k`).
pub const ROUTE_TOP_K: usize = 5;

/// α of the cosine term: the benchmark's held-out choice (`results/bench/DEV-SWEEP.md`).
pub const ROUTE_ALPHA: f64 = 1.0;

impl RouteMode {
    /// All modes.
    pub const ALL: [RouteMode; 4] = [
        RouteMode::Off,
        RouteMode::Edge,
        RouteMode::EdgeSim,
        RouteMode::Adaptive,
    ];

    /// `off`, `edge`, `edge+sim`, `adaptive`.
    pub fn as_str(self) -> &'static str {
        match self {
            RouteMode::Off => "off",
            RouteMode::Edge => "edge",
            RouteMode::EdgeSim => "edge+sim",
            RouteMode::Adaptive => "adaptive",
        }
    }

    /// Parses a mode (case and surrounding space ignored; upstream's `learned` means
    /// `edge+sim`, see the module docs).
    pub fn parse(s: &str) -> Result<RouteMode> {
        let t = s.trim().to_ascii_lowercase();
        if t == "learned" {
            return Ok(RouteMode::EdgeSim);
        }
        RouteMode::ALL
            .into_iter()
            .find(|m| m.as_str() == t)
            .ok_or_else(|| Error::Invalid(format!("route_mode must be one of: {ROUTE_MODES}")))
    }

    /// The default of a profile (see the module docs).
    pub fn default_for(profile: Profile) -> RouteMode {
        if profile.fixes_bugs() {
            RouteMode::EdgeSim
        } else {
            RouteMode::Off
        }
    }

    /// The router configuration (`None` for `off`).
    pub fn config(self) -> Option<RouterConfig> {
        let kind = match self {
            RouteMode::Off => return None,
            RouteMode::Edge => RouterKind::Edge,
            RouteMode::EdgeSim => RouterKind::EdgeSim,
            RouteMode::Adaptive => RouterKind::Adaptive,
        };
        Some(RouterConfig {
            kind,
            alpha: ROUTE_ALPHA,
            top_k: ROUTE_TOP_K,
            ..RouterConfig::default()
        })
    }
}

impl std::fmt::Display for RouteMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for RouteMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        RouteMode::parse(s)
    }
}

/// What a routed traversal reads besides the graph: the router (`None`: none), the
/// node vectors and query vector its cosine term reads, the query text.
#[derive(Clone, Copy)]
pub struct Routing<'a> {
    /// The router configuration.
    pub config: Option<&'a RouterConfig>,
    /// The node vectors.
    pub vectors: Option<&'a dyn NodeVectors>,
    /// The query vector.
    pub query: Option<&'a [f64]>,
    /// The query text.
    pub text: &'a str,
}

/// One traversal, with the router of `routing` when it has one, else as the reference
/// traverses. Without vectors or a query vector, a cosine term has nothing to read:
/// the router falls back to `edge`.
pub fn traverse(
    traverser: &mut Traverser,
    graph: &Graph,
    seeds: &[(NodeId, f64)],
    config: &TraversalConfig,
    routing: Routing<'_>,
) -> Result<TraversalResult> {
    let Some(route) = routing.config else {
        return Ok(traverser.traverse(graph, seeds, config)?);
    };
    let mut cfg = *route;
    let (vectors, query) = match (routing.vectors, routing.query) {
        (Some(v), Some(q)) if v.dim() == q.len() && v.dim() > 0 => (Some(v), Some(q)),
        _ => {
            cfg.kind = RouterKind::Edge;
            (None, None)
        }
    };
    let vectors = vectors.filter(|_| cfg.kind.uses_vectors());
    let mut router = QueryRouter::new(cfg, vectors)?;
    if let Some(q) = query {
        router.set_query(q)?;
    }
    Ok(traverser.traverse_routed(graph, seeds, config, &mut router, routing.text)?)
}

/// The unit vectors of a state file's index (`f64`, normalised per lookup).
pub struct IndexVectors<'a> {
    graph: &'a Graph,
    index: &'a VectorIndex,
    dim: usize,
}

impl<'a> IndexVectors<'a> {
    /// The vectors of `index` for the nodes of `graph`.
    pub fn new(graph: &'a Graph, index: &'a VectorIndex) -> Self {
        IndexVectors {
            graph,
            index,
            dim: index.dim().unwrap_or(0),
        }
    }
}

impl NodeVectors for IndexVectors<'_> {
    fn dim(&self) -> usize {
        self.dim
    }

    /// None: this table answers [`NodeVectors::cosine`] directly.
    fn unit(&self, _node: NodeId) -> Option<&[f32]> {
        None
    }

    fn cosine(&self, query: &[f32], node: NodeId) -> Option<f32> {
        let v = self.index.get(self.graph.name(node))?;
        if v.len() != query.len() {
            return None;
        }
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm == 0.0 || !norm.is_finite() {
            return None;
        }
        let d: f64 = v.iter().zip(query).map(|(x, q)| x * f64::from(*q)).sum();
        Some((d / norm) as f32)
    }
}

/// Vectors read from a database's `vectors` table as routers ask for them, kept until
/// the brain's vectors change (see the module docs).
#[derive(Default)]
pub struct VectorCache {
    /// (vector epoch, revision) the cached rows belong to.
    stamp: (i64, i64),
    rows: RefCell<FxHashMap<i64, Option<RowData>>>,
}

impl VectorCache {
    /// Forgets every row unless `stamp` is the one they were read at.
    pub fn validate(&mut self, stamp: (i64, i64)) {
        if self.stamp != stamp {
            self.rows.get_mut().clear();
            self.stamp = stamp;
        }
    }

    /// Rows cached.
    pub fn len(&self) -> usize {
        self.rows.borrow().len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What a [`VectorCache`] is valid for: the database's vector epoch and the newest
/// revision of a vector row (any vector written since changes it). Cost: two indexed
/// lookups.
pub fn vector_stamp(conn: &Connection) -> rusqlite::Result<(i64, i64)> {
    let epoch: i64 = conn
        .prepare_cached("SELECT vectors FROM brain WHERE id = 1")?
        .query_row([], |r| r.get(0))?;
    let rev: Option<i64> = conn
        .prepare_cached("SELECT MAX(rev) FROM vectors")?
        .query_row([], |r| r.get(0))?;
    Ok((epoch, rev.unwrap_or(0)))
}

/// A database's vectors for a router: the graph's node ids map to `sym`s through
/// `sym_of`, rows come from the cache or from `conn`.
pub struct StoreVectors<'a> {
    conn: &'a Connection,
    layout: Layout,
    dim: usize,
    sym_of: &'a dyn Fn(NodeId) -> Option<i64>,
    cache: &'a VectorCache,
}

impl<'a> StoreVectors<'a> {
    /// Vectors of dimension `dim` and layout `layout`, read through `conn`.
    pub fn new(
        conn: &'a Connection,
        layout: Layout,
        dim: usize,
        sym_of: &'a dyn Fn(NodeId) -> Option<i64>,
        cache: &'a VectorCache,
    ) -> Self {
        StoreVectors {
            conn,
            layout,
            dim,
            sym_of,
            cache,
        }
    }

    fn read(&self, sym: i64) -> Option<RowData> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT v FROM vectors WHERE sym = ?1")
            .ok()?;
        let blob: Option<Vec<u8>> = stmt.query_row([sym], |r| r.get(0)).optional().ok()?;
        RowData::decode(&blob?, self.layout, self.dim)
    }
}

impl NodeVectors for StoreVectors<'_> {
    fn dim(&self) -> usize {
        self.dim
    }

    /// None: this table answers [`NodeVectors::cosine`] directly.
    fn unit(&self, _node: NodeId) -> Option<&[f32]> {
        None
    }

    fn cosine(&self, query: &[f32], node: NodeId) -> Option<f32> {
        let sym = (self.sym_of)(node)?;
        if let Some(hit) = self.cache.rows.borrow().get(&sym) {
            return hit.as_ref().map(|r| r.score(query));
        }
        let row = self.read(sym);
        let score = row.as_ref().map(|r| r.score(query));
        self.cache.rows.borrow_mut().insert(sym, row);
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_print() {
        for m in RouteMode::ALL {
            assert_eq!(RouteMode::parse(m.as_str()).unwrap(), m);
        }
        assert_eq!(RouteMode::parse(" EDGE+SIM ").unwrap(), RouteMode::EdgeSim);
        assert_eq!(RouteMode::parse("learned").unwrap(), RouteMode::EdgeSim);
        let e = RouteMode::parse("bad").unwrap_err().to_string();
        assert!(e.contains("off, edge, edge+sim, adaptive"), "{e}");
        assert!(RouteMode::Off.config().is_none());
        let c = RouteMode::Adaptive.config().unwrap();
        assert_eq!((c.kind, c.alpha, c.top_k), (RouterKind::Adaptive, 1.0, 5));
    }

    #[test]
    fn defaults_follow_the_profile() {
        assert_eq!(RouteMode::default_for(Profile::Paper), RouteMode::Off);
        assert_eq!(
            RouteMode::default_for(Profile::Corrected),
            RouteMode::EdgeSim
        );
    }
}
