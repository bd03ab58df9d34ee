#!/usr/bin/env python3
"""A NON-private yardstick of the target's scale (docs/benchmark.md, "Signal in the
tails"): every column's training median and IQR/1.349 declared as public scales
(`--scale public:FILE.json`), the target's scale replaced by RULE, `heavydp fit
--algorithm auto` at EPSILON on seeded 80/20 splits (numpy default_rng(1000 + k)), and
the gain kept against OLS with intercept. Not a private fit: the scales read the data.

    .venv/bin/python scripts/target-scale-yardstick.py TABLE.csv EPSILON SPLITS RULE[,RULE...]

RULE: iqr (IQR/1.349), sd (standard deviation), qL (the L-quantile of |y - median| over
the normal's two-sided L-quantile, at least the IQR scale), oL (the same, that quantile
rounded down to a power of two), wK (the standard deviation of y winsorised at K times the
median of |y - median| rounded down to a power of two, at least the IQR scale). HEAVYDP names the binary (default target/release/heavydp).
"""
import json
import os
import subprocess
import sys
import tempfile
from statistics import NormalDist

import numpy as np

BIN = os.environ.get("HEAVYDP", "target/release/heavydp")


def iqr_scale(v):
    """IQR/1.349, or 1 when the quartiles coincide (what the private scaling gives)."""
    q1, q3 = np.quantile(v, [0.25, 0.75])
    s = (q3 - q1) / 1.349
    return s if s > 0 else 1.0


def target_scale(rule, y):
    """The target's scale under RULE (module doc)."""
    if rule == "iqr":
        return iqr_scale(y)
    if rule == "sd":
        return y.std()
    if rule.startswith("w"):
        # the winsorised sd: sqrt(mean(min((y - median)^2, (K*M)^2))), M the median of
        # |y - median| rounded down to a power of two (the private scaling's spread
        # octave), at least the IQR scale
        med = np.median(y)
        a = np.abs(y - med)
        m = np.median(a)
        m = 2.0 ** np.floor(np.log2(m)) if m > 0 else 1.0
        c = float(rule[1:]) * m
        return max(iqr_scale(y), float(np.sqrt(np.mean(np.minimum(a, c) ** 2))))
    level = float(rule[1:])
    q = np.quantile(np.abs(y - np.median(y)), level)
    if rule.startswith("o") and q > 0:
        q = 2.0 ** np.floor(np.log2(q))
    return max(iqr_scale(y), q / NormalDist().inv_cdf(0.5 + level / 2))


def main(path, eps, splits, rules):
    raw = open(path).read().splitlines()
    hdr = raw[0].split(",")
    m = np.array([[float(v) for v in r.split(",")] for r in raw[1:]])
    if len(m) > 60000:
        m = m[np.random.default_rng(0).choice(len(m), 60000, replace=False)]
    tmp = tempfile.mkdtemp()
    gains = {r: [] for r in rules}
    for k in range(splits):
        perm = np.random.default_rng(1000 + k).permutation(len(m))
        nt = int(0.8 * len(m))
        tr, te = m[perm[:nt]], m[perm[nt:]]
        for name, part in (("tr", tr), ("te", te)):
            np.savetxt(f"{tmp}/{name}.csv", part, delimiter=",", header=",".join(hdr), comments="", fmt="%.10g")
        # the floor: OLS with intercept; the constant: the training mean
        b = np.linalg.lstsq(np.column_stack([np.ones(nt), tr[:, 1:]]), tr[:, 0], rcond=None)[0]
        floor = np.mean((np.column_stack([np.ones(len(te)), te[:, 1:]]) @ b - te[:, 0]) ** 2)
        const = np.mean((te[:, 0] - tr[:, 0].mean()) ** 2)
        for rule in rules:
            cols = {h: {"centre": float(np.median(tr[:, j])), "scale": float(iqr_scale(tr[:, j]))}
                    for j, h in enumerate(hdr)}
            cols[hdr[0]]["scale"] = float(target_scale(rule, tr[:, 0]))
            json.dump({"columns": cols}, open(f"{tmp}/pub.json", "w"))
            subprocess.run([BIN, "fit", "--algorithm", "auto", "--data", f"{tmp}/tr.csv", "--target", hdr[0],
                            "--epsilon", eps, "--seed", str(k), "--out", f"{tmp}/m.json",
                            "--scale", f"public:{tmp}/pub.json"], capture_output=True, check=True)
            pred = subprocess.run([BIN, "predict", "--model", f"{tmp}/m.json", "--data", f"{tmp}/te.csv"],
                                  capture_output=True, text=True, check=True).stdout.split()[1:]
            err = np.mean((np.array(pred, float) - te[:, 0]) ** 2)
            gains[rule].append((const - err) / (const - floor))
    print(os.path.basename(path)[:24], eps,
          " ".join(f"{r}:{np.mean(v):.3f}±{np.std(v):.2f}" for r, v in gains.items()))


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split(","))
