//! The dataset files `bench` knows: official upstream files and the staged subsets, with
//! their layout under the data directory, upstream URLs and sizes.
//!
//! Checksums have one home, `datasets/SHA256SUMS`, which this module embeds at build time
//! ([`SHA256SUMS`]) and reads by path ([`recorded_sha256`]): a checksum is added or changed
//! there and nowhere else. They are of the **uncompressed** content; a `.gz` copy is verified
//! after decompression (the `.gz` lines record the staged copies as stored).
//! Sources: `datasets/README.md` of this repository (which cites the upstream pages).

use std::fmt;

use clap::ValueEnum;

use crate::data::{hotpotqa, multihop};

/// A benchmark dataset (`--dataset`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ValueEnum)]
pub enum Dataset {
    /// HotPotQA, distractor setting, dev set v1 (Yang et al., 2018). CC BY-SA 4.0.
    #[value(name = "hotpotqa")]
    HotpotQa,
    /// MultiHop-RAG (Tang & Yang, 2024). ODC-BY 1.0.
    #[value(name = "multihop-rag")]
    MultihopRag,
    /// LoCoMo, long-term conversational memory (Maharana et al., ACL 2024). CC BY-NC 4.0:
    /// evaluated with, never committed ([`crate::locomo`]).
    #[value(name = "locomo")]
    Locomo,
}

impl Dataset {
    /// Short name used on the command line and in file names (`hotpotqa`, `multihop-rag`,
    /// `locomo`).
    pub fn slug(self) -> &'static str {
        match self {
            Dataset::HotpotQa => "hotpotqa",
            Dataset::MultihopRag => "multihop-rag",
            Dataset::Locomo => "locomo",
        }
    }

    /// Name the reference program writes in its output (`HotPotQA`, `MultiHop-RAG`); the
    /// dataset's own spelling (`LoCoMo`) for the datasets the reference never ran.
    pub fn reference_name(self) -> &'static str {
        match self {
            Dataset::HotpotQa => "HotPotQA",
            Dataset::MultihopRag => "MultiHop-RAG",
            Dataset::Locomo => "LoCoMo",
        }
    }

    /// Learning-curve checkpoints of the reference (`CHECKPOINTS` of its scripts); none for
    /// LoCoMo, which the reference never ran.
    pub fn checkpoints(self) -> &'static [usize] {
        match self {
            Dataset::HotpotQa => &hotpotqa::CHECKPOINTS,
            Dataset::MultihopRag => &multihop::CHECKPOINTS,
            Dataset::Locomo => &[],
        }
    }

    /// Default `--limit` of the reference script (`DEFAULT_LIMIT`; 0 = all rows).
    pub fn default_limit(self) -> usize {
        match self {
            Dataset::HotpotQa => hotpotqa::DEFAULT_LIMIT,
            Dataset::MultihopRag => multihop::DEFAULT_LIMIT,
            Dataset::Locomo => 0,
        }
    }

    /// The metric whose value 1 makes a query's learning outcome +1 (else −1), as the
    /// reference's `_run_learning`: HotPotQA `sp_recall_at_10`, MultiHop-RAG `full_hit_rate`.
    /// LoCoMo: `partial_hit_rate`, i.e. +1 when an evidence turn fires
    /// ([`crate::locomo`]).
    pub fn outcome_metric(self) -> &'static str {
        match self {
            Dataset::HotpotQa => "sp_recall_at_10",
            Dataset::MultihopRag => "full_hit_rate",
            Dataset::Locomo => "partial_hit_rate",
        }
    }
}

impl fmt::Display for Dataset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dataset::HotpotQa => "HotPotQA dev distractor v1",
            Dataset::MultihopRag => "MultiHop-RAG",
            Dataset::Locomo => "LoCoMo (locomo10)",
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

/// `datasets/SHA256SUMS`: `<hex digest>  <path relative to the data directory>` lines and
/// `#` comments, embedded at build time.
pub const SHA256SUMS: &str = include_str!("../../datasets/SHA256SUMS");

/// The SHA-256 that [`SHA256SUMS`] records for `rel_path` (a path relative to the data
/// directory, e.g. `hotpotqa/hotpot_dev_distractor_v1.first103.json`). Cost: one pass over
/// the list (a few dozen lines).
pub fn recorded_sha256(rel_path: &str) -> Option<&'static str> {
    sha256sums_entries()
        .find(|&(_, p)| p == rel_path)
        .map(|(h, _)| h)
}

/// Every `(digest, path)` entry of [`SHA256SUMS`], in file order (comments and blank lines
/// skipped; a line is `<digest>  <path>`, the format `sha256sum -c` reads).
pub fn sha256sums_entries() -> impl Iterator<Item = (&'static str, &'static str)> {
    SHA256SUMS
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once("  "))
}

/// `--variant`: which file of a dataset to look for in the data directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ValueEnum)]
pub enum VariantArg {
    /// The complete upstream file.
    Full,
    /// HotPotQA staged subset: the first 103 questions (byte-identical prefix).
    First103,
    /// HotPotQA staged subset: seeded random sample of 1100 questions.
    Sample1100,
    /// MultiHop-RAG staged subset: random sample of 500 queries.
    Sample500,
}

impl VariantArg {
    /// The catalogue's variant.
    pub fn variant(self) -> Variant {
        match self {
            VariantArg::Full => Variant::Full,
            VariantArg::First103 => Variant::First103,
            VariantArg::Sample1100 => Variant::Sample1100,
            VariantArg::Sample500 => Variant::Sample500,
        }
    }

    /// The `--variant` value of a known file (`None` for the MultiHop-RAG corpus).
    pub fn of(variant: Variant) -> Option<VariantArg> {
        match variant {
            Variant::Full => Some(VariantArg::Full),
            Variant::First103 => Some(VariantArg::First103),
            Variant::Sample1100 => Some(VariantArg::Sample1100),
            Variant::Sample500 => Some(VariantArg::Sample500),
            Variant::Corpus => None,
        }
    }

    /// The command-line spelling (`full`, `first103`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            VariantArg::Full => "full",
            VariantArg::First103 => "first103",
            VariantArg::Sample1100 => "sample1100",
            VariantArg::Sample500 => "sample500",
        }
    }
}

/// The known file of `dataset` selected by `--variant`, or a usage error naming the
/// variants that exist.
pub fn known_file(dataset: Dataset, variant: VariantArg) -> crate::Result<&'static KnownFile> {
    lookup(dataset, variant.variant()).ok_or_else(|| {
        crate::Error::Usage(format!(
            "--variant {} does not exist for {dataset}; HotPotQA has full, first103, \
             sample1100; MultiHop-RAG has full, sample500; LoCoMo has full",
            variant.as_str()
        ))
    })
}

/// A check on the first bytes of a file whose full checksum is unknown: SHA-256 of
/// `file[..len]` followed by `suffix` must equal the recorded checksum of the file
/// `equals` (a path relative to the data directory).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrefixCheck {
    /// Number of leading bytes of the file.
    pub len: u64,
    /// Bytes appended after them before hashing.
    pub suffix: &'static [u8],
    /// The file whose recorded SHA-256 the prefix plus suffix must have.
    pub equals: &'static str,
    /// What the check establishes, for messages.
    pub note: &'static str,
}

impl PrefixCheck {
    /// Expected hex digest: the recorded checksum of [`PrefixCheck::equals`].
    pub fn sha256(&self) -> Option<&'static str> {
        recorded_sha256(self.equals)
    }
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
    /// Partial verification when no checksum is recorded.
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

    /// SHA-256 of the uncompressed content, if `datasets/SHA256SUMS` records one.
    pub fn sha256(&self) -> Option<&'static str> {
        recorded_sha256(self.rel_path)
    }

    /// SHA-256 of the staged `gzip -9 -n` copy, if `datasets/SHA256SUMS` records one.
    pub fn gz_sha256(&self) -> Option<&'static str> {
        let gz = format!("{}.gz", self.rel_path);
        recorded_sha256(&gz)
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
    prefix_check: Some(PrefixCheck {
        len: 665_487,
        suffix: b"]",
        equals: "hotpotqa/hotpot_dev_distractor_v1.first103.json",
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
    prefix_check: None,
    urls: &[
        "https://huggingface.co/datasets/yixuantt/MultiHopRAG/resolve/main/corpus.json",
        "https://media.githubusercontent.com/media/yixuantt/MultiHop-RAG/main/dataset/corpus.json",
    ],
    licence: "ODC-BY 1.0",
    description: "MultiHop-RAG news corpus, complete (609 articles)",
};

/// LoCoMo's public release file `data/locomo10.json` (10 conversations, 1,986 questions),
/// from snap-research/LoCoMo at commit 3eb6f2c (the file was last changed in cbfbc1d).
/// Checksum recorded in `datasets/SHA256SUMS` (`datasets/README.md`, "LoCoMo").
pub const LOCOMO: KnownFile = KnownFile {
    key: "locomo",
    dataset: Dataset::Locomo,
    variant: Variant::Full,
    rel_path: "locomo/locomo10.json",
    upstream_name: "locomo10.json",
    rows: Some(10),
    size: Some(2_805_274),
    prefix_check: None,
    urls: &["https://raw.githubusercontent.com/snap-research/LoCoMo/\
             3eb6f2c585f5e1699204e3c3bdf7adc5c28cb376/data/locomo10.json"],
    licence: "CC BY-NC 4.0 (evaluation and research use; never commit the data)",
    description: "LoCoMo locomo10.json, complete (10 conversations, 1,986 questions)",
};

/// Every known file.
pub const ALL: [&KnownFile; 7] = [
    &HOTPOTQA_DEV,
    &HOTPOTQA_FIRST103,
    &HOTPOTQA_SAMPLE1100,
    &MULTIHOP_QUERIES,
    &MULTIHOP_SAMPLE500,
    &MULTIHOP_CORPUS,
    &LOCOMO,
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
        .find(|f| f.sha256().is_some_and(|h| h.eq_ignore_ascii_case(sha256)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sha256sums_line_is_a_digest_and_a_path() {
        let mut paths = std::collections::BTreeSet::new();
        for line in SHA256SUMS.lines().map(str::trim_end) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (h, p) = line
                .split_once("  ")
                .unwrap_or_else(|| panic!("not `<digest>  <path>`: {line:?}"));
            assert!(
                h.len() == 64
                    && h.bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
                "not a lower-case SHA-256: {line:?}"
            );
            assert!(!p.is_empty() && !p.contains(' '), "bad path: {line:?}");
            assert!(paths.insert(p), "{p} is listed twice");
        }
        assert_eq!(paths.len(), sha256sums_entries().count());
    }

    #[test]
    fn catalogue_checksums_come_from_sha256sums() {
        // Which files have a recorded checksum is part of the catalogue's contract: the
        // full HotPotQA file has none (it is checked by its prefix), every other known file
        // has one, and every staged subset also has its `.gz` copy recorded.
        for f in ALL {
            let want_sha = f.key != "hotpotqa";
            assert_eq!(f.sha256().is_some(), want_sha, "{}", f.key);
            assert_eq!(f.gz_sha256().is_some(), f.is_subset(), "{}", f.key);
            assert_eq!(f.prefix_check.is_some(), !want_sha, "{}", f.key);
        }
        let pc = HOTPOTQA_DEV.prefix_check.expect("prefix check");
        assert_eq!(pc.sha256(), HOTPOTQA_FIRST103.sha256());
        assert_eq!(
            by_sha256("7ccbe686bc010c3b1e8681a3b165935cf5c0ce68c0afedecb1b0203544f13ee9")
                .map(|f| f.key),
            Some("multihop-rag-sample500")
        );
    }
}
