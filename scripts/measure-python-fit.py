"""The memory and time figures of docs/python.md: a Python fit on an n × d float64 array.

Prints, as JSON: the array's size, the peak RSS the fit added beyond the process's
peak before it (the array included), their ratio, and the fit's wall time. With
--npy PATH it also saves the same values (features, then y) for the CLI comparison:

    python scripts/measure-python-fit.py --n 1000000 --d 100 --algorithm clipped-gd --param T=30
    python scripts/measure-python-fit.py ... --npy /tmp/x.npy   # (its peak then includes the save)
    /usr/bin/time heavydp fit --algorithm clipped-gd --data /tmp/x.npy --epsilon 1 \
        --param T=30 --seed 7 --out m.json      # random_state=7 = --seed 7: the same weights
    /usr/bin/time heavydp evaluate --model m.json --data /tmp/x.npy   # the read, to subtract
"""
import argparse
import json
import resource
import time

import numpy as np

import heavydp


def peak_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--d", type=int, default=100)
    ap.add_argument("--algorithm", default="auto")
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--param", action="append", default=[],
                    help="KEY=VALUE algorithm parameter (e.g. T=30), as the CLI's --param")
    ap.add_argument("--copy-x-false", action="store_true",
                    help="copy_X=False (standardise the caller's array in place)")
    ap.add_argument("--npy", help="also save X|y as one .npy (features then target)")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    X = rng.standard_t(3.0, size=(args.n, args.d))
    w = np.zeros(args.d)
    w[: min(5, args.d)] = 1.0
    y = X @ w + rng.standard_t(3.0, size=args.n)
    if args.npy:
        np.save(args.npy, np.column_stack([X, y]))
    base = peak_bytes()
    t0 = time.perf_counter()
    est = heavydp.PrivateRegressor(algorithm=args.algorithm, epsilon=args.epsilon,
                                   random_state=7, copy_X=not args.copy_x_false,
                                   params=dict(p.split("=", 1) for p in args.param) or None).fit(X, y)
    dt = time.perf_counter() - t0
    extra = peak_bytes() - base
    print(json.dumps({
        "n": args.n, "d": args.d, "algorithm": args.algorithm,
        "selected": est.selected_ if hasattr(est, "selected_") else None,
        "array_bytes": X.nbytes, "peak_added_bytes": extra,
        "peak_added_over_array": extra / X.nbytes, "fit_seconds": dt,
        "coef_head": est.coef_[:3].tolist(),
    }))


if __name__ == "__main__":
    main()
