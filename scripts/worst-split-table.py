#!/usr/bin/env python3
"""Every method's worst split on regression tables, from `heavydp experiment
real-benchmark` outputs (docs/benchmark.md, "Every algorithm's defaults").

    scripts/worst-split-table.py RUN_DIR [RUN_DIR ...] [--splits OUT.csv]

RUN_DIR holds a run's summary.json (or a splits.csv written by --splits); a table in a
later RUN_DIR replaces the same table of an earlier one. Prints one
markdown row per (method, epsilon): tables with a result, the median over tables of the
mean gain kept, the worst split's test MSE over the training mean's (and its table), the
splits above 10x (by table, with the table's half), and the fits that failed or refused.
--splits writes the per-split values the table is built from (dataset, half, method,
epsilon, split, ratio_to_constant, gain_kept, plus one row per failed fit).
"""
import collections
import csv
import json
import os
import statistics
import sys


def load(run):
    """Per-split rows and failures of one run directory."""
    path = os.path.join(run, "summary.json")
    if not os.path.exists(path):
        rows = list(csv.DictReader(open(os.path.join(run, "splits.csv"))))
        return rows
    res = json.load(open(path))["results"]
    halves = res["options"].get("halves", {})
    task = {t["name"]: t["task"] for t in res["sets"]}
    out = []
    values = collections.defaultdict(dict)
    for r in res["rows"]:
        if r["method"] in ("constant", "floor") or task.get(r["dataset"]) != "regression":
            continue
        if r["metric"] in ("ratio_to_constant", "gain_kept"):
            values[(r["dataset"], r["method"], r["epsilon"])][r["metric"]] = r["values"]
    for (ds, m, e), v in values.items():
        for k, (q, g) in enumerate(zip(v.get("ratio_to_constant", []), v.get("gain_kept", []))):
            out.append(dict(dataset=ds, half=halves.get(ds, ""), method=m, epsilon=e,
                            split=k, ratio_to_constant=q, gain_kept=g, error=""))
    for f in res["failures"]:
        if task.get(f["dataset"]) != "regression":
            continue
        out.append(dict(dataset=f["dataset"], half=halves.get(f["dataset"], ""),
                        method=f["method"], epsilon=f["epsilon"], split=f["split"],
                        ratio_to_constant="", gain_kept="", error=f["error"][:200]))
    return out


def main(argv):
    runs, splits_out = [], None
    it = iter(argv)
    for a in it:
        if a == "--splits":
            splits_out = next(it)
        else:
            runs.append(a)
    rows = []
    for run in runs:
        new = load(run)
        names = {r["dataset"] for r in new}
        rows = [r for r in rows if r["dataset"] not in names] + new
    if splits_out:
        with open(splits_out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["dataset", "half", "method", "epsilon", "split",
                                              "ratio_to_constant", "gain_kept", "error"])
            w.writeheader()
            w.writerows(rows)
    ok = collections.defaultdict(lambda: collections.defaultdict(list))
    failed = collections.Counter()
    half = {}
    for r in rows:
        key = (r["method"], float(r["epsilon"]))
        half[r["dataset"]] = r["half"]
        if r["error"]:
            failed[key] += 1
        else:
            ok[key][r["dataset"]].append((float(r["ratio_to_constant"]), float(r["gain_kept"])))
    order = []
    for r in rows:
        if r["method"] not in order:
            order.append(r["method"])
    print("| method | ε | tables | median gain kept | worst split (× the mean's MSE) | splits > 10× | fits refused or failed |")
    print("|---|---|---|---|---|---|---|")
    for m in order:
        for e in sorted({k[1] for k in list(ok) + list(failed) if k[0] == m}):
            t = ok.get((m, e), {})
            gains = [statistics.mean(g for _, g in v) for v in t.values()]
            worst = max(((max(q for q, _ in v), d) for d, v in t.items()), default=None)
            over = {d: sum(q > 10 for q, _ in v) for d, v in t.items()}
            over = {d: k for d, k in over.items() if k}
            med = f"{statistics.median(gains):.3f}" if gains else "–"
            w = f"{worst[0]:.3g} ({worst[1]})" if worst else "–"
            o = str(sum(over.values()))
            if over:
                o += " (" + ", ".join(f"{d} {k}, {half[d]}" for d, k in sorted(over.items())) + ")"
            print(f"| {m} | {e:g} | {len(t)} | {med} | {w} | {o} | {failed.get((m, e), 0)} |")


if __name__ == "__main__":
    main(sys.argv[1:])
