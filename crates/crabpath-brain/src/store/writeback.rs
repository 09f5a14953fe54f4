//! Writing back what an operation changed in a graph read from the database
//! ([`super::rows::Loaded`]): only the rows of the nodes and edges that differ from
//! their pre-image ([`Pre`]), in one write transaction, keeping every order of the
//! in-memory graph (see [`super::schema`]).
//!
//! Orders are kept with the fewest rewrites: walking the graph in its order, an
//! existing row keeps its position key while the keys seen so far increase; a new row,
//! or one that moved (e.g. an edge deleted and added again, which the graph appends at
//! the end), gets a fresh key from the transaction, larger than all before it. Deleting
//! rows or giving an existing row a new key is recorded as a structural change
//! ([`super::Write::structure_changed`]), which tells readers holding the graph in
//! memory to reload it instead of applying the changed rows.
//!
//! Cost: linear in the scope (the symbols an operation may change), plus one indexed
//! write per changed row.

use crabpath::graph::{Edge, Graph, Metadata, Node, NodeId};
use rusqlite::{params, OptionalExtension};
use rustc_hash::FxHashMap;

use super::codec::encode_meta;
use super::rows::Loaded;
use super::Write;
use crate::error::{Error, Result};

/// The pre-image of the symbols an operation may change.
#[derive(Debug, Clone)]
pub struct Pre {
    /// Every symbol of the graph (the operation may change anything).
    all: bool,
    /// The symbols in scope, in order.
    scope: Vec<NodeId>,
    /// Their nodes before.
    nodes: Vec<Option<Node>>,
    /// Their outgoing edges before, in order.
    buckets: Vec<Vec<(NodeId, Edge)>>,
    /// Symbols of the graph before.
    symbols: usize,
}

impl Pre {
    /// Captures the pre-image of `scope` (every symbol when `None`) in `loaded`.
    ///
    /// Cost: a copy of the nodes and edges in scope.
    pub fn capture(loaded: &Loaded, scope: Option<&[NodeId]>) -> Pre {
        let g = &loaded.graph;
        let all = scope.is_none();
        let scope: Vec<NodeId> = match scope {
            Some(s) => {
                let mut v = s.to_vec();
                v.sort_unstable();
                v.dedup();
                v
            }
            None => (0..g.symbol_count() as u32).map(NodeId).collect(),
        };
        let nodes = scope.iter().map(|&n| g.node(n).cloned()).collect();
        let buckets = scope
            .iter()
            .map(|&n| {
                g.bucket(n)
                    .map(|b| b.iter().map(|(t, e)| (*t, e.clone())).collect())
                    .unwrap_or_default()
            })
            .collect();
        Pre {
            all,
            scope,
            nodes,
            buckets,
            symbols: g.symbol_count(),
        }
    }
}

/// What a write-back wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Written {
    /// Node rows inserted or updated.
    pub nodes: usize,
    /// Node rows deleted.
    pub nodes_deleted: usize,
    /// Edge rows inserted or updated.
    pub edges: usize,
    /// Edge rows deleted.
    pub edges_deleted: usize,
}

fn same_edge(a: &Edge, b: &Edge) -> bool {
    a.weight.to_bits() == b.weight.to_bits() && a.kind == b.kind && a.metadata == b.metadata
}

fn file_of(node: &Node) -> Option<&str> {
    node.file()
}

/// Writes back the changes of `loaded.graph` against `pre` (see the module docs) and
/// updates `loaded`'s keys to what was written, so that it can serve the next
/// operation. `meta_before`/`meta_after`: the `meta` object before and after (written
/// when they differ).
///
/// Errors: SQLite errors; an edge added to or removed from a source whose edges were
/// not all read (a bug of the caller's scope, reported instead of written).
pub fn write_back(
    w: &mut Write<'_>,
    pre: &Pre,
    loaded: &mut Loaded,
    meta_before: Option<&Metadata>,
    meta_after: Option<&Metadata>,
) -> Result<Written> {
    let symbols = loaded.graph.symbol_count();
    loaded.cover(symbols);
    let Loaded {
        graph: g,
        syms,
        by_sym,
        node_seq: seq_of_node,
        bucket_seq: seq_of_bucket,
        bucket_loaded,
        edge_seq,
        ..
    } = loaded;
    let g: &Graph = g;
    // symbols interned by the operation are in scope too
    let mut scope: Vec<NodeId> = pre.scope.clone();
    scope.extend((pre.symbols as u32..symbols as u32).map(NodeId));
    let all = pre.all;
    let before_of: FxHashMap<NodeId, usize> =
        pre.scope.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let mut written = Written::default();
    let rev = w.rev;

    // ---- syms of new symbols (rows created on first use)
    let mut new_syms: Vec<NodeId> = Vec::new();
    for &n in &scope {
        if syms[n.index()] < 0 {
            let id = g.name(n);
            let found: Option<i64> = w
                .tx()
                .query_row("SELECT sym FROM nodes WHERE id = ?1", params![id], |r| {
                    r.get(0)
                })
                .optional()
                .map_err(w.err())?;
            let sym = match found {
                Some(s) => s,
                None => {
                    w.tx()
                        .execute(
                            "INSERT INTO nodes(id, rev) VALUES (?1, ?2)",
                            params![id, rev],
                        )
                        .map_err(w.err())?;
                    new_syms.push(n);
                    w.tx().last_insert_rowid()
                }
            };
            syms[n.index()] = sym;
            by_sym.insert(sym, n);
        }
    }
    let in_scope = |n: NodeId| all || before_of.contains_key(&n) || n.index() >= pre.symbols;

    // ---- node order and node rows
    let mut node_seq: FxHashMap<NodeId, i64> = FxHashMap::default();
    {
        let mut last = i64::MIN;
        let mut walk = |n: NodeId, w: &mut Write<'_>| match seq_of_node[n.index()] {
            Some(q) if q > last && !new_syms.contains(&n) => {
                last = q;
            }
            old => {
                let q = w.next_seq();
                if old.is_some() {
                    w.structure_changed();
                }
                node_seq.insert(n, q);
                last = q;
            }
        };
        if all {
            for n in g.node_ids() {
                walk(n, w);
            }
        } else {
            // only new nodes can need a key (the scope's operations add and change in
            // place): in node order
            let fresh: Vec<NodeId> = scope
                .iter()
                .copied()
                .filter(|&n| g.has_node(n) && seq_of_node[n.index()].is_none())
                .collect();
            if !fresh.is_empty() {
                let wanted: rustc_hash::FxHashSet<NodeId> = fresh.iter().copied().collect();
                for n in g.node_ids().filter(|n| wanted.contains(n)) {
                    let q = w.next_seq();
                    node_seq.insert(n, q);
                }
            }
        }
    }
    for &n in &scope {
        let sym = syms[n.index()];
        let before = before_of.get(&n).and_then(|&i| pre.nodes[i].as_ref());
        let after = g.node(n);
        match after {
            Some(node) => {
                let seq = node_seq.get(&n).copied().or(seq_of_node[n.index()]);
                if seq_of_node[n.index()].is_none() {
                    w.count_nodes(1);
                }
                let changed = before != Some(node) || node_seq.contains_key(&n);
                if changed {
                    w.tx()
                        .execute(
                            "UPDATE nodes SET node_seq = ?2, content = ?3, summary = ?4, metadata = ?5, file = ?6, rev = ?7 WHERE sym = ?1",
                            params![
                                sym,
                                seq,
                                node.content,
                                node.summary,
                                encode_meta(&node.metadata),
                                file_of(node),
                                rev
                            ],
                        )
                        .map_err(w.err())?;
                    written.nodes += 1;
                }
                seq_of_node[n.index()] = seq;
            }
            None => {
                if seq_of_node[n.index()].is_some() {
                    // the node was removed: the symbol stays while edges or a vector
                    // refer to it (decided below)
                    w.tx()
                        .execute(
                            "UPDATE nodes SET node_seq = NULL, content = NULL, summary = NULL, metadata = NULL, file = NULL, rev = ?2 WHERE sym = ?1",
                            params![sym, rev],
                        )
                        .map_err(w.err())?;
                    w.structure_changed();
                    w.count_nodes(-1);
                    seq_of_node[n.index()] = None;
                    written.nodes += 1;
                }
            }
        }
    }

    // ---- source order
    let mut bucket_seq: FxHashMap<NodeId, Option<i64>> = FxHashMap::default();
    if all {
        let mut last = i64::MIN;
        for s in g.sources() {
            match seq_of_bucket[s.index()] {
                Some(q) if q > last => last = q,
                old => {
                    let q = w.next_seq();
                    if old.is_some() {
                        w.structure_changed();
                    }
                    bucket_seq.insert(s, Some(q));
                    last = q;
                }
            }
        }
        for &n in &scope {
            if g.bucket(n).is_none() && seq_of_bucket[n.index()].is_some() {
                bucket_seq.insert(n, None);
                w.structure_changed();
            }
        }
    } else {
        let mut fresh: Vec<NodeId> = Vec::new();
        for &n in &scope {
            let has = g.bucket(n).is_some();
            match (has, seq_of_bucket[n.index()]) {
                (true, None) => fresh.push(n),
                (false, Some(_)) => {
                    bucket_seq.insert(n, None);
                    w.structure_changed();
                }
                _ => {}
            }
        }
        fresh.sort_by_key(|&n| g.bucket_position(n));
        for n in fresh {
            let q = w.next_seq();
            bucket_seq.insert(n, Some(q));
        }
    }
    for (&n, &q) in &bucket_seq {
        w.tx()
            .execute(
                "UPDATE nodes SET bucket_seq = ?2, rev = ?3 WHERE sym = ?1",
                params![syms[n.index()], q, rev],
            )
            .map_err(w.err())?;
        seq_of_bucket[n.index()] = q;
    }

    // ---- edges
    let empty: Vec<(NodeId, Edge)> = Vec::new();
    let sources: Vec<NodeId> = if all {
        scope.clone()
    } else {
        scope.iter().copied().filter(|&n| in_scope(n)).collect()
    };
    for s in sources {
        let before: &Vec<(NodeId, Edge)> = before_of
            .get(&s)
            .map(|&i| &pre.buckets[i])
            .unwrap_or(&empty);
        let after: Vec<(NodeId, &Edge)> = g
            .bucket(s)
            .map(|b| b.iter().map(|(t, e)| (*t, e)).collect())
            .unwrap_or_default();
        if before.is_empty() && after.is_empty() {
            continue;
        }
        let loaded_bucket = all
            || bucket_loaded.get(s.index()).copied().unwrap_or(false)
            || s.index() >= pre.symbols;
        if !loaded_bucket {
            let same = before.len() == after.len()
                && before
                    .iter()
                    .zip(&after)
                    .all(|((t0, e0), (t1, e1))| t0 == t1 && same_edge(e0, e1));
            if same {
                continue;
            }
            return Err(Error::Invalid(format!(
                "internal error: the edges of `{}` changed but were not read; nothing was written",
                g.name(s)
            )));
        }
        let src = syms[s.index()];
        let before_edge: FxHashMap<NodeId, &Edge> = before.iter().map(|(t, e)| (*t, e)).collect();
        let mut last = i64::MIN;
        let mut seqs = std::mem::take(&mut edge_seq[s.index()]);
        let mut kept: FxHashMap<NodeId, i64> = FxHashMap::default();
        for (t, e) in &after {
            let old = seqs.get(t).copied();
            let (seq, moved) = match old {
                Some(q) if q > last => (q, false),
                Some(_) => (w.next_seq(), true),
                None => (w.next_seq(), false),
            };
            if moved {
                w.structure_changed();
            }
            last = seq;
            kept.insert(*t, seq);
            let unchanged = old == Some(seq) && before_edge.get(t).is_some_and(|b| same_edge(b, e));
            if unchanged {
                continue;
            }
            let tgt = syms[t.index()];
            w.tx()
                .execute(
                    "INSERT INTO edges(src, tgt, seq, weight, kind, metadata, rev) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                     ON CONFLICT(src, tgt) DO UPDATE SET seq = excluded.seq, weight = excluded.weight, kind = excluded.kind, metadata = excluded.metadata, rev = excluded.rev",
                    params![
                        src,
                        tgt,
                        seq,
                        e.weight,
                        e.kind.as_str(),
                        encode_meta(&e.metadata.to_map()),
                        rev
                    ],
                )
                .map_err(w.err())?;
            written.edges += 1;
        }
        for (t, _) in before {
            if !kept.contains_key(t) {
                w.tx()
                    .execute(
                        "DELETE FROM edges WHERE src = ?1 AND tgt = ?2",
                        params![src, syms[t.index()]],
                    )
                    .map_err(w.err())?;
                w.structure_changed();
                written.edges_deleted += 1;
            }
        }
        seqs.clear();
        seqs.extend(kept);
        edge_seq[s.index()] = seqs;
    }

    // ---- symbols nothing refers to any more (only when the whole graph is known)
    if all {
        for &n in &scope {
            if g.has_node(n) || g.bucket(n).is_some() || !g.sources_of(n).is_empty() {
                continue;
            }
            let sym = syms[n.index()];
            if sym < 0 {
                continue;
            }
            let has_vector: bool = w
                .tx()
                .query_row("SELECT 1 FROM vectors WHERE sym = ?1", params![sym], |_| {
                    Ok(())
                })
                .optional()
                .map_err(w.err())?
                .is_some();
            if has_vector {
                continue;
            }
            w.tx()
                .execute("DELETE FROM nodes WHERE sym = ?1", params![sym])
                .map_err(w.err())?;
            w.structure_changed();
            written.nodes_deleted += 1;
            by_sym.remove(&sym);
            syms[n.index()] = -1;
        }
    }

    // ---- meta
    if let (Some(b), Some(a)) = (meta_before, meta_after) {
        if b != a {
            super::rows::write_meta(w.tx(), a).map_err(w.err())?;
        }
    }
    Ok(written)
}
