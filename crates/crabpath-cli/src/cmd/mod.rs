//! One module per subcommand: parse, call the brain ([`crabpath_brain::Brain`]), print.

pub mod anchor;
pub mod autotune;
pub mod compact;
pub mod conversation;
pub mod daemon;
pub mod doctor;
pub mod exchange;
pub mod fetch_model;
pub mod forget;
pub mod health;
pub mod info;
pub mod init;
pub mod inject;
pub mod journal;
pub mod learn;
pub mod learn_chat;
pub mod maintain;
pub mod mcp;
pub mod merge;
pub mod migrate;
pub mod query;
pub mod reembed;
pub mod replay;
pub mod snapshot;
pub mod sync;
pub mod token;

use crate::args::Command;
use crate::context::Ctx;
use crate::error::CliResult;

/// Runs a parsed command; returns the exit status.
pub fn dispatch(ctx: &Ctx, command: &Command) -> CliResult {
    crate::values::check(ctx, command)?;
    match command {
        Command::Init(a) => init::run(ctx, a),
        Command::Query(a) => query::run(ctx, a),
        Command::Learn(a) => learn::run(ctx, a),
        Command::Merge(a) => merge::run_merge(ctx, a),
        Command::Anchor(a) => anchor::run(ctx, a),
        Command::Connect(a) => merge::run_connect(ctx, a),
        Command::Maintain(a) => maintain::run(ctx, a),
        Command::Inject(a) => inject::run(ctx, a),
        Command::Replay(a) => replay::run(ctx, a),
        Command::Health(a) => health::run(ctx, a),
        Command::Journal(a) => journal::run(ctx, a),
        Command::Doctor(a) => doctor::run(ctx, a),
        Command::Info(a) => info::run(ctx, a),
        Command::Compact(a) => compact::run(ctx, a),
        Command::Daemon(a) => daemon::run(ctx, a),
        Command::Sync(a) => sync::run(ctx, a),
        Command::Snapshot(a) => snapshot::run_snapshot(ctx, a),
        Command::Rollback(a) => snapshot::run_rollback(ctx, a),
        Command::Export(a) => exchange::run_export(ctx, a),
        Command::Import(a) => exchange::run_import(ctx, a),
        Command::Migrate(a) => migrate::run(ctx, a),
        Command::Mcp(a) => mcp::run(ctx, a),
        Command::Reembed(a) => reembed::run(ctx, a),
        Command::FetchModel(a) => fetch_model::run(a),
        Command::Autotune(a) => autotune::run(ctx, a),
        Command::Token(a) => token::run(a),
        Command::Forget(a) => forget::run(ctx, a),
    }
}
