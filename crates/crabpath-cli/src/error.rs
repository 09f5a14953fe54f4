//! How failures reach the user: one line on stderr and a non-zero exit status.
//!
//! * [`CliError::Reference`] — the reference program's own messages (its
//!   `SystemExit(...)` texts and reproduced exception lines), printed verbatim, exit 1;
//! * [`CliError::Other`] — anything else (unreadable or malformed files, I/O errors),
//!   printed as `crabpath: error: <what>`, naming the file and what is wrong, exit 1.
//!
//! Usage errors are clap's (usage on stderr, exit 2).

/// A failed command.
#[derive(Debug)]
pub enum CliError {
    /// A reference message, printed as is.
    Reference(String),
    /// Any other failure.
    Other(anyhow::Error),
}

impl CliError {
    /// The line printed on stderr.
    pub fn line(&self) -> String {
        match self {
            CliError::Reference(m) => m.clone(),
            CliError::Other(e) => {
                let text = one_line(e.chain().map(ToString::to_string));
                format!("crabpath: error: {}", text.replace('\n', " "))
            }
        }
    }
}

/// The messages of an error chain joined by `: `, each cause said once: the library's
/// errors print their source in their own message (`<path>: <io error>`) and also
/// expose it as `source()`, so anyhow's `{:#}` said it twice (`No such file or
/// directory (os error 2): No such file or directory (os error 2)`). A cause whose text
/// the line already holds is left out.
pub fn one_line(chain: impl IntoIterator<Item = String>) -> String {
    let mut line = String::new();
    for message in chain {
        if line.contains(&message) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&message);
    }
    line
}

impl From<crabpath_brain::Error> for CliError {
    fn from(e: crabpath_brain::Error) -> Self {
        match e {
            crabpath_brain::Error::Reference(m) => CliError::Reference(m),
            x @ crabpath_brain::Error::Exception { .. } => CliError::Reference(x.to_string()),
            c => CliError::Other(c.into()),
        }
    }
}

impl From<crabpath_pg::Error> for CliError {
    fn from(e: crabpath_pg::Error) -> Self {
        match e {
            crabpath_pg::Error::Brain(b) => b.into(),
            other => CliError::Other(other.into()),
        }
    }
}

impl From<crabpath::Error> for CliError {
    fn from(e: crabpath::Error) -> Self {
        CliError::Other(e.into())
    }
}

impl From<pyformat::Error> for CliError {
    fn from(e: pyformat::Error) -> Self {
        CliError::Other(e.into())
    }
}

impl From<anyhow::Error> for CliError {
    fn from(e: anyhow::Error) -> Self {
        CliError::Other(e)
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError::Other(e.into())
    }
}

impl From<crabpath_embed::EmbedError> for CliError {
    fn from(e: crabpath_embed::EmbedError) -> Self {
        CliError::Other(e.into())
    }
}

/// A reference message as an error.
pub fn reference<T>(message: impl Into<String>) -> Result<T, CliError> {
    Err(CliError::Reference(message.into()))
}

/// Result of a command: the exit status on success.
pub type CliResult<T = u8> = Result<T, CliError>;
