//! A brain's tables in PostgreSQL (issue 32, "When a team outgrows one machine").
//!
//! One brain is one SQLite file by default ([`crabpath_brain::store`]). A team that
//! needs a memory outliving any one machine keeps it in PostgreSQL, the store that the
//! agent memories teams deploy move to. This crate holds what both engines share and
//! the move between them:
//!
//! - [`schema`]: the PostgreSQL form of the brain schema, read from the SQLite schema's
//!   one definition, so that the same schema version applies to both;
//! - [`migrate`]: copying a brain from a SQLite database into a PostgreSQL schema and
//!   back (`crabpath migrate`), each in one transaction, so that
//!   `crabpath export` of the copy back equals the original's.
//!
//! Not here yet: serving a brain from PostgreSQL (the `Brain` service over a store
//! trait with two engines, stateless servers in front), which issue 32 builds on this.

pub mod error;
pub mod migrate;
pub mod schema;

pub use error::{Error, Result};
pub use migrate::{postgres_to_sqlite, sqlite_to_postgres, Copied};

/// Connects to the PostgreSQL server at `url` (`postgres://user@host:port/db`, or the
/// key-value form `host=/run/postgresql user=… dbname=…`) without TLS: a Unix socket or
/// loopback, as the tests and `.ci/run` use it; a remote server belongs behind a tunnel
/// or proxy until a TLS connector is added. Errors: the address cannot be parsed, or
/// the server cannot be reached or refuses the login.
pub fn connect(url: &str) -> Result<postgres::Client> {
    postgres::Client::connect(url, postgres::NoTls).map_err(|source| Error::Postgres {
        target: redact(url),
        source,
    })
}

/// `url` without its password (`postgres://u:secret@h/db` → `postgres://u:***@h/db`;
/// `password=secret` → `password=***`), for messages.
pub fn redact(url: &str) -> String {
    if let Some(rest) = url
        .strip_prefix("postgres://")
        .or_else(|| url.strip_prefix("postgresql://"))
    {
        let scheme = &url[..url.len() - rest.len()];
        if let Some((auth, host)) = rest.split_once('@') {
            if let Some((user, _)) = auth.split_once(':') {
                return format!("{scheme}{user}:***@{host}");
            }
        }
        return url.to_string();
    }
    url.split_whitespace()
        .map(|kv| {
            if kv.starts_with("password=") {
                "password=***".to_string()
            } else {
                kv.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn passwords_are_not_shown() {
        assert_eq!(
            super::redact("postgres://u:secret@h:5/db"),
            "postgres://u:***@h:5/db"
        );
        assert_eq!(super::redact("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(
            super::redact("host=/tmp user=u password=secret dbname=d"),
            "host=/tmp user=u password=*** dbname=d"
        );
    }
}
