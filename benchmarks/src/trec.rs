//! TREC run files and qrels, as `bench run` writes them (gzip-compressed) and as
//! `bench check` reads them back (plain or gzip).
//!
//! * Run file: one line `qid Q0 docid rank score tag` per retrieved node, best first;
//!   `rank` counts from 1, `score = list length − rank + 1` (strictly decreasing, so that
//!   `trec_eval`, which sorts by score, keeps our order), `tag` = the method's name.
//! * Qrels: one line `qid 0 docid 1` per relevant node.
//!
//! An empty node id is written as `_`. A query for which a method retrieved nothing has no
//! line in that method's run file, yet every mean of the report counts it (as 0): run
//! `trec_eval -c` (averages over every query of the qrels) to reproduce our means
//! ([`RUN_FORMAT`]).
//!
//! Files are compressed deterministically: gzip header without file name, modification time
//! 0, best compression ([`gzip`]). Different versions of the compressor may still produce
//! different bytes for the same text, so comparisons are made on the decompressed text.

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::Path;

use flate2::{Compression, GzBuilder};

use crate::data::json::open_maybe_gz;
use crate::error::{Error, Result};

/// The `files.run_format` note of every report.
pub const RUN_FORMAT: &str = "gzip-compressed TREC files, paths relative to this report; \
     run lines `qid Q0 docid rank score tag` with score = list length - rank + 1 (strictly \
     decreasing, so trec_eval keeps our order), qrels lines `qid 0 docid 1`; an empty node id \
     is written as _. A query for which a method retrieved nothing has no line in its run \
     file but counts as 0 in every mean of this report: `trec_eval -c` (average over every \
     query of the qrels) reproduces our means; a query without any relevant id has no qrels \
     line (see evaluation.queries_without_relevant)";

/// A node id as written in TREC files (`_` for an empty id).
pub fn docid(id: &str) -> &str {
    if id.is_empty() {
        "_"
    } else {
        id
    }
}

/// The lines of one run file: `lists[i]` is the ranking of query `qids[i]`.
pub fn run_text<'a>(
    tag: &str,
    rankings: impl Iterator<Item = (&'a str, &'a [usize])>,
    node_id: impl Fn(usize) -> &'a str,
) -> String {
    let mut s = String::new();
    for (qid, list) in rankings {
        for (r, &d) in list.iter().enumerate() {
            let _ = writeln!(
                s,
                "{qid} Q0 {} {} {} {tag}",
                docid(node_id(d)),
                r + 1,
                list.len() - r
            );
        }
    }
    s
}

/// The lines of a qrels file: every relevant node of every query.
pub fn qrels_text<'a>(
    relevant: impl Iterator<Item = (&'a str, &'a [usize])>,
    node_id: impl Fn(usize) -> &'a str,
) -> String {
    let mut s = String::new();
    for (qid, rel) in relevant {
        for &d in rel {
            let _ = writeln!(s, "{qid} 0 {} 1", docid(node_id(d)));
        }
    }
    s
}

/// `bytes` as a deterministic gzip stream (see the module docs).
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = GzBuilder::new()
        .mtime(0)
        .write(Vec::with_capacity(bytes.len() / 4), Compression::best());
    // Writing into a Vec cannot fail.
    let _ = enc.write_all(bytes);
    enc.finish().unwrap_or_default()
}

/// The text of a run file or qrels, plain or gzip-compressed (detected by its magic bytes).
pub fn read_text(path: &Path) -> Result<String> {
    let mut s = String::new();
    open_maybe_gz(path)?
        .read_to_string(&mut s)
        .map_err(|e| Error::io(path, e))?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_round_trips_through_gzip() {
        let ids = ["a", "", "c"];
        let lists: [(&str, &[usize]); 2] = [("q1", &[2, 1]), ("q2", &[])];
        let run = run_text("m", lists.iter().copied(), |d| ids[d]);
        assert_eq!(run, "q1 Q0 c 1 2 m\nq1 Q0 _ 2 1 m\n");
        let rel: [(&str, &[usize]); 1] = [("q1", &[0, 2])];
        assert_eq!(
            qrels_text(rel.iter().copied(), |d| ids[d]),
            "q1 0 a 1\nq1 0 c 1\n"
        );
        let gz = gzip(run.as_bytes());
        assert_eq!(gz, gzip(run.as_bytes()), "deterministic");
        assert_eq!(&gz[4..8], &[0, 0, 0, 0], "mtime 0");
        assert_eq!(gz[3] & 0x08, 0, "no file name");
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.run.gz");
        std::fs::write(&p, &gz).unwrap();
        assert_eq!(read_text(&p).unwrap(), run);
        let plain = dir.path().join("x.run");
        std::fs::write(&plain, &run).unwrap();
        assert_eq!(read_text(&plain).unwrap(), run);
    }
}
