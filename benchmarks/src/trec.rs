//! TREC run files and qrels, as `bench run` writes them (xz-compressed) and as
//! `bench check` reads them back (plain, gzip or xz).
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
//! Files are compressed deterministically with xz (preset 6 extreme, CRC-64, one thread: the
//! same text gives the same bytes, [`xz`]); its 8 MiB dictionary holds a whole run file (under
//! 1 MB of text), so a larger preset compresses no better, and it takes a third less room than
//! gzip at its best (results/bench/runs: 2.70 MB against 4.03 MB), and every TREC tool reads them through `xzcat`. Different versions of
//! the compressor may still produce different bytes for the same text, so comparisons are
//! made on the decompressed text.

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::Path;

use liblzma::stream::{Check, Stream, PRESET_EXTREME};

use crate::data::json::open_maybe_compressed;
use crate::error::{Error, Result};

/// The `files.run_format` note of every report.
pub const RUN_FORMAT: &str = "xz-compressed TREC files, paths relative to this report; \
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

/// `bytes` as a deterministic xz stream (see the module docs). Cost: about 0.5 s of CPU per
/// megabyte of text and about 100 MB of memory per file being compressed.
pub fn xz(bytes: &[u8]) -> Result<Vec<u8>> {
    let failed = |e: std::io::Error| Error::Internal(format!("xz compression: {e}"));
    let stream =
        Stream::new_easy_encoder(6 | PRESET_EXTREME, Check::Crc64).map_err(|e| failed(e.into()))?;
    let mut enc =
        liblzma::write::XzEncoder::new_stream(Vec::with_capacity(bytes.len() / 6), stream);
    enc.write_all(bytes).map_err(failed)?;
    enc.finish().map_err(failed)
}

/// The text of a run file or qrels, plain, gzip- or xz-compressed (detected by its magic
/// bytes).
pub fn read_text(path: &Path) -> Result<String> {
    let mut s = String::new();
    open_maybe_compressed(path)?
        .read_to_string(&mut s)
        .map_err(|e| Error::io(path, e))?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_round_trips_through_xz() {
        let ids = ["a", "", "c"];
        let lists: [(&str, &[usize]); 2] = [("q1", &[2, 1]), ("q2", &[])];
        let run = run_text("m", lists.iter().copied(), |d| ids[d]);
        assert_eq!(run, "q1 Q0 c 1 2 m\nq1 Q0 _ 2 1 m\n");
        let rel: [(&str, &[usize]); 1] = [("q1", &[0, 2])];
        assert_eq!(
            qrels_text(rel.iter().copied(), |d| ids[d]),
            "q1 0 a 1\nq1 0 c 1\n"
        );
        let xz = xz(run.as_bytes()).unwrap();
        assert_eq!(xz, super::xz(run.as_bytes()).unwrap(), "deterministic");
        // The xz stream header: magic, then the flags (check type 0x04 = CRC-64).
        assert_eq!(&xz[..6], b"\xFD7zXZ\0");
        assert_eq!(&xz[6..8], &[0, 4]);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.run.xz");
        std::fs::write(&p, &xz).unwrap();
        assert_eq!(read_text(&p).unwrap(), run);
        // A gzip-compressed run file (the format before xz) still reads.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(run.as_bytes()).unwrap();
        let gzp = dir.path().join("x.run.gz");
        std::fs::write(&gzp, gz.finish().unwrap()).unwrap();
        assert_eq!(read_text(&gzp).unwrap(), run);
        let plain = dir.path().join("x.run");
        std::fs::write(&plain, &run).unwrap();
        assert_eq!(read_text(&plain).unwrap(), run);
    }
}
