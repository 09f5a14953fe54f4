//! `crabpath snapshot` and `crabpath rollback` (not in the reference; see
//! `crabpath_brain::reference::snapshot`).

use crabpath_brain::reference::snapshot::default_name;
use pyformat::pyjson::PyValue;

use crate::args::{RollbackArgs, SnapshotArgs};
use crate::context::Ctx;
use crate::error::CliResult;
use crate::out;

pub fn run_snapshot(ctx: &Ctx, a: &SnapshotArgs) -> CliResult {
    let path = ctx.state_path(&a.state, true);
    let mut brain = ctx.open(crabpath_brain::locate(&path), true)?;
    if a.list {
        let all = brain.snapshots()?;
        if a.json {
            let items: Vec<PyValue> = all
                .iter()
                .map(|s| {
                    PyValue::Dict(out::dict([
                        ("name", out::s(&s.name)),
                        ("path", out::s(&s.path.display().to_string())),
                        ("size", out::count(s.size as usize)),
                    ]))
                })
                .collect();
            out::println(&out::pretty(&PyValue::List(items)));
        } else if all.is_empty() {
            out::println("No snapshots.");
        } else {
            let lines: Vec<String> = all
                .iter()
                .map(|s| format!("{}  {} bytes", s.name, s.size))
                .collect();
            out::println(&lines.join("\n"));
        }
        return Ok(0);
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let name = a.name.clone().unwrap_or_else(|| default_name(now));
    let s = brain.snapshot(&name)?;
    if a.json {
        let payload = out::dict([
            ("name", out::s(&s.name)),
            ("path", out::s(&s.path.display().to_string())),
            ("size", out::count(s.size as usize)),
        ]);
        out::println(&out::compact(&payload));
    } else {
        out::println(&format!(
            "Snapshot {} saved to {}",
            s.name,
            s.path.display()
        ));
    }
    Ok(0)
}

pub fn run_rollback(ctx: &Ctx, a: &RollbackArgs) -> CliResult {
    let path = ctx.state_path(&a.state, true);
    let mut brain = ctx.open(crabpath_brain::locate(&path), true)?;
    let r = brain.rollback(a.to.as_deref())?;
    let (s, bak) = (&r.snapshot, &r.kept);
    if a.json {
        let payload = out::dict([
            ("restored", out::s(&s.name)),
            ("backup", out::s(&bak.display().to_string())),
            (
                "not_restored",
                out::strs(r.not_restored.iter().map(String::as_str)),
            ),
        ]);
        out::println(&out::compact(&payload));
    } else {
        out::println(&format!(
            "Restored snapshot {} (the previous state is kept as {})",
            s.name,
            bak.display()
        ));
        if !r.not_restored.is_empty() {
            // a rollback undoes learning; what was added since goes with it, and the
            // user is told what and how to get it back
            const SHOWN: usize = 10;
            let mut named = r.not_restored[..r.not_restored.len().min(SHOWN)].join(", ");
            if r.not_restored.len() > SHOWN {
                named.push_str(&format!(", … ({} more)", r.not_restored.len() - SHOWN));
            }
            let back = bak
                .file_stem()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            eprintln!(
                "crabpath: {} node(s) added since snapshot {} are not in the restored state: {named}; `crabpath rollback --state {} --to {back}` brings them back",
                r.not_restored.len(),
                s.name,
                path.display()
            );
        }
    }
    Ok(0)
}
