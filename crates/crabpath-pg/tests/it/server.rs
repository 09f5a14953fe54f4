//! The PostgreSQL server the tests talk to: `CRABPATH_POSTGRES` (an address
//! `crabpath_pg::connect` takes). Without it a test fails, saying how to start one,
//! unless `CRABPATH_SKIP_POSTGRES` says why it is not run (issue 32, "A real server in
//! the tests": never a silent skip).

/// The server's address, or `None` when `CRABPATH_SKIP_POSTGRES` gives a reason not to
/// run (printed). Panics when neither is set.
pub fn address() -> Option<String> {
    if let Ok(a) = std::env::var("CRABPATH_POSTGRES") {
        if !a.is_empty() {
            return Some(a);
        }
    }
    if let Ok(why) = std::env::var("CRABPATH_SKIP_POSTGRES") {
        if !why.is_empty() {
            eprintln!("not run: CRABPATH_SKIP_POSTGRES={why}");
            return None;
        }
    }
    panic!(
        "this test needs a PostgreSQL server: set CRABPATH_POSTGRES to its address \
         (e.g. postgres://crabpath@%2Ftmp%2Fpg/postgres; .ci/run starts a throwaway cluster, \
         README \"PostgreSQL\"), or CRABPATH_SKIP_POSTGRES to the reason it cannot run"
    )
}

/// A brain name no other test or run uses: `prefix`, the process id and a counter.
pub fn unique(prefix: &str) -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{prefix}_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}
