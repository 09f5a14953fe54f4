"""Regenerates the reference outputs in this directory from the reference program.

Usage (from the repository root):

    python3 results/reference/cli/make_reference.py --checkout <path to jonathangu/crabpath at 134c676>

It runs the reference CLI's `init` on the fixture workspace of this repository
(`crates/crabpath/tests/fixtures/workspace`, with and without `--sessions`) and calls
the reference library's functions directly for keyword seeding, session parsing and
replay; then it runs the command-line flow defined in `flow/steps.json` (every
subcommand, the daemon, bad input) and records each step's output in
`flow/outputs.json`. Everything runs offline with the hash embedder. Outputs: see
README.md.
"""

import argparse
import hashlib
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
FIXTURES = ROOT / "crates" / "crabpath" / "tests" / "fixtures"
WORKSPACE = FIXTURES / "workspace"
SESSIONS = FIXTURES / "sessions"

# queries for the keyword rankings: ordinary, repeated tokens, apostrophes, non-ASCII,
# no token at all, a token that matches nothing
KEYWORD_QUERIES = [
    "how do I roll back a deploy",
    "deploy deploy DEPLOY checklist",
    "what's the on-call rotation",
    "café naïve 日本語",
    "Orchard runbook step 3",
    "?!",
    "zebra",
]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def normalize_state(data: bytes) -> bytes:
    """state.json with its wall-clock `created_at` replaced by a fixed value."""
    return re.sub(rb'"created_at": "[^"]*"', b'"created_at": "CREATED_AT"', data)


def run_init(checkout: Path, out: Path, sessions: Path | None) -> None:
    cmd = [sys.executable, "-m", "crabpath", "init", "--workspace", str(WORKSPACE), "--output", str(out)]
    if sessions is not None:
        cmd += ["--sessions", str(sessions)]
    env = dict(os.environ, PYTHONPATH=str(checkout), TZ="UTC")
    subprocess.run(cmd, check=True, env=env, cwd=str(checkout))


# ---- the command-line flow (flow/steps.json -> flow/outputs.json) -------------------

FLOW = HERE / "flow"

# wall-clock values that differ from run to run; the Rust test applies the same rules
_NUM = r"-?[0-9][0-9.eE+-]*"
_NORMALIZE = [
    (re.compile(r'(["\'](?:ts|embed_query_ms|traverse_ms|total_ms)["\']: )' + _NUM), r"\g<1>0"),
    (re.compile(r'(["\'](?:iso|created_at)["\']: )(["\'])[^"\']*\2'), r"\g<1>\2ISO\2"),
    (re.compile(r"( @ )\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}(: )"), r"\g<1>ISO\g<2>"),
    (re.compile(r"^(python_version: PASS \()[^)]*\)", re.M), r"\g<1>VERSION)"),
]


def normalize(text: str) -> str:
    for pattern, repl in _NORMALIZE:
        text = pattern.sub(repl, text)
    return text


def run_flow(checkout: Path) -> None:
    steps = json.loads((FLOW / "steps.json").read_text(encoding="utf-8"))
    env = dict(os.environ, PYTHONPATH=str(checkout), TZ="UTC")
    env.pop("OPENAI_API_KEY", None)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        shutil.copytree(WORKSPACE, work / "ws", symlinks=True)
        shutil.copytree(SESSIONS, work / "sessions", symlinks=True)
        for step in steps:
            if "copy" in step:
                src, dst = step["copy"]
                shutil.copytree(work / src, work / dst, symlinks=True)
                continue
            if "write" in step:
                path, content = step["write"]
                (work / path).parent.mkdir(parents=True, exist_ok=True)
                (work / path).write_bytes(content.encode("utf-8"))
                continue
            if "remove" in step:
                (work / step["remove"]).unlink()
                continue
            proc = subprocess.run(
                [sys.executable, "-m", "crabpath", *step["args"]],
                input=step.get("stdin", "").encode("utf-8"),
                capture_output=True,
                env=env,
                cwd=str(work),
            )
            stderr = proc.stderr.decode("utf-8")
            if not step.get("compare_stderr", True):
                # a traceback or a usage message: keep its last line, for the record
                stderr = (stderr.strip().splitlines() or [""])[-1]
            files = {}
            for f in step.get("files", []):
                data = (work / f).read_bytes()
                files[f] = sha256(normalize(data.decode("utf-8")).encode("utf-8"))
            results.append(
                {
                    "name": step["name"],
                    "rc": proc.returncode,
                    "stdout": normalize(proc.stdout.decode("utf-8")),
                    "stderr": normalize(stderr),
                    "files": files,
                }
            )
    write_xz(FLOW / "outputs.json", json.dumps({"steps": results}, indent=1).encode("utf-8"))


def write_xz(path: Path, data: bytes) -> None:
    """Writes `data` as `<path>.xz` (the larger outputs, to keep the repository lean;
    the tests read the plain file or, when it is absent, this one: testdata's
    `reference_text`)."""
    path.with_name(path.name + ".xz").write_bytes(lzma.compress(data, preset=9 | lzma.PRESET_EXTREME))


def interaction_json(item: dict) -> dict:
    return {"query": item["query"], "response": item["response"], "tool_calls": item["tool_calls"], "ts": item["ts"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkout", required=True, type=Path)
    args = ap.parse_args()
    checkout = args.checkout.resolve()
    sys.path.insert(0, str(checkout))
    os.environ["TZ"] = "UTC"
    from crabpath import split_workspace  # noqa: E402
    from crabpath import cli, replay  # noqa: E402

    sums = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, sessions in [("init", None), ("init-sessions", SESSIONS / "flat.jsonl")]:
            out = Path(tmp) / name
            run_init(checkout, out, sessions)
            dest = HERE / name
            dest.mkdir(exist_ok=True)
            for f in ["graph.json", "index.json", "texts.json", "state.json"]:
                data = (out / f).read_bytes()
                if f == "state.json":
                    data = normalize_state(data)
                sums[f"{name}/{f}"] = sha256(data)
                # texts.json is the same for both runs (replay changes only edges)
                if f == "graph.json" or (f == "texts.json" and name == "init"):
                    write_xz(dest / f, data)

    graph, _texts = split_workspace(WORKSPACE)
    keyword = {
        "replay_seeds": {q: replay.default_keyword_seed_fn(graph, q) for q in KEYWORD_QUERIES},
        "query_ranking_top5": {q: cli._keyword_seeds(graph, q, 5) for q in KEYWORD_QUERIES},
    }
    (HERE / "keyword.json").write_text(json.dumps(keyword, indent=2), encoding="utf-8")

    files = ["plain.txt", "flat.jsonl", "openclaw.jsonl", "dir/a.jsonl"]
    sessions = {"interactions": {}, "interactions_since_150": {}, "queries": {}}
    for f in files:
        p = SESSIONS / f
        sessions["interactions"][f] = [interaction_json(i) for i in replay.extract_interactions(p)]
        sessions["interactions_since_150"][f] = [
            interaction_json(i) for i in replay.extract_interactions(p, since_ts=150.0)
        ]
        sessions["queries"][f] = replay.extract_queries(p)
    sessions["dir_interactions"] = [interaction_json(i) for i in cli._load_session_interactions([str(SESSIONS / "dir")])]
    sessions["dir_queries"] = cli._load_session_queries([str(SESSIONS / "dir")])
    (HERE / "sessions.json").write_text(json.dumps(sessions, indent=2), encoding="utf-8")

    records = cli._load_session_interactions([str(SESSIONS / f) for f in ["flat.jsonl", "openclaw.jsonl", "plain.txt"]] + [str(SESSIONS / "dir")])
    stats = replay.replay_queries(graph=graph, queries=records, verbose=False)
    (HERE / "replay-stats.json").write_text(json.dumps(stats, indent=2), encoding="utf-8")
    write_xz(HERE / "replay-graph.json", json.dumps(cli._graph_payload(graph), indent=2).encode("utf-8"))

    lines = [f"{sums[k]}  {k}\n" for k in sorted(sums)]
    (HERE / "SHA256SUMS").write_text("".join(lines), encoding="utf-8")

    run_flow(checkout)


if __name__ == "__main__":
    main()
