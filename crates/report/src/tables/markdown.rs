//! Markdown cells of the tables (one home for the escaping every table module uses).

/// `—` for an absent value.
pub fn cell(v: &Option<String>) -> String {
    v.clone().unwrap_or_else(|| "—".into())
}

/// Escapes `|` for a Markdown table cell.
pub fn md(s: &str) -> String {
    s.replace('|', "\\|")
}
