//! The daemon methods of upstream v12 (`openclawbrain/daemon.py`, 12.2.6: `inject`,
//! `correction`, `last_fired`, `learn_by_chat_id`, `capture_feedback`; `route_mode` on
//! `query`), and `protocol`, which names the protocol version and the methods.
//!
//! Method names, parameters, defaults, validation messages and result keys are
//! upstream's. What they do is this project's design, in both profiles (the `paper`
//! profile reproduces v11.2.1, which has none of them):
//!
//! | method | params | result | upstream v12 | here |
//! |---|---|---|---|---|
//! | `inject` | `id`, `content` (non-empty strings), `type` (`TEACHING`, `CORRECTION`, `DIRECTIVE`), `metadata` (object; its `source`, default `daemon`) | `injected`, `node_id` | the same | the same ([`Brain::inject`]) |
//! | `last_fired` | `chat_id`, `lookback` (≥ 1, default 1) | `chat_id`, `lookback`, `fired_nodes` | the same | the same, from the conversation log |
//! | `learn_by_chat_id` | `chat_id`, `outcome`, `lookback` | `edges_updated`, `fired_ids_penalized`, `node_injected`, `credited` | the union of the last `lookback` turns' fired ids learns the whole outcome, as often as asked | the turns of the feedback window ([`crate::service::turns`]; `lookback`, when given, narrows it to that many turns) each learn `outcome · exp(−Δ/5)`, once |
//! | `correction` | `chat_id`, `outcome`, `lookback`, `content` (optional) | `edges_updated`, `fired_ids_penalized`, `correction_injected`, `node_id`, `credited`, `deduped` | learns like `learn_by_chat_id`, then adds `correction::<sha256[:12]>` with inhibitory edges to the fired ids | the same attribution; `paper`: the correction also inhibits the attributed path; `corrected`: it is a guardrail instead (the attributed path weakened by its outcome learning, no veto; the correction linked beside the content at or above a similarity floor and returned under the query's `guardrails`, issue 31 item 4); a text applied before is not applied again ([`Brain::correct`]) |
//! | `capture_feedback` | `chat_id`, `kind` (`CORRECTION`, `TEACHING`, `DIRECTIVE`), `content`, `lookback`, `dedup_key` or `message_id`, `outcome` (CORRECTION: default −1) | `deduped`, `edges_updated`, `fired_ids_used`, `dedup_key_used`, `injected_node_id`, `outcome_used` | deduplicates by key only | by key, and by the text's hash (the ledger) |
//! | `protocol` | – | `protocol_version`, `methods`, `route_modes` | – | – |
//!
//! `query` takes `route_mode` (`off`, `edge`, `edge+sim`, `adaptive`; upstream's
//! `learned` means `edge+sim`) and, with a `chat_id`, appends the turn to that
//! conversation's log; the corrected profile's answer says which `route_mode` it used
//! and the `turn`, and lists the corrections it reached under `guardrails`. Errors are upstream's: code −1 and the message.

use pyformat::pyjson::{PyDict, PyValue};
use pyformat::pystr;

use super::{count, int_param, Daemon, Failure, METHODS, PROTOCOL_VERSION};
use crate::service::turns::{self, Window};
use crate::service::{CorrectRequest, FeedbackReport, FeedbackRequest, InjectRequest};

fn s(v: &str) -> PyValue {
    PyValue::Str(v.to_string())
}

fn strs(v: &[String]) -> PyValue {
    PyValue::List(v.iter().map(|x| s(x)).collect())
}

/// Upstream `protocol.py::parse_chat_id` (required).
pub(super) fn chat_id_param(params: &PyDict) -> Result<String, Failure> {
    match params.get("chat_id") {
        None | Some(PyValue::Null) => Err(Failure("chat_id is required".into())),
        Some(PyValue::Str(v)) => {
            let t = pystr::strip(v);
            if t.is_empty() {
                Err(Failure("chat_id is required".into()))
            } else {
                Ok(t.to_string())
            }
        }
        Some(_) => Err(Failure("chat_id must be a string".into())),
    }
}

/// Upstream `protocol.py::parse_float` (required).
fn float_param(params: &PyDict, key: &str) -> Result<f64, Failure> {
    match params.get(key) {
        None | Some(PyValue::Null) => Err(Failure(format!("{key} is required"))),
        Some(PyValue::Str(_)) => Err(Failure(format!("{key} must be a number"))),
        Some(v) => v
            .as_number()
            .ok_or_else(|| Failure(format!("{key} must be a number"))),
    }
}

/// A required non-blank string, upstream's message `<key> is required`.
fn text_param(params: &PyDict, key: &str) -> Result<String, Failure> {
    match params.get(key) {
        Some(PyValue::Str(v)) if !pystr::strip(v).is_empty() => Ok(pystr::strip(v).to_string()),
        _ => Err(Failure(format!("{key} is required"))),
    }
}

/// The window of a feedback: the default, narrowed to `lookback` turns when given.
fn window(params: &PyDict) -> Result<Window, Failure> {
    let mut w = Window::default();
    if !matches!(params.get("lookback"), None | Some(PyValue::Null)) {
        w.turns = int_param(params, "lookback", Some(1))? as usize;
    }
    Ok(w)
}

/// The fired ids of every credited turn, each once, newest turn first.
fn fired_union(r: &FeedbackReport) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in &r.credited {
        for id in &c.fired {
            if !out.contains(id) {
                out.push(id.clone());
            }
        }
    }
    out
}

impl Daemon {
    pub(super) fn protocol(&self) -> PyValue {
        let mut d = PyDict::new();
        d.insert("protocol_version".into(), count(PROTOCOL_VERSION as usize));
        d.insert(
            "methods".into(),
            PyValue::List(METHODS.iter().map(|m| s(m.name)).collect()),
        );
        d.insert(
            "route_modes".into(),
            PyValue::List(
                crate::service::route::RouteMode::ALL
                    .iter()
                    .map(|m| s(m.as_str()))
                    .collect(),
            ),
        );
        d.insert("route_mode".into(), s(self.route_mode.as_str()));
        PyValue::Dict(d)
    }

    /// A v12 write was made: a state file counts it like `learn` (paper), or is saved
    /// at once (corrected: the write-ahead log replays only `learn` and `maintain`); a
    /// database has committed it already.
    fn wrote(&mut self) -> Result<(), Failure> {
        if self.brain.is_store() {
            return Ok(());
        }
        if self.profile.fixes_bugs() {
            self.save()?;
            Ok(())
        } else {
            self.count_write()
        }
    }

    pub(super) fn inject(&mut self, params: &PyDict) -> Result<PyValue, Failure> {
        let id = text_param(params, "id")?;
        let content = text_param(params, "content")?;
        let kind = match params.get("type").and_then(PyValue::as_str) {
            Some(k @ ("TEACHING" | "CORRECTION" | "DIRECTIVE")) => k.to_string(),
            _ => {
                return Err(Failure(
                    "type must be one of: TEACHING, CORRECTION, DIRECTIVE".into(),
                ))
            }
        };
        let source = match params.get("metadata") {
            None | Some(PyValue::Null) => "daemon".to_string(),
            Some(PyValue::Dict(m)) => m
                .get("source")
                .and_then(PyValue::as_str)
                .unwrap_or("daemon")
                .to_string(),
            Some(_) => return Err(Failure("metadata must be an object".into())),
        };
        let connect_min_sim = self.brain.connect_min_sim()?;
        let report = self.brain.inject(&InjectRequest {
            id: id.clone(),
            content,
            node_type: kind,
            summary: None,
            vector: None,
            connect_top_k: crabpath::inject::DEFAULT_CONNECT_TOP_K,
            connect_min_sim,
            source,
        })?;
        if !report.skipped {
            self.wrote()?;
        }
        let mut d = PyDict::new();
        d.insert("injected".into(), PyValue::Bool(!report.skipped));
        d.insert("node_id".into(), s(&report.node_id));
        Ok(PyValue::Dict(d))
    }

    pub(super) fn last_fired(&mut self, params: &PyDict) -> Result<PyValue, Failure> {
        let chat_id = chat_id_param(params)?;
        let lookback = int_param(params, "lookback", Some(1))? as usize;
        let log = self.brain.recent_turns(&chat_id, lookback)?;
        let mut d = PyDict::new();
        d.insert("chat_id".into(), s(&chat_id));
        d.insert("lookback".into(), count(lookback));
        d.insert(
            "fired_nodes".into(),
            strs(&turns::recent_fired(&log, lookback)),
        );
        Ok(PyValue::Dict(d))
    }

    pub(super) fn learn_by_chat_id(&mut self, params: &PyDict) -> Result<PyValue, Failure> {
        let chat_id = chat_id_param(params)?;
        let outcome = float_param(params, "outcome")?;
        let window = window(params)?;
        let used_ids = match params.get("used_ids") {
            None | Some(PyValue::Null) => None,
            Some(_) => Some(super::str_list_param(params, "used_ids")?),
        };
        let r = self.brain.feedback(&FeedbackRequest {
            outcome,
            chat_id: Some(&chat_id),
            fired_ids: None,
            turns_ago: None,
            window,
            used_ids,
        })?;
        if r.edges_updated > 0 {
            self.wrote()?;
        }
        let mut d = PyDict::new();
        d.insert("edges_updated".into(), count(r.edges_updated));
        d.insert("fired_ids_penalized".into(), strs(&fired_union(&r)));
        d.insert("node_injected".into(), PyValue::Bool(false));
        d.insert("credited".into(), r.credited_json());
        Ok(PyValue::Dict(d))
    }

    pub(super) fn correction(&mut self, params: &PyDict) -> Result<PyValue, Failure> {
        let chat_id = chat_id_param(params)?;
        let outcome = float_param(params, "outcome")?;
        let window = window(params)?;
        let content = params
            .get("content")
            .and_then(PyValue::as_str)
            .map(|c| pystr::strip(c).to_string())
            .unwrap_or_default();
        let mut d = PyDict::new();
        if content.is_empty() {
            let r = self.brain.feedback(&FeedbackRequest {
                outcome,
                chat_id: Some(&chat_id),
                fired_ids: None,
                turns_ago: None,
                window,
                used_ids: None,
            })?;
            if r.edges_updated > 0 {
                self.wrote()?;
            }
            d.insert("edges_updated".into(), count(r.edges_updated));
            d.insert("fired_ids_penalized".into(), strs(&fired_union(&r)));
            d.insert("correction_injected".into(), PyValue::Bool(false));
            d.insert("credited".into(), r.credited_json());
            return Ok(PyValue::Dict(d));
        }
        let r = self.brain.correct(&CorrectRequest {
            content: &content,
            chat_id: Some(&chat_id),
            turns_ago: None,
            outcome,
            window,
            source: "daemon",
        })?;
        if !r.deduped {
            self.wrote()?;
        }
        d.insert(
            "edges_updated".into(),
            count(r.feedback.edges_updated + r.inhibited_edges.len() + r.inhibited_nodes.len()),
        );
        d.insert(
            "fired_ids_penalized".into(),
            strs(&fired_union(&r.feedback)),
        );
        d.insert("correction_injected".into(), PyValue::Bool(r.injected));
        d.insert("node_id".into(), s(&r.node_id));
        d.insert("deduped".into(), PyValue::Bool(r.deduped));
        d.insert("credited".into(), r.feedback.credited_json());
        Ok(PyValue::Dict(d))
    }

    pub(super) fn capture_feedback(&mut self, params: &PyDict) -> Result<PyValue, Failure> {
        let chat_id = chat_id_param(params)?;
        let window = window(params)?;
        let kind = match params.get("kind").and_then(PyValue::as_str) {
            Some(k @ ("TEACHING" | "CORRECTION" | "DIRECTIVE")) => k.to_string(),
            _ => {
                return Err(Failure(
                    "kind must be one of: CORRECTION, TEACHING, DIRECTIVE".into(),
                ))
            }
        };
        let content = text_param(params, "content")?;
        let key = match (params.get("dedup_key"), params.get("message_id")) {
            (Some(PyValue::Str(k)), _) if !pystr::strip(k).is_empty() => {
                Some(pystr::strip(k).to_string())
            }
            (Some(PyValue::Str(_)), _) => {
                return Err(Failure("dedup_key must be a non-empty string".into()))
            }
            (Some(PyValue::Null) | None, Some(PyValue::Str(k))) if !pystr::strip(k).is_empty() => {
                Some(pystr::strip(k).to_string())
            }
            (Some(PyValue::Null) | None, Some(PyValue::Str(_))) => {
                return Err(Failure("message_id must be a non-empty string".into()))
            }
            (Some(PyValue::Null) | None, None | Some(PyValue::Null)) => None,
            (Some(_), _) => return Err(Failure("dedup_key must be a string".into())),
            (_, Some(_)) => return Err(Failure("message_id must be a string".into())),
        };
        let outcome = match params.get("outcome") {
            None | Some(PyValue::Null) => (kind == "CORRECTION").then_some(-1.0),
            Some(_) => Some(float_param(params, "outcome")?),
        };
        let key_hash = key.as_ref().map(|k| format!("key:{k}"));
        let mut d = PyDict::new();
        if let Some(h) = &key_hash {
            if self.brain.ledger_has(h)? {
                let log = self.brain.recent_turns(&chat_id, window.turns)?;
                d.insert("deduped".into(), PyValue::Bool(true));
                d.insert("edges_updated".into(), count(0));
                d.insert(
                    "fired_ids_used".into(),
                    strs(&turns::recent_fired(&log, window.turns)),
                );
                d.insert("dedup_key_used".into(), s(key.as_deref().unwrap_or("")));
                return Ok(PyValue::Dict(d));
            }
        }
        let (node_id, injected, deduped, feedback) = if kind == "CORRECTION" {
            let r = self.brain.correct(&CorrectRequest {
                content: &content,
                chat_id: Some(&chat_id),
                turns_ago: None,
                outcome: outcome.unwrap_or(-1.0),
                window,
                source: "capture_feedback",
            })?;
            (r.node_id, r.injected, r.deduped, r.feedback)
        } else {
            let t = self
                .brain
                .teach(&content, &kind, Some(&chat_id), "capture_feedback")?;
            let f = match (outcome, t.deduped) {
                (Some(o), false) => self.brain.feedback(&FeedbackRequest {
                    outcome: o,
                    chat_id: Some(&chat_id),
                    fired_ids: None,
                    turns_ago: None,
                    window,
                    used_ids: None,
                })?,
                _ => FeedbackReport::default(),
            };
            (t.node_id, t.injected, t.deduped, f)
        };
        if let (Some(h), false) = (&key_hash, deduped) {
            self.brain.remember(h, &kind, &chat_id, &node_id)?;
        }
        if !deduped {
            self.wrote()?;
        }
        d.insert("deduped".into(), PyValue::Bool(deduped));
        d.insert("edges_updated".into(), count(feedback.edges_updated));
        d.insert("fired_ids_used".into(), strs(&fired_union(&feedback)));
        if let Some(k) = &key {
            d.insert("dedup_key_used".into(), s(k));
        }
        if injected {
            d.insert("injected_node_id".into(), s(&node_id));
        }
        if let (Some(o), false) = (outcome, deduped) {
            d.insert("outcome_used".into(), PyValue::Float(o));
        }
        d.insert("credited".into(), feedback.credited_json());
        Ok(PyValue::Dict(d))
    }
}
