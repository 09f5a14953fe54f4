//! Recall by the LoCoMo paper's definition (Maharana et al., ACL 2024, Table 3; issue 28,
//! "Measured, side by side in one run"): every question of the release counts, category 5
//! included; a question's recall@k is the share of its evidence strings, **as released**
//! (no repair, duplicates kept: [`super::data::Question::released_evidence`]), equal to one
//! of the first k retrieved turn ids; a question without evidence counts 1. A malformed
//! string (`D8:6; D9:17`, `D30:05`, ...) names no turn, so it is never found.
//!
//! The same function scores a ranking in a run ([`super::headline`]) and re-derives the
//! report's numbers from its committed run file and qrels ([`rederive`]), so the two
//! cannot disagree on the definition.

use std::collections::HashMap;

use indexmap::IndexMap;

use super::data::Category;

/// The cut-offs of Table 3.
pub const KS: [usize; 4] = [5, 10, 25, 50];

/// The slice names in Table 3's order: `all`, then the categories in code order.
pub fn slices() -> Vec<&'static str> {
    std::iter::once("all")
        .chain(Category::ALL.iter().map(|c| c.as_str()))
        .collect()
}

/// The definition, as the report states it.
pub const DEFINITION: &str = "recall@k of a question = the share of its evidence ids, as \
     released (no repair, duplicates kept), that are among the first k turn ids the arm \
     returns; a question without evidence counts 1; every question of the ten \
     conversations, category 5 included (Maharana et al., ACL 2024, Table 3)";

/// recall@k of one question for every k of [`KS`]: `evidence` as released, `ranked` the
/// turn ids best first.
pub fn recall_row<S: AsRef<str>, T: AsRef<str>>(evidence: &[S], ranked: &[T]) -> [f64; 4] {
    let mut row = [1.0; 4];
    if evidence.is_empty() {
        return row;
    }
    for (slot, &k) in row.iter_mut().zip(&KS) {
        let top = &ranked[..k.min(ranked.len())];
        let found = evidence
            .iter()
            .filter(|e| top.iter().any(|t| t.as_ref() == e.as_ref()))
            .count();
        *slot = found as f64 / evidence.len() as f64;
    }
    row
}

/// Slice → mean recall per cut-off, and slice → questions, over `rows` (`(category,
/// row)` per question); a slice without questions is left out.
pub fn table(
    rows: &[(Category, [f64; 4])],
) -> (IndexMap<String, Vec<f64>>, IndexMap<String, usize>) {
    let mut means = IndexMap::new();
    let mut counts = IndexMap::new();
    for s in slices() {
        let picked: Vec<&[f64; 4]> = rows
            .iter()
            .filter(|(c, _)| s == "all" || c.as_str() == s)
            .map(|(_, r)| r)
            .collect();
        if picked.is_empty() {
            continue;
        }
        let n = picked.len() as f64;
        let m: Vec<f64> = (0..KS.len())
            .map(|i| picked.iter().map(|r| r[i]).sum::<f64>() / n)
            .collect();
        means.insert(s.to_string(), m);
        counts.insert(s.to_string(), picked.len());
    }
    (means, counts)
}

/// A question id of the run files: `<sample_id>:q<qa index>:c<category code>` (the
/// category rides in the id so that [`rederive`] needs nothing but the files).
pub fn qid(sample_id: &str, index: usize, category: Category) -> String {
    format!("{sample_id}:q{index}:c{}", category.code())
}

/// A turn's document id in the run files: `<sample_id>:<dia_id>`.
pub fn docid(sample_id: &str, turn: &str) -> String {
    format!("{sample_id}:{turn}")
}

/// An evidence string as a qrels document id: [`docid`] with every whitespace character
/// replaced by `_` (TREC lines are whitespace-separated; a string with whitespace names no
/// turn either way).
pub fn evidence_docid(sample_id: &str, written: &str) -> String {
    let cleaned: String = written
        .chars()
        .map(|c| if c.is_whitespace() { '_' } else { c })
        .collect();
    docid(sample_id, if cleaned.is_empty() { "_" } else { &cleaned })
}

/// The per-category table of one run re-derived from the text of its run file, the qrels
/// (one line per released evidence string) and the list of every question id (one a
/// line): what `bench check` compares with the report. A question id whose category code
/// is not 1–5 is an error naming it.
pub fn rederive(run: &str, qrels: &str, qids: &str) -> Result<IndexMap<String, Vec<f64>>, String> {
    let mut ranked: HashMap<&str, Vec<&str>> = HashMap::new();
    for (n, line) in run.lines().enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() != 6 {
            return Err(format!(
                "run line {}: expected 6 fields, found {}",
                n + 1,
                f.len()
            ));
        }
        ranked.entry(f[0]).or_default().push(f[2]);
    }
    let mut evidence: HashMap<&str, Vec<&str>> = HashMap::new();
    for (n, line) in qrels.lines().enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() != 4 {
            return Err(format!(
                "qrels line {}: expected 4 fields, found {}",
                n + 1,
                f.len()
            ));
        }
        evidence.entry(f[0]).or_default().push(f[2]);
    }
    let mut rows = Vec::new();
    for q in qids.lines() {
        let code = q
            .rsplit_once(":c")
            .and_then(|(_, c)| c.parse::<u64>().ok())
            .and_then(Category::from_code)
            .ok_or_else(|| format!("question id {q}: no category code 1-5 after `:c`"))?;
        let ev = evidence.get(q).map_or(&[][..], |v| v.as_slice());
        let r = ranked.get(q).map_or(&[][..], |v| v.as_slice());
        rows.push((code, recall_row(ev, r)));
    }
    Ok(table(&rows).0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn released_evidence_is_compared_as_written() {
        // two strings, one malformed (several ids in one string, as released): only the
        // well-formed one can be found, at rank 3
        let ev = ["D1:3", "D8:6; D9:17"];
        let ranked = ["D1:1", "D8:6", "D1:3", "D9:17"];
        assert_eq!(recall_row(&ev, &ranked), [0.5; 4]);
        // no evidence: 1 at every cut-off (the paper's rule)
        assert_eq!(recall_row::<&str, &str>(&[], &[]), [1.0; 4]);
        // found at rank 6: 0 at 5, 1 from 10 on
        let late: Vec<String> = (1..=6).map(|i| format!("D2:{i}")).collect();
        assert_eq!(recall_row(&["D2:6"], &late), [0.0, 1.0, 1.0, 1.0]);
    }

    #[test]
    fn rederived_from_files_equals_the_direct_table() {
        let q1 = qid("conv-1", 0, Category::MultiHop);
        let q2 = qid("conv-1", 1, Category::OpenDomain);
        let run = format!("{q1} Q0 conv-1:D1:2 1 2 p\n{q1} Q0 conv-1:D1:3 2 1 p\n");
        let qrels = format!(
            "{q1} 0 conv-1:D1:3 1\n{q1} 0 {} 1\n",
            evidence_docid("conv-1", "D8:6; D9:17")
        );
        let t = rederive(&run, &qrels, &format!("{q1}\n{q2}\n")).unwrap();
        // q1: one of two found; q2: no evidence, counts 1
        assert_eq!(t["all"], vec![0.75; 4]);
        assert_eq!(t["multi-hop"], vec![0.5; 4]);
        assert_eq!(t["open-domain"], vec![1.0; 4]);
        assert!(rederive("", "", "conv-1:q0\n").is_err());
    }
}
