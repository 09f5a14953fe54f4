"""Fits the weights of crabpath-brain's folder ranker (service/folder_rank.rs, issue 28).

Input: the JSON Lines of `cargo run --release -p bench --example folder_rank_dump --
FOLDER QUESTIONS OUT.jsonl` (each question's candidates before re-ordering, with their
page and features). Coordinate ascent on success@5 + success@1 + MRR by page over the
tuning half only (questions at even indices, fixed in advance), the first weight (base
place) fixed at 1; then prints success@1/5/10 and MRR on the tuning half, the held-out
half (odd indices) and all. Needs python3 and numpy.

    python3 benchmarks/scripts/folder_rank_fit.py OUT.jsonl [FEATURE_INDEX ...]

With feature indices, only those (and the base place) are fitted; the others stay 0.
"""
import json
import sys

import numpy as np

from rerank_fit import ascend

GRID = [-1, -0.5, -0.3, -0.2, -0.1, -0.05, 0, 0.05, 0.1, 0.2, 0.3, 0.5, 1, 2]


def questions(path):
    out = []
    for i, line in enumerate(open(path)):
        q = json.loads(line)
        pages = [c[0] for c in q["cand"]]
        x = np.array([c[1] for c in q["cand"]]) if pages else np.zeros((0, 1))
        out.append(dict(i=i, acc=set(q["acceptable"]), pages=pages, x=x))
    return out


def rank(q, w):
    """1-based rank of the first acceptable page, None if none."""
    order = np.argsort(-(q["x"] @ w), kind="stable") if q["pages"] else []
    seen = []
    for j in order:
        p = q["pages"][j]
        if p not in seen:
            seen.append(p)
            if p in q["acc"]:
                return len(seen)
    return None


def scores(qs, w):
    r = [rank(q, w) for q in qs]
    s = lambda k: float(np.mean([x is not None and x <= k for x in r]))
    mrr = float(np.mean([1.0 / x if x else 0.0 for x in r]))
    return [round(s(1), 3), round(s(5), 3), round(s(10), 3), round(mrr, 3)]


def main():
    qs = questions(sys.argv[1])
    n = next(q["x"].shape[1] for q in qs if q["pages"])
    free = [int(a) for a in sys.argv[2:]] or list(range(1, n))
    tune = [q for q in qs if q["i"] % 2 == 0]
    w = np.zeros(n)
    w[0] = 1.0

    def obj(w):
        s = scores(tune, w)
        return s[1] + s[0] + s[3]

    _, w = ascend(obj, w, free, GRID)
    print("weights", [float(x) for x in w])
    for name, sel in [("tuning", lambda q: q["i"] % 2 == 0),
                      ("held-out", lambda q: q["i"] % 2 == 1), ("all", lambda q: True)]:
        part = [q for q in qs if sel(q)]
        print(name, len(part), "base s@1/5/10/MRR", scores(part, np.eye(n)[0]),
              "fitted", scores(part, w))


if __name__ == "__main__":
    main()
