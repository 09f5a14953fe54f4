"""Fits the weights of crabpath-brain's conversation ranker (service/rerank.rs, issue 28).

Input: the JSON Lines of `cargo run --release -p bench --example rerank_dump -- OUT.jsonl`
(each LoCoMo question's candidates before re-ordering, with their features). Coordinate
ascent on recall@10 + 0.5 recall@5 over the tuning conversations only (conv-26, conv-30),
the first weight (base place) fixed at 1; then prints recall@5/10/25/50 (all questions and
multi-hop) on the tuning, test and all conversations. Needs python3 and numpy.

    python3 benchmarks/scripts/rerank_fit.py OUT.jsonl [START]

Coordinate ascent stops at a local optimum, so it starts twice: from the base order alone
(weights 1, 0, 0, ...) and from START (comma-separated weights, e.g. the previous fit's,
padded with zeros for features added since); the start with the higher tuning objective
wins. Both starts see the tuning conversations only.
"""
import json
import sys

import numpy as np

TUNE = {"conv-26", "conv-30"}
KS = [5, 10, 25, 50]
GRID = [-0.5, -0.3, -0.2, -0.1, -0.05, -0.02, 0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1]


def recall(ev, ranked, k):
    if not ev:
        return 1.0
    top = set(ranked[:k])
    return sum(e in top for e in ev) / len(ev)


def questions(path):
    out = []
    for line in open(path):
        c = json.loads(line)
        for q in c["qs"]:
            ids = [x[0] for x in q["cand"]]
            x = np.array([x[1] for x in q["cand"]]) if ids else np.zeros((0, 1))
            out.append(dict(conv=c["conv"], cat=q["cat"], ev=q["ev"], ids=ids, x=x))
    return out


def mean_recall(qs, w, k):
    r = []
    for q in qs:
        ids = q["ids"]
        if ids:
            order = np.argsort(-(q["x"] @ w), kind="stable")
            ids = [ids[i] for i in order]
        r.append(recall(q["ev"], ids, k))
    return float(np.mean(r)) if r else 0.0


def ascend(obj, w, free, grid, sweeps=3):
    """Coordinate ascent: `sweeps` passes over the weights `free`, each set to the value
    of `grid` that raises `obj` most (strictly); returns (objective, weights). The one
    fitting loop of both rankers' scripts (this one and folder_rank_fit.py)."""
    best = obj(w)
    for _ in range(sweeps):
        for j in free:
            for g in grid:
                w2 = w.copy()
                w2[j] = g
                o = obj(w2)
                if o > best + 1e-12:
                    best, w = o, w2
    return best, w


def main():
    qs = questions(sys.argv[1])
    n = next(q["x"].shape[1] for q in qs if q["ids"])
    tune = [q for q in qs if q["conv"] in TUNE]
    starts = [np.eye(n)[0]]
    if len(sys.argv) > 2:
        given = [float(x) for x in sys.argv[2].split(",")]
        starts.append(np.array((given + [0.0] * n)[:n]))

    def obj(w):
        return mean_recall(tune, w, 10) + 0.5 * mean_recall(tune, w, 5)

    fits = []
    for w in starts:
        best, w = ascend(obj, w, range(1, n), GRID)
        print("start", [float(x) for x in starts[len(fits)]], "tuning objective", round(best, 4))
        fits.append((best, w))
    w = max(fits, key=lambda f: f[0])[1]
    print("weights", [float(x) for x in w])
    for name, sel in [("tuning", lambda q: q["conv"] in TUNE),
                      ("test", lambda q: q["conv"] not in TUNE), ("all", lambda q: True)]:
        part = [q for q in qs if sel(q)]
        mh = [q for q in part if q["cat"] == 1]
        for label, ww in [("base", np.eye(n)[0]), ("fitted", w)]:
            print(name, label, [round(mean_recall(part, ww, k), 3) for k in KS],
                  "multi-hop", [round(mean_recall(mh, ww, k), 3) for k in KS])


if __name__ == "__main__":
    main()
