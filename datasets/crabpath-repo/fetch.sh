#!/usr/bin/env bash
# Fetches the reference repository at a commit of trees.tsv and verifies its git tree.
#
#   datasets/crabpath-repo/fetch.sh COMMIT [DIR]
#
# COMMIT: a commit of trees.tsv (7 or more hex digits, e.g. 70f0065 or 134c676).
# DIR:    where to put the checkout [default: datasets/crabpath-repo/<COMMIT>]; an
#         existing clone there is reused.
# CRABPATH_REPO_URL replaces the upstream URL (a mirror or a local clone).
#
# Succeeds only if HEAD's tree is the expected one and the checkout holds no untracked,
# ignored or modified file (the benchmark's corpus is every file on disk).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
url="${CRABPATH_REPO_URL:-https://github.com/jonathangu/crabpath}"
prefix="${1:?usage: fetch.sh COMMIT [DIR]}"
if [ "${#prefix}" -lt 7 ]; then
  echo "fetch.sh: give at least 7 hex digits of the commit" >&2
  exit 2
fi
line="$(grep -v '^#' "$here/trees.tsv" | awk -F '\t' -v c="$prefix" 'index($1, c) == 1' | head -n 1)"
if [ -z "$line" ]; then
  echo "fetch.sh: $prefix is not a commit of $here/trees.tsv" >&2
  exit 2
fi
commit="$(cut -f1 <<<"$line")"
tree="$(cut -f2 <<<"$line")"
dir="${2:-$here/${commit:0:7}}"
if [ ! -e "$dir/.git" ]; then
  git clone --quiet --no-checkout "$url" "$dir"
fi
git -C "$dir" checkout --quiet --detach "$commit"
actual="$(git -C "$dir" rev-parse 'HEAD^{tree}')"
if [ "$actual" != "$tree" ]; then
  echo "fetch.sh: $dir: tree $actual, expected $tree (commit $commit)" >&2
  exit 1
fi
extra="$(git -C "$dir" status --porcelain --ignored --untracked-files=all)"
if [ -n "$extra" ]; then
  echo "fetch.sh: $dir has files that are not part of commit $commit:" >&2
  echo "$extra" >&2
  exit 1
fi
echo "$dir: commit $commit, tree $tree verified"
echo "run: cargo run --release -p bench -- repo --workspace $dir --queries $dir/benchmarks/queries.json --expect-tree ${commit:0:7}"
