//! Text embedders (CORE.md §10): the [`Embedder`] seam and the deterministic
//! `hash-v1` embedder of the reference.

use crate::error::Result;

/// Turns texts into fixed-dimension vectors. Implemented here by [`HashEmbedder`]
/// (`hash-v1`) and, in the `crabpath-embed` crate, by all-MiniLM-L6-v2.
pub trait Embedder: Send + Sync {
    /// Stable name recorded in state files and results (e.g. `hash-v1`).
    fn name(&self) -> &str;
    /// Vector dimension.
    fn dim(&self) -> usize;
    /// Embeds a batch of texts, one vector per text, in order.
    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f64>>>;
    /// Embeds one text.
    fn embed(&self, text: &str) -> Result<Vec<f64>> {
        let mut v = self.embed_batch(&[text])?;
        Ok(v.pop().unwrap_or_default())
    }
}
