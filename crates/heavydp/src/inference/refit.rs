//! Intervals of `clipped-gd` (squared loss, scaled columns): a parametric bootstrap that
//! re-runs the private algorithm on data simulated from released values only.
//!
//! # Method
//!
//! Ferrando, Wang & Sheldon (AISTATS 2022), §3: the released estimate θ̃ is the truth of
//! a bootstrap world; B = [`REFIT_REPLICATES`] times, a data set of the fit's n rows is
//! drawn from that world and the **same private algorithm** (same resolved parameters:
//! R, T, step size, schedule, per-step noise σ, domain) is run on it with the fit's
//! budget, so each replicate carries the sampling noise, the gradient clipping and the
//! privacy noise of every step. The scaled intercept is replicated as for `adassp`
//! (its sampling term, bounded by C²/n, and its Laplace noise). Each replicate is mapped
//! to raw units by the released standardisation and the interval is the basic (pivotal)
//! bootstrap interval of [`super::ssp_intervals`].
//!
//! The bootstrap world, in the scaled units the algorithm sees:
//!
//! ```text
//! x* ~ N(0, I_d), winsorised as the released standardisation does (one design, drawn once)
//! y* = b̃ + ⟨x*, θ̃⟩ + e*,   e* = t₃ / 1.1340   (Student t with 3 degrees of freedom, robust sd 1)
//! ```
//!
//! Every input is released or public: θ̃ and b̃ (the model file's `scaled_weights`,
//! `scaled_intercept`), the standardisation (centres, scales, winsorisation), n, d and
//! the algorithm's public plan. The generator is seeded by the constant
//! [`super::SEED`], so the intervals are a deterministic function of released values
//! (post-processing: no privacy cost, no released value changes).
//!
//! # Assumptions (what the released values do not tell)
//!
//! * **Features.** `clipped-gd` releases no second moments of the features, so the
//!   bootstrap world takes the privately scaled columns as independent standard normals
//!   (each has robust centre 0 and robust sd 1 by construction of the scaling). Their
//!   correlation is not released: on correlated or discrete columns the gradient
//!   descent's convergence in the low-curvature directions — and so the estimate's bias
//!   and spread there — is not reproduced, and the intervals can be too narrow.
//! * **Residuals.** The residual scale is not released either. The scaled target has
//!   robust sd 1 (the target's private IQR / 1.349), and a residual is at most as
//!   spread as the response it is part of, so the world's residuals have robust sd 1 —
//!   conservative when the features explain part of the target — with the tails of a
//!   Student t₃ (heavy tails make the gradient clipping active, as on the data).

use super::{assemble, Bootstrap, InterceptInput, Intervals};
use crate::data::Dataset;
use crate::noise::{gaussian, rng_from_seed};
use crate::preprocess::Standardization;
use rand::RngCore;
use rand_distr::{Distribution, StudentT};

/// Bootstrap replicates of a `clipped-gd` interval (each re-runs the fit).
pub const REFIT_REPLICATES: usize = 200;

/// The robust sd (IQR / 1.349) of a Student t with 3 degrees of freedom: 2·0.7648923/1.3489795.
pub const T3_ROBUST_SD: f64 = 1.134_031_063;

/// The method, as written into the model file.
pub const REFIT_METHOD: &str = "parametric bootstrap by refitting (Ferrando, Wang & Sheldon, AISTATS 2022): B data sets of n rows drawn from the released model in scaled units (features independent N(0, 1) winsorised as released, residuals Student t3 of robust sd 1 = the scaled target's), each fitted by the same private algorithm with the fit's parameters, noise and budget; the intercept replicated from its clip and Laplace noise; basic (pivotal) bootstrap interval";

/// What the intervals cover, as written into the model file.
pub const REFIT_COVERS: &str = "sampling noise, gradient clipping and the privacy noise of every step, for the least-squares parameter on the privately standardised data mapped to raw units by the released centres and scales, under the bootstrap world's assumptions: independent features (their correlation is not released; correlated or discrete columns can make the intervals too narrow) and residuals no more spread than the target";

/// The refitting bootstrap's intervals: `theta` the released scaled-unit estimate of a fit
/// on `n` rows, `intercept` how the scaled intercept was learned, `st` the released
/// standardisation, `names` the feature names; `refit` runs the private algorithm (with
/// the fit's resolved parameters and budget) on a simulated data set of scaled rows and
/// returns its scaled-unit weights. See the module docs.
pub fn refit_intervals(
    theta: &[f64],
    intercept: &InterceptInput,
    st: &Standardization,
    names: &[String],
    n: usize,
    boot: Bootstrap,
    refit: &mut dyn FnMut(&Dataset, &mut dyn RngCore) -> Result<Vec<f64>, String>,
) -> Result<Intervals, String> {
    let d = theta.len();
    let (w_est, b_est) = st.unscale(theta, intercept.value());
    let b_s = intercept.value();
    let mut rng = rng_from_seed(boot.seed);
    let w = st.winsor.unwrap_or(f64::INFINITY);
    let x: Vec<f64> = (0..n * d)
        .map(|_| gaussian(1.0, &mut rng).clamp(-w, w))
        .collect();
    let margins: Vec<f64> = x
        .chunks_exact(d.max(1))
        .map(|r| b_s + r.iter().zip(theta).map(|(a, b)| a * b).sum::<f64>())
        .take(n)
        .collect();
    let mut data = Dataset::from_rows(x, margins.clone(), d).map_err(|e| e.to_string())?;
    let t3 = StudentT::new(3.0).expect("3 degrees of freedom");
    let mut reps: Vec<Vec<f64>> = vec![Vec::with_capacity(boot.replicates); d + 1];
    for _ in 0..boot.replicates {
        for (y, m) in data.y_mut().iter_mut().zip(&margins) {
            *y = m + t3.sample(&mut rng) / T3_ROBUST_SD;
        }
        let th = refit(&data, &mut rng)?;
        let b = intercept.replicate(n as f64, &mut rng);
        let (wr, br) = st.unscale(&th, b);
        for (r, v) in reps.iter_mut().zip(wr.iter().chain([&br])) {
            r.push(*v);
        }
    }
    let notes = vec![
        "features simulated as independent N(0, 1) in scaled units: their correlation is not released, so intervals on correlated or discrete columns can be too narrow".to_string(),
        "residuals simulated with robust sd 1 in scaled target units (the target's own; the residual scale is not released)".to_string(),
    ];
    Ok(assemble(
        boot,
        REFIT_METHOD,
        REFIT_COVERS,
        (&w_est, b_est),
        intercept,
        names,
        reps,
        notes,
    ))
}
