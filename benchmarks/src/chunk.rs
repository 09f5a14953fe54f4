//! Sentence-aware chunking of news articles, after llama-index's `SentenceSplitter`
//! (`llama_index/node_parser/text/sentence.py`), the splitter the official MultiHop-RAG
//! retrieval script uses (`yixuantt/MultiHop-RAG`, `simple_retrieval.py`:
//! `SentenceSplitter(chunk_size=256)` in an ingestion pipeline over `corpus.json`, each
//! article a document whose body is the text and whose metadata is its title, publication
//! date and source).
//!
//! # What is matched
//!
//! * Parameters: `chunk_size = 256` (the script's), `chunk_overlap = 200` (llama-index's
//!   `SENTENCE_CHUNK_OVERLAP`, left at its default by the script), paragraph separator
//!   `"\n\n\n"`, word separator `" "`, secondary regex `[^,.;。？！]+[,.;。？！]?` — the
//!   values of llama-index 0.9.40, the version the script's `requirement.txt` pins (later
//!   versions add `|[,.;。？！]` to the regex, keeping lone clause ends).
//! * Metadata awareness (`split_text_metadata_aware`): the chunk budget is `chunk_size` minus
//!   the token count of the metadata string `title: …\npublished_at: …\nsource: …`
//!   ([`metadata_str`]); the overlap budget stays 200.
//! * Splitting (`_split`): a text within the budget is one split; otherwise it is cut by the
//!   first rule that gives more than one part — paragraphs, then sentences, then the
//!   secondary regex, then words, then characters — and every part over the budget is cut
//!   again the same way. Separators are kept on the part
//!   that follows them (`split_text_keep_separator`), empty parts dropped.
//! * Merging (`_merge`), overlap included: splits are appended while they fit; a chunk that
//!   is closed seeds the next one with its last splits, as many as fit in 200 tokens; a new
//!   chunk always takes at least one split, even when the carried overlap and that split
//!   together exceed the budget. (llama-index's whole-sentence flag never changes the
//!   outcome of its merge loop and is not kept.) Chunks are stripped and blank ones dropped
//!   (`_postprocess_chunks`); an empty body gives one empty chunk (`_split_text`).
//! * The node text the script embeds and scores (`get_content(MetadataMode.LLM)`):
//!   `"{metadata}\n\n{chunk}"`, stripped ([`node_text`]).
//!
//! # What is approximated
//!
//! * **Token counts.** llama-index counts with its global tokenizer (`get_tokenizer()`,
//!   tiktoken's `cl100k_base` BPE, the encoding of `gpt-3.5-turbo`). No BPE vocabulary is used here: [`token_count`] counts the pieces
//!   of `cl100k_base`'s pre-tokenisation pattern (contractions, letter runs with one leading
//!   non-letter, digit groups of at most three, punctuation runs, whitespace runs). Every
//!   piece is at least one BPE token, so the count is a lower bound: equal on text of common
//!   English words, numbers and punctuation, lower on rare or long words (which BPE cuts
//!   into several tokens). Chunks may therefore hold somewhat more than 256 real tokens, and
//!   chunk boundaries differ from the official ones where the counts differ.
//! * **Sentences.** llama-index uses NLTK's untrained `PunktSentenceTokenizer`; here
//!   ([`sentences`]) a sentence ends after a run of `.`, `?` or `!` (plus closing quotes and
//!   brackets) that is followed by whitespace and then more text. Punkt's heuristics for
//!   ellipses and initials are not reproduced. As with llama-index's span-based split, the
//!   whitespace after a sentence stays with it and leading whitespace of the text is
//!   dropped.
//!
//! Everything is deterministic and depends only on the text.

use crate::data::text::py_strip;

/// Chunk size of the official script (`simple_retrieval.py`, `--chunk_size` default).
pub const CHUNK_SIZE: usize = 256;
/// llama-index's default overlap of `SentenceSplitter` (`SENTENCE_CHUNK_OVERLAP`).
pub const CHUNK_OVERLAP: usize = 200;
/// llama-index's default paragraph separator (`DEFAULT_PARAGRAPH_SEP`).
pub const PARAGRAPH_SEPARATOR: &str = "\n\n\n";
/// Clause ends of llama-index 0.9's secondary chunking regex (`CHUNKING_REGEX`).
const CLAUSE_ENDS: [char; 6] = [',', '.', ';', '。', '？', '！'];

/// Why a text cannot be chunked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChunkError {
    /// The metadata alone uses the whole chunk budget (llama-index raises the same).
    #[error(
        "the metadata takes {metadata_tokens} tokens, not less than the chunk size {chunk_size}"
    )]
    MetadataTooLong {
        /// Tokens of the metadata string.
        metadata_tokens: usize,
        /// The chunk size.
        chunk_size: usize,
    },
}

/// A `SentenceSplitter` with llama-index's defaults but the chunk size (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SentenceSplitter {
    /// Token budget of a chunk (metadata included).
    pub chunk_size: usize,
    /// Token budget of the overlap carried into the next chunk.
    pub chunk_overlap: usize,
}

impl Default for SentenceSplitter {
    /// The official configuration: 256 / 200.
    fn default() -> Self {
        SentenceSplitter {
            chunk_size: CHUNK_SIZE,
            chunk_overlap: CHUNK_OVERLAP,
        }
    }
}

/// One piece of text before merging (llama-index `_Split`, whose `is_sentence` flag
/// never changes the merge, see [`SentenceSplitter::merge`], and is left out).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Split<'a> {
    text: &'a str,
    tokens: usize,
}

impl SentenceSplitter {
    /// Chunks `text` whose node carries `metadata` (llama-index
    /// `split_text_metadata_aware`): the budget is the chunk size less the metadata's tokens.
    pub fn split_with_metadata(
        &self,
        text: &str,
        metadata: &str,
    ) -> Result<Vec<String>, ChunkError> {
        let metadata_tokens = token_count(metadata);
        if metadata_tokens >= self.chunk_size {
            return Err(ChunkError::MetadataTooLong {
                metadata_tokens,
                chunk_size: self.chunk_size,
            });
        }
        Ok(self.split_text(text, self.chunk_size - metadata_tokens))
    }

    /// Chunks `text` with a budget of `budget` tokens per chunk (llama-index `_split_text`).
    pub fn split_text(&self, text: &str, budget: usize) -> Vec<String> {
        if text.is_empty() {
            return vec![String::new()];
        }
        let splits = split(text, budget.max(1));
        self.merge(&splits, budget.max(1))
    }

    /// llama-index `_merge` then `_postprocess_chunks` (see the module docs).
    fn merge(&self, splits: &[Split<'_>], budget: usize) -> Vec<String> {
        let mut chunks: Vec<String> = Vec::new();
        let mut cur: Vec<(&str, usize)> = Vec::new();
        let mut cur_len = 0usize;
        let mut new_chunk = true;
        let mut i = 0;
        while i < splits.len() {
            let s = &splits[i];
            let fits = cur_len + s.tokens <= budget;
            // llama-index also adds a split that does not fit when it is a whole sentence,
            // but only after closing the chunk whenever it does not fit: that test never
            // decides anything, and a split is added exactly when it fits or opens a chunk
            if new_chunk || fits {
                cur_len += s.tokens;
                cur.push((s.text, s.tokens));
                i += 1;
                new_chunk = false;
            } else {
                // close the chunk, seeding the next with its last splits within the overlap
                chunks.push(cur.iter().map(|(t, _)| *t).collect());
                let last = std::mem::take(&mut cur);
                cur_len = 0;
                new_chunk = true;
                for &(t, n) in last.iter().rev() {
                    if cur_len + n > self.chunk_overlap {
                        break;
                    }
                    cur_len += n;
                    cur.insert(0, (t, n));
                }
            }
        }
        if !new_chunk {
            chunks.push(cur.iter().map(|(t, _)| *t).collect());
        }
        chunks
            .into_iter()
            .map(|c| py_strip(&c).to_string())
            .filter(|c| !c.is_empty())
            .collect()
    }
}

/// llama-index `_split`: pieces of at most `budget` tokens (single characters excepted).
fn split(text: &str, budget: usize) -> Vec<Split<'_>> {
    let tokens = token_count(text);
    if tokens <= budget {
        return vec![Split { text, tokens }];
    }
    let parts = parts_by_rules(text);
    let mut out = Vec::new();
    for p in parts {
        let tokens = token_count(p);
        if tokens <= budget || p.chars().nth(1).is_none() {
            out.push(Split { text: p, tokens });
        } else {
            out.extend(split(p, budget));
        }
    }
    out
}

/// llama-index `_get_splits_by_fns`: the first rule giving more than one part.
fn parts_by_rules(text: &str) -> Vec<&str> {
    let rules: [fn(&str) -> Vec<&str>; 4] = [
        |t| keep_separator(t, PARAGRAPH_SEPARATOR),
        sentences,
        clauses,
        |t| keep_separator(t, " "),
    ];
    for rule in rules {
        let parts = rule(text);
        if parts.len() > 1 {
            return parts;
        }
    }
    text.char_indices()
        .map(|(i, c)| &text[i..i + c.len_utf8()])
        .collect()
}

/// `text` cut before every occurrence of `sep`, the separator kept at the start of the part
/// that follows it, empty parts dropped (llama-index `split_text_keep_separator`).
pub fn keep_separator<'a>(text: &'a str, sep: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, _) in text.match_indices(sep) {
        if i > start {
            out.push(&text[start..i]);
        }
        start = i;
    }
    // the first part has no separator; later parts start with theirs (never empty)
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// The matches of llama-index 0.9's secondary regex `[^,.;。？！]+[,.;。？！]?` (Python
/// `re.findall`): runs of other characters, each with the one clause end after it. A clause
/// end that does not follow such a run (the second of `",,"`, or one opening the text) is
/// matched by nothing and dropped, as there.
fn clauses(text: &str) -> Vec<&str> {
    let is_end = |c: char| CLAUSE_ENDS.contains(&c);
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_run = false;
    for (i, c) in text.char_indices() {
        let next = i + c.len_utf8();
        if is_end(c) {
            if in_run {
                out.push(&text[start..next]);
            }
            start = next;
            in_run = false;
        } else {
            in_run = true;
        }
    }
    if in_run {
        out.push(&text[start..]);
    }
    out
}

/// Sentences of `text` (the approximation of Punkt described in the module docs): each runs
/// from its first character to the first character of the next, so the whitespace after a
/// sentence stays with it; leading whitespace of `text` is dropped.
pub fn sentences(text: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut starts = Vec::new();
    if let Some(&(i, _)) = chars.iter().find(|(_, c)| !c.is_whitespace()) {
        starts.push(i);
    }
    let mut k = 0;
    while k < chars.len() {
        if !matches!(chars[k].1, '.' | '?' | '!') {
            k += 1;
            continue;
        }
        let mut j = k;
        while j < chars.len() && matches!(chars[j].1, '.' | '?' | '!') {
            j += 1;
        }
        while j < chars.len() && matches!(chars[j].1, '"' | '\'' | ')' | ']' | '}' | '”' | '’')
        {
            j += 1;
        }
        let mut w = j;
        while w < chars.len() && chars[w].1.is_whitespace() {
            w += 1;
        }
        if w > j && w < chars.len() && starts.last().is_some_and(|&s| s < chars[w].0) {
            starts.push(chars[w].0);
        }
        k = w.max(k + 1);
    }
    starts
        .iter()
        .enumerate()
        .map(|(n, &s)| &text[s..starts.get(n + 1).copied().unwrap_or(text.len())])
        .collect()
}

/// Approximate `cl100k_base` token count: the number of pieces of its pre-tokenisation
/// pattern (see the module docs; a lower bound of the BPE count).
pub fn token_count(text: &str) -> usize {
    let c: Vec<char> = text.chars().collect();
    let n = c.len();
    let letter = |x: char| x.is_alphabetic();
    let digit = |x: char| x.is_numeric();
    let newline = |x: char| x == '\n' || x == '\r';
    let punct = |x: char| !x.is_whitespace() && !letter(x) && !digit(x);
    let (mut i, mut pieces) = (0, 0);
    while i < n {
        pieces += 1;
        // 's 't 're 've 'm 'll 'd (case-insensitive)
        if c[i] == '\'' {
            let lower = |k: usize| c.get(k).map(|x| x.to_ascii_lowercase());
            let len = match (lower(i + 1), lower(i + 2)) {
                (Some('r'), Some('e')) | (Some('v'), Some('e')) | (Some('l'), Some('l')) => 2,
                (Some('s' | 't' | 'm' | 'd'), _) => 1,
                _ => 0,
            };
            if len > 0 {
                i += 1 + len;
                continue;
            }
        }
        // [^\r\n\p{L}\p{N}]?\p{L}+
        let lead = usize::from(!letter(c[i]) && !digit(c[i]) && !newline(c[i]));
        if c.get(i + lead).is_some_and(|&x| letter(x)) {
            i += lead;
            while i < n && letter(c[i]) {
                i += 1;
            }
            continue;
        }
        // \p{N}{1,3}
        if digit(c[i]) {
            let end = (i + 3).min(n);
            i += 1;
            while i < end && digit(c[i]) {
                i += 1;
            }
            continue;
        }
        // ' ?[^\s\p{L}\p{N}]+[\r\n]*'
        let lead = usize::from(c[i] == ' ');
        if c.get(i + lead).is_some_and(|&x| punct(x)) {
            i += lead;
            while i < n && punct(c[i]) {
                i += 1;
            }
            while i < n && newline(c[i]) {
                i += 1;
            }
            continue;
        }
        // whitespace: \s*[\r\n]+ | \s+(?!\S) | \s+
        let mut end = i;
        while end < n && c[end].is_whitespace() {
            end += 1;
        }
        if let Some(last_nl) = (i..end).rev().find(|&k| newline(c[k])) {
            i = last_nl + 1;
        } else if end < n && end - i > 1 {
            i = end - 1;
        } else {
            i = end.max(i + 1);
        }
    }
    pieces
}

/// The metadata string llama-index builds for an article's nodes (`get_metadata_str`, the
/// template `{key}: {value}` joined by newlines, keys in the order of the script's
/// `JSONReader`: title, published_at, source; a missing value is Python's `None`).
pub fn metadata_str(title: &str, published_at: Option<&str>, source: Option<&str>) -> String {
    format!(
        "title: {title}\npublished_at: {}\nsource: {}",
        published_at.unwrap_or("None"),
        source.unwrap_or("None")
    )
}

/// The text of a node as the official script embeds and scores it
/// (`get_content(MetadataMode.LLM)`: `"{metadata}\n\n{chunk}"`, stripped).
pub fn node_text(metadata: &str, chunk: &str) -> String {
    py_strip(&format!("{}\n\n{chunk}", py_strip(metadata))).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Piece counts worked out by hand from the cl100k_base pattern.
    #[test]
    fn token_count_follows_the_pretokeniser_pattern() {
        // "Hello" | " world" | "!"
        assert_eq!(token_count("Hello world!"), 3);
        // "It" | "'s" | " 2024" → "It" "'s" " " "202" "4": a space before digits is its own
        // piece (the digit rule takes no leading character)
        assert_eq!(token_count("It's 2024"), 5);
        // "a" | "  " (whitespace less its last char) | " b"
        assert_eq!(token_count("a   b"), 3);
        // "x" | "\n\n" | "y"
        assert_eq!(token_count("x\n\ny"), 3);
        // "(" + "see" is one piece (one leading non-letter), ")." one punctuation run
        assert_eq!(token_count("(see)."), 2);
        assert_eq!(token_count(""), 0);
        assert_eq!(token_count("   "), 1);
    }

    #[test]
    fn separators_stay_with_the_following_part() {
        assert_eq!(keep_separator("a b  c", " "), ["a", " b", " ", " c"]);
        assert_eq!(keep_separator(" a", " "), [" a"]);
        assert_eq!(
            keep_separator("p1\n\n\np2", PARAGRAPH_SEPARATOR),
            ["p1", "\n\n\np2"]
        );
        assert_eq!(clauses("a, b; c"), ["a,", " b;", " c"]);
        assert_eq!(clauses(",,x"), ["x"]);
        assert_eq!(clauses("a,,b."), ["a,", "b."]);
    }

    #[test]
    fn sentences_keep_their_trailing_whitespace() {
        assert_eq!(
            sentences("  One. Two? \"Three!\"  Four 3.5 five"),
            ["One. ", "Two? ", "\"Three!\"  ", "Four 3.5 five"]
        );
        assert_eq!(sentences("No end."), ["No end."]);
        assert_eq!(sentences("Trailing. "), ["Trailing. "]);
    }

    /// Five sentences; each split "Ann is here. " counts 5 tokens ("Ann" " is" " here" "."
    /// and the trailing " ", a whitespace piece at the end of its split), the last one
    /// ("Eve is here.") 4.
    ///
    /// Budget 12, overlap 5: chunk 1 = Ann Bob (10; Cat would make 15); the overlap keeps Bob
    /// (5 ≤ 5, Ann would make 10); chunk 2 = Bob Cat; chunk 3 = Cat Dan; chunk 4 = Dan Eve
    /// (5 + 4 = 9), the last. Without overlap: Ann Bob, Cat Dan (10; Eve would make 14), Eve.
    #[test]
    fn merge_carries_the_overlap_into_the_next_chunk() {
        let text = "Ann is here. Bob is here. Cat is here. Dan is here. Eve is here.";
        assert_eq!(token_count("Ann is here. "), 5);
        assert_eq!(token_count("Eve is here."), 4);
        let split = |overlap| {
            SentenceSplitter {
                chunk_size: 12,
                chunk_overlap: overlap,
            }
            .split_text(text, 12)
        };
        assert_eq!(
            split(5),
            [
                "Ann is here. Bob is here.",
                "Bob is here. Cat is here.",
                "Cat is here. Dan is here.",
                "Dan is here. Eve is here."
            ]
        );
        // without overlap the chunks are disjoint
        assert_eq!(
            split(0),
            [
                "Ann is here. Bob is here.",
                "Cat is here. Dan is here.",
                "Eve is here."
            ]
        );
        // a text within the budget is one chunk, stripped; an empty text one empty chunk
        let s = SentenceSplitter::default();
        assert_eq!(s.split_text("  Short.  ", 12), ["Short."]);
        assert_eq!(s.split_text("", 12), [""]);
    }

    /// 32 equal sentences "The crab ran on the sand today. " of 9 tokens ("The" " crab"
    /// " ran" " on" " the" " sand" " today" "." " "; the last, without its space, 8), budget
    /// 100, overlap 40: chunk 1 takes 11 (99; a 12th makes 108); each closed chunk carries
    /// its last 4 (36; 5 would be 45 > 40) and adds 7 more (36 + 63 = 99): sentences 1–11,
    /// 8–18, 15–25, 22–32 (36 + 6·9 + 8 = 98), so 4 chunks of 11 sentences each.
    #[test]
    fn overlap_on_a_long_text() {
        let one = "The crab ran on the sand today.";
        assert_eq!(token_count(&format!("{one} ")), 9);
        let text = [one; 32].join(" ");
        let s = SentenceSplitter {
            chunk_size: 100,
            chunk_overlap: 40,
        };
        let eleven = [one; 11].join(" ");
        assert_eq!(s.split_text(&text, 100), vec![eleven; 4]);
    }

    /// A sentence over the budget is cut by clauses, then words; a chunk takes a split only
    /// while it fits (or when it opens the chunk). "aa bb cc dd ee" is 5 tokens
    /// ("aa" " bb" " cc" " dd" " ee"); with budget 2 it is cut into words (no clause end),
    /// merged two by two: "aa bb", "cc dd", "ee".
    #[test]
    fn long_sentences_fall_back_to_words() {
        let s = SentenceSplitter {
            chunk_size: 2,
            chunk_overlap: 0,
        };
        assert_eq!(s.split_text("aa bb cc dd ee", 2), ["aa bb", "cc dd", "ee"]);
        // a clause end cuts first: clauses "aa bb," (3 tokens: cut again, by words, into
        // "aa" and " bb," of 2) and " cc dd" (2 tokens, kept); "aa" (1) + " bb," (2) exceed
        // the budget, and so do " bb," + " cc dd"
        assert_eq!(s.split_text("aa bb, cc dd", 2), ["aa", "bb,", "cc dd"]);
    }

    /// The metadata budget: "title: T\npublished_at: None\nsource: S" counts "title" ":"
    /// " T" "\n" "published" "_at" ":" " None" "\n" "source" ":" " S" = 12 tokens (the
    /// underscore leads the letter run "at").
    #[test]
    fn metadata_reduces_the_budget() {
        let m = metadata_str("T", None, Some("S"));
        assert_eq!(m, "title: T\npublished_at: None\nsource: S");
        assert_eq!(token_count(&m), 12);
        let s = SentenceSplitter {
            chunk_size: 12,
            chunk_overlap: 0,
        };
        assert_eq!(
            s.split_with_metadata("x", &m),
            Err(ChunkError::MetadataTooLong {
                metadata_tokens: 12,
                chunk_size: 12
            })
        );
        let s = SentenceSplitter {
            chunk_size: 22,
            chunk_overlap: 0,
        };
        // budget 10: two 5-token sentences per chunk
        assert_eq!(
            s.split_with_metadata("Ann is here. Bob is here. Cat is here.", &m)
                .unwrap(),
            ["Ann is here. Bob is here.", "Cat is here."]
        );
        assert_eq!(
            node_text(&m, "chunk"),
            "title: T\npublished_at: None\nsource: S\n\nchunk"
        );
    }
}
