//! The text a node is EMBEDDED as (issue 28, "On a real folder"): one home for every path
//! that embeds a node — `init` of a folder or a conversation
//! ([`crate::service::init_store`]), `sync` of a changed file ([`crate::source::sync`]), `inject`,
//! `remember`, `merge` (and `reembed`, which must call [`embedded_text`] too). A node's
//! `content`, what an agent reads, is not changed by any of this.
//!
//! A folder's chunk is often a single line without its document: tldr-pages' `tar.md`
//! splits into `- [c]reate an archive and write it to a [f]ile:` and
//! `` `tar cf {{path/to/target.tar}} ...` `` — neither says "tar archive". So the corrected
//! profile's [`crate::source::bootstrap`] keeps, in the node's metadata under [`HEADER_KEY`], a
//! short header naming the chunk's document ([`document_header`]): the file's name
//! without its extension, the document's title (its first `# ` heading) when it differs,
//! the first line of the document's first paragraph (tldr's `> Archiving utility.`) and
//! the nearest `##`…`######` heading above the chunk. A node with a header is embedded as
//! the header, a newline, and its content with the bracket mnemonics removed
//! ([`demnemonise`]); a node without one (every node of the `paper` profile, a
//! conversation turn, an injected node) is embedded as its content, bit for bit.
//!
//! Measured on tldr-pages (176 questions, `bench folder`, success@5 by page): see
//! BENCHMARKS.md, "A question set on a real folder".

use std::borrow::Cow;

use crabpath::graph::{Metadata, Node};
use serde_json::Value;

use crate::store::schema::LEXICAL_JOINERS;

/// The node metadata key holding a chunk's document header (a string), written by the
/// corrected profile's bootstrap and by `sync` for each chunk it (re)writes.
pub const HEADER_KEY: &str = "doc";

/// The chunk text with tldr-pages' bracket mnemonics removed: `E[x]tract` → `Extract`,
/// `[c]reate` → `create`, `g[z]ipped` → `gzipped`. The rule is the lexical index's:
/// every character of [`LEXICAL_JOINERS`] (`[` and `]`) is removed, as the SQL
/// expression of [`crate::store::schema::SCHEMA_V3_LEXICAL`] removes them before
/// tokenizing, so that both searches read a word the same way. Without it both the
/// hash embedder and WordPiece read `e [ x ] tract`.
pub fn demnemonise(text: &str) -> Cow<'_, str> {
    if text.contains(LEXICAL_JOINERS) {
        Cow::Owned(
            text.chars()
                .filter(|c| !LEXICAL_JOINERS.contains(c))
                .collect(),
        )
    } else {
        Cow::Borrowed(text)
    }
}

/// A Markdown heading line's level and text (`## Usage` → `(2, "Usage")`), or `None`.
fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.chars().take_while(|&c| c == '#').count();
    let rest = line[level..].strip_prefix(' ')?;
    (1..=6).contains(&level).then(|| (level, rest.trim()))
}

/// The header of every chunk of one document, in chunk order (see the module docs):
/// `rel`'s file name without its extension; the title, the text of the first line that
/// is a `# ` heading, when it is not the same name (ignoring case); the first line of
/// the first chunk after the title that is not a heading (a `>` quote marker removed);
/// and for each chunk the last `##`…`######` heading at the start of a line of that chunk
/// or of an earlier one. Lines joined with `\n`, each with its mnemonics removed.
pub fn document_header(rel: &str, chunks: &[String]) -> Vec<String> {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let stem = match name.rfind('.') {
        Some(i) if i > 0 => &name[..i],
        _ => name,
    };
    let mut title: Option<&str> = None;
    let mut lead: Option<&str> = None;
    for c in chunks {
        let first = c.lines().next().unwrap_or("").trim();
        match heading(first) {
            Some((1, t)) if title.is_none() => title = Some(t),
            Some(_) => {}
            None if title.is_some() && lead.is_none() && !first.is_empty() => {
                lead = Some(first.trim_start_matches('>').trim());
            }
            None => {}
        }
    }
    let mut fixed = vec![stem.to_string()];
    if let Some(t) = title.filter(|t| !t.eq_ignore_ascii_case(stem)) {
        fixed.push(t.to_string());
    }
    if let Some(l) = lead.filter(|l| !l.is_empty()) {
        fixed.push(l.to_string());
    }
    let mut section: Option<&str> = None;
    chunks
        .iter()
        .map(|c| {
            for line in c.lines() {
                if let Some((level, t)) = heading(line.trim_end()) {
                    if level >= 2 {
                        section = Some(t);
                    }
                }
            }
            let mut lines = fixed.clone();
            if let Some(s) = section {
                lines.push(s.to_string());
            }
            demnemonise(&lines.join("\n")).into_owned()
        })
        .collect()
}

/// The header a node's metadata holds ([`HEADER_KEY`]), if any.
pub fn header_of(metadata: &Metadata) -> Option<&str> {
    metadata.get(HEADER_KEY).and_then(Value::as_str)
}

/// The text `content` is embedded as under `header` (see the module docs): the content
/// itself without a header; else the header, `\n`, and the content [`demnemonise`]d.
pub fn embedded_text_of<'a>(header: Option<&str>, content: &'a str) -> Cow<'a, str> {
    match header {
        None => Cow::Borrowed(content),
        Some(h) => Cow::Owned(format!("{h}\n{}", demnemonise(content))),
    }
}

/// The text `node` is embedded as: [`embedded_text_of`] its header and its content.
pub fn embedded_text(node: &Node) -> Cow<'_, str> {
    embedded_text_of(header_of(&node.metadata), &node.content)
}
