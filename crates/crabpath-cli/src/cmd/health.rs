//! `crabpath health` (reference `crabpath/cli.py::cmd_health`).
//!
//! Paper profile: the reference's report (tier shares, orphans, cross-file edges),
//! byte for byte. Corrected profile: the eight metrics of seed 002 §5.1, Table 4, each
//! with its target range and marked when out of it, the per-query ones over the last
//! `--window` queries ([`crabpath_brain::service::health`], issue 31 item 2); `--json`
//! prints [`HealthReport::to_json`], the same object the MCP `health` tool returns.

use anyhow::anyhow;
use crabpath_brain::service::command::HealthPayload;
use crabpath_brain::service::health::{Metric, Status, Target, Unit, DEFAULT_WINDOW};
use crabpath_brain::service::HealthReport;

use crate::args::HealthArgs;
use crate::context::Ctx;
use crate::error::{CliError, CliResult};
use crate::out;

pub fn run(ctx: &Ctx, a: &HealthArgs) -> CliResult {
    if ctx.fixes() {
        return table_4(ctx, a);
    }
    if a.window.is_some() {
        return Err(CliError::Other(anyhow!(
            "--window needs the corrected profile (the paper profile prints the reference's health, which has no per-query metrics)"
        )));
    }
    let mut brain = ctx.open_source(&a.source, None, true)?;
    let h = brain.read(|g, _| HealthPayload::of(g))?;
    brain.journal(vec![h.event()])?;
    if a.json {
        out::println(&out::pretty(&h.to_dict()));
    } else {
        let x = &h.health;
        out::println(&format!(
            "Brain health:\n  Nodes: {}\n  Edges: {}\n  Reflex: {}  Habitual: {}  Dormant: {}\n  Orphans: {}\n  Cross-file edges: {}",
            h.nodes,
            h.edges,
            out::pct1(x.reflex_pct),
            out::pct1(x.habitual_pct),
            out::pct1(x.dormant_pct),
            x.orphan_nodes,
            out::pct1(x.cross_file_edge_pct)
        ));
    }
    Ok(0)
}

/// The corrected profile's report (see the module docs); journals the reference's
/// `health` event with `"check": true` (a check, not a maintenance run: issue 30
/// item 3).
fn table_4(ctx: &Ctx, a: &HealthArgs) -> CliResult {
    let window = a.window.unwrap_or(DEFAULT_WINDOW);
    let mut brain = ctx.open_source(&a.source, None, true)?;
    let report = brain.health_report(window)?;
    let event = HealthPayload {
        health: report.tiers,
        nodes: report.nodes,
        edges: report.edges,
    }
    .check_event();
    brain.journal(vec![event])?;
    if a.json {
        out::println(&out::pretty(&report.to_json()));
    } else {
        out::println(&text(&report));
    }
    Ok(0)
}

/// The report as text: one line per metric with its value, its target range and
/// whether it is in it.
pub fn text(r: &HealthReport) -> String {
    let mut lines = vec![
        format!(
            "Brain health (Table 4; per-query metrics over the last {} queries: {} found):",
            r.window, r.queries
        ),
        format!("  Nodes: {}", r.nodes),
        format!("  Edges: {}", r.edges),
    ];
    for m in &r.metrics {
        lines.push(format!(
            "  {:<26} {:>7}  target {:<8} {}",
            m.target.name,
            m.value.map_or("n/a".to_string(), |v| value(m.target, v)),
            range(m.target),
            mark(m)
        ));
    }
    let out = r.out_of_range().len();
    let na = r
        .metrics
        .iter()
        .filter(|m| m.status() == Status::NotComputable)
        .count();
    let mut summary = format!("  {out} of {} metrics out of range", r.metrics.len());
    if na > 0 {
        summary.push_str(&format!(", {na} not computable yet"));
    }
    lines.push(summary);
    let a = r.auto_nodes;
    lines.push(format!(
        "  Auto nodes (neurogenesis): {} on probation, {} permanent, {} died",
        a.probation, a.permanent, a.dead
    ));
    lines.join("\n")
}

fn mark(m: &Metric) -> String {
    match m.status() {
        Status::Ok => "ok".into(),
        Status::Low => "OUT OF RANGE (low)".into(),
        Status::High => "OUT OF RANGE (high)".into(),
        Status::NotComputable => format!("n/a ({})", m.reason.unwrap_or("not computable")),
    }
}

/// A value in the metric's unit: a count with two decimals unless whole, a fraction as
/// a percentage with one decimal, or with two significant digits when below 0.1 % (so
/// that a small share does not read as a 0).
fn value(t: &Target, v: f64) -> String {
    let pct = v * 100.0;
    match t.unit {
        Unit::Fraction if pct > 0.0 && pct < 0.1 => {
            let decimals = (-pct.log10()).ceil() as usize + 1;
            format!("{pct:.decimals$}%")
        }
        Unit::Fraction => out::pct1(v),
        Unit::Count if v.fract() == 0.0 => format!("{v:.0}"),
        Unit::Count => format!("{v:.2}"),
    }
}

/// The target range as Table 4 writes it: `1.0-2.0`, `70%-95%`, `<=20%`, `0%`, `0`.
fn range(t: &Target) -> String {
    let bound = |x: f64| match t.unit {
        Unit::Fraction => format!("{}%", (x * 1000.0).round() / 10.0),
        Unit::Count if x == 0.0 => "0".to_string(),
        Unit::Count => format!("{x:.1}"),
    };
    match t.min {
        None => format!("<={}", bound(t.max)),
        Some(lo) if lo == t.max => bound(lo),
        Some(lo) => format!("{}-{}", bound(lo), bound(t.max)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crabpath_brain::service::health::TABLE_4;

    #[test]
    fn values_and_ranges_read_as_table_4_writes_them() {
        let [fired, cross, dormant, _, compression, _, reconvergence, orphans] = &TABLE_4;
        assert_eq!(value(fired, 20.863), "20.86");
        assert_eq!(value(orphans, 10.0), "10");
        assert_eq!(value(dormant, 0.5), "50.0%");
        assert_eq!(value(dormant, 0.0), "0.0%");
        // 0.0272 %: two significant digits, not "0.0%"
        assert_eq!(value(compression, 0.000272), "0.027%");
        assert_eq!(value(compression, 0.0000051), "0.00051%");
        // seed 002 §5.1, Table 4: 1.0–2.0, 0–15 %, 70–95 %, ≤ 20 %, 0 %, 0
        assert_eq!(range(fired), "1.0-2.0");
        assert_eq!(range(cross), "0%-15%");
        assert_eq!(range(dormant), "70%-95%");
        assert_eq!(range(compression), "<=20%");
        assert_eq!(range(reconvergence), "0%");
        assert_eq!(range(orphans), "0");
    }
}
