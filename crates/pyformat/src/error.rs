//! The one error type of this crate. It imports nothing from the rest of the crate.

use std::path::PathBuf;

/// A failure to write a value or a file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A value that cannot be written as JSON (e.g. a map key that is not a string or
    /// number), as Python's `json.dumps` would refuse it too.
    #[error("cannot serialize: {0}")]
    Serialize(String),
    /// An I/O failure, with the path it concerned.
    #[error("{path}: {source}")]
    Io {
        /// File or directory concerned.
        path: PathBuf,
        /// Underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A path a writer will not write ([`crate::io::check_output`]): `label` is the
    /// option and the path as the user gave them (`--output B/brain.db`), or the path
    /// alone when no option named it.
    #[error("{label}: {reason}")]
    Refused {
        /// The option and the path, or the path.
        label: String,
        /// The path refused.
        path: PathBuf,
        /// What is there.
        reason: Refusal,
    },
}

/// Why an output path is refused: a writer writes a new path or a regular file, and
/// never inside a brain directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A directory.
    Directory,
    /// A character device (`/dev/null`).
    CharDevice,
    /// A block device.
    BlockDevice,
    /// A FIFO (named pipe).
    Fifo,
    /// A Unix socket.
    Socket,
    /// Anything else that is not a regular file.
    NotRegular,
    /// A path inside a brain directory (this directory holds a brain database).
    InsideBrain(PathBuf),
}

impl std::fmt::Display for Refusal {
    /// The reason, then what to do, in one line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self {
            Refusal::Directory => "a directory",
            Refusal::CharDevice => "a character device",
            Refusal::BlockDevice => "a block device",
            Refusal::Fifo => "a FIFO (named pipe)",
            Refusal::Socket => "a socket",
            Refusal::NotRegular => "a special file",
            Refusal::InsideBrain(dir) => {
                return write!(
                    f,
                    "inside the brain directory {} (writing there would damage the brain): choose a path outside it",
                    dir.display()
                )
            }
        };
        write!(
            f,
            "is {what}, not a regular file: give a new path or a regular file to replace"
        )
    }
}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
