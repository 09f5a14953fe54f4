//! Compaction of daily notes (`crabpath compact`; reference
//! `crabpath/compact.py::compact_daily_notes`, commit 134c676): old `YYYY-MM-DD.md`
//! notes of a memory directory are cut down to their key lines, and each fact becomes
//! a `learning::compact::<hash>` node connected to its three nearest nodes.
//!
//! For each `*.md` file directly in the directory whose name is a date, in name order
//! (`files_scanned`): a note not older than `max_age_days` whole days, or of at most 20
//! lines, is skipped; otherwise its facts are extracted (without an LLM: per `#`
//! header, the header and the first non-blank line after it; with no header, the first
//! 20 non-blank lines), the compact text is the first `target_lines` non-blank lines of
//! the facts, the note is rewritten with it, and each fact is injected
//! ([`crabpath::inject::inject_node`], content `fact[:2000]`, summary `fact[:120]`,
//! metadata `{source: <note path>, authority: overlay, type: TEACHING}`, 3 neighbours,
//! minimum similarity 0.0). The state is saved after each note.
//!
//! | # | reference (paper) | corrected | before → after |
//! |---|---|---|---|
//! | C1 | the note is rewritten before the state with its facts is saved: a crash in between loses the facts | the state is saved first | |
//! | C2 | node ids hash the note path as spelled (`mem/x.md` ≠ `./mem//x.md`), so the same note compacted through two spellings is injected twice | ids hash the note's file name | |
//! | C3 | a note named with an impossible date (`2020-13-45.md`) aborts the run (`ValueError`) | skipped | exit 1 vs. `skipped` |
//! | C4 | the note is rewritten in place: the lines compaction drops (past the first 20 facts and `target_lines`) are gone, from the note and the brain | the note as it was is kept first in `<dir>/.compacted/<name>` ([`rewrite_note`]; hidden, so `init` and `sync` skip it) | a 40-line note: 20 lines lost vs. kept |

use std::path::Path;

use serde_json::json;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::store::working::Working;
use crabpath::embed::Embedder;
use crabpath::inject::{inject_node, InjectOptions};
use crabpath::profile::Profile;
use pyformat::pystr;

/// Notes of at most this many lines are left alone (reference `min_lines_to_compact`).
pub const MIN_LINES_TO_COMPACT: usize = 20;

/// The key of a `compact_daily_notes` journal entry (corrected profile) saying that
/// each fact node it injected has an `inject` entry of its own after it: `forget`'s
/// replay repeats those and takes this entry for a report.
pub const COMPACT_NODES_JOURNALED: &str = "nodes_journaled";

/// What a compaction did (reference `CompactReport`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CompactReport {
    /// Date-named notes seen.
    pub files_scanned: usize,
    /// Notes compacted.
    pub files_compacted: usize,
    /// Notes skipped (too recent, too short, no facts, impossible date).
    pub files_skipped: usize,
    /// Fact nodes injected.
    pub nodes_injected: usize,
    /// Lines of the compacted notes before.
    pub lines_before: usize,
    /// Lines after.
    pub lines_after: usize,
}

/// Options of [`compact_daily_notes`].
pub struct CompactOptions<'a> {
    /// Semantics.
    pub profile: Profile,
    /// Notes older than this many whole days are compacted.
    pub max_age_days: i64,
    /// Lines kept per note.
    pub target_lines: i64,
    /// Report only: no note or state is written.
    pub dry_run: bool,
    /// Today, as days since 1970-01-01 (UTC), and the seconds into that day.
    pub today: (i64, i64),
    /// The memory directory as the user spelled it (`~` expanded): note paths, and in
    /// the paper profile the node ids, are built from it.
    pub dir_display: &'a str,
    /// Embeds the facts.
    pub embedder: &'a dyn Embedder,
}

/// The date of a note name `YYYY-MM-DD.md` (ASCII digits).
fn note_date(name: &str) -> Option<(i64, u32, u32)> {
    let b = name.as_bytes();
    if b.len() != 13 || &name[10..] != ".md" || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let digits = |r: std::ops::Range<usize>| {
        b[r.clone()]
            .iter()
            .all(u8::is_ascii_digit)
            .then(|| name[r].parse::<i64>().ok())
            .flatten()
    };
    Some((digits(0..4)?, digits(5..7)? as u32, digits(8..10)? as u32))
}

/// Python's `datetime(y, m, d)` check; the reference's error text.
fn check_date(y: i64, m: u32, d: u32) -> Result<(), String> {
    if !(1..=9999).contains(&y) {
        return Err(format!("year {y} is out of range"));
    }
    if !(1..=12).contains(&m) {
        return Err("month must be in 1..12".into());
    }
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if d < 1 || d > days[(m - 1) as usize] {
        return Err("day is out of range for month".into());
    }
    Ok(())
}

/// The reference's fallback fact extraction (`_fallback_facts`,
/// `_split_markdown_sections`), preamble quirk included.
pub fn fallback_facts(content: &str) -> Vec<String> {
    let lines = pystr::splitlines(content);
    let mut sections: Vec<(String, String)> = Vec::new();
    let mut header: Option<String> = None;
    let mut first = String::new();
    for line in &lines {
        let s = pystr::strip(line);
        if s.is_empty() {
            continue;
        }
        if s.starts_with('#') {
            if let Some(h) = header.take() {
                sections.push((h, pystr::strip(&first).to_string()));
                first.clear();
            }
            header = Some(s.to_string());
            continue;
        }
        if first.is_empty() {
            first = s.to_string();
        }
    }
    if let Some(h) = header.take() {
        sections.push((h, pystr::strip(&first).to_string()));
    }
    if !sections.is_empty() {
        return sections
            .into_iter()
            .map(|(h, f)| if f.is_empty() { h } else { format!("{h}\n{f}") })
            .collect();
    }
    lines
        .iter()
        .map(|l| pystr::strip(l))
        .filter(|l| !l.is_empty())
        .take(20)
        .map(str::to_string)
        .collect()
}

/// The compact text of a note: the non-blank lines of the facts, the first
/// `target_lines` of them, joined and stripped (reference `_compact_content`).
pub fn compact_content(facts: &[String], target_lines: i64) -> String {
    let lines: Vec<&str> = facts
        .iter()
        .flat_map(|f| pystr::splitlines(f))
        .filter(|p| !pystr::strip(p).is_empty())
        .collect();
    let n = if target_lines <= 0 {
        0
    } else {
        lines.len().min(target_lines as usize)
    };
    pystr::strip(&lines[..n].join("\n")).to_string()
}

/// `learning::compact::` + the first 12 hex digits of `sha256("<path>:<k>:<fact>")`.
pub fn fact_node_id(path: &str, k: usize, fact: &str) -> String {
    let d = Sha256::digest(format!("{path}:{k}:{fact}").as_bytes());
    format!("learning::compact::{}", &hex::encode(d)[..12])
}

fn prefix_chars(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// Where the corrected profile keeps a note as it was before compaction rewrote it:
/// `<dir>/.compacted/<name>` (then `<name>.2`, … for later compactions of the same
/// note).
pub const ORIGINALS_DIR: &str = ".compacted";

/// Rewrites the note at `path` with its compacted text `note` (corrected profile),
/// after keeping the note as it is now in [`ORIGINALS_DIR`] beside it, so that the
/// lines compaction drops stay readable (before, they were gone: a 40-line note kept
/// 15, and only its first 20 lines became nodes). Returns where the original is kept.
///
/// Errors: `Error::Io` naming the file that could not be read or written; the note is
/// not rewritten unless its original is kept.
pub fn rewrite_note(path: &Path, note: &str) -> Result<std::path::PathBuf> {
    let io = |p: &Path, e: std::io::Error| crate::error::io_error(p, e);
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return Err(Error::Invalid(format!("{}: not a note", path.display())));
    };
    let keep = dir.join(ORIGINALS_DIR);
    std::fs::create_dir_all(&keep).map_err(|e| io(&keep, e))?;
    let original = std::fs::read(path).map_err(|e| io(path, e))?;
    let mut kept = keep.join(name);
    let mut k = 2;
    while kept.exists() {
        kept = keep.join(format!("{name}.{k}"));
        k += 1;
    }
    pyformat::io::write_atomic(&kept, &original)?;
    pyformat::io::write_atomic(path, note.as_bytes())?;
    Ok(kept)
}

/// Compacts the notes of `dir` into the brain `w` (see the module docs). The paper
/// profile rewrites each note at once, before injecting its facts (as the reference);
/// the corrected one leaves the rewrites in `rewrites`, for the caller to apply after
/// the brain is saved, so that a crash in between never loses a note's facts. Each
/// fact injected is added to `injected` (the corrected command line journals it as an
/// injection, which `forget`'s replay repeats).
///
/// Errors: the reference's messages for a missing directory or a path that is not a
/// directory and for invalid arguments; a note that cannot be read or written; an
/// impossible date (paper profile, `ValueError`).
pub fn compact_daily_notes(
    w: &mut Working<'_>,
    dir: &Path,
    options: &CompactOptions<'_>,
    rewrites: &mut Vec<(std::path::PathBuf, String)>,
    injected: &mut Vec<crabpath::inject::InjectReport>,
) -> Result<CompactReport> {
    let value_error = |m: &str| Error::Exception {
        kind: "ValueError",
        message: m.into(),
    };
    if options.max_age_days < 0 {
        return Err(value_error("max_age_days must be >= 0"));
    }
    if options.target_lines <= 0 {
        return Err(value_error("target_lines must be >= 1"));
    }
    if !dir.exists() {
        return Err(Error::Reference(format!(
            "memory directory not found: {}",
            options.dir_display
        )));
    }
    if !dir.is_dir() {
        return Err(Error::Reference(format!(
            "memory path is not a directory: {}",
            options.dir_display
        )));
    }
    let fixes = options.profile.fixes_bugs();
    let io = |p: &Path, e: std::io::Error| crate::error::io_error(p, e);
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| io(dir, e))?
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| crate::source::gitignore::fnmatch(n, "*.md"))
        .collect();
    names.sort();
    let mut report = CompactReport::default();
    for name in names {
        let Some((y, m, d)) = note_date(&name) else {
            continue;
        };
        report.files_scanned += 1;
        if let Err(msg) = check_date(y, m, d) {
            if fixes {
                report.files_skipped += 1;
                continue;
            }
            return Err(value_error(&msg));
        }
        // `(today - date).days > max_age_days`, `timedelta.days` being a floor
        let (today_days, today_secs) = options.today;
        let age_secs =
            (today_days - pyformat::pytime::days_from_civil(y, m, d)) * 86_400 + today_secs;
        if age_secs.div_euclid(86_400) <= options.max_age_days {
            report.files_skipped += 1;
            continue;
        }
        let path = dir.join(&name);
        let text = crate::source::workspace::read_text(&path)?;
        let lines = pystr::splitlines(&text).len();
        if lines <= MIN_LINES_TO_COMPACT {
            report.files_skipped += 1;
            continue;
        }
        let facts = fallback_facts(&text);
        if facts.is_empty() {
            report.files_skipped += 1;
            continue;
        }
        let compact = compact_content(&facts, options.target_lines);
        let compact_lines: Vec<&str> = if compact.is_empty() {
            Vec::new()
        } else {
            pystr::splitlines(&compact)
        };
        report.files_compacted += 1;
        report.lines_before += lines;
        report.lines_after += compact_lines.len();
        if options.dry_run {
            continue;
        }
        let mut note = compact_lines.join("\n");
        if !compact_lines.is_empty() {
            note.push('\n');
        }
        // Python `str(Path(dir) / name)`
        let note_path = match options.dir_display {
            "." | "" => name.clone(),
            d if d.ends_with('/') => format!("{d}{name}"),
            d => format!("{d}/{name}"),
        };
        if !fixes {
            pyformat::io::write_atomic(&path, note.as_bytes())?;
        }
        for (k, fact) in facts.iter().enumerate() {
            let id = fact_node_id(if fixes { &name } else { &note_path }, k, fact);
            if w.graph.get_node(&id).is_some() {
                continue;
            }
            let mut metadata = crabpath::graph::Metadata::new();
            metadata.insert("source".into(), json!(note_path));
            metadata.insert("authority".into(), json!("overlay"));
            metadata.insert("type".into(), json!("TEACHING"));
            let r = inject_node(
                w.graph,
                w.vectors,
                &id,
                &prefix_chars(fact, 2000),
                InjectOptions {
                    summary: Some(prefix_chars(fact, 120)),
                    metadata,
                    vector: None,
                    embedder: Some(options.embedder),
                    connect_top_k: 3,
                    connect_min_sim: 0.0,
                },
            )?;
            if !r.skipped {
                report.nodes_injected += 1;
                injected.push(r);
            }
        }
        if fixes {
            rewrites.push((path, note));
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_dates_and_ids() {
        let facts = fallback_facts("preamble line\n# Morning\nfirst\n\n# Empty\n# Last\nx\n");
        assert_eq!(facts, ["# Morning\npreamble line", "# Empty", "# Last\nx"]);
        assert_eq!(fallback_facts("a\n\n b \n"), ["a", "b"]);
        assert_eq!(
            compact_content(&facts, 3),
            "# Morning\npreamble line\n# Empty"
        );
        assert_eq!(note_date("2020-01-02.md"), Some((2020, 1, 2)));
        assert_eq!(note_date("2020-1-02.md"), None);
        assert_eq!(
            check_date(2020, 13, 1).unwrap_err(),
            "month must be in 1..12"
        );
        assert_eq!(
            check_date(2021, 2, 29).unwrap_err(),
            "day is out of range for month"
        );
        assert!(fact_node_id("mem/2020-01-01.md", 0, "x").starts_with("learning::compact::"));
    }
}
