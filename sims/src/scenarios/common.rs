//! Small helpers shared by the scenarios (conventions of the reference scripts `sims/*.py`).

use anyhow::{Context, Result};
use crabpath::{Edge, Graph, Node, NodeId, Profile, TierThresholds, TraversalConfig};

/// Python `str.title()` of `s`: a cased character is upper-cased when the previous
/// character is not cased, lower-cased otherwise (digits and spaces are uncased).
pub fn py_title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev_cased = false;
    for c in s.chars() {
        if c.is_lowercase() || c.is_uppercase() {
            if prev_cased {
                out.extend(c.to_lowercase());
            } else {
                out.extend(c.to_uppercase());
            }
            prev_cased = true;
        } else {
            out.push(c);
            prev_cased = false;
        }
    }
    out
}

/// Default node content (reference `sims/*.py`): the id with `_` replaced by a space, then
/// `str.title()` (`deploy_query` → "Deploy Query", `aux_00` → "Aux 00").
pub fn default_content(id: &str) -> String {
    py_title(&id.replace('_', " "))
}

/// Adds a node with the default content.
pub fn add_titled(g: &mut Graph, id: &str) -> NodeId {
    g.add_node(Node::new(id, default_content(id)))
}

/// Adds a node with explicit content.
pub fn add_with(g: &mut Graph, id: &str, content: impl Into<String>) -> NodeId {
    g.add_node(Node::new(id, content))
}

/// Adds (or replaces in place) the edge `source → target` by id.
pub fn edge(g: &mut Graph, source: &str, target: &str, weight: f64) -> Result<()> {
    g.add_edge_by_id(source, target, Edge::new(weight))
        .with_context(|| format!("adding edge {source} -> {target}"))
}

/// The node index of `id`, as an error naming the id if it is missing.
pub fn id(g: &Graph, id: &str) -> Result<NodeId> {
    g.lookup(id)
        .with_context(|| format!("node `{id}` is not in the graph"))
}

/// The weight of `source → target` by id (`None` when either node or the edge is
/// missing).
pub fn weight(g: &Graph, source: &str, target: &str) -> Option<f64> {
    let s = g.lookup(source)?;
    let t = g.lookup(target)?;
    g.weight(s, t)
}

/// The traversal settings the simulations pass (`TraversalConfig(max_hops=…,
/// beam_width=…, habitual_range=(0.2, 0.8))`, everything else default), with the
/// profile's switches.
pub fn query_config(profile: Profile, max_hops: usize, beam_width: usize) -> TraversalConfig {
    profile.adjust_traversal(TraversalConfig {
        max_hops,
        beam_width,
        tiers: TierThresholds {
            habitual: (0.2, 0.8),
            ..TierThresholds::default()
        },
        ..TraversalConfig::default()
    })
}

/// Fired node ids as owned strings.
pub fn names(g: &Graph, ids: &[NodeId]) -> Vec<String> {
    ids.iter().map(|&n| g.name(n).to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_like_python() {
        assert_eq!(default_content("deploy_query"), "Deploy Query");
        assert_eq!(default_content("aux_00"), "Aux 00");
        assert_eq!(py_title("n00"), "N00");
        assert_eq!(py_title("3d model xY"), "3D Model Xy");
        assert_eq!(py_title("A"), "A");
    }
}
