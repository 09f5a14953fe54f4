//! `bench fetch`: download the complete upstream dataset files into the data directory.
//!
//! For each file ([`crate::catalog`]): stream the HTTP body into a temporary file in the
//! destination directory while hashing it (progress bar on stderr), verify, then `fsync` and
//! rename into place, so a partial or unverified file never appears under the final name.
//!
//! Verification:
//! * known SHA-256 (MultiHop-RAG queries and corpus, from the upstream Git LFS pointers, or
//!   `--sha256`): must match, else the temporary file is deleted and
//!   [`Error::ChecksumMismatch`] is returned (exit status 2);
//! * HotPotQA dev: no official SHA-256 is published, so the first 665,487 bytes are checked
//!   against the staged first-103 prefix (a mismatch is refused the same way) and the computed
//!   full SHA-256 is reported so that it can be recorded.
//!
//! URLs: `--url URL` (one file only), else `--url-base BASE` or the environment variable
//! [`URL_BASE_ENV`] (`BASE/<upstream file name>`), else the catalogue's URLs in order (the
//! next is tried after a network failure, not after a checksum mismatch).
//!
//! The transfer itself is the system's `curl` (HTTP and HTTPS, redirects followed, its
//! body streamed through a pipe into the hasher): a TLS stack compiled into the `bench`
//! binary would cost every build of the workspace about half a minute of CPU for a
//! command that runs once per machine. A machine without `curl` gets an error that says
//! so.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sha2::{Digest, Sha256};

use crate::catalog::{KnownFile, PrefixCheck};
use crate::data::json::open_maybe_compressed;
use crate::error::{Error, Result};

/// Environment variable giving a base URL for all downloads (`BASE/<upstream file name>`).
pub const URL_BASE_ENV: &str = "CRABPATH_FETCH_URL_BASE";

/// Options of one fetch.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// Data directory; files go to `DIR/<rel_path>`.
    pub data_dir: PathBuf,
    /// Exact URL to download from (only meaningful for a single file).
    pub url: Option<String>,
    /// Base URL; the file's upstream name is appended.
    pub url_base: Option<String>,
    /// Expected SHA-256 overriding (or supplying) the catalogue's.
    pub sha256: Option<String>,
    /// Download even if the file is already present.
    pub force: bool,
    /// Draw a progress bar on stderr (hidden anyway when stderr is not a terminal).
    pub progress: bool,
    /// TCP connect timeout.
    pub connect_timeout: Duration,
    /// A transfer that receives nothing for this long is abandoned.
    pub read_timeout: Duration,
}

impl FetchOptions {
    /// Defaults: no overrides, progress bar on, 30 s connect and 120 s read timeouts.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        FetchOptions {
            data_dir: data_dir.into(),
            url: None,
            url_base: None,
            sha256: None,
            force: false,
            progress: true,
            connect_timeout: Duration::from_secs(30),
            read_timeout: Duration::from_secs(120),
        }
    }
}

/// How a file was verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verification {
    /// Full SHA-256 matched the expected value.
    Sha256,
    /// Only the prefix check passed (no full checksum known).
    Prefix(&'static str),
    /// Nothing to check against.
    Unverified,
}

/// What [`fetch`] did.
#[derive(Debug, Clone)]
pub struct FetchReport {
    /// Catalogue key of the file.
    pub key: &'static str,
    /// Final path.
    pub path: PathBuf,
    /// URL used (`None` when the present file was kept).
    pub url: Option<String>,
    /// SHA-256 of the file content.
    pub sha256: String,
    /// Size in bytes.
    pub bytes: u64,
    /// How it was verified.
    pub verification: Verification,
    /// `true` when the file was already present and kept.
    pub already_present: bool,
}

impl FetchReport {
    /// One-line human summary.
    pub fn summary(&self) -> String {
        let how = match &self.verification {
            Verification::Sha256 => "SHA-256 verified".to_string(),
            Verification::Prefix(n) => format!(
                "no published SHA-256; prefix check passed ({n}); computed SHA-256 {} — record it",
                self.sha256
            ),
            Verification::Unverified => format!(
                "no known SHA-256, NOT verified; computed SHA-256 {}",
                self.sha256
            ),
        };
        let what = if self.already_present {
            "already present".to_string()
        } else {
            format!("downloaded from {}", self.url.as_deref().unwrap_or("?"))
        };
        format!(
            "{}: {} ({} bytes), {what}; {how}",
            self.key,
            self.path.display(),
            self.bytes
        )
    }
}

/// URLs to try for `file` under `opts`, in order.
pub fn urls_for(file: &KnownFile, opts: &FetchOptions) -> Vec<String> {
    if let Some(u) = &opts.url {
        return vec![u.clone()];
    }
    if let Some(base) = &opts.url_base {
        return vec![format!(
            "{}/{}",
            base.trim_end_matches('/'),
            file.upstream_name
        )];
    }
    file.urls.iter().map(|s| s.to_string()).collect()
}

/// Downloads and verifies `file` into `opts.data_dir` (see the module doc).
pub fn fetch(file: &'static KnownFile, opts: &FetchOptions) -> Result<FetchReport> {
    let dest = opts.data_dir.join(file.rel_path);
    let expected = match &opts.sha256 {
        Some(h) => Some(normalise_hex(h)?),
        None => file.sha256().map(str::to_string),
    };
    let prefix = match file.prefix_check {
        Some(pc) if expected.is_none() => Some(Prefix::of(pc)?),
        _ => None,
    };

    if dest.is_file() && !opts.force {
        return check_present(file, &dest, expected.as_deref(), prefix);
    }

    let urls = urls_for(file, opts);
    if urls.is_empty() {
        return Err(Error::Usage(format!(
            "{} cannot be downloaded (staged subset); point --data-dir at the staged copy",
            file.key
        )));
    }
    let dir = dest
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| opts.data_dir.clone());
    fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;

    let mut failures: Vec<Error> = Vec::new();
    for url in &urls {
        match download_to_temp(url, &dir, file, opts) {
            Ok((tmp, digests)) => {
                let removed =
                    |what: String, expected: String, actual: String| Error::ChecksumMismatch {
                        origin: url.clone(),
                        what,
                        expected,
                        actual,
                        removed: true,
                    };
                let verification = if let Some(exp) = &expected {
                    if !digests.full.eq_ignore_ascii_case(exp) {
                        drop(tmp); // deletes the temporary file
                        return Err(removed("the whole file".into(), exp.clone(), digests.full));
                    }
                    Verification::Sha256
                } else if let Some(pc) = prefix {
                    match digests.prefix {
                        Some(ref got) if got.eq_ignore_ascii_case(pc.sha256) => {
                            Verification::Prefix(pc.check.note)
                        }
                        got => {
                            drop(tmp);
                            let actual = got.unwrap_or_else(|| {
                                format!("(file shorter than {} bytes)", pc.check.len)
                            });
                            return Err(removed(
                                format!("the prefix check ({})", pc.check.note),
                                pc.sha256.to_string(),
                                actual,
                            ));
                        }
                    }
                } else {
                    Verification::Unverified
                };
                tmp.as_file()
                    .sync_all()
                    .map_err(|e| Error::io(tmp.path(), e))?;
                tmp.persist(&dest).map_err(|e| Error::io(&dest, e.error))?;
                return Ok(FetchReport {
                    key: file.key,
                    path: dest,
                    url: Some(url.clone()),
                    sha256: digests.full,
                    bytes: digests.bytes,
                    verification,
                    already_present: false,
                });
            }
            Err(e @ Error::Download { .. }) => failures.push(e),
            Err(other) => return Err(other),
        }
    }
    if failures.len() == 1 {
        return Err(failures.remove(0));
    }
    Err(Error::Download {
        url: urls.join(" and "),
        message: failures
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("; "),
    })
}

/// Verifies a file that is already in place (content hashed after decompression if gzip).
fn check_present(
    file: &'static KnownFile,
    dest: &Path,
    expected: Option<&str>,
    prefix: Option<Prefix>,
) -> Result<FetchReport> {
    let mut r = open_maybe_compressed(dest)?;
    let mut h = Hasher::new(prefix.map(|p| p.check));
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = r.read(&mut buf).map_err(|e| Error::io(dest, e))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    let d = h.finish();
    let mismatch = |what: String, exp: &str, actual: String| Error::ChecksumMismatch {
        origin: format!(
            "{} (already present; use --force to download again)",
            dest.display()
        ),
        what,
        expected: exp.to_string(),
        actual,
        removed: false,
    };
    let verification = if let Some(exp) = expected {
        if !d.full.eq_ignore_ascii_case(exp) {
            return Err(mismatch("the whole file".into(), exp, d.full));
        }
        Verification::Sha256
    } else if let Some(pc) = prefix {
        match d.prefix {
            Some(ref got) if got.eq_ignore_ascii_case(pc.sha256) => {
                Verification::Prefix(pc.check.note)
            }
            got => {
                return Err(mismatch(
                    format!("the prefix check ({})", pc.check.note),
                    pc.sha256,
                    got.unwrap_or_else(|| "(file too short)".into()),
                ))
            }
        }
    } else {
        Verification::Unverified
    };
    Ok(FetchReport {
        key: file.key,
        path: dest.to_path_buf(),
        url: None,
        sha256: d.full,
        bytes: d.bytes,
        verification,
        already_present: true,
    })
}

/// A [`PrefixCheck`] with its expected digest looked up.
#[derive(Debug, Clone, Copy)]
struct Prefix {
    check: PrefixCheck,
    sha256: &'static str,
}

impl Prefix {
    fn of(check: PrefixCheck) -> Result<Self> {
        let sha256 = check.sha256().ok_or_else(|| {
            Error::Internal(format!(
                "datasets/SHA256SUMS records no checksum for {}, which the prefix check needs",
                check.equals
            ))
        })?;
        Ok(Prefix { check, sha256 })
    }
}

struct Digests {
    full: String,
    prefix: Option<String>,
    bytes: u64,
}

/// Full-file hasher plus the optional prefix hasher of a [`PrefixCheck`].
struct Hasher {
    full: Sha256,
    prefix: Option<(PrefixCheck, Sha256)>,
    bytes: u64,
}

impl Hasher {
    fn new(prefix: Option<PrefixCheck>) -> Self {
        Hasher {
            full: Sha256::new(),
            prefix: prefix.map(|p| (p, Sha256::new())),
            bytes: 0,
        }
    }

    fn update(&mut self, chunk: &[u8]) {
        self.full.update(chunk);
        if let Some((pc, h)) = &mut self.prefix {
            if self.bytes < pc.len {
                let take = (pc.len - self.bytes).min(chunk.len() as u64) as usize;
                h.update(&chunk[..take]);
            }
        }
        self.bytes += chunk.len() as u64;
    }

    fn finish(self) -> Digests {
        let bytes = self.bytes;
        let prefix = self.prefix.and_then(|(pc, mut h)| {
            if bytes >= pc.len {
                h.update(pc.suffix);
                Some(hex::encode(h.finalize()))
            } else {
                None
            }
        });
        Digests {
            full: hex::encode(self.full.finalize()),
            prefix,
            bytes,
        }
    }
}

fn download_to_temp(
    url: &str,
    dir: &Path,
    file: &KnownFile,
    opts: &FetchOptions,
) -> Result<(tempfile::NamedTempFile, Digests)> {
    let dl_err = |message: String| Error::Download {
        url: url.to_string(),
        message,
    };
    // --fail: an HTTP error status is an error, not a body; --speed-limit/--speed-time: a
    // transfer that stalls for the read timeout is abandoned.
    let mut child = Command::new("curl")
        .args(["--fail", "--silent", "--show-error", "--location"])
        .arg("--connect-timeout")
        .arg(opts.connect_timeout.as_secs().max(1).to_string())
        .args(["--speed-limit", "1", "--speed-time"])
        .arg(opts.read_timeout.as_secs().max(1).to_string())
        .arg("--user-agent")
        .arg(concat!("crabpath-bench/", env!("CARGO_PKG_VERSION")))
        .arg("--")
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            dl_err(format!(
                "could not run curl ({e}); bench fetch downloads with the system's curl: \
                 install it (e.g. apt-get install curl) or place the file by hand"
            ))
        })?;
    let (Some(mut reader), Some(mut stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(dl_err("curl's output pipes are missing".into()));
    };
    // curl's messages are read on the side so that a full stderr pipe never blocks it.
    let messages = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });

    let name = Path::new(file.rel_path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "download".into());
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".part")
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, e))?;

    let pb = progress_bar(file.size, file.key, opts.progress);
    let mut hasher = Hasher::new(file.prefix_check);
    let mut buf = vec![0u8; 1 << 16];
    let copied: Result<()> = loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => break Err(dl_err(e.to_string())),
        };
        hasher.update(&buf[..n]);
        if let Err(e) = tmp.write_all(&buf[..n]) {
            break Err(Error::io(tmp.path(), e));
        }
        pb.inc(n as u64);
    };
    pb.finish_and_clear();
    if copied.is_err() {
        let _ = child.kill();
    }
    let status = child
        .wait()
        .map_err(|e| dl_err(format!("waiting for curl: {e}")))?;
    let messages = messages.join().unwrap_or_default();
    copied?;
    if !status.success() {
        let detail = messages.trim();
        return Err(dl_err(if detail.is_empty() {
            format!("curl failed ({status})")
        } else {
            format!("curl failed ({status}): {detail}")
        }));
    }
    tmp.flush().map_err(|e| Error::io(tmp.path(), e))?;
    Ok((tmp, hasher.finish()))
}

fn progress_bar(total: Option<u64>, key: &str, enabled: bool) -> ProgressBar {
    let target = if enabled {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let pb = match total {
        Some(t) => {
            let pb = ProgressBar::with_draw_target(Some(t), target);
            if let Ok(style) = ProgressStyle::with_template(
                "{prefix} [{bar:40}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
            ) {
                pb.set_style(style.progress_chars("=> "));
            }
            pb
        }
        None => {
            let pb = ProgressBar::with_draw_target(None, target);
            if let Ok(style) =
                ProgressStyle::with_template("{prefix} {spinner} {bytes} {bytes_per_sec}")
            {
                pb.set_style(style);
            }
            pb
        }
    };
    pb.set_prefix(key.to_string());
    pb
}

fn normalise_hex(h: &str) -> Result<String> {
    let h = h.trim().to_ascii_lowercase();
    if h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(h)
    } else {
        Err(Error::Usage(format!(
            "--sha256 must be 64 hexadecimal digits, got {h:?}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_hasher_matches_direct_hash() {
        let pc = PrefixCheck {
            len: 5,
            suffix: b"]",
            equals: "",
            note: "",
        };
        let mut h = Hasher::new(Some(pc));
        h.update(b"abc");
        h.update(b"defgh");
        let d = h.finish();
        assert_eq!(d.bytes, 8);
        assert_eq!(d.full, hex::encode(Sha256::digest(b"abcdefgh")));
        assert_eq!(d.prefix.unwrap(), hex::encode(Sha256::digest(b"abcde]")));
        let mut short = Hasher::new(Some(pc));
        short.update(b"abc");
        assert!(short.finish().prefix.is_none());
    }

    #[test]
    fn url_precedence() {
        let mut o = FetchOptions::new("/tmp/x");
        assert_eq!(urls_for(&crate::catalog::MULTIHOP_CORPUS, &o).len(), 2);
        o.url_base = Some("http://127.0.0.1:9/base/".into());
        assert_eq!(
            urls_for(&crate::catalog::MULTIHOP_CORPUS, &o),
            ["http://127.0.0.1:9/base/corpus.json"]
        );
        o.url = Some("http://h/x".into());
        assert_eq!(
            urls_for(&crate::catalog::MULTIHOP_CORPUS, &o),
            ["http://h/x"]
        );
    }

    #[test]
    fn sha256_override_is_validated() {
        assert!(normalise_hex("zz").is_err());
        assert_eq!(normalise_hex(&"AB".repeat(32)).unwrap(), "ab".repeat(32));
    }
}
