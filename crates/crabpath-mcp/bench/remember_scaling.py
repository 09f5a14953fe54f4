"""`remember` on a growing conversation, two builds side by side in one run (issue 28,
item 1: agents add a turn with every exchange, so the cost of one `remember` as the
conversation grows is what a long-lived agent memory pays).

    python remember_scaling.py OLD_CRABPATH NEW_CRABPATH TURNS_DIR
                               [--sizes 500,2000,5000] [--remembers 60] [--work DIR]

TURNS_DIR holds conversation JSON Lines files (`bench locomo-turns --out TURNS_DIR`
writes LoCoMo's ten, which are never committed: CC BY-NC 4.0). They are read in name
order and joined into one long conversation, each turn's `id` and `session` prefixed
with its file's stem so that ids stay unique and sessions apart. For each size N, each
build makes its own brain of the first N turns (`crabpath init --conversation`), serves
it with `crabpath daemon`, and the next `--remembers` turns are sent to both daemons as
`remember` requests, the two alternating which goes first, so that a change of load on a
shared machine hits both alike. Then both brains are exported (`crabpath export` of the
new build) and their graphs compared: the same edges, weights and nodes are expected
(the change is to be one of speed only).

Prints one JSON object: per size, each build's p50 / p90 of a `remember` round trip
(ms), the mean and the ratio new / old; whether the graphs are equal; the load before and after.

Not a test: nothing is asserted; the numbers go to BENCHMARKS.md.
"""

import argparse
import json
import os
import shutil
import subprocess
import tempfile

from rtt_common import Daemon, summary


def turns_of(folder):
    """Every turn of the JSON Lines files of `folder`, in name order, ids and sessions
    prefixed with the file's stem."""
    out = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".jsonl"):
            continue
        stem = name[: -len(".jsonl")]
        with open(os.path.join(folder, name)) as f:
            for line in f:
                if not line.strip():
                    continue
                t = json.loads(line)
                for key in ("id", "session"):
                    if key in t:
                        t[key] = f"{stem}:{t[key]}"
                out.append(t)
    return out


def graph_of(crabpath, brain, out):
    """The exported graph of `brain` (nodes and edges, as `crabpath export` writes
    them)."""
    subprocess.run(
        [crabpath, "export", "--state", brain, "--output", out],
        check=True,
        capture_output=True,
    )
    with open(out) as f:
        return json.load(f)["graph"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("turns_dir")
    ap.add_argument("--sizes", default="500,2000,5000")
    ap.add_argument("--remembers", type=int, default=60)
    ap.add_argument("--work")
    a = ap.parse_args()
    turns = turns_of(a.turns_dir)
    work = a.work or tempfile.mkdtemp(prefix="remember-scaling-")
    os.makedirs(work, exist_ok=True)
    load_before = os.getloadavg()[0]
    sizes = {}
    for n in [int(s) for s in a.sizes.split(",")]:
        if n + a.remembers > len(turns):
            raise SystemExit(f"{n} + {a.remembers} turns asked, {len(turns)} in {a.turns_dir}")
        conv = os.path.join(work, f"conv{n}.jsonl")
        with open(conv, "w") as f:
            for t in turns[:n]:
                f.write(json.dumps(t) + "\n")
        daemons, ms = {}, {"old": [], "new": []}
        for which in ("old", "new"):
            brain = os.path.join(work, f"{which}{n}")
            shutil.rmtree(brain, ignore_errors=True)
            subprocess.run(
                [getattr(a, which), "init", "--conversation", conv, "--output", brain],
                check=True,
                capture_output=True,
            )
            daemons[which] = Daemon(getattr(a, which), brain, [])
        for k, t in enumerate(turns[n : n + a.remembers]):
            order = ("old", "new") if k % 2 == 0 else ("new", "old")
            for which in order:
                ms[which].append(daemons[which].call("remember", t))
        for d in daemons.values():
            d.close()
        graphs = [
            graph_of(a.new, os.path.join(work, f"{w}{n}"), os.path.join(work, f"{w}{n}.json"))
            for w in ("old", "new")
        ]
        row = {w: summary(v) for w, v in ms.items()}
        row["ratio_p50"] = round(row["new"]["p50_ms"] / row["old"]["p50_ms"], 3)
        row["graphs_equal"] = graphs[0] == graphs[1]
        sizes[n] = row
    print(json.dumps({"turns": len(turns), "remembers": a.remembers, "sizes": sizes,
                      "load": [round(load_before, 2), round(os.getloadavg()[0], 2)]},
                     indent=1))


if __name__ == "__main__":
    main()
