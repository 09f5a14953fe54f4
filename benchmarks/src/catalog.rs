//! The dataset files `bench` knows: official upstream files and the staged subsets, with
//! their layout under the data directory, upstream URLs, sizes and SHA-256 checksums.
//!
//! Checksums are of the **uncompressed** content (the convention of `datasets/SHA256SUMS` and
//! of the staged copy's `SHA256SUMS`); a `.gz` copy is verified after decompression.
//! Sources: `datasets/README.md` of this repository (which cites the upstream pages).

use std::fmt;

/// A benchmark dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dataset {
    /// HotPotQA, distractor setting, dev set v1 (Yang et al., 2018). CC BY-SA 4.0.
    HotpotQa,
    /// MultiHop-RAG (Tang & Yang, 2024). ODC-BY 1.0.
    MultihopRag,
}

impl fmt::Display for Dataset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dataset::HotpotQa => "HotPotQA dev distractor v1",
            Dataset::MultihopRag => "MultiHop-RAG",
        })
    }
}

/// Which file of a dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    /// The complete upstream file.
    Full,
    /// HotPotQA: first 103 questions, byte-identical prefix of the dev file (staged).
    First103,
    /// HotPotQA: seeded random sample of 1100 dev questions, in file order (staged).
    Sample1100,
    /// MultiHop-RAG: third-party random sample of 500 queries, in file order (staged).
    Sample500,
    /// MultiHop-RAG: the news-article corpus `corpus.json`.
    Corpus,
}

/// A check on the first bytes of a file whose full checksum is unknown: SHA-256 of
/// `file[..len]` followed by `suffix` must equal `sha256`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrefixCheck {
    /// Number of leading bytes of the file.
    pub len: u64,
    /// Bytes appended after them before hashing.
    pub suffix: &'static [u8],
    /// Expected hex digest.
    pub sha256: &'static str,
    /// What the check establishes, for messages.
    pub note: &'static str,
}

/// A known dataset file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownFile {
    /// Short key used on the command line and in messages (`hotpotqa-first103`, ...).
    pub key: &'static str,
    /// Dataset the file belongs to.
    pub dataset: Dataset,
    /// Which file.
    pub variant: Variant,
    /// Path relative to the data directory (uncompressed name; `.gz` is also looked for).
    pub rel_path: &'static str,
    /// Upstream file name (used with `--url-base`).
    pub upstream_name: &'static str,
    /// Number of rows, if known.
    pub rows: Option<usize>,
    /// Size of the uncompressed file in bytes, if known.
    pub size: Option<u64>,
    /// SHA-256 of the uncompressed content, if known.
    pub sha256: Option<&'static str>,
    /// SHA-256 of the staged `gzip -9 -n` copy, if there is one.
    pub gz_sha256: Option<&'static str>,
    /// Partial verification when `sha256` is unknown.
    pub prefix_check: Option<PrefixCheck>,
    /// Download URLs, tried in order (empty for staged subsets, which are not downloadable).
    pub urls: &'static [&'static str],
    /// Licence of the content.
    pub licence: &'static str,
    /// One-line description (says plainly when the file is a subset).
    pub description: &'static str,
}

impl KnownFile {
    /// `true` for the staged subsets (not the complete upstream file).
    pub fn is_subset(&self) -> bool {
        matches!(
            self.variant,
            Variant::First103 | Variant::Sample1100 | Variant::Sample500
        )
    }

    /// `true` if `bench fetch` can download it.
    pub fn is_fetchable(&self) -> bool {
        !self.urls.is_empty()
    }
}

/// Full HotPotQA dev distractor file (7405 questions, ~46 MB, one line). Its official SHA-256
/// is not published; the download is checked against the staged 103-question prefix instead.
pub const HOTPOTQA_DEV: KnownFile = KnownFile {
    key: "hotpotqa",
    dataset: Dataset::HotpotQa,
    variant: Variant::Full,
    rel_path: "hotpotqa/hotpot_dev_distractor_v1.json",
    upstream_name: "hotpot_dev_distractor_v1.json",
    rows: Some(7405),
    size: None,
    sha256: None,
    gz_sha256: None,
    prefix_check: Some(PrefixCheck {
        len: 665_487,
        suffix: b"]",
        sha256: "a1eed88308c39b4037ac3e44e43fff1f93526288f9d8a7c11f129709e6d31047",
        note: "first 665,487 bytes (questions 0-102) + \"]\" equal the staged first-103 file",
    }),
    urls: &["http://curtis.ml.cmu.edu/datasets/hotpot/hotpot_dev_distractor_v1.json"],
    licence: "CC BY-SA 4.0",
    description: "HotPotQA dev distractor v1, complete (7405 questions)",
};

/// Staged subset: the first 103 questions of the dev file, byte-identical, closed by `]`.
pub const HOTPOTQA_FIRST103: KnownFile = KnownFile {
    key: "hotpotqa-first103",
    dataset: Dataset::HotpotQa,
    variant: Variant::First103,
    rel_path: "hotpotqa/hotpot_dev_distractor_v1.first103.json",
    upstream_name: "hotpot_dev_distractor_v1.json",
    rows: Some(103),
    size: Some(665_488),
    sha256: Some("a1eed88308c39b4037ac3e44e43fff1f93526288f9d8a7c11f129709e6d31047"),
    gz_sha256: Some("16be255fd397085cadf9866349fc462a184fa8f7444d00a05b2cae80194f2c63"),
    prefix_check: None,
    urls: &[],
    licence: "CC BY-SA 4.0",
    description: "HotPotQA dev distractor v1, SUBSET: first 103 of 7405 questions",
};

/// Staged subset: a seeded random sample of 1100 dev questions, sorted in file order.
pub const HOTPOTQA_SAMPLE1100: KnownFile = KnownFile {
    key: "hotpotqa-sample1100",
    dataset: Dataset::HotpotQa,
    variant: Variant::Sample1100,
    rel_path: "hotpotqa/hotpot_dev_distractor_v1.sample1100.json",
    upstream_name: "hotpot_dev_distractor_v1.json",
    rows: Some(1100),
    size: Some(6_817_164),
    sha256: Some("de63c274e4542a032d6c695bd4b46060d130bde4c167b3f95099520105dc0748"),
    gz_sha256: Some("2b7f79bd919903fa0ec7554bbecd0a29524f41ca182b3c19676ee86d62f07360"),
    prefix_check: None,
    urls: &[],
    licence: "CC BY-SA 4.0",
    description:
        "HotPotQA dev distractor v1, SUBSET: random sample of 1100 of 7405 questions (not a prefix)",
};

/// Full MultiHop-RAG queries file (2556 queries). Checksum from the upstream Git LFS pointer.
pub const MULTIHOP_QUERIES: KnownFile = KnownFile {
    key: "multihop-rag",
    dataset: Dataset::MultihopRag,
    variant: Variant::Full,
    rel_path: "multihop_rag/MultiHopRAG.json",
    upstream_name: "MultiHopRAG.json",
    rows: Some(2556),
    size: Some(5_171_312),
    sha256: Some("03cfb4926461f868684903aadc8024447bdda5bb3f6804741424cce338515bff"),
    gz_sha256: None,
    prefix_check: None,
    urls: &[
        "https://huggingface.co/datasets/yixuantt/MultiHopRAG/resolve/main/MultiHopRAG.json",
        "https://media.githubusercontent.com/media/yixuantt/MultiHop-RAG/main/dataset/MultiHopRAG.json",
    ],
    licence: "ODC-BY 1.0",
    description: "MultiHop-RAG queries, complete (2556 queries)",
};

/// Staged subset: 500 MultiHop-RAG queries (third-party random sample), upstream layout.
pub const MULTIHOP_SAMPLE500: KnownFile = KnownFile {
    key: "multihop-rag-sample500",
    dataset: Dataset::MultihopRag,
    variant: Variant::Sample500,
    rel_path: "multihop_rag/MultiHopRAG.sample500.json",
    upstream_name: "MultiHopRAG.json",
    rows: Some(500),
    size: Some(987_140),
    sha256: Some("7ccbe686bc010c3b1e8681a3b165935cf5c0ce68c0afedecb1b0203544f13ee9"),
    gz_sha256: Some("8221a4bdb9214b2d93e42ba4c5a59f74f1d267e386da06ad62ba19392737fdd2"),
    prefix_check: None,
    urls: &[],
    licence: "ODC-BY 1.0",
    description:
        "MultiHop-RAG queries, SUBSET: random sample of 500 of 2556 queries (not a prefix)",
};

/// Full MultiHop-RAG news corpus (609 articles). Checksum from the upstream Git LFS pointer.
pub const MULTIHOP_CORPUS: KnownFile = KnownFile {
    key: "multihop-rag-corpus",
    dataset: Dataset::MultihopRag,
    variant: Variant::Corpus,
    rel_path: "multihop_rag/corpus.json",
    upstream_name: "corpus.json",
    rows: Some(609),
    size: Some(6_785_567),
    sha256: Some("20b61b5ab84de84a927420c5d265b7ec8d859ae49980699958a787ade9e4d28f"),
    gz_sha256: None,
    prefix_check: None,
    urls: &[
        "https://huggingface.co/datasets/yixuantt/MultiHopRAG/resolve/main/corpus.json",
        "https://media.githubusercontent.com/media/yixuantt/MultiHop-RAG/main/dataset/corpus.json",
    ],
    licence: "ODC-BY 1.0",
    description: "MultiHop-RAG news corpus, complete (609 articles)",
};

/// Every known file.
pub const ALL: [&KnownFile; 6] = [
    &HOTPOTQA_DEV,
    &HOTPOTQA_FIRST103,
    &HOTPOTQA_SAMPLE1100,
    &MULTIHOP_QUERIES,
    &MULTIHOP_SAMPLE500,
    &MULTIHOP_CORPUS,
];

/// The known file for `dataset` and `variant`, if that combination exists.
pub fn lookup(dataset: Dataset, variant: Variant) -> Option<&'static KnownFile> {
    ALL.iter()
        .copied()
        .find(|f| f.dataset == dataset && f.variant == variant)
}

/// The known file whose uncompressed SHA-256 is `sha256`, if any.
pub fn by_sha256(sha256: &str) -> Option<&'static KnownFile> {
    ALL.iter()
        .copied()
        .find(|f| f.sha256.is_some_and(|h| h.eq_ignore_ascii_case(sha256)))
}
