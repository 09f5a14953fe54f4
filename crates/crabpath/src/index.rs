//! Exact cosine vector index (CORE.md §10.2). Filled in by the index work.
