//! Splitting a (multi-seed) run into shards for an external scheduler (Slurm array
//! jobs, GNU parallel, Kubernetes Jobs) and merging the partial results.
//!
//! **Assignment.** Every (sim, profile) group has a seed list (see
//! [`crate::runner::seeds_from`]); the seed at *position* `p` of a list (0-based) is run
//! by shard `p mod N` (round robin, so every shard gets about the same number of seeds
//! of every sim). Single-seed groups (the paper profile, deterministic sims) therefore
//! all run in shard 0.
//!
//! **Partial file** (`<out>/shard-<I>-of-<N>.json`, compact JSON): the format tag
//! `sims_partial`, `shard`, `shards`, the run `parameters` (profiles, sims, `seeds`,
//! base `seed`, crate version) and per group its `sim`, `profile`, `seed_count`, the
//! `positions` and `seeds` this shard ran and their full per-seed `documents`.
//!
//! **Merge** checks that the partials are shards `0..N` of one run (same `shards`, same
//! parameters, each shard once), that every position of every group is covered exactly
//! once with the seed the parameters imply, and then aggregates exactly as a
//! single-machine run does, so the merged files are byte-identical to it (timing fields
//! of scaling_analysis aside, which differ between any two runs).
//!
//! The partial file is an exchange format between `sims shard` and `sims merge`, not a
//! result document (`report` never reads it): its three small `json!` builders wrap the
//! per-seed documents, which are already JSON, without a type of their own.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::{bail, ensure, Context, Result};
use serde_json::{json, Value};

use crate::runner::{self, Group, Output};
use crate::scenarios;
use crate::sim::Profile;

/// Format tag of partial files.
pub const FORMAT: u64 = 1;

/// Shard `index` of `count` (0-based index).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, `0 ≤ index < count`.
    pub index: usize,
    /// Number of shards.
    pub count: usize,
}

impl Shard {
    /// Whether the seed at `position` of a seed list belongs to this shard.
    pub fn takes(&self, position: usize) -> bool {
        position % self.count == self.index
    }
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| format!("`{s}`: expected I/N, e.g. 0/4"))?;
        let index: usize = i
            .trim()
            .parse()
            .map_err(|_| format!("`{i}` is not a shard index"))?;
        let count: usize = n
            .trim()
            .parse()
            .map_err(|_| format!("`{n}` is not a shard count"))?;
        if count == 0 || index >= count {
            return Err(format!("shard {index}/{count}: need 0 <= I < N"));
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The parameters that define a run (and must agree between shards).
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// Profiles, in run order.
    pub profiles: Vec<Profile>,
    /// Sim names, in run order.
    pub sims: Vec<String>,
    /// `--seeds`.
    pub seeds: usize,
    /// `--seed` (base seed of the corrected profile).
    pub seed: u64,
}

impl Params {
    fn to_json(&self) -> Value {
        json!({
            "profiles": self.profiles.iter().map(|p| p.as_str()).collect::<Vec<_>>(),
            "sims": self.sims,
            "seeds": self.seeds,
            "seed": self.seed,
            "sims_version": env!("CARGO_PKG_VERSION"),
        })
    }

    /// The groups (and seed lists) of the run these parameters define.
    pub fn groups(&self) -> Result<Vec<Group>> {
        let sims = self
            .sims
            .iter()
            .map(|n| scenarios::find(n).with_context(|| format!("unknown simulation `{n}`")))
            .collect::<Result<Vec<_>>>()?;
        Ok(runner::plan(&sims, &self.profiles, |s, p| {
            runner::seeds_from(s, p, self.seeds, self.seed)
        }))
    }
}

/// `<out>/shard-<I>-of-<N>.json`.
pub fn partial_path(out: &Path, shard: Shard) -> PathBuf {
    out.join(format!("shard-{}-of-{}.json", shard.index, shard.count))
}

/// Runs this shard's seeds of the run `params` defines; returns the partial document.
pub fn run_shard(params: &Params, shard: Shard, progress: bool) -> Result<Value> {
    let groups = params.groups()?;
    let results = runner::run_positions(&groups, |p| shard.takes(p), progress)?;
    let runs: Vec<Value> = groups
        .iter()
        .zip(results)
        .map(|(g, docs)| {
            json!({
                "sim": g.sim.name(),
                "profile": g.profile.as_str(),
                "seed_count": g.seeds.len(),
                "positions": docs.iter().map(|d| d.0).collect::<Vec<_>>(),
                "seeds": docs.iter().map(|d| g.seeds[d.0]).collect::<Vec<_>>(),
                "documents": docs.into_iter().map(|d| d.1).collect::<Vec<_>>(),
            })
        })
        .collect();
    Ok(json!({
        "sims_partial": FORMAT,
        "shard": shard.index,
        "shards": shard.count,
        "parameters": params.to_json(),
        "runs": runs,
    }))
}

fn parse_params(v: &Value) -> Result<Params> {
    let strings = |k: &str| -> Result<Vec<String>> {
        v.get(k)
            .and_then(Value::as_array)
            .with_context(|| format!("parameters.{k} is not a list"))?
            .iter()
            .map(|x| {
                x.as_str()
                    .map(String::from)
                    .with_context(|| format!("parameters.{k}: {x} is not a string"))
            })
            .collect()
    };
    let profiles = strings("profiles")?
        .iter()
        .map(|p| match p.as_str() {
            "paper" => Ok(Profile::Paper),
            "corrected" => Ok(Profile::Corrected),
            other => bail!("parameters.profiles: unknown profile `{other}`"),
        })
        .collect::<Result<Vec<_>>>()?;
    let num = |k: &str| {
        v.get(k)
            .and_then(Value::as_u64)
            .with_context(|| format!("parameters.{k} is not a non-negative integer"))
    };
    Ok(Params {
        profiles,
        sims: strings("sims")?,
        seeds: usize::try_from(num("seeds")?).context("parameters.seeds too large")?,
        seed: num("seed")?,
    })
}

/// Merges partial documents (with the paths they came from, for messages) into the
/// outputs a single-machine run of the same parameters produces.
pub fn merge(partials: &[(PathBuf, Value)]) -> Result<Vec<Output>> {
    ensure!(!partials.is_empty(), "no partial files given");
    let (first_path, first) = &partials[0];
    let shards = first
        .get("shards")
        .and_then(Value::as_u64)
        .with_context(|| format!("{}: no `shards` count", first_path.display()))?;
    let parameters = first
        .get("parameters")
        .with_context(|| format!("{}: no `parameters`", first_path.display()))?;
    let params = parse_params(parameters)
        .with_context(|| format!("{}: bad parameters", first_path.display()))?;
    let mut seen: BTreeMap<u64, &Path> = BTreeMap::new();
    for (path, doc) in partials {
        let at = path.display();
        ensure!(
            doc.get("sims_partial").and_then(Value::as_u64) == Some(FORMAT),
            "{at}: not a sims partial file (format {FORMAT})"
        );
        ensure!(
            doc.get("shards").and_then(Value::as_u64) == Some(shards),
            "{at}: shard count {} differs from {} in {}",
            doc.get("shards").map_or("none".into(), Value::to_string),
            shards,
            first_path.display()
        );
        ensure!(
            doc.get("parameters") == Some(parameters),
            "{at}: parameters {} differ from {} in {}",
            doc.get("parameters")
                .map_or("none".into(), Value::to_string),
            parameters,
            first_path.display()
        );
        let shard = doc
            .get("shard")
            .and_then(Value::as_u64)
            .filter(|&s| s < shards)
            .with_context(|| format!("{at}: bad shard index"))?;
        if let Some(other) = seen.insert(shard, path) {
            bail!(
                "shard {shard}/{shards} given twice: {} and {at}",
                other.display()
            );
        }
    }
    let missing: Vec<String> = (0..shards)
        .filter(|s| !seen.contains_key(s))
        .map(|s| format!("{s}/{shards}"))
        .collect();
    ensure!(
        missing.is_empty(),
        "missing shard(s): {}",
        missing.join(", ")
    );

    let groups = params.groups()?;
    let mut slots: Vec<Vec<Option<Value>>> =
        groups.iter().map(|g| vec![None; g.seeds.len()]).collect();
    for (path, doc) in partials {
        let at = path.display();
        let runs = doc
            .get("runs")
            .and_then(Value::as_array)
            .with_context(|| format!("{at}: no `runs` list"))?;
        ensure!(
            runs.len() == groups.len(),
            "{at}: {} runs, the parameters define {}",
            runs.len(),
            groups.len()
        );
        for (i, (run, g)) in runs.iter().zip(&groups).enumerate() {
            let name = format!("{}/{}", g.profile, g.sim.name());
            ensure!(
                run.get("sim").and_then(Value::as_str) == Some(g.sim.name())
                    && run.get("profile").and_then(Value::as_str) == Some(g.profile.as_str()),
                "{at}: runs[{i}] is not {name}"
            );
            let list = |k: &str| {
                run.get(k)
                    .and_then(Value::as_array)
                    .with_context(|| format!("{at}: runs[{i}] ({name}) has no `{k}` list"))
            };
            let (positions, seeds, docs) = (list("positions")?, list("seeds")?, list("documents")?);
            ensure!(
                positions.len() == seeds.len() && seeds.len() == docs.len(),
                "{at}: {name}: positions, seeds and documents differ in length"
            );
            for ((p, s), d) in positions.iter().zip(seeds).zip(docs) {
                let p = p
                    .as_u64()
                    .and_then(|p| usize::try_from(p).ok())
                    .filter(|&p| p < g.seeds.len())
                    .with_context(|| format!("{at}: {name}: bad position {p}"))?;
                ensure!(
                    s.as_u64() == Some(g.seeds[p]),
                    "{at}: {name}: position {p} has seed {s}, the parameters imply {}",
                    g.seeds[p]
                );
                ensure!(
                    slots[i][p].is_none(),
                    "{at}: {name}: seed {} (position {p}) is covered twice",
                    g.seeds[p]
                );
                slots[i][p] = Some(d.clone());
            }
        }
    }
    groups
        .iter()
        .zip(slots)
        .map(|(g, slot)| {
            let missing: Vec<String> = slot
                .iter()
                .enumerate()
                .filter(|(_, d)| d.is_none())
                .map(|(p, _)| g.seeds[p].to_string())
                .collect();
            ensure!(
                missing.is_empty(),
                "{}/{}: seed(s) {} covered by no partial",
                g.profile,
                g.sim.name(),
                missing.join(", ")
            );
            runner::finish(g, slot.into_iter().flatten().collect())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_shards() {
        assert_eq!("1/4".parse::<Shard>(), Ok(Shard { index: 1, count: 4 }));
        assert!("4/4".parse::<Shard>().is_err());
        assert!("0/0".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
        let s = Shard { index: 2, count: 3 };
        let taken: Vec<usize> = (0..10).filter(|&p| s.takes(p)).collect();
        assert_eq!(taken, [2, 5, 8]);
    }
}
