#!/usr/bin/env python3
"""Seeded 80/20 splits of one table, `heavydp fit` on the training part, the test MSE over
the training mean's, and what the model file says about its released scales
(docs/benchmark.md, "Every algorithm's defaults").

    scripts/split-fit-diagnosis.py TABLE.csv ALGORITHM EPSILON SPLITS [FIT FLAGS ...]
    HEAVYDP=target/release/heavydp  PUBLIC_SD_SCALES=1  (optional environment)

Split k is random.Random(1000 + k).shuffle of the rows (not the benchmark's splits); the
fit's seed is k. Per split it prints the ratio, the ratio with the predictions clamped
to the released target centre ± K·scale (K = 2, 3, 4, 6, 10), the features whose
released scale is below 10^-3, and the scaled intercept. PUBLIC_SD_SCALES=1 declares
every column's training median and standard deviation as public centre and scale
(`--scale public:FILE.json`): a NON-private yardstick of what correct scales would give,
not a private fit.
"""
import csv
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile

B = os.environ.get("HEAVYDP", "target/release/heavydp")


def main(path, alg, eps, splits, extra):
    rows = list(csv.reader(open(path)))
    hdr, data = rows[0], rows[1:]
    tmp = tempfile.mkdtemp(prefix="split-fit-")
    for k in range(int(splits)):
        idx = list(range(len(data)))
        random.Random(1000 + k).shuffle(idx)
        cut = int(0.8 * len(data))
        tr, te = [data[i] for i in idx[:cut]], [data[i] for i in idx[cut:]]
        files = {}
        for nm, part in (("train", tr), ("test", te)):
            files[nm] = os.path.join(tmp, f"{k}.{nm}.csv")
            with open(files[nm], "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(hdr)
                w.writerows(part)
        ytr = [float(r[0]) for r in tr]
        yte = [float(r[0]) for r in te]
        m = statistics.fmean(ytr)
        const = statistics.fmean((v - m) ** 2 for v in yte)
        flags = list(extra)
        if os.environ.get("PUBLIC_SD_SCALES"):
            cols = {}
            for j, h in enumerate(hdr):
                v = [float(r[j]) for r in tr]
                cols[h] = {"centre": statistics.median(v), "scale": statistics.pstdev(v) or 1.0}
            pub = os.path.join(tmp, f"{k}.public.json")
            json.dump({"columns": cols}, open(pub, "w"))
            flags += ["--scale", f"public:{pub}"]
        out = os.path.join(tmp, f"{k}.model.json")
        p = subprocess.run([B, "fit", "--algorithm", alg, "--data", files["train"], "--target",
                            hdr[0], "--epsilon", eps, "--seed", str(k), "--out", out] + flags,
                           capture_output=True, text=True)
        if p.returncode:
            print(k, "error:", p.stderr.strip().splitlines()[-1])
            continue
        pred = subprocess.run([B, "predict", "--model", out, "--data", files["test"]],
                              capture_output=True, text=True, check=True).stdout.split()[1:]
        pred = [float(v) for v in pred]

        def ratio(q):
            return statistics.fmean((a - b) ** 2 for a, b in zip(q, yte)) / const

        model = json.load(open(out))
        pre = model.get("preprocessing") or {}
        line = f"split {k}: MSE / mean's {ratio(pred):.3g}"
        c, s = pre.get("target_centre"), pre.get("target_scale")
        if c is not None and s is not None:
            line += "; clamped at c ± K·s: " + ", ".join(
                f"K={K} {ratio([min(max(v, c - K * s), c + K * s) for v in pred]):.3g}"
                for K in (2, 3, 4, 6, 10))
        tiny = [(f, sc) for f, sc in zip(model["features"], pre.get("scales") or []) if sc < 1e-3]
        if tiny:
            line += "; scales < 1e-3: " + ", ".join(f"{f} {sc:.1e}" for f, sc in tiny)
        if "scaled_intercept" in pre:
            line += f"; scaled intercept {pre['scaled_intercept']:.3g}"
        print(line)


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
