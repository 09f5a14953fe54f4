//! `report`: regenerates every figure and table from `results/**/*.json`.
//!
//! ```text
//! report figures [--results results] [--out figures]
//! report tables  [--results results] [--out figures] [--reproduce REPRODUCE.md]
//! report all     [...]   (figures + tables)
//! report check   [...]   (re-render in memory, compare with the committed files)
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Parser, Subcommand};
use report::artifact::{self, Artifact, Managed};
use report::data::Notes;
use report::Paths;

#[derive(Debug, Parser)]
#[command(
    name = "report",
    about = "Figures, tables and REPRODUCE.md from the JSON results"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Render every figure (PNG + gzip-compressed SVG) and its CSV series.
    Figures(Dirs),
    /// Write results/sims/TABLES.md, the table CSVs and REPRODUCE.md's generated blocks.
    Tables(Dirs),
    /// Figures and tables.
    All(Dirs),
    /// Re-render in memory and compare with the files on disk; non-zero exit if stale.
    Check(Dirs),
}

#[derive(Debug, Args)]
struct Dirs {
    /// Directory with sims/{paper,corrected}/*.json, bench/*.json and scaling/*.json.
    #[arg(long, default_value = "results")]
    results: PathBuf,
    /// Output directory for figures and CSVs.
    #[arg(long, default_value = "figures")]
    out: PathBuf,
    /// The REPRODUCE.md whose generated blocks are refreshed.
    #[arg(long, default_value = "REPRODUCE.md")]
    reproduce: PathBuf,
}

impl Dirs {
    fn paths(&self) -> Paths {
        Paths {
            results: self.results.clone(),
            out: self.out.clone(),
            reproduce: self.reproduce.clone(),
        }
    }
}

/// Directories whose figure/CSV files belong to `report figures`.
fn figure_dirs(p: &Paths) -> Vec<Managed> {
    let mut v = Vec::new();
    for d in ["paper", "corrected", "bench", "scaling", "repo", "v2"] {
        v.push(Managed {
            dir: p.out.join(d),
            extensions: &["png", "svg", "svgz"],
        });
        v.push(Managed {
            dir: p.out.join("csv").join(d),
            extensions: &["csv"],
        });
    }
    v
}

/// Directories whose files belong to `report tables`.
fn table_dirs(p: &Paths) -> Vec<Managed> {
    vec![Managed {
        dir: p.out.join("csv").join("tables"),
        extensions: &["csv"],
    }]
}

fn write(label: &str, arts: &[Artifact], managed: &[Managed]) -> Result<()> {
    let (w, same, removed) = artifact::write_all(arts, managed)?;
    println!(
        "{label}: {} files ({w} written, {same} unchanged, {removed} stale removed)",
        arts.len()
    );
    Ok(())
}

fn run(cli: Cli) -> Result<ExitCode> {
    let mut notes = Notes::default();
    let code = match &cli.command {
        Command::Figures(d) => {
            let p = d.paths();
            let arts = report::render_figures(&p, &mut notes)?;
            write("figures", &arts, &figure_dirs(&p))?;
            ExitCode::SUCCESS
        }
        Command::Tables(d) => {
            let p = d.paths();
            let arts = report::render_tables(&p, &mut notes)?;
            write("tables", &arts, &table_dirs(&p))?;
            ExitCode::SUCCESS
        }
        Command::All(d) => {
            let p = d.paths();
            let figs = report::render_figures(&p, &mut notes)?;
            write("figures", &figs, &figure_dirs(&p))?;
            let tabs = report::render_tables(&p, &mut Notes::default())?;
            write("tables", &tabs, &table_dirs(&p))?;
            ExitCode::SUCCESS
        }
        Command::Check(d) => {
            let p = d.paths();
            let mut arts = report::render_figures(&p, &mut notes)?;
            arts.extend(report::render_tables(&p, &mut Notes::default())?);
            let mut managed = figure_dirs(&p);
            managed.extend(table_dirs(&p));
            let stale = artifact::check(&arts, &managed);
            if stale.is_empty() {
                println!("report check: {} files up to date", arts.len());
                ExitCode::SUCCESS
            } else {
                for s in &stale {
                    eprintln!("{s}");
                }
                eprintln!(
                    "report check: {} of {} files stale; run `cargo run -q -p report -- all` and commit",
                    stale.len(),
                    arts.len()
                );
                ExitCode::FAILURE
            }
        }
    };
    for n in &notes.0 {
        eprintln!("note: {n}");
    }
    Ok(code)
}

fn main() -> ExitCode {
    #[cfg(unix)]
    // SAFETY: restores the default SIGPIPE disposition at start-up, before any thread
    // exists, so that output piped into `head` ends the process quietly (as Unix tools
    // do) instead of panicking in `println!`.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    match run(Cli::parse()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("report: {e:#}");
            ExitCode::from(2)
        }
    }
}
