//! Private iterative hard thresholding with Peeling: the sparse algorithms of Hu, Ni,
//! Xiao & Wang — `ht-sparse-linreg` (Alg. 3, shrinkage) and `ht-sparse-opt` (Alg. 5,
//! Catoni–Giulini robust gradient).
//!
//! Both run T iterations on T disjoint data chunks; each iteration takes a gradient
//! step and keeps s coordinates through the one [`Peeling`](crate::mechanisms::Peeling)
//! mechanism of heavydp, which is (ε, δ)-DP for an input of ℓ∞ sensitivity λ. Every
//! chunk is read by one Peeling call only, so the whole run is (ε, δ)-DP by parallel
//! composition (replace-one neighbours, n public).
//!
//! The sparse algorithms take the domain `sparse` (`--domain sparse --sparsity S`):
//! S is the target sparsity s*, the radius R bounds ‖w‖₂; the algorithms keep
//! s = c·s* ≥ s* coordinates, as the papers do.

mod robust;
mod truncated;

pub use robust::{HtSparseOpt, HtSparseOptPlan, SparseOptPreset, SparseTask};
pub use truncated::{HtSparseLinreg, HtSparseLinregPlan};

use crate::linalg::block_rows;
use rayon::prelude::*;

/// Σ_{i ∈ rows} x̃_i (⟨x̃_i, w⟩ − ỹ_i) with x̃, ỹ the data shrunk at K (coordinate-wise
/// sign(v)·min(|v|, K), spec Hu B.5), computed on the fly (no copy of the data).
/// `support` lists the non-zero (j, w_j) of w. Deterministic: fixed row blocks, partial
/// sums added in block order.
pub fn shrunk_residual_sum(
    x: &[f64],
    y: &[f64],
    d: usize,
    rows: &[usize],
    support: &[(usize, f64)],
    k: f64,
    out: &mut [f64],
) {
    let partials: Vec<Vec<f64>> = rows
        .par_chunks(block_rows(d))
        .map(|blk| {
            let mut acc = vec![0.0; d];
            for &i in blk {
                let row = &x[i * d..(i + 1) * d];
                let mut margin = 0.0;
                for &(j, wj) in support {
                    margin += row[j].clamp(-k, k) * wj;
                }
                let r = margin - y[i].clamp(-k, k);
                for (a, v) in acc.iter_mut().zip(row) {
                    *a += r * v.clamp(-k, k);
                }
            }
            acc
        })
        .collect();
    out.iter_mut().for_each(|o| *o = 0.0);
    for p in partials {
        for (o, v) in out.iter_mut().zip(p) {
            *o += v;
        }
    }
}

/// The sparsity level s and iteration count T shared by the Hu et al. IHT algorithms
/// (Algs. 3 and 5), with the chunk check. `s`, `c`, `t` are the user's overrides;
/// `theory` selects Theorem 7/8 (s = ⌈72(γ/μ)²s*⌉, T = ⌈(γ/μ) ln n⌉) over the experiments'
/// s = c·s* (c = 2), T = max(1, ⌊ln n⌋). s is capped at d (unless given) and must be
/// in 1..=d; T ≤ n.
#[allow(clippy::too_many_arguments)]
pub(crate) fn sparsity_and_iterations(
    algorithm: &'static str,
    s: Option<usize>,
    c: Option<usize>,
    t: Option<usize>,
    theory: bool,
    ratio: f64,
    s_star: usize,
    n: usize,
    d: usize,
) -> Result<(usize, usize), crate::algorithms::FitError> {
    let s = match (s, c) {
        (Some(s), _) => s,
        (None, Some(c)) => (c * s_star).min(d),
        (None, None) if theory => ((72.0 * ratio * ratio * s_star as f64).ceil() as usize).min(d),
        (None, None) => (2 * s_star).min(d),
    };
    if s == 0 || s > d {
        return Err(crate::algorithms::FitError::BadParameter {
            algorithm,
            param: "s".into(),
            reason: format!("the number of kept coordinates must be in 1..=d (d = {d}), got {s}"),
        });
    }
    let ln_n = (n as f64).ln();
    let big_t = t.unwrap_or(if theory {
        ((ratio * ln_n).ceil() as usize).max(1)
    } else {
        crate::algorithms::floor_at_least_one(ln_n)
    });
    crate::algorithms::check_chunks(algorithm, n, big_t)?;
    Ok((s, big_t))
}

/// The non-zero entries of w.
pub(crate) fn support_of(w: &[f64]) -> Vec<(usize, f64)> {
    w.iter()
        .enumerate()
        .filter(|(_, v)| **v != 0.0)
        .map(|(j, v)| (j, *v))
        .collect()
}

/// w ← w · min(1, R/‖w‖₂) (projection on the ℓ2 ball of radius R; keeps the support).
pub(crate) fn project_l2(w: &mut [f64], radius: f64) {
    let n = crate::linalg::norm2(w);
    if n > radius {
        w.iter_mut().for_each(|v| *v *= radius / n);
    }
}

#[cfg(test)]
mod tests;
