//! The question set of a folder benchmark (issue 28, "A question set on a real folder"):
//! a JSON file kept as data apart from the engine (rebar's style), with a header naming
//! the folder it was written for and how, and the questions, each with the files of the
//! folder that answer it.
//!
//! ```json
//! {"about": {"repository": "tldr-pages/tldr", "commit": "08e345f…", "folder": "pages/",
//!            "files": 7425, "written_by": "…", "how": "…", "scoring": "…"},
//!  "questions": [{"id": "q001", "area": "archives", "question": "how do I unpack a .tar.gz file",
//!                 "acceptable": ["common/tar.md", "common/unp.md"]}]}
//! ```
//!
//! [`QuestionSet::load`] reads and checks it: every question has a non-blank text and
//! id, at least one acceptable file, each a relative path inside the folder, and no two
//! questions (compared case-insensitively, spaces collapsed) or ids are the same.
//! [`QuestionSet::check_files`] also checks that every acceptable file exists in a folder.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Where a question set comes from and how it was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct About {
    /// The public repository the folder is taken from (`owner/name`).
    pub repository: String,
    /// Its commit (40 hex digits).
    pub commit: String,
    /// The folder inside the repository that brains are built from.
    pub folder: String,
    /// How many files the folder has at that commit.
    pub files: usize,
    /// Who wrote the questions.
    pub written_by: String,
    /// How the questions and their acceptable files were chosen.
    pub how: String,
    /// How answers are scored.
    pub scoring: String,
}

/// One question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Question {
    /// Stable id (`q001`, …).
    pub id: String,
    /// The area it belongs to (archives, networking, git, …), for reading the results.
    pub area: String,
    /// The question, in a user's words.
    pub question: String,
    /// The files of the folder (relative paths) that answer it; any one of them counts.
    pub acceptable: Vec<String>,
}

/// A question set (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuestionSet {
    /// The header.
    pub about: About,
    /// The questions, in file order.
    pub questions: Vec<Question>,
}

/// A question compared with the others: lower case, runs of white space as one space.
fn normalised(q: &str) -> String {
    q.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

impl QuestionSet {
    /// Reads and checks the question set at `path` (see the module docs); errors name the
    /// file, the question (0-based) and the field.
    pub fn load(path: &Path) -> Result<QuestionSet> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let set: QuestionSet = serde_json::from_str(&text)
            .map_err(|e| crate::data::json::json_error(path, None, &e))?;
        set.check(path)?;
        Ok(set)
    }

    /// Checks the rules of the module docs; `path` names the file in errors.
    pub fn check(&self, path: &Path) -> Result<()> {
        let bad = |row: usize, field: &str, expected: &str, found: String| Error::Malformed {
            file: path.to_path_buf(),
            row,
            field: field.to_string(),
            expected: expected.to_string(),
            found,
        };
        if self.questions.is_empty() {
            return Err(Error::Usage(format!(
                "{}: field questions: expected at least one question, found none",
                path.display()
            )));
        }
        let mut seen_text: BTreeMap<String, usize> = BTreeMap::new();
        let mut seen_id: BTreeMap<&str, usize> = BTreeMap::new();
        for (row, q) in self.questions.iter().enumerate() {
            if q.id.trim().is_empty() {
                return Err(bad(row, "id", "a non-blank id", "a blank one".into()));
            }
            if let Some(first) = seen_id.insert(&q.id, row) {
                return Err(bad(
                    row,
                    "id",
                    "an id no other question has",
                    format!("`{}`, the id of question {first}", q.id),
                ));
            }
            let key = normalised(&q.question);
            if key.is_empty() {
                return Err(bad(
                    row,
                    "question",
                    "a non-blank question",
                    "a blank one".into(),
                ));
            }
            if let Some(first) = seen_text.insert(key, row) {
                return Err(bad(
                    row,
                    "question",
                    "a question no other asks",
                    format!("the question of question {first}"),
                ));
            }
            if q.acceptable.is_empty() {
                return Err(bad(
                    row,
                    "acceptable",
                    "at least one acceptable file",
                    "an empty list".into(),
                ));
            }
            for (k, f) in q.acceptable.iter().enumerate() {
                let field = format!("acceptable[{k}]");
                let p = Path::new(f);
                let inside = !f.trim().is_empty()
                    && p.is_relative()
                    && p.components()
                        .all(|c| matches!(c, std::path::Component::Normal(_)));
                if !inside {
                    return Err(bad(
                        row,
                        &field,
                        "a relative path inside the folder (no `..`, no leading `/`)",
                        format!("`{f}`"),
                    ));
                }
                if q.acceptable[..k].contains(f) {
                    return Err(bad(
                        row,
                        &field,
                        "a file listed once",
                        format!("`{f}` again"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Checks that every acceptable file of every question exists in `folder`; `path`
    /// names the question file in errors.
    pub fn check_files(&self, path: &Path, folder: &Path) -> Result<()> {
        for (row, q) in self.questions.iter().enumerate() {
            for (k, f) in q.acceptable.iter().enumerate() {
                if !folder.join(f).is_file() {
                    return Err(Error::Malformed {
                        file: path.to_path_buf(),
                        row,
                        field: format!("acceptable[{k}]"),
                        expected: format!("a file of {}", folder.display()),
                        found: format!("`{f}`, which is not there"),
                    });
                }
            }
        }
        Ok(())
    }
}
