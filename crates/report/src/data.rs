//! Loading the result JSON files, and reading them as the `results` crate's types.
//!
//! A missing file is a *note* (printed, not an error); a file that is not valid JSON, or
//! not a document of the kind its directory holds, is a note too, naming the file and
//! the error. A document is read only through its type ([`Doc::parse`], the bench reports
//! once at load, [`Bench`]): a renderer that meets a document without the fields it
//! needs gets an error naming the file and the field, which becomes a skip note.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};
use results::bench::AnyReport;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The simulations' names in registry order (the reference runner's order first):
/// the result file stems (`results/sims/<profile>/<name>.json`). One list, owned by
/// the sims registry.
pub fn sim_names() -> Vec<&'static str> {
    sims::scenarios::registry()
        .iter()
        .map(|s| s.name())
        .collect()
}

/// The two simulation profiles (the core's own type; `as_str` names the result
/// directories).
pub use sims::sim::Profile;

/// Messages about inputs or outputs that were skipped; printed by the binary.
#[derive(Debug, Default, Clone)]
pub struct Notes(pub Vec<String>);

impl Notes {
    /// Records a note.
    pub fn push(&mut self, msg: impl Into<String>) {
        self.0.push(msg.into());
    }
}

/// One loaded JSON document and the file it came from.
#[derive(Debug, Clone)]
pub struct Doc {
    /// File name used in error messages (relative to the results directory).
    pub name: String,
    /// The parsed document.
    pub value: Value,
}

impl Doc {
    /// Wraps a value (tests, or documents built in memory).
    pub fn new(name: impl Into<String>, value: Value) -> Self {
        Self {
            name: name.into(),
            value,
        }
    }

    /// The document as a `T` (a type of the `results` crate), or an error naming the file
    /// and what is missing.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T> {
        T::deserialize(&self.value).map_err(|e| anyhow!("{}: {e}", self.name))
    }
}

/// A bench report (`results/bench/*.json`), read once.
#[derive(Debug, Clone)]
pub struct Bench {
    /// The file and its JSON.
    pub doc: Doc,
    /// The report.
    pub report: AnyReport,
}

impl Bench {
    /// Reads `doc` as a bench report.
    pub fn new(doc: Doc) -> Result<Bench> {
        Ok(Bench {
            report: doc.parse()?,
            doc,
        })
    }

    /// The file name.
    pub fn name(&self) -> &str {
        &self.doc.name
    }
}

/// Everything found under a results directory.
#[derive(Debug, Default, Clone)]
pub struct Results {
    /// The results directory.
    pub root: PathBuf,
    /// `(profile, sim) → document`.
    pub sims: BTreeMap<(Profile, String), Doc>,
    /// `file stem → report` for `bench/*.json`, sorted by name.
    pub bench: BTreeMap<String, Bench>,
    /// `file stem → document` for `scaling/*.json` (`sims scaling`), sorted by name.
    pub scaling: BTreeMap<String, Doc>,
    /// `file stem → document` for `repo-bench/*.json.gz` (`bench repo` reports and its
    /// `--graph-out` graph), sorted by name.
    pub repo: BTreeMap<String, Doc>,
    /// `(profile, stem) → document` for the v2 engine's results
    /// (`v2/<profile>/<stem>.json[.gz]`, [`sims::v2`]).
    pub v2: BTreeMap<(Profile, String), Doc>,
    /// The corrected-vs-myopic study (`v2/corrected_vs_myopic.json.gz`).
    pub v2_study: Option<Doc>,
    /// Brain-death recovery with the autotuner applied (`sims/`[`sims::autotune_study::FILE`]).
    pub autotune_study: Option<Doc>,
    /// The peer memories on LoCoMo (`bench/`[`PEERS_FILE`], `bench peers`, issue 29).
    pub peers: Option<Doc>,
}

/// The `bench peers` report, relative to the results directory.
pub const PEERS_FILE: &str = "bench/peers/peers.json";

impl Results {
    /// Reads every known file; absent or unreadable files become notes.
    pub fn load(root: &Path, notes: &mut Notes) -> Self {
        let mut out = Results {
            root: root.to_path_buf(),
            ..Default::default()
        };
        for profile in Profile::ALL {
            let dir = root.join("sims").join(profile.as_str());
            if !dir.is_dir() {
                notes.push(format!(
                    "{}: no such directory; {} simulation figures and table cells skipped",
                    dir.display(),
                    profile.as_str()
                ));
                continue;
            }
            let mut missing = Vec::new();
            for sim in sim_names() {
                let rel = format!("sims/{}/{sim}.json", profile.as_str());
                match read_json(&root.join(&rel)) {
                    Ok(Some(value)) => {
                        out.sims
                            .insert((profile, sim.to_string()), Doc::new(rel, value));
                    }
                    Ok(None) => missing.push(sim),
                    Err(e) => notes.push(format!("{rel}: {e:#}; skipped")),
                }
            }
            if !missing.is_empty() {
                notes.push(format!(
                    "{}: no result for {}; skipped",
                    dir.display(),
                    missing.join(", ")
                ));
            }
        }
        let is_bench = |d: &Doc| d.parse::<AnyReport>().map(|_| ());
        match load_dir(root, "bench", is_bench, notes) {
            Some(docs) => {
                out.bench = docs
                    .into_iter()
                    .filter_map(|(stem, d)| Bench::new(d).ok().map(|b| (stem, b)))
                    .collect()
            }
            None => notes.push(format!(
                "{}: no such directory; benchmark figures and table cells skipped",
                root.join("bench").display()
            )),
        }
        out.load_v2(root, notes);
        match read_json(&root.join(PEERS_FILE)) {
            Ok(Some(v)) => out.peers = Some(Doc::new(PEERS_FILE.to_string(), v)),
            Ok(None) => notes.push(format!(
                "{PEERS_FILE}: not found; the peers figure skipped (run `bench peers`)"
            )),
            Err(e) => notes.push(format!("{PEERS_FILE}: {e:#}; the peers figure skipped")),
        }
        let rel = Path::new("sims").join(sims::autotune_study::FILE);
        match sims::runner::read_json(&root.join(&rel)) {
            Ok(v) => out.autotune_study = Some(Doc::new(rel.display().to_string(), v)),
            Err(e) => notes.push(format!("{e:#}; the brain-death autotune block skipped")),
        }
        let is_study = |d: &Doc| d.parse::<results::scaling::Study>().map(|_| ());
        match load_dir(root, "scaling", is_study, notes) {
            Some(docs) => out.scaling = docs,
            None => notes.push(format!(
                "{}: no such directory; scaling study figure skipped (run `sims scaling`)",
                root.join("scaling").display()
            )),
        }
        let is_repo = |d: &Doc| {
            d.parse::<results::repo::Report>().map(|_| ()).or_else(|e| {
                d.parse::<results::repo::GraphDoc>()
                    .map(|_| ())
                    .map_err(|_| e)
            })
        };
        match load_dir(root, "repo-bench", is_repo, notes) {
            Some(docs) => out.repo = docs,
            None => notes.push(format!(
                "{}: no such directory; repository benchmark tables and figure skipped \
                 (results/repo-bench/regenerate.sh)",
                root.join("repo-bench").display()
            )),
        }
        out
    }

    /// Reads the v2 group's files ([`sims::v2::jobs`]); absent ones become one note.
    fn load_v2(&mut self, root: &Path, notes: &mut Notes) {
        let dir = root.join("v2");
        let mut missing = Vec::new();
        for job in sims::v2::jobs(&Profile::ALL) {
            let rel = Path::new("v2").join(job.rel());
            let name = rel.display().to_string();
            let path = root.join(&rel);
            if !path.exists() {
                missing.push(job.rel().display().to_string());
                continue;
            }
            let value = sims::runner::read_json(&path);
            match (value, job.item) {
                (Ok(v), sims::v2::Item::Study) => self.v2_study = Some(Doc::new(name, v)),
                (Ok(v), sims::v2::Item::FourArm(stem)) => {
                    self.v2
                        .insert((job.profile, stem.to_string()), Doc::new(name, v));
                }
                (Ok(v), sims::v2::Item::DeploySim) => {
                    self.v2.insert(
                        (job.profile, sims::v2::DEPLOY_SIM.to_string()),
                        Doc::new(name, v),
                    );
                }
                (Err(e), _) => notes.push(format!("{name}: {e:#}; skipped")),
            }
        }
        if !missing.is_empty() {
            notes.push(format!(
                "{}: no result for {}; skipped (run `sims v2 run`)",
                dir.display(),
                missing.join(", ")
            ));
        }
    }

    /// A v2 result (`v2/<profile>/<stem>…`).
    pub fn v2(&self, profile: Profile, stem: &str) -> Option<&Doc> {
        self.v2.get(&(profile, stem.to_string()))
    }

    /// The document of a simulation under a profile.
    pub fn sim(&self, profile: Profile, sim: &str) -> Option<&Doc> {
        self.sims.get(&(profile, sim.to_string()))
    }
}

/// JSON files under the results directory that are not results: the bench regression
/// expectations (`bench check` reads them) and the paper's numbers of the benchmark
/// tables (compiled into [`crate::tables::bench`] and [`crate::tables::repo`]).
const NOT_RESULTS: [&str; 3] = [
    "bench/expectations.json",
    "bench/expected.json",
    "repo-bench/expected.json",
];

/// Every `<root>/<sub>/<stem>.json` (or `<stem>.json.gz`, gzip-compressed) that
/// `accept` reads as its type, by stem (sorted); `None` when the directory does not
/// exist. Unreadable, invalid or unrecognised files become notes.
fn load_dir(
    root: &Path,
    sub: &str,
    accept: impl Fn(&Doc) -> Result<()>,
    notes: &mut Notes,
) -> Option<BTreeMap<String, Doc>> {
    let entries = fs::read_dir(root.join(sub)).ok()?;
    let mut files: Vec<(String, PathBuf)> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?;
            let stem = name
                .strip_suffix(".json")
                .or_else(|| name.strip_suffix(".json.gz"))?;
            Some((stem.to_string(), p))
        })
        .collect();
    files.sort();
    let mut docs = BTreeMap::new();
    for (stem, path) in files {
        let rel = format!(
            "{sub}/{}",
            path.file_name().unwrap_or_default().to_string_lossy()
        );
        if NOT_RESULTS.contains(&rel.as_str()) {
            continue;
        }
        match read_json(&path) {
            Ok(Some(value)) => {
                let doc = Doc::new(rel.clone(), value);
                match accept(&doc) {
                    Ok(()) => {
                        docs.insert(stem, doc);
                    }
                    Err(e) => notes.push(format!("{rel}: not a {sub} result ({e:#}); skipped")),
                }
            }
            Ok(None) => {}
            Err(e) => notes.push(format!("{rel}: {e:#}; skipped")),
        }
    }
    Some(docs)
}

/// `Ok(None)` when the file does not exist; a name ending in `.gz` is gunzipped.
fn read_json(path: &Path) -> Result<Option<Value>> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(anyhow!("cannot read: {e}")),
    };
    let bytes = if path.extension().is_some_and(|x| x == "gz") {
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut out)
            .map_err(|e| anyhow!("cannot gunzip: {e}"))?;
        out
    } else {
        bytes
    };
    let text = String::from_utf8(bytes).map_err(|e| anyhow!("not UTF-8: {e}"))?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| anyhow!("invalid JSON: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parse_names_the_file_and_the_field() {
        #[derive(Debug, serde::Deserialize)]
        struct T {
            #[allow(dead_code)]
            a: Vec<f64>,
        }
        let d = Doc::new("x.json", json!({"a": [1, 2.5], "s": "t"}));
        assert_eq!(d.parse::<T>().map(|t| t.a.len()).ok(), Some(2));
        let e = Doc::new("x.json", json!({"b": 1}))
            .parse::<T>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("x.json") && e.contains("`a`"), "{e}");
    }

    #[test]
    fn load_tolerates_missing_and_invalid_files() {
        let dir = tempfile::tempdir().unwrap();
        let paper = dir.path().join("sims/paper");
        fs::create_dir_all(&paper).unwrap();
        fs::write(paper.join("negation.json"), "{not json").unwrap();
        fs::write(paper.join("edge_damping.json"), "{\"claim\": {}}").unwrap();
        let mut notes = Notes::default();
        let r = Results::load(dir.path(), &mut notes);
        assert_eq!(r.sims.len(), 1);
        let all = notes.0.join("\n");
        assert!(all.contains("negation.json: invalid JSON"), "{all}");
        assert!(all.contains("corrected"), "{all}");
        assert!(all.contains("bench"), "{all}");
    }
}
