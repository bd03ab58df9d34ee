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
  octave-private, median-octave-private
           a PROTOTYPE of cheaper private scales (not the product's scaling, and its
           generator is Python's, not a cryptographic one): per column one exponential-
           mechanism release of the octave of the median |x| (centre 0), or two: the
           median on the signed octave grid +-2^k, 0 and the octave of the median
           |x - centre|; both on the 62-point octave grid 0, 2^-20..2^40 of the product,
           utility minus the rank distance to n/2, sampled as exp(eps0 * u / 2) by
           Gumbel-max. The k releases are charged eps0^2/8 each (bounded range) to zCDP
           and converted at delta/2 to the share --scale-share of epsilon; the fit then
           gets epsilon x (1 - share) and delta/2. 0/1 columns take no release (declared
           [0, 1]; the product's binary gate spends a noisy count on them).
--subsample M draws M rows of each table once (seed 99) before splitting (the confirm
half's small versions). Prints one line per (table, variant, epsilon): mean and worst split.

Example (the confirm subsamples; --bin the build to measure):
  scripts/logistic-check-share.py --subsample 300 --subsample 600 \
      ../shared/data/suite/{AER_SwissLabor,survival_flchain,stevedata_TV16}.csv \
      ../shared/data/real/cells_ps.csv
"""
import argparse, bisect, csv, json, math, os, random, subprocess, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("tables", nargs="+")
ap.add_argument("--eps", default="0.5,1,2")
ap.add_argument("--scales", default="private")
ap.add_argument("--algo", default="clipped-gd")
ap.add_argument("--splits", type=int, default=5)
ap.add_argument("--subsample", type=int, action="append", default=[])
ap.add_argument("--scale-share", type=float, default=0.2,
                help="the share of epsilon of the prototype private scales (octave-private, ...)")
ap.add_argument("--octave-factor", type=float, default=1.0,
                help="the prototype's scale: this factor times the released octave")
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


PROTOTYPES = {"octave-private": 1, "median-octave-private": 2}   # releases per column
OCTAVES = [0.0] + [2.0 ** e for e in range(-20, 41)]
SIGNED = [-v for v in reversed(OCTAVES[1:])] + OCTAVES


def octave_floor(v):
    v = abs(v)
    if v < 2.0 ** -20:
        return 0.0
    return 2.0 ** min(math.floor(math.log2(v)), 40)


def snap_signed(v):
    # the largest point of the signed octave grid <= v (the smallest point below it)
    if v >= 0:
        return octave_floor(v)
    a = -v
    k = 2.0 ** math.ceil(math.log2(a)) if a >= 2.0 ** -20 else 2.0 ** -20
    return -min(k, 2.0 ** 40)


def grid_median(values, grid, eps0, rng):
    # exponential mechanism for the median on a public grid: utility -(rank distance)
    xs = sorted(values)
    n, t = len(xs), len(xs) / 2.0
    best, arg = -math.inf, grid[0]
    for g in grid:
        lo, hi = bisect.bisect_left(xs, g), bisect.bisect_right(xs, g)
        u = -max(0.0, lo - t, t - hi)
        score = eps0 * u / 2.0 - math.log(-math.log(rng.random() or 1e-300))
        if score > best:
            best, arg = score, g
    return arg


def release_epsilon0(k, eps_share, delta_share):
    # k releases of eps0^2/8 zCDP each, converted: eps = rho + 2 sqrt(rho ln(1/delta))
    ln = math.log(1.0 / delta_share)
    sqrt_rho = -math.sqrt(ln) + math.sqrt(ln + eps_share)
    return math.sqrt(8.0 * sqrt_rho ** 2 / k)


def declared(header, train, mode, eps=None, seed=0):
    cols = {}
    binary = [set(float(r[j]) for r in train) <= {0.0, 1.0} for j in range(1, len(header))]
    if mode in PROTOTYPES:
        k = PROTOTYPES[mode] * sum(1 for b in binary if not b)
        eps0 = release_epsilon0(k, a.scale_share * eps, 0.5e-6)
        rng = random.Random(seed)
    for j, name in enumerate(header[1:], start=1):
        col = [float(r[j]) for r in train]
        if binary[j - 1]:
            cols[name] = {"min": 0.0, "max": 1.0}
            continue
        if mode in PROTOTYPES:
            c = 0.0
            if mode == "median-octave-private":
                c = grid_median([snap_signed(x) for x in col], SIGNED, eps0, rng)
            s = grid_median([octave_floor(x - c) for x in col], OCTAVES, eps0, rng)
            cols[name] = {"centre": c, "scale": a.octave_factor * s if s > 0 else 2.0 ** -20}
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
            for e in a.eps.split(","):
                extra, fit_eps, fit_delta = [], e, "1e-6"
                if v != "private":
                    sf = os.path.join(a.work, f"{label}-sc{split}-{v}-{e}.json")
                    json.dump(declared(header, train, v, float(e), 7 + split), open(sf, "w"))
                    extra = ["--scale", "public:" + sf]
                if v in PROTOTYPES:
                    fit_eps, fit_delta = repr(float(e) * (1 - a.scale_share)), "5e-7"
                mf = os.path.join(a.work, f"{label}-m{split}-{v}-{e}.json")
                fit = [a.bin, "fit", "--algorithm", a.algo, "--loss", "logistic", "--data", ftr,
                       "--epsilon", fit_eps, "--delta", fit_delta, "--seed", str(7 + split),
                       "--out", mf]
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
