//! Differentially private mechanisms.
//!
//! A [`Mechanism`] knows its privacy [`Cost`] before it runs. Algorithms release
//! only through [`release`], which charges the [`PrivacyLedger`] first and runs the
//! mechanism only when the charge was accepted.
//!
//! | mechanism | releases | cost | calibration |
//! |---|---|---|---|
//! | [`LaplaceMechanism`] | a vector + i.i.d. Lap(b) | pure ε = Δ₁/b | Dwork & Roth Thm 3.6; Hu et al. Def. 2 |
//! | [`GaussianMechanism`] | a vector + i.i.d. N(0, σ²) | ρ = Δ₂²/(2σ²) zCDP | Zhao et al. Lemma 2 |
//! | [`ExponentialMechanism`] | an index, P ∝ exp(ε u/(2Δ)) | pure ε | Hu et al. Def. 3 / Lemma 1 |
//! | [`ReportNoisyMin`] | argmin of scores + i.i.d. Lap(b) | pure ε = 2Δ/b | Talwar et al. Alg. 4 (spec §8, A16) |
//! | [`Peeling`] | top-s indices of \|v\| + noisy values | (ε, δ) by 2s-fold composition | Hu et al. Alg. 4 / Lemma 10 (spec §E) |
//!
//! With ε = ∞ (scale 0) every mechanism returns its exact, non-private answer and
//! draws no randomness, so a run at ε = ∞ reproduces the non-private algorithm.

pub mod peeling;
pub use peeling::Peeling;

use crate::noise;
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

/// Laplace mechanism: adds i.i.d. Lap(b) to each coordinate of a query with
/// ℓ1-sensitivity Δ₁; ε-DP with b = Δ₁/ε.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaplaceMechanism {
    /// ℓ1 sensitivity Δ₁ of the query (replace-one).
    pub sensitivity: f64,
    /// Noise scale b.
    pub scale: f64,
}

impl LaplaceMechanism {
    /// b = Δ₁/ε. ε = ∞ gives b = 0.
    pub fn new(sensitivity: f64, epsilon: f64) -> Result<Self, PrivacyError> {
        check_positive("sensitivity", sensitivity)?;
        check_positive("epsilon", epsilon)?;
        Ok(LaplaceMechanism {
            sensitivity,
            scale: sensitivity / epsilon,
        })
    }
}

impl Mechanism for LaplaceMechanism {
    type Input = [f64];
    type Output = Vec<f64>;
    fn cost(&self) -> Cost {
        Cost::Pure {
            epsilon: if self.scale == 0.0 {
                f64::INFINITY
            } else {
                crate::privacy::div_up(self.sensitivity, self.scale)
            },
        }
    }
    fn run_uncharged<R: RngCore + ?Sized>(&self, input: &[f64], rng: &mut R) -> Vec<f64> {
        let mut out = input.to_vec();
        noise::add_laplace(&mut out, self.scale, rng);
        out
    }
}

/// Gaussian mechanism: adds i.i.d. N(0, σ²) to each coordinate of a query with
/// ℓ2-sensitivity Δ₂; ρ-zCDP with ρ = Δ₂²/(2σ²).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GaussianMechanism {
    /// ℓ2 sensitivity Δ₂ of the query (replace-one).
    pub sensitivity: f64,
    /// Noise standard deviation σ.
    pub sigma: f64,
}

impl GaussianMechanism {
    /// A mechanism with a given σ (σ = 0 means non-private).
    pub fn with_sigma(sensitivity: f64, sigma: f64) -> Result<Self, PrivacyError> {
        check_positive("sensitivity", sensitivity)?;
        if sigma.is_nan() || sigma < 0.0 {
            return Err(PrivacyError::InvalidMechanism(format!(
                "sigma must be >= 0, got {sigma}"
            )));
        }
        Ok(GaussianMechanism { sensitivity, sigma })
    }
    /// σ = Δ₂/√(2ρ) (ρ-zCDP). ρ = ∞ gives σ = 0.
    pub fn from_rho(sensitivity: f64, rho: f64) -> Result<Self, PrivacyError> {
        check_positive("rho", rho)?;
        Self::with_sigma(sensitivity, sensitivity / (2.0 * rho).sqrt())
    }
}

impl Mechanism for GaussianMechanism {
    type Input = [f64];
    type Output = Vec<f64>;
    fn cost(&self) -> Cost {
        Cost::Zcdp {
            rho: crate::privacy::gaussian_zcdp_rho(self.sensitivity, self.sigma),
        }
    }
    fn run_uncharged<R: RngCore + ?Sized>(&self, input: &[f64], rng: &mut R) -> Vec<f64> {
        let mut out = input.to_vec();
        noise::add_gaussian(&mut out, self.sigma, rng);
        out
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
/// ∝ exp(ε·u(r)/(2Δ_u)), ε-DP for a utility u of sensitivity Δ_u. Sampled with the
/// Gumbel-max trick (argmax of ε u/(2Δ) + Gumbel) — scores are never exponentiated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExponentialMechanism {
    /// Sensitivity Δ_u of the utility (replace-one).
    pub sensitivity: f64,
    /// ε.
    pub epsilon: f64,
}

impl ExponentialMechanism {
    pub fn new(sensitivity: f64, epsilon: f64) -> Result<Self, PrivacyError> {
        check_positive("sensitivity", sensitivity)?;
        check_positive("epsilon", epsilon)?;
        Ok(ExponentialMechanism {
            sensitivity,
            epsilon,
        })
    }

    /// The log-probabilities (log-sum-exp normalised) the mechanism samples from.
    pub fn log_probabilities(&self, utilities: &[f64]) -> Vec<f64> {
        let c = self.epsilon / (2.0 * self.sensitivity);
        let z: Vec<f64> = utilities.iter().map(|u| c * u).collect();
        let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let lse = m + z.iter().map(|x| (x - m).exp()).sum::<f64>().ln();
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
        let c = self.epsilon / (2.0 * self.sensitivity);
        let mut best = (0usize, f64::NEG_INFINITY);
        for (i, &u) in utilities.iter().enumerate() {
            let key = c * u + noise::gumbel(rng);
            if key > best.1 {
                best = (i, key);
            }
        }
        best.0
    }
}

/// Report-noisy-min with Laplace noise: argmin_i (score_i + Lap(b)). For scores of
/// sensitivity Δ that may move in opposite directions between neighbours, this is
/// (2Δ/b)-DP (spec Talwar §8, A16). Only the index is released.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReportNoisyMin {
    /// Sensitivity Δ of every score.
    pub sensitivity: f64,
    /// Laplace scale b.
    pub scale: f64,
}

impl ReportNoisyMin {
    /// b = 2Δ/ε. ε = ∞ gives b = 0 (exact argmin).
    pub fn new(sensitivity: f64, epsilon: f64) -> Result<Self, PrivacyError> {
        check_positive("sensitivity", sensitivity)?;
        check_positive("epsilon", epsilon)?;
        Ok(ReportNoisyMin {
            sensitivity,
            scale: 2.0 * sensitivity / epsilon,
        })
    }
    /// A mechanism with a given Laplace scale (its ε is 2Δ/b).
    pub fn with_scale(sensitivity: f64, scale: f64) -> Result<Self, PrivacyError> {
        check_positive("sensitivity", sensitivity)?;
        check_positive("scale", scale)?;
        Ok(ReportNoisyMin { sensitivity, scale })
    }
    /// ε = 2Δ/b.
    pub fn epsilon(&self) -> f64 {
        if self.scale == 0.0 {
            f64::INFINITY
        } else {
            crate::privacy::div_up(2.0 * self.sensitivity, self.scale)
        }
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
        let mut best = (0usize, f64::INFINITY);
        for (i, &s) in scores.iter().enumerate() {
            let v = s + noise::laplace(self.scale, rng);
            if v < best.1 {
                best = (i, v);
            }
        }
        best.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::rng_from_seed;
    use crate::privacy::{Accountant, Budget};

    #[test]
    fn laplace_scale_is_sensitivity_over_epsilon() {
        let m = LaplaceMechanism::new(3.0, 0.5).unwrap();
        assert_eq!(m.scale, 6.0);
        assert_eq!(m.cost(), Cost::Pure { epsilon: 0.5 });
        // Empirical E|noise| = b
        let mut rng = rng_from_seed(11);
        let n = 100_000;
        let out = m.run_uncharged(&vec![0.0; n], &mut rng);
        let mean_abs = out.iter().map(|x| x.abs()).sum::<f64>() / n as f64;
        assert!((mean_abs - 6.0).abs() < 0.15, "{mean_abs}");
    }

    #[test]
    fn gaussian_sigma_from_rho() {
        let m = GaussianMechanism::from_rho(2.0, 0.5).unwrap();
        assert!((m.sigma - 2.0).abs() < 1e-15);
        match m.cost() {
            Cost::Zcdp { rho } => assert!(rho >= 0.5 && rho - 0.5 < 1e-12),
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
        let m = ExponentialMechanism::new(1e-300, 1.0).unwrap();
        let mut rng = rng_from_seed(1);
        assert_eq!(m.run_uncharged(&[1.0, 2.0, 1.5], &mut rng), 1);
        let lp = m.log_probabilities(&[1.0, 2.0]);
        assert!(lp.iter().all(|x| !x.is_nan()));
    }

    #[test]
    fn report_noisy_min_scale_and_cost() {
        let m = ReportNoisyMin::new(0.1, 0.5).unwrap();
        assert!((m.scale - 0.4).abs() < 1e-15);
        assert!((m.epsilon() - 0.5).abs() < 1e-12 && m.epsilon() >= 0.5);
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
