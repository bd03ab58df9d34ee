//! Intervals of `clipped-gd` (squared loss, scaled columns): a parametric bootstrap that
//! re-runs the whole private fit on data simulated from released values only, with a
//! bias correction.
//!
//! # Method
//!
//! Ferrando, Wang & Sheldon (AISTATS 2022), §3: a released model is the truth of a
//! bootstrap world; [`REFIT_REPLICATES`] times, a data set of the fit's n rows is drawn
//! from that world and the **same private fit** — the private scaling, the algorithm
//! with the same resolved parameters (R, T, step size, schedule, per-step noise σ,
//! domain) and budget, the private intercept — is run on it, so each replicate carries
//! the sampling noise, the noise of the private scales, the gradient clipping, the
//! privacy noise of every step and the intercept's. Each replicate's raw weights and
//! intercept are its model's; the standard error is the replicates' sd (divided by the
//! slope below).
//!
//! # Bias correction ([`RECENTRE`]: 2 batches, secant slope)
//!
//! T noisy heavy-ball steps from 0 and the noisy private scales shrink the estimate:
//! its median is g(θ) for a map g that is not the identity. The basic interval
//! 2·θ̂ − q corrects only the shrinkage the world reproduces around the released θ̂ —
//! already shrunk. So the world is moved (the iterated bootstrap's re-centring,
//! per term j):
//!
//! ```text
//! batch 0: world θ̃₀ = θ̂                          replicates' median m₀
//! batch 1: world θ̃₁ = θ̃₀ + (θ̂ − m₀)                replicates' median m₁, quantiles q
//! slope    c = (m₁ − m₀) / (θ̃₁ − θ̃₀)  in [MIN_SLOPE, 1]   (1 if θ̃ moved < SLOPE_RESOLUTION sds)
//! interval θ̃₁ + [θ̂ − q_{1−α/2}, θ̂ − q_{α/2}] / c,   standard error sd / c
//! ```
//!
//! the set of θ whose replicates would put θ̂ inside their central 1 − α range, with g
//! linear (slope c) between the two worlds: centred on the bias-corrected θ̃₁ + (θ̂ −
//! m₁)/c, and widened by 1/c where the fit shrinks (an estimate that moves by c per
//! unit of the truth pins the truth down only to 1/c of its own spread). More batches
//! take further Newton steps θ̃ₖ₊₁ = θ̃ₖ + (θ̂ − mₖ)/c with the slope of the last two.
//! Replicate i of every batch uses the same generator stream (common random numbers),
//! so m₁ − m₀ measures the move of the world, not the replicates' noise. One batch is
//! the plain basic bootstrap interval. Cost: `batches` × [`REFIT_REPLICATES`] refits.
//!
//! A bootstrap world, in raw units, from its model (w, b) (batch 0's is the released
//! model) and the released standardisation (centres cⱼ, scales sⱼ, the target's scale
//! s_y):
//!
//! ```text
//! xⱼ* = cⱼ + sⱼ·zⱼ,  z ~ N(0, I_d)           (one design, drawn once)
//! y*  = b + ⟨w, x*⟩ + s_y·e*,  e* = t₃ / 1.1340   (Student t, 3 degrees of freedom, robust sd 1)
//! ```
//!
//! Every input is released or public: the model, the standardisation, n, d and the fit's
//! options. The generator is seeded by the constant [`super::SEED`], so the intervals
//! are a deterministic function of released values (post-processing: no privacy cost,
//! no released value changes).
//!
//! Replaying the private scaling matters: with the scales held fixed (a bootstrap of
//! the gradient descent alone, in scaled units) the 95 % intervals covered 68–77 % of the
//! slopes at n = 10⁴, d = 5 (`heavydp experiment inference-coverage --quick`): the
//! released scales are noisy at that n·ε, and the scaled features then do not have the
//! unit spread the descent's noise propagation was simulated with.
//!
//! # Assumptions (what the released values do not tell)
//!
//! * **Features.** `clipped-gd` releases no second moments of the features, so the
//!   bootstrap world draws independent normal columns with the released centres and
//!   robust scales. Their correlation is not released: on correlated or discrete columns
//!   the gradient descent's convergence in the low-curvature directions — and so the
//!   estimate's bias and spread there — is not reproduced, and the intervals are too
//!   narrow (measured: `docs/inference.md`, "Assumptions"; the released noisy gradients
//!   do not reveal the correlation either, `scripts/gradient-trajectory-hessian.py`).
//!   `heavydp fit --intervals` says so on stderr and names `adassp`, whose released XᵀX
//!   carries the correlation.
//! * **Residuals.** The residual scale is not released either. The world's residuals
//!   have the target's robust sd s_y — a residual is at most as spread as the response
//!   it is part of, so this is conservative when the features explain part of the
//!   target — with the tails of a Student t₃ (heavy tails make the gradient clipping
//!   active, as on the data).

use super::{assemble, Bootstrap, InterceptInput, Intervals};
use crate::data::Dataset;
use crate::noise::{derive_seed, gaussian, rng_from_seed};
use crate::preprocess::Standardization;
use rand::RngCore;
use rand_distr::{Distribution, StudentT};

/// Bootstrap replicates of a batch of refits (each re-runs the fit).
pub const REFIT_REPLICATES: usize = 200;

/// The robust sd (IQR / 1.349) of a Student t with 3 degrees of freedom: 2·0.7648923/1.3489795.
pub const T3_ROBUST_SD: f64 = 1.134_031_063;

/// How the refitting bootstrap places its world (see the module docs, "Bias correction").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Recentre {
    /// Batches of [`Bootstrap::replicates`] refits, at least 1. Batch 0's world is the
    /// released model; batch k + 1's world is batch k's moved by the bias batch k shows.
    /// 1: the plain basic bootstrap around the released model.
    pub batches: usize,
    /// Whether each move and the final interval are divided by the secant slope of the
    /// map (world → median replicate) measured between the last two batches (a Newton
    /// step, and the interval inverted through the slope); false: unit slope (the plain
    /// fixed-point iteration).
    pub secant: bool,
}

/// The re-centring of `clipped-gd`'s intervals (`heavydp fit --intervals`).
pub const RECENTRE: Recentre = Recentre {
    batches: 2,
    secant: true,
};

/// The smallest secant slope used (a smaller one is raised to it): a world coefficient
/// that moves its replicates' median by less than a fifth of its own move is treated as
/// moving it by a fifth (the interval is then 5 times the replicates' spread).
pub const MIN_SLOPE: f64 = 0.2;

/// A secant slope is measured only where the world moved by more than this many
/// standard deviations of the replicates; below it the bias is not resolved by the
/// batch and the slope is 1.
pub const SLOPE_RESOLUTION: f64 = 0.25;

/// The method, as written into the model file.
pub const REFIT_METHOD: &str = "parametric bootstrap by refitting (Ferrando, Wang & Sheldon, AISTATS 2022), bias-corrected: batches of B data sets of n rows drawn from a bootstrap world (features independent normal with the released centres and scales, residuals Student t3 with the target's released robust scale), each fitted by the same private pipeline (private scaling, the algorithm with the fit's parameters and budget, private intercept); the first world is the released model, the next one is moved by the bias (released estimate minus the replicates' median) divided by the slope measured between batches; the interval is the last batch's basic (pivotal) interval around its world, divided by that slope; unbounded, without refits, when the features' private scales are not certified (preprocess::ScalingPlan::feature_check)";

/// What the intervals cover, as written into the model file.
pub const REFIT_COVERS: &str = "sampling noise, the privacy noise of the scales, of every gradient step and of the intercept, the gradient clipping and the shrinkage of the private fit, for the least-squares parameter, under the bootstrap world's assumptions: independent features (their correlation is not released; correlated or discrete columns make the intervals too narrow) and residuals no more spread than the target";

/// The model file's note on the bootstrap world's features (also said on stderr by
/// `heavydp fit --intervals`, with the alternative).
pub const REFIT_FEATURES_NOTE: &str = "features simulated as independent normal columns with the released centres and scales: their correlation is not released, so intervals on correlated or discrete columns are too narrow (95 % intervals covered 91 % of the slopes at pairwise correlation 0.3 and 68 % at 0.7, n = 20 000, d = 8, epsilon = 1; docs/inference.md)";

/// A private refit of a simulated raw data set: its raw (weights, intercept).
pub type Refit<'a> = dyn FnMut(Dataset, &mut dyn RngCore) -> Result<(Vec<f64>, f64), String> + 'a;

/// One batch of refits: its world (raw weights, then the intercept), the replicates of
/// each term (one vector per term, unsorted), their medians and standard deviations.
#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    pub world: Vec<f64>,
    pub reps: Vec<Vec<f64>>,
    pub median: Vec<f64>,
    pub sd: Vec<f64>,
}

/// The refitting bootstrap's intervals: `est` the released raw (weights, intercept) of a
/// fit on `n` rows, `intercept` how its intercept was learned (which terms get an
/// interval), `st` the released standardisation, `names` the feature names; `refit` runs
/// the private fit (with the fit's options, no intervals) on a simulated raw data set.
/// `recentre.batches` batches of `boot.replicates` refits. See the module docs.
#[allow(clippy::too_many_arguments)]
pub fn refit_intervals(
    est: (&[f64], f64),
    intercept: &InterceptInput,
    st: &Standardization,
    names: &[String],
    n: usize,
    boot: Bootstrap,
    recentre: Recentre,
    refit: &mut Refit,
) -> Result<Intervals, String> {
    let batches = refit_batches(est, st, names, n, boot, recentre, refit)?;
    let est_all: Vec<f64> = est.0.iter().copied().chain([est.1]).collect();
    let bounds = recentred_bounds(&est_all, &batches, recentre.secant, 1.0 - boot.level);
    let mut notes = vec![
        REFIT_FEATURES_NOTE.to_string(),
        "residuals simulated with the target's released robust scale (the residual scale is not released)".to_string(),
    ];
    if recentre.batches > 1 {
        notes.push(format!(
            "bias-corrected: {} batches of {} refits ({} refits in all)",
            recentre.batches,
            boot.replicates,
            recentre.batches * boot.replicates
        ));
    }
    Ok(assemble(
        boot,
        REFIT_METHOD,
        REFIT_COVERS,
        est,
        intercept,
        names,
        &bounds,
        notes,
    ))
}

/// The batches of refits of [`refit_intervals`] (`recentre.batches` of them, at least
/// one). The design (the simulated features) is drawn once; replicate i of every batch
/// uses the same generator stream (common random numbers: its residuals and the
/// refit's noise), so the difference of two batches' medians measures the move of the
/// world, not the replicates' noise.
pub fn refit_batches(
    est: (&[f64], f64),
    st: &Standardization,
    names: &[String],
    n: usize,
    boot: Bootstrap,
    recentre: Recentre,
    refit: &mut Refit,
) -> Result<Vec<Batch>, String> {
    let (w_est, b_est) = est;
    let d = w_est.len();
    let mut rng = rng_from_seed(boot.seed);
    let x: Vec<f64> = (0..n * d)
        .map(|k| {
            let c = &st.features[k % d];
            c.centre + c.scale * gaussian(1.0, &mut rng)
        })
        .collect();
    let est_all: Vec<f64> = w_est.iter().copied().chain([b_est]).collect();
    let t3 = StudentT::new(3.0).expect("3 degrees of freedom");
    let s_y = st.target.scale;
    let mut out: Vec<Batch> = Vec::with_capacity(recentre.batches.max(1));
    for k in 0..recentre.batches.max(1) {
        let world: Vec<f64> = match k {
            0 => est_all.clone(),
            _ => {
                let last = &out[k - 1];
                let c = slopes(
                    k.checked_sub(2).and_then(|i| out.get(i)),
                    last,
                    recentre.secant,
                );
                (0..=d)
                    .map(|j| last.world[j] + (est_all[j] - last.median[j]) / c[j])
                    .collect()
            }
        };
        let margins: Vec<f64> = x
            .chunks_exact(d.max(1))
            .map(|r| world[d] + r.iter().zip(&world).map(|(a, b)| a * b).sum::<f64>())
            .take(n)
            .collect();
        let sim = Dataset::new(x.clone(), margins.clone(), d, names.to_vec(), "y".into())
            .map_err(|e| e.to_string())?;
        let mut reps: Vec<Vec<f64>> = vec![Vec::with_capacity(boot.replicates); d + 1];
        for i in 0..boot.replicates {
            let mut rng = rng_from_seed(derive_seed(boot.seed, &["refit", &i.to_string()]));
            let mut data = sim.clone();
            for (y, m) in data.y_mut().iter_mut().zip(&margins) {
                *y = m + s_y * t3.sample(&mut rng) / T3_ROBUST_SD;
            }
            let (wr, br) = refit(data, &mut rng)?;
            for (r, v) in reps.iter_mut().zip(wr.iter().chain([&br])) {
                r.push(*v);
            }
        }
        let (median, sd) = reps.iter().map(|r| median_sd(r)).unzip();
        out.push(Batch {
            world,
            reps,
            median,
            sd,
        });
    }
    Ok(out)
}

/// The per-term slopes of the map (world → median replicate) between batches `prev`
/// and `cur`: the secant (Δ median / Δ world) raised to [`MIN_SLOPE`] and capped at 1,
/// or 1 where `secant` is off, there is no previous batch, the world moved by less than
/// [`SLOPE_RESOLUTION`] replicate sds, or the secant is not finite.
pub fn slopes(prev: Option<&Batch>, cur: &Batch, secant: bool) -> Vec<f64> {
    let Some(prev) = prev.filter(|_| secant) else {
        return vec![1.0; cur.world.len()];
    };
    (0..cur.world.len())
        .map(|j| {
            let dw = cur.world[j] - prev.world[j];
            let c = (cur.median[j] - prev.median[j]) / dw;
            let resolved = dw.abs() > SLOPE_RESOLUTION * cur.sd[j];
            if !resolved || !c.is_finite() {
                1.0
            } else {
                c.clamp(MIN_SLOPE, 1.0)
            }
        })
        .collect()
}

/// (lower, upper, standard error) of each term from the last of `batches`, with world
/// θ̃, replicate quantiles q and slope c ([`slopes`] of the last two batches):
/// θ̃ + [est − q_{1−α/2}, est − q_{α/2}] / c and sd / c. With one batch (θ̃ = est, c = 1)
/// this is the basic bootstrap interval.
pub fn recentred_bounds(
    est: &[f64],
    batches: &[Batch],
    secant: bool,
    alpha: f64,
) -> Vec<(f64, f64, f64)> {
    let k = batches.len();
    let last = &batches[k - 1];
    let c = slopes(k.checked_sub(2).and_then(|i| batches.get(i)), last, secant);
    (0..est.len())
        .map(|j| {
            let mut r = last.reps[j].clone();
            let (lo_q, hi_q, sd) = super::summarise(&mut r, alpha);
            (
                last.world[j] + (est[j] - hi_q) / c[j],
                last.world[j] + (est[j] - lo_q) / c[j],
                sd / c[j],
            )
        })
        .collect()
}

/// The median and robust standard deviation (interquartile range / 1.349, not moved by
/// a few wild replicates) of the finite replicates (NaN when none).
fn median_sd(r: &[f64]) -> (f64, f64) {
    let mut f: Vec<f64> = r.iter().copied().filter(|v| v.is_finite()).collect();
    if f.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    f.sort_by(f64::total_cmp);
    let m = f.len();
    let median = if m % 2 == 1 {
        f[m / 2]
    } else {
        0.5 * (f[m / 2 - 1] + f[m / 2])
    };
    let q = |p: f64| f[((p * (m - 1) as f64).round() as usize).min(m - 1)];
    (median, (q(0.75) - q(0.25)) / 1.348_979_500_392_163_5)
}
