#!/usr/bin/env python3
"""Simulated heavy-tailed regression tables with 0/1 columns (docs/benchmark.md, "The
step schedule below the cap"): public data on which the default step schedule of
`clipped-gd` was chosen before it was checked on the suite.

    scripts/sim-dummy-tables.py OUT_DIR

Writes sim_n{n}_d{d}_b{b}.csv (response y first) for (n, d, b) in TABLES: d − b
continuous columns, Student t (4 d.o.f.) times a scale in [0.5, 50] plus an offset in
[−100, 100]; b 0/1 columns with P(1) in [0.03, 0.5]; y = x·w + 1000 + Student t (3 d.o.f.)
noise times 0.7·√d, w ~ N(0, 1) over each column's standard deviation.
"""
import os
import sys

import numpy as np

TABLES = [(3000, 10, 5, 1), (5000, 25, 15, 2), (8000, 50, 30, 3), (2500, 20, 0, 4), (6000, 15, 10, 5)]


def main(out):
    os.makedirs(out, exist_ok=True)
    for n, d, nb, seed in TABLES:
        rng = np.random.default_rng(seed)
        dc = d - nb
        xc = rng.standard_t(4, size=(n, dc)) * rng.uniform(0.5, 50, size=dc) + rng.uniform(-100, 100, size=dc)
        xb = (rng.uniform(size=(n, nb)) < rng.uniform(0.03, 0.5, size=nb)).astype(float)
        x = np.hstack([xc, xb])
        w = rng.normal(size=d) / x.std(0)
        y = x @ w + rng.standard_t(3, size=n) * np.sqrt(d) * 0.7 + 1000
        np.savetxt(os.path.join(out, f"sim_n{n}_d{d}_b{nb}.csv"), np.column_stack([y, x]), delimiter=",",
                   header="y," + ",".join(f"x{j}" for j in range(d)), comments="", fmt="%.6g")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
