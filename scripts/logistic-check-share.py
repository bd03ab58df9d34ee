#!/usr/bin/env python3
"""Explicit logistic fits on small binary tables: test AUC and log-loss over the base rate's.

Reproduces the tables of docs/benchmark.md, "The logistic fit check" (its share, and where
it is blind) and the public-scales yardstick of "The six real sets". For each table (CSV,
0/1 response `y` first) and split s = 0..4 (a seeded 80/20 shuffle, seed 1000 + s) it runs

    heavydp fit --algorithm ALGO --loss logistic --data TRAIN --epsilon E --delta 1e-6 \
        --seed 7+s [--scale public:FILE]

and scores `heavydp predict` on the test part: AUC (ties averaged) and the log-loss over
that of the training base rate (a probability of exactly 0 or 1 on the wrong label counts
-ln(1e-300) = 690 nats). Scale variants (--scales):
  private  the default private scaling;
  exact    centres and scales from the training part's quartiles, declared public (a
           yardstick of known scales, NOT private); 0/1 columns as the range [0, 1];
  coarse   the training median and the power of two nearest 1.4826 x its MAD (the same).
--subsample M draws M rows of each table once (seed 99) before splitting (the confirm
half's small versions). Prints one line per (table, variant, epsilon): mean and worst split.

Example (the confirm subsamples; --bin the build to measure):
  scripts/logistic-check-share.py --subsample 300 --subsample 600 \
      ../shared/data/suite/{AER_SwissLabor,survival_flchain,stevedata_TV16}.csv \
      ../shared/data/real/cells_ps.csv
"""
import argparse, csv, json, math, os, random, subprocess, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("tables", nargs="+")
ap.add_argument("--eps", default="0.5,1,2")
ap.add_argument("--scales", default="private")
ap.add_argument("--algo", default="clipped-gd")
ap.add_argument("--splits", type=int, default=5)
ap.add_argument("--subsample", type=int, action="append", default=[])
ap.add_argument("--bin", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "heavydp"))
ap.add_argument("--work", default=tempfile.mkdtemp(prefix="logistic-check-share-"))
a = ap.parse_args()


def auc(scores, ys):
    pairs = sorted(zip(scores, ys))
    n1 = sum(ys)
    n0 = len(ys) - n1
    i, s1 = 0, 0.0
    while i < len(pairs):
        j = i
        while j < len(pairs) and pairs[j][0] == pairs[i][0]:
            j += 1
        s1 += (i + j + 1) / 2.0 * sum(p[1] for p in pairs[i:j])
        i = j
    return (s1 - n1 * (n1 + 1) / 2) / (n1 * n0)


def quantile(col, p):
    c = sorted(col)
    k = (len(c) - 1) * p
    lo, hi = math.floor(k), math.ceil(k)
    return c[lo] + (c[hi] - c[lo]) * (k - lo)


def declared(header, train, mode):
    cols = {}
    for j, name in enumerate(header[1:], start=1):
        col = [float(r[j]) for r in train]
        if set(col) <= {0.0, 1.0}:
            cols[name] = {"min": 0.0, "max": 1.0}
            continue
        if mode == "exact":
            q1, q3 = quantile(col, 0.25), quantile(col, 0.75)
            c, s = (q1 + q3) / 2, (q3 - q1) / 1.349
        else:
            m = quantile(col, 0.5)
            mad = quantile([abs(x - m) for x in col], 0.5)
            c, s = m, 2.0 ** round(math.log2(max(1.4826 * mad, 1e-300)))
        if not s > 0:
            mu = sum(col) / len(col)
            s = math.sqrt(sum((x - mu) ** 2 for x in col) / len(col)) or 1.0
        cols[name] = {"centre": c, "scale": s}
    return {"columns": cols}


def write(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def run(path, label):
    rows = list(csv.reader(open(path)))
    header, data = rows[0], rows[1:]
    assert header[0] == "y", f"{path}: the response must be the first column, y"
    res = {}
    for split in range(a.splits):
        idx = list(range(len(data)))
        random.Random(1000 + split).shuffle(idx)
        cut = int(0.8 * len(data))
        train, test = [data[i] for i in idx[:cut]], [data[i] for i in idx[cut:]]
        ftr = os.path.join(a.work, f"{label}-tr{split}.csv")
        fte = os.path.join(a.work, f"{label}-te{split}.csv")
        write(ftr, header, train)
        write(fte, header, test)
        ytr = [float(r[0]) > 0 for r in train]
        yte = [float(r[0]) > 0 for r in test]
        p0 = sum(ytr) / len(ytr)
        base = sum(-math.log(p0 if y else 1 - p0) for y in yte)
        for v in a.scales.split(","):
            extra = []
            if v != "private":
                sf = os.path.join(a.work, f"{label}-sc{split}-{v}.json")
                json.dump(declared(header, train, v), open(sf, "w"))
                extra = ["--scale", "public:" + sf]
            for e in a.eps.split(","):
                mf = os.path.join(a.work, f"{label}-m{split}-{v}-{e}.json")
                fit = [a.bin, "fit", "--algorithm", a.algo, "--loss", "logistic", "--data", ftr,
                       "--epsilon", e, "--delta", "1e-6", "--seed", str(7 + split), "--out", mf]
                subprocess.run(fit + extra, check=True, capture_output=True)
                out = subprocess.run([a.bin, "predict", "--model", mf, "--data", fte],
                                     check=True, capture_output=True, text=True).stdout.split()
                p = [float(x) for x in out[1:]]
                ll = sum(-math.log(max(1e-300, q if y else 1 - q)) for q, y in zip(p, yte))
                res.setdefault((v, e), []).append((auc(p, yte), ll / base))
    for (v, e), r in sorted(res.items()):
        aucs, lls = [x[0] for x in r], [x[1] for x in r]
        print(f"{label:40s} {v:8s} eps={e:4s} AUC {sum(aucs) / len(aucs):.3f}  "
              f"log-loss/base {sum(lls) / len(lls):.3f} (worst {max(lls):.3f})", flush=True)


for path in a.tables:
    name = os.path.basename(path).rsplit(".", 1)[0]
    if not a.subsample:
        run(path, name)
    for m in a.subsample:
        rows = list(csv.reader(open(path)))
        sub = random.Random(99).sample(rows[1:], m)
        sp = os.path.join(a.work, f"sub{m}_{name}.csv")
        write(sp, rows[0], sub)
        run(sp, f"sub{m}_{name}")
