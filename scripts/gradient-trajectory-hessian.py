#!/usr/bin/env python3
"""Can the feature correlation be read off `clipped-gd`'s released noisy gradients?

`clipped-gd`'s intervals simulate independent features because the fit releases no
second moments of them (docs/inference.md, "Assumptions"). Its T noisy gradients are
released, though (the ledger charges every one), so anything computed from them is
post-processing. For the squared loss the clipped mean gradient is nearly affine in the
iterate, g_t ≈ H·w_t − c + noise with H = 2·E[x̃x̃ᵀ] (2 for the curvature of (m − y)²),
so a least-squares regression of the T gradients on (w_t, 1) estimates H, and with it
the correlation the bootstrap world lacks.

This script replays the fit's descent in NumPy on scaled columns with the fit's public
constants (the model file's `hyperparameters` at n = 20 000, d = 8, ε = 1:
R = 2·2·√8, σ = 0.0484, T = 45 heavy-ball steps, lr 1/(2d), momentum 0.95, the step
halved on an obtuse pair) on equicorrelated normal features and t₃ noise (the design of
scripts/intervals-correlated.py), records (w_t, g_t) and prints the regression's
estimate of H's diagonal (truth 2) and of the mean off-diagonal correlation (truth ρ),
with the smallest singular values of the regression's design (the directions the
iterates explore).

    .venv/bin/python scripts/gradient-trajectory-hessian.py [--seeds 3]
"""
import argparse
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--seeds", type=int, default=3)
ap.add_argument("--n", type=int, default=20000)
ap.add_argument("--d", type=int, default=8)
a = ap.parse_args()


def run(rho, n, d, seed, sigma=0.0483788, radius=11.3137, steps=45, beta=0.95):
    rng = np.random.default_rng(seed)
    x = np.sqrt(rho) * rng.standard_normal((n, 1)) + np.sqrt(1 - rho) * rng.standard_normal((n, d))
    w_true = np.array([[1, -0.5, 0.25, 0][j % 4] for j in range(d)])
    y = x @ w_true + rng.standard_t(3, n)
    q25, q75 = np.percentile(y, [25, 75])
    y = (y - np.median(y)) / ((q75 - q25) / 1.349)
    w, v, lr, g_prev = np.zeros(d), np.zeros(d), 1 / (2 * d), None
    ws, gs = [], []
    for _ in range(steps):
        grad = (2 * (x @ w - y))[:, None] * x
        norms = np.linalg.norm(grad, axis=1)
        grad *= np.minimum(1, radius / np.maximum(norms, 1e-300))[:, None]
        g = grad.mean(0) + sigma * rng.standard_normal(d)
        ws.append(w.copy())
        gs.append(g)
        if g_prev is not None and g @ g_prev < -0.8 * np.sqrt((g @ g) * (g_prev @ g_prev)):
            lr, v = lr / 2, np.zeros(d)
        v = beta * v - lr * g
        w, g_prev = w + v, g
    design = np.column_stack([np.array(ws), np.ones(steps)])
    coef, *_ = np.linalg.lstsq(design, np.array(gs), rcond=None)
    h = (coef[:d].T + coef[:d]) / 2
    dh = np.sqrt(np.clip(np.diag(h), 1e-12, None))
    corr = h / np.outer(dh, dh)
    off = ~np.eye(d, dtype=bool)
    return np.diag(h), corr[off].mean(), np.linalg.svd(design, compute_uv=False)


for rho in (0.0, 0.3, 0.7):
    for seed in range(a.seeds):
        diag, corr, sv = run(rho, a.n, a.d, seed)
        print(f"rho={rho} seed={seed}: H diagonal (truth 2) {np.round(diag, 2)}; mean "
              f"estimated correlation {corr:+.2f} (truth {rho}); smallest singular values "
              f"of the design {np.round(sv[-2:], 3)} (largest {sv[0]:.2f})")
