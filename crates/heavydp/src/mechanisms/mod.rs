//! Differentially private mechanisms.
//!
//! A [`Mechanism`] knows its privacy [`Cost`] before it runs. Algorithms release
//! only through [`release`], which charges the [`PrivacyLedger`] first and runs the
//! mechanism only when the charge was accepted.
//!
//! | mechanism | releases | cost | calibration |
//! |---|---|---|---|
//! | [`LaplaceMechanism`] | a vector + i.i.d. Laplace noise of scale b | pure ε = Δ₁'/b | Dwork & Roth Thm 3.6; Hu et al. Def. 2 |
//! | [`GaussianMechanism`] | a vector + i.i.d. Gaussian noise of s.d. σ | ρ = Δ₂'²/(2σ²) zCDP | Zhao et al. Lemma 2; CKS 2020 Thm. 4 |
//! | [`ExponentialMechanism`] | an index, P ∝ exp(ε ũ/(2Δ_u')) | pure ε | Hu et al. Def. 3 / Lemma 1 |
//! | [`ReportNoisyMin`] | argmin of scores + i.i.d. Laplace(b) | pure ε = 2Δ'/b | Talwar et al. Alg. 4 (spec §8, A16) |
//! | [`Peeling`] | top-s indices of \|v\| + noisy values | (ε, δ) by 2s-fold composition | Hu et al. Alg. 4 / Lemma 10 (spec §E) |
//!
//! # Floating-point safety (the default for every mechanism here)
//!
//! No mechanism adds floating-point noise to a private value. Each snaps its input to a
//! public power-of-two grid g (from the sensitivity and the dimension only), adds
//! **exact** discrete Laplace / discrete Gaussian noise in grid units, drawn with integer
//! arithmetic ([`crate::noise::exact`], Canonne, Kamath & Steinke 2020), and maps the
//! integer result back to g·ℤ ([`crate::noise::snap`]); the exponential mechanism rounds
//! its scores to the grid and samples the exponential-mechanism distribution of the
//! rounded scores exactly (rejection with exact Bernoulli(e^{−γ}) acceptances). Rounding
//! moves each coordinate by at most g/2, which widens the sensitivity to at most
//! Δ' = [`widened`]\(Δ) = Δ·(1 + 2⁻⁴⁰) (rounded up). **The cost of
//! every mechanism is computed at Δ'**, and the constructors that take a budget
//! (`new`, `from_rho`) calibrate the noise at Δ', so the charge equals the requested budget.
//! Mechanisms built with an explicit scale (`with_sigma`, `with_scale`, struct literals)
//! cost (1 + 2⁻⁴⁰)× (Laplace) or (1 + 2⁻⁴⁰)²× (Gaussian ρ) the real-arithmetic formula,
//! well inside the 10⁻⁹ margin of [`crate::privacy::calibration_target`].
//!
//! What remains idealised: the sensitivity Δ of the *input* is a real-arithmetic bound
//! on statistics evaluated in floating point (gradients, Catoni means, clipping); see
//! `docs/privacy.md`. Outputs are multiples of the public grid (noise of the requested
//! scale, rounded up to whole grid units); values beyond 2¹¹⁰ grid units (≥ 2⁶⁹·Δ/d) are
//! clamped, NaN coordinates are released as noise around 0 (selection mechanisms treat a
//! NaN score as the worst score).
//!
//! With ε = ∞ (scale 0) every mechanism returns its exact, non-private answer and
//! draws no randomness, so a run at ε = ∞ reproduces the non-private algorithm.
//!
//! The continuous samplers of [`crate::noise`] (`laplace`, `gaussian`, `gumbel`) are used
//! only for public randomness (synthetic data, experiments) and for objective
//! perturbation's noise vector b, whose input is the public zero vector (its privacy proof
//! is a density argument for a continuous Gaussian b; see that module).

pub mod peeling;
pub use peeling::{
    peeling_certified_epsilon, peeling_exact_scale, peeling_paper_scale, Peeling,
    PeelingCalibration,
};

use crate::noise::exact::{Dyadic32, ExactRng};
use crate::noise::snap::{self, widened, Grid, Spread, MAX_SCORE_UNITS, MAX_UNITS};
use crate::privacy::{Cost, PrivacyError, PrivacyLedger};
use rand::RngCore;

/// A randomized map whose privacy cost is known before it runs.
pub trait Mechanism {
    /// What the mechanism reads (the data-dependent statistic).
    type Input: ?Sized;
    /// What it releases.
    type Output;
    /// Its privacy cost per invocation.
    fn cost(&self) -> Cost;
    /// Runs the mechanism **without charging**. Only [`release`] and the privacy
    /// audit call this.
    fn run_uncharged<R: RngCore + ?Sized>(&self, input: &Self::Input, rng: &mut R) -> Self::Output;
}

/// Charges `mechanism.cost()` to `ledger` under the label `label`, then runs it.
/// Nothing is released when the charge is refused.
pub fn release<M: Mechanism, R: RngCore + ?Sized>(
    ledger: &mut PrivacyLedger,
    label: &str,
    mechanism: &M,
    input: &M::Input,
    rng: &mut R,
) -> Result<M::Output, PrivacyError> {
    ledger.charge(label, mechanism.cost())?;
    Ok(mechanism.run_uncharged(input, rng))
}

/// As [`release`], for a mechanism that reads only the disjoint data chunk `chunk`
/// (parallel composition).
pub fn release_on_chunk<M: Mechanism, R: RngCore + ?Sized>(
    ledger: &mut PrivacyLedger,
    label: &str,
    chunk: usize,
    mechanism: &M,
    input: &M::Input,
    rng: &mut R,
) -> Result<M::Output, PrivacyError> {
    ledger.charge_on_chunk(label, chunk, mechanism.cost())?;
    Ok(mechanism.run_uncharged(input, rng))
}

fn check_positive(name: &str, v: f64) -> Result<(), PrivacyError> {
    if v.is_nan() || v <= 0.0 {
        return Err(PrivacyError::InvalidMechanism(format!(
            "{name} must be > 0, got {v}"
        )));
    }
    Ok(())
}

/// The largest noise-scale-to-sensitivity ratio the constructors accept, 2³⁵ ≈ 3.4·10¹⁰
/// (ε ≳ 3·10⁻¹¹ for Laplace): the exact samplers then have room for 2³⁰ coordinates.
pub const MAX_NOISE_TO_SENSITIVITY: f64 = 34_359_738_368.0;

fn check_noise_ratio(name: &str, scale: f64, sensitivity: f64) -> Result<(), PrivacyError> {
    // (written so that a NaN scale is refused too)
    if scale.is_nan() || scale > MAX_NOISE_TO_SENSITIVITY * sensitivity {
        return Err(PrivacyError::InvalidMechanism(format!(
            "{name} {scale} is more than 2^35 times the sensitivity {sensitivity}: outside the range of the exact noise samplers (the release would be pure noise)"
        )));
    }
    Ok(())
}

/// The parameters of an ε-DP mechanism: a sensitivity Δ > 0 and ε > 0 (∞ allowed).
fn check_pure(sensitivity: f64, epsilon: f64) -> Result<(), PrivacyError> {
    check_positive("sensitivity", sensitivity)?;
    check_positive("epsilon", epsilon)
}

/// The Laplace scale b = k·Δ'/ε, Δ' = widened(Δ), of the Laplace-noise mechanisms (k = 1
/// for [`LaplaceMechanism`], 2 for [`ReportNoisyMin`]); ε = ∞ gives b = 0.
fn laplace_scale(k: f64, sensitivity: f64, epsilon: f64) -> Result<f64, PrivacyError> {
    check_pure(sensitivity, epsilon)?;
    let scale = k * widened(sensitivity) / epsilon;
    check_noise_ratio("the Laplace scale", scale, sensitivity)?;
    Ok(scale)
}

/// The inverse of [`laplace_scale`]: ε = k·Δ'/b rounded up (∞ for b = 0).
fn laplace_epsilon(k: f64, sensitivity: f64, scale: f64) -> f64 {
    if scale == 0.0 {
        f64::INFINITY
    } else {
        crate::privacy::div_up(k * widened(sensitivity), scale)
    }
}

/// Laplace mechanism: adds i.i.d. Laplace noise of scale b to each coordinate of a query
/// with ℓ1-sensitivity Δ₁; ε-DP with ε = Δ₁'/b, Δ₁' = widened(Δ₁).
///
/// Floating-point safe: the input is snapped to the public grid g = 2^(⌊log₂Δ₁⌋−40−⌈log₂d⌉)
/// and receives exact discrete Laplace noise of scale ⌈b/g⌉ grid units
/// ([`snap::laplace_release`]); the output lies on g·ℤ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaplaceMechanism {
    /// ℓ1 sensitivity Δ₁ of the query (replace-one).
    pub sensitivity: f64,
    /// Noise scale b.
    pub scale: f64,
}

impl LaplaceMechanism {
    /// b = Δ₁'/ε with Δ₁' = widened(Δ₁) = Δ₁(1 + 2⁻⁴⁰). ε = ∞ gives b = 0.
    pub fn new(sensitivity: f64, epsilon: f64) -> Result<Self, PrivacyError> {
        let scale = laplace_scale(1.0, sensitivity, epsilon)?;
        Ok(LaplaceMechanism { sensitivity, scale })
    }
}

impl Mechanism for LaplaceMechanism {
    type Input = [f64];
    type Output = Vec<f64>;
    fn cost(&self) -> Cost {
        Cost::Pure {
            epsilon: laplace_epsilon(1.0, self.sensitivity, self.scale),
        }
    }
    fn run_uncharged<R: RngCore + ?Sized>(&self, input: &[f64], rng: &mut R) -> Vec<f64> {
        if self.scale == 0.0 {
            return input.to_vec();
        }
        snap::laplace_release(input, self.sensitivity, self.scale, rng)
    }
}

/// Gaussian mechanism: adds i.i.d. Gaussian noise of standard deviation (parameter) σ to
/// each coordinate of a query with ℓ2-sensitivity Δ₂; ρ-zCDP with ρ = Δ₂'²/(2σ²),
/// Δ₂' = widened(Δ₂).
///
/// Floating-point safe: the input is snapped to the public grid
/// g = 2^(⌊log₂Δ₂⌋−40−⌈⌈log₂d⌉/2⌉) and receives exact discrete Gaussian noise
/// N_ℤ(0, q²), q = ⌈σ/g⌉, in grid units ([`snap::gaussian_release`]; its variance
/// g²·Var N_ℤ(0, q²) equals σ² up to a relative 2g/σ: CKS 2020 show Var N_ℤ(0, q²) < q²,
/// within a relative e^{−2π²q²}-sized amount); the output lies on g·ℤ.
/// The zCDP bound is CKS 2020 Thm. 4 (coordinatewise Rényi divergences add) for the integer
/// ℓ2 sensitivity Δ₂/g + √d.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GaussianMechanism {
    /// ℓ2 sensitivity Δ₂ of the query (replace-one).
    pub sensitivity: f64,
    /// Noise standard deviation σ.
    pub sigma: f64,
}

impl GaussianMechanism {
    /// A mechanism with a given σ (σ = 0 means non-private). Its cost is
    /// widened(Δ₂)²/(2σ²).
    pub fn with_sigma(sensitivity: f64, sigma: f64) -> Result<Self, PrivacyError> {
        check_positive("sensitivity", sensitivity)?;
        if sigma.is_nan() || sigma < 0.0 {
            return Err(PrivacyError::InvalidMechanism(format!(
                "sigma must be >= 0, got {sigma}"
            )));
        }
        check_noise_ratio("sigma", sigma, sensitivity)?;
        Ok(GaussianMechanism { sensitivity, sigma })
    }
    /// σ = Δ₂'/√(2ρ) with Δ₂' = widened(Δ₂) (ρ-zCDP). ρ = ∞ gives σ = 0.
    pub fn from_rho(sensitivity: f64, rho: f64) -> Result<Self, PrivacyError> {
        check_positive("rho", rho)?;
        check_positive("sensitivity", sensitivity)?;
        Self::with_sigma(sensitivity, widened(sensitivity) / (2.0 * rho).sqrt())
    }
}

impl Mechanism for GaussianMechanism {
    type Input = [f64];
    type Output = Vec<f64>;
    fn cost(&self) -> Cost {
        Cost::Zcdp {
            rho: crate::privacy::gaussian_zcdp_rho(widened(self.sensitivity), self.sigma),
        }
    }
    fn run_uncharged<R: RngCore + ?Sized>(&self, input: &[f64], rng: &mut R) -> Vec<f64> {
        if self.sigma == 0.0 {
            return input.to_vec();
        }
        snap::gaussian_release(input, self.sensitivity, self.sigma, rng)
    }
}

/// Index of the maximum of `v` (the first one on ties); `None` for an empty slice.
pub fn argmax(v: &[f64]) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, &x) in v.iter().enumerate() {
        match best {
            Some((_, b)) if x <= b => {}
            _ => best = Some((i, x)),
        }
    }
    best.map(|(i, _)| i)
}

/// Index of the minimum of `v` (the first one on ties).
pub fn argmin(v: &[f64]) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, &x) in v.iter().enumerate() {
        match best {
            Some((_, b)) if x >= b => {}
            _ => best = Some((i, x)),
        }
    }
    best.map(|(i, _)| i)
}

/// Exponential mechanism over a finite range: output r with probability
/// ∝ exp(ε·u(r)/(2Δ_u)), ε-DP for a utility u of sensitivity Δ_u.
///
/// Floating-point safe and exact: the utilities are rounded to the public grid
/// g = 2^(⌊log₂Δ_u⌋−40) (clamped to ±2⁹⁴ grid units, ≥ 2⁵³·Δ_u; a NaN utility counts as the
/// lowest), giving integer scores ũ of sensitivity ≤ Δ_u/g + 1 ≤ Δ_u'/g with
/// Δ_u' = widened(Δ_u). The output is drawn **exactly** from P(r) ∝ exp(λ·ũ_r) with the
/// dyadic λ = ⌊ε·g/(2Δ_u')⌋₃₂ (ε·g/(2Δ_u') rounded down to a 32-bit mantissa, so at most
/// a relative 2⁻³¹ below it), which is ε-DP since 2λ·Δ_u'/g ≤ ε: rejection sampling from
/// the uniform proposal with exact Bernoulli(exp(−λ(max ũ − ũ_r))) acceptances
/// ([`ExactRng::exponential_mechanism`]; at most |range| proposals on average). Scores are never
/// exponentiated in floating point. [`ExponentialMechanism::log_probabilities`] returns the
/// log-probabilities of exactly this distribution.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExponentialMechanism {
    /// Sensitivity Δ_u of the utility (replace-one).
    pub sensitivity: f64,
    /// ε.
    pub epsilon: f64,
}

impl ExponentialMechanism {
    pub fn new(sensitivity: f64, epsilon: f64) -> Result<Self, PrivacyError> {
        check_pure(sensitivity, epsilon)?;
        Ok(ExponentialMechanism {
            sensitivity,
            epsilon,
        })
    }

    /// The public grid of the scores.
    pub fn grid(&self) -> Grid {
        Grid::new(self.sensitivity, 1, Spread::PerCoordinate)
    }

    /// 2Δ_u/ε, the temperature of P(r) ∝ exp(ε·u_r/(2Δ_u)) that the fits' traces record;
    /// 0 at ε = ∞ (the exact argmax).
    pub fn temperature(&self) -> f64 {
        if self.epsilon.is_infinite() {
            0.0
        } else {
            2.0 * self.sensitivity / self.epsilon
        }
    }

    /// The inverse temperature λ per grid unit: ε·g/(2·widened(Δ_u)) rounded down to a
    /// 32-bit mantissa (exact dyadic arithmetic; no overflow or underflow for any
    /// finite ε, Δ_u). Meaningful for finite ε.
    pub fn lambda(&self) -> Dyadic32 {
        let (fe, ee) = libm::frexp(self.epsilon);
        let (fd, ed) = libm::frexp(widened(self.sensitivity));
        // fe/(2 fd) ∈ (1/4, 1), rounded down
        let den = 2.0 * fd;
        let mut q = fe / den;
        if q.mul_add(den, -fe) > 0.0 {
            q = q.next_down();
        }
        let d = Dyadic32::floor_of(q);
        Dyadic32 {
            mantissa: d.mantissa,
            exponent: d.exponent + ee - ed + self.grid().log2,
        }
    }

    /// The integer scores ũ_r = clamp(round(u_r/g), ±2⁹⁴) (NaN → −2⁹⁴).
    pub fn scores(&self, utilities: &[f64]) -> Vec<i128> {
        let grid = self.grid();
        utilities
            .iter()
            .map(|&u| {
                if u.is_nan() {
                    -MAX_SCORE_UNITS
                } else {
                    grid.to_units_within(u, MAX_SCORE_UNITS)
                }
            })
            .collect()
    }

    /// The log-probabilities (log-sum-exp normalised, evaluated in floating point) of the
    /// distribution [`Mechanism::run_uncharged`] samples exactly: ∝ exp(λ·ũ_r). With ε = ∞:
    /// 0 at the (first) argmax of the utilities, −∞ elsewhere.
    pub fn log_probabilities(&self, utilities: &[f64]) -> Vec<f64> {
        if self.epsilon.is_infinite() {
            let best = argmax(utilities);
            return (0..utilities.len())
                .map(|i| {
                    if Some(i) == best {
                        0.0
                    } else {
                        f64::NEG_INFINITY
                    }
                })
                .collect();
        }
        let scores = self.scores(utilities);
        let Some(&max) = scores.iter().max() else {
            return Vec::new();
        };
        let lambda = self.lambda();
        // z_r = −λ·(max ũ − ũ_r) ≤ 0, with 0 attained
        let z: Vec<f64> = scores
            .iter()
            .map(|&s| -libm::scalbn(lambda.mantissa as f64 * (max - s) as f64, lambda.exponent))
            .collect();
        let lse = z.iter().map(|x| x.exp()).sum::<f64>().ln();
        z.into_iter().map(|x| x - lse).collect()
    }
}

impl Mechanism for ExponentialMechanism {
    type Input = [f64];
    type Output = usize;
    fn cost(&self) -> Cost {
        Cost::Pure {
            epsilon: self.epsilon,
        }
    }
    fn run_uncharged<R: RngCore + ?Sized>(&self, utilities: &[f64], rng: &mut R) -> usize {
        assert!(
            !utilities.is_empty(),
            "exponential mechanism over an empty range"
        );
        if self.epsilon.is_infinite() {
            return argmax(utilities).expect("non-empty");
        }
        ExactRng::new(rng).exponential_mechanism(&self.scores(utilities), self.lambda())
    }
}

/// Report-noisy-min with Laplace noise: argmin_i (score_i + Lap(b)). For scores of
/// sensitivity Δ that may move in opposite directions between neighbours, this is
/// (2Δ'/b)-DP with Δ' = widened(Δ) (spec Talwar §8, A16). Only the index is released.
///
/// Floating-point safe: the scores are rounded to the public grid g = 2^(⌊log₂Δ⌋−40)
/// (integer sensitivity ≤ Δ/g + 1 ≤ Δ'/g) and receive exact discrete Laplace noise of scale
/// ⌈b/g⌉ grid units; the argmin of the integer keys (first index on ties) is released.
/// The report-noisy-max proof carries over verbatim to integer scores with discrete
/// Laplace noise and a fixed tie-breaking order (the winning set of each score's noise is
/// an up-set, and P(Z ≥ z + k) ≥ e^{−k/t}·P(Z ≥ z)). A NaN score never wins.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReportNoisyMin {
    /// Sensitivity Δ of every score.
    pub sensitivity: f64,
    /// Laplace scale b.
    pub scale: f64,
}

impl ReportNoisyMin {
    /// b = 2Δ'/ε with Δ' = widened(Δ). ε = ∞ gives b = 0 (exact argmin).
    pub fn new(sensitivity: f64, epsilon: f64) -> Result<Self, PrivacyError> {
        let scale = laplace_scale(2.0, sensitivity, epsilon)?;
        Ok(ReportNoisyMin { sensitivity, scale })
    }
    /// A mechanism with a given Laplace scale (its ε is 2Δ'/b).
    pub fn with_scale(sensitivity: f64, scale: f64) -> Result<Self, PrivacyError> {
        check_positive("sensitivity", sensitivity)?;
        check_positive("scale", scale)?;
        check_noise_ratio("the Laplace scale", scale, sensitivity)?;
        Ok(ReportNoisyMin { sensitivity, scale })
    }
    /// ε = 2Δ'/b, Δ' = widened(Δ) (rounded up).
    pub fn epsilon(&self) -> f64 {
        laplace_epsilon(2.0, self.sensitivity, self.scale)
    }
}

impl Mechanism for ReportNoisyMin {
    type Input = [f64];
    type Output = usize;
    fn cost(&self) -> Cost {
        Cost::Pure {
            epsilon: self.epsilon(),
        }
    }
    fn run_uncharged<R: RngCore + ?Sized>(&self, scores: &[f64], rng: &mut R) -> usize {
        assert!(!scores.is_empty(), "report-noisy-min over an empty range");
        if self.scale == 0.0 {
            return argmin(scores).expect("non-empty");
        }
        let grid = Grid::new(self.sensitivity, 1, Spread::PerCoordinate);
        let t = grid.noise_units(self.scale);
        // argmin_i (ũ_i + Z_i) has the law of argmax_i (−ũ_i + Z_i) (Z symmetric), both
        // with the first index on ties.
        let negated: Vec<i128> = scores
            .iter()
            .map(|&s| {
                if s.is_nan() {
                    -MAX_UNITS
                } else {
                    -grid.to_units(s)
                }
            })
            .collect();
        ExactRng::new(rng)
            .noisy_argmax(&negated, |_| true, t)
            .expect("non-empty")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::rng_from_seed;
    use crate::privacy::{Accountant, Budget};

    #[test]
    fn laplace_scale_is_sensitivity_over_epsilon() {
        // b = Δ₁'/ε with the widened Δ₁' = 3(1 + 2^-40): the charge is exactly ε.
        let m = LaplaceMechanism::new(3.0, 0.5).unwrap();
        assert_eq!(m.scale, 6.0 * (1.0 + snap::RELATIVE_SLACK));
        assert_eq!(m.cost(), Cost::Pure { epsilon: 0.5 });
        // A mechanism given b = Δ₁/ε directly is charged the widened cost.
        let raw = LaplaceMechanism {
            sensitivity: 3.0,
            scale: 6.0,
        };
        assert_eq!(
            raw.cost(),
            Cost::Pure {
                epsilon: 0.5 * (1.0 + snap::RELATIVE_SLACK)
            }
        );
        // Empirical E|noise| = b
        let mut rng = rng_from_seed(11);
        let n = 100_000;
        let out = m.run_uncharged(&vec![0.0; n], &mut rng);
        let mean_abs = out.iter().map(|x| x.abs()).sum::<f64>() / n as f64;
        assert!((mean_abs - 6.0).abs() < 0.15, "{mean_abs}");
    }

    #[test]
    fn gaussian_sigma_from_rho() {
        // σ = Δ₂'/√(2ρ) with the widened Δ₂' = 2(1 + 2^-40).
        let m = GaussianMechanism::from_rho(2.0, 0.5).unwrap();
        assert_eq!(m.sigma, 2.0 * (1.0 + snap::RELATIVE_SLACK));
        match m.cost() {
            Cost::Zcdp { rho } => assert!(rho >= 0.5 && rho - 0.5 < 1e-12),
            _ => panic!(),
        }
        // σ = Δ₂/√(2ρ) given directly is charged (1 + 2^-40)² ρ.
        match GaussianMechanism::with_sigma(2.0, 2.0).unwrap().cost() {
            Cost::Zcdp { rho } => {
                let w = 0.5 * (1.0 + snap::RELATIVE_SLACK).powi(2);
                assert!(rho >= w && rho - w < 1e-15, "{rho}")
            }
            _ => panic!(),
        }
        let mut rng = rng_from_seed(12);
        let n = 100_000;
        let out = m.run_uncharged(&vec![0.0; n], &mut rng);
        let sd = (out.iter().map(|x| x * x).sum::<f64>() / n as f64).sqrt();
        assert!((sd - 2.0).abs() < 0.03, "{sd}");
    }

    #[test]
    fn exponential_mechanism_matches_exact_probabilities() {
        // Chi-square test against exp(eps u / (2 Delta)) / Z.
        let m = ExponentialMechanism::new(1.0, 2.0).unwrap();
        let u = [0.0, 1.0, 2.0, -1.0, 0.5];
        let lp = m.log_probabilities(&u);
        let mut rng = rng_from_seed(13);
        let n = 200_000;
        let mut counts = [0usize; 5];
        for _ in 0..n {
            counts[m.run_uncharged(&u, &mut rng)] += 1;
        }
        let chi2: f64 = counts
            .iter()
            .zip(lp.iter())
            .map(|(&c, &l)| {
                let e = n as f64 * l.exp();
                (c as f64 - e).powi(2) / e
            })
            .sum();
        // 4 d.o.f.: P(chi2 > 33) ≈ 1.2e-6
        assert!(chi2 < 33.0, "chi2 = {chi2}, counts {counts:?}");
        // A mechanism with half the sensitivity would put far more mass on the top score.
        let wrong = ExponentialMechanism::new(0.5, 2.0)
            .unwrap()
            .log_probabilities(&u);
        assert!((wrong[2].exp() - lp[2].exp()) > 0.1);
    }

    #[test]
    fn exponential_mechanism_is_overflow_safe() {
        // ε·u/(2Δ) ≈ 5·10^9 would overflow exp(); the exact sampler never exponentiates.
        // (Utilities within the documented range of 2^53·Δ of the public grid.)
        let m = ExponentialMechanism::new(1e-300, 1.0).unwrap();
        let mut rng = rng_from_seed(1);
        let u = [1e-290, 2e-290, 1.5e-290];
        for _ in 0..100 {
            assert_eq!(m.run_uncharged(&u, &mut rng), 1);
        }
        let lp = m.log_probabilities(&u);
        assert!(lp.iter().all(|x| !x.is_nan()));
        assert_eq!(lp[1], 0.0);
        // A tiny temperature's other extreme: ε·u/(2Δ) ≈ 10^-300 is uniform.
        let flat = ExponentialMechanism::new(1.0, 1e-300).unwrap();
        let lp = flat.log_probabilities(&[0.0, 1.0]);
        assert!((lp[0] - 0.5f64.ln()).abs() < 1e-12 && (lp[1] - 0.5f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn exponential_mechanism_calibration_and_grid() {
        // λ per grid unit is ε·g/(2Δ') rounded down (≤ 2^-31 relative): log-probabilities
        // agree with the real-arithmetic exp(ε u/(2Δ)) up to the rounding of u to g and of λ.
        let m = ExponentialMechanism::new(0.3, 1.7).unwrap();
        let u: Vec<f64> = (0..50).map(|i| (i as f64 * 0.731).sin() * 4.0).collect();
        let lp = m.log_probabilities(&u);
        let c = 1.7 / (2.0 * 0.3);
        let z: Vec<f64> = u.iter().map(|x| c * x).collect();
        let mx = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let lse = mx + z.iter().map(|x| (x - mx).exp()).sum::<f64>().ln();
        // |z| ≤ 12, so λ's relative 2^-31 moves a log-probability by ≤ 24·2^-31 ≈ 1.1e-8.
        let mut worst: f64 = 0.0;
        for (a, b) in lp.iter().zip(&z) {
            worst = worst.max((a - (b - lse)).abs());
        }
        assert!(worst < 1.2e-8 && worst > 0.0, "{worst}");
        // λ never exceeds ε·g/(2Δ'): the ε-DP bound 2λ(Δ/g + 1) ≤ ε.
        let g = m.grid().spacing();
        let lam = m.lambda().to_f64();
        assert!(lam <= 1.7 * g / (2.0 * widened(0.3)));
        assert!(2.0 * lam * (0.3 / g + 1.0) <= 1.7);
        assert!(lam > 1.7 * g / (2.0 * widened(0.3)) * (1.0 - 2f64.powi(-31)));
        // NaN utilities never win; ε = ∞ is the exact argmax and draws nothing.
        let mut rng = rng_from_seed(2);
        for _ in 0..200 {
            assert_ne!(m.run_uncharged(&[f64::NAN, -30.0, -30.0], &mut rng), 0);
        }
        let exact = ExponentialMechanism::new(0.3, f64::INFINITY).unwrap();
        let mut a = rng_from_seed(3);
        assert_eq!(exact.run_uncharged(&[1.0, 3.0, 3.0, 2.0], &mut a), 1);
        assert_eq!(
            exact.log_probabilities(&[1.0, 3.0]),
            vec![f64::NEG_INFINITY, 0.0]
        );
        assert_eq!(a.next_u64(), rng_from_seed(3).next_u64());
    }

    #[test]
    fn additive_mechanisms_are_exact_at_infinite_epsilon_and_snap_otherwise() {
        let v = [0.3, -1.25, f64::NAN, 7.0];
        let lap = LaplaceMechanism::new(1.0, f64::INFINITY).unwrap();
        let gau = GaussianMechanism::from_rho(1.0, f64::INFINITY).unwrap();
        let mut a = rng_from_seed(4);
        let out = lap.run_uncharged(&v, &mut a);
        assert_eq!(&out[..2], &v[..2]);
        assert!(out[2].is_nan());
        let out = gau.run_uncharged(&v, &mut a);
        assert_eq!(out[3], 7.0);
        assert_eq!(a.next_u64(), rng_from_seed(4).next_u64());
        // Private: outputs on the public grid, NaN released as noise around 0.
        let lap = LaplaceMechanism::new(1.0, 1.0).unwrap();
        let out = lap.run_uncharged(&v, &mut a);
        let g = Grid::new(1.0, v.len(), Spread::L1).spacing();
        assert!(out.iter().all(|x| x.is_finite() && (x / g).fract() == 0.0));
        let gau = GaussianMechanism::from_rho(1.0, 0.5).unwrap();
        let out = gau.run_uncharged(&v, &mut a);
        let g = Grid::new(1.0, v.len(), Spread::L2).spacing();
        assert!(out.iter().all(|x| x.is_finite() && (x / g).fract() == 0.0));
    }

    #[test]
    fn constructors_refuse_noise_beyond_the_exact_samplers() {
        assert!(LaplaceMechanism::new(1.0, 1e-12).is_err());
        assert!(ReportNoisyMin::new(1.0, 1e-12).is_err());
        assert!(GaussianMechanism::from_rho(1.0, 1e-30).is_err());
        assert!(GaussianMechanism::with_sigma(1e-20, 1.0).is_err());
        assert!(LaplaceMechanism::new(1.0, 1e-9).is_ok());
    }

    #[test]
    fn same_seed_same_output_and_pinned() {
        let v: Vec<f64> = (0..6).map(|i| i as f64 * 0.37 - 1.0).collect();
        let run = |seed| {
            let mut rng = rng_from_seed(seed);
            let lap = LaplaceMechanism::new(0.5, 1.0)
                .unwrap()
                .run_uncharged(&v, &mut rng);
            let gau = GaussianMechanism::from_rho(0.5, 0.5)
                .unwrap()
                .run_uncharged(&v, &mut rng);
            let em = ExponentialMechanism::new(0.5, 1.0)
                .unwrap()
                .run_uncharged(&v, &mut rng);
            let rnm = ReportNoisyMin::new(0.5, 1.0)
                .unwrap()
                .run_uncharged(&v, &mut rng);
            (lap, gau, em, rnm)
        };
        let a = run(31);
        assert_eq!(a, run(31));
        assert_ne!(a, run(32));
        let got = (a.0[0], a.0[5], a.1[0], a.1[5], a.2, a.3);
        assert_eq!(got, PINNED_MECHANISMS, "got {got:?}");
    }
    const PINNED_MECHANISMS: (f64, f64, f64, f64, usize, usize) = (
        -0.3702711928266922,
        1.3492514885392097,
        -1.4757159237253745,
        1.5263557737241626,
        1,
        1,
    );

    #[test]
    fn report_noisy_min_scale_and_cost() {
        // b = 2Δ'/ε, Δ' = 0.1(1 + 2^-40)
        let m = ReportNoisyMin::new(0.1, 0.5).unwrap();
        assert!((m.scale - 0.4 * (1.0 + snap::RELATIVE_SLACK)).abs() < 1e-16);
        assert!((m.epsilon() - 0.5).abs() < 1e-12 && m.epsilon() >= 0.5);
        assert!(ReportNoisyMin::with_scale(0.1, 0.4).unwrap().epsilon() > 0.5);
        // exact at epsilon = infinity
        let m = ReportNoisyMin::new(0.1, f64::INFINITY).unwrap();
        let mut rng = rng_from_seed(1);
        assert_eq!(m.run_uncharged(&[3.0, -1.0, -1.0, 2.0], &mut rng), 1);
    }

    #[test]
    fn report_noisy_min_selection_frequencies() {
        // Two scores differing by exactly Delta; selection odds must be within e^{eps}.
        let delta_s = 1.0;
        let eps = 1.0;
        let m = ReportNoisyMin::new(delta_s, eps).unwrap();
        let mut rng = rng_from_seed(14);
        let n = 100_000;
        let wins = (0..n)
            .filter(|_| m.run_uncharged(&[0.0, delta_s], &mut rng) == 0)
            .count();
        let p = wins as f64 / n as f64;
        // P(select 0) for Lap(2) difference: 1 - 0.5*exp(-1/2)*(1 + 1/4)... just check the odds bound
        assert!(p / (1.0 - p) < eps.exp() * 1.05, "{p}");
        assert!(p > 0.5);
    }

    #[test]
    fn release_charges_before_running() {
        let mut ledger = PrivacyLedger::new(Budget::pure(1.0).unwrap(), Accountant::Basic);
        let m = LaplaceMechanism::new(1.0, 0.6).unwrap();
        let mut rng = rng_from_seed(1);
        assert!(release(&mut ledger, "a", &m, &[1.0], &mut rng).is_ok());
        assert!(release(&mut ledger, "b", &m, &[1.0], &mut rng).is_err());
        assert_eq!(ledger.releases(), 1);
    }
}
