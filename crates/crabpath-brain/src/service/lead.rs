//! Where a conversation brain's answer puts the traversal's first addition (issue 28,
//! "recall@5 ≥ 0.62" and item 6): after the first [`LEAD_SEEDS`] seeds, before the rest.
//!
//! The ranked answer is the seeds in order, then what the traversal added
//! (`super::query`). With `top` 6 (chosen for recall@10 on the tuning conversations)
//! the first five places all go to seeds, so recall@5 is exactly the seeds' own: on
//! LoCoMo (hash-v1, the product path, all 1,986 questions) 0.556, where `top` 4, whose
//! fifth place is an addition, gave 0.584. Letting the best addition take the fifth
//! place, before the fifth seed, gives both: recall@5 0.584 and recall@10 0.700 (every
//! split point from 0 to 4 seeds gives the same first five on the tuning conversations,
//! conv-26 and conv-30: recall@5 0.542 → 0.585, recall@10 0.727 unchanged; 4 keeps the
//! most seeds ahead of it). Two additions in the first five lose recall@5 (0.570).
//!
//! Only conversation brains (`meta.source`, [`crate::store::speaker::is_conversation`])
//! rank so: a folder brain's answer, and its committed results, stay as they were.

/// Seeds ahead of the traversal's first addition in a conversation brain's answer.
pub const LEAD_SEEDS: usize = 4;

/// Where the first addition goes among `seeds` (each `true` if it takes a place of the
/// answer, i.e. is content): the index in `seeds` after the first [`LEAD_SEEDS`]
/// content seeds, or `seeds.len()` when there are fewer. Cost: O(`seeds`).
pub fn lead_split(content: impl IntoIterator<Item = bool>) -> usize {
    let mut seen = 0;
    let mut n = 0;
    for c in content {
        if seen == LEAD_SEEDS {
            return n;
        }
        n += 1;
        seen += usize::from(c);
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_split_counts_content_seeds_only() {
        // six content seeds: the addition goes after the fourth
        assert_eq!(lead_split([true; 6]), 4);
        // a non-content seed (a question node or a guardrail) takes no place
        assert_eq!(lead_split([true, false, true, true, true, true]), 5);
        // fewer content seeds than LEAD_SEEDS: after all of them
        assert_eq!(lead_split([true, true]), 2);
        assert_eq!(lead_split([]), 0);
    }
}
