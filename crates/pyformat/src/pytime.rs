//! Python time functions whose results reach the reference's files: `time.time()`,
//! `time.strftime("%Y-%m-%dT%H:%M:%S%z")` (journal entries) and
//! `datetime.fromisoformat(s).timestamp()` (session-log timestamps), CPython 3.11.
//!
//! Local time comes from the C library (`localtime_r`, which honours `TZ`); on
//! platforms without it, local time is UTC.

use std::time::{SystemTime, UNIX_EPOCH};

/// Python `time.time()`: seconds since the Unix epoch as a float (nanoseconds / 1e9).
pub fn time_time() -> f64 {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    d.as_nanos() as f64 / 1e9
}

/// Offset of local time from UTC, in seconds, at Unix time `t`.
#[cfg(unix)]
pub fn utc_offset(t: i64) -> i64 {
    let tt = t as libc::time_t;
    // SAFETY: `localtime_r` only writes the `tm` we pass; both pointers are valid.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&tt, &mut tm).is_null() {
            return 0;
        }
        tm.tm_gmtoff as i64
    }
}

/// Offset of local time from UTC (always 0 where the C library is not used).
#[cfg(not(unix))]
pub fn utc_offset(_t: i64) -> i64 {
    0
}

/// `(year, month, day)` of a day count since 1970-01-01 (proleptic Gregorian).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Days from 1970-01-01 to `(year, month, day)` (inverse of [`civil_from_days`]).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `datetime.fromtimestamp(secs + micros / 1e6, timezone.utc).isoformat()`, e.g.
/// `2026-11-22T12:19:17.338055+00:00` (fraction omitted when `micros` is 0).
pub fn isoformat_utc(secs: i64, micros: u32) -> String {
    let (y, mo, d) = civil_from_days(secs.div_euclid(86_400));
    let sod = secs.rem_euclid(86_400);
    let frac = if micros == 0 {
        String::new()
    } else {
        format!(".{micros:06}")
    };
    format!(
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}{frac}+00:00",
        sod / 3600,
        sod % 3600 / 60,
        sod % 60
    )
}

/// `datetime.now(timezone.utc).isoformat()`.
pub fn now_isoformat_utc() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    isoformat_utc(d.as_secs() as i64, d.subsec_micros())
}

/// `time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(t))`, e.g.
/// `2026-11-22T12:00:27+0000` (the journal's `iso` field).
pub fn strftime_iso_local(t: f64) -> String {
    let secs = t.floor() as i64;
    let off = utc_offset(secs);
    let local = secs + off;
    let (y, mo, d) = civil_from_days(local.div_euclid(86_400));
    let sod = local.rem_euclid(86_400);
    let sign = if off < 0 { '-' } else { '+' };
    let a = off.abs();
    format!(
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}{sign}{:02}{:02}",
        sod / 3600,
        sod / 60 % 60,
        sod % 60,
        a / 3600,
        a / 60 % 60
    )
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap(y) => 29,
        _ => 28,
    }
}

/// `n` ASCII digits at `s[i..]` as a number.
fn digits(s: &[u8], i: usize, n: usize) -> Option<u32> {
    let d = s.get(i..i + n)?;
    if !d.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(d.iter().fold(0, |acc, &b| acc * 10 + u32::from(b - b'0')))
}

/// CPython 3.11's C `parse_hh_mm_ss_ff` over `full[start..end]` (it may look at the
/// byte at `end`, as the C code does): `HH[:?MM[:?SS[{.,}ffffff]]]`. Returns (h, m, s,
/// µs) and whether unparsed text remains; `None` for a malformed time.
fn hh_mm_ss_ff(full: &[u8], start: usize, end: usize) -> Option<([u32; 4], bool)> {
    let at = |p: usize| full.get(p).copied().unwrap_or(0);
    let mut v = [0u32; 4];
    let mut p = start;
    let mut has_sep = true;
    for i in 0..3 {
        v[i] = digits(full, p, 2)?;
        p += 2;
        let c = at(p);
        p += 1;
        if i == 0 {
            has_sep = c == b':';
        }
        if p >= end {
            return Some((v, c != 0));
        } else if has_sep && c == b':' {
            continue;
        } else if c == b'.' || c == b',' {
            break;
        } else if !has_sep {
            p -= 1;
        } else {
            return None;
        }
    }
    let to_parse = end.saturating_sub(p).min(6);
    if to_parse > 0 {
        v[3] = digits(full, p, to_parse)? * 10u32.pow((6 - to_parse) as u32);
    }
    p += to_parse;
    while at(p).is_ascii_digit() {
        p += 1;
    }
    Some((v, at(p) != 0))
}

/// Where the date part of an ISO string ends (CPython's
/// `_find_isoformat_datetime_separator`).
fn date_end(b: &[u8]) -> usize {
    let n = b.len();
    if n == 7 {
        return 7;
    }
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    if b[4] == b'-' {
        if b[5] == b'W' {
            if n > 8 && b[8] == b'-' {
                if n > 10 && digit(10) {
                    return 8;
                }
                return 10;
            }
            return 8;
        }
        return 10;
    }
    if b[4] == b'W' {
        let mut idx = 7;
        while idx < n && digit(idx) {
            idx += 1;
        }
        if idx < 9 {
            return idx;
        }
        return if idx % 2 == 0 { 7 } else { 8 };
    }
    8
}

/// Days since the epoch of an ISO date string of length 7, 8 or 10 (calendar or week
/// date), validated.
fn parse_date(d: &[u8]) -> Option<i64> {
    if !matches!(d.len(), 7 | 8 | 10) {
        return None;
    }
    let year = i64::from(digits(d, 0, 4)?);
    let has_sep = d[4] == b'-';
    let mut pos = 4 + usize::from(has_sep);
    if d.get(pos) == Some(&b'W') {
        pos += 1;
        let week = i64::from(digits(d, pos, 2)?);
        pos += 2;
        let mut day = 1;
        if d.len() > pos {
            if (d[pos] == b'-') != has_sep {
                return None;
            }
            pos += usize::from(has_sep);
            day = i64::from(digits(d, pos, 1)?);
            if pos + 1 != d.len() {
                return None;
            }
        }
        if !(1..=9999).contains(&year) || !(1..=7).contains(&day) {
            return None;
        }
        let jan1 = days_from_civil(year, 1, 1);
        // weekday with Monday = 0 (1970-01-01 was a Thursday)
        let jan1_wd = (jan1 + 3).rem_euclid(7);
        if !(1..=52).contains(&week) {
            let long_year = jan1_wd == 3 || (jan1_wd == 2 && is_leap(year));
            if !(week == 53 && long_year) {
                return None;
            }
        }
        let jan4 = days_from_civil(year, 1, 4);
        let week1_monday = jan4 - (jan4 + 3).rem_euclid(7);
        return Some(week1_monday + (week - 1) * 7 + (day - 1));
    }
    let month = digits(d, pos, 2)?;
    pos += 2;
    if (d.get(pos) == Some(&b'-')) != has_sep {
        return None;
    }
    pos += usize::from(has_sep);
    let day = digits(d, pos, 2)?;
    if pos + 2 != d.len() || year < 1 || !(1..=12).contains(&month) {
        return None;
    }
    if day < 1 || day > days_in_month(year, month) {
        return None;
    }
    Some(days_from_civil(year, month, day))
}

/// Python 3.11 `datetime.fromisoformat(s).timestamp()` (the C implementation): a date
/// (`YYYY-MM-DD`, `YYYYMMDD`, or an ISO week date `YYYY-Www[-D]`), optionally any one
/// separator character and a time `HH[:MM[:SS[.ffffff]]]` (colons optional, `,` for
/// `.`, extra fraction digits ignored), optionally `Z` or a UTC offset
/// `±HH[:MM[:SS[.ffffff]]]`. A time without offset is local time (resolved as Python
/// does around daylight-saving transitions, `fold=0`). `None` where Python raises
/// `ValueError`.
pub fn fromisoformat_timestamp(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    if s.chars().count() < 7 || b.len() < 7 {
        return None;
    }
    let sep = date_end(b);
    let days = parse_date(b.get(..sep)?)?;
    // the separator is any one character
    let tstart = match s.get(sep..).and_then(|r| r.chars().next()) {
        None => b.len(),
        Some(c) => sep + c.len_utf8(),
    };
    let (mut hms, mut offset_us) = ([0u32; 4], None);
    if tstart < b.len() {
        if b.len() - tstart < 2 {
            return None;
        }
        let tz = (tstart..b.len()).find(|&i| matches!(b[i], b'Z' | b'+' | b'-'));
        let tend = tz.unwrap_or(b.len());
        let (v, rest) = hh_mm_ss_ff(b, tstart, tend)?;
        hms = v;
        match tz {
            None if rest => return None,
            None => {}
            Some(z) if b[z] == b'Z' => {
                if z + 1 != b.len() {
                    return None;
                }
                offset_us = Some(0i64);
            }
            Some(z) => {
                let (o, rest) = hh_mm_ss_ff(b, z + 1, b.len())?;
                if rest {
                    return None;
                }
                let us = (i64::from(o[0]) * 3600 + i64::from(o[1]) * 60 + i64::from(o[2]))
                    * 1_000_000
                    + i64::from(o[3]);
                if us >= 86_400 * 1_000_000 {
                    return None;
                }
                offset_us = Some(if b[z] == b'-' { -us } else { us });
            }
        }
        if hms[0] > 23 || hms[1] > 59 || hms[2] > 59 {
            return None;
        }
    }
    let wall = days * 86_400 + i64::from(hms[0] * 3600 + hms[1] * 60 + hms[2]);
    match offset_us {
        Some(off) => {
            let total_us = i128::from(wall) * 1_000_000 + i128::from(hms[3]) - i128::from(off);
            Some(total_us as f64 / 1e6)
        }
        None => Some(local_to_seconds(wall) as f64 + f64::from(hms[3]) / 1e6),
    }
}

/// Python's `local_to_seconds` (fold = 0): the Unix time whose local wall clock reads
/// `wall` (given as seconds since the epoch on the wall clock).
fn local_to_seconds(t: i64) -> i64 {
    let local = |u: i64| u + utc_offset(u);
    let a = local(t) - t;
    let u1 = t - a;
    let t1 = local(u1);
    let b = if t1 == t {
        let u2 = u1 - 24 * 3600;
        let bb = local(u2) - u2;
        if a == bb {
            return u1;
        }
        bb
    } else {
        t1 - u1
    };
    let u2 = t - b;
    let t2 = local(u2);
    if t2 == t {
        return u2;
    }
    if t1 == t {
        return u1;
    }
    u1.max(u2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calendar_round_trip() {
        for days in [-719_468, -1, 0, 1, 11_016, 20_000, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
    }

    #[test]
    fn aware_iso_timestamps_match_python() {
        // CPython 3.11: datetime.fromisoformat(s).timestamp()
        let cases = [
            ("2026-02-01T10:00:00+00:00", 1769940000.0),
            ("2026-02-01T10:00:05+00:00", 1769940005.0),
            ("1970-01-01T00:03:20+00:00", 200.0),
            ("2026-02-01 10:00:00.5+01:30", 1769934600.5),
            ("20260201T100000-0500", 1769958000.0),
            ("2026-02-01T10:00:00.123456789+00:00", 1769940000.123456),
            ("2026-02-01T10Z", 1769940000.0),
            ("2026-W05-1T00:00Z", 1769385600.0),
            ("2026-02-01T10:00+00:70", 1769935800.0),
            ("2026-02-01T1000Z", 1769940000.0),
            ("2026-02-01T10:00:00,5Z", 1769940000.5),
            ("2026-02-01T10:00:00.Z", 1769940000.0),
            ("2026-02-01T10:00:00+05:30:15.5", 1769920184.5),
        ];
        for (s, want) in cases {
            assert_eq!(fromisoformat_timestamp(s), Some(want), "{s}");
        }
        for bad in [
            "2026-13-01",
            "2026-02-30T00:00",
            "2026-02-01T25:00",
            "x",
            "2026-02-01T10:00+1",
            "2026-02-01T10:0",
            "2026-02-01T10:00:00Zx",
            "2026-W54",
            "2026-02-01T10:00:00.",
        ] {
            assert_eq!(fromisoformat_timestamp(bad), None, "{bad}");
        }
    }

    #[test]
    fn naive_times_are_local() {
        // whatever the machine's zone, a naive time and its explicit local offset agree
        let t = fromisoformat_timestamp("2026-02-01T10:00:00").unwrap() as i64;
        let off = utc_offset(t);
        let sign = if off < 0 { '-' } else { '+' };
        let s = format!(
            "2026-02-01T10:00:00{sign}{:02}:{:02}",
            off.abs() / 3600,
            off.abs() / 60 % 60
        );
        assert_eq!(fromisoformat_timestamp(&s), Some(t as f64));
        let iso = strftime_iso_local(t as f64);
        assert!(iso.starts_with("2026-02-01T10:00:00"), "{iso}");
    }

    #[test]
    fn isoformat_utc_matches_python() {
        // CPython 3.11: datetime.fromtimestamp(t, timezone.utc).isoformat()
        assert_eq!(
            isoformat_utc(1_795_349_957, 338_055),
            "2026-11-22T12:19:17.338055+00:00"
        );
        assert_eq!(isoformat_utc(0, 0), "1970-01-01T00:00:00+00:00");
        assert_eq!(
            isoformat_utc(951_782_400, 7),
            "2000-02-29T00:00:00.000007+00:00"
        );
    }
}
