//! Progress bars for long work (embedding, replaying), shown when a person is watching.

use indicatif::{ProgressBar, ProgressStyle};

/// A progress bar on stderr (hidden unless `show`).
pub fn bar(len: usize, what: &str, show: bool) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len as u64);
    pb.set_style(
        ProgressStyle::with_template("{msg:>10} [{bar:40}] {pos}/{len} ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb.set_message(what.to_string());
    pb
}
