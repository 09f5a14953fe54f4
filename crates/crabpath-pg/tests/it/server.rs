//! Names for what the tests make on the server (its address: `testdata::postgres`).

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
