//! The daemon method `remember` (issue 28, item 1): `params` are the fields of a turn
//! (`id`, `session`, `time`, `speaker`, `text`; only `text` is required), checked as a
//! line of a conversation file is ([`crate::source::conversation::Turn::from_object`]); the turn
//! is appended to the chain of the turns with its `session` value
//! ([`crate::service::Brain::remember_turn`]). The
//! result: `node_id`, `turn` (its position among the brain's conversation turns),
//! `edges` (the edges added, `[from, to, weight]` each: chain, then entity edges) and
//! `removed` (entity edges the turn undid, `[from, to]` each).

use pyformat::pyjson::{PyDict, PyValue};

use super::{count, Daemon, Failure};
use crate::source::conversation::Turn;

impl Daemon {
    pub(super) fn remember(&mut self, params: &PyDict) -> Result<PyValue, Failure> {
        let obj = match PyValue::Dict(params.clone()).to_json() {
            Some(serde_json::Value::Object(m)) => m,
            _ => return Err(Failure("remember: params must be a JSON object".into())),
        };
        let turn = Turn::from_object(&obj).map_err(|m| Failure(format!("remember: {m}")))?;
        let r = self.brain.remember_turn(&turn)?;
        let mut d = PyDict::new();
        d.insert("node_id".into(), PyValue::Str(r.node_id));
        d.insert("turn".into(), count(r.turn));
        d.insert(
            "edges".into(),
            PyValue::List(
                r.edges
                    .into_iter()
                    .map(|(a, b, w)| {
                        PyValue::List(vec![PyValue::Str(a), PyValue::Str(b), PyValue::Float(w)])
                    })
                    .collect(),
            ),
        );
        d.insert(
            "removed".into(),
            PyValue::List(
                r.removed
                    .into_iter()
                    .map(|(a, b)| PyValue::List(vec![PyValue::Str(a), PyValue::Str(b)]))
                    .collect(),
            ),
        );
        Ok(PyValue::Dict(d))
    }
}
