//! Access tokens of a served directory of brains (issue 30 item 1, "Tokens"): the file
//! `DIR/tokens.db` (SQLite), one row per token with its public id, the SHA-256 of the
//! secret, the brain it opens, its role and when it was made. The secret itself is
//! printed once by `crabpath token add` and stored nowhere.
//!
//! A token is `cpt_` and 64 hex digits: 256 bits from the operating system's random
//! source (`rand::rngs::OsRng`, getrandom). Checking one hashes it and compares the
//! hash with every stored hash in constant time, without stopping at a match, so the
//! time taken says nothing about which hash matched or how much of it.
//!
//! Table `tokens(id TEXT PRIMARY KEY, sha256 BLOB, brain TEXT, role TEXT, created
//! INTEGER)`: `created` in Unix seconds (UTC). Revoking deletes the row.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crabpath_brain::serve::role::Role;
use rand::rngs::OsRng;
use rand::RngCore;
use rusqlite::{params, Connection};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// The token file's name inside a served directory.
pub const FILE: &str = "tokens.db";

/// The prefix of every secret (recognisable in a leaked config, e.g. by a scanner).
pub const PREFIX: &str = "cpt_";

/// One stored token, without its secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenInfo {
    /// The public id (12 hex digits, random, unrelated to the secret): what logs and
    /// `token list` show and `token revoke` takes.
    pub id: String,
    /// The brain (a directory `DIR/<brain>/` holding `brain.db`) the token opens.
    pub brain: String,
    /// What the token may do there.
    pub role: Role,
    /// When it was made, Unix seconds (UTC).
    pub created: i64,
}

struct Row {
    info: TokenInfo,
    hash: [u8; 32],
}

/// The token file of a served directory.
pub struct Tokens {
    conn: Connection,
}

fn db_err(path: &Path, e: rusqlite::Error) -> Error {
    Error::Transport(format!("{}: {e}", path.display()))
}

/// The SHA-256 of a presented secret.
fn digest(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

/// Equal in constant time: every byte is compared whatever the others are.
fn same(a: &[u8; 32], b: &[u8; 32]) -> bool {
    let mut d = 0u8;
    for (x, y) in a.iter().zip(b) {
        d |= x ^ y;
    }
    std::hint::black_box(d) == 0
}

/// A brain name as a directory name under the served directory: letters, digits, `-`,
/// `_` and `.`, not starting with `.` (no path can leave the directory).
pub fn check_brain_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(Error::Argument(format!(
            "--brain {name}: expected a directory name (letters, digits, -, _ and ., not starting with .)"
        )))
    }
}

impl Tokens {
    /// The path of the token file of directory `dir`.
    pub fn path(dir: &Path) -> PathBuf {
        dir.join(FILE)
    }

    /// Opens (creating when `create`) the token file of `dir`.
    ///
    /// # Failure
    /// `dir` is not a directory, the file cannot be opened or is not a token file.
    pub fn open(dir: &Path, create: bool) -> Result<Tokens> {
        if !dir.is_dir() {
            return Err(Error::Argument(format!(
                "--brains {}: not a directory",
                dir.display()
            )));
        }
        let path = Tokens::path(dir);
        if !create && !path.is_file() {
            return Err(Error::Argument(format!(
                "{}: no token file (add a token with `crabpath token add`)",
                path.display()
            )));
        }
        let conn = Connection::open(&path).map_err(|e| db_err(&path, e))?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS tokens (id TEXT PRIMARY KEY, sha256 BLOB NOT NULL, \
             brain TEXT NOT NULL, role TEXT NOT NULL, created INTEGER NOT NULL)",
        )
        .map_err(|e| db_err(&path, e))?;
        Ok(Tokens { conn })
    }

    fn err(&self, e: rusqlite::Error) -> Error {
        Error::Transport(format!("{FILE}: {e}"))
    }

    /// Makes a token for `brain` with `role`: stores its hash and returns the secret
    /// (to print once) and the stored row.
    pub fn add(&self, brain: &str, role: Role) -> Result<(String, TokenInfo)> {
        check_brain_name(brain)?;
        let mut secret = [0u8; 32];
        OsRng.fill_bytes(&mut secret);
        let mut id = [0u8; 6];
        OsRng.fill_bytes(&mut id);
        let secret = format!("{PREFIX}{}", hex::encode(secret));
        let created = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let info = TokenInfo {
            id: hex::encode(id),
            brain: brain.to_string(),
            role,
            created,
        };
        self.conn
            .execute(
                "INSERT INTO tokens (id, sha256, brain, role, created) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    info.id,
                    digest(&secret).as_slice(),
                    info.brain,
                    role.as_str(),
                    created
                ],
            )
            .map_err(|e| self.err(e))?;
        Ok((secret, info))
    }

    fn rows(&self) -> Result<Vec<Row>> {
        let mut st = self
            .conn
            .prepare("SELECT id, sha256, brain, role, created FROM tokens ORDER BY created, id")
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, Vec<u8>>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, i64>(4)?,
                ))
            })
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for r in rows {
            let (id, hash, brain, role, created) = r.map_err(|e| self.err(e))?;
            let hash: [u8; 32] = hash.try_into().map_err(|_| {
                Error::Transport(format!("{FILE}: token {id}: a hash that is not 32 bytes"))
            })?;
            let role = Role::parse(&role)
                .map_err(|m| Error::Transport(format!("{FILE}: token {id}: {m}")))?;
            out.push(Row {
                info: TokenInfo {
                    id,
                    brain,
                    role,
                    created,
                },
                hash,
            });
        }
        Ok(out)
    }

    /// Every token, oldest first, without secrets.
    pub fn list(&self) -> Result<Vec<TokenInfo>> {
        Ok(self.rows()?.into_iter().map(|r| r.info).collect())
    }

    /// Whether any token is stored.
    pub fn any(&self) -> Result<bool> {
        Ok(!self.rows()?.is_empty())
    }

    /// Deletes token `id`; false when there is none.
    pub fn revoke(&self, id: &str) -> Result<bool> {
        let n = self
            .conn
            .execute("DELETE FROM tokens WHERE id = ?1", params![id])
            .map_err(|e| self.err(e))?;
        Ok(n > 0)
    }

    /// The token whose secret is `secret`, if any. Cost: one SHA-256 and a 32-byte
    /// constant-time comparison with every stored hash (no early exit).
    pub fn check(&self, secret: &str) -> Result<Option<TokenInfo>> {
        let h = digest(secret);
        let mut found = None;
        for r in self.rows()? {
            let eq = same(&h, &r.hash);
            if eq && found.is_none() {
                found = Some(r.info);
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_check_list_revoke() {
        let dir = tempfile::tempdir().unwrap();
        let t = Tokens::open(dir.path(), true).unwrap();
        let (secret, info) = t.add("alpha", Role::Write).unwrap();
        // 4 prefix + 64 hex digits = 256 bits
        assert_eq!(secret.len(), 68);
        assert_eq!(info.id.len(), 12);
        assert_eq!(t.check(&secret).unwrap(), Some(info.clone()));
        assert_eq!(t.check("cpt_00").unwrap(), None);
        assert_eq!(t.list().unwrap(), vec![info.clone()]);
        // the secret is nowhere in the file
        drop(t);
        let bytes = std::fs::read(Tokens::path(dir.path())).unwrap();
        let hexs = &secret[PREFIX.len()..];
        assert!(!bytes.windows(hexs.len()).any(|w| w == hexs.as_bytes()));
        let t = Tokens::open(dir.path(), false).unwrap();
        assert!(t.revoke(&info.id).unwrap());
        assert!(!t.revoke(&info.id).unwrap());
        assert_eq!(t.check(&secret).unwrap(), None);
        assert!(t.add("../b", Role::Read).is_err());
    }

    #[test]
    fn comparison_is_exact() {
        let a = [7u8; 32];
        let mut b = a;
        assert!(same(&a, &b));
        b[31] ^= 1;
        assert!(!same(&a, &b));
    }
}
