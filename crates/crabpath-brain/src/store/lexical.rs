//! The lexical (BM25) search of a brain database, and its fusion with the dense search
//! (issue 28, item 3).
//!
//! The index is the FTS5 table [`schema::LEXICAL_TABLE`] ([`schema::SCHEMA_V3_LEXICAL`]),
//! kept by triggers on `nodes`, so it is always in step with the nodes in the same
//! transaction. A query's text becomes an `OR` of its words ([`query_terms`]), each
//! quoted, so nothing a user types is read as FTS5 syntax; ranked by FTS5's `bm25()`
//! (k1 = 1.2, b = 0.75).
//!
//! Fusion ([`fuse`]): reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009),
//! score(d) = Σ over the ranked lists of 1 / ([`RRF_K`] + rank of d in that list), ranks
//! from 1, the dense list's rank breaking ties. Rank fusion needs no calibration
//! between a cosine and a BM25 score, which live on unrelated scales.

use rusqlite::Connection;

use super::schema::{self, LEXICAL_JOINERS};

/// The constant `k` of reciprocal rank fusion: 60, the value of Cormack et al. (2009),
/// also the default of Elasticsearch's and OpenSearch's hybrid search.
pub const RRF_K: f64 = 60.0;

/// Fewest results taken from each search before fusing: a node ranked 50th by one
/// search and first by the other still reaches the top of the fused list.
pub const MIN_FUSION_DEPTH: usize = 50;

/// Most words of a query sent to the index (a pasted page must not cost a scan of
/// every posting list).
pub const MAX_QUERY_TERMS: usize = 32;

/// English function words left out of a query: they are in most nodes, so they add
/// cost and almost no BM25 weight (and in a small brain, noise).
const STOP_WORDS: &[&str] = &[
    "a", "about", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from",
    "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "so", "that",
    "the", "their", "then", "there", "these", "this", "to", "was", "we", "were", "what", "when",
    "where", "which", "who", "why", "will", "with", "you", "your",
];

/// Whether `word` (lowercase) is one of the English function words a query leaves out
/// (also the words a conversation's entity edges ignore,
/// [`crate::source::conversation::entities`]).
pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.contains(&word)
}

/// The maximal runs of letters and digits of `text`, in order: the words every lexical
/// feature reads (query terms, the speaker a question names, entity links between
/// turns), before each lowercases and filters them its own way.
pub fn alnum_runs(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// Calls `f` with each word of `text` as the index reads it, in order: the
/// [`LEXICAL_JOINERS`] removed (as the index removes them), split at every character
/// that is not a letter or a digit, lowercased, stop words dropped; stops when `f`
/// returns `false`. The one reading of [`query_terms`] and [`query_words`].
fn each_word(text: &str, mut f: impl FnMut(String) -> bool) {
    let joined: String = text
        .chars()
        .filter(|c| !LEXICAL_JOINERS.contains(c))
        .collect();
    for word in alnum_runs(&joined) {
        let w = word.to_lowercase();
        if !is_stop_word(&w) && !f(w) {
            break;
        }
    }
}

/// The words of a query as FTS5 terms: the [`LEXICAL_JOINERS`] removed (as the index
/// removes them), split at every character that is not a letter or a digit,
/// lowercased, stop words dropped, each word once (first occurrence first), at most
/// [`MAX_QUERY_TERMS`].
pub fn query_terms(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    each_word(text, |w| {
        if !out.contains(&w) {
            out.push(w);
        }
        out.len() < MAX_QUERY_TERMS
    });
    out
}

/// Every word of `text` as [`query_terms`] reads a query's (the [`LEXICAL_JOINERS`]
/// removed, lowercased, stop words dropped), without its limit: the words a longer text
/// holds, to compare with a query's terms.
pub fn query_words(text: &str) -> rustc_hash::FxHashSet<String> {
    let mut out = rustc_hash::FxHashSet::default();
    each_word(text, |w| {
        out.insert(w);
        true
    });
    out
}

/// The FTS5 query of `terms`: each one quoted (a term holds only letters and digits,
/// so no quote to escape), joined by `OR`.
fn match_expression(terms: &[String]) -> String {
    terms
        .iter()
        .map(|t| format!("\"{t}\""))
        .collect::<Vec<_>>()
        .join(" OR ")
}

/// The statement of [`search`] (`?1` the FTS5 query, `?2` the count), prepared once per
/// connection from its statement cache. Its plan does not depend on the query bound to
/// it: the brain's connections hold SQLite's query planner stability guarantee (see
/// `Store::open`), without which FTS5's `MATCH ?1` compiles the statement again at
/// every new query.
pub fn search_sql() -> String {
    let table = schema::LEXICAL_TABLE;
    format!(
        "SELECT rowid, bm25({table}) AS s FROM {table} WHERE {table} MATCH ?1 ORDER BY s, rowid LIMIT ?2"
    )
}

/// The statement of [`search_aside`] (`?1` the FTS5 query, `?2` the count), cached as
/// [`search_sql`]'s: the index's best rows with their nodes' id, content and metadata.
pub fn aside_search_sql() -> String {
    let table = schema::ASIDE_LEXICAL_TABLE;
    format!(
        "SELECT a.rowid, n.id, n.content, n.metadata FROM {table} AS a JOIN nodes AS n ON n.sym = a.rowid \
         WHERE {table} MATCH ?1 ORDER BY bm25({table}), a.rowid LIMIT ?2"
    )
}

/// The statement of [`matching`] (`?1` the FTS5 query), cached as [`search_sql`]'s.
pub fn matching_sql() -> String {
    let table = schema::LEXICAL_TABLE;
    format!("SELECT rowid FROM {table} WHERE {table} MATCH ?1 ORDER BY rowid")
}

/// The `k` best nodes for `text` by BM25: `(sym, score)`, best first (a higher score
/// is better: FTS5's `bm25()` negated), ties by `sym`. Empty when the text has no
/// word to search or `k` is 0.
pub fn search(conn: &Connection, text: &str, k: usize) -> rusqlite::Result<Vec<(i64, f64)>> {
    let terms = query_terms(text);
    if terms.is_empty() || k == 0 {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare_cached(&search_sql())?;
    let rows = stmt.query_map(rusqlite::params![match_expression(&terms), k as i64], |r| {
        Ok((r.get::<_, i64>(0)?, -r.get::<_, f64>(1)?))
    })?;
    rows.collect()
}

/// A node of the aside index that [`search_aside`] found: the question nodes and the
/// corrections of a question are both read from one search.
#[derive(Debug, Clone, PartialEq)]
pub struct AsideHit {
    /// Its `nodes.sym`.
    pub sym: i64,
    /// Its id.
    pub id: String,
    /// Its content.
    pub content: Option<String>,
    /// Its metadata (JSON text).
    pub metadata: Option<String>,
}

/// The `k` nodes set aside (neurogenesis' questions and corrections,
/// [`schema::SCHEMA_V5_ASIDE_LEXICAL`]) whose words best match `text` by BM25 over them
/// alone, best first, ties by `sym`. Empty when the text has no word to search or `k`
/// is 0.
///
/// Cost: one FTS5 query of the text's terms over the aside index, joined to `nodes`.
pub fn search_aside(conn: &Connection, text: &str, k: usize) -> rusqlite::Result<Vec<AsideHit>> {
    let terms = query_terms(text);
    if terms.is_empty() || k == 0 {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare_cached(&aside_search_sql())?;
    let rows = stmt.query_map(rusqlite::params![match_expression(&terms), k as i64], |r| {
        Ok(AsideHit {
            sym: r.get(0)?,
            id: r.get(1)?,
            content: r.get(2)?,
            metadata: r.get(3)?,
        })
    })?;
    rows.collect()
}

/// The syms of every node containing `term` (one word of [`query_terms`]), in rowid
/// order, unranked: what a feature needs that only asks which nodes hold a word and how
/// many do (its document frequency), without BM25's scoring and sort.
///
/// Cost: one FTS5 posting-list read of the term.
pub fn matching(conn: &Connection, term: &str) -> rusqlite::Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(&matching_sql())?;
    let rows = stmt.query_map([match_expression(&[term.to_string()])], |r| r.get(0))?;
    rows.collect()
}

/// Reciprocal rank fusion of ranked lists of syms (see the module docs): each sym once,
/// best first, with a score in (0, 1]: its fused score divided by the best one possible
/// (first in every list), so the seeds the traversal starts from keep a scale like a
/// cosine's. Ties keep the order of first appearance, the lists read in order (the
/// dense list first).
pub fn fuse(lists: &[&[i64]]) -> Vec<(i64, f64)> {
    let best: f64 = lists.iter().filter(|l| !l.is_empty()).count() as f64 / (RRF_K + 1.0);
    let mut order: Vec<i64> = Vec::new();
    let mut score: rustc_hash::FxHashMap<i64, f64> = rustc_hash::FxHashMap::default();
    for list in lists {
        for (i, &sym) in list.iter().enumerate() {
            let add = 1.0 / (RRF_K + (i + 1) as f64);
            match score.get_mut(&sym) {
                Some(s) => *s += add,
                None => {
                    score.insert(sym, add);
                    order.push(sym);
                }
            }
        }
    }
    let mut out: Vec<(i64, f64)> = order
        .into_iter()
        .map(|sym| (sym, score.get(&sym).copied().unwrap_or(0.0) / best))
        .collect();
    // stable: equal scores keep the order of first appearance
    out.sort_by(|a, b| b.1.total_cmp(&a.1));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_drop_syntax_stop_words_and_brackets() {
        assert_eq!(
            query_terms("What's `tar` -x (a|b) AND OR NOT * e[x]tract \"q\" NEAR(x y)"),
            ["s", "tar", "x", "b", "not", "extract", "q", "near", "y"]
        );
        assert!(query_terms("  ()*^:\"  ").is_empty());
    }

    #[test]
    fn fusion_ranks_agreement_first() {
        // 2 is second in both lists: 2/62 beats 1/61 (first in one list only)
        let f = fuse(&[&[1, 2, 3], &[4, 2]]);
        let ids: Vec<i64> = f.iter().map(|x| x.0).collect();
        assert_eq!(ids, [2, 1, 4, 3]);
        // first in both lists scores 1
        assert_eq!(fuse(&[&[7], &[7]])[0].1, 1.0);
        // one list alone keeps its order
        let one: Vec<i64> = fuse(&[&[5, 3, 9], &[]]).iter().map(|x| x.0).collect();
        assert_eq!(one, [5, 3, 9]);
    }
}
