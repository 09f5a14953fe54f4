"""Query round trip, side by side: `crabpath mcp` driven by a real MCP client (the
Python `mcp` SDK from PyPI, over stdio, and with `--http` over streamable HTTP too) and
`crabpath daemon` driven over its NDJSON stdin/stdout, on the same brain, from the same
Python process.

    python roundtrip.py CRABPATH BRAIN [--rounds 10] [--per-round 100] [--top-k 4]
                       [--route-mode MODE] [--http]

Both servers are started once and warmed up (20 queries each); then, in each round,
`per-round` queries go to the daemon and `per-round` to the MCP server, alternating
which goes first, so that a change of load on a shared machine hits both alike. Every
query carries a chat id (both servers then log the turn, as an agent's queries would).
The load average is read before and after, and each server's CPU time over the timed
queries (/proc), which the load does not inflate. Prints one JSON object: p50, p90,
p99, mean (milliseconds) and CPU per query per server, the ratio MCP / daemon, the load.

Not a test: nothing is asserted; the numbers go to BENCHMARKS.md.
"""

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import time

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

# Questions a user of a command-line documentation folder asks (tldr-pages).
QUERIES = [
    "how do I extract a tar archive",
    "list files sorted by size",
    "find files modified in the last day",
    "show disk usage of a folder",
    "create a new git branch and switch to it",
    "undo the last git commit",
    "copy files over ssh",
    "download a file from a url",
    "compress a folder into a zip file",
    "kill a process by name",
    "show running processes",
    "change file permissions recursively",
    "search text in files recursively",
    "replace text in a file with sed",
    "print the first lines of a file",
    "follow a log file as it grows",
    "list open network ports",
    "show the ip address of this machine",
    "mount a usb drive",
    "convert an image to png",
    "resize an image",
    "record the terminal session",
    "schedule a job with cron",
    "create a python virtual environment",
    "install a package with pip",
    "run a docker container interactively",
    "list docker images",
    "show kubernetes pods",
    "generate an ssh key",
    "check a file checksum",
    "count lines in a file",
    "sort lines and remove duplicates",
    "show the calendar",
    "measure how long a command takes",
    "watch a command every two seconds",
    "split a large file into parts",
    "encrypt a file with gpg",
    "show memory usage",
    "compare two files",
    "rename many files at once",
]


def cpu_ms(pid):
    """User + system CPU time of a process so far, milliseconds (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")


def child_pid(args_part):
    """The pid of our child process whose command line contains `args_part`."""
    me = os.getpid()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if ppid == me and args_part in cmd:
            return int(d)
    return None


def percentile(xs, p):
    s = sorted(xs)
    k = (len(s) - 1) * p / 100.0
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def summary(xs):
    return {
        "n": len(xs),
        "p50_ms": round(percentile(xs, 50), 3),
        "p90_ms": round(percentile(xs, 90), 3),
        "p99_ms": round(percentile(xs, 99), 3),
        "mean_ms": round(statistics.fmean(xs), 3),
    }


class Daemon:
    def __init__(self, crabpath, brain, extra):
        self.p = subprocess.Popen(
            [crabpath, "daemon", "--state", brain] + extra,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.i = 0

    def query(self, q, top_k):
        self.i += 1
        req = {"id": self.i, "method": "query", "params": {"query": q, "top_k": top_k, "chat_id": "bench-daemon"}}
        t0 = time.perf_counter()
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        dt = (time.perf_counter() - t0) * 1000.0
        if '"result"' not in line:
            raise SystemExit(f"daemon error: {line}")
        return dt

    def close(self):
        self.p.stdin.write(json.dumps({"id": 0, "method": "shutdown"}) + "\n")
        self.p.stdin.close()
        self.p.wait()


async def mcp_query(session, q, top_k):
    t0 = time.perf_counter()
    r = await session.call_tool("query", {"query": q, "top_k": top_k, "chat_id": "bench-mcp"})
    dt = (time.perf_counter() - t0) * 1000.0
    if r.is_error:
        raise SystemExit(f"mcp error: {r.content[0].text}")
    return dt


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("crabpath")
    ap.add_argument("brain")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--per-round", type=int, default=100)
    ap.add_argument("--top-k", type=int, default=4)
    ap.add_argument("--route-mode", default=None, help="passed to both servers (default: theirs)")
    ap.add_argument("--http", action="store_true", help="also time MCP over streamable HTTP")
    a = ap.parse_args()
    extra = ["--route-mode", a.route_mode] if a.route_mode else []
    load_before = os.getloadavg()
    daemon = Daemon(a.crabpath, a.brain, extra)
    # MCP clients start servers with a minimal environment: pass ours (the MiniLM
    # weights are found through CRABPATH_MODEL_DIR)
    params = StdioServerParameters(
        command=a.crabpath, args=["mcp", "--state", a.brain] + extra, env=dict(os.environ)
    )
    t_daemon, t_mcp, t_http = [], [], []
    cpu = {}
    http_server, url = None, None
    if a.http:
        http_server = subprocess.Popen(
            [a.crabpath, "mcp", "--state", a.brain, "--http", "127.0.0.1:0"] + extra,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = http_server.stderr.readline()
        url = next(w for w in line.split() if w.startswith("http://"))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            http_cm = streamable_http_client(url) if url else None
            hs = None
            if http_cm:
                streams = await http_cm.__aenter__()
                hs_cm = ClientSession(streams[0], streams[1])
                hs = await hs_cm.__aenter__()
                await hs.initialize()
            for i in range(20):
                daemon.query(QUERIES[i % len(QUERIES)], a.top_k)
                await mcp_query(session, QUERIES[i % len(QUERIES)], a.top_k)
                if hs:
                    await mcp_query(hs, QUERIES[i % len(QUERIES)], a.top_k)
            pids = {
                "daemon": daemon.p.pid,
                "mcp": child_pid(" mcp --state"),
                "http": http_server.pid if http_server else None,
            }
            cpu0 = {k: cpu_ms(v) for k, v in pids.items() if v}
            k = 0
            for r in range(a.rounds):
                block = [QUERIES[(k + j) % len(QUERIES)] for j in range(a.per_round)]
                k += a.per_round
                order = ["daemon", "mcp", "http"] if r % 2 == 0 else ["http", "mcp", "daemon"]
                for who in order:
                    for q in block:
                        if who == "daemon":
                            t_daemon.append(daemon.query(q, a.top_k))
                        elif who == "mcp":
                            t_mcp.append(await mcp_query(session, q, a.top_k))
                        elif hs:
                            t_http.append(await mcp_query(hs, q, a.top_k))
            cpu = {k: cpu_ms(v) - cpu0[k] for k, v in pids.items() if v}
            if http_cm:
                await hs_cm.__aexit__(None, None, None)
                await http_cm.__aexit__(None, None, None)
    if http_server:
        http_server.kill()
        http_server.wait()
    daemon.close()
    load_after = os.getloadavg()
    d, m = summary(t_daemon), summary(t_mcp)
    n = a.rounds * a.per_round
    d["server_cpu_ms_per_query"] = round(cpu.get("daemon", 0.0) / n, 3)
    m["server_cpu_ms_per_query"] = round(cpu.get("mcp", 0.0) / n, 3) if "mcp" in cpu else None
    h = summary(t_http) if t_http else None
    if h:
        h["server_cpu_ms_per_query"] = round(cpu.get("http", 0.0) / n, 3)
    print(
        json.dumps(
            {
                "brain": a.brain,
                "top_k": a.top_k,
                "route_mode": a.route_mode or "default",
                "daemon_ndjson": d,
                "mcp_stdio": m,
                "mcp_http": h,
                "ratio_mcp_over_daemon": {
                    "p50": round(m["p50_ms"] / d["p50_ms"], 2),
                    "p99": round(m["p99_ms"] / d["p99_ms"], 2),
                },
                "load_before": [round(x, 2) for x in load_before],
                "load_after": [round(x, 2) for x in load_after],
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
