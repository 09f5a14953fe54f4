//! The resolved plan every command works with: the profile, how paths are spelled,
//! where the journal is, how states are loaded, locked and saved, and which embedder
//! to use.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use crabpath::embed::Embedder;
use crabpath::graph::Metadata;
use crabpath::{Graph, HashEmbedder, Profile, State, VectorIndex};
use crabpath_brain::lock::StateLock;
use crabpath_brain::reffiles::{read_graph, read_index, EmbedderInfo};
use crabpath_brain::workspace::expanduser;

use crate::args::{EmbedderChoice, LlmChoice, Source};
use crate::error::{reference, CliError, CliResult};

/// The name the reference records for OpenAI embeddings.
pub const OPENAI_EMBEDDER: &str = "openai-text-embedding-3-small";

/// This program's version string (reported by `doctor` and, corrected, `info`).
pub fn version() -> String {
    format!("crabpath {}", env!("CARGO_PKG_VERSION"))
}

/// The plan shared by all commands.
#[derive(Debug, Clone, Copy)]
pub struct Ctx {
    /// Semantics.
    pub profile: Profile,
}

/// What the generic loader found (reference `cli.py::_resolve_graph_index`).
pub struct Loaded {
    /// The graph.
    pub graph: Graph,
    /// The index: a state's (possibly empty), a `--graph`'s `--index`, or none.
    pub index: Option<VectorIndex>,
    /// The state's metadata (empty for `--graph`).
    pub meta: Metadata,
    /// The state file, when loaded from one (the path the command opens).
    pub state_path: Option<PathBuf>,
}

impl Loaded {
    /// The loaded pieces as a state (an absent index is empty).
    pub fn into_state(self) -> State {
        State {
            graph: self.graph,
            index: self.index.unwrap_or_default(),
            meta: self.meta,
        }
    }
}

impl Ctx {
    /// Whether bug fixes are on.
    pub fn fixes(&self) -> bool {
        self.profile.fixes_bugs()
    }

    /// The path a command opens for a `--state` argument: `~` expanded, except in the
    /// paper profile for the commands the reference does not expand it in (every one
    /// but `info`, `doctor` and `daemon`; reference bug A3).
    pub fn state_path(&self, arg: &str, reference_expands: bool) -> PathBuf {
        if reference_expands || self.fixes() {
            expanduser(arg)
        } else {
            PathBuf::from(arg)
        }
    }

    /// The journal of a command (reference `_resolve_journal_path`): beside the
    /// state, else beside (or inside) the graph, else `~/.crabpath/journal.jsonl`.
    pub fn journal(&self, state: Option<&str>, graph: Option<&str>) -> PathBuf {
        crabpath_brain::journal::journal_path(state.map(Path::new), graph.map(Path::new))
    }

    /// The generic loader (`--state` wins over `--graph`; `--index` only with
    /// `--graph`).
    pub fn load(&self, source: &Source, index: Option<&str>) -> CliResult<Loaded> {
        if let Some(s) = &source.state {
            let path = self.state_path(s, false);
            let state = load_state_file(&path)?;
            return Ok(Loaded {
                graph: state.graph,
                index: Some(state.index),
                meta: state.meta,
                state_path: Some(path),
            });
        }
        let Some(g) = &source.graph else {
            return reference("--state or --graph is required");
        };
        let graph = self.load_graph(g)?;
        let index = match index {
            Some(i) => Some(read_index(&expanduser(i)).map_err(|e| CliError::Other(e.into()))?),
            None => None,
        };
        Ok(Loaded {
            graph,
            index,
            meta: Metadata::new(),
            state_path: None,
        })
    }

    /// Reads a `--graph` argument (reference `_load_payload`, `_load_graph`): `~`
    /// expanded, a directory means its `graph.json`, a missing file is the reference's
    /// `missing graph file: <arg>`.
    pub fn load_graph(&self, arg: &str) -> CliResult<Graph> {
        let p = expanduser(arg);
        let file = if p.is_dir() { p.join("graph.json") } else { p };
        if !file.exists() {
            return reference(format!("missing graph file: {arg}"));
        }
        Ok(read_graph(&file).map_err(|e| CliError::Other(e.into()))?.0)
    }

    /// Takes the state's write lock (telling the user if another process holds it).
    pub fn lock(&self, state: &Path) -> CliResult<StateLock> {
        if let Some(dir) = state.parent().filter(|d| !d.as_os_str().is_empty()) {
            if !dir.is_dir() {
                // the load that follows reports the missing file
                return Err(CliError::Other(anyhow::anyhow!(
                    "{}: No such file or directory",
                    state.display()
                )));
            }
        }
        Ok(StateLock::acquire(state, |p| {
            eprintln!(
                "crabpath: waiting for the lock {} (another crabpath process is writing this state)",
                p.display()
            )
        })?)
    }

    /// Saves a state (reference `store.py::save_state` with the loaded meta), keeping
    /// the previous file as `<state>.bak`.
    pub fn save(&self, path: &Path, state: &State) -> CliResult<()> {
        let rendered = crabpath_brain::statefile::render_state(path, state, None, None, None)?;
        pyformat::io::keep_backup(path)?;
        pyformat::io::write_atomic(path, rendered.text.as_bytes())?;
        crate::sidecar::refresh(path, &rendered, &state.index);
        Ok(())
    }

    /// Refuses `--llm openai` (no network access here).
    pub fn check_llm(&self, llm: LlmChoice) -> CliResult<()> {
        match llm {
            LlmChoice::None => Ok(()),
            LlmChoice::Openai => Err(CliError::Other(anyhow::anyhow!(
                "--llm openai is not available: this program works offline (use --llm none, the default)"
            ))),
        }
    }

    /// Whether progress bars may be drawn (stderr is a terminal).
    pub fn progress(&self) -> bool {
        std::io::stderr().is_terminal()
    }
}

/// Loads a state file, through the binary index sidecar when it is current.
pub fn load_state_file(path: &Path) -> CliResult<State> {
    if let Some(st) = crate::sidecar::load(path) {
        return Ok(st);
    }
    crabpath_brain::statefile::load_state(path).map_err(|e| CliError::Other(e.into()))
}

/// Which embedder a command uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// hash-v1.
    Hash,
    /// all-MiniLM-L6-v2.
    Minilm,
}

impl Which {
    /// Name and dimension.
    pub fn info(self) -> EmbedderInfo {
        match self {
            Which::Hash => EmbedderInfo::hash_v1(),
            Which::Minilm => EmbedderInfo {
                name: crabpath_embed::MODEL_NAME.into(),
                dim: crabpath_embed::DIM,
            },
        }
    }

    /// Loads the embedder (MiniLM with the embedding cache).
    pub fn load(self) -> CliResult<Box<dyn Embedder>> {
        Ok(match self {
            Which::Hash => Box::new(HashEmbedder::new()),
            Which::Minilm => {
                let model = crabpath_embed::MiniLmEmbedder::load_default()?;
                Box::new(crabpath_embed::CachedEmbedder::open_default(model)?)
            }
        })
    }
}

/// The embedder rule (reference `cli.py::_resolve_embedder`): the flag if given, else
/// the state's recorded embedder, else hash-v1. OpenAI is refused (offline). In the
/// corrected profile a state built with another embedder (name or dimension) is an
/// error instead of silently mismatched vectors.
pub fn choose_embedder(
    ctx: &Ctx,
    flag: Option<EmbedderChoice>,
    meta: &Metadata,
) -> CliResult<Which> {
    let recorded = meta
        .get("embedder_name")
        .and_then(|v| v.as_str())
        .or_else(|| meta.get("embedder").and_then(|v| v.as_str()));
    let which = match flag {
        Some(EmbedderChoice::Openai) => None,
        Some(EmbedderChoice::Hash) => Some(Which::Hash),
        Some(EmbedderChoice::Minilm) => Some(Which::Minilm),
        None => match recorded {
            Some(OPENAI_EMBEDDER) => None,
            Some(n) if n == crabpath_embed::MODEL_NAME => Some(Which::Minilm),
            _ => Some(Which::Hash),
        },
    };
    let Some(which) = which else {
        return Err(CliError::Other(anyhow::anyhow!(
            "the OpenAI embedder is not available: this program works offline (use --embedder hash or minilm)"
        )));
    };
    if ctx.fixes() {
        if let Some(state) = EmbedderInfo::from_meta(meta) {
            state
                .check_compatible(&which.info())
                .map_err(|e| CliError::Other(e.into()))?;
        }
    }
    Ok(which)
}

/// Reads all of stdin as text.
pub fn read_stdin() -> CliResult<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .context("reading stdin")?;
    String::from_utf8(bytes).map_err(|e| {
        CliError::Other(anyhow::anyhow!(
            "stdin: invalid UTF-8 at byte {}",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// How Python's `pathlib` prints a path: `.` components dropped, no trailing `/`,
/// `.` for an empty path (`./reinit/` → `reinit`).
pub fn pathlib_str(p: &Path) -> String {
    use std::path::Component;
    let mut parts: Vec<String> = Vec::new();
    let mut absolute = false;
    for c in p.components() {
        match c {
            Component::RootDir => absolute = true,
            Component::CurDir => {}
            Component::Prefix(x) => parts.push(x.as_os_str().to_string_lossy().into_owned()),
            Component::ParentDir => parts.push("..".into()),
            Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
        }
    }
    let body = parts.join("/");
    match (absolute, body.is_empty()) {
        (true, _) => format!("/{body}"),
        (false, true) => ".".into(),
        (false, false) => body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pathlib_rendering() {
        assert_eq!(pathlib_str(Path::new("./reinit/")), "reinit");
        assert_eq!(
            pathlib_str(&Path::new(".").join("graph.json")),
            "graph.json"
        );
        assert_eq!(pathlib_str(Path::new("a/./b//c")), "a/b/c");
        assert_eq!(pathlib_str(Path::new("/x/")), "/x");
        assert_eq!(pathlib_str(Path::new("")), ".");
        assert_eq!(pathlib_str(Path::new("../a")), "../a");
    }
}
