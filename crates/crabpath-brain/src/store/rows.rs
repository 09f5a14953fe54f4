//! Reading rows into an in-memory [`Graph`]: the whole graph, or the part an
//! operation reads (some nodes with all their outgoing edges, and the nodes those
//! edges reach), in the orders of [`super::schema`]. What was loaded is remembered
//! ([`Loaded`]) so that [`super::writeback`] can write back exactly what changed.
//!
//! Cost: one indexed lookup per requested node, one range scan per loaded source; the
//! whole graph is one scan of `nodes` and one of `edges`.

use rustc_hash::FxHashMap;

use crabpath::graph::{Edge, EdgeKind, Graph, Metadata, Node, NodeId};
use pyformat::pyjson::{PyDict, Style};
use rusqlite::{params, Connection, OptionalExtension};
use serde_json::Value;

use super::codec::decode_meta;
use crate::error::Result;

/// A SQLite error (the caller names the file).
pub type SqlResult<T> = std::result::Result<T, rusqlite::Error>;

/// One `nodes` row.
#[derive(Debug, Clone)]
pub struct NodeRow {
    /// Integer key.
    pub sym: i64,
    /// External id.
    pub id: String,
    /// Position in node order (`None`: an edge endpoint without a node).
    pub node_seq: Option<i64>,
    /// Position of its outgoing edges among sources (`None`: it has none).
    pub bucket_seq: Option<i64>,
    /// The node, when it is one.
    pub node: Option<Node>,
}

/// One `edges` row.
#[derive(Debug, Clone)]
pub struct EdgeRow {
    /// Source `sym`.
    pub src: i64,
    /// Target `sym`.
    pub tgt: i64,
    /// Position among the source's edges.
    pub seq: i64,
    /// The edge.
    pub edge: Edge,
}

/// A graph read from the database, with the keys of what was read.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// The graph (nodes in node order, sources in source order, edges in edge order).
    pub graph: Graph,
    /// The `sym` of each symbol of the graph (by `NodeId` index).
    pub syms: Vec<i64>,
    /// The symbol of each `sym` read.
    pub by_sym: FxHashMap<i64, NodeId>,
    /// Per symbol: `node_seq` as read.
    pub node_seq: Vec<Option<i64>>,
    /// Per symbol: `bucket_seq` as read.
    pub bucket_seq: Vec<Option<i64>>,
    /// Per symbol: whether all its outgoing edges were read (only those may change).
    pub bucket_loaded: Vec<bool>,
    /// Per symbol: the `seq` of each outgoing edge read, by target symbol.
    pub edge_seq: Vec<FxHashMap<NodeId, i64>>,
    /// Whether the whole graph was read.
    pub complete: bool,
}

impl Loaded {
    /// The `sym` of a symbol of the graph, if it was read (a symbol the operation
    /// interned has none yet).
    pub fn sym(&self, n: NodeId) -> Option<i64> {
        self.syms.get(n.index()).copied().filter(|&s| s >= 0)
    }

    fn push_symbol(&mut self, n: NodeId, sym: i64, row: Option<&NodeRow>) {
        let i = n.index();
        if self.syms.len() <= i {
            self.syms.resize(i + 1, -1);
            self.node_seq.resize(i + 1, None);
            self.bucket_seq.resize(i + 1, None);
            // a whole-graph view knows every bucket, new symbols' included
            self.bucket_loaded.resize(i + 1, self.complete);
            self.edge_seq.resize_with(i + 1, FxHashMap::default);
        }
        self.syms[i] = sym;
        self.by_sym.insert(sym, n);
        if let Some(r) = row {
            self.node_seq[i] = r.node_seq;
            self.bucket_seq[i] = r.bucket_seq;
        }
    }

    /// Extends the per-symbol vectors to the graph's current symbol count (symbols
    /// interned after loading have no `sym`).
    pub fn cover(&mut self, symbols: usize) {
        if self.syms.len() < symbols {
            self.syms.resize(symbols, -1);
            self.node_seq.resize(symbols, None);
            self.bucket_seq.resize(symbols, None);
            self.bucket_loaded.resize(symbols, self.complete);
            self.edge_seq.resize_with(symbols, FxHashMap::default);
        }
    }
}

const NODE_COLUMNS: &str = "sym, id, node_seq, bucket_seq, content, summary, metadata";

fn node_row(r: &rusqlite::Row<'_>) -> SqlResult<NodeRow> {
    let id: String = r.get(1)?;
    let node_seq: Option<i64> = r.get(2)?;
    let node = match node_seq {
        Some(_) => {
            let meta: Option<String> = r.get(6)?;
            Some(Node {
                id: id.clone(),
                content: r.get::<_, Option<String>>(4)?.unwrap_or_default(),
                summary: r.get::<_, Option<String>>(5)?.unwrap_or_default(),
                metadata: decode_meta(meta.as_deref()),
            })
        }
        None => None,
    };
    Ok(NodeRow {
        sym: r.get(0)?,
        id,
        node_seq,
        bucket_seq: r.get(3)?,
        node,
    })
}

fn edge_row(r: &rusqlite::Row<'_>) -> SqlResult<EdgeRow> {
    let kind: String = r.get(4)?;
    let meta: Option<String> = r.get(5)?;
    Ok(EdgeRow {
        src: r.get(0)?,
        tgt: r.get(1)?,
        seq: r.get(2)?,
        edge: Edge {
            weight: r.get(3)?,
            kind: EdgeKind::parse(&kind),
            metadata: decode_meta(meta.as_deref()).into(),
        },
    })
}

const EDGE_COLUMNS: &str = "src, tgt, seq, weight, kind, metadata";

/// Builds a [`Loaded`] from rows: nodes in node order (symbols without a node
/// interned after them, by `sym`), then the edges of `buckets` sources in source order.
fn assemble(mut rows: Vec<NodeRow>, mut edges: Vec<EdgeRow>, complete: bool) -> Loaded {
    rows.sort_by_key(|r| (r.node_seq.is_none(), r.node_seq, r.sym));
    let mut out = Loaded {
        complete,
        ..Loaded::default()
    };
    let mut bucket_of: FxHashMap<i64, i64> = FxHashMap::default();
    for mut r in rows {
        let n = match r.node.take() {
            Some(node) => out.graph.add_node(node),
            None => out.graph.intern(&r.id),
        };
        out.push_symbol(n, r.sym, Some(&r));
        if let Some(b) = r.bucket_seq {
            bucket_of.insert(r.sym, b);
        }
    }
    edges.sort_by_key(|e| {
        (
            bucket_of.get(&e.src).copied().unwrap_or(i64::MAX),
            e.src,
            e.seq,
        )
    });
    for e in edges {
        let (Some(&s), Some(&t)) = (out.by_sym.get(&e.src), out.by_sym.get(&e.tgt)) else {
            continue;
        };
        // weights were checked when written; a row edited by hand to a non-finite
        // weight is left out rather than failing every read
        if out.graph.add_edge(s, t, e.edge).is_ok() {
            out.edge_seq[s.index()].insert(t, e.seq);
        }
    }
    out
}

/// The whole graph.
pub fn load_all(conn: &Connection) -> SqlResult<Loaded> {
    let mut stmt = conn.prepare(&format!("SELECT {NODE_COLUMNS} FROM nodes"))?;
    let rows = stmt
        .query_map([], node_row)?
        .collect::<SqlResult<Vec<_>>>()?;
    let mut stmt = conn.prepare(&format!("SELECT {EDGE_COLUMNS} FROM edges"))?;
    let edges = stmt
        .query_map([], edge_row)?
        .collect::<SqlResult<Vec<_>>>()?;
    let mut out = assemble(rows, edges, true);
    out.bucket_loaded = vec![true; out.syms.len()];
    Ok(out)
}

/// The `sym` of each id (`None` for an id the database does not hold).
pub fn syms_of(conn: &Connection, ids: &[&str]) -> SqlResult<Vec<Option<i64>>> {
    let mut stmt = conn.prepare("SELECT sym FROM nodes WHERE id = ?1")?;
    ids.iter()
        .map(|id| stmt.query_row(params![id], |r| r.get(0)).optional())
        .collect()
}

/// Part of the graph: the sources `sources` (by `sym`) with all their outgoing edges,
/// and every node those edges reach (with its content, without its own edges).
pub fn load_part(conn: &Connection, sources: &[i64]) -> SqlResult<Loaded> {
    let mut want: Vec<i64> = sources.to_vec();
    let mut edges = Vec::new();
    {
        let mut stmt = conn.prepare(&format!("SELECT {EDGE_COLUMNS} FROM edges WHERE src = ?1"))?;
        for &s in sources {
            for e in stmt.query_map(params![s], edge_row)? {
                let e = e?;
                want.push(e.tgt);
                edges.push(e);
            }
        }
    }
    want.sort_unstable();
    want.dedup();
    let mut rows = Vec::with_capacity(want.len());
    {
        let mut stmt = conn.prepare(&format!("SELECT {NODE_COLUMNS} FROM nodes WHERE sym = ?1"))?;
        for &s in &want {
            if let Some(r) = stmt.query_row(params![s], node_row).optional()? {
                rows.push(r);
            }
        }
    }
    let mut out = assemble(rows, edges, false);
    for &s in sources {
        if let Some(&n) = out.by_sym.get(&s) {
            out.bucket_loaded[n.index()] = true;
        }
    }
    Ok(out)
}

/// The `meta` object, in key order.
pub fn load_meta(conn: &Connection) -> SqlResult<Metadata> {
    let mut stmt = conn.prepare("SELECT key, value FROM meta ORDER BY pos")?;
    let mut out = Metadata::new();
    for r in stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))? {
        let (k, v) = r?;
        out.insert(k, serde_json::from_str(&v).unwrap_or(Value::Null));
    }
    Ok(out)
}

/// One `meta` value.
pub fn meta_value(conn: &Connection, key: &str) -> SqlResult<Option<Value>> {
    let text: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = ?1", params![key], |r| {
            r.get(0)
        })
        .optional()?;
    Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
}

/// Replaces the `meta` object.
pub fn write_meta(conn: &Connection, meta: &Metadata) -> SqlResult<()> {
    conn.execute("DELETE FROM meta", [])?;
    let mut stmt = conn.prepare("INSERT INTO meta(key, pos, value) VALUES (?1, ?2, ?3)")?;
    for (pos, (k, v)) in meta.iter().enumerate() {
        stmt.execute(params![k, pos as i64, v.to_string()])?;
    }
    Ok(())
}

/// The text a journal entry is stored as: its JSON line as the reference's
/// `journal.jsonl` holds it (`json.dumps(entry)`).
pub fn journal_text(entry: &PyDict) -> Result<String> {
    Ok(pyformat::pyjson::to_string_with(entry, Style::COMPACT)?)
}

/// Appends a journal entry's text ([`journal_text`]).
pub fn append_journal(conn: &Connection, text: &str) -> SqlResult<()> {
    conn.prepare_cached("INSERT INTO journal(entry) VALUES (?1)")?
        .execute(params![text])
        .map(|_| ())
}

/// The journal's entries in order with their `seq`, as JSON lines.
pub fn journal_rows(conn: &Connection) -> SqlResult<Vec<(i64, String)>> {
    let mut stmt = conn.prepare("SELECT seq, entry FROM journal ORDER BY seq")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    rows.collect()
}

/// Hands the journal's entries (JSON lines) to `visit`, newest first, until it returns
/// `false` (the health window, `crate::service::health`: the last N queries).
///
/// Cost: reads only the entries visited.
pub fn journal_newest_first(
    conn: &Connection,
    mut visit: impl FnMut(&str) -> bool,
) -> SqlResult<()> {
    let mut stmt = conn.prepare("SELECT entry FROM journal ORDER BY seq DESC")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let line: String = r.get(0)?;
        if !visit(&line) {
            break;
        }
    }
    Ok(())
}

/// Applies the rows written after revision `after` to a graph read before
/// ([`load_all`]), when no row was deleted or reordered since (the `structure` counter
/// is unchanged): changed nodes and edges are replaced in place, new ones appended in
/// the database's order, as the writer's graph did.
///
/// Cost: two indexed range scans over the newer rows.
pub fn apply_newer(conn: &Connection, loaded: &mut Loaded, after: i64) -> SqlResult<()> {
    let mut stmt = conn.prepare(&format!("SELECT {NODE_COLUMNS} FROM nodes WHERE rev > ?1"))?;
    let mut rows = stmt
        .query_map(params![after], node_row)?
        .collect::<SqlResult<Vec<_>>>()?;
    rows.sort_by_key(|r| (r.node_seq.is_none(), r.node_seq, r.sym));
    for r in &rows {
        let n = match (loaded.by_sym.get(&r.sym).copied(), &r.node) {
            (_, Some(node)) => loaded.graph.add_node(node.clone()),
            (Some(n), None) => n,
            (None, None) => loaded.graph.intern(&r.id),
        };
        loaded.cover(loaded.graph.symbol_count());
        loaded.syms[n.index()] = r.sym;
        loaded.by_sym.insert(r.sym, n);
        loaded.node_seq[n.index()] = r.node_seq;
        loaded.bucket_seq[n.index()] = r.bucket_seq;
        loaded.bucket_loaded[n.index()] = true;
    }
    let mut stmt = conn.prepare(&format!("SELECT {EDGE_COLUMNS} FROM edges WHERE rev > ?1"))?;
    let mut edges = stmt
        .query_map(params![after], edge_row)?
        .collect::<SqlResult<Vec<_>>>()?;
    let bucket_of = |loaded: &Loaded, sym: i64| {
        loaded
            .by_sym
            .get(&sym)
            .and_then(|n| loaded.bucket_seq[n.index()])
            .unwrap_or(i64::MAX)
    };
    edges.sort_by_key(|e| (bucket_of(loaded, e.src), e.src, e.seq));
    for e in edges {
        let (Some(&s), Some(&t)) = (loaded.by_sym.get(&e.src), loaded.by_sym.get(&e.tgt)) else {
            continue;
        };
        if loaded.graph.add_edge(s, t, e.edge).is_ok() {
            loaded.edge_seq[s.index()].insert(t, e.seq);
        }
    }
    Ok(())
}
