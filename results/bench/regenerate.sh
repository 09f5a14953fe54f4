#!/usr/bin/env bash
# Regenerates every committed file under results/bench/ (hash-v1 embedder, staged subsets).
# Usage: results/bench/regenerate.sh [DATA_DIR]   (default: $CRABPATH_DATA_DIR, else ../shared/datasets)
# Everything except the `timings_s` field of each JSON is deterministic.
set -euo pipefail
cd "$(dirname "$0")/../.."
DATA="${1:-${CRABPATH_DATA_DIR:-../shared/datasets}}"
cargo build --release -p bench
B=(./target/release/bench --data-dir "$DATA" run --embedder hash-v1 --limit 0 --no-progress)
# Both datasets x both protocols on every staged file: JSON + TREC run files + qrels.
for p in paper clean; do
  "${B[@]}" --dataset hotpotqa --variant first103 --protocol "$p"
  "${B[@]}" --dataset hotpotqa --variant sample1100 --protocol "$p"
  "${B[@]}" --dataset multihop-rag --variant sample500 --protocol "$p"
done
# Variants: JSON reports only.
X=(--no-run-files)
# The reference's own setting (BENCH.md §2 defect 2 reproduced): equals the reference program.
"${B[@]}" "${X[@]}" --dataset hotpotqa --variant first103 --protocol paper --shared-edge-state
"${B[@]}" "${X[@]}" --dataset hotpotqa --variant sample1100 --protocol paper --shared-edge-state
"${B[@]}" "${X[@]}" --dataset multihop-rag --variant sample500 --protocol paper --shared-edge-state
# Label-free graphs that use neither labels nor the question grouping.
"${B[@]}" "${X[@]}" --dataset hotpotqa --variant sample1100 --protocol clean --graph title-mentions
"${B[@]}" "${X[@]}" --dataset multihop-rag --variant sample500 --protocol clean --graph knn
# Split evaluation: learn on the first half, freeze, score the second half.
"${B[@]}" "${X[@]}" --dataset hotpotqa --variant sample1100 --protocol clean --split 0.5
"${B[@]}" "${X[@]}" --dataset hotpotqa --variant sample1100 --protocol paper --split 0.5
# CI fixture (.ci/run re-runs this and compares byte for byte).
./target/release/bench --data-dir "$DATA" run --dataset hotpotqa --variant first103 --limit 50 \
  --no-timings --no-progress --bootstrap 200 --out results/bench/ci/hotpotqa-first103-limit50-paper-hash-v1.json
