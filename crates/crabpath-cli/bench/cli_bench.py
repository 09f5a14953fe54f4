#!/usr/bin/env python3
"""Times the `crabpath` program against the reference CLI, one after the other.

Usage (from the repository root, after `cargo build --release -p crabpath-cli`):

    python3 crates/crabpath-cli/bench/cli_bench.py --work /tmp/cli-bench \
        [--reference <checkout of jonathangu/crabpath at 134c676>] \
        [--cases init_repo,init_10k,query_10k,daemon_10k,daemon_100k,daemon_100k_minilm] \
        [--out results/cli-bench/cli.json]

Without `--reference` only this program is timed (no ratio). Cases:

* `init_repo`   — `init` on a real repository (the reference checkout, or this one);
* `init_10k`    — `init` on a generated workspace of 10,000 Markdown files;
* `query_10k`   — `query` end to end (process start, load, embed, traverse, print) on a
                  state of 10,000 chunks;
* `daemon_10k`  — daemon `query` latency (p50/p99, client side, query embedding
                  included) on the 10,000-chunk state;
* `daemon_100k` — the same at 100,000 chunks (this program only: the reference needs
                  tens of GB to load a 2 GB state file);
* `daemon_100k_minilm` — the same with all-MiniLM-L6-v2 (needs the model, see
                  crates/crabpath-embed).

Both programs run the `paper` profile with the hash embedder unless noted, so their
outputs are the same bytes (the script checks graph.json of `init`). Runs are
interleaved (ours, reference, ours, ...); medians are reported with the load
average before and after each case, because the machine may be shared.
"""

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
OURS = ROOT / "target" / "release" / "crabpath"

WORDS = (
    "deploy rollback canary staging production pipeline incident pager alert metric "
    "dashboard runbook release checklist review merge branch build test cache index "
    "query memory graph edge node weight learn decay prune health orchard service "
    "database backup restore latency throughput error budget owner rotation monday "
    "config secret token network storage queue worker schedule cron report audit"
).split()


def generate(root: Path, files: int, sections: int, seed: int) -> None:
    """A deterministic workspace: `files` Markdown files in 100 directories, each a
    title and `sections` sections of three short lines (1 + sections chunks)."""
    if root.exists():
        return
    rng = random.Random(seed)
    for i in range(files):
        d = root / f"area{i % 100:02d}"
        d.mkdir(parents=True, exist_ok=True)
        lines = [f"# Note {i}", ""]
        for s in range(sections):
            lines.append(f"## {rng.choice(WORDS).title()} {s}")
            for _ in range(3):
                lines.append(" ".join(rng.choice(WORDS) for _ in range(8)) + ".")
            lines.append("")
        (d / f"note{i:05d}.md").write_text("\n".join(lines), encoding="utf-8")


def load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def env(reference: Path | None) -> dict:
    e = dict(os.environ, TZ="UTC", CRABPATH_PROFILE="paper")
    e.pop("OPENAI_API_KEY", None)
    if reference is not None:
        e["PYTHONPATH"] = str(reference)
    return e


def ours_cmd(args: list[str]) -> list[str]:
    return [str(OURS), *args]


def ref_cmd(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "crabpath", *args]


def timed(cmd: list[str], cwd: Path, e: dict, stdin: bytes = b"") -> float:
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, env=e, input=stdin, capture_output=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit(f"{cmd} failed ({p.returncode}): {p.stderr.decode()[-2000:]}")
    return dt


def bench_init(name: str, workspace: Path, work: Path, reference: Path | None, reps: int) -> dict:
    out = {"case": name, "workspace": str(workspace), "load_before": load()}
    ours, theirs = [], []
    for r in range(reps):
        for side in ("ours", "ref") if reference else ("ours",):
            dest = work / f"{name}-{side}"
            shutil.rmtree(dest, ignore_errors=True)
            args = ["init", "--workspace", str(workspace), "--output", str(dest)]
            if side == "ours":
                ours.append(timed(ours_cmd(args), work, env(reference)))
            elif r == 0:  # the reference is slow: once
                theirs.append(timed(ref_cmd(args), work, env(reference)))
    chunks = len(json.loads((work / f"{name}-ours" / "texts.json").read_text()))
    out.update(chunks=chunks, ours_s=ours, ours_median_s=statistics.median(ours))
    if theirs:
        same = (work / f"{name}-ours/graph.json").read_bytes() == (work / f"{name}-ref/graph.json").read_bytes()
        out.update(reference_s=theirs, reference_median_s=statistics.median(theirs),
                   ratio=statistics.median(theirs) / statistics.median(ours), same_graph_json=same)
    out["load_after"] = load()
    return out


def bench_query(name: str, state: Path, work: Path, reference: Path | None, reps: int) -> dict:
    queries = ["how do I deploy to production", "rollback after an incident", "pager rotation on monday",
               "database backup and restore", "latency error budget dashboard"]
    out = {"case": name, "state": str(state), "load_before": load()}
    ours, theirs = [], []
    for r in range(reps):
        q = queries[r % len(queries)]
        args = ["query", q, "--state", str(state), "--top", "10"]
        ours.append(timed(ours_cmd(args), work, env(reference)))
        if reference and r < max(1, reps // 3):
            theirs.append(timed(ref_cmd(args), work, env(reference)))
    out.update(ours_s=ours, ours_median_s=statistics.median(ours))
    if theirs:
        out.update(reference_s=theirs, reference_median_s=statistics.median(theirs),
                   ratio=statistics.median(theirs) / statistics.median(ours))
    out["load_after"] = load()
    return out


def daemon_latency(cmd: list[str], cwd: Path, e: dict, n: int) -> dict:
    p = subprocess.Popen(cmd, cwd=cwd, env=e, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    t0 = time.perf_counter()
    p.stdin.write(b'{"id": 0, "method": "info"}\n')
    p.stdin.flush()
    p.stdout.readline()
    startup = time.perf_counter() - t0
    rng = random.Random(7)
    client, server = [], []
    for i in range(n):
        q = " ".join(rng.choice(WORDS) for _ in range(4))
        line = json.dumps({"id": i + 1, "method": "query", "params": {"query": q, "top_k": 4}}) + "\n"
        t = time.perf_counter()
        p.stdin.write(line.encode())
        p.stdin.flush()
        resp = json.loads(p.stdout.readline())
        client.append((time.perf_counter() - t) * 1000)
        server.append(resp["result"]["total_ms"])
    p.stdin.write(b'{"id": -1, "method": "shutdown"}\n')
    p.stdin.close()
    p.wait()

    def pct(v, q):
        v = sorted(v)
        return v[min(len(v) - 1, int(q * len(v)))]

    return {"startup_s": startup, "queries": n,
            "client_p50_ms": pct(client, 0.5), "client_p99_ms": pct(client, 0.99),
            "server_p50_ms": pct(server, 0.5), "server_p99_ms": pct(server, 0.99)}


def bench_daemon(name: str, state: Path, work: Path, reference: Path | None, n: int, profile: str = "paper") -> dict:
    out = {"case": name, "state": str(state), "load_before": load()}
    e = env(reference)
    e["CRABPATH_PROFILE"] = profile
    out["ours"] = daemon_latency(ours_cmd(["daemon", "--state", str(state)]), work, e, n)
    if reference:
        out["reference"] = daemon_latency(ref_cmd(["daemon", "--state", str(state)]), work, env(reference), n)
        out["ratio_p50"] = out["reference"]["client_p50_ms"] / out["ours"]["client_p50_ms"]
    out["load_after"] = load()
    return out


def brain(work: Path, name: str, files: int, sections: int, embedder: str = "hash") -> Path:
    ws = work / f"ws-{name}"
    generate(ws, files, sections, seed=files)
    dest = work / f"brain-{name}"
    if not (dest / "state.json").exists():
        subprocess.run(ours_cmd(["init", "--workspace", str(ws), "--output", str(dest), "--embedder", embedder]),
                       check=True, env=dict(env(None), CRABPATH_PROFILE="corrected"), cwd=work)
    return dest / "state.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--reference", type=Path)
    ap.add_argument("--cases", default="init_repo,init_10k,query_10k,daemon_10k,daemon_100k")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    if not OURS.exists():
        raise SystemExit(f"{OURS} is missing: cargo build --release -p crabpath-cli")
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    ref = args.reference.resolve() if args.reference else None
    results = {"machine": {"cpus": os.cpu_count(), "load_start": load()}, "cases": []}
    for case in args.cases.split(","):
        if case == "init_repo":
            r = bench_init(case, ref if ref else ROOT, work, ref, args.reps)
        elif case == "init_10k":
            ws = work / "ws-10k-files"
            generate(ws, 10_000, 1, seed=1)
            r = bench_init(case, ws, work, ref, args.reps)
        elif case == "query_10k":
            r = bench_query(case, brain(work, "10k", 5_000, 1), work, ref, max(args.reps, 6))
        elif case == "daemon_10k":
            r = bench_daemon(case, brain(work, "10k", 5_000, 1), work, ref, 200)
        elif case == "daemon_100k":
            r = bench_daemon(case, brain(work, "100k", 50_000, 1), work, None, 500)
        elif case == "daemon_100k_minilm":
            r = bench_daemon(case, brain(work, "100k-minilm", 50_000, 1, "minilm"), work, None, 300, "corrected")
        else:
            raise SystemExit(f"unknown case {case}")
        print(json.dumps(r), flush=True)
        results["cases"].append(r)
    results["machine"]["load_end"] = load()
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        slim = json.loads(json.dumps(results))
        args.out.write_text(json.dumps(slim, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
