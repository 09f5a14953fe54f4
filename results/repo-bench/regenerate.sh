#!/usr/bin/env bash
# Regenerates every result of this directory (see README.md).
#
#   results/repo-bench/regenerate.sh REPO_70F0065 REPO_134C676
#
# REPO_*: clean checkouts of the reference repository (datasets/crabpath-repo/fetch.sh).
# The clean runs need all-MiniLM-L6-v2 (`cargo run -p bench -- fetch-model`). About a
# minute on 2 cores once the MiniLM embedding cache is warm (first time: a few minutes).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
repo70="$(cd "$1" && pwd)"
repo134="$(cd "$2" && pwd)"
(cd "$root" && cargo build -q --release -p bench)
bench="$root/target/release/bench"

# run NAME CHECKOUT COMMIT [FLAGS...]: `bench repo` from inside the checkout with the
# reference's relative queries path, so that no path of this machine enters the results.
run() {
  local name="$1" ws="$2" commit="$3"
  shift 3
  (cd "$ws" && "$bench" repo --workspace . --queries benchmarks/queries.json \
      --expect-tree "$commit" --workspace-label "crabpath@$commit" --no-timings \
      --no-progress --out "$here/$name.json" "$@") > "$here/$name.stdout.txt"
  sed -i "s|^Saved: .*|Saved: results/repo-bench/$name.json (then gzip -n -9)|" "$here/$name.stdout.txt"
  gzip -n -9 -f "$here/$name.json"
}

# the paper's protocol (seed 002 Tables 24 and 25 are paper-70f0065)
run paper-70f0065 "$repo70" 70f0065 --graph-out "$here/graph-70f0065.json.gz"
run paper-134c676 "$repo134" 134c676
# the fair protocol (corrected core, clean protocol)
run clean-70f0065 "$repo70" 70f0065 --profile corrected
run clean-134c676 "$repo134" 134c676 --profile corrected
# one fairness fix at a time, on the paper's tree (REPRODUCE.md)
run ablation-corpus-70f0065 "$repo70" 70f0065 --corpus clean
run ablation-corpus-harness-70f0065 "$repo70" 70f0065 --corpus clean \
  --exclude benchmarks/run_benchmark.py
run ablation-outcome-70f0065 "$repo70" 70f0065 --outcome relevance
run ablation-clean-paper-core-70f0065 "$repo70" 70f0065 --protocol clean
run ablation-corrected-core-70f0065 "$repo70" 70f0065 --profile corrected --protocol paper
