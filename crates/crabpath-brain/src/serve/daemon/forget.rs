//! The daemon method `forget` (issue 30, item 3): `params` name exactly one of `file`,
//! `node` or `chat` (a non-blank string, [`ForgetTarget::from_fields`]); the brain
//! forgets it ([`crate::service::Brain::forget`]) and the result is the report's JSON
//! ([`crate::service::ForgetReport::to_json`]). A database brain commits it before the
//! answer; a state file (whose writes the daemon logs to `<state>.wal` for replay) is
//! refused by `forget`, so nothing of it ever enters that log.

use pyformat::pyjson::{PyDict, PyValue};

use super::{Daemon, Failure};
use crate::service::ForgetTarget;

impl Daemon {
    pub(super) fn forget(&mut self, params: &PyDict) -> Result<PyValue, Failure> {
        let field = |key: &str| -> Result<Option<String>, Failure> {
            match params.get(key) {
                None | Some(PyValue::Null) => Ok(None),
                Some(PyValue::Str(s)) => Ok(Some(s.clone())),
                Some(_) => Err(Failure(format!("forget: {key} must be a string"))),
            }
        };
        let target = ForgetTarget::from_fields(field("file")?, field("node")?, field("chat")?)
            .map_err(|m| Failure(format!("forget: {m}")))?;
        let report = self.brain.forget(&target)?;
        Ok(PyValue::from(&report.to_json()))
    }
}
