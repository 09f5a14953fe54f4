#!/usr/bin/env bash
# Regenerates the reference outputs of this directory (see README.md) by running the
# reference program, benchmarks/run_benchmark.py of jonathangu/crabpath, unmodified.
#
#   results/reference/repo-bench/make_reference.sh REF_134C676 [REF_70F0065]
#
# REF_134C676 / REF_70F0065: clean checkouts of commits 134c676 and 70f0065
# (datasets/crabpath-repo/README.md). Without REF_70F0065 only the outputs on this
# repository's fixtures and on 134c676 are made. Needs python3 (3.11) and nothing else.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
fixture="$root/benchmarks/tests/fixtures/repo-bench"
ref134="$(cd "$1" && pwd)"
ref70="${2:+$(cd "$2" && pwd)}"
export PYTHONDONTWRITEBYTECODE=1

# run NAME PACKAGE WORKSPACE QUERIES [FLAGS...]: run the reference's script from a
# scratch directory (it writes benchmarks/results.json under the current directory),
# keep its stdout with the workspace path replaced by a label, and its results without
# the timing, machine and path fields.
run() {
  local name="$1" pkg="$2" ws="$3" queries="$4" label="$5"
  shift 5
  local tmp
  tmp="$(mktemp -d)"
  mkdir -p "$tmp/benchmarks" "$here/$name"
  (cd "$tmp" && PYTHONPATH="$pkg" python3 "$pkg/benchmarks/run_benchmark.py" \
      --workspace "$ws" --queries-path "$queries" "$@") > "$tmp/stdout.txt"
  sed "s|^Splitting workspace: .*|Splitting workspace: $label|" "$tmp/stdout.txt" \
      > "$here/$name/stdout.txt"
  python3 - "$tmp/benchmarks/results.json" "$here/$name/results.stripped.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
for k in ("generated_at", "workspace", "query_source", "init_timing_ms", "environment"):
    d.pop(k)
for m in d["methods"].values():
    m.pop("latency_ms")
    for q in m["per_query"]:
        q.pop("latency_ms")
open(sys.argv[2], "w", encoding="utf-8").write(json.dumps(d, indent=2))
PY
  rm -rf "$tmp"
}

run fixture "$ref134" "$fixture/workspace" "$fixture/workspace/benchmarks/queries.json" \
  "<fixture workspace>"
run fixture-edge "$ref134" "$fixture/workspace" "$fixture/queries-edge.json" \
  "<fixture workspace>"
run fixture-flags "$ref134" "$fixture/workspace" "$fixture/workspace/benchmarks/queries.json" \
  "<fixture workspace>" --seed-top-k -40 --hash-top-k 3 --traverse-seed-k 3 \
  --traverse-max-hops 3 --traverse-beam-width 2 --replay-max-hops 1
run edge-sample "$ref134" "$ref134/examples/sample_workspace" "$here/edge-sample/q10.json" \
  "<checkout 134c676>/examples/sample_workspace"
run 134c676 "$ref134" "$ref134" "$ref134/benchmarks/queries.json" "<checkout 134c676>"
if [ -n "$ref70" ]; then
  run paper-70f0065 "$ref70" "$ref70" "$ref70/benchmarks/queries.json" "<checkout 70f0065>"
fi
# counterfactual: each tree without its benchmarks/queries.json (the queries are read
# from the original checkout), i.e. the reference's numbers on a corpus that does not
# contain its own labels
for pair in "134c676:$ref134" "70f0065:$ref70"; do
  c="${pair%%:*}" ref="${pair#*:}"
  [ -n "$ref" ] || continue
  copy="$(mktemp -d)"
  git -C "$ref" archive HEAD | tar -x -C "$copy"
  rm "$copy/benchmarks/queries.json"
  run "no-queries-json-$c" "$ref" "$copy" "$ref/benchmarks/queries.json" \
    "<checkout $c without benchmarks/queries.json>"
  rm -rf "$copy"
done
gzip -n -9 -f "$here"/*/results.stripped.json
