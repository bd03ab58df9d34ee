#!/usr/bin/env python3
"""Coverage of `heavydp fit --intervals` when the features are correlated.

`clipped-gd`'s intervals simulate a bootstrap world whose features are independent
normal columns (its fit releases no feature correlation); `adassp`'s come from its
released XᵀX. This script measures both on a known truth with equicorrelated features:
each repetition r draws n rows of x ~ N(0, (1 − ρ)·I + ρ·11ᵀ) (unit variances, every
pair correlated ρ) and y = ⟨w, x⟩ + t₃ noise (Student t, 3 degrees of freedom), w =
(1, −0.5, 0.25, 0) repeated to d terms, intercept 0 (Python's generator, seed
1000·r + 100·ρ), then runs

    heavydp fit --algorithm ALGO --data FILE --target y --epsilon E --intervals 0.95 --seed r+1

and counts, per term, how often the interval contains the truth (the least-squares
parameter of this linear model). Prints one line per repetition (each term's error,
`*` where its interval misses) and the coverage per term, pooled over the slopes.

    scripts/intervals-correlated.py --rho 0.7 --reps 20 [--algo clipped-gd] [--n 20000] [--d 8] [--eps 1]

Pure Python (no NumPy); about 25 s a `clipped-gd` repetition at n = 20 000, d = 8 on two
cores. `--bin` is the CLI to measure (default: target/release/heavydp).
"""
import argparse, json, math, os, random, subprocess, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--rho", type=float, required=True)
ap.add_argument("--reps", type=int, default=20)
ap.add_argument("--algo", default="clipped-gd")
ap.add_argument("--n", type=int, default=20000)
ap.add_argument("--d", type=int, default=8)
ap.add_argument("--eps", type=float, default=1.0)
ap.add_argument("--bin", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "heavydp"))
a = ap.parse_args()

n, d, rho = a.n, a.d, a.rho
w = [[1.0, -0.5, 0.25, 0.0][j % 4] for j in range(d)]
truth = w + [0.0]
work = tempfile.mkdtemp(prefix="intervals-correlated-")
cover, widths, bounded = [0] * (d + 1), [[] for _ in range(d + 1)], 0
for rep in range(a.reps):
    rng = random.Random(1000 * rep + int(round(100 * rho)))
    path = os.path.join(work, f"data-{rep}.csv")
    with open(path, "w") as f:
        f.write("y," + ",".join(f"x{j + 1}" for j in range(d)) + "\n")
        for _ in range(n):
            z0 = rng.gauss(0, 1)
            x = [math.sqrt(rho) * z0 + math.sqrt(1 - rho) * rng.gauss(0, 1) for _ in range(d)]
            chi = sum(rng.gauss(0, 1) ** 2 for _ in range(3)) / 3
            y = sum(p * q for p, q in zip(w, x)) + rng.gauss(0, 1) / math.sqrt(chi)
            f.write(f"{y:.6g}," + ",".join(f"{v:.6g}" for v in x) + "\n")
    out = os.path.join(work, f"model-{rep}.json")
    subprocess.run([a.bin, "fit", "--algorithm", a.algo, "--data", path, "--target", "y",
                    "--epsilon", str(a.eps), "--intervals", "0.95", "--seed", str(rep + 1),
                    "--out", out], check=True, capture_output=True)
    iv = json.load(open(out))["intervals"]
    terms = iv["coefficients"] + ([iv["intercept"]] if iv.get("intercept") else [])
    line = []
    bounded += all(t["lower"] is not None and t["upper"] is not None for t in terms)
    for j, t in enumerate(terms):
        lo = -math.inf if t["lower"] is None else t["lower"]
        hi = math.inf if t["upper"] is None else t["upper"]
        hit = lo <= truth[j] <= hi
        cover[j] += hit
        widths[j].append(hi - lo)
        line.append(f"{t['estimate'] - truth[j]:+.3f}{'' if hit else '*'}")
    print(f"rho={rho} rep {rep}: " + " ".join(line), flush=True)
    os.remove(path)
slopes = cover[:d]
print(f"{a.algo} rho={rho} n={n} d={d} eps={a.eps} reps={a.reps}: coverage per term "
      f"{[round(c / a.reps, 3) for c in cover]} (the last is the intercept); slopes pooled "
      f"{sum(slopes) / (a.reps * d):.3f}, worst {min(slopes) / a.reps:.3f}; every term bounded in "
      f"{bounded} of {a.reps}; median width "
      f"{[round(sorted(x)[len(x) // 2], 4) for x in widths]}")
