#!/usr/bin/env bash
# Regenerates every committed file under results/bench/ (hash-v1 and all-MiniLM-L6-v2 embedders,
# staged subsets).
# Usage: results/bench/regenerate.sh [DATA_DIR]   (default: $CRABPATH_DATA_DIR, else ../shared/datasets)
# Everything except the `timings_s` and `embedding_stats` fields of each JSON is deterministic.
# The minilm runs need the model (`bench fetch-model`, or set CRABPATH_MODEL_DIR). The first of
# them fills the embedding cache (datasets/cache/embeddings, or $CRABPATH_EMBED_CACHE): about
# 12,600 texts, several minutes on 2 cores; with a warm cache they take seconds.
# SKIP_MINILM=1 leaves them out.
set -euo pipefail
cd "$(dirname "$0")/../.."
DATA="${1:-${CRABPATH_DATA_DIR:-../shared/datasets}}"
cargo build --release -p bench
BIN="${CARGO_TARGET_DIR:-target}/release/bench"
B=("$BIN" --data-dir "$DATA" run --embedder hash-v1 --limit 0 --no-progress)
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
"$BIN" --data-dir "$DATA" run --dataset hotpotqa --variant first103 --limit 50 \
  --no-timings --no-progress --bootstrap 200 --out results/bench/ci/hotpotqa-first103-limit50-paper-hash-v1.json
# all-MiniLM-L6-v2 (BENCH.md §3 "Embedders"): both protocols on the two larger samples, JSON +
# TREC run files + qrels, then the label-free graphs without question grouping.
if [ "${SKIP_MINILM:-0}" != 1 ]; then
  M=("$BIN" --data-dir "$DATA" run --embedder minilm --limit 0 --no-progress)
  for p in paper clean; do
    "${M[@]}" --dataset hotpotqa --variant sample1100 --protocol "$p"
    "${M[@]}" --dataset multihop-rag --variant sample500 --protocol "$p"
  done
  "${M[@]}" "${X[@]}" --dataset hotpotqa --variant sample1100 --protocol clean --graph title-mentions
  "${M[@]}" "${X[@]}" --dataset hotpotqa --variant sample1100 --protocol clean --graph knn
  "${M[@]}" "${X[@]}" --dataset multihop-rag --variant sample500 --protocol clean --graph knn
fi
