"""A real MCP client (the Python `mcp` SDK from PyPI) driving `crabpath mcp`.

Usage: python mcp_client.py stdio BINARY BRAIN
       python mcp_client.py http URL
       python mcp_client.py bench-stdio BINARY BRAIN QUERIES_FILE N
       python mcp_client.py bench-http URL QUERIES_FILE N

The session (`stdio`, `http`): initialize, list tools and resource templates, `query`
with a chat id, `feedback` for that chat, `correct` for that chat, `query` again (the
nodes the corrected path reached no longer fire), a bad argument (a tool error, the
server keeps serving), an unknown tool (a protocol error), a node read as a resource,
`health`. Prints one JSON object
with what it saw; exits 1 with a message at the first failed expectation.

The benchmarks (`bench-*`) time N `query` calls round trip, after 20 warm-up calls, and
print the latencies in milliseconds as JSON.
"""

import asyncio
import json
import sys
import time

from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

QUESTION = "deploy the service"


def fail(msg):
    print(f"mcp_client: {msg}", file=sys.stderr)
    sys.exit(1)


def structured(result):
    if result.is_error:
        fail(f"tool error: {result.content[0].text}")
    data = result.structured_content
    if data is None:
        fail("no structured content")
    # the text block carries the same JSON
    if json.loads(result.content[0].text) != data:
        fail("text and structured content differ")
    return data


async def session_checks(session):
    seen = {}
    init = await session.initialize()
    seen["server"] = init.server_info.name
    tools = await session.list_tools()
    names = sorted(t.name for t in tools.tools)
    seen["tools"] = names
    want = sorted(["query", "feedback", "correct", "teach", "health", "sync", "remember", "forget"])
    if names != want:
        fail(f"tools {names}, expected {want}")
    for t in tools.tools:
        if not t.description or t.input_schema.get("type") != "object":
            fail(f"tool {t.name} lacks a description or an object schema")
    templates = await session.list_resource_templates()
    seen["templates"] = [t.uri_template for t in templates.resource_templates]

    q1 = structured(await session.call_tool("query", {"query": QUESTION, "chat_id": "c1"}))
    fired1 = [n["id"] for n in q1["fired"]]
    reached = [n["id"] for n in q1["fired"] if len(n["path"]) > 1]
    if not reached:
        fail(f"the first query followed no edge: {fired1}")
    for n in q1["fired"]:
        if n["path"][-1] != n["id"] or not isinstance(n["text"], str):
            fail(f"bad node {n}")
    seen["first_fired"] = fired1
    seen["turn"] = q1["turn"]

    fb = structured(await session.call_tool("feedback", {"outcome": 1, "chat_id": "c1"}))
    if [c["turn"] for c in fb["credited"]] != [q1["turn"]] or fb["credited"][0]["weight"] != 1.0:
        fail(f"feedback credited {fb}")
    again = structured(await session.call_tool("feedback", {"outcome": 1, "chat_id": "c1"}))
    if again["credited"] or again["already_credited"] != [q1["turn"]]:
        fail(f"a turn was credited twice: {again}")
    seen["feedback_edges"] = fb["edges_updated"]

    # a second turn, corrected: the correction is a guardrail beside the content
    # (corrected profile, issue 31 item 4): no edge vetoes anything, the corrected turn
    # is taught its outcome (-1), and the next answer returns the correction under
    # `guardrails` together with content
    q2 = structured(await session.call_tool("query", {"query": QUESTION, "chat_id": "c1"}))
    cor = structured(
        await session.call_tool(
            "correct",
            {"content": "Deploy the service through the release pipeline, not by hand.", "chat_id": "c1", "turns_ago": 0},
        )
    )
    if cor["deduped"] or cor.get("mode") != "guardrail" or cor["inhibited_edges"]:
        fail(f"the correction was not a guardrail: {cor}")
    taught = cor["feedback"]["credited"]
    if [c["turn"] for c in taught] != [q2["turn"]] or taught[0]["outcome"] != -1.0:
        fail(f"the corrected turn was not taught -1: {cor}")
    dup = structured(
        await session.call_tool(
            "correct",
            {"content": "  Deploy the service through the release pipeline, not by hand. ", "chat_id": "c1"},
        )
    )
    if not dup["deduped"]:
        fail(f"the same correction was applied twice: {dup}")

    q3 = structured(await session.call_tool("query", {"query": QUESTION, "chat_id": "c1"}))
    fired3 = [n["id"] for n in q3["fired"]]
    guards = [g["id"] for g in q3.get("guardrails", [])]
    if cor["node_id"] not in guards or cor["node_id"] in fired3:
        fail(f"the correction is not a guardrail of the next answer: {guards} (fired {fired3})")
    if not fired3:
        fail(f"the correction erased the answer: {q3}")
    seen["guardrails"] = guards
    seen["second_fired"] = fired3

    bad = await session.call_tool("query", {"query": "", "top_k": 0})
    if not bad.is_error or "query" not in bad.content[0].text:
        fail(f"a bad argument was not a tool error: {bad}")
    seen["bad_argument"] = bad.content[0].text

    # remember: two turns of one session, chained; the second is found by a query
    r1 = structured(await session.call_tool("remember", {"session": 7, "speaker": "Ann", "time": "9 May 2023", "text": "I adopted a grey cat named Pixel."}))
    r2 = structured(await session.call_tool("remember", {"session": "7", "speaker": "Bob", "text": "Pixel is a lovely name for a cat."}))
    if r1["edges"] or len(r2["edges"]) != 2 or r2["edges"][0][0] != r1["node_id"]:
        fail(f"remember did not chain the session: {r1} {r2}")
    found = structured(await session.call_tool("query", {"query": "grey cat named Pixel adopted"}))
    if r1["node_id"] not in [n["id"] for n in found["fired"]]:
        fail(f"a remembered turn was not found: {found}")
    dup = await session.call_tool("remember", {"id": r1["node_id"], "text": "again"})
    if not dup.is_error or "exists already" not in dup.content[0].text:
        fail(f"a duplicate id was not refused: {dup}")
    seen["remembered"] = [r1["node_id"], r2["node_id"]]

    try:
        await session.call_tool("erase", {})
        fail("an unknown tool was not refused")
    except MCPError as e:
        if "unknown tool" not in str(e):
            fail(f"unknown tool: {e}")
        seen["unknown_tool"] = str(e)

    res = await session.read_resource(f"crabpath://node/{fired1[0]}")
    if not res.contents or not res.contents[0].text:
        fail("empty node resource")
    seen["resource_chars"] = len(res.contents[0].text)

    health = structured(await session.call_tool("health", {}))
    if health["nodes"] < 1:
        fail(f"health {health}")
    # the eight metrics of seed 002 Table 4, each with its value, range and status
    table_4 = ["avg_nodes_fired_per_query", "cross_file_edge_pct", "dormant_pct", "reflex_pct",
               "context_compression", "proto_promotion_rate", "reconvergence_rate", "orphan_nodes"]
    if list(health["metrics"]) != table_4:
        fail(f"health metrics {list(health['metrics'])}, expected {table_4}")
    for name, m in health["metrics"].items():
        if list(m) != ["value", "unit", "min", "max", "status", "reason"]:
            fail(f"health metric {name}: {m}")
    seen["health"] = health
    return seen


async def bench(session, queries, n):
    await session.initialize()
    out = []
    for i in range(20 + n):
        q = queries[i % len(queries)]
        t0 = time.perf_counter()
        r = await session.call_tool("query", {"query": q, "top_k": 4, "chat_id": "bench"})
        dt = (time.perf_counter() - t0) * 1000.0
        if r.is_error:
            fail(f"query failed: {r.content[0].text}")
        if i >= 20:
            out.append(dt)
    return out


async def main(argv):
    mode = argv[1]
    if mode in ("stdio", "bench-stdio"):
        params = StdioServerParameters(command=argv[2], args=["mcp", "--state", argv[3]])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                if mode == "stdio":
                    return await session_checks(session)
                queries = [l.strip() for l in open(argv[4], encoding="utf-8") if l.strip()]
                return await bench(session, queries, int(argv[5]))
    if mode in ("http", "bench-http"):
        async with streamable_http_client(argv[2]) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                if mode == "http":
                    return await session_checks(session)
                queries = [l.strip() for l in open(argv[3], encoding="utf-8") if l.strip()]
                return await bench(session, queries, int(argv[4]))
    fail(f"unknown mode {mode}")


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv))))
