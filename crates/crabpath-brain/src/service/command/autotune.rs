//! The autotuner applied to a brain (issue 31 item 3; seed 002 §5.2–5.3): health →
//! autotune → guardrails → apply ([`crabpath::autotuner::tune`]), with the brain's
//! parameters ([`Tuning`]) kept in its `meta` under [`TUNING_META_KEY`] and each run
//! journaled as `{"type": "autotune", "before", "after", "applied", "clipped",
//! "health", "dry_run"}`.
//!
//! Corrected profile only: a `paper` brain has no tuning (the reference never applied
//! its suggestions) and [`tuning_of`] always gives its defaults. A brain without the
//! key uses the profile's defaults (half-life 80, promotion 2, Hebbian 0.06, reflex
//! 0.6, damping 0.3), so brains made before this change behave as before until the
//! autotuner first moves a knob.

use crate::service::neurogenesis::is_auto;
use crabpath::autotuner::{tune_where, TuneStep};
use crabpath::decay::DecayConfig;
use crabpath::graph::Graph;
use crabpath::graph::Metadata;
use crabpath::profile::Profile;
use crabpath::tuning::{Tuning, TUNING_META_KEY};
use pyformat::pyjson::{PyDict, PyValue};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::store::working::Working;

/// The parameters of a brain that never ran the autotuner.
pub fn default_tuning(profile: Profile) -> Tuning {
    Tuning::of(
        &DecayConfig::default(),
        &profile.learning(),
        &profile.traversal(),
    )
}

/// The brain's parameters: its `meta` entry (corrected profile), else the defaults.
/// Errors: an entry that is not a tuning object (`meta "tuning": expected ...`).
pub fn tuning_of(meta: &Metadata, profile: Profile) -> Result<Tuning> {
    tuning_from(meta.get(TUNING_META_KEY), profile)
}

/// [`tuning_of`] for the one `meta` value (read without the rest of `meta`).
pub fn tuning_from(entry: Option<&Value>, profile: Profile) -> Result<Tuning> {
    match entry {
        Some(v) if profile.fixes_bugs() => serde_json::from_value(v.clone()).map_err(|e| {
            Error::Invalid(format!(
                "meta \"{TUNING_META_KEY}\": expected an object with half_life, promotion_threshold, hebbian_increment, reflex_threshold and damping ({e})"
            ))
        }),
        _ => Ok(default_tuning(profile)),
    }
}

/// The `meta` value of a tuning.
pub fn tuning_value(t: &Tuning) -> Value {
    serde_json::to_value(t).unwrap_or(Value::Null)
}

/// A plain-data value as a journal value.
fn py<T: serde::Serialize>(v: &T) -> PyValue {
    PyValue::from(&serde_json::to_value(v).unwrap_or(Value::Null))
}

/// What a run did, as reports show it: `{before, after, applied, clipped}`.
pub fn step_dict(step: &TuneStep) -> PyDict {
    let mut e = PyDict::new();
    e.insert("before".into(), py(&step.before));
    e.insert("after".into(), py(&step.after));
    e.insert("applied".into(), py(&step.applied));
    e.insert("clipped".into(), py(&step.clipped));
    e
}

/// The journal entry of a run: `{"type": "autotune"}` + [`step_dict`] + the health
/// it read and whether it was a dry run.
pub fn autotune_event(step: &TuneStep, dry_run: bool) -> PyDict {
    let mut e = PyDict::new();
    e.insert("type".into(), PyValue::Str("autotune".into()));
    e.extend(step_dict(step));
    e.insert("health".into(), py(&step.health));
    e.insert("dry_run".into(), PyValue::Bool(dry_run));
    e
}

/// [`autotune_event`] of an applied run that took `snapshot` first (issue 31 item 3:
/// `rollback` to it undoes the tuning): the entry names it, `"snapshot": name`.
pub fn autotune_event_after(step: &TuneStep, snapshot: Option<&str>) -> PyDict {
    let mut e = autotune_event(step, false);
    if let Some(name) = snapshot {
        e.insert("snapshot".into(), PyValue::Str(name.into()));
    }
    e
}

/// One line per changed knob (`half_life: 80 -> 70`), `(no change)` when none moved;
/// a clipped knob says so (`promotion_threshold: 2 -> 2 (proposed 1, clipped)`).
pub fn changes_text(step: &TuneStep) -> Vec<String> {
    let mut out = Vec::new();
    for b in &crabpath::tuning::SAFETY_BOUNDS {
        let k = b.knob;
        let (old, new, proposed) = (step.before.get(k), step.after.get(k), step.proposed.get(k));
        if old == new && proposed == old {
            continue;
        }
        let mut line = format!("{}: {old} -> {new}", k.as_str());
        if step.clipped.iter().any(|c| c.knob == k) {
            line.push_str(&format!(" (proposed {proposed}, clipped to the bound)"));
        }
        out.push(line);
    }
    if out.is_empty() {
        out.push("(no change)".into());
    }
    out
}

/// The autotuner's step for the brain's content: the health of `graph` without its
/// question nodes and their edges ([`crabpath::autotuner::tune_where`]; the `auto:`
/// nodes neurogenesis grows, [`is_auto`]). Every novel question adds a
/// node and a few provisional edges below the habitual band, so reading them would let
/// the number of questions asked move the tuning of the content (the dormant share, the
/// node count); and `forget` could not replay an autotuner run exactly, since the
/// journal does not hold that layer as it was at the run (`crate::service::unlearn`).
pub fn tune_content(graph: &Graph, before: &Tuning) -> TuneStep {
    tune_where(graph, |n| !is_auto(graph.name(n)), before)
}

/// Tunes the loaded brain and, when something moved (or the brain had no tuning
/// yet), writes the result to `w.meta`; the caller journals [`autotune_event`] and
/// saves `w` (a dry run works on a copy it discards). Corrected profile only: `paper`
/// gives `None` and touches nothing.
pub fn apply(w: &mut Working<'_>, profile: Profile) -> Result<Option<TuneStep>> {
    if !profile.fixes_bugs() {
        return Ok(None);
    }
    let before = tuning_of(w.meta, profile)?;
    let step = tune_content(w.graph, &before);
    if step.changes() || w.meta.get(TUNING_META_KEY).is_none() {
        w.meta
            .insert(TUNING_META_KEY.into(), tuning_value(&step.after));
    }
    Ok(Some(step))
}
