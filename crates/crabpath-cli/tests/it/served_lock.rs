//! A served brain keeps SQLite's lock on its database, so that another program that
//! opens and closes the brain (the README invites `sqlite3 ~/brain/brain.db`) cannot
//! take the write-ahead log from under it.
//!
//! SQLite's locks are POSIX locks, which a process loses on a file when it closes any
//! descriptor of it. Opening a second store of the same brain (the daemon's and the MCP
//! server's read-only reader) read the file's header through a descriptor of its own
//! and closed it: from then on the server held no lock, the next program to close its
//! connection believed it was the last one, checkpointed and deleted the log, and the
//! server went on committing into the deleted log. Its acknowledged writes were gone
//! after a `kill -9` (and a writer beside it would have started a second log over the
//! same file). This test then fails: the second turn is missing.

use crate::common;

use serde_json::json;

/// Whether node `id` is in the brain `dir/b`, read by a connection of this process.
fn holds(dir: &std::path::Path, id: &str) -> bool {
    let c = rusqlite::Connection::open(dir.join("b/brain.db")).unwrap();
    c.query_row("SELECT count(*) FROM nodes WHERE id = ?1", [id], |r| {
        r.get::<_, i64>(0)
    })
    .unwrap()
        == 1
}

/// The first byte and the length of SQLite's shared-lock range (`os_unix.c`:
/// `SHARED_FIRST` is the pending byte, 2^30, plus 2; `SHARED_SIZE` is 510).
const SHARED_FIRST: i64 = (1 << 30) + 2;
const SHARED_SIZE: i64 = 510;

/// What closing the last connection to a database in write-ahead-log mode does in
/// SQLite 3.40: checkpoint the log, then, if no other process holds a lock on the
/// database (its exclusive lock is granted), delete the log and its shared memory.
/// Whether it deleted them.
fn closes_as_the_last_connection(db: &std::path::Path) -> bool {
    use std::os::fd::AsRawFd;
    let c = rusqlite::Connection::open(db).unwrap();
    c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    drop(c);
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(db)
        .unwrap();
    // SAFETY: a zeroed `flock` is a valid value; every field used is set below.
    let mut l: libc::flock = unsafe { std::mem::zeroed() };
    l.l_type = libc::F_WRLCK as libc::c_short;
    l.l_whence = libc::SEEK_SET as libc::c_short;
    l.l_start = SHARED_FIRST;
    l.l_len = SHARED_SIZE;
    // SAFETY: `f` is an open descriptor and `l` a valid `flock` for the call.
    let exclusive = unsafe { libc::fcntl(f.as_raw_fd(), libc::F_SETLK, &l) } == 0;
    if exclusive {
        for ext in ["-wal", "-shm"] {
            let mut p = db.as_os_str().to_owned();
            p.push(ext);
            let _ = std::fs::remove_file(p);
        }
    }
    exclusive
}

#[test]
fn a_daemons_writes_outlive_another_program_closing_the_brain() {
    let dir = common::scratch_brain();
    let d = dir.path();
    let mut served = common::Served::start(d, "b");
    let mut ask = |method: &str, params| served.ask(method, params);
    ask(
        "remember",
        json!({"text": "the first turn", "id": "turn-one"}),
    );
    // a query opens the daemon's read-only store beside its writer
    ask("query", json!({"query": "the first turn", "chat_id": "c1"}));
    // another program closes its connection to the brain, as the `sqlite3` shell and
    // Python's `sqlite3` module of SQLite 3.40 (Debian 12) do: it checkpoints the log,
    // and when it can take the exclusive lock it deletes it (the one built into
    // crabpath also checks the log's shared memory first)
    let deleted = closes_as_the_last_connection(&d.join("b/brain.db"));
    ask(
        "remember",
        json!({"text": "the second turn", "id": "turn-two"}),
    );
    // the daemon dies without closing anything
    served.child.kill().unwrap();
    served.child.wait().unwrap();
    assert!(holds(d, "turn-one"), "the first acknowledged turn is lost");
    assert!(holds(d, "turn-two"), "the second acknowledged turn is lost");
    assert!(
        !deleted,
        "the daemon held no lock on its database: another program deleted its log"
    );
    let (rc, out, err) = common::run_text(d, "corrected", &["doctor", "--state", "b"]);
    assert_eq!(rc, 0, "{out}{err}");
}
