//! Which queries of a stream learn and which are scored: the evaluation [`Schedule`] of the
//! stream protocols (`--split`) and its [`Step`]s, read by the plan ([`crate::plan`]) and
//! walked by the learning methods ([`crate::methods`]).

/// Which queries of the stream learn and which are scored (`--split`). Static methods
/// answer the scored queries; learning methods walk every step in order, scoring a query
/// before learning from it (test-then-train, as the reference's `_run_learning`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Schedule {
    /// Every query is scored, then learned from.
    Prequential,
    /// The first `floor(n·F)` queries are learned from (prequentially, not scored); the
    /// rest are scored on the frozen graph.
    Split(f64),
}

/// One step of a [`Schedule`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// Query index in stream order.
    pub query: usize,
    /// The learning methods update the graph after this query.
    pub learn: bool,
    /// Every method's result for this query is scored and written.
    pub scored: bool,
}

impl Schedule {
    /// `prequential` / `split`.
    pub fn name(self) -> &'static str {
        match self {
            Schedule::Prequential => "prequential",
            Schedule::Split(_) => "split",
        }
    }

    /// The steps over `n` queries, in order.
    pub fn steps(self, n: usize) -> Vec<Step> {
        let train = match self {
            Schedule::Prequential => n,
            Schedule::Split(f) => ((n as f64) * f).floor() as usize,
        };
        (0..n)
            .map(|q| Step {
                query: q,
                learn: q < train,
                scored: match self {
                    Schedule::Prequential => true,
                    Schedule::Split(_) => q >= train,
                },
            })
            .collect()
    }
}
