//! One source's outgoing edges, a "bucket" (reference `crabpath/graph.py::Graph`):
//! insertion-ordered, replacement in place, order-preserving deletes — and stored
//! contiguously.
//!
//! Entries are `(target, edge)` pairs back to back in one `Vec` (40 bytes each), so a
//! traversal reads a node's edges as one sequential run of cache lines. Lookups by
//! target scan the entries while the bucket is small (most nodes have a handful of
//! edges); above [`LINEAR_MAX`] entries a target → position hash index is kept beside
//! them. Compared with an `IndexMap` per bucket this drops the stored hash (8 bytes)
//! and the hash table of every small bucket: ~30 heap bytes per edge at 8 edges per
//! node.

use rustc_hash::FxHashMap;

use crate::edge::Edge;
use crate::node::NodeId;

/// Largest bucket searched linearly; larger ones keep a hash index.
pub const LINEAR_MAX: usize = 16;

/// The outgoing edges of one source, in insertion order.
#[derive(Debug, Clone, Default)]
pub struct Bucket {
    entries: Vec<(NodeId, Edge)>,
    /// target → position, only while `entries.len() > LINEAR_MAX`.
    index: Option<Box<FxHashMap<NodeId, u32>>>,
}

/// Iterator over `(&target, &edge)` in bucket order.
pub type Iter<'a> = std::iter::Map<
    std::slice::Iter<'a, (NodeId, Edge)>,
    fn(&'a (NodeId, Edge)) -> (&'a NodeId, &'a Edge),
>;

impl Bucket {
    /// Number of edges.
    #[inline]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the bucket has no edge.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    #[inline]
    fn position(&self, target: NodeId) -> Option<usize> {
        match &self.index {
            Some(ix) => ix.get(&target).map(|&p| p as usize),
            None => self.entries.iter().position(|(t, _)| *t == target),
        }
    }

    /// The edge to `target`.
    #[inline]
    pub fn get(&self, target: &NodeId) -> Option<&Edge> {
        self.position(*target).map(|p| &self.entries[p].1)
    }

    /// Mutable access to the edge to `target`.
    #[inline]
    pub fn get_mut(&mut self, target: &NodeId) -> Option<&mut Edge> {
        self.position(*target).map(|p| &mut self.entries[p].1)
    }

    /// Stores the edge to `target`: an existing entry is replaced in place (its old
    /// edge returned), a new one is appended.
    pub fn insert(&mut self, target: NodeId, edge: Edge) -> Option<Edge> {
        if let Some(p) = self.position(target) {
            return Some(std::mem::replace(&mut self.entries[p].1, edge));
        }
        let at = self.entries.len();
        self.entries.push((target, edge));
        match &mut self.index {
            Some(ix) => {
                ix.insert(target, at as u32);
            }
            None if self.entries.len() > LINEAR_MAX => self.rebuild_index(),
            None => {}
        }
        None
    }

    /// Removes the edge to `target`, keeping the order of the others (O(len)).
    pub fn shift_remove(&mut self, target: &NodeId) -> Option<Edge> {
        let p = self.position(*target)?;
        let (_, edge) = self.entries.remove(p);
        if self.entries.len() <= LINEAR_MAX {
            self.index = None;
        } else if let Some(ix) = &mut self.index {
            ix.remove(target);
            for (i, (t, _)) in self.entries.iter().enumerate().skip(p) {
                ix.insert(*t, i as u32);
            }
        }
        Some(edge)
    }

    fn rebuild_index(&mut self) {
        let ix: FxHashMap<NodeId, u32> = self
            .entries
            .iter()
            .enumerate()
            .map(|(i, (t, _))| (*t, i as u32))
            .collect();
        self.index = Some(Box::new(ix));
    }

    /// `(&target, &edge)` in bucket order.
    #[inline]
    pub fn iter(&self) -> Iter<'_> {
        self.entries.iter().map(|(t, e)| (t, e))
    }

    /// `(&target, &mut edge)` in bucket order.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&NodeId, &mut Edge)> + '_ {
        self.entries.iter_mut().map(|(t, e)| (&*t, e))
    }

    /// Targets in bucket order.
    pub fn keys(&self) -> impl Iterator<Item = &NodeId> + '_ {
        self.entries.iter().map(|(t, _)| t)
    }

    /// Edges in bucket order.
    #[inline]
    pub fn values(&self) -> impl Iterator<Item = &Edge> + '_ {
        self.entries.iter().map(|(_, e)| e)
    }
}

impl<'a> IntoIterator for &'a Bucket {
    type Item = (&'a NodeId, &'a Edge);
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indexmap::IndexMap;

    /// The bucket behaves like the ordered map it replaced, through the switch
    /// between linear search and the hash index in both directions.
    #[test]
    fn same_as_an_ordered_map() {
        let mut b = Bucket::default();
        let mut m: IndexMap<NodeId, Edge> = IndexMap::new();
        let mut state = 0x853c_49e6_748f_ea9bu64;
        let mut next = |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        for step in 0..20_000 {
            let t = NodeId(next(48) as u32);
            match next(4) {
                0 | 1 => {
                    let e = Edge::new(step as f64);
                    assert_eq!(b.insert(t, e.clone()), m.insert(t, e));
                }
                2 => assert_eq!(b.shift_remove(&t), m.shift_remove(&t)),
                _ => {
                    if let Some(e) = b.get_mut(&t) {
                        e.weight += 1.0;
                    }
                    if let Some(e) = m.get_mut(&t) {
                        e.weight += 1.0;
                    }
                }
            }
            assert_eq!(b.len(), m.len());
            assert_eq!(b.get(&t), m.get(&t));
            assert_eq!(b.index.is_some(), b.len() > LINEAR_MAX, "step {step}");
            if step % 97 == 0 {
                assert!(b.iter().eq(m.iter()), "order differs at step {step}");
            }
        }
        assert!(b.iter().eq(m.iter()));
    }
}
