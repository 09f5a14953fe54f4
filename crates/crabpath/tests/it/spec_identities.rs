//! Numeric identities and worked examples from the papers and the reference program.
//! Every expected number names its source: a rule of the reference (commit 134c676)
//! worked by hand, a committed reference output under `results/reference/`, the
//! OpenClawBrain paper (seed 002) §3.3 or the CrabPath paper (seed 000) §4.5.

use crabpath::learn::{apply_outcome, apply_outcome_pg, stop_softmax, Action, Episode, PgArgs};
use crabpath::trajectory::{
    trajectory_update, StopWeights, TrajectoryConfig, TrajectoryMode, TrajectoryStep,
};
use crabpath::{Edge, EdgeKind, Graph, LearningConfig, Node, NodeId};

fn chain(weights: &[f64]) -> (Graph, Vec<NodeId>) {
    let mut g = Graph::new();
    let ids: Vec<NodeId> = (0..=weights.len())
        .map(|i| g.add_node(Node::new(format!("n{i}"), format!("N{i}"))))
        .collect();
    for (i, &w) in weights.iter().enumerate() {
        g.add_edge(ids[i], ids[i + 1], Edge::new(w)).unwrap();
    }
    (g, ids)
}

/// Reference `crabpath/learn.py::apply_outcome` (δ = 0.1·0.95^(idx+1)), by hand: deltas
/// 0.095, 0.09025, 0.0857375, 0.081450625, sum 0.352438125.
#[test]
fn heuristic_deltas_and_sum() {
    let (mut g, ids) = chain(&[0.27; 4]);
    let u = apply_outcome(
        &mut g,
        &Episode::from_path(&ids),
        1.0,
        &LearningConfig::default(),
        None,
    )
    .unwrap();
    let deltas: Vec<f64> = u.0.values().copied().collect();
    assert_eq!(deltas, vec![0.095, 0.09025, 0.0857375, 0.081450625]);
    assert_eq!(u.sum(), 0.352438125);
}

/// deploy_pipeline Q1 (results/reference/sims/deploy_pipeline_results.json): 0.27 + 0.095 +
/// 0.06 = 0.425; 0.27 + 0.09025 + 0.06 = 0.42025; 0.27 + 0.0857375 + 0.06 = 0.4157375.
#[test]
fn deploy_pipeline_first_query_weights() {
    let (mut g, ids) = chain(&[0.27; 3]);
    apply_outcome(
        &mut g,
        &Episode::from_path(&ids),
        1.0,
        &LearningConfig::default(),
        None,
    )
    .unwrap();
    assert_eq!(g.weight(ids[0], ids[1]), Some(0.425));
    assert_eq!(g.weight(ids[1], ids[2]), Some(0.42025));
    // 0.4157375 by hand; the binary64 sum is 0.41573750000000004, which is what
    // results/reference/sims/deploy_pipeline_results.json holds
    assert_eq!(g.weight(ids[2], ids[3]), Some(0.41573750000000004));
    // Hebbian created the forward non-adjacent pairs with 0.06 (reference
    // `crabpath/learn.py::hebbian_update`)
    assert_eq!(g.weight(ids[0], ids[2]), Some(0.06));
    assert_eq!(g.weight(ids[0], ids[3]), Some(0.06));
}

/// negation (reference `crabpath/learn.py::apply_outcome` by hand; final value in
/// results/reference/sims/negation_results.json): 0.45 − 0.95 + 0.06 =
/// −0.43999999999999995, then clip(−0.44 − 0.95) + 0.06 = −0.94 with kind inhibitory.
#[test]
fn negation_floor() {
    let (mut g, ids) = chain(&[0.45]);
    let cfg = LearningConfig {
        learning_rate: 1.0,
        ..LearningConfig::default()
    };
    let ep = Episode::from_path(&ids);
    apply_outcome(&mut g, &ep, -1.0, &cfg, None).unwrap();
    assert_eq!(g.weight(ids[0], ids[1]), Some(-0.43999999999999995));
    apply_outcome(&mut g, &ep, -1.0, &cfg, None).unwrap();
    assert_eq!(g.weight(ids[0], ids[1]), Some(-0.94));
    assert_eq!(g.edge(ids[0], ids[1]).unwrap().kind, EdgeKind::Inhibitory);
}

fn four_action() -> (Graph, NodeId, [NodeId; 3]) {
    let mut g = Graph::new();
    let i = g.add_node(Node::new("i", "I"));
    let a = g.add_node(Node::new("A", "A"));
    let b = g.add_node(Node::new("B", "B"));
    let c = g.add_node(Node::new("C", "C"));
    g.add_edge(i, a, Edge::new(0.5)).unwrap();
    g.add_edge(i, b, Edge::new(0.3)).unwrap();
    g.add_edge(i, c, Edge::new(-0.2)).unwrap();
    (g, i, [a, b, c])
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

/// OpenClawBrain paper §3.3 (the four-action example): π = 0.342/0.280/0.170/0.208 and deltas
/// +0.066 / −0.028 / −0.017 / −0.021 summing to 0; stored weights include Hebbian.
#[test]
fn pg_four_action_example() {
    let (mut g, i, [a, b, c]) = four_action();
    let (probs, p_stop) = stop_softmax(&g, i, 1.0);
    let p: Vec<f64> = probs.iter().map(|x| x.1).collect();
    assert!(close(p[0], 0.342249, 5e-7) && close(p[1], 0.280210, 5e-7));
    assert!(close(p[2], 0.169956, 5e-7) && close(p_stop, 0.207585, 5e-7));
    let u = apply_outcome_pg(
        &mut g,
        &Episode::from_path(&[i, a]),
        1.0,
        &LearningConfig::default(),
        None,
        PgArgs::default(),
    )
    .unwrap();
    let d = |n| u.get(i, Action::Node(n)).unwrap();
    assert!(close(d(a), 0.065775, 5e-7));
    assert!(close(d(b), -0.028021, 5e-7));
    assert!(close(d(c), -0.016996, 5e-7));
    assert!(close(u.get(i, Action::Stop).unwrap(), -0.020758, 5e-7));
    assert!(u.sum().abs() < 1e-15, "sum {}", u.sum());
    assert!(close(g.weight(i, a).unwrap(), 0.6258, 5e-5));
    assert!(close(g.weight(i, b).unwrap(), 0.2720, 5e-5));
    assert!(close(g.weight(i, c).unwrap(), -0.2170, 5e-5));
    assert_eq!(g.edge(i, c).unwrap().kind, EdgeKind::Inhibitory);

    // outcome −1 flips the deltas (reference `crabpath/learn.py::apply_outcome_pg` run on
    // this example: A = 0.4942 with Hebbian)
    let (mut g, i, [a, b, c]) = four_action();
    let u2 = apply_outcome_pg(
        &mut g,
        &Episode::from_path(&[i, a]),
        -1.0,
        &LearningConfig::default(),
        None,
        PgArgs::default(),
    )
    .unwrap();
    for (k, v) in &u.0 {
        assert_eq!(u2.0[k], -v);
    }
    assert!(close(g.weight(i, a).unwrap(), 0.4942, 5e-5));
    assert!(close(g.weight(i, b).unwrap(), 0.3280, 5e-5));
    assert!(close(g.weight(i, c).unwrap(), -0.1830, 5e-5));
}

fn giraffe() -> (Graph, [NodeId; 3]) {
    let mut g = Graph::new();
    let gi = g.add_node(Node::new("G", "giraffe-codeword"));
    let c = g.add_node(Node::new("C", "codewords"));
    let e = g.add_node(Node::new("E", "elephant-codeword"));
    g.add_edge(gi, c, Edge::new(1.0)).unwrap();
    g.add_edge(gi, e, Edge::new(0.0)).unwrap();
    g.add_edge(c, e, Edge::new(0.0)).unwrap();
    (g, [gi, c, e])
}

fn giraffe_traj(gi: NodeId, c: NodeId, e: NodeId) -> Vec<TrajectoryStep> {
    vec![
        TrajectoryStep {
            source: gi,
            candidates: vec![Action::Node(c), Action::Node(e)],
            chosen: Action::Node(c),
        },
        TrajectoryStep {
            source: c,
            candidates: vec![Action::Node(e), Action::Stop],
            chosen: Action::Node(e),
        },
    ]
}

/// CrabPath paper §4.5 (Giraffe): π(C|G) = 0.731; myopic ΔC,E = +0.05,
/// ΔC,STOP = −0.05; corrected additionally ΔG,C = +0.0269, ΔG,E = −0.0269;
/// z = −1 flips all signs.
#[test]
fn giraffe_trajectory_update() {
    let (g0, [gi, c, e]) = giraffe();
    let p = crabpath::trajectory::candidate_policy(
        &g0,
        &StopWeights::default(),
        gi,
        &[Action::Node(c), Action::Node(e)],
        1.0,
    );
    assert!(close(p[0], 0.731, 5e-4) && close(p[1], 0.269, 5e-4));

    for z in [1.0, -1.0] {
        let (mut g, _) = giraffe();
        let mut stops = StopWeights::default();
        let cfg = TrajectoryConfig {
            mode: TrajectoryMode::Myopic,
            ..TrajectoryConfig::default()
        };
        let u = trajectory_update(&mut g, &mut stops, &giraffe_traj(gi, c, e), z, &cfg).unwrap();
        assert_eq!(u.len(), 2, "myopic touches the last step only");
        assert!(close(u.get(c, Action::Node(e)).unwrap(), z * 0.05, 1e-12));
        assert!(close(u.get(c, Action::Stop).unwrap(), -z * 0.05, 1e-12));
        assert!(close(stops[&c], -z * 0.05, 1e-12));

        let (mut g, _) = giraffe();
        let mut stops = StopWeights::default();
        let cfg = TrajectoryConfig::default();
        let u = trajectory_update(&mut g, &mut stops, &giraffe_traj(gi, c, e), z, &cfg).unwrap();
        assert!(close(u.get(gi, Action::Node(c)).unwrap(), z * 0.0269, 5e-5));
        assert!(close(
            u.get(gi, Action::Node(e)).unwrap(),
            -z * 0.0269,
            5e-5
        ));
        assert!(close(u.get(c, Action::Node(e)).unwrap(), z * 0.05, 1e-12));
        assert!(close(u.get(c, Action::Stop).unwrap(), -z * 0.05, 1e-12));
        // stored G→C is clipped at the bound for z = +1
        let expect_gc = if z > 0.0 { 1.0 } else { 1.0 - 0.0269 };
        assert!(close(g.weight(gi, c).unwrap(), expect_gc, 5e-5));
    }
}

/// What reference `crabpath/learn.py::apply_outcome_pg` (commit 134c676, run on this
/// trajectory) does on the Giraffe example (REPRODUCE.md discrepancy C18) —
/// ΔG,C actual 0.0 (saturated), ΔG,E = ΔG,STOP = −0.0212, ΔC,E = +0.0475,
/// ΔC,STOP = −0.0475; stored G→E 0.0388, C→E 0.1075 after Hebbian.
#[test]
fn giraffe_under_reference_pg() {
    let (mut g, [gi, c, e]) = giraffe();
    let u = apply_outcome_pg(
        &mut g,
        &Episode::from_path(&[gi, c, e]),
        1.0,
        &LearningConfig::default(),
        None,
        PgArgs::default(),
    )
    .unwrap();
    assert_eq!(u.get(gi, Action::Node(c)), Some(0.0));
    assert!(close(u.get(gi, Action::Node(e)).unwrap(), -0.0212, 5e-5));
    assert!(close(u.get(gi, Action::Stop).unwrap(), -0.0212, 5e-5));
    assert!(close(u.get(c, Action::Node(e)).unwrap(), 0.0475, 5e-5));
    assert!(close(u.get(c, Action::Stop).unwrap(), -0.0475, 5e-5));
    assert!(close(g.weight(gi, e).unwrap(), 0.0388, 5e-5));
    assert!(close(g.weight(c, e).unwrap(), 0.1075, 5e-5));
    assert_eq!(g.weight(gi, c), Some(1.0));
}

/// Bad input gives typed errors, never a panic.
#[test]
fn bad_learning_input_is_an_error() {
    let (mut g, ids) = chain(&[0.3]);
    let ep = Episode::from_path(&ids);
    let cfg = LearningConfig::default();
    assert!(apply_outcome(&mut g, &ep, f64::NAN, &cfg, None).is_err());
    assert!(apply_outcome_pg(&mut g, &ep, f64::INFINITY, &cfg, None, PgArgs::default()).is_err());
    let ghost = g.intern("ghost");
    let bad = Episode::from_path(&[ids[0], ghost]);
    assert!(matches!(
        apply_outcome(&mut g, &bad, 1.0, &cfg, None),
        Err(crabpath::Error::UnknownNode(_))
    ));
    let zero_t = LearningConfig {
        temperature: 0.0,
        pg_params_from_config: true,
        ..cfg
    };
    assert!(apply_outcome_pg(&mut g, &ep, 1.0, &zero_t, None, PgArgs::default()).is_err());
}
