//! `sims` — run, check and summarize the CrabPath simulations (reference `sims/*.py`,
//! commit 134c676).
//!
//! ```text
//! sims list
//! sims run    [--profile paper|corrected]... [--sim NAME]... [--seeds N] [--seed S]
//!             [--threads N] [--out DIR] [--shard I/N]
//! sims merge  PARTIAL... [--out DIR]
//! sims check  [--dir DIR] [--profile ...]... [--sim NAME]... [--threads N]
//!             [--fresh-dir DIR] [--update]
//! sims claims [--dir DIR] [--profile ...]...
//! sims v2 run|check [--data-dir DIR] ...   (seed 000 experiments, results/v2)
//! sims autotune [--seeds N] [--out DIR]  (brain-death recovery, autotuner applied)
//! sims v2 compare --graph G.json --scenario S.jsonl [--top-k 8 --max-hops 3] [--out R.json]
//! sims scaling [--sizes N,N,...] [--series NAME]... [--queries Q] [--batch B]
//!             [--warmup W] [--seed S] [--out FILE]
//! ```
//! Files are `<DIR>/<profile>/<sim>.json` (default DIR `results/sims`), in Python
//! `json.dumps(indent=2)` format so that paper-profile files diff cleanly against the
//! reference's `<sim>_results.json`. With `--shard I/N`, `run` writes the partial file
//! `<DIR>/shard-I-of-N.json` instead, and `merge` turns all N partials into the files a
//! single run writes (see `sims::shard`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use serde_json::Value;

use sims::predicate;
use sims::runner::{self, ClaimRow};
use sims::scaling::{self, Family};
use sims::scenarios::{self, RUN_ALL_ORDER};
use sims::shard::{self, Shard};
use sims::sim::{Profile, Simulation, PAPER_SEED};

/// Heap bytes per edge in the scaling study are counted by this allocator.
#[global_allocator]
static ALLOC: sims::alloc::Counting = sims::alloc::Counting;

/// Default `--seeds`: the committed corrected results are a 200-seed run.
const DEFAULT_SEEDS: u64 = 200;

#[derive(Parser, Debug)]
#[command(
    name = "sims",
    version,
    about = "The 15 CrabPath simulations: exact paper reproduction (profile `paper`) and corrected multi-seed runs (profile `corrected`)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum ProfileArg {
    /// Bit-for-bit the reference v11.2.1 (seed 42).
    Paper,
    /// The reference's bugs fixed; RNG-built scenarios over `--seeds` seeds.
    Corrected,
}

impl From<ProfileArg> for Profile {
    fn from(p: ProfileArg) -> Self {
        match p {
            ProfileArg::Paper => Profile::Paper,
            ProfileArg::Corrected => Profile::Corrected,
        }
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the simulations (registry order: the reference's run_all order first) with
    /// the paper section, tables and figures each backs.
    List,
    /// Run simulations, write `<out>/<profile>/<sim>.json`, print the claims table.
    Run {
        /// Profile(s) to run; repeat for both (default: paper and corrected).
        #[arg(long, value_enum)]
        profile: Vec<ProfileArg>,
        /// Simulation(s) to run by name, e.g. `deploy_pipeline`; repeatable (default: all).
        #[arg(long = "sim", value_name = "NAME")]
        sims: Vec<String>,
        /// Number of seeds (S, S+1, …) for the RNG-dependent sims under the corrected
        /// profile (default 200, the committed `results/sims/corrected`); the paper
        /// profile always uses seed 42.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000))]
        seeds: Option<u64>,
        /// First seed S of the corrected profile's ChaCha8 generators (recorded in
        /// every corrected document); the paper profile always uses 42.
        #[arg(long, default_value_t = PAPER_SEED)]
        seed: u64,
        /// Worker threads (0 = one per core). Results are identical for any value.
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Output directory (files go to `<out>/<profile>/<sim>.json`).
        #[arg(long, default_value = "results/sims")]
        out: PathBuf,
        /// Run only shard I of N (0-based): the seed at position p of every seed list
        /// runs in shard p mod N; writes `<out>/shard-I-of-N.json` for `sims merge`.
        #[arg(long, value_name = "I/N")]
        shard: Option<Shard>,
    },
    /// Combine the partial files of `run --shard I/N` (all N of them) into exactly the
    /// files one `run` with the same options writes, and print the claims table.
    Merge {
        /// The partial files `shard-I-of-N.json`, any order.
        #[arg(required = true, value_name = "PARTIAL")]
        partials: Vec<PathBuf>,
        /// Output directory (files go to `<out>/<profile>/<sim>.json`).
        #[arg(long, default_value = "results/sims")]
        out: PathBuf,
    },
    /// Re-run every stored file (with its own seeds) and compare: exactly, except the
    /// simulation's declared timing fields (by type); corrected claims must have the
    /// predicate shape with consistent `met`. Prints one line per file (`ok`, or each
    /// differing JSON path `stored → fresh`) and a summary; exits 1 on any difference
    /// or missing file. Never writes into `--dir` unless `--update` is given. Besides
    /// `<dir>/<profile>/<sim>.json` (all required), every subdirectory of `<dir>` that
    /// has `paper/` or `corrected/` inside (e.g. a `--seeds 1000` run kept in
    /// `results/sims/seeds-1000`) is checked file by file.
    Check {
        /// Directory holding `<profile>/<sim>.json`.
        #[arg(long, default_value = "results/sims")]
        dir: PathBuf,
        /// Profile(s) to check (default: both).
        #[arg(long, value_enum)]
        profile: Vec<ProfileArg>,
        /// Simulation(s) to check (default: all).
        #[arg(long = "sim", value_name = "NAME")]
        sims: Vec<String>,
        /// Worker threads (0 = one per core).
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Also write every fresh document under this directory, in the layout of
        /// `--dir` (e.g. `out/sims/paper/negation.json`), for inspection or diffing.
        #[arg(long, value_name = "DIR")]
        fresh_dir: Option<PathBuf>,
        /// Replace each stored file whose deterministic fields differ from the fresh run
        /// by the fresh document (timing fields alone never trigger a rewrite); exit 0
        /// unless something could not be checked.
        #[arg(long)]
        update: bool,
    },
    /// Print the PASS/FAIL/N-A table of stored results (a flat directory of
    /// reference `<sim>_results.json` or `.json.gz` files, such as
    /// `results/reference/sims`, is accepted too).
    Claims {
        /// Directory holding `<profile>/<sim>.json`, or the reference files.
        #[arg(long, default_value = "results/sims")]
        dir: PathBuf,
        /// Profile(s) to show (default: both).
        #[arg(long, value_enum)]
        profile: Vec<ProfileArg>,
    },
    /// Brain-death recovery with the autotuner applied vs suggestions only (issue 31
    /// item 3; corrected profile, seeds 42…): writes `<out>/autotune/brain_death_autotune.json`
    /// (see sims::autotune_study) and prints its claim; `check` re-runs it.
    Autotune {
        /// Number of seeds (the committed file: 200).
        #[arg(long, default_value_t = sims::autotune_study::SEEDS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(2..=100_000))]
        seeds: usize,
        /// Results directory.
        #[arg(long, default_value = "results/sims")]
        out: PathBuf,
    },
    /// The CrabPath paper's own experiments (seed 000 Tables 3, 4, 6, 7 and the
    /// corrected-vs-myopic study) on the v2 engine: run, check, or compare any graph.
    V2 {
        #[command(subcommand)]
        command: V2Command,
    },
    /// The scaling study: scaling_analysis extended to 10^6 nodes (corrected profile).
    /// Per graph size: time per traversal (median of batch means), nodes fired and
    /// edges touched (counted by the engine), heap bytes per edge; log-log slopes.
    /// Writes one JSON file (see sims::scaling for its fields); builds one graph at a
    /// time (peak resident memory: 10^6 nodes ≈ 1.5 GB, 10^7 ≈ 12.5 GB).
    Scaling {
        /// Graph sizes in nodes, comma-separated, ascending (default
        /// 50,100,250,500,1000,2000,10000,100000,1000000).
        #[arg(long, value_delimiter = ',', value_name = "N,N,...")]
        sizes: Vec<usize>,
        /// Series to run, repeatable: scaling_analysis, uniform8, powerlaw8 (default: all).
        #[arg(long = "series", value_name = "NAME", value_parser = parse_family)]
        series: Vec<Family>,
        /// Timed queries per graph (each from a uniformly drawn start node).
        #[arg(long, default_value_t = 20_000)]
        queries: usize,
        /// Queries per timed batch (must divide --queries).
        #[arg(long, default_value_t = 100)]
        batch: usize,
        /// Untimed warm-up queries per graph.
        #[arg(long, default_value_t = 2_000)]
        warmup: usize,
        /// Seed of the graphs and of the query start nodes.
        #[arg(long, default_value_t = PAPER_SEED)]
        seed: u64,
        /// Output file (default beside, never over, the committed measurement in
        /// `results/scaling/`; pass `--out results/scaling/scaling.json` to publish one).
        #[arg(long, default_value = "out/scaling/scaling.json")]
        out: PathBuf,
    },
}

/// `sims v2 …`.
#[derive(Subcommand, Debug)]
enum V2Command {
    /// Run the eight four-arm comparisons and the deploy simulation (each profile) and
    /// the corrected-vs-myopic study; write `<out>/<profile>/<experiment>.json.gz`,
    /// `<out>/<profile>/deploy_simulation.json` and `<out>/corrected_vs_myopic.json.gz`.
    Run {
        /// Profile(s) to run; repeat for both (default: paper and corrected; the study
        /// runs with the corrected profile).
        #[arg(long, value_enum)]
        profile: Vec<ProfileArg>,
        /// Seeds of the corrected-vs-myopic study (paired by seed; default 200, the
        /// committed run).
        #[arg(long, default_value_t = sims::v2::STUDY_SEEDS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(2..=100_000))]
        seeds: usize,
        /// Data directory holding `crabpath-v2/` (default: $CRABPATH_DATA_DIR, else
        /// `datasets/` if it holds crabpath-v2/, else ../shared/datasets).
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
        /// Worker threads of the study (0 = one per core). Results are identical for
        /// any value.
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Output directory.
        #[arg(long, default_value = sims::v2::DIR)]
        out: PathBuf,
    },
    /// Re-run every file stored under `--dir` (the study with its stored seed count)
    /// and compare the text exactly; prints `ok` or each differing JSON path
    /// `stored → fresh`, exits 1 on any difference or missing file. Never writes into
    /// `--dir` unless `--update` is given.
    Check {
        /// Directory holding the results.
        #[arg(long, default_value = sims::v2::DIR)]
        dir: PathBuf,
        /// Data directory holding `crabpath-v2/` (as for `run`).
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
        /// Worker threads of the study (0 = one per core).
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Also write every fresh file under this directory, in the layout of `--dir`.
        #[arg(long, value_name = "DIR")]
        fresh_dir: Option<PathBuf>,
        /// Replace each stored file that differs by the fresh one.
        #[arg(long)]
        update: bool,
    },
    /// The four-arm comparison (static, RAG, CrabPath corrected, CrabPath myopic) on
    /// any graph and scenario file: writes the reference runner's JSON document
    /// (`experiment` = the scenario file's stem).
    Compare {
        /// Graph file (the v2 engine's `{"nodes": [...], "edges": [...]}` format).
        #[arg(long, value_name = "G.json")]
        graph: PathBuf,
        /// Scenario file: one JSON object per line with `query`, `reward` and
        /// `expected_answer_fragments`.
        #[arg(long, value_name = "S.jsonl")]
        scenario: PathBuf,
        /// RAG k and number of seed candidates.
        #[arg(long, default_value_t = 8)]
        top_k: usize,
        /// Traversal hops.
        #[arg(long, default_value_t = 3)]
        max_hops: usize,
        /// Engine profile (paper = the reference's behaviour bit for bit).
        #[arg(long, value_enum, default_value = "paper")]
        profile: ProfileArg,
        /// Output file (default: standard output).
        #[arg(long, value_name = "R.json")]
        out: Option<PathBuf>,
    },
}

fn v2(cmd: &V2Command) -> Result<ExitCode> {
    use sims::v2::{self, Checked, Item};
    match cmd {
        V2Command::Run {
            profile,
            seeds,
            data_dir,
            threads,
            out,
        } => {
            let data = v2::data_dir(data_dir.as_deref())?;
            let pool = pool(*threads)?;
            for job in v2::jobs(&profiles(profile)) {
                let doc = pool.install(|| v2::run_job(job, &data, *seeds))?;
                let path = v2::write(out, &job.rel(), &doc)?;
                eprintln!("wrote {}", path.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        V2Command::Check {
            dir,
            data_dir,
            threads,
            fresh_dir,
            update,
        } => {
            let data = v2::data_dir(data_dir.as_deref())?;
            let pool = pool(*threads)?;
            let (mut ok, mut problems, mut checked) = (0usize, 0usize, 0usize);
            // The tables' rows and their expected values (results/v2/expected.json).
            for p in v2::expected_problems() {
                println!("{p}");
                problems += 1;
            }
            for job in v2::jobs(&Profile::ALL) {
                let path = dir.join(job.rel());
                let at = path.display();
                if !path.exists() {
                    println!("{at}: missing file");
                    problems += 1;
                    continue;
                }
                checked += 1;
                let stored = runner::read_text(&path)?;
                let seeds = match job.item {
                    Item::Study => {
                        let doc: Value = serde_json::from_str(&stored)
                            .with_context(|| format!("parsing {at}"))?;
                        v2::stored_seeds(&doc).with_context(|| format!("{at}"))?
                    }
                    _ => v2::STUDY_SEEDS,
                };
                let fresh = pool.install(|| v2::run_job(job, &data, seeds))?;
                if let Some(f) = fresh_dir {
                    v2::write(f, &job.rel(), &fresh)?;
                }
                match v2::compare_text(&stored, &fresh).with_context(|| format!("{at}"))? {
                    Checked::Same => {
                        println!("{at}: ok");
                        ok += 1;
                    }
                    Checked::Differs(diffs) => {
                        for d in &diffs {
                            println!("{at}: {d}");
                        }
                        if *update {
                            v2::write(dir, &job.rel(), &fresh)?;
                            println!("{at}: updated from a fresh run");
                        } else {
                            problems += 1;
                        }
                    }
                }
            }
            println!("sims v2 check: {checked} file(s), {ok} ok");
            if problems > 0 {
                println!("{problems} problem(s)");
                Ok(ExitCode::FAILURE)
            } else {
                Ok(ExitCode::SUCCESS)
            }
        }
        V2Command::Compare {
            graph,
            scenario,
            top_k,
            max_hops,
            profile,
            out,
        } => {
            if *top_k == 0 {
                bail!("--top-k must be at least 1");
            }
            if let Some(p) = out {
                pyformat::io::check_output("--out", p)?;
            }
            let g = crabpath_v2::load_graph(graph)?;
            let s = crabpath_v2::load_scenarios(scenario)?;
            let stem = scenario
                .file_stem()
                .and_then(|x| x.to_str())
                .unwrap_or("experiment")
                .to_string();
            let opts = crabpath_v2::CompareOptions {
                top_k: *top_k,
                max_hops: *max_hops,
                config: crabpath_v2::EngineConfig::for_profile(Profile::from(*profile)),
                trace: false,
            };
            let doc = crabpath_v2::experiments::compare(&g, &stem, &s, &opts)
                .result
                .to_json();
            let text = v2::text(&doc);
            match out {
                Some(p) => {
                    runner::write_atomic(p, &text)?;
                    eprintln!("wrote {}", p.display());
                }
                None => println!("{text}"),
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn parse_family(s: &str) -> Result<Family, String> {
    Family::parse(s).ok_or_else(|| {
        let names: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
        format!("unknown series `{s}`; known: {}", names.join(", "))
    })
}

fn scaling_study(opts: &scaling::Options, out: &Path) -> Result<ExitCode> {
    // before minutes of measuring: a new path or a regular file, outside brains
    pyformat::io::check_output("--out", out)?;
    let total = (opts.sizes.len() * opts.families.len()) as u64;
    let bar = indicatif::ProgressBar::new(total);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} graphs  {msg}")
            .context("progress bar template")?,
    );
    let study = scaling::run(opts, |family, n| {
        bar.set_message(format!("{} at {n} nodes", family.name()));
        bar.inc(1);
    })?;
    bar.finish_and_clear();
    let mut text = serde_json::to_string_pretty(&study).context("serializing the study")?;
    text.push('\n');
    runner::write_atomic(out, &text)?;
    eprintln!("wrote {}", out.display());
    println!(
        "{:<17} {:>9} {:>10} {:>8} {:>9} {:>8}",
        "series", "nodes", "median µs", "fired", "touched", "B/edge"
    );
    for s in &study.series {
        for r in &s.rows {
            println!(
                "{:<17} {:>9} {:>10.3} {:>8.2} {:>9.1} {:>8}",
                s.name,
                r.nodes,
                r.time.median_ns / 1000.0,
                r.nodes_fired_mean,
                r.edges_touched_mean,
                r.bytes_per_edge.map_or("-".into(), |b| format!("{b:.1}"))
            );
        }
        let f = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.3}"));
        println!(
            "{:<17} log-log slope: time {} (≥1000 nodes: {}), work {}, fired {}; time largest/1000 = {}",
            s.name,
            f(s.fit.time_slope),
            f(s.fit.time_slope_from_1000),
            f(s.fit.work_slope),
            f(s.fit.fired_slope),
            f(s.fit.time_ratio_largest_vs_1000)
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn profiles(args: &[ProfileArg]) -> Vec<Profile> {
    if args.is_empty() {
        Profile::ALL.to_vec()
    } else {
        let mut out: Vec<Profile> = Vec::new();
        for &a in args {
            let p = Profile::from(a);
            if !out.contains(&p) {
                out.push(p);
            }
        }
        out
    }
}

fn select(names: &[String]) -> Result<Vec<&'static dyn Simulation>> {
    let all = scenarios::registry();
    if names.is_empty() {
        return Ok(all);
    }
    let mut out: Vec<&'static dyn Simulation> = Vec::new();
    for n in names {
        let n = n.strip_suffix("_results").unwrap_or(n);
        match scenarios::find(n) {
            Some(s) if !out.iter().any(|o| o.name() == s.name()) => out.push(s),
            Some(_) => {}
            None => bail!(
                "unknown simulation `{n}`; known: {}",
                all.iter().map(|s| s.name()).collect::<Vec<_>>().join(", ")
            ),
        }
    }
    // Keep registry order whatever the command-line order.
    out.sort_by_key(|s| all.iter().position(|a| a.name() == s.name()));
    Ok(out)
}

fn pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("building the worker thread pool")
}

fn list() {
    let rows: Vec<(&str, bool, String, &str)> = scenarios::registry()
        .iter()
        .map(|s| {
            let card = s.card();
            (s.name(), s.uses_rng(), card.paper_ref(), card.description)
        })
        .collect();
    let w_name = rows.iter().map(|r| r.0.len()).max().unwrap_or(3).max(3);
    let w_ref = rows
        .iter()
        .map(|r| r.2.chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    println!(
        "{:<w_name$}  {:<3}  {:<w_ref$}  description",
        "sim", "rng", "paper"
    );
    for (name, rng, paper_ref, description) in &rows {
        let pad = w_ref.saturating_sub(paper_ref.chars().count());
        println!(
            "{name:<w_name$}  {:<3}  {paper_ref}{}  {description}",
            if *rng { "yes" } else { "no" },
            " ".repeat(pad),
        );
    }
}

#[allow(clippy::too_many_arguments)]
fn run(
    profile: &[ProfileArg],
    sims: &[String],
    seeds: Option<u64>,
    seed: u64,
    threads: usize,
    out: &Path,
    shard: Option<Shard>,
) -> Result<ExitCode> {
    let sims = select(sims)?;
    let profiles = profiles(profile);
    let given = seeds.is_some();
    let seeds = usize::try_from(seeds.unwrap_or(DEFAULT_SEEDS)).context("--seeds too large")?;
    if given && seeds > 1 && !profiles.contains(&Profile::Corrected) {
        eprintln!("note: --seeds applies to the corrected profile only; paper runs use seed 42");
    }
    let multi = seeds > 1 && sims.iter().any(|s| s.uses_rng());
    let pool = pool(threads)?;
    if let Some(shard) = shard {
        let params = shard::Params {
            profiles: profiles.clone(),
            sims: sims.iter().map(|s| s.name().to_string()).collect(),
            seeds,
            seed,
        };
        let partial = pool.install(|| shard::run_shard(&params, shard, multi))?;
        let path = shard::partial_path(out, shard);
        let text = serde_json::to_string(&partial).context("serializing the partial result")?;
        runner::write_atomic(&path, &text)?;
        eprintln!("wrote {} (shard {shard})", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    let outputs = pool.install(|| {
        runner::execute(
            &sims,
            &profiles,
            |s, p| runner::seeds_from(s, p, seeds, seed),
            multi,
        )
    })?;
    write_and_table(&outputs, out)
}

fn write_and_table(outputs: &[runner::Output], out: &Path) -> Result<ExitCode> {
    let mut rows = Vec::new();
    for o in outputs {
        let path = runner::write_output(out, o)?;
        eprintln!("wrote {}", path.display());
        rows.push(runner::claim_row(o.sim, o.profile.as_str(), Some(&o.doc)));
    }
    runner::print_claims(&rows);
    Ok(ExitCode::SUCCESS)
}

fn merge(partials: &[PathBuf], out: &Path) -> Result<ExitCode> {
    let docs = partials
        .iter()
        .map(|p| Ok((p.clone(), runner::read_json(p)?)))
        .collect::<Result<Vec<_>>>()?;
    let outputs = shard::merge(&docs)?;
    write_and_table(&outputs, out)
}

/// The result sets `check` looks at: `dir` itself (every selected file required) and
/// each subdirectory holding `paper/` or `corrected/` (files present only).
fn result_sets(dir: &Path) -> Result<Vec<(PathBuf, bool)>> {
    let mut sets = vec![(dir.to_path_buf(), true)];
    if !dir.is_dir() {
        return Ok(sets);
    }
    let mut extra: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("listing {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir() && Profile::ALL.iter().any(|pr| p.join(pr.as_str()).is_dir()))
        .collect();
    extra.sort();
    sets.extend(extra.into_iter().map(|p| (p, false)));
    Ok(sets)
}

/// What `check` does besides comparing.
struct CheckOutput<'a> {
    /// Where fresh documents are written (same layout as the checked directory).
    fresh_dir: Option<&'a Path>,
    /// Replace stored files whose deterministic fields differ from a fresh run.
    update: bool,
}

fn check(
    dir: &Path,
    profile: &[ProfileArg],
    sims: &[String],
    threads: usize,
    output: CheckOutput,
) -> Result<ExitCode> {
    let every_sim = sims.is_empty();
    let sims = select(sims)?;
    let profiles = profiles(profile);
    let mut problems = 0usize;
    // The cards' rows and their expected values (results/sims/expected.json).
    for p in scenarios::expected_problems() {
        println!("{p}");
        problems += 1;
    }
    let (mut differing, mut updated) = (0usize, 0usize);
    let mut stored: Vec<(&'static dyn Simulation, Profile, PathBuf, Value)> = Vec::new();
    for (set, required) in result_sets(dir)? {
        for &p in &profiles {
            for &s in &sims {
                let path = runner::output_path(&set, p, s.name());
                if !path.exists() {
                    if required {
                        println!("{}: missing file", path.display());
                        problems += 1;
                    }
                    continue;
                }
                match runner::read_json(&path) {
                    Ok(doc) => stored.push((s, p, path, doc)),
                    Err(e) => {
                        println!("{}: {e:#}", path.display());
                        problems += 1;
                    }
                }
            }
        }
    }
    let pool = pool(threads)?;
    for (sim, profile, path, doc) in &stored {
        let at = path.display();
        if *profile == Profile::Corrected {
            for p in predicate::validate(doc) {
                println!("{at}: {p}");
                problems += 1;
            }
        }
        let seeds = match runner::stored_seeds(*profile, doc) {
            Ok(s) => s,
            Err(e) => {
                println!("{at}: {e:#}");
                problems += 1;
                continue;
            }
        };
        let fresh =
            pool.install(|| runner::execute(&[*sim], &[*profile], |_, _| seeds.clone(), false))?;
        let fresh = fresh.into_iter().next().context("internal: no output")?;
        let text = sims::pyjson::to_string(&fresh.doc);
        if let Some(fresh_dir) = output.fresh_dir {
            let rel = path.strip_prefix(dir).unwrap_or(path);
            runner::write_atomic(&fresh_dir.join(rel), &text)?;
        }
        let diffs = runner::diff(*sim, *profile, doc, &fresh.doc);
        if diffs.is_empty() {
            println!("{at}: ok");
            continue;
        }
        differing += 1;
        for d in &diffs {
            println!("{at}: {d}");
        }
        if output.update {
            runner::write_atomic(path, &text)?;
            println!("{at}: updated from a fresh run");
            updated += 1;
        } else {
            problems += diffs.len();
        }
    }
    // the autotune study (corrected profile, all sims): re-run and compared exactly
    if every_sim && profiles.contains(&Profile::Corrected) {
        problems += autotune_check(dir)?;
    }
    println!(
        "sims check: {} file(s), {} ok, {differing} differ{}",
        stored.len(),
        stored.len() - differing,
        if output.update {
            format!(", {updated} updated")
        } else {
            String::new()
        }
    );
    if problems > 0 {
        println!("{problems} problem(s)");
        Ok(ExitCode::FAILURE)
    } else {
        Ok(ExitCode::SUCCESS)
    }
}

/// `sims autotune`: runs the study and writes it.
fn autotune_run(seeds: usize, out: &Path) -> Result<ExitCode> {
    let study = sims::autotune_study::run(seeds)?;
    let path = out.join(sims::autotune_study::FILE);
    runner::write_atomic(&path, &sims::autotune_study::text(&study)?)?;
    println!("{}: {}", path.display(), study.claim.note);
    Ok(ExitCode::SUCCESS)
}

/// The autotune study's part of `sims check` (when `dir` holds it): the number of
/// problems printed.
fn autotune_check(dir: &Path) -> Result<usize> {
    let path = dir.join(sims::autotune_study::FILE);
    if !path.exists() {
        return Ok(0);
    }
    let stored = runner::read_text(&path)?;
    let diffs = sims::autotune_study::check(&stored)?;
    for d in &diffs {
        println!("{}: {d}", path.display());
    }
    if diffs.is_empty() {
        println!("{}: ok", path.display());
    }
    Ok(diffs.len())
}

fn claims(dir: &Path, profile: &[ProfileArg]) -> Result<ExitCode> {
    if !dir.is_dir() {
        bail!("{} is not a directory", dir.display());
    }
    // A flat directory of reference files: `<sim>_results.json`, or compressed as in
    // results/reference/sims.
    let flat_file = |d: &Path, name: &str| {
        let plain = d.join(format!("{name}_results.json"));
        if plain.exists() {
            plain
        } else {
            sims::reference::path(d, name)
        }
    };
    let flat = RUN_ALL_ORDER.iter().any(|n| flat_file(dir, n).exists());
    let labels: Vec<(String, PathBuf)> = if flat {
        vec![("reference".into(), dir.to_path_buf())]
    } else {
        profiles(profile)
            .into_iter()
            .map(|p| (p.as_str().to_string(), dir.join(p.as_str())))
            .collect()
    };
    // A flat directory holds the reference program's files: its own simulations only.
    let sims = if flat {
        scenarios::reference_group()
    } else {
        scenarios::registry()
    };
    let mut rows: Vec<ClaimRow> = Vec::new();
    for (label, pdir) in &labels {
        for &sim in &sims {
            let path = if flat {
                flat_file(pdir, sim.name())
            } else {
                pdir.join(format!("{}.json", sim.name()))
            };
            if !path.exists() {
                rows.push(runner::claim_row(sim, label, None));
                continue;
            }
            let doc = runner::read_json(&path)?;
            rows.push(runner::claim_row(sim, label, Some(&doc)));
        }
    }
    // the autotune study (issue 31 item 3), a corrected-profile study beside the sims
    let study = dir.join(sims::autotune_study::FILE);
    if !flat && labels.iter().any(|(l, _)| l == "corrected") && study.exists() {
        let doc: sims::autotune_study::Study = serde_json::from_str(&runner::read_text(&study)?)
            .with_context(|| format!("parsing {}", study.display()))?;
        rows.push(sims::autotune_study::claim_row(&doc));
    }
    runner::print_claims(&rows);
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    #[cfg(unix)]
    // SAFETY: restores the default SIGPIPE disposition at start-up, before any thread
    // exists, so that output piped into `head` ends the process quietly (as Unix tools
    // do) instead of panicking in `println!`.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::List => {
            list();
            Ok(ExitCode::SUCCESS)
        }
        Command::Run {
            profile,
            sims,
            seeds,
            seed,
            threads,
            out,
            shard,
        } => run(profile, sims, *seeds, *seed, *threads, out, *shard),
        Command::Merge { partials, out } => merge(partials, out),
        Command::Check {
            dir,
            profile,
            sims,
            threads,
            fresh_dir,
            update,
        } => check(
            dir,
            profile,
            sims,
            *threads,
            CheckOutput {
                fresh_dir: fresh_dir.as_deref(),
                update: *update,
            },
        ),
        Command::Claims { dir, profile } => claims(dir, profile),
        Command::V2 { command } => v2(command),
        Command::Autotune { seeds, out } => autotune_run(*seeds, out),
        Command::Scaling {
            sizes,
            series,
            queries,
            batch,
            warmup,
            seed,
            out,
        } => {
            let defaults = scaling::Options::default();
            let opts = scaling::Options {
                sizes: if sizes.is_empty() {
                    defaults.sizes
                } else {
                    sizes.clone()
                },
                families: if series.is_empty() {
                    defaults.families
                } else {
                    series.clone()
                },
                queries: *queries,
                batch: *batch,
                warmup: *warmup,
                seed: *seed,
            };
            scaling_study(&opts, out)
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
