#!/bin/sh
# Download the complete benchmark datasets into datasets/ (or --data-dir DIR) and verify them.
# Thin wrapper around `bench fetch`; all arguments are passed through, e.g.
#   datasets/fetch.sh --dataset multihop-rag
#   datasets/fetch.sh --dataset hotpotqa --data-dir /data/crabpath
# Runs from the workspace root, so a relative --data-dir is relative to it.
set -eu
cd "$(dirname "$0")/.."
exec cargo run --release --quiet -p bench -- fetch "$@"
