//! One system through every LoCoMo conversation (issue 29, "What to build" 1): for each
//! conversation a fresh `${WORK}` and a fresh server; every turn stored through the
//! adapter's store tool in conversation order, then every question asked through its
//! search tool; the turn ids that come back, the characters returned, the client's round
//! trip of each call and the server's peak RSS kept.
//!
//! A transport failure or timeout stops the system: it is kept as its last error with how
//! far it got, and the run goes on with the next system. A tool error (`isError`) of a
//! store is counted and the run goes on (a memory may refuse a turn, e.g. a duplicate);
//! one of a search counts as an empty answer.

use std::path::Path;
use std::time::Instant;

use serde_json::Value;

use super::adapter::{render, result_ids, Adapter};
use super::client::{setup, Env, Server};
use crate::locomo::data::{Category, Locomo};
use crate::locomo::turns::conversation_turns;

/// Per question: what one system returned.
#[derive(Debug, Clone, Default)]
pub struct Answer {
    /// Turn ids, best first (duplicates removed, first kept).
    pub ids: Vec<String>,
    /// Characters of the result's text content.
    pub chars: usize,
    /// The client's round trip, milliseconds.
    pub ms: f64,
}

/// One system's run.
#[derive(Debug, Clone)]
pub struct SystemRun {
    /// The adapter.
    pub adapter: Adapter,
    /// What the server reports in `initialize` (name version).
    pub reported: String,
    /// `answers[conversation][question]`, for the conversations finished.
    pub answers: Vec<Vec<Answer>>,
    /// Turns stored, and the seconds their store calls took (client wall time).
    pub stored: (usize, f64),
    /// Store calls the tool refused, and the first refusal.
    pub store_errors: (usize, Option<String>),
    /// Search calls the tool refused, and the first refusal.
    pub search_errors: (usize, Option<String>),
    /// Result parse failures (no items at the pointer), and the first.
    pub parse_errors: (usize, Option<String>),
    /// Largest peak RSS of a conversation's server (KiB).
    pub peak_rss_kib: u64,
    /// The failure that stopped the system: `(conversation, message)`.
    pub failure: Option<(String, String)>,
    /// Wall seconds of the whole system.
    pub seconds: f64,
}

impl SystemRun {
    /// Whether every conversation finished.
    pub fn complete(&self, conversations: usize) -> bool {
        self.failure.is_none() && self.answers.len() == conversations
    }
}

fn note_first(slot: &mut (usize, Option<String>), msg: String) {
    slot.0 += 1;
    if slot.1.is_none() {
        slot.1 = Some(msg);
    }
}

/// Runs `adapter` over every conversation of `data`, asking for `limit` results.
pub fn run_system(
    adapter: &Adapter,
    env: &Env,
    data: &Locomo,
    limit: usize,
    work_root: &Path,
) -> SystemRun {
    let started = Instant::now();
    let mut run = SystemRun {
        adapter: adapter.clone(),
        reported: String::new(),
        answers: Vec::new(),
        stored: (0, 0.0),
        store_errors: (0, None),
        search_errors: (0, None),
        parse_errors: (0, None),
        peak_rss_kib: 0,
        failure: None,
        seconds: 0.0,
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            run.failure = Some((String::new(), format!("no tokio runtime: {e}")));
            return run;
        }
    };
    for conv in &data.conversations {
        let work = match tempfile::Builder::new()
            .prefix(&format!("{}-{}-", adapter.name, conv.sample_id))
            .tempdir_in(work_root)
        {
            Ok(w) => w,
            Err(e) => {
                run.failure = Some((
                    conv.sample_id.clone(),
                    format!("no work directory in {}: {e}", work_root.display()),
                ));
                break;
            }
        };
        let result = rt.block_on(conversation(
            adapter,
            env,
            conv,
            limit,
            work.path(),
            &mut run,
        ));
        match result {
            Ok(answers) => run.answers.push(answers),
            Err(e) => {
                run.failure = Some((conv.sample_id.clone(), e));
                break;
            }
        }
    }
    run.seconds = started.elapsed().as_secs_f64();
    run
}

async fn conversation(
    adapter: &Adapter,
    env: &Env,
    conv: &crate::locomo::data::Conversation,
    limit: usize,
    work: &Path,
    run: &mut SystemRun,
) -> Result<Vec<Answer>, String> {
    setup(adapter, env, work)?;
    let mut server = Server::start(adapter, env, work).await?;
    let out = talk(adapter, conv, limit, &mut server, run).await;
    run.peak_rss_kib = run.peak_rss_kib.max(server.peak_rss_kib());
    run.reported = server.reported.clone();
    server.stop().await;
    out
}

async fn talk(
    adapter: &Adapter,
    conv: &crate::locomo::data::Conversation,
    limit: usize,
    server: &mut Server,
    run: &mut SystemRun,
) -> Result<Vec<Answer>, String> {
    let t0 = Instant::now();
    for t in conversation_turns(conv) {
        let look = |n: &str| match n {
            "turn_id" => Some(t.id.clone()),
            "text" => Some(t.text.clone()),
            "speaker" => Some(t.speaker.clone()),
            "session" => Some(t.session.clone()),
            "time" => Some(t.time.clone().unwrap_or_default()),
            "conversation" => Some(conv.sample_id.clone()),
            _ => None,
        };
        let r = server
            .call(&adapter.store.tool, render(&adapter.store.arguments, &look))
            .await
            .map_err(|e| format!("storing turn {}: {e}", t.id))?;
        if let Some(e) = r.error {
            note_first(
                &mut run.store_errors,
                format!("{} turn {}: {e}", conv.sample_id, t.id),
            );
        }
        run.stored.0 += 1;
    }
    run.stored.1 += t0.elapsed().as_secs_f64();
    let mut answers = Vec::with_capacity(conv.questions.len());
    for (i, q) in conv.questions.iter().enumerate() {
        let look = |n: &str| match n {
            "question" => Some(q.question.clone()),
            "limit" => Some(limit.to_string()),
            _ => None,
        };
        let t = Instant::now();
        let r = server
            .call(
                &adapter.search.tool,
                render(&adapter.search.arguments, &look),
            )
            .await
            .map_err(|e| format!("question {i}: {e}"))?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let mut ids = Vec::new();
        if let Some(e) = r.error {
            note_first(
                &mut run.search_errors,
                format!("{} question {i}: {e}", conv.sample_id),
            );
        } else {
            match result_ids(&adapter.results, &r.json, &r.text) {
                Ok(found) => ids = found,
                Err(e) if r.json == Value::Null && adapter.results.compiled.is_none() => {
                    note_first(
                        &mut run.parse_errors,
                        format!(
                            "{} question {i}: the result is not JSON ({e})",
                            conv.sample_id
                        ),
                    )
                }
                Err(e) => note_first(
                    &mut run.parse_errors,
                    format!("{} question {i}: {e}", conv.sample_id),
                ),
            }
        }
        let mut seen = std::collections::HashSet::new();
        ids.retain(|x| seen.insert(x.clone()));
        answers.push(Answer {
            ids,
            chars: r.chars,
            ms,
        });
    }
    Ok(answers)
}

/// Per question of the finished conversations, `(category, evidence as released)`, in
/// the order of [`SystemRun::answers`].
pub fn questions(data: &Locomo, conversations: usize) -> Vec<(Category, &[String])> {
    data.conversations
        .iter()
        .take(conversations)
        .flat_map(|c| {
            c.questions
                .iter()
                .map(|q| (q.category, q.released_evidence.as_slice()))
        })
        .collect()
}
