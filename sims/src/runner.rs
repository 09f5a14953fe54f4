//! Running simulations: job planning, parallel (multi-seed) execution, aggregation,
//! atomic output files, re-run checks and the claims table.
//!
//! Output layout: `<out>/<profile>/<name>.json` (e.g.
//! `results/sims/paper/deploy_pipeline.json`), where `<name>` is the reference file stem
//! without the `_results` suffix; contents in Python `json.dumps(indent=2)` format
//! ([`crate::pyjson`]), so `diff results/sims/paper/negation.json
//! <reference>/negation_results.json` is empty for a matching sim.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use indexmap::IndexMap;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use results::sims::{MultiSeed, SeedMetric};
use serde_json::Value;

use crate::claims::{self, Verdict};
use crate::compare::{self, Difference};
use crate::predicate::{self, Claim};
use crate::pyjson;
use crate::sim::{Profile, Simulation, PAPER_SEED};
use crate::stats;

/// The seeds a (sim, profile) pair is run with: `[42]` for the paper profile; for the
/// corrected profile `base` alone, or `base, base + 1, …, base + seeds − 1` when the sim
/// uses the RNG and `seeds > 1`.
pub fn seeds_from(sim: &dyn Simulation, profile: Profile, seeds: usize, base: u64) -> Vec<u64> {
    match profile {
        Profile::Paper => vec![PAPER_SEED],
        _ if sim.uses_rng() && seeds > 1 => (0..seeds as u64).map(|i| base + i).collect(),
        _ => vec![base],
    }
}

/// [`seeds_from`] with the default base seed 42.
pub fn seeds_for(sim: &dyn Simulation, profile: Profile, seeds: usize) -> Vec<u64> {
    seeds_from(sim, profile, seeds, PAPER_SEED)
}

/// The finished document of one (sim, profile).
#[derive(Debug, Clone)]
pub struct Output {
    /// The simulation.
    pub sim: &'static dyn Simulation,
    /// The profile it ran under.
    pub profile: Profile,
    /// Its JSON document (aggregated if it ran over several seeds).
    pub doc: Value,
}

/// One (sim, profile) and its seed list.
#[derive(Debug, Clone)]
pub struct Group {
    /// The simulation.
    pub sim: &'static dyn Simulation,
    /// The profile.
    pub profile: Profile,
    /// Its seeds, in order; a seed's index in this list is its *position*.
    pub seeds: Vec<u64>,
}

/// The groups of a run, profiles outer, sims inner (the order of the output files).
pub fn plan(
    sims: &[&'static dyn Simulation],
    profiles: &[Profile],
    seed_lists: impl Fn(&dyn Simulation, Profile) -> Vec<u64>,
) -> Vec<Group> {
    let mut groups = Vec::new();
    for &profile in profiles {
        for &sim in sims {
            groups.push(Group {
                sim,
                profile,
                seeds: seed_lists(sim, profile),
            });
        }
    }
    groups
}

/// Runs the seed positions of every group for which `take(position)` holds, on the
/// current rayon pool; returns per group the `(position, document)` pairs in position
/// order (independent of the thread count).
pub fn run_positions(
    groups: &[Group],
    take: impl Fn(usize) -> bool,
    progress: bool,
) -> Result<Vec<Vec<(usize, Value)>>> {
    let jobs: Vec<(usize, usize)> = groups
        .iter()
        .enumerate()
        .flat_map(|(g, group)| (0..group.seeds.len()).map(move |p| (g, p)))
        .filter(|&(_, p)| take(p))
        .collect();
    let bar = if progress {
        let bar =
            ProgressBar::with_draw_target(Some(jobs.len() as u64), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} runs {msg}",
        ) {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    let results: Vec<Result<Value>> = jobs
        .par_iter()
        .map(|&(g, p)| {
            let Group { sim, profile, .. } = &groups[g];
            let seed = groups[g].seeds[p];
            let r = sim
                .run(*profile, seed)
                .with_context(|| format!("{} ({profile}, seed {seed}) failed", sim.name()));
            bar.inc(1);
            r
        })
        .collect();
    bar.finish_and_clear();
    let mut out: Vec<Vec<(usize, Value)>> = vec![Vec::new(); groups.len()];
    for (&(g, p), r) in jobs.iter().zip(results) {
        out[g].push((p, r?));
    }
    Ok(out)
}

/// The output document of a group from its per-seed documents (in seed order): the
/// document itself for one seed, else [`aggregate`].
pub fn finish(group: &Group, docs: Vec<Value>) -> Result<Output> {
    if docs.len() != group.seeds.len() {
        bail!(
            "{} ({}): {} documents for {} seeds",
            group.sim.name(),
            group.profile,
            docs.len(),
            group.seeds.len()
        );
    }
    let doc = if docs.len() == 1 {
        docs.into_iter()
            .next()
            .context("internal: missing result")?
    } else {
        aggregate(group.sim, &group.seeds, docs)?
    };
    Ok(Output {
        sim: group.sim,
        profile: group.profile,
        doc,
    })
}

/// Runs every (sim, profile) with its seed list on the current rayon pool, then
/// aggregates multi-seed runs. Per-seed results are collected in seed order before
/// aggregation, so the output does not depend on the thread count.
pub fn execute(
    sims: &[&'static dyn Simulation],
    profiles: &[Profile],
    seed_lists: impl Fn(&dyn Simulation, Profile) -> Vec<u64>,
    progress: bool,
) -> Result<Vec<Output>> {
    let groups = plan(sims, profiles, seed_lists);
    let results = run_positions(&groups, |_| true, progress)?;
    groups
        .iter()
        .zip(results)
        .map(|(g, docs)| finish(g, docs.into_iter().map(|(_, d)| d).collect()))
        .collect()
}

fn metric_value(doc: &Value, pointer: &str) -> Option<f64> {
    match doc.pointer(pointer)? {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        _ => None,
    }
}

/// Combines the per-seed documents of a multi-seed run: the first seed's document
/// (seed 42, the paper's graph) plus a trailing `multi_seed` object ([`MultiSeed`]) with
/// the seeds, every headline metric's per-seed values, mean, sample std and 95 %
/// t-interval ([`stats::summarize`]), each seed's claim verdict and the share of seeds
/// whose claim holds (`null` when no seed has a checkable claim).
pub fn aggregate(sim: &dyn Simulation, seeds: &[u64], docs: Vec<Value>) -> Result<Value> {
    let mut metrics = IndexMap::new();
    for m in sim.headline() {
        let values: Vec<Option<f64>> = docs.iter().map(|d| metric_value(d, m.pointer)).collect();
        let present: Vec<f64> = values.iter().flatten().copied().collect();
        let s = stats::summarize(&present);
        metrics.insert(
            m.name.to_string(),
            SeedMetric {
                pointer: m.pointer.to_string(),
                values,
                n: s.n,
                mean: s.mean,
                std: s.std,
                ci95_low: s.ci95_low,
                ci95_high: s.ci95_high,
            },
        );
    }
    let verdicts: Vec<Verdict> = docs.iter().map(claims::verdict).collect();
    let checkable = verdicts
        .iter()
        .filter(|v| **v != Verdict::NotApplicable)
        .count();
    let holds = verdicts.iter().filter(|v| **v == Verdict::Pass).count();
    let multi = MultiSeed {
        seeds: seeds.to_vec(),
        document_seed: seeds.first().copied(),
        interval: "95% Student-t interval of the mean: mean ± t(0.975, n-1)·std/sqrt(n); std \
                   is the sample standard deviation (n-1)"
            .into(),
        metrics,
        claim_verdicts: verdicts.iter().map(|v| v.as_str().to_string()).collect(),
        claim_holds_share: (checkable > 0).then(|| holds as f64 / checkable as f64),
        series: None,
    };
    let mut base = docs.into_iter().next().context("aggregate: no documents")?;
    let Value::Object(map) = &mut base else {
        bail!("{}: document is not a JSON object", sim.name());
    };
    map.insert("multi_seed".into(), serde_json::to_value(&multi)?);
    Ok(base)
}

/// `<dir>/<profile>/<name>.json`.
pub fn output_path(dir: &Path, profile: Profile, name: &str) -> PathBuf {
    dir.join(profile.as_str()).join(format!("{name}.json"))
}

/// Writes `text` to `path` with the workspace's atomic write ([`pyformat::io::write_atomic`]:
/// temporary file in the same directory, fsync, rename, fsync of the directory),
/// creating the directory first if needed.
pub fn write_atomic(path: &Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    pyformat::io::write_atomic(path, text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))
}

/// Reads a text file, decompressing it when its name ends in `.gz`.
pub fn read_text(path: &Path) -> Result<String> {
    let bytes = fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let bytes = if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(bytes.as_slice())
            .read_to_end(&mut out)
            .with_context(|| format!("decompressing {}", path.display()))?;
        out
    } else {
        bytes
    };
    String::from_utf8(bytes).with_context(|| format!("{} is not UTF-8", path.display()))
}

/// Reads and parses a stored result file (`.json`, or `.json.gz`).
pub fn read_json(path: &Path) -> Result<Value> {
    let text = read_text(path)?;
    serde_json::from_str(&text).with_context(|| format!("parsing {} as JSON", path.display()))
}

/// The seeds a stored document was produced with: `[42]` for the paper profile, else
/// `multi_seed.seeds`, else the document's `seed`, else `[42]`.
pub fn stored_seeds(profile: Profile, doc: &Value) -> Result<Vec<u64>> {
    if profile == Profile::Paper {
        return Ok(vec![PAPER_SEED]);
    }
    match doc.pointer("/multi_seed/seeds") {
        None => match doc.get("seed") {
            None => Ok(vec![PAPER_SEED]),
            Some(v) => Ok(vec![v
                .as_u64()
                .with_context(|| format!("seed is not a seed: {v}"))?]),
        },
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_u64()
                    .with_context(|| format!("multi_seed.seeds[{i}] is not a seed: {v}"))
            })
            .collect(),
        Some(other) => bail!("multi_seed.seeds is not a list: {}", compare::render(other)),
    }
}

/// One row of the claims table.
#[derive(Debug, Clone)]
pub struct ClaimRow {
    /// Sim file stem.
    pub name: String,
    /// Profile label (`paper`, `corrected`, or `reference` for a flat directory).
    pub profile: String,
    /// Verdict, or `None` when the file is missing; for a multi-seed document the
    /// verdict over the seeds (`PASS` only when the claim holds in every seed).
    pub verdict: Option<Verdict>,
    /// A multi-seed document's own verdict, with its seed (the row's verdict is then
    /// over the seeds).
    pub document_seed: Option<(u64, Verdict)>,
    /// Measured value (summary column).
    pub measured: String,
    /// The paper's number.
    pub paper: String,
    /// Seeds over which the claim holds, for multi-seed documents.
    pub seed_share: Option<String>,
    /// Why the verdict is not PASS (or what is missing).
    pub note: String,
}

/// The multi-seed aggregate of a document, if it has one.
pub fn multi_seed(doc: &Value) -> Option<MultiSeed> {
    serde_json::from_value(doc.get("multi_seed")?.clone()).ok()
}

/// The claims-table row of `sim`'s document under the label `profile` (`None`: the
/// file is missing).
pub fn claim_row(sim: &dyn Simulation, profile: &str, doc: Option<&Value>) -> ClaimRow {
    let card = sim.card();
    let name = sim.name();
    let paper = card.paper_values();
    let Some(doc) = doc else {
        return ClaimRow {
            name: name.into(),
            profile: profile.into(),
            verdict: None,
            document_seed: None,
            measured: "-".into(),
            paper,
            seed_share: None,
            note: "result file missing".into(),
        };
    };
    // the document's verdict: its one run (for a multi-seed document, its seed's)
    let verdict = claims::verdict(doc);
    let claim = predicate::claim_of(doc);
    let multi = multi_seed(doc);
    let measured = match &claim {
        Some(c) => claim_measured(c, multi.as_ref()),
        None => sim.measured(doc),
    };
    let seed_share = multi.as_ref().map(|m| {
        let (pass, n) = m.claim_holds();
        format!("{pass}/{n} seeds")
    });
    let note = match (verdict, &claim) {
        (Verdict::Pass, _) => String::new(),
        (Verdict::Fail, Some(c)) => format!(
            "not met: {}",
            c.predicates()
                .iter()
                .filter(|p| !p.met)
                .map(|p| p.metric.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        ),
        (v, _) => match card.reference_note.filter(|_| card.reference_verdict == v) {
            Some(r) => r.to_string(),
            None if v == Verdict::Fail => {
                format!("false: {}", claims::false_claims(doc).join(", "))
            }
            None => "no boolean inside `claim` (or no `claim` key)".into(),
        },
    };
    let (verdict, document_seed) = match &multi {
        Some(m) => (
            Verdict::parse(m.claim_verdict()),
            Some((m.document_seed.unwrap_or(PAPER_SEED), verdict)),
        ),
        None => (verdict, None),
    };
    ClaimRow {
        name: name.into(),
        profile: profile.into(),
        verdict: Some(verdict),
        document_seed,
        measured,
        paper,
        seed_share,
        note,
    }
}

/// The measured column of a claim: `value cmp threshold` per predicate, or for a
/// multi-seed document `mean [95 % CI] cmp threshold` from the headline metric that
/// reads the predicate's value (the document seed's value when there is none).
pub fn claim_measured(claim: &Claim, multi: Option<&MultiSeed>) -> String {
    let n = |v: Option<f64>| v.map_or("?".into(), predicate::short);
    let parts: Vec<String> = claim
        .predicates()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let pointer = claim.value_pointer(i);
            let agg = multi.and_then(|m| m.metrics.values().find(|x| x.pointer == pointer));
            let value = match agg {
                Some(m) if m.ci95_low.is_some() => {
                    format!("{} [{}, {}]", n(m.mean), n(m.ci95_low), n(m.ci95_high))
                }
                Some(m) => n(m.mean),
                None => n(p.value.as_f64()),
            };
            format!("{value} {} {}", p.comparison, n(p.threshold.as_f64()))
        })
        .collect();
    parts.join("; ")
}

/// Prints the claims table.
pub fn print_claims(rows: &[ClaimRow]) {
    let w_name = rows.iter().map(|r| r.name.len()).max().unwrap_or(4).max(4);
    let w_meas = rows
        .iter()
        .map(|r| r.measured.chars().count())
        .max()
        .unwrap_or(8)
        .max(8);
    let w_paper = rows
        .iter()
        .map(|r| r.paper.chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    println!(
        "{:<w_name$}  {:<9}  {:<7}  {:<w_meas$}  {:<w_paper$}  note",
        "sim", "profile", "verdict", "measured", "paper"
    );
    for r in rows {
        let verdict = r.verdict.map_or("MISSING", Verdict::as_str);
        let mut note = r.note.clone();
        if let Some(s) = &r.seed_share {
            let seeds = match r.document_seed {
                Some((seed, v)) => format!("claim holds in {s} (document seed {seed}: {v})"),
                None => format!("claim holds in {s}"),
            };
            note = if note.is_empty() {
                seeds
            } else {
                format!("{seeds}; {note}")
            };
        }
        println!(
            "{:<w_name$}  {:<9}  {:<7}  {:<w_meas$}  {:<w_paper$}  {}",
            r.name,
            r.profile,
            verdict,
            pad(&r.measured, w_meas),
            pad(&r.paper, w_paper),
            note
        );
    }
}

fn pad(s: &str, width: usize) -> String {
    let n = s.chars().count();
    format!("{s}{}", " ".repeat(width.saturating_sub(n)))
}

/// Serializes and writes one output file; returns its path.
pub fn write_output(dir: &Path, o: &Output) -> Result<PathBuf> {
    let path = output_path(dir, o.profile, o.sim.name());
    write_atomic(&path, &pyjson::to_string(&o.doc))?;
    Ok(path)
}

/// Compares the stored and a fresh document of `sim` under `profile`, its timing fields
/// by type only; differences prefixed by nothing (callers add the file).
pub fn diff(
    sim: &dyn Simulation,
    profile: Profile,
    stored: &Value,
    fresh: &Value,
) -> Vec<Difference> {
    compare::compare(stored, fresh, sim.timing_fields(profile))
}
