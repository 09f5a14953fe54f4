//! Node table of the reference "paper" protocol (`benchmarks/external/run_hotpotqa.py` and
//! `run_multihop_rag.py::_build_graph`, commit 134c676): which node each title
//! becomes, in which order nodes are created, and with which content.
//!
//! Rules reproduced:
//! * node id = [`slug`] of the (stripped) title;
//! * a node is created the first time its id is seen, with that occurrence's content, and only
//!   then is `title_to_id[title] = id` recorded; a later *different* title with the same slug is
//!   **not** mapped (so, e.g., a supporting fact naming it is not in the relevant set);
//! * later occurrences never change content, except that MultiHop-RAG fills an empty content
//!   with a later non-empty fact ([`NodeTable::observe`] with `fill_empty = true`).
//!
//! Node order (= insertion order of [`NodeTable::nodes`]) is the order of the graph's node
//! table and of the embedding index (the reference's `_build_index_from_nodes`).

use indexmap::IndexMap;

use super::text::slug;

/// A node as the reference creates it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeSpec {
    /// Node id: slug of the first title seen for it.
    pub id: String,
    /// That first title (stripped), kept as the reference keeps it in node metadata.
    pub title: String,
    /// Node content (the text that is embedded).
    pub content: String,
}

/// Ordered node table plus the reference's `title_to_id` map.
#[derive(Debug, Clone, Default)]
pub struct NodeTable {
    /// Nodes by id, in creation order.
    pub nodes: IndexMap<String, NodeSpec>,
    /// Titles that created a node, mapped to that node's id, in creation order. One entry per
    /// node; a title whose slug already had a node is absent.
    pub title_to_id: IndexMap<String, String>,
}

impl NodeTable {
    /// Empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records one occurrence of `title` (already stripped, non-empty) with `content`, and
    /// returns the node id (the slug of `title`), whether or not a node was created.
    ///
    /// With `fill_empty` (MultiHop-RAG), an existing node whose content is empty takes
    /// `content` if that is non-empty.
    pub fn observe(&mut self, title: &str, content: &str, fill_empty: bool) -> String {
        let id = slug(title);
        match self.nodes.get_mut(&id) {
            None => {
                self.nodes.insert(
                    id.clone(),
                    NodeSpec {
                        id: id.clone(),
                        title: title.to_string(),
                        content: content.to_string(),
                    },
                );
                self.title_to_id.insert(title.to_string(), id.clone());
            }
            Some(node) => {
                if fill_empty && node.content.is_empty() && !content.is_empty() {
                    node.content = content.to_string();
                }
            }
        }
        id
    }

    /// Node id recorded for `title` (see the module doc: only titles that created a node).
    pub fn id_of(&self, title: &str) -> Option<&str> {
        self.title_to_id.get(title).map(String::as_str)
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// `true` when there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Nodes in creation order.
    pub fn iter(&self) -> impl Iterator<Item = &NodeSpec> {
        self.nodes.values()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_occurrence_wins_and_colliding_title_is_not_mapped() {
        let mut t = NodeTable::new();
        assert_eq!(t.observe("Ed Wood", "first", false), "ed_wood");
        assert_eq!(t.observe("Ed Wood", "second", false), "ed_wood");
        assert_eq!(t.observe("Ed  Wood!", "third", false), "ed_wood");
        assert_eq!(t.len(), 1);
        assert_eq!(t.nodes["ed_wood"].content, "first");
        assert_eq!(t.id_of("Ed Wood"), Some("ed_wood"));
        assert_eq!(t.id_of("Ed  Wood!"), None);
    }

    #[test]
    fn fill_empty_only_when_asked() {
        let mut t = NodeTable::new();
        t.observe("A", "", false);
        t.observe("A", "x", false);
        assert_eq!(t.nodes["a"].content, "");
        t.observe("a!", "y", true);
        assert_eq!(t.nodes["a"].content, "y");
        t.observe("A", "z", true);
        assert_eq!(t.nodes["a"].content, "y");
    }
}
