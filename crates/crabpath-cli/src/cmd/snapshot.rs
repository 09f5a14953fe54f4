//! `crabpath snapshot` and `crabpath rollback` (not in the reference; see
//! `crabpath_brain::snapshot`).

use crabpath_brain::snapshot::{default_name, list, restore, take};
use pyformat::pyjson::PyValue;

use crate::args::{RollbackArgs, SnapshotArgs};
use crate::context::Ctx;
use crate::error::CliResult;
use crate::out;

pub fn run_snapshot(ctx: &Ctx, a: &SnapshotArgs) -> CliResult {
    let path = ctx.state_path(&a.state, true);
    if a.list {
        let all = list(&path)?;
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
    let _lock = ctx.lock(&path)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let name = a.name.clone().unwrap_or_else(|| default_name(now));
    let s = take(&path, &name)?;
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
    let _lock = ctx.lock(&path)?;
    let s = restore(&path, a.to.as_deref())?;
    let _ = std::fs::remove_file(crabpath_brain::sidecar::sidecar_path(&path));
    let bak = pyformat::io::backup_path(&path);
    if a.json {
        let payload = out::dict([
            ("restored", out::s(&s.name)),
            ("backup", out::s(&bak.display().to_string())),
        ]);
        out::println(&out::compact(&payload));
    } else {
        out::println(&format!(
            "Restored snapshot {} (the previous state is kept as {})",
            s.name,
            bak.display()
        ));
    }
    Ok(0)
}
