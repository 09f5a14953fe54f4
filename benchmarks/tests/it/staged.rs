//! Tests on the staged dataset copies (`$CRABPATH_DATA_DIR`, else `../shared/datasets`
//! relative to the workspace root). They are `#[ignore]`d (run them with `cargo test
//! --workspace -- --ignored`) and fail, naming the missing file, when the copies are absent.
//!
//! The expected digests were computed with an independent Python implementation of the
//! reference's rules (`benchmarks/external/run_hotpotqa.py::_build_graph` and
//! `run_multihop_rag.py::_build_graph`, commit 134c676; Python 3.11, `re.sub`, `str.strip`,
//! `sorted`, dicts in insertion order) on the same files; matching them shows that node ids,
//! node contents, relevant sets and edge order are bit-identical to the reference's.

use crate::common;

use bench::catalog;
use bench::data::hotpotqa::{self, PaperCorpus as HotpotCorpus};
use bench::data::json::sha256_of_content;
use bench::data::locate::DataDir;
use bench::data::multihop::{self, PaperCorpus as MultihopCorpus, QuerySelection};
use bench::data::nodes::NodeTable;
use bench::data::EdgeOp;
use common::{sha256_hex, staged_dir, staged_file};

/// (node count, sha256 of "id\tcontent\n"..., sha256 of "ids,joined\n" per query,
/// edge-op count, sha256 of "source\ttarget\tweight\n"...) — the same digests as the Python
/// check.
type Digests<'a> = (usize, &'a str, &'a str, usize, &'a str);

fn expect(nodes: &NodeTable, relevant: &[Vec<String>], ops: &[EdgeOp], want: Digests) {
    let mut n = String::new();
    for node in nodes.iter() {
        n.push_str(&format!("{}\t{}\n", node.id, node.content));
    }
    let mut r = String::new();
    for ids in relevant {
        r.push_str(&ids.join(","));
        r.push('\n');
    }
    let mut e = String::new();
    for op in ops {
        e.push_str(&format!("{}\t{}\t{}\n", op.source, op.target, op.weight));
    }
    assert_eq!(nodes.len(), want.0, "node count");
    assert_eq!(sha256_hex(n.as_bytes()), want.1, "node ids and contents");
    assert_eq!(sha256_hex(r.as_bytes()), want.2, "relevant sets");
    assert_eq!(ops.len(), want.3, "edge op count");
    assert_eq!(sha256_hex(e.as_bytes()), want.4, "edge ops in order");
}

/// The HotPotQA reference corpus of the first `limit` rows of a staged file.
fn hotpot(rel: &str, limit: Option<usize>, want: Digests) {
    let qs = hotpotqa::load_questions(&staged_file(rel), limit).unwrap();
    let c = HotpotCorpus::build(&qs);
    expect(&c.nodes, &c.supporting_ids, &c.edge_ops(true), want);
}

/// The MultiHop-RAG reference corpus of the first `limit` non-null queries.
fn multihop(limit: Option<usize>, want: Digests) {
    let p = staged_file(SAMPLE500);
    let sel = multihop::load_queries(&p, QuerySelection::paper(limit)).unwrap();
    let c = MultihopCorpus::build(&sel);
    expect(&c.nodes, &c.evidence_ids, &c.edge_ops(true), want);
}

const FIRST103: &str = "hotpotqa/hotpot_dev_distractor_v1.first103.json.gz";
const SAMPLE1100: &str = "hotpotqa/hotpot_dev_distractor_v1.sample1100.json.gz";
const SAMPLE500: &str = "multihop_rag/MultiHopRAG.sample500.json.gz";

#[test]
#[ignore = "needs the staged dataset subsets (CRABPATH_DATA_DIR or ../shared/datasets); run with: cargo test --workspace -- --ignored"]
fn staged_files_are_located_and_match_their_checksums() {
    let dir = staged_dir();
    let dd = DataDir::resolve_with(Some(&dir), None);
    for f in [
        &catalog::HOTPOTQA_FIRST103,
        &catalog::HOTPOTQA_SAMPLE1100,
        &catalog::MULTIHOP_SAMPLE500,
    ] {
        let p = dd.locate(f).unwrap();
        assert_eq!(
            sha256_of_content(&p).unwrap(),
            f.sha256().unwrap(),
            "{}",
            f.key
        );
        assert_eq!(
            sha256_hex(&std::fs::read(&p).unwrap()),
            f.gz_sha256().unwrap(),
            "{}",
            f.key
        );
    }
}

#[test]
#[ignore = "needs the staged dataset subsets (CRABPATH_DATA_DIR or ../shared/datasets); run with: cargo test --workspace -- --ignored"]
fn hotpot_first103_reference_corpus() {
    let qs = hotpotqa::load_questions(&staged_file(FIRST103), None).unwrap();
    assert_eq!(qs.len(), 103);
    assert_eq!(qs[0].id, "5a8b57f25542995d1e6f1371");
    assert_eq!(qs[0].supporting_titles, ["Scott Derrickson", "Ed Wood"]);
    let short: Vec<_> = qs.iter().filter(|q| q.paragraphs.len() != 10).collect();
    assert_eq!(short.len(), 1);
    assert_eq!(short[0].id, "5abd259d55429924427fcf1a");
    let c = HotpotCorpus::build(&qs);
    assert!(c.nodes.nodes["ed_wood_film"].content.starts_with(
        "Ed Wood is a 1994 American biographical period comedy-drama film directed and produced by Tim Burton, and starring Johnny Depp as cult filmmaker Ed Wood. The film concerns"
    ));
    hotpot(
        FIRST103,
        None,
        (
            1020,
            "a3e600bf08b2b7266fb6bfd269e5bde6115dc7d9c459e37d1b8d83b3c2ec37b9",
            "beab6558228550e5192de43e564b5b670d8ed91d47d75942e0e5669505dbab8f",
            9370,
            "6d4022f57cdbbafa855a99cbcec99bdd228c614d7ed6080fa078e21590eb8bb9",
        ),
    );
}

#[test]
#[ignore = "needs the staged dataset subsets (CRABPATH_DATA_DIR or ../shared/datasets); run with: cargo test --workspace -- --ignored"]
fn hotpot_sample1100_reference_corpus() {
    assert_eq!(
        hotpotqa::load_questions(&staged_file(SAMPLE1100), None)
            .unwrap()
            .len(),
        1100
    );
    hotpot(
        SAMPLE1100,
        Some(hotpotqa::DEFAULT_LIMIT),
        (
            4925,
            "10bca0d02637400e7a630e27d93b5ac107d69588eea20a964bc4c2fcd851d4d3",
            "18300410ca392b1969401e14da7b25a84e52120be61d3f345c60092253376898",
            45580,
            "6afdd854e5e4c4e99007e7eb2d91b529c6ccdefeb5c84f478047253b3c513d62",
        ),
    );
    hotpot(
        SAMPLE1100,
        None,
        (
            10785,
            "85605ab3772d9f10c8ac87c6ed66c8d9bd9a8ebc600cdeaf4b6726e87f603ae2",
            "b4b246d86e1444342c8492d38f765db03de34ed6844fa0875c0e72b79d31cf65",
            100702,
            "e4bd635afabe92db5ba3b7426f0f825b8439b1296e25882fd5270cb2f9a55646",
        ),
    );
}

#[test]
#[ignore = "needs the staged dataset subsets (CRABPATH_DATA_DIR or ../shared/datasets); run with: cargo test --workspace -- --ignored"]
fn multihop_sample500_reference_corpus() {
    let p = staged_file(SAMPLE500);
    let all = multihop::load_queries(&p, QuerySelection::all()).unwrap();
    assert_eq!(all.len(), 500);
    assert_eq!(all.iter().filter(|q| q.is_null_query()).count(), 71);
    assert_eq!(all.iter().map(|q| q.evidence.len()).sum::<usize>(), 1153);
    assert_eq!(
        all.iter()
            .flat_map(|q| &q.evidence)
            .filter(|e| e.author.is_none())
            .count(),
        62
    );
    let sel = multihop::load_queries(&p, QuerySelection::paper(None)).unwrap();
    assert_eq!(sel.len(), 429);
    let c = MultihopCorpus::build(&sel);
    assert_eq!(c.source_groups.len(), 37);
    assert_eq!(c.category_groups.len(), 6);
    multihop(
        None,
        (
            326,
            "15b09e6a55fe35e84b7e728f23b99dfa62b22301a9fd6c0f1e825fda47402371",
            "13fcbf94b2711a5eb2247b177a4dd0932efaebcd33b84e1ed0843fac8ebf7745",
            39330,
            "0e18e6bba8bb98aaaa299e83aa3da8374eb4267869b2f83c790d9c780c087445",
        ),
    );
    multihop(
        Some(100),
        (
            144,
            "264e3dd5c7647f99c4df7e8de807c266477a156ebd0c7130e8a523e5744344db",
            "f9213c51ceb21e81c8f079d8db118ef2674dd56df255515a96039db1f6adee0d",
            7496,
            "caae1166219d471597f1ccdb4a1ad1a6598ff6a34fa6241531c8e56e3a2e9a39",
        ),
    );
}
