//! `bench guard`'s diagnosis (issue 31 item 4): what made a related question lose
//! recall@k after the corrections.
//!
//! Besides the product's rules, `bench guard` runs three arms that each apply one part
//! of the shared guardrail rule ([`CorrectionMode::GuardrailShared`], the rule measured
//! before the fix) to the same wrong answers, on fresh brains asked the same questions
//! in the same order ([`Arm`]): nothing at all, the correction's node alone (linked,
//! no turn attributed), and the corrected turn's −1 alone. A related question that lost
//! under a rule is put down to the first that holds:
//!
//! 1. `drift`: it lost with nothing corrected too (question nodes born between the
//!    two askings, not the corrections);
//! 2. `node, seeded`: it lost to the correction's node alone, and a correction seeded
//!    its answer there (the correction matched its words and its links pulled content
//!    in); `node, reached`: a correction came only through traversal (a content node it
//!    fired links to it); `node, unseen`: neither (its traversal changed through a
//!    correction's links without returning one);
//! 3. `learning`: it lost to the −1 alone (a content edge it walks was weakened);
//! 4. `together`: only the node and the −1 together make it lose.
//!
//! [`CorrectionMode::GuardrailShared`]: crabpath_brain::service::CorrectionMode::GuardrailShared

use std::collections::BTreeMap;

use crabpath_brain::service::CorrectionMode;
use serde_json::{json, Map, Value};

use crate::guard_arm::{recall, Arm, Outcome};

/// One arm's run over a dataset's sets: per set, which questions are related, their
/// outcomes and their evidence.
pub(crate) type Run = (
    Arm,
    Vec<Vec<bool>>,
    Vec<Vec<Outcome>>,
    Vec<Vec<Vec<String>>>,
);

/// The rules whose related losses are broken down.
const EXPLAINED: [CorrectionMode; 2] = [CorrectionMode::GuardrailShared, CorrectionMode::Guardrail];

/// The causes, in the order of the module docs.
const CAUSES: [&str; 6] = [
    "drift",
    "node_seeded",
    "node_reached",
    "node_unseen",
    "learning",
    "together",
];

fn lost(evidence: &[String], o: &Outcome, k: usize) -> bool {
    recall(evidence, &o.after, k) < recall(evidence, &o.before, k) - 1e-12
}

/// The breakdown of every explained rule's related losses (module docs), as JSON:
/// `{rule: {cause: count}}`; rules or diagnosis arms not run are left out.
pub(crate) fn breakdown(runs: &[Run], k: usize) -> Value {
    let find = |arm: Arm| runs.iter().find(|r| r.0 == arm);
    let (Some(nothing), Some(node), Some(learn)) = (
        find(Arm::Nothing),
        find(Arm::NodeOnly),
        find(Arm::LearnOnly),
    ) else {
        return json!({});
    };
    let mut out = Map::new();
    for mode in EXPLAINED {
        let Some((_, related, outcomes, evidence)) = find(Arm::Rule(mode)) else {
            continue;
        };
        let mut counts: BTreeMap<&str, usize> = CAUSES.iter().map(|c| (*c, 0)).collect();
        for (s, set) in outcomes.iter().enumerate() {
            for (i, o) in set.iter().enumerate() {
                let ev = &evidence[s][i];
                if !related[s][i] || !lost(ev, o, k) {
                    continue;
                }
                let cause = if lost(ev, &nothing.2[s][i], k) {
                    "drift"
                } else if lost(ev, &node.2[s][i], k) {
                    let n = &node.2[s][i];
                    match (n.after_guard_seeded, n.after_guarded) {
                        (true, _) => "node_seeded",
                        (false, true) => "node_reached",
                        (false, false) => "node_unseen",
                    }
                } else if lost(ev, &learn.2[s][i], k) {
                    "learning"
                } else {
                    "together"
                };
                *counts.entry(cause).or_default() += 1;
            }
        }
        out.insert(mode.as_str().into(), json!(counts));
    }
    Value::Object(out)
}

/// The Markdown table of the breakdowns of every dataset (`datasets`: the report's
/// `datasets` object).
pub(crate) fn table(datasets: &Map<String, Value>) -> String {
    let mut s = String::from(
        "\nRelated questions that lost, by cause (`benchmarks/src/guard_causes.rs`): \
         drift = lost with nothing corrected too; node = lost to the correction's node \
         alone (seeded: a correction seeded the answer; reached: one came through \
         traversal; unseen: neither); learning = lost to the turn's −1 alone; together = \
         only both.\n\n\
         | dataset | rule | lost | drift | node, seeded | node, reached | node, unseen | learning | together |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (name, arms) in datasets {
        for mode in EXPLAINED {
            let c = &arms["causes"][mode.as_str()];
            if !c.is_object() {
                continue;
            }
            let n = |k: &str| c[k].as_u64().unwrap_or(0);
            let total: u64 = CAUSES.iter().map(|k| n(k)).sum();
            s.push_str(&format!("| {name} | {} | {total}", mode.as_str()));
            for k in CAUSES {
                s.push_str(&format!(" | {}", n(k)));
            }
            s.push_str(" |\n");
        }
    }
    s
}
