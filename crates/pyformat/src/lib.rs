//! # pyformat
//!
//! The Python-compatible text formats of the CrabPath workspace, each the one
//! implementation the workspace has: the `paper` profile reproduces the reference
//! program's outputs byte for byte (reference `jonathangu/crabpath` v11.2.1, commit
//! 134c676, run on CPython 3.11), and the results files of the simulations and
//! benchmarks are written the way the reference's scripts write theirs.
//!
//! | Python | module |
//! |---|---|
//! | `json.dumps` (compact, `indent=2`, `ensure_ascii`), `json.loads` | [`pyjson`] |
//! | `repr()` and `str()` of the values `json.loads` returns, `str.isprintable` | [`pyrepr`] |
//! | `str.strip`, `str.splitlines`, `float()` of a string, … | [`pystr`] |
//! | `time.time`, `datetime.isoformat`, `strftime`, `fromisoformat` | [`pytime`] |
//!
//! [`io`] writes files atomically (temporary file, `fsync`, rename) and keeps one
//! backup generation: every file the workspace writes goes through it.
//!
//! Modules are layered: [`error`] imports nothing; [`pyjson`] imports only [`error`];
//! [`pyrepr`] imports [`pyjson`]; [`pystr`], [`pytime`] and [`io`] import at most
//! [`error`].
#![warn(missing_docs)]

pub mod error;
pub mod io;
pub mod pyjson;
pub mod pyrepr;
pub mod pystr;
pub mod pytime;

pub use error::{Error, Result};
pub use io::write_atomic;
