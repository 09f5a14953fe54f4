"""Runs a benchmark script of the reference program offline, with its own hash-v1 embedder.

Usage:
    python3 run_reference.py CHECKOUT SCRIPT OUTPUT [SCRIPT ARGS...]

CHECKOUT is a checkout of the reference program (github.com/jonathangu/crabpath) at the
commit under test, SCRIPT one of its `benchmarks/external/run_*.py`, OUTPUT the JSON to
write. The script runs unmodified, except that:

* `openai` is replaced by a stub module whose `OpenAI()` raises (it is never called);
* the script's embedding cache is replaced by a mapping that holds every string and answers
  each lookup with `crabpath.HashEmbedder().embed(text)` from CHECKOUT (memoised), and
  saving the cache does nothing. Every text, an empty node content included, is therefore
  embedded with the reference's own hash-v1.

The three keys that describe one machine and one moment (`generated_at`, `dataset_path`,
`cache_path`) are removed from the output; everything else is written as the script wrote it.
Standard library only.
"""

import importlib.util
import json
import sys
import types


def main() -> None:
    checkout, script, output, *args = sys.argv[1:]
    sys.path.insert(0, checkout)

    stub = types.ModuleType("openai")

    class OpenAI:  # noqa: D401 - a stub
        def __init__(self, *a, **k):
            raise RuntimeError("offline run: the OpenAI client must not be used")

    stub.OpenAI = OpenAI
    sys.modules["openai"] = stub

    from crabpath import HashEmbedder

    class HashCache(dict):
        """Every string is 'cached'; a lookup embeds it with hash-v1 once."""

        def __init__(self):
            super().__init__()
            self._embedder = HashEmbedder()

        def __contains__(self, key):
            return isinstance(key, str)

        def __missing__(self, key):
            vector = self._embedder.embed(key)
            self[key] = vector
            return vector

        def get(self, key, default=None):
            return self[key]

    spec = importlib.util.spec_from_file_location("reference_benchmark", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module._load_cache = lambda path: HashCache()
    module._save_cache = lambda path, cache: None

    sys.argv = [script, "--output", output, *args]
    module.main()

    with open(output, encoding="utf-8") as f:
        report = json.load(f)
    for key in ("generated_at", "dataset_path", "cache_path"):
        report.pop(key, None)
    with open(output, "w", encoding="utf-8") as f:
        f.write(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
