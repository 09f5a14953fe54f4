//! `crabpath`: the memory system of the CrabPath / OpenClawBrain papers as a program —
//! build a brain from a folder, query it, teach it outcomes, keep it healthy, serve it
//! over stdin/stdout. Every subcommand, flag and file format of the reference program
//! (`jonathangu/crabpath` v11.2.1, commit 134c676, `crabpath/cli.py`) is here, under
//! two profiles (`--profile`, `CRABPATH_PROFILE`):
//!
//! * `paper` — the reference bit for bit on the hash embedder: the same `init` files,
//!   the same state files (wall-clock timestamps aside), the same outputs and exit
//!   statuses, quirks included;
//! * `corrected` (default) — the same program with the bugs a user would hit fixed.
//!   Each fix, with its before and after, is listed in the core modules it lives in
//!   (`crabpath_brain::service::command::*`, `crabpath_brain::source::workspace`, `crabpath_brain::source::chunk`,
//!   `crabpath_brain::source::session`, `crabpath_brain::reference::journal`, `crabpath::profile`) and in the table
//!   below; `tests/it/corrected.rs` checks each one.
//!
//! | fix | reference (paper) | corrected |
//! |---|---|---|
//! | `inject --type CORRECTION` | correction edges end at weight 0.0 (never inhibit; the next `maintain` prunes them) | weight −0.5 × similarity: an active correction vetoes its targets |
//! | `maintain --tasks connect` | crashes with `NameError` once learning nodes exist | connects learning nodes to their nearest workspace nodes |
//! | `sync` | resets learned weights of same-file edges on every run | keeps the learned edges of unchanged chunks; only changed files are re-split and re-embedded |
//! | daemon end of input, SIGTERM, SIGINT | EOF exits without saving; a signal is noticed only when the next line arrives | saves on EOF and at once on a signal; every mutation is logged before it is acknowledged |
//! | directory order in `init`/`sync` | the order the file system lists directories | sorted by name |
//! | `~` in `--state` | expanded only by `info`, `doctor`, `daemon` | expanded everywhere |
//! | `merge` | leaves the index stale (merged node without a vector, vectors of deleted ids) | the index follows the merge |
//! | `maintain --tasks merge` | the same stale index after each merge | the index follows each merge |
//! | `--embedder` other than the state's | embeds with it and scores vectors of another model (another length: every score 0.0) | refused with an error naming both embedders |
//! | `.gitignore` | `/name` drops the first character, leading dots stripped, no negation | git's rules |
//! | `learn` with unknown ids / NaN outcome | dangling edges / weights driven to ±1 | refused with an error, nothing written |
//! | `doctor` | healthy state scores 8/9; bare-graph state fails | 9/9; bare graphs counted; each failure says what to do |
//! | option values (`crate::values`) | `--max-merges -1`, `--max-context-chars -5`, `--last -3` slice; `--outcome 2` learns; `--tasks bogus` runs nothing (rc 0); `--authority-map` stores any string | each refused in one line naming the option and its range or names (NaN `--prune-below`/`--connect-min-sim` and an empty `inject --id`/`--content` in both profiles) |
//! | `inject --id <existing>` | "Injected `<id>`" (and rewrites the file) | one error line, nothing written, exit 1 |
//! | a broken JSON line in a session log | replayed as a plain-text query | an error naming the file and line, nothing replayed |
//!
//! Safety (both profiles): atomic saves with one `.bak`, an advisory lock around every
//! read-modify-write (`crabpath_brain::reference::lock`), one-line errors naming the file.
//!
//! Speed (not in the reference): every save also writes `<state>.idx`, the index as
//! binary numbers (`crabpath_brain::reference::sidecar`), so the next load skips parsing the vectors;
//! it is ignored as soon as `state.json` is not the file it was made for, and
//! `state.json` stays the interchange format. The daemon answers hash-v1 queries
//! through posting lists (`crabpath::postings`), with the same results.
#![warn(missing_docs)]

mod args;
mod cmd;
mod context;
mod embedding;
mod error;
mod out;
mod values;

use std::process::ExitCode;

use clap::Parser;

/// mimalloc: loading a brain allocates a string per node and edge; glibc's allocator
/// spent a third of `health`'s time on 79,000 nodes in `malloc`/`free`.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    let ctx = context::Ctx {
        profile: cli.profile,
    };
    match cmd::dispatch(&ctx, &cli.command) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("{}", e.line());
            ExitCode::from(1)
        }
    }
}
