//! Confidence intervals from released quantities only (post-processing: no privacy cost,
//! no released value changes).
//!
//! # Which algorithms
//!
//! [`algorithms`]: `adassp`, whose releases — the noisy XᵀX, Xᵀy and λ_min of Wang's
//! AdaSSP ([`crate::algorithms::adassp`]) — are sufficient statistics of the least-squares
//! problem, so the distribution of the estimate under both the sampling noise and the
//! privacy noise can be simulated from them (below); and `clipped-gd` with the squared
//! loss on scaled columns ([`check`]), whose intervals re-run the whole private fit on
//! data simulated from the released model ([`refit_intervals`], module `refit`).
//! `heavydp algorithms --json` lists them in each entry's `intervals` field.
//!
//! # Method (`adassp`): parametric bootstrap of the released sufficient statistics
//!
//! Ferrando, Wang & Sheldon, *Parametric bootstrap for differentially private confidence
//! intervals* (AISTATS 2022), §5 (OLS by sufficient-statistics perturbation): treat the
//! released quantities as the truth of a bootstrap world, redraw the data-dependent
//! statistics and the privacy noise, rerun the (post-processing) estimator, and read the
//! interval off the replicates. Two regimes, told apart by released values only:
//!
//! * **Identified** (AdaSSP's line 3 set λ = 0 and no fallback ridge was needed: the
//!   private lower bound on λ_min(XᵀX) exceeds the high-probability bound on the noise's
//!   operator norm, so the released estimate is the plain SSP solution θ̃ = Ã⁻¹(Xᵀy)~).
//!   With Ã the released XᵀX, σ_XX, σ_Xy the public noise levels and B_Y the response
//!   clip, each of [`REPLICATES`] replicates is
//!
//!   ```text
//!   (XᵀX)* = Ã + E*,            E* symmetric, E*_ij ~ N(0, σ_XX²) (i ≤ j)
//!   (Xᵀy)* = Ã θ̃ + B_Y·L z + N(0, σ_Xy² I),   L Lᵀ = Ã, z ~ N(0, I_d)
//!   θ*     = ((XᵀX)*)⁻¹ (Xᵀy)*   (line 6 with λ = 0, the fit's positive-definite fallback kept)
//!   b*     = b̃ + N(0, C²/n) + Laplace(2C/(n·ε_b))               (the private intercept)
//!   ```
//!
//!   mapped to raw units by the released standardisation ([`Standardization::unscale`]),
//!   exactly as the fit's estimate. The interval of each raw coefficient and of the
//!   intercept is the *basic* (pivotal) bootstrap interval [2·est − q_{1−α/2},
//!   2·est − q_{α/2}] of the replicates (it corrects a bias of the estimator that the
//!   bootstrap reproduces, such as the inflation of an inverted noisy Gram matrix); the
//!   standard error is the replicates' standard deviation.
//! * **Not identified** (λ > 0, or the fallback ridge): the noise may swamp XᵀX in some
//!   direction, and the ridge shrinks the estimate toward 0 whatever the truth — a
//!   bootstrap around it reproduces the shrinkage and gives falsely narrow intervals (at
//!   n = 10³, d = 20, ε = 0.5 the ridge is ~80 times XᵀX and every replicate is ≈ 0).
//!   The released statistics then do not bound the coefficients, and the intervals say
//!   so: (−∞, ∞) for every coefficient and the intercept, with a note.
//!
//! * **Scales not certified** (both algorithms, [`uncertified_scales`]): the intervals
//!   are in raw units through the released feature scales, and where a feature release's
//!   n·ε₀ is below the bound of [`crate::preprocess::ScalingPlan::feature_check`] (≈ 42.6)
//!   a released scale may be off by orders of magnitude — and the raw coefficient with it
//!   — in a column nothing released identifies. Every interval is then (−∞, ∞), with a
//!   note, and no bootstrap runs.
//!
//! * **Sampling noise.** Xᵀy = XᵀXθ + Xᵀe with Var(Xᵀe) = σ²·XᵀX for homoscedastic
//!   errors; σ² is not released. It is bounded by a public quantity: the residual of the
//!   least-squares fit through the origin has E e² ≤ E y_c² ≤ B_Y² (responses are clipped
//!   to [−B_Y, B_Y]), so B_Y² replaces σ². This is conservative (with `bound=auto`,
//!   B_Y = 3 robust sds of the target, against a residual sd of at most about one): the
//!   sampling part of a width is up to B_Y/σ times the oracle one; where the privacy
//!   noise dominates (small n·ε) it changes little. A private release of yᵀy would
//!   tighten it but would spend budget and change the released weights.
//! * **Privacy noise.** The releases' noise is replayed with the exact noise levels (and
//!   the positive-definite fallback), so a coefficient the noise blurs gets a wide
//!   interval. Using Ã itself as the bootstrap world's Gram matrix adds the noise once
//!   more (Ã*'s noise is E + E*): conservative where the noise matters.
//! * **Intercept.** The clipped mean of the scaled residuals at C plus Laplace noise
//!   ([`crate::preprocess::private_intercept`]): its sampling variance is bounded by C²/n
//!   (a clipped value), its privacy noise is the Laplace release's. Intercepts learned
//!   another way (the private median on unscaled data) get no interval (a note says so).
//!
//! # What the intervals cover (and what they do not)
//!
//! The parameter of the *clipped, privately standardised* problem — the least-squares
//! coefficients through the origin of the standardised data (features winsorised at ±10
//! robust sds, rows clipped to ‖x‖₂ ≤ B_X, responses to [−B_Y, B_Y]) and the mean
//! residual, mapped to raw units by the released centres and scales. When the clipping
//! is active this differs from the raw-data regression parameter: clipping a heavy-tailed
//! response attenuates the slopes by about the clipped fraction of responses, a bias the
//! intervals do not include; it matters where the intervals are narrow (large n·ε) and
//! is measured in `docs/inference.md` (`heavydp experiment inference-coverage`).
//!
//! Every input is a released or public value and the bootstrap generator is seeded by
//! the constant [`SEED`]: the intervals are a deterministic function of the released
//! values (post-processing), and computing them changes nothing else.

use crate::algorithms::adassp::{solve_released, unpack_symmetric, Released, SspRelease};
use crate::linalg::cholesky_in_place;
use crate::noise::{gaussian, laplace, rng_from_seed};
use crate::preprocess::{intercept_clip, Standardization};
use crate::privacy::calibration_target;
use serde::{Deserialize, Serialize};

mod refit;
pub use refit::{
    recentred_bounds, refit_batches, refit_intervals, slopes, Batch, Recentre, MIN_SLOPE, RECENTRE,
    REFIT_COVERS, REFIT_FEATURES_NOTE, REFIT_METHOD, REFIT_REPLICATES, SLOPE_RESOLUTION,
    T3_ROBUST_SD,
};

/// The algorithms with intervals, in registry order: those whose descriptor has the
/// `intervals` capability (`adassp`: [`ssp_intervals`]; `clipped-gd` with the squared
/// loss on scaled columns: [`refit_intervals`], see [`check`]).
pub fn algorithms() -> Vec<&'static str> {
    crate::algorithms::REGISTRY
        .iter()
        .filter(|a| a.intervals)
        .map(|a| a.name)
        .collect()
}
/// Bootstrap replicates of an interval.
pub const REPLICATES: usize = 2000;
/// The bootstrap generator's seed (a constant: the intervals are a function of the
/// released values alone).
pub const SEED: u64 = 0x1D7E_4A15;

/// Whether `algorithm` has intervals.
pub fn supports(algorithm: &str) -> bool {
    crate::algorithms::descriptor(algorithm).is_some_and(|a| a.intervals)
}

/// Checks, before any release, that a fit of `algorithm` with the loss `loss` (`None`:
/// the algorithm's default) on scaled (`scaled`) or raw columns can have intervals: an
/// algorithm of [`algorithms`], and for `clipped-gd` the squared loss on scaled columns
/// (its bootstrap world is a regression in scaled units). `Err` holds the reason.
pub fn check(algorithm: &str, loss: Option<&str>, scaled: bool) -> Result<(), String> {
    if !supports(algorithm) {
        return Err(format!("{algorithm} has no confidence intervals"));
    }
    if algorithm == "clipped-gd" {
        if !matches!(loss, None | Some("squared")) {
            return Err(format!(
                "clipped-gd has confidence intervals for the squared loss only, not --loss {}",
                loss.unwrap_or_default()
            ));
        }
        if !scaled {
            return Err("clipped-gd has confidence intervals on scaled columns only (--scale private or public:FILE.json), not --scale none".into());
        }
    }
    Ok(())
}

/// The method, as written into the model file.
pub const METHOD: &str = "parametric bootstrap of the released sufficient statistics (Ferrando, Wang & Sheldon, AISTATS 2022): replicates of the noisy X^T X, X^T y and intercept simulated from the released values with the public noise levels and a sampling term of variance B_Y^2 X^T X (B_Y^2 bounds the residual variance), solved as the fit; basic (pivotal) bootstrap interval; unbounded when AdaSSP's ridge is on (the released X^T X does not identify the coefficients) or the features' private scales are not certified (preprocess::ScalingPlan::feature_check)";

/// What the intervals cover, as written into the model file.
pub const COVERS: &str = "sampling noise and the privacy noise of every release, for the parameter of the clipped, privately standardised problem (least squares through the origin on the standardised data with features winsorised, rows clipped to ||x|| <= B_X and responses to [-B_Y, B_Y], plus the mean residual) mapped to raw units by the released centres and scales; the clipping bias (attenuation by roughly the clipped fraction of responses) is not included";

/// One coefficient's (or the intercept's) interval, in raw units. An unbounded side
/// (and an infinite standard error) is `null` in the file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Term {
    pub name: String,
    /// The released estimate (the model file's weight or intercept).
    pub estimate: f64,
    #[serde(serialize_with = "finite_or_null", deserialize_with = "null_is_inf")]
    pub std_error: f64,
    #[serde(
        serialize_with = "finite_or_null",
        deserialize_with = "null_is_neg_inf"
    )]
    pub lower: f64,
    #[serde(serialize_with = "finite_or_null", deserialize_with = "null_is_inf")]
    pub upper: f64,
}

fn finite_or_null<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.is_finite() {
        s.serialize_f64(*v)
    } else {
        s.serialize_none()
    }
}

fn null_is_inf<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::INFINITY))
}

fn null_is_neg_inf<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NEG_INFINITY))
}

/// The model file's `intervals`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Intervals {
    pub level: f64,
    pub method: String,
    pub covers: String,
    pub replicates: usize,
    pub coefficients: Vec<Term>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intercept: Option<Term>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// How the scaled intercept b̃ was learned.
#[derive(Debug, Clone, PartialEq)]
pub enum InterceptInput {
    /// No intercept was learned (b̃ = 0): no interval.
    None,
    /// The clipped mean of the scaled residuals plus Laplace noise
    /// ([`crate::preprocess::private_intercept`]).
    ClippedMean {
        value: f64,
        /// C: the residual clip.
        clip: f64,
        /// The Laplace scale 2C/(n·ε) (0 at ε = ∞).
        laplace_scale: f64,
    },
    /// Learned another way: no interval, with this reason.
    Unsupported { value: f64, reason: String },
}

impl InterceptInput {
    /// The clipped-mean intercept b̃ = `value` released with budget ε = `epsilon` on n
    /// rows: the clip and Laplace scale of [`crate::preprocess::private_intercept`]
    /// (C = [`intercept_clip`], scale 2C/(n·ε) at ε calibrated as there).
    pub fn clipped_mean(value: f64, n: usize, epsilon: f64) -> Self {
        let eps = if epsilon.is_infinite() {
            f64::INFINITY
        } else {
            calibration_target(epsilon)
        };
        let clip = intercept_clip(n, eps);
        let laplace_scale = if eps.is_infinite() {
            0.0
        } else {
            2.0 * clip / (n as f64 * eps)
        };
        InterceptInput::ClippedMean {
            value,
            clip,
            laplace_scale,
        }
    }

    /// One bootstrap replicate of the scaled intercept on n rows: b̃ plus its sampling
    /// term (a clipped value: variance at most C²/n) and its Laplace noise; b̃ itself when
    /// it has no interval.
    fn replicate<R: rand::RngCore + ?Sized>(&self, n: f64, rng: &mut R) -> f64 {
        match self {
            InterceptInput::ClippedMean {
                value,
                clip,
                laplace_scale,
            } => {
                value
                    + gaussian(clip / n.sqrt(), rng)
                    + if *laplace_scale > 0.0 {
                        laplace(*laplace_scale, rng)
                    } else {
                        0.0
                    }
            }
            _ => self.value(),
        }
    }

    fn value(&self) -> f64 {
        match self {
            InterceptInput::None => 0.0,
            InterceptInput::ClippedMean { value, .. }
            | InterceptInput::Unsupported { value, .. } => *value,
        }
    }
}

/// How the bootstrap runs (the defaults: [`REPLICATES`], [`SEED`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bootstrap {
    pub level: f64,
    pub replicates: usize,
    pub seed: u64,
}

impl Bootstrap {
    /// The defaults at confidence `level`.
    pub fn at(level: f64) -> Self {
        Bootstrap {
            level,
            replicates: REPLICATES,
            seed: SEED,
        }
    }
}

/// Checks `--intervals LEVEL`: a number in (0, 1).
pub fn check_level(level: f64) -> Result<(), String> {
    if level > 0.0 && level < 1.0 {
        Ok(())
    } else {
        Err(format!(
            "--intervals: expected a confidence level in (0, 1) such as 0.95, got {level}"
        ))
    }
}

/// The intervals of an `adassp` fit: `ssp` its releases, `theta` its scaled-unit
/// estimate, `intercept` how the scaled intercept was learned, `st` the released
/// standardisation, `names` the feature names. See the module docs.
pub fn ssp_intervals(
    ssp: &SspRelease,
    theta: &[f64],
    intercept: &InterceptInput,
    st: &Standardization,
    names: &[String],
    boot: Bootstrap,
) -> Intervals {
    let d = ssp.plan.d;
    let (w_est, b_est) = st.unscale(theta, intercept.value());
    if ssp.ridge_used != 0.0 {
        return unidentified(ssp, &w_est, b_est, intercept, names, boot);
    }
    // the released estimate is the plain SSP solution Ã⁻¹(Xᵀy)~: replicate that estimator
    // (line 3's ridge rule off; the positive-definite fallback kept)
    let mut unridged = ssp.plan.clone();
    unridged.threshold = 0.0;
    let plan = &unridged;
    let a = unpack_symmetric(&ssp.released.xtx_upper, d);
    let chol = sampling_factor(&a, d);
    let a_theta: Vec<f64> = (0..d)
        .map(|i| (0..d).map(|j| a[i * d + j] * theta[j]).sum())
        .collect();
    let n = plan.n as f64;
    let mut rng = rng_from_seed(boot.seed);
    let k = d + 1;
    let mut reps: Vec<Vec<f64>> = vec![Vec::with_capacity(boot.replicates); k];
    let mut z = vec![0.0; d];
    for _ in 0..boot.replicates {
        let xtx_upper: Vec<f64> = ssp
            .released
            .xtx_upper
            .iter()
            .map(|v| v + gaussian(plan.mech_xx.sigma, &mut rng))
            .collect();
        z.iter_mut().for_each(|v| *v = gaussian(1.0, &mut rng));
        let xty: Vec<f64> = (0..d)
            .map(|i| {
                let lz: f64 = (0..=i).map(|j| chol[i * d + j] * z[j]).sum();
                a_theta[i] + plan.bound_y * lz + gaussian(plan.mech_xy.sigma, &mut rng)
            })
            .collect();
        let rel = Released {
            lambda_min: 0.0,
            xtx_upper,
            xty,
        };
        let (_, _, th) = solve_released(plan, &rel);
        let b = intercept.replicate(n, &mut rng);
        let (w, b) = st.unscale(&th, b);
        for (r, v) in reps.iter_mut().zip(w.iter().chain([&b])) {
            r.push(*v);
        }
    }
    let notes = vec![format!(
        "residual variance bounded by B_Y^2 = {:e} (scaled units; not released)",
        plan.bound_y * plan.bound_y
    )];
    let est_all: Vec<f64> = w_est.iter().copied().chain([b_est]).collect();
    let bounds = basic_bounds(&est_all, &mut reps, 1.0 - boot.level);
    assemble(
        boot,
        METHOD,
        COVERS,
        (&w_est, b_est),
        intercept,
        names,
        &bounds,
        notes,
    )
}

/// The basic (pivotal) bootstrap interval [2·est − q_{1−α/2}, 2·est − q_{α/2}] and the
/// replicates' standard deviation, for each estimate of `est` and its replicates in
/// `reps` (sorted in place): (lower, upper, sd).
fn basic_bounds(est: &[f64], reps: &mut [Vec<f64>], alpha: f64) -> Vec<(f64, f64, f64)> {
    est.iter()
        .zip(reps.iter_mut())
        .map(|(e, r)| {
            let (lo_q, hi_q, sd) = summarise(r, alpha);
            (2.0 * e - hi_q, 2.0 * e - lo_q, sd)
        })
        .collect()
}

/// The intervals from `bounds` (lower, upper, standard error) of each raw coefficient,
/// then the intercept's, around the estimates `est` (raw weights, raw intercept).
#[allow(clippy::too_many_arguments)]
fn assemble(
    boot: Bootstrap,
    method: &str,
    covers: &str,
    est: (&[f64], f64),
    intercept: &InterceptInput,
    names: &[String],
    bounds: &[(f64, f64, f64)],
    mut notes: Vec<String>,
) -> Intervals {
    let (w_est, b_est) = est;
    let d = w_est.len();
    let term = |name: &str, est: f64, (lower, upper, sd): (f64, f64, f64)| Term {
        name: name.to_string(),
        estimate: est,
        std_error: sd,
        lower,
        upper,
    };
    let coefficients = (0..d)
        .map(|j| term(&names[j], w_est[j], bounds[j]))
        .collect();
    let intercept_term = match intercept {
        InterceptInput::ClippedMean { .. } => Some(term("intercept", b_est, bounds[d])),
        InterceptInput::None => {
            notes.push("no intercept was learned (--intercept none): no interval for it".into());
            None
        }
        InterceptInput::Unsupported { reason, .. } => {
            notes.push(format!("no interval for the intercept: {reason}"));
            None
        }
    };
    Intervals {
        level: boot.level,
        method: method.into(),
        covers: covers.into(),
        replicates: boot.replicates,
        coefficients,
        intercept: intercept_term,
        notes,
    }
}

/// The intervals when the released XᵀX is not certified to dominate its noise (line 3
/// set λ > 0, or the fallback ridge was needed): the coefficients are not identified by
/// the released statistics at this n, d and ε — the estimate is shrunk toward 0 by the
/// ridge whatever the truth, so a bootstrap around it would be falsely narrow. Every
/// coefficient's interval is (−∞, ∞), and the intercept's (the raw intercept depends on
/// the weights through the centres).
fn unidentified(
    ssp: &SspRelease,
    w_est: &[f64],
    b_est: f64,
    intercept: &InterceptInput,
    names: &[String],
    boot: Bootstrap,
) -> Intervals {
    let note = format!(
        "not identified: the released X^T X is not certified to dominate its privacy noise (ridge {:e} > 0 by AdaSSP line 3: the private lower bound on lambda_min(X^T X) is below the noise's operator-norm bound {:e}); the estimate is shrunk toward 0 whatever the truth, so every interval is unbounded. More data, a larger epsilon or fewer features identify them",
        ssp.ridge_used, ssp.plan.threshold
    );
    unbounded(
        (METHOD, COVERS),
        (w_est, b_est),
        intercept,
        names,
        boot,
        note,
    )
}

/// The intervals of a fit whose features' private scales are not certified
/// ([`crate::preprocess::ScalingPlan::feature_check`] fails: n·ε₀ of a feature release
/// below 4·ln(4 282/β), β = 0.1): a released scale may then be off by orders of
/// magnitude, and with it the raw coefficient wⱼ = s_y·w̃ⱼ/sⱼ (and the raw intercept,
/// through the centres), while nothing released tells which column. A bootstrap around
/// such a fit is centred on the wrong raw value (its world has the released scale), so
/// every interval is (−∞, ∞), with a note; no refit runs. `method`: the algorithm's
/// (method, covers) strings; `check`: (n·ε₀, the bound).
pub fn uncertified_scales(
    method: (&str, &str),
    est: (&[f64], f64),
    intercept: &InterceptInput,
    names: &[String],
    boot: Bootstrap,
    check: (f64, f64),
) -> Intervals {
    let note = format!(
        "not certified: the features' private scales are released at n*eps0 = {:.1} per release, below the {:.1} that bounds a column's chance of a scale off by orders of magnitude by 0.1 (preprocess::ScalingPlan::feature_check); a raw coefficient, and the raw intercept through the centres, is then not bounded by the released values and nothing released tells which column, so every interval is unbounded. --scale public:FILE.json, a larger --epsilon or --preprocess-share, or fewer features certify them",
        check.0, check.1
    );
    unbounded(method, est, intercept, names, boot, note)
}

/// Every coefficient's interval (−∞, ∞), and the intercept's where it has one, with
/// `note` saying why.
fn unbounded(
    (method, covers): (&str, &str),
    (w_est, b_est): (&[f64], f64),
    intercept: &InterceptInput,
    names: &[String],
    boot: Bootstrap,
    note: String,
) -> Intervals {
    let open = |name: &str, est: f64| Term {
        name: name.to_string(),
        estimate: est,
        std_error: f64::INFINITY,
        lower: f64::NEG_INFINITY,
        upper: f64::INFINITY,
    };
    Intervals {
        level: boot.level,
        method: method.into(),
        covers: covers.into(),
        replicates: 0,
        coefficients: names.iter().zip(w_est).map(|(n, w)| open(n, *w)).collect(),
        intercept: matches!(intercept, InterceptInput::ClippedMean { .. })
            .then(|| open("intercept", b_est)),
        notes: vec![note],
    }
}

/// The Cholesky factor L (row-major, lower) of Ã, the bootstrap world's Gram matrix for
/// the sampling term (the fit factorised it with no ridge; a ridge is doubled from
/// 10⁻⁹·max|Ã_ii| in the unlikely case it is not positive definite).
fn sampling_factor(a: &[f64], d: usize) -> Vec<f64> {
    let max_diag = (0..d).fold(0.0f64, |m, i| m.max(a[i * d + i].abs()));
    let mut extra = 0.0;
    let mut next = (1e-9 * max_diag).max(f64::MIN_POSITIVE);
    for _ in 0..2100 {
        let mut l = a.to_vec();
        for i in 0..d {
            l[i * d + i] += extra;
        }
        if cholesky_in_place(&mut l, d).is_ok() {
            // keep the lower triangle only
            for i in 0..d {
                for j in i + 1..d {
                    l[i * d + j] = 0.0;
                }
            }
            return l;
        }
        extra = next;
        next *= 2.0;
    }
    vec![0.0; d * d]
}

/// (q_{α/2}, q_{1−α/2}, sd) of the replicates (sorted in place). A replicate that is not
/// finite (not expected: the solve always ends positive definite on finite releases) is
/// counted as −∞ for the lower quantile and +∞ for the upper, and the sd is then
/// infinite: too many of them give an unbounded interval, never a narrow one.
fn summarise(r: &mut [f64], alpha: f64) -> (f64, f64, f64) {
    let finite: Vec<f64> = {
        r.sort_by(f64::total_cmp);
        r.iter().copied().filter(|v| v.is_finite()).collect()
    };
    let bad = r.len() - finite.len();
    let m = r.len() as f64;
    let k_lo = ((alpha / 2.0) * m).floor() as usize;
    let k_hi = (((1.0 - alpha / 2.0) * m).ceil() as usize).saturating_sub(1);
    let lo = if k_lo < bad {
        f64::NEG_INFINITY
    } else {
        finite.get(k_lo - bad).copied().unwrap_or(f64::INFINITY)
    };
    let hi = finite.get(k_hi).copied().unwrap_or(f64::INFINITY);
    let nf = finite.len() as f64;
    let mean = finite.iter().sum::<f64>() / nf;
    let sd = if bad > 0 || finite.len() < 2 {
        f64::INFINITY
    } else {
        (finite.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (nf - 1.0)).sqrt()
    };
    (lo, hi, sd)
}

#[cfg(test)]
mod tests;
