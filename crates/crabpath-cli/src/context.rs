//! The resolved plan every command works with: the profile, how paths are spelled,
//! where the journal is, how states are loaded, locked and saved, and which embedder
//! to use.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use crabpath::embed::Embedder;
use crabpath::graph::Metadata;
use crabpath::{Graph, HashEmbedder, Profile};
use crabpath_brain::reference::reffiles::{read_graph, EmbedderInfo};
use crabpath_brain::source::workspace::expanduser;
use crabpath_brain::{locate, Brain, Location, OpenOptions};

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
        crabpath_brain::reference::journal::journal_path(state.map(Path::new), graph.map(Path::new))
    }

    /// Where a `--state`/`--graph` pair points (`--state` wins; `--index` only with
    /// `--graph`): the reference's missing-graph message when neither file exists.
    pub fn location(&self, source: &Source, index: Option<&str>) -> CliResult<Location> {
        if let Some(s) = &source.state {
            return Ok(locate(&self.state_path(s, false)));
        }
        let Some(g) = &source.graph else {
            return reference("--state or --graph is required");
        };
        let p = expanduser(g);
        let file = if p.is_dir() { p.join("graph.json") } else { p };
        if !file.exists() {
            return reference(format!("missing graph file: {g}"));
        }
        Ok(Location::Graph {
            graph: file,
            index: index.map(expanduser),
        })
    }

    /// Opens a brain for a command (see [`crabpath_brain::OpenOptions`]).
    pub fn open(&self, location: Location, write: bool) -> CliResult<Brain> {
        let mut options = self.options(crabpath_brain::reference::reffiles::GraphShape::Bare);
        options.write = write;
        Ok(Brain::open(location, options)?)
    }

    /// The open options of a command.
    pub fn options(
        &self,
        shape: crabpath_brain::reference::reffiles::GraphShape<'static>,
    ) -> OpenOptions {
        let mut options = OpenOptions::new(self.profile);
        options.graph_shape = shape;
        options.on_lock_wait = Some(std::sync::Arc::new(|p: &Path| {
            eprintln!(
                "crabpath: waiting for the lock {} (another crabpath process is writing this state)",
                p.display()
            )
        }));
        options
    }

    /// Opens a brain for writing; a graph file is written back in `shape`.
    pub fn open_with_shape(
        &self,
        location: Location,
        shape: crabpath_brain::reference::reffiles::GraphShape<'static>,
    ) -> CliResult<Brain> {
        Ok(Brain::open(location, self.options(shape))?)
    }

    /// Opens the brain of a `--state`/`--graph` pair.
    pub fn open_source(
        &self,
        source: &Source,
        index: Option<&str>,
        write: bool,
    ) -> CliResult<Brain> {
        let loc = self.location(source, index)?;
        self.open(loc, write)
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

/// Which embedder a command uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// hash-v1.
    Hash,
    /// all-MiniLM-L6-v2.
    Minilm,
    /// all-mpnet-base-v2.
    Mpnet,
}

impl Which {
    /// Name and dimension.
    pub fn info(self) -> EmbedderInfo {
        match self {
            Which::Hash => EmbedderInfo::hash_v1(),
            Which::Minilm | Which::Mpnet => {
                let spec = self.spec().unwrap_or(&crabpath_embed::MINILM);
                EmbedderInfo {
                    name: spec.name.into(),
                    dim: spec.dim,
                }
            }
        }
    }

    /// The model behind a model embedder (`None` for hash-v1).
    pub fn spec(self) -> Option<&'static crabpath_embed::ModelSpec> {
        match self {
            Which::Hash => None,
            Which::Minilm => Some(&crabpath_embed::MINILM),
            Which::Mpnet => Some(&crabpath_embed::MPNET),
        }
    }

    /// A loader of this embedder for a brain ([`crabpath_brain::OpenOptions::embedder`]).
    pub fn loader(self) -> crabpath_brain::service::EmbedderLoader {
        std::sync::Arc::new(move || {
            self.load()
                .map_err(|e| crabpath_brain::Error::Invalid(e.line()))
        })
    }

    /// Loads the embedder (a model with the embedding cache).
    pub fn load(self) -> CliResult<Box<dyn Embedder>> {
        Ok(match self.spec() {
            None => Box::new(HashEmbedder::new()),
            Some(spec) => {
                let model = crabpath_embed::SentenceEmbedder::load_default_spec(spec)?;
                Box::new(crabpath_embed::CachedEmbedder::open_default(model)?)
            }
        })
    }
}

/// The embedder rule (reference `cli.py::_resolve_embedder`): the flag if given, else
/// the brain's recorded embedder, else hash-v1. OpenAI is refused (offline). In the
/// corrected profile a brain (`brain`, its file, named in the error) built with another
/// embedder (name or dimension) is an error instead of silently mismatched vectors.
pub fn choose_embedder(
    ctx: &Ctx,
    flag: Option<EmbedderChoice>,
    meta: &Metadata,
    brain: &Path,
) -> CliResult<Which> {
    let recorded = meta
        .get("embedder_name")
        .and_then(|v| v.as_str())
        .or_else(|| meta.get("embedder").and_then(|v| v.as_str()));
    let which = match flag {
        Some(EmbedderChoice::Openai) => None,
        Some(EmbedderChoice::Hash) => Some(Which::Hash),
        Some(EmbedderChoice::Minilm) => Some(Which::Minilm),
        Some(EmbedderChoice::Mpnet) => Some(Which::Mpnet),
        None => match recorded {
            Some(OPENAI_EMBEDDER) => None,
            Some(n) if n == crabpath_embed::MINILM.name => Some(Which::Minilm),
            Some(n) if n == crabpath_embed::MPNET.name => Some(Which::Mpnet),
            _ => Some(Which::Hash),
        },
    };
    let Some(which) = which else {
        return Err(CliError::Other(anyhow::anyhow!(
            "the OpenAI embedder is not available: this program works offline (use --embedder hash, minilm or mpnet)"
        )));
    };
    if ctx.fixes() {
        if let Some(state) = EmbedderInfo::from_meta(meta) {
            state
                .check_compatible(&which.info(), brain)
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
