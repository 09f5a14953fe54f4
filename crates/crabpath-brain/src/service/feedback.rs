//! Feedback from the agents a brain serves: the conversation log of the queries they
//! made, outcomes that arrive turns later, corrections and teachings (seed 003
//! §3.2–3.4, seed 002 §5.7–5.8; attribution rules in [`crate::service::turns`]).
//!
//! * [`Brain::record_turn`] appends a served query to its conversation.
//! * [`Brain::feedback`] teaches an outcome: to explicit fired ids (as `learn`), or to
//!   a conversation's recent turns, each learning `outcome · weight` along its fired
//!   ids with the profile's rule ([`crate::service::command::learn::learn_ids`]); each turn's
//!   credit is consumed once.
//! * [`Brain::correct`], in the corrected profile, applies a correction as a guardrail
//!   ([`CorrectionMode::Guardrail`], issue 31 item 4): the node beside the content it
//!   concerns, scoped to the corrected question's node (which ranks the corrected
//!   content first), no veto and no −1 on shared content edges. In the `paper` profile (and
//!   [`CorrectionMode::Veto`]) it adds a CORRECTION node connected as `inject --type
//!   CORRECTION` connects it, and inhibits the attributed turns' path: each traversed edge
//!   `from → to` becomes inhibitory (weight `−0.5 · weight` or lower) and the
//!   correction gets an inhibitory edge to each node the turn fired, so that the
//!   path no longer fires from where it started, and a query that recalls the
//!   correction suppresses every node of it. The attributed turns also learn
//!   `outcome · weight` (default outcome −1). A correction whose text the ledger knows
//!   is reported as such and applied once.
//! * [`Brain::teach`] adds a TEACHING (or DIRECTIVE) node, connected as `inject`
//!   connects it, once per text.
//!
//! Order of the writes: the turns are claimed first (their credit consumed), then the
//! graph is written in one transaction, then the ledger. A crash between two of them
//! loses a feedback rather than applying it twice: a retried correction finds its
//! turns consumed and its node present.

use crabpath::graph::{Edge, EdgeKind, Metadata};
use crabpath::inject::{DEFAULT_CONNECT_TOP_K, DEFAULT_INHIBITION_STRENGTH};
use serde_json::json;

use super::engine::{Backend, Brain, Scope};
use super::guardrail::{CorrectionMode, GUARDRAIL_MIN_SIM};
use super::ops::InjectRequest;
use crate::error::{Error, Result};
use crate::reference::journal::learn_event;
use crate::service::command::learn::learn_ids_tuned;
use crate::service::turns::{self, Attribution, LedgerEntry, Turn, TurnRecord, Window};
use crate::store::sql_error;

/// A feedback: an outcome for explicit ids, or for a conversation's recent turns.
#[derive(Debug, Clone)]
pub struct FeedbackRequest<'a> {
    /// The outcome, finite (agents: in [−1, 1]).
    pub outcome: f64,
    /// The conversation whose recent turns it concerns.
    pub chat_id: Option<&'a str>,
    /// Explicit fired ids in order (instead of a conversation).
    pub fired_ids: Option<Vec<String>>,
    /// The one turn it concerns, counted back from the newest (0 = the newest).
    pub turns_ago: Option<usize>,
    /// The attribution window.
    pub window: Window,
    /// The nodes the agent used for the newest credited turn, in the answer or not
    /// (issue 31 item 5): credited to that turn's question node instead of its fired
    /// ids (`super::neurogenesis`); that turn's edges learn only between the fired
    /// nodes among them (`used_path`, corrected profile).
    pub used_ids: Option<Vec<String>>,
}

/// The path a turn with `used` ids (the agent's `used_ids`, issue 31 item 5) learns
/// along in the corrected profile: its `fired` ids that the agent used, in fired order.
///
/// The learning rule reads a turn's fired ids as one path and moves the edges along it
/// and from each id to the next few (creating them when missing: eight fired nodes
/// without edges got 20), so a +1 along everything fired linked a question's seeds to
/// each other: turns of other sessions that the agent did not use.
/// Another question that seeds one of them then found the other as its traversal's best
/// addition, in the fifth place a conversation brain gives it (`super::lead`). On LoCoMo
/// asked again (`bench locomo-rounds`, agent-confirmed) 25 held-out questions lost their
/// hit in the first five, most of them that way; with the path cut to the used ids, 5
/// lose it and 9 lose recall@10 (49 before), held-out recall@10 rises 0.752 → 0.786,
/// and the asked questions keep success@5 0.99 from round 2. What the agent used but
/// the turn did not fire is credited to the question's node alone
/// (`super::neurogenesis`). Cost: O(|fired| · |used|).
fn used_path(fired: &[String], used: &[String]) -> Vec<String> {
    fired.iter().filter(|f| used.contains(f)).cloned().collect()
}

/// One turn's share of a feedback, as applied.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnCredit {
    /// The turn (0 for explicit fired ids).
    pub turn: i64,
    /// Turns between it and the newest.
    pub turns_ago: usize,
    /// Its weight.
    pub weight: f64,
    /// The outcome it learned (`outcome · weight`).
    pub outcome: f64,
    /// The ids it learned along (its fired ids that still exist; for the turn that
    /// `used_ids` concern, in the corrected profile, only those the agent used:
    /// `used_path`).
    pub fired: Vec<String>,
    /// Edges the learning rule updated.
    pub edges_updated: usize,
}

/// What a feedback did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FeedbackReport {
    /// The turns credited, newest first.
    pub credited: Vec<TurnCredit>,
    /// Turns inside the window whose credit another feedback had consumed.
    pub already_credited: Vec<i64>,
    /// Edges updated in all.
    pub edges_updated: usize,
}

/// A correction.
#[derive(Debug, Clone)]
pub struct CorrectRequest<'a> {
    /// The correction's text.
    pub content: &'a str,
    /// The conversation whose recent path it corrects.
    pub chat_id: Option<&'a str>,
    /// The one turn it concerns (see [`FeedbackRequest::turns_ago`]).
    pub turns_ago: Option<usize>,
    /// The outcome the attributed turns learn (−1 for a correction).
    pub outcome: f64,
    /// The attribution window.
    pub window: Window,
    /// `metadata.source` of the node.
    pub source: &'a str,
}

/// What a correction did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CorrectReport {
    /// The CORRECTION node (`correction::<hash>`).
    pub node_id: String,
    /// The ledger knew the text: nothing was applied.
    pub deduped: bool,
    /// The node was added now.
    pub injected: bool,
    /// The nodes it was connected to by similarity.
    pub connected_to: Vec<String>,
    /// The turns it was attributed to.
    pub feedback: FeedbackReport,
    /// Path edges made inhibitory (none in the guardrail modes).
    pub inhibited_edges: Vec<(String, String)>,
    /// Nodes the correction now inhibits (its inhibitory edges to fired nodes; none
    /// in the guardrail mode).
    pub inhibited_nodes: Vec<String>,
    /// How it was applied (issue 31 item 4).
    pub mode: CorrectionMode,
}

/// What a teaching did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TeachReport {
    /// The node (`teaching::<hash>` or `directive::<hash>`).
    pub node_id: String,
    /// The ledger knew the text: nothing was applied.
    pub deduped: bool,
    /// The node was added now.
    pub injected: bool,
    /// The nodes it was connected to.
    pub connected_to: Vec<String>,
}

fn check_outcome(outcome: f64) -> Result<()> {
    crate::service::command::learn::check_outcome("outcome", outcome).map_err(Error::Invalid)
}

impl Brain {
    /// Appends a served query to its conversation's log (see [`crate::service::turns`]);
    /// returns the turn's number. A brain opened for reading records nothing (0).
    pub fn record_turn(&mut self, chat_id: &str, record: TurnRecord) -> Result<i64> {
        let ts = turns::now();
        match &mut self.backend {
            Backend::Store(s) => {
                if !s.store.writable() {
                    return Ok(0);
                }
                let n = turns::sql::append(s.store.conn(), chat_id, ts, &record)
                    .map_err(sql_error(s.store.path()))?;
                if let Some(r) = s.resident.as_mut() {
                    // our own commit, of no graph row: nothing to catch up with
                    r.data_version = s.store.data_version()?;
                }
                Ok(n)
            }
            Backend::Json(_) => Ok(self.serving.turns.append(chat_id, ts, record)),
        }
    }

    /// The newest `limit` turns of a conversation, oldest first.
    pub fn recent_turns(&mut self, chat_id: &str, limit: usize) -> Result<Vec<Turn>> {
        match &self.backend {
            Backend::Store(s) => turns::sql::recent(s.store.conn(), chat_id, limit)
                .map_err(sql_error(s.store.path())),
            Backend::Json(_) => Ok(self.serving.turns.recent(chat_id, limit)),
        }
    }

    fn claim_turns(&mut self, chat_id: &str, turns: &[i64]) -> Result<Vec<i64>> {
        if !self.options.write {
            return Err(Error::Invalid(format!(
                "{}: opened for reading only",
                self.path().display()
            )));
        }
        match &mut self.backend {
            Backend::Store(s) => {
                let claimed = turns::sql::claim(s.store.conn(), chat_id, turns)
                    .map_err(sql_error(s.store.path()))?;
                if let Some(r) = s.resident.as_mut() {
                    r.data_version = s.store.data_version()?;
                }
                Ok(claimed)
            }
            Backend::Json(_) => Ok(self.serving.turns.claim(chat_id, turns)),
        }
    }

    /// Gives back the credit of `turns` that [`Self::claim_turns`] took for a feedback
    /// whose write was refused, so that nothing of the refused feedback stays (its
    /// retry credits the same turns).
    fn release_turns(&mut self, chat_id: &str, turns: &[i64]) -> Result<()> {
        if turns.is_empty() {
            return Ok(());
        }
        match &mut self.backend {
            Backend::Store(s) => {
                turns::sql::release(s.store.conn(), chat_id, turns)
                    .map_err(sql_error(s.store.path()))?;
                if let Some(r) = s.resident.as_mut() {
                    r.data_version = s.store.data_version()?;
                }
                Ok(())
            }
            Backend::Json(_) => {
                self.serving.turns.release(chat_id, turns);
                Ok(())
            }
        }
    }

    /// The error `e` of a feedback or correction whose write was refused after it
    /// claimed the credit of `claimed` turns of `chat_id`: the credit is given back
    /// first ([`Self::release_turns`]); when that fails too, the error says so.
    fn refused_after_claim(&mut self, chat_id: &str, claimed: &[i64], e: Error) -> Error {
        match self.release_turns(chat_id, claimed) {
            Ok(()) => e,
            Err(r) => Error::Invalid(format!(
                "{e}; and the credit of turns {claimed:?} could not be given back ({r}): they count as credited"
            )),
        }
    }

    fn ledger_entry(&mut self, hash: &str) -> Result<Option<LedgerEntry>> {
        match &self.backend {
            Backend::Store(s) => {
                turns::sql::ledger(s.store.conn(), hash).map_err(sql_error(s.store.path()))
            }
            Backend::Json(_) => Ok(self.serving.turns.ledger(hash)),
        }
    }

    /// The ledger entry of a taught or corrected text whose node is still in the brain.
    /// An entry whose node is gone (pruned by `maintain` once its links decayed, merged
    /// into another) is dropped, so that the text is taught again: before, a second
    /// `teach` of it answered `deduped` with the id of a node that no longer existed,
    /// and the acknowledged teaching was nowhere.
    fn live_ledger_entry(&mut self, hash: &str) -> Result<Option<LedgerEntry>> {
        let Some(e) = self.ledger_entry(hash)? else {
            return Ok(None);
        };
        if self.has_node(&e.node_id)? {
            return Ok(Some(e));
        }
        match &mut self.backend {
            Backend::Store(s) => {
                turns::sql::drop_ledger(s.store.conn(), hash).map_err(sql_error(s.store.path()))?;
                if let Some(r) = s.resident.as_mut() {
                    r.data_version = s.store.data_version()?;
                }
            }
            Backend::Json(_) => self.serving.turns.drop_ledger(hash),
        }
        Ok(None)
    }

    fn add_ledger(&mut self, e: LedgerEntry) -> Result<()> {
        match &mut self.backend {
            Backend::Store(s) => {
                turns::sql::add_ledger(s.store.conn(), &e).map_err(sql_error(s.store.path()))?;
                if let Some(r) = s.resident.as_mut() {
                    r.data_version = s.store.data_version()?;
                }
            }
            Backend::Json(_) => {
                self.serving.turns.add_ledger(e);
            }
        }
        Ok(())
    }

    /// Whether the ledger knows `key` (a [`turns::content_hash`], or any key a caller
    /// recorded with [`Brain::remember`], e.g. a message id).
    pub fn ledger_has(&mut self, key: &str) -> Result<bool> {
        Ok(self.ledger_entry(key)?.is_some())
    }

    /// Records `key` in the ledger (a second record of the same key is ignored).
    pub fn remember(&mut self, key: &str, kind: &str, chat_id: &str, node_id: &str) -> Result<()> {
        self.add_ledger(LedgerEntry {
            hash: key.to_string(),
            kind: kind.to_string(),
            chat_id: Some(chat_id.to_string()),
            node_id: node_id.to_string(),
            ts: turns::now(),
        })
    }

    /// The turns a feedback to `chat_id` reaches now, claimed (their credit
    /// consumed), with the turns themselves.
    fn attribute_and_claim(
        &mut self,
        chat_id: &str,
        window: &Window,
        turns_ago: Option<usize>,
    ) -> Result<(Attribution, Vec<Turn>)> {
        if let Some(u) = self.serving.unjournaled.get(chat_id) {
            return Err(u.feedback_error(chat_id));
        }
        let log = self.recent_turns(chat_id, window.turns.max(1))?;
        let mut a = turns::attribute(&log, turns::now(), window, turns_ago);
        let wanted: Vec<i64> = a.credits.iter().map(|c| c.turn).collect();
        let claimed = self.claim_turns(chat_id, &wanted)?;
        // a turn another process claimed in between counts as consumed
        for c in &a.credits {
            if !claimed.contains(&c.turn) {
                a.consumed.push(c.turn);
            }
        }
        a.credits.retain(|c| claimed.contains(&c.turn));
        Ok((a, log))
    }

    /// The ids of `ids` that are nodes of the brain.
    fn existing(&mut self, ids: &[String]) -> Result<Vec<String>> {
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if self.has_node(id)? {
                out.push(id.clone());
            }
        }
        Ok(out)
    }

    /// Teaches an outcome (see the module docs). Errors: a non-finite outcome; neither
    /// ids nor a conversation; in the corrected profile, an explicit id that is not a
    /// node.
    pub fn feedback(&mut self, req: &FeedbackRequest<'_>) -> Result<FeedbackReport> {
        check_outcome(req.outcome)?;
        if let Some(ids) = &req.fired_ids {
            let s = self.learn(ids, req.outcome)?;
            return Ok(FeedbackReport {
                credited: vec![TurnCredit {
                    turn: 0,
                    turns_ago: 0,
                    weight: 1.0,
                    outcome: req.outcome,
                    fired: ids.clone(),
                    edges_updated: s.edges_updated,
                }],
                already_credited: Vec::new(),
                edges_updated: s.edges_updated,
            });
        }
        let Some(chat_id) = req.chat_id else {
            return Err(Error::Invalid(
                "feedback needs a chat_id or fired_ids".into(),
            ));
        };
        let (a, log) = self.attribute_and_claim(chat_id, &req.window, req.turns_ago)?;
        let mut report = FeedbackReport {
            already_credited: a.consumed.clone(),
            ..FeedbackReport::default()
        };
        let mut plan = self.credit_plan(&a, &log, req.outcome)?;
        if let (Some(used), Some(first), true) = (
            req.used_ids.as_deref(),
            plan.first_mut(),
            self.profile.fixes_bugs(),
        ) {
            first.fired = used_path(&first.fired, used);
        }
        let scope: Vec<String> = plan.iter().flat_map(|c| c.fired.clone()).collect();
        let profile = self.profile;
        let tuning = self.tuning()?;
        if !scope.is_empty() {
            let written = self.write(Scope::Nodes(&scope), |w| {
                let mut out = plan.clone();
                for c in out.iter_mut().filter(|c| !c.fired.is_empty()) {
                    let s = learn_ids_tuned(w.graph, &c.fired, c.outcome, profile, &tuning)?;
                    c.edges_updated = s.edges_updated;
                    let refs: Vec<&str> = c.fired.iter().map(String::as_str).collect();
                    w.journal(credit_event(&refs, c.outcome, profile, Some(chat_id), None));
                }
                Ok(out)
            });
            report.credited = match written {
                Ok(out) => out,
                Err(e) => {
                    // a refused write learned nothing: its turns keep their credit
                    let claimed: Vec<i64> = a.credits.iter().map(|c| c.turn).collect();
                    return Err(self.refused_after_claim(chat_id, &claimed, e));
                }
            };
        } else {
            report.credited = plan;
        }
        report.edges_updated = report.credited.iter().map(|c| c.edges_updated).sum();
        // neurogenesis: each credited turn's question node (issue 31 items 1 and 5)
        for (i, c) in report.credited.iter().enumerate() {
            if let Some(t) = log.iter().find(|t| t.turn == c.turn) {
                let used = if i == 0 {
                    req.used_ids.as_deref()
                } else {
                    None
                };
                self.credit_question(t, c.outcome, used)?;
            }
        }
        Ok(report)
    }

    /// The credits of an attribution with the fired ids (still nodes) of their turns.
    fn credit_plan(
        &mut self,
        a: &Attribution,
        log: &[Turn],
        outcome: f64,
    ) -> Result<Vec<TurnCredit>> {
        let mut plan = Vec::new();
        for c in &a.credits {
            let Some(t) = log.iter().find(|t| t.turn == c.turn) else {
                continue;
            };
            plan.push(TurnCredit {
                turn: c.turn,
                turns_ago: c.turns_ago,
                weight: c.weight,
                outcome: outcome * c.weight,
                fired: self.existing(&t.fired)?,
                edges_updated: 0,
            });
        }
        Ok(plan)
    }

    /// Applies a correction (see the module docs) with the profile's
    /// [`CorrectionMode`]. Errors: an empty text; a non-finite outcome; no embedder for
    /// the text.
    pub fn correct(&mut self, req: &CorrectRequest<'_>) -> Result<CorrectReport> {
        self.correct_with(req, CorrectionMode::default_for(self.profile))
    }

    /// [`Brain::correct`] with the given mode (the measurement compares both, issue 31
    /// item 4; [`CorrectionMode`] says what each writes).
    pub fn correct_with(
        &mut self,
        req: &CorrectRequest<'_>,
        mode: CorrectionMode,
    ) -> Result<CorrectReport> {
        check_outcome(req.outcome)?;
        let content = req.content.trim();
        if content.is_empty() {
            return Err(Error::Invalid("content must be a non-empty string".into()));
        }
        let hash = turns::content_hash(content);
        let node_id = turns::feedback_node_id("CORRECTION", content);
        if let Some(e) = self.live_ledger_entry(&hash)? {
            return Ok(CorrectReport {
                node_id: e.node_id,
                deduped: true,
                mode,
                ..CorrectReport::default()
            });
        }
        let (a, log) = match req.chat_id {
            Some(c) => self.attribute_and_claim(c, &req.window, req.turns_ago)?,
            None => (Attribution::default(), Vec::new()),
        };
        let claimed: Vec<i64> = a.credits.iter().map(|c| c.turn).collect();
        let done = self.correct_claimed(req, mode, hash, node_id, a, log);
        match (done, req.chat_id) {
            // a refused correction learned nothing: its turns keep their credit
            (Err(e), Some(chat_id)) => Err(self.refused_after_claim(chat_id, &claimed, e)),
            (done, _) => done,
        }
    }

    /// The part of [`Brain::correct_with`] after the credit of the turns `a` was
    /// claimed: the correction's node, its credit and inhibition, and its ledger entry.
    fn correct_claimed(
        &mut self,
        req: &CorrectRequest<'_>,
        mode: CorrectionMode,
        hash: String,
        node_id: String,
        a: Attribution,
        log: Vec<Turn>,
    ) -> Result<CorrectReport> {
        let guardrail = mode != CorrectionMode::Veto;
        let content = req.content.trim();
        let connect_min_sim = match guardrail {
            true => GUARDRAIL_MIN_SIM,
            false => self.connect_min_sim()?,
        };
        let injected = self.inject_as(
            &InjectRequest {
                id: node_id.clone(),
                content: content.to_string(),
                node_type: "CORRECTION".into(),
                summary: None,
                vector: None,
                connect_top_k: DEFAULT_CONNECT_TOP_K,
                connect_min_sim,
                source: req.source.to_string(),
            },
            !guardrail,
        )?;
        let plan = self.credit_plan(&a, &log, req.outcome)?;
        // the path steps of the credited turns whose ends still exist
        let mut steps: Vec<(String, String, f64)> = Vec::new();
        for c in &plan {
            if let Some(t) = log.iter().find(|t| t.turn == c.turn) {
                for (from, to) in &t.path {
                    if c.fired.contains(from) && c.fired.contains(to) {
                        steps.push((from.clone(), to.clone(), c.weight));
                    }
                }
            }
        }
        let mut scope: Vec<String> = vec![node_id.clone()];
        scope.extend(plan.iter().flat_map(|c| c.fired.clone()));
        scope.extend(injected.connected_to.iter().cloned());
        let profile = self.profile;
        let tuning = self.tuning()?;
        let me = node_id.clone();
        // the guardrail rule scopes the correction to its question (issue 31 item 4,
        // super::guardrail): no content edge of its own, no −1 on shared content edges
        let scoped = mode == CorrectionMode::Guardrail;
        let similar = injected.connected_to.clone();
        let (credited, inhibited_edges, inhibited_nodes) =
            self.write(Scope::Nodes(&scope), |w| {
                if scoped {
                    super::guardrail::unlink_outgoing(w.graph, &me, &similar);
                }
                let mut credited = plan.clone();
                for c in credited
                    .iter_mut()
                    .filter(|c| !c.fired.is_empty() && !scoped)
                {
                    let s = learn_ids_tuned(w.graph, &c.fired, c.outcome, profile, &tuning)?;
                    c.edges_updated = s.edges_updated;
                    let refs: Vec<&str> = c.fired.iter().map(String::as_str).collect();
                    w.journal(credit_event(
                        &refs,
                        c.outcome,
                        profile,
                        req.chat_id,
                        Some(&me),
                    ));
                }
                let shares: Vec<(f64, Vec<String>)> = credited
                    .iter()
                    .map(|c| (c.weight, c.fired.clone()))
                    .collect();
                let (edges, nodes) = match mode {
                    CorrectionMode::Veto => veto(w.graph, &me, &steps, &shares)?,
                    CorrectionMode::GuardrailShared | CorrectionMode::Guardrail => {
                        (Vec::new(), Vec::new())
                    }
                };
                if profile.fixes_bugs() {
                    // the inputs the unlearning replay needs (issue 30 item 3)
                    let unlinked: &[String] = if scoped { &similar } else { &[] };
                    w.journal(correct_event(&me, mode, unlinked, &steps, &shares));
                }
                let learned = !scoped && credited.iter().any(|c| !c.fired.is_empty());
                let unlinked = scoped && !similar.is_empty();
                if edges.is_empty() && nodes.is_empty() && !learned && !unlinked {
                    w.discard();
                }
                Ok((credited, edges, nodes))
            })?;
        let mut credited = credited;
        if scoped && self.neurogenesis_enabled(None)? {
            for c in credited.iter_mut() {
                if let Some(t) = log.iter().find(|t| t.turn == c.turn) {
                    let steps = super::guardrail::question_steps(&node_id, &similar, c.weight);
                    c.edges_updated = self.question_edges(t, &steps, None, false)?;
                }
            }
        }
        self.add_ledger(LedgerEntry {
            hash,
            kind: "CORRECTION".into(),
            chat_id: req.chat_id.map(str::to_string),
            node_id: node_id.clone(),
            ts: turns::now(),
        })?;
        let edges_updated = credited.iter().map(|c| c.edges_updated).sum();
        Ok(CorrectReport {
            node_id,
            deduped: false,
            injected: !injected.skipped,
            connected_to: injected.connected_to,
            feedback: FeedbackReport {
                credited,
                already_credited: a.consumed,
                edges_updated,
            },
            inhibited_edges,
            inhibited_nodes,
            mode,
        })
    }

    /// Adds a teaching (`kind` TEACHING or DIRECTIVE) once per text (see the module
    /// docs). Errors: an empty text, another kind, no embedder.
    pub fn teach(
        &mut self,
        content: &str,
        kind: &str,
        chat_id: Option<&str>,
        source: &str,
    ) -> Result<TeachReport> {
        let content = content.trim();
        if content.is_empty() {
            return Err(Error::Invalid("content must be a non-empty string".into()));
        }
        if kind != "TEACHING" && kind != "DIRECTIVE" {
            return Err(Error::Invalid(format!(
                "kind must be TEACHING or DIRECTIVE, got {kind}"
            )));
        }
        let hash = turns::content_hash(content);
        let node_id = turns::feedback_node_id(kind, content);
        if let Some(e) = self.live_ledger_entry(&hash)? {
            return Ok(TeachReport {
                node_id: e.node_id,
                deduped: true,
                ..TeachReport::default()
            });
        }
        let connect_min_sim = self.connect_min_sim()?;
        let r = self.inject(&InjectRequest {
            id: node_id.clone(),
            content: content.to_string(),
            node_type: kind.into(),
            summary: None,
            vector: None,
            connect_top_k: DEFAULT_CONNECT_TOP_K,
            connect_min_sim,
            source: source.to_string(),
        })?;
        self.add_ledger(LedgerEntry {
            hash,
            kind: kind.into(),
            chat_id: chat_id.map(str::to_string),
            node_id: node_id.clone(),
            ts: turns::now(),
        })?;
        Ok(TeachReport {
            node_id,
            deduped: false,
            injected: !r.skipped,
            connected_to: r.connected_to,
        })
    }

    /// The minimum similarity of an injected node's connections: 0 for hash-v1 (whose
    /// similarities are small), 0.3 otherwise (upstream `daemon.py::_handle_inject`).
    pub fn connect_min_sim(&mut self) -> Result<f64> {
        let meta = self.embedder_meta()?;
        let name = meta
            .get("embedder_name")
            .and_then(|v| v.as_str())
            .unwrap_or("hash-v1");
        Ok(if name == "hash-v1" {
            0.0
        } else {
            crabpath::inject::DEFAULT_CONNECT_MIN_SIM
        })
    }
}

/// The `learn` entry of a turn's credit: the reference's entry, whose `metadata`
/// names, in the corrected profile, the conversation (`chat_id`) and the correction it
/// came from (`correction`), so that `forget` of either drops it with the rest of
/// their learning (issue 30 item 3, [`super::forget`]).
fn credit_event(
    fired: &[&str],
    outcome: f64,
    profile: crabpath::profile::Profile,
    chat_id: Option<&str>,
    correction: Option<&str>,
) -> pyformat::pyjson::PyDict {
    use pyformat::pyjson::{PyDict, PyValue};
    let mut e = learn_event(fired, outcome);
    if profile.fixes_bugs() {
        let mut m = PyDict::new();
        if let Some(c) = chat_id {
            m.insert("chat_id".into(), PyValue::Str(c.into()));
        }
        if let Some(c) = correction {
            m.insert("correction".into(), PyValue::Str(c.into()));
        }
        if !m.is_empty() {
            e.insert("metadata".into(), PyValue::Dict(m));
        }
    }
    e
}

/// What [`veto`] changed: the path edges `(from, to)` and the nodes the correction
/// now inhibits.
pub(super) type Vetoed = (Vec<(String, String)>, Vec<String>);

/// The veto rule's inhibitions ([`CorrectionMode::Veto`], see the module docs), in
/// order: each path step `(from, to, weight)` of the credited turns becomes inhibitory
/// (at most `−0.5 · weight`), then the correction `me` gets an inhibitory edge to each
/// node the credited turns fired (`shares`: each turn's attribution weight and fired
/// ids). Returns the path edges and the nodes that changed. [`Brain::correct_with`]'s
/// rule, and what the unlearning replay repeats ([`super::unlearn`]).
pub(super) fn veto(
    graph: &mut crabpath::graph::Graph,
    me: &str,
    steps: &[(String, String, f64)],
    shares: &[(f64, Vec<String>)],
) -> Result<Vetoed> {
    let mut edges = Vec::new();
    for (from, to, weight) in steps {
        let target = DEFAULT_INHIBITION_STRENGTH * weight;
        if inhibit(graph, from, to, target, me)? {
            edges.push((from.clone(), to.clone()));
        }
    }
    let mut nodes = Vec::new();
    if graph.get_node(me).is_some() {
        for (weight, fired) in shares {
            let target = DEFAULT_INHIBITION_STRENGTH * weight;
            for id in fired {
                if id != me && !nodes.contains(id) && inhibit(graph, me, id, target, me)? {
                    nodes.push(id.clone());
                }
            }
        }
    }
    Ok((edges, nodes))
}

/// The `type` of [`correct_event`].
pub const CORRECT_EVENT: &str = "correct";

/// The journal entry of a correction's own graph writes (corrected profile; issue 30
/// item 3), after the `inject` entry of its node and the `learn` entries of its
/// credited turns: `{"type": "correct", "id", "mode", "unlinked": [ids], "steps":
/// [[from, to, weight], ...], "shares": [[weight, [fired ids]], ...]}` — the
/// guardrail's removed edges from the correction to its similar nodes
/// ([`super::guardrail::unlink_outgoing`]) and the veto rule's inputs ([`veto`]).
pub fn correct_event(
    id: &str,
    mode: CorrectionMode,
    unlinked: &[String],
    steps: &[(String, String, f64)],
    shares: &[(f64, Vec<String>)],
) -> pyformat::pyjson::PyDict {
    use pyformat::pyjson::{PyDict, PyValue};
    let s = |x: &str| PyValue::Str(x.to_string());
    let mut e = PyDict::new();
    e.insert("type".into(), s(CORRECT_EVENT));
    e.insert("id".into(), s(id));
    e.insert("mode".into(), s(mode.as_str()));
    e.insert(
        "unlinked".into(),
        PyValue::List(unlinked.iter().map(|x| s(x)).collect()),
    );
    e.insert(
        "steps".into(),
        PyValue::List(
            steps
                .iter()
                .map(|(f, t, w)| PyValue::List(vec![s(f), s(t), PyValue::Float(*w)]))
                .collect(),
        ),
    );
    e.insert(
        "shares".into(),
        PyValue::List(
            shares
                .iter()
                .map(|(w, fired)| {
                    PyValue::List(vec![
                        PyValue::Float(*w),
                        PyValue::List(fired.iter().map(|x| s(x)).collect()),
                    ])
                })
                .collect(),
        ),
    );
    e
}

/// Makes the edge `from → to` inhibitory with weight at most `target` (added if
/// missing); true if it changed. Both ends must be nodes.
fn inhibit(
    graph: &mut crabpath::graph::Graph,
    from: &str,
    to: &str,
    target: f64,
    correction: &str,
) -> Result<bool> {
    let (Some(a), Some(b)) = (graph.lookup(from), graph.lookup(to)) else {
        return Ok(false);
    };
    if !graph.has_node(a) || !graph.has_node(b) || a == b {
        return Ok(false);
    }
    let target = target.clamp(-1.0, 0.0);
    match graph.edge_mut(a, b) {
        Some(e) => {
            if e.kind == EdgeKind::Inhibitory && e.weight <= target {
                return Ok(false);
            }
            e.weight = e.weight.min(target);
            e.kind = EdgeKind::Inhibitory;
            e.metadata.insert("source", "correction");
            e.metadata.insert("correction", correction);
        }
        None => {
            let mut metadata = Metadata::new();
            metadata.insert("source".into(), json!("correction"));
            metadata.insert("correction".into(), json!(correction));
            graph.add_edge(
                a,
                b,
                Edge::new(target)
                    .with_kind(EdgeKind::Inhibitory)
                    .with_metadata(metadata),
            )?;
        }
    }
    Ok(true)
}
