//! Private iterative hard thresholding with Peeling:
//!
//! | `--algorithm` | module | paper | data use |
//! |---|---|---|---|
//! | `ht-sparse-linreg` | `truncated` | Hu, Ni, Xiao & Wang Alg. 3 (shrinkage) | T disjoint chunks |
//! | `ht-sparse-opt` | `robust` | Hu et al. Alg. 5 (Catoni–Giulini robust gradient) | T disjoint chunks |
//! | `dp-iht-huber` | `huber` | Tian, Ding, Tao, Xiang & Wang Alg. 1 (Huber loss) | T disjoint chunks |
//! | `dp-iht-l1` | `absolute` | Tian et al. Alg. 3 (absolute loss) | T disjoint chunks |
//! | `dp-slr` | `least_squares` | Cai, Wang & Zhang (bounded data) | all data, T times |
//!
//! Each iteration takes a gradient step and keeps s coordinates through the one
//! [`Peeling`](crate::mechanisms::Peeling) mechanism of heavydp, which is (ε, δ)-DP for an
//! input of ℓ∞ sensitivity λ. The chunked algorithms read every chunk in one Peeling
//! call only, so the whole run is (ε, δ)-DP by parallel composition (replace-one
//! neighbours, n public); `dp-slr` composes T calls of (ε/T, δ/T). All share one
//! gradient kernel, [`clipped_weighted_sum`].
//!
//! The sparse algorithms take the domain `sparse` (`--domain sparse --sparsity S`):
//! S is the target sparsity s*, the radius R bounds ‖w‖₂; the algorithms keep
//! s = c·s* ≥ s* coordinates, as the papers do.

mod absolute;
mod huber;
mod least_squares;
mod robust;
mod truncated;

pub use absolute::{absolute_step_sensitivity, DpIhtL1, DpIhtL1Plan, SignFeatures};
pub use huber::{huber_step_sensitivity, DpIhtHuber, DpIhtHuberPlan, TauRule};
pub use least_squares::{slr_step_sensitivity, DpSlr, DpSlrPlan};
pub use robust::{HtSparseOpt, HtSparseOptPlan, SparseOptPreset, SparseTask};
pub use truncated::{HtSparseLinreg, HtSparseLinregPlan};

use crate::linalg::block_rows;
use rayon::prelude::*;

/// Σ_{i ∈ rows} g_i · x̃_i, where x̃_i is x_i clipped coordinate-wise at K
/// (sign(v)·min(|v|, K): spec Tian H1, Hu B.5) and the per-record weight is
/// g_i = `weight`(⟨x̃_i, w⟩, ⟨x_i, w⟩, y_i) — the margin on the clipped and on the raw
/// features. The clipping happens on the fly (no copy of the data); `support` lists
/// the non-zero (j, w_j) of the sparse iterate w, so a margin costs O(|support|).
///
/// The kernel of every IHT-style algorithm: Hu Alg. 3 (g = ⟨x̃, w⟩ − ỹ), DP-IHT-H
/// (g = ψ_τ(y − ⟨x̃, w⟩)), DP-IHT-L (g = sign(⟨x, w⟩ − y)), DP-SLR (g = ⟨x̃, w⟩ − Π_R(y)).
/// Parallel over fixed blocks of rows with one accumulator each; the partial sums are
/// added in block order, so the result is bit-identical for any number of threads.
/// A zero weight skips the row's d-vector update.
#[allow(clippy::too_many_arguments)]
pub fn clipped_weighted_sum<F>(
    x: &[f64],
    y: &[f64],
    d: usize,
    rows: &[usize],
    support: &[(usize, f64)],
    k: f64,
    weight: F,
    out: &mut [f64],
) where
    F: Fn(f64, f64, f64) -> f64 + Sync,
{
    debug_assert_eq!(out.len(), d);
    let partials: Vec<Vec<f64>> = rows
        .par_chunks(block_rows(d))
        .map(|blk| {
            let mut acc = vec![0.0; d];
            for &i in blk {
                let row = &x[i * d..(i + 1) * d];
                let (mut clipped, mut raw) = (0.0, 0.0);
                for &(j, wj) in support {
                    clipped += row[j].clamp(-k, k) * wj;
                    raw += row[j] * wj;
                }
                let g = weight(clipped, raw, y[i]);
                if g != 0.0 {
                    for (a, v) in acc.iter_mut().zip(row) {
                        *a += g * v.clamp(-k, k);
                    }
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

/// The data-splitting private IHT loop of Tian et al. (Algs. 1 and 3) and Hu et al.
/// (Alg. 3), shared by `dp-iht-huber`, `dp-iht-l1` and `ht-sparse-linreg`:
///
/// ```text
/// β⁰ = 0;  split the records into T disjoint chunks of m = ⌊n/T⌋ (data-independent)
/// for t = 0..T−1:
///     β^{t+0.5} = β^t + (η_t/m) Σ_{i ∈ chunk t} g_i · x̃_i        (x̃ clipped at K)
///     β^{t+1}   = Π_L( Peeling(β^{t+0.5}, s, ε, δ, λ_t) )
/// ```
///
/// `steps[t]` = η_t and `lambdas[t]` = λ_t (the caller's ℓ∞ sensitivity proof for its
/// weight g, |g| ≤ G: λ_t = 2η_t·G·K/m). Each chunk is read by exactly one Peeling call,
/// charged on that chunk to a parallel-composition ledger: (ε, δ) overall.
///
/// `printed_lambdas` (issue 20, item 2): when set, Peeling's *noise* is calibrated at
/// these smaller, printed sensitivities, while `lambdas` stays the proven one; each
/// Peeling is then charged the ε its noise certifies at the proven λ
/// ([`recertified_peeling`]), never the nominal budget.
pub(crate) struct SplitIht<'a> {
    pub name: &'static str,
    pub s: usize,
    pub k: f64,
    pub radius: f64,
    pub chunking: crate::algorithms::Chunking,
    pub calibration: crate::mechanisms::PeelingCalibration,
    pub steps: &'a [f64],
    pub lambdas: &'a [f64],
    pub printed_lambdas: Option<&'a [f64]>,
}

/// The Peeling whose noise was calibrated for `printed` but whose true ℓ∞ sensitivity is
/// `lambda` (≥ printed): same Laplace scale, sensitivity `lambda`, and ε = what the 2s
/// composed steps certify at `lambda` and the budget's δ (Peeling's own composition
/// check, [`crate::mechanisms::Peeling::certified_epsilon`]), rounded up. Its cost is
/// that certified ε, which exceeds the nominal budget whenever the printed λ under-noises.
/// At ε = ∞ the scale is 0 and nothing changes.
pub(crate) fn recertified_peeling(
    printed: &crate::mechanisms::Peeling,
    lambda: f64,
) -> crate::mechanisms::Peeling {
    let mut p = crate::mechanisms::Peeling { lambda, ..*printed };
    if p.scale > 0.0 {
        p.epsilon = p.certified_epsilon();
    }
    p
}

/// What [`SplitIht::run`] returns.
pub(crate) struct SplitIhtRun {
    pub weights: Vec<f64>,
    pub ledger: crate::privacy::PrivacyLedger,
    pub trace: Vec<crate::algorithms::TraceRecord>,
    /// Peeling's Laplace scale at each iteration.
    pub scales: Vec<f64>,
}

impl SplitIht<'_> {
    pub fn run<F>(
        &self,
        data: &crate::data::Dataset,
        budget: crate::privacy::Budget,
        weight: F,
        rng: &mut dyn rand::RngCore,
        observer: &mut dyn crate::algorithms::Observer,
    ) -> Result<SplitIhtRun, crate::algorithms::FitError>
    where
        F: Fn(f64, f64, f64) -> f64 + Sync,
    {
        use crate::mechanisms::{release_on_chunk, Peeling};
        use crate::privacy::{Accountant, PrivacyLedger};
        let big_t = self.steps.len();
        debug_assert_eq!(self.lambdas.len(), big_t);
        let d = data.d();
        let chunks =
            crate::algorithms::Chunks::new(self.name, data.n(), big_t, self.chunking, rng)?;
        let m = chunks.m() as f64;
        let mut ledger = PrivacyLedger::new(budget, Accountant::Parallel);
        let mut w = vec![0.0; d];
        let mut sum = vec![0.0; d];
        let mut trace = Vec::with_capacity(big_t);
        let mut scales = Vec::with_capacity(big_t);
        observer.on_start(big_t);
        for t in 0..big_t {
            let peeling = match self.printed_lambdas {
                None => Peeling::calibrated(
                    self.s,
                    self.lambdas[t],
                    budget.epsilon,
                    budget.delta,
                    self.calibration,
                )?,
                Some(printed) => recertified_peeling(
                    &Peeling::calibrated(
                        self.s,
                        printed[t],
                        budget.epsilon,
                        budget.delta,
                        self.calibration,
                    )?,
                    self.lambdas[t],
                ),
            };
            let support = support_of(&w);
            clipped_weighted_sum(
                data.x(),
                data.y(),
                d,
                chunks.chunk(t),
                &support,
                self.k,
                &weight,
                &mut sum,
            );
            let step = self.steps[t] / m;
            for (wj, gj) in w.iter_mut().zip(&sum) {
                *wj += step * gj;
            }
            w = release_on_chunk(
                &mut ledger,
                "peeling (top-s selection)",
                t,
                &peeling,
                &w,
                rng,
            )?;
            project_l2(&mut w, self.radius);
            scales.push(peeling.scale);
            trace.push(crate::algorithms::TraceRecord {
                iteration: t + 1,
                step_size: self.steps[t],
                noise_scale: peeling.scale,
                epsilon_spent: ledger.spent().0,
            });
            observer.on_iteration(t + 1);
        }
        observer.on_finish();
        Ok(SplitIhtRun {
            weights: w,
            ledger,
            trace,
            scales,
        })
    }
}

/// The Tian et al. defaults shared by DP-IHT-H, DP-IHT-L and DP-SLR (spec §4, §6):
/// s = s* (capped at d), K = ln d, T = ⌈ln n⌉, all overridable; T ≤ n checked.
pub(crate) fn tian_sizes(
    algorithm: &'static str,
    s: Option<usize>,
    k: Option<f64>,
    t: Option<usize>,
    s_star: usize,
    n: usize,
    d: usize,
) -> Result<(usize, f64, usize), crate::algorithms::FitError> {
    let s = s.unwrap_or(s_star.min(d));
    if s == 0 || s > d {
        return Err(crate::algorithms::FitError::BadParameter {
            algorithm,
            param: "s".into(),
            reason: format!("the number of kept coordinates must be in 1..=d (d = {d}), got {s}"),
        });
    }
    // K = ln d (spec §4); at d ≤ 2, ln d ≤ 0.7 would clip N(0,1) features hard, so the
    // default never goes below 1.
    let k = k.unwrap_or(((d as f64).ln()).max(1.0));
    let big_t = t.unwrap_or((((n as f64).ln()).ceil() as usize).max(1));
    crate::algorithms::check_chunks(algorithm, n, big_t)?;
    Ok((s, k, big_t))
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
#[cfg(test)]
mod tian_tests;
