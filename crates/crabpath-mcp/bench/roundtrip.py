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
import subprocess
import time

from rtt_common import QUERIES, Daemon, child_pid, cpu_ms, summary
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

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
