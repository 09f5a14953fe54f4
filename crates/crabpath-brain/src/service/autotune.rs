//! `Brain::autotune` and `Brain::tuning` (issue 31 item 3): the autotuner run on its
//! own, as `crabpath autotune` does, with a dry run that writes nothing and a snapshot
//! before an applied run so that `rollback` undoes it. `maintain` runs the same step
//! after its health task ([`crate::service::command::maintain`]).

use crabpath::autotuner::TuneStep;
use crabpath::tuning::{Tuning, TUNING_META_KEY};

use super::engine::{Brain, Scope};
use crate::error::{Error, Result};
use crate::reference::snapshot::Snapshot;
use crate::service::command::autotune::{
    apply, autotune_event_after, tune_content, tuning_from, tuning_of,
};

/// What [`Brain::autotune`] did.
#[derive(Debug, Clone)]
pub struct AutotuneOutcome {
    /// The step (a dry run: what it would do).
    pub step: TuneStep,
    /// The snapshot taken before applying (none in a dry run, or when nothing moves).
    pub snapshot: Option<Snapshot>,
    /// Whether the new parameters were written.
    pub applied: bool,
}

impl Brain {
    /// The brain's tunable parameters ([`crate::service::command::autotune::tuning_of`]).
    pub fn tuning(&mut self) -> Result<Tuning> {
        let profile = self.profile;
        let entry = self.meta_entry(TUNING_META_KEY)?;
        tuning_from(entry.as_ref(), profile)
    }

    /// Runs the autotuner: health → autotune → guardrails → apply. A dry run reads the
    /// brain and writes nothing (no journal entry either). Otherwise, when a knob
    /// moves, a snapshot `before-autotune-<time>` is taken first (so `rollback`
    /// restores the old parameters), then the parameters are written to `meta` with an
    /// `autotune` journal entry in one write; a run that moves nothing is journaled
    /// only. Corrected profile only ([`Error::Invalid`] in `paper`).
    pub fn autotune(&mut self, dry_run: bool) -> Result<AutotuneOutcome> {
        let profile = self.profile;
        if !profile.fixes_bugs() {
            return Err(Error::Invalid(
                "autotune: the paper profile never applies the autotuner (the reference only suggests); use --profile corrected".into(),
            ));
        }
        if dry_run {
            return Ok(AutotuneOutcome {
                step: self.planned_tuning()?,
                snapshot: None,
                applied: false,
            });
        }
        let snapshot = self.snapshot_if_tuning_moves()?;
        let name = snapshot.as_ref().map(|s| s.name.clone());
        let step = self.write(Scope::All, |w| {
            let step = apply(w, profile)?.ok_or_else(|| {
                Error::Invalid("autotune: the corrected profile is needed".into())
            })?;
            w.journal(autotune_event_after(&step, name.as_deref()));
            if !step.changes() {
                w.discard();
            }
            Ok(step)
        })?;
        Ok(AutotuneOutcome {
            applied: step.changes(),
            step,
            snapshot,
        })
    }

    /// What the autotuner would do now (a read; nothing written).
    fn planned_tuning(&mut self) -> Result<TuneStep> {
        let profile = self.profile;
        self.read(|g, meta| tuning_of(meta, profile).map(|t| tune_content(g, &t)))?
    }

    /// Takes the snapshot `before-autotune-<time>` when the autotuner is about to move
    /// a parameter (corrected profile), so that `rollback` undoes the tuning; nothing
    /// otherwise, so that a maintenance with nothing to tune copies no database
    /// (`crabpath autotune`, and `maintain`'s health task: [`Brain::maintain`]).
    pub(super) fn snapshot_if_tuning_moves(&mut self) -> Result<Option<Snapshot>> {
        if !self.profile.fixes_bugs() || !self.planned_tuning()?.changes() {
            return Ok(None);
        }
        Ok(Some(self.snapshot_before("autotune")?))
    }
}
