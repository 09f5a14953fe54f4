#!/usr/bin/env bash
# all-MiniLM-L6-v2 (or, with --model mpnet, all-mpnet-base-v2) speed, side by side: this
# crate (`crabpath-embed bench-speed`) against
# sentence-transformers on PyTorch (CPU, f32), on the same real texts (HotPotQA sample1100
# paragraphs and questions, `bench embed --dump-texts`), the same number of threads, runs
# interleaved (ours, theirs, ours, theirs, ...) so that both see the same machine load.
#
# sentence-transformers is not a dependency of the project: install it once into a virtual
# environment outside the repository (PyPI; a few GB with PyTorch's CUDA libraries):
#
#   python3 -m venv ~/st-venv
#   ~/st-venv/bin/pip install torch==2.15.0 sentence-transformers==6.2.0
#
# then, from the repository root:
#
#   ST_VENV=~/st-venv crates/crabpath-embed/speed/compare.sh [--model minilm|mpnet] [--data-dir DIR]
#
# Knobs (environment): THREADS (2), PARAGRAPHS (512), QUERIES (1024), REPEAT (3, the best
# of which each run reports), ROUNDS (2), SINGLE (100: queries embedded one at a time by
# ours, for the p50 / p99 latency of one query). Output: each run's lines, then the ratio of
# the best texts/s of each side per set. Results are reported in BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/../../.."
DATA="${CRABPATH_DATA_DIR:-../shared/datasets}"
MODEL_KEY=minilm
while [ $# -gt 0 ]; do
  case "$1" in
    --data-dir) DATA="$2"; shift ;;
    --model) MODEL_KEY="$2"; shift ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "compare.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
: "${ST_VENV:?set ST_VENV to a virtual environment with sentence-transformers (see the top of this script)}"
THREADS="${THREADS:-2}" PARAGRAPHS="${PARAGRAPHS:-512}" QUERIES="${QUERIES:-1024}"
REPEAT="${REPEAT:-3}" ROUNDS="${ROUNDS:-2}" SINGLE="${SINGLE:-100}"
case "$MODEL_KEY" in
  minilm) NAME=all-MiniLM-L6-v2; DIR_ENV=CRABPATH_MODEL_DIR ;;
  mpnet) NAME=all-mpnet-base-v2; DIR_ENV=CRABPATH_MPNET_MODEL_DIR ;;
  *) echo "compare.sh: --model: expected minilm or mpnet, not '$MODEL_KEY'" >&2; exit 2 ;;
esac
OUT="out/$MODEL_KEY-speed"
mkdir -p "$OUT"

cargo build -q --release -p crabpath-embed -p bench
T="${CARGO_TARGET_DIR:-target}/release"
"$T/bench" fetch-model --model "$MODEL_KEY" > /dev/null
MODEL="$(pwd)/datasets/models/$NAME"
MODEL="${!DIR_ENV:-$MODEL}"
"$T/bench" --data-dir "$DATA" embed --dataset hotpotqa --variant sample1100 --limit 0 \
  --dump-texts "$OUT/texts.json"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load: $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$OUT/runs.txt"
for r in $(seq 1 "$ROUNDS"); do
  RAYON_NUM_THREADS="$THREADS" "$T/crabpath-embed" --model "$MODEL_KEY" --model-dir "$MODEL" \
    --threads "$THREADS" bench-speed --texts "$OUT/texts.json" --paragraphs "$PARAGRAPHS" \
    --queries "$QUERIES" --repeat "$REPEAT" --single "$SINGLE" | sed "s/^/crabpath-embed  /" | tee -a "$OUT/runs.txt"
  OMP_NUM_THREADS="$THREADS" MKL_NUM_THREADS="$THREADS" "$ST_VENV/bin/python" \
    crates/crabpath-embed/speed/st_speed.py "$MODEL" "$OUT/texts.json" "$PARAGRAPHS" \
    "$QUERIES" "$REPEAT" "$THREADS" | sed "s/^/sentence-transformers  /" | tee -a "$OUT/runs.txt"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
# Best texts/s per side and set, and their ratio.
awk '/ texts\/s/ {
       side = $1; set = $2; sub(":", "", set)
       for (i = 1; i <= NF; i++) if ($i == "texts/s,") rate = $(i - 1)
       if (rate > best[side, set]) best[side, set] = rate
     }
     END {
       for (s = 1; s <= 2; s++) {
         set = (s == 1) ? "paragraphs" : "queries"
         o = best["crabpath-embed", set]; t = best["sentence-transformers", set]
         if (t > 0) printf "%s: crabpath-embed %.1f texts/s, sentence-transformers %.1f texts/s: %.2fx\n", set, o, t, o / t
       }
     }' "$OUT/runs.txt"
