//! State files: graph + index + metadata (CORE.md §1.4).
