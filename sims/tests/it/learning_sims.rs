//! context_reduction, domain_separation, brain_death, static_vs_learning,
//! pg_vs_heuristic, noise_robustness, scaling_analysis: one paper-profile test per sim
//! against its reference file (field by field, timing fields by type only), the
//! fixtures of the RNG-built graphs, and the shape and determinism of the corrected
//! profile's claims.

use serde_json::Value;
use sims::compare::compare;
use sims::scenarios::find;
use sims::scenarios::forced_graph::{self, SimRng};
use sims::sim::{Profile, PAPER_SEED};

/// The committed reference result file of `name` (results/reference/sims).
fn reference(name: &str) -> Value {
    sims::reference::load(&testdata::reference("sims"), name).unwrap_or_else(|e| panic!("{e:#}"))
}

fn run(name: &str, profile: Profile, seed: u64) -> Value {
    find(name)
        .unwrap_or_else(|| panic!("{name} not registered"))
        .run(profile, seed)
        .expect("runs")
}

fn paper_matches(name: &str) {
    let want = reference(name);
    let sim = find(name).unwrap_or_else(|| panic!("{name} not registered"));
    let diffs = compare(
        &want,
        &run(name, Profile::Paper, PAPER_SEED),
        sim.timing_fields(Profile::Paper),
    );
    assert!(
        diffs.is_empty(),
        "{name}:\n{}",
        diffs
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn paper_context_reduction() {
    paper_matches("context_reduction");
}
#[test]
fn paper_domain_separation() {
    paper_matches("domain_separation");
}
#[test]
fn paper_brain_death() {
    paper_matches("brain_death");
}
#[test]
fn paper_static_vs_learning() {
    paper_matches("static_vs_learning");
}
#[test]
fn paper_pg_vs_heuristic() {
    paper_matches("pg_vs_heuristic");
}
#[test]
fn paper_noise_robustness() {
    paper_matches("noise_robustness");
}
#[test]
fn paper_scaling_analysis() {
    // avg_traversal_ms, time_ratio and is_sublinear_time_growth are timing fields.
    paper_matches("scaling_analysis");
}

const PG_FIXTURE: &str = "\
start_task : prepare deploy aux_03 aux_02 verify aux_12 compile aux_13
prepare : compile aux_08 start_task aux_01 aux_02 aux_11 aux_14 aux_12
compile : deploy aux_01 aux_12 aux_08 aux_02 aux_09 aux_13 aux_03
deploy : verify start_task aux_00 aux_08 aux_05 aux_03 aux_01 compile
verify : start_task aux_07 deploy aux_06 aux_14 aux_03 prepare aux_09
aux_00 : aux_12 deploy aux_07 compile aux_04 aux_14 aux_06 aux_13
aux_01 : compile prepare aux_02 aux_04 deploy aux_07 aux_03 aux_09
aux_02 : aux_06 aux_00 aux_01 aux_03 compile aux_14 aux_12 aux_09
aux_03 : aux_07 aux_12 aux_02 aux_05 prepare compile aux_01 aux_13
aux_04 : aux_05 aux_01 aux_10 aux_07 aux_09 verify aux_03 aux_02
aux_05 : aux_12 aux_03 aux_13 aux_08 aux_07 aux_06 aux_02 verify
aux_06 : aux_11 aux_10 compile prepare deploy verify aux_00 aux_08
aux_07 : aux_14 compile aux_09 aux_11 aux_03 aux_12 start_task deploy
aux_08 : aux_12 aux_03 aux_05 deploy aux_04 aux_00 aux_09 start_task
aux_09 : aux_03 aux_11 aux_00 deploy aux_04 aux_14 aux_01 verify
aux_10 : aux_06 aux_00 aux_12 aux_11 start_task aux_14 aux_05 deploy
aux_11 : aux_06 aux_04 aux_02 prepare aux_13 compile aux_10 aux_12
aux_12 : verify aux_10 aux_00 aux_03 aux_11 aux_14 aux_08 aux_01
aux_13 : aux_12 aux_01 aux_04 aux_07 aux_06 aux_09 aux_11 deploy
aux_14 : aux_02 compile aux_05 start_task aux_13 aux_12 prepare aux_11";

const NOISE_FIXTURE: &str = "\
query_node : inspect detour_05 detour_06 ship approve validate detour_09
inspect : validate detour_03 detour_04 detour_01 query_node approve detour_06
validate : approve detour_05 detour_06 detour_03 detour_01 detour_02 detour_04
approve : ship detour_07 detour_08 query_node validate detour_06 detour_01
ship : query_node detour_00 validate approve detour_07 inspect detour_01
detour_00 : inspect detour_08 detour_04 ship detour_07 query_node detour_06
detour_01 : detour_02 detour_03 inspect detour_09 ship detour_08 detour_05
detour_02 : detour_04 detour_09 detour_08 detour_00 approve detour_06 inspect
detour_03 : query_node detour_05 approve detour_07 ship inspect detour_08
detour_04 : approve detour_08 inspect detour_01 ship detour_02 detour_05
detour_05 : detour_08 detour_00 validate approve ship detour_06 detour_09
detour_06 : detour_05 inspect detour_04 validate detour_03 approve detour_02
detour_07 : detour_01 ship detour_09 detour_05 detour_06 detour_03 approve
detour_08 : detour_05 detour_00 detour_07 query_node approve detour_01 ship
detour_09 : inspect approve detour_04 detour_06 detour_00 detour_05 detour_02";

const STATIC_FIXTURE: &str = "\
task_entry : ingest peer_15 verify peer_18 peer_03 peer_02
ingest : transform peer_02 publish peer_18 verify peer_16
transform : verify peer_18 peer_12 peer_13 peer_08 ingest
verify : publish task_entry transform peer_01 peer_02 peer_11
publish : task_entry peer_14 peer_12 peer_01 peer_17 peer_15
peer_00 : peer_17 peer_12 peer_08 peer_02 peer_09 peer_13
peer_01 : peer_03 task_entry peer_19 peer_00 peer_17 peer_08
peer_02 : peer_05 peer_03 publish peer_01 peer_19 verify
peer_03 : transform peer_07 verify peer_06 peer_14 ingest
peer_04 : peer_18 peer_09 peer_12 verify peer_07 transform
peer_05 : peer_12 peer_04 peer_15 peer_14 peer_06 peer_13
peer_06 : peer_01 peer_17 transform ingest peer_16 peer_02
peer_07 : peer_19 peer_04 transform peer_02 verify peer_03
peer_08 : peer_09 peer_15 peer_06 peer_00 peer_01 peer_16
peer_09 : peer_03 peer_17 peer_16 peer_15 transform peer_14
peer_10 : peer_15 peer_00 peer_12 peer_18 peer_02 peer_09
peer_11 : peer_07 peer_03 peer_15 peer_17 peer_12 peer_02
peer_12 : peer_16 peer_05 peer_19 ingest peer_02 peer_07
peer_13 : peer_03 transform peer_01 peer_17 peer_05 peer_15
peer_14 : peer_10 peer_07 peer_15 peer_09 publish peer_03
peer_15 : publish peer_02 peer_18 peer_12 peer_03 peer_13
peer_16 : peer_08 peer_13 peer_07 peer_06 peer_02 publish
peer_17 : peer_11 peer_10 transform peer_19 ingest verify
peer_18 : publish peer_15 peer_00 peer_16 peer_08 peer_14
peer_19 : transform peer_07 peer_14 peer_09 peer_11 peer_03";

/// Builds the graph from the fixture's node order with MT19937(42) and renders it in
/// the fixture's format (the adjacency lists the reference scripts build
/// under CPython 3.11.7 with `random.seed(42)`, printed from them; weights all 0.4).
fn check_fixture(fixture: &str, k: usize) {
    let ids: Vec<String> = fixture
        .lines()
        .map(|l| l.split(" : ").next().unwrap().to_string())
        .collect();
    let g = forced_graph::build(&ids, |s| s.to_string(), 5, k, &mut SimRng::python()).unwrap();
    let rendered: Vec<String> = g
        .node_ids()
        .map(|n| {
            let ts: Vec<&str> = g
                .outgoing(n)
                .map(|(t, e)| {
                    assert_eq!(e.weight, 0.4);
                    g.name(t)
                })
                .collect();
            format!("{} : {}", g.name(n), ts.join(" "))
        })
        .collect();
    assert_eq!(rendered, fixture.lines().collect::<Vec<_>>());
}

#[test]
fn fixture_pg_vs_heuristic_graph() {
    check_fixture(PG_FIXTURE, 8);
}
#[test]
fn fixture_noise_robustness_graph() {
    check_fixture(NOISE_FIXTURE, 7);
}
#[test]
fn fixture_static_vs_learning_graph() {
    check_fixture(STATIC_FIXTURE, 6);
}

/// The queries reference `sims/noise_robustness.py` flips at noise 0.1 under CPython 3.11.7
/// (one `random()` draw per query).
#[test]
fn fixture_noise_flips() {
    let mut r = SimRng::python();
    let flips: Vec<usize> = (1..=100).filter(|_| r.random() < 0.1).collect();
    assert_eq!(flips, [2, 8, 10, 13, 20, 27, 28, 42, 45, 68, 89, 90, 95]);
}

const MINE: [&str; 7] = [
    "context_reduction",
    "pg_vs_heuristic",
    "noise_robustness",
    "static_vs_learning",
    "scaling_analysis",
    "domain_separation",
    "brain_death",
];

/// Every corrected document (all 15 sims) records its profile and seed and carries a
/// harmonized machine-checked claim (`sims::predicate`): one predicate or a list, each
/// `met` agreeing with value, comparison and threshold, and the run_all verdict equal
/// to the conjunction of the predicates. RNG-dependent sims aggregate every predicate
/// value as a headline metric.
#[test]
fn corrected_claims_are_predicates() {
    for sim in sims::scenarios::registry() {
        let name = sim.name();
        let doc = run(name, Profile::Corrected, 7);
        assert_eq!(doc["profile"], "corrected", "{name}");
        assert_eq!(doc["seed"], 7, "{name}");
        let problems = sims::predicate::validate(&doc);
        assert!(problems.is_empty(), "{name}: {problems:?}");
        let claim = sims::predicate::claim_of(&doc).expect("a machine-checked claim");
        let preds = claim.predicates();
        assert!(!preds.is_empty(), "{name}");
        let all = preds.iter().all(|p| p.met);
        assert_eq!(doc["claim"]["met"].as_bool(), Some(all), "{name}");
        assert_eq!(
            sims::claims::booleans(&doc["claim"])
                .iter()
                .all(|(_, b)| *b),
            all,
            "{name}"
        );
        if sim.uses_rng() {
            for i in 0..preds.len() {
                let value = claim.value_pointer(i);
                assert!(
                    sim.headline().iter().any(|m| m.pointer == value),
                    "{name}: no headline metric for {value}"
                );
            }
        }
        for m in sim.headline() {
            assert!(
                doc.pointer(m.pointer)
                    .is_some_and(|v| v.is_number() || v.is_boolean()),
                "{name}: headline {} ({}) is not a number",
                m.name,
                m.pointer
            );
        }
    }
}

/// A corrected run is a function of its seed; the RNG sims draw different graphs for
/// different seeds.
#[test]
fn corrected_is_deterministic_per_seed() {
    for name in MINE {
        let (a, b) = (
            run(name, Profile::Corrected, 11),
            run(name, Profile::Corrected, 11),
        );
        let timing = find(name).unwrap().timing_fields(Profile::Corrected);
        assert!(
            compare(&a, &b, timing).is_empty(),
            "{name}: not deterministic"
        );
    }
    let g = |seed| {
        let ids: Vec<String> = (0..20).map(|i| format!("n{i:02}")).collect();
        let g = forced_graph::build(&ids, |s| s.to_string(), 5, 8, &mut SimRng::chacha(seed, 0))
            .unwrap();
        g.edges().map(|(s, t, _)| (s, t)).collect::<Vec<_>>()
    };
    assert_ne!(g(1), g(2));
}
