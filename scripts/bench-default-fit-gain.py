#!/usr/bin/env python3
"""Gain kept of a fit against its parameters on 80/20 splits of a CSV (response y first).

Each split s (seed 1000 + s) is written under --work; each --cfg LABEL:K=V,K=V is fitted
with `heavydp fit --algorithm ALGO --param K=V ... --seed 7+s` at every epsilon and scored
with `heavydp evaluate` on the test part. Gain kept = (MSE of the training mean - MSE) /
(MSE of the training mean - MSE of OLS), one JSON line per fit (appended to --out).
For 0/1 responses the JSON gives the test risk (err) instead (gain null).
Example (docs/performance.md, "The default fit"):
  scripts/bench-default-fit-gain.py --data ../shared/data/real/cps1988_wage.csv --splits 3 \
      --eps 0.5,1,2 --algo auto --cfg new: --cfg theorem:schedule=theorem,max_steps=10000
"""
import json, os, subprocess, sys, time, argparse
import numpy as np
ap = argparse.ArgumentParser()
ap.add_argument("--data", required=True)
ap.add_argument("--splits", type=int, default=2)
ap.add_argument("--eps", default="1")
ap.add_argument("--cfg", action="append", required=True, help="label:K=V,--flag=V (K=V for --param, --flag=V for a fit flag)")
ap.add_argument("--bin", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "heavydp"))
ap.add_argument("--algo", default="clipped-gd")
ap.add_argument("--loss", default=None)
ap.add_argument("--out", default="gain.jsonl")
ap.add_argument("--maxrows", type=int, default=0)
ap.add_argument("--work", default="/tmp/bench-default-fit-gain")
a = ap.parse_args()
name = os.path.basename(a.data).rsplit(".", 1)[0]
raw = open(a.data).read().splitlines()
header, rows = raw[0], raw[1:]
if a.maxrows and len(rows) > a.maxrows:
    rows = [rows[i] for i in np.random.default_rng(0).choice(len(rows), a.maxrows, replace=False)]
M = np.array([[float(v) for v in r.split(",")] for r in rows])
binary = set(np.unique(M[:, 0])) <= {0.0, 1.0}
sd = a.work; os.makedirs(sd, exist_ok=True)
for s in range(a.splits):
    perm = np.random.default_rng(1000 + s).permutation(len(rows))
    ntr = int(0.8 * len(rows))
    tr, te = perm[:ntr], perm[ntr:]
    ftr, fte = f"{sd}/{name}-{s}-train.csv", f"{sd}/{name}-{s}-test.csv"
    if not os.path.exists(ftr):
        open(ftr, "w").write(header + "\n" + "\n".join(rows[i] for i in tr) + "\n")
        open(fte, "w").write(header + "\n" + "\n".join(rows[i] for i in te) + "\n")
    ytr, yte = M[tr, 0], M[te, 0]
    if binary:
        p = ytr.mean(); const = -np.mean(yte * np.log(p) + (1 - yte) * np.log(1 - p)); floor = None
    else:
        const = np.mean((yte - ytr.mean()) ** 2)
        Xtr = np.c_[np.ones(len(tr)), M[tr, 1:]]; Xte = np.c_[np.ones(len(te)), M[te, 1:]]
        b = np.linalg.lstsq(Xtr, ytr, rcond=None)[0]; floor = np.mean((yte - Xte @ b) ** 2)
    for eps in a.eps.split(","):
        for cfg in a.cfg:
            label, _, ps = cfg.partition(":")
            # K=V is a --param; --flag=V a flag of `heavydp fit` (e.g. --preprocess-share=0.5)
            params = [x for p in ps.split(",") if p
                      for x in (p.split("=", 1) if p.startswith("--") else ("--param", p))]
            cmd = [a.bin, "fit", "--algorithm", a.algo, "--data", ftr, "--epsilon", eps, "--seed", str(7 + s), "--out", os.path.join(a.work, "m-%d.json" % os.getpid())] + params
            if a.loss: cmd += ["--loss", a.loss]
            t0 = time.time()
            r = subprocess.run(cmd, capture_output=True, text=True)
            wall = time.time() - t0
            if r.returncode:
                print("FAIL", cfg, r.stderr[-500:]); continue
            m = json.load(open(os.path.join(a.work, "m-%d.json" % os.getpid())))
            ev = json.loads(subprocess.run([a.bin, "evaluate", "--model", os.path.join(a.work, "m-%d.json" % os.getpid()), "--data", fte], capture_output=True, text=True).stdout)
            err = ev["risk"] if binary else ev["mse"]
            hp = m["hyperparameters"]
            rec = dict(data=name, split=s, eps=eps, cfg=label, err=err, const=const, floor=floor,
                       gain=(None if floor is None else (const - err) / (const - floor)), wall=round(wall, 2), T=hp.get("T"), lr=hp.get("lr"), algo=m.get("selected", m["algorithm"]))
            print(json.dumps(rec), flush=True)
            open(a.out, "a").write(json.dumps(rec) + "\n")
