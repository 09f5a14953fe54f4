"""The single-user path before and after a change (issue 30, Acceptance: "nothing of
this slows the single-user path"): `crabpath daemon` (NDJSON) and `crabpath mcp` over
stdio, each of two builds, on its own copy of one brain, timed in one run.

    python before_after.py OLD_CRABPATH NEW_CRABPATH BRAIN [--rounds 10]
                           [--per-round 100] [--top-k 4] [--work DIR]
                           [--questions FILE] [--args JSON] [--old-brain DIR]
                           [--kinds daemon,mcp_stdio]

BRAIN (a brain directory) is copied once per server (`--old-brain`: the old build's
servers copy DIR instead, a brain that build made from the same source, for a change of
the on-disk format that the old build cannot read) (every query logs its turn, so the
four servers must not see each other's writes). The MCP servers are driven by plain
JSON-RPC lines (initialize, initialized, tools/call), no SDK. The questions are
rtt_common's 40 tldr-style ones, or FILE's lines (`--questions`); `--args` adds query
arguments to every query of both servers (e.g. `{"limit": 50, "neurogenesis": "off"}`,
as `bench peers` asks CrabPath). After 20 warm-up queries
each, every round sends `per-round` queries to each of the four servers, in an order
that rotates between rounds, so that a change of load on a shared machine hits all
alike. Prints one JSON object: per server p50/p90/p99/mean (ms) and CPU per query
(/proc), the ratios new / old, the load before and after.

Not a test: nothing is asserted; the numbers go to BENCHMARKS.md.
"""

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time

from rtt_common import QUERIES, Daemon, cpu_ms, summary


class StdioMcp:
    """`crabpath mcp --state BRAIN` over stdio, one JSON-RPC line per message."""

    def __init__(self, crabpath, brain):
        self.p = subprocess.Popen(
            [crabpath, "mcp", "--state", brain],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.i = 0
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "before-after", "version": "0"}}})
        self.p.stdout.readline()
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()

    def query(self, q, top_k, args=None):
        self.i += 1
        t0 = time.perf_counter()
        arguments = {"query": q, "top_k": top_k, "chat_id": "bench-mcp", **(args or {})}
        self.send({"jsonrpc": "2.0", "id": self.i, "method": "tools/call", "params": {
            "name": "query", "arguments": arguments}})
        line = self.p.stdout.readline()
        dt = (time.perf_counter() - t0) * 1000.0
        if '"isError":false' not in line.replace(" ", ""):
            raise SystemExit(f"mcp error: {line[:300]}")
        return dt

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("brain")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--per-round", type=int, default=100)
    ap.add_argument("--top-k", type=int, default=4)
    ap.add_argument("--work", default=None, help="where the brain copies go (default: a temporary directory)")
    ap.add_argument("--questions", default=None, help="a file of questions, one a line (default: rtt_common's)")
    ap.add_argument("--args", default="{}", help="more query arguments, a JSON object")
    ap.add_argument("--kinds", default="daemon,mcp_stdio", help="which servers, comma-separated (MCP's query takes no `seeding`: `--kinds daemon` for a daemon-only argument)")
    ap.add_argument("--old-brain", default=None, help="the old build's brain, when it cannot read BRAIN (default: BRAIN)")
    a = ap.parse_args()
    queries = QUERIES
    if a.questions:
        with open(a.questions, encoding="utf-8") as f:
            queries = [line.strip() for line in f if line.strip()]
    extra = json.loads(a.args)
    work = a.work or tempfile.mkdtemp(prefix="before-after-")
    servers = {}
    for build, binary, brain in [("old", a.old, a.old_brain or a.brain), ("new", a.new, a.brain)]:
        for kind, cls in [("daemon", Daemon), ("mcp_stdio", StdioMcp)]:
            if kind not in a.kinds.split(","):
                continue
            copy = os.path.join(work, f"{build}-{kind}")
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(brain, copy)
            servers[f"{kind}_{build}"] = cls(binary, copy, []) if cls is Daemon else cls(binary, copy)
    names = list(servers)
    for i in range(20):
        for s in servers.values():
            s.query(queries[i % len(queries)], a.top_k, extra)
    load_before = os.getloadavg()
    cpu0 = {k: cpu_ms(s.p.pid) for k, s in servers.items()}
    times = {k: [] for k in names}
    k = 0
    for r in range(a.rounds):
        block = [queries[(k + j) % len(queries)] for j in range(a.per_round)]
        k += a.per_round
        order = names[r % len(names):] + names[: r % len(names)]
        for who in order:
            for q in block:
                times[who].append(servers[who].query(q, a.top_k, extra))
    n = a.rounds * a.per_round
    cpu = {k: (cpu_ms(s.p.pid) - cpu0[k]) / n for k, s in servers.items()}
    load_after = os.getloadavg()
    for s in servers.values():
        s.close()
    out = {"brain": a.brain, "old_brain": a.old_brain or a.brain, "top_k": a.top_k, "args": extra, "queries_per_server": n}
    for who in names:
        out[who] = summary(times[who])
        out[who]["server_cpu_ms_per_query"] = round(cpu[who], 3)
    out["ratio_new_over_old"] = {
        kind: {p: round(out[f"{kind}_new"][p] / out[f"{kind}_old"][p], 3) for p in ["p50_ms", "p99_ms", "server_cpu_ms_per_query"]}
        for kind in ["daemon", "mcp_stdio"] if kind in a.kinds.split(",")
    }
    out["load_before"] = [round(x, 2) for x in load_before]
    out["load_after"] = [round(x, 2) for x in load_after]
    print(json.dumps(out, indent=1))
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
