//! The private fit check: a fitted regression falls back to the intercept alone when a
//! released comparison of its in-sample squared errors with the intercept alone's says
//! that it predicts worse.
//!
//! # Why
//!
//! Every algorithm's defaults assume what the private scaling cannot promise on every
//! table: a fixed step size assumes a unit-smooth risk (a 0/1 column mapped to 0/4 and
//! the uncentred dummies of a sparse table are up to 16-smooth), a clip at B assumes the
//! signal lies within B robust standard deviations. When they fail, the fit diverges and
//! the model predicts many times worse than the training mean — on the suite's
//! `Ecdat_VietNamI` every sparse algorithm with its defaults did so even at ε = ∞
//! (`docs/benchmark.md`, "Every algorithm's defaults"). No public rule sees this coming;
//! the data can, through a mechanism.
//!
//! # Algorithm
//!
//! On the standardised data (ỹ the scaled target, mᵢ = ⟨x̃ᵢ, w̃⟩ the fitted margins, b̃
//! the released intercept), with the check's budget ε_c split in halves:
//!
//! 1. b₀ = the intercept alone's private intercept: the clipped mean of the responses
//!    (the squared loss's [`super::private_intercept`] with zero margins, ε_c/2:
//!    clip C_b = [`super::intercept_clip`], Laplace 2C_b/n);
//! 2. D = (1/n)·Σᵢ [min((ỹᵢ − b₀)², C²) − min((ỹᵢ − mᵢ − b̃)², C²)], released as
//!    D̃ = D + Lap(2C²/(n·ε_c/2)) (each term lies in [−C², C²]);
//! 3. the fitted model is kept unless D̃ < −τ, τ = [`CHECK_MARGIN`] Laplace scales; else
//!    the model is the intercept alone, (0, b₀).
//!
//! With ε = ∞ both releases are exact and τ = 0: the non-private pipeline keeps a model
//! exactly when its clipped in-sample squared error is at most the intercept alone's.
//!
//! # Privacy
//!
//! b₀ is ε_c/2-DP (the `intercept-mean` mechanism); given b₀, b̃ and w̃ (released before),
//! replacing one row moves n·D by at most 2C², so D̃ is ε_c/2-DP (Laplace); the pair is
//! ε_c-DP by basic composition, charged to the fit's ledger as the phase `check` before
//! either value is used. The decision and the fallback model are post-processing.
//!
//! # Parameters
//!
//! | name | symbol | default | source |
//! |---|---|---|---|
//! | share of ε | ε_c/ε | [`CHECK_SHARE`] = 0.05, taken from the algorithm's share | a twentieth of ε: the algorithm keeps 0.75 of ε instead of 0.8 (its noise scales grow by ≈ 7 %) |
//! | clip of a squared error | C² | [`CHECK_CLIP`]² = 9 (scaled units) | three robust standard deviations, the convention of `bound=auto` ([`super::AUTO_BOUND`]) |
//! | margin | τ | [`CHECK_MARGIN`] = 3 Laplace scales | a model exactly as good as the intercept alone falls back with probability ½·e⁻³ ≈ 2.5 % |

use super::{clipped_residual, release_clipped_mean, PreprocessError};
use crate::mechanisms::{self, LaplaceMechanism};
use crate::privacy::{
    calibration_target, Accountant, Budget, PrivacyLedger, PrivacyModel, PrivacySpent,
};
use rand::RngCore;

/// The check's share of the fit's ε (pure ε-DP: no δ), taken from the algorithm's.
pub const CHECK_SHARE: f64 = 0.05;

/// A squared error counts at most C² = 9 in D (scaled units: three robust sds).
pub const CHECK_CLIP: f64 = 3.0;

/// The fitted model falls back when D̃ < −τ, τ = this many Laplace scales of D̃.
pub const CHECK_MARGIN: f64 = 3.0;

/// What the check released and decided.
#[derive(Debug, Clone, PartialEq)]
pub struct FitCheck {
    /// The released D̃ (ε = ∞: D).
    pub statistic: f64,
    /// τ: the model falls back when `statistic < -threshold`.
    pub threshold: f64,
    /// The intercept alone's released intercept b₀ (scaled units).
    pub fallback_intercept: f64,
    /// How b₀ was learned (the model's `intercept_method` when the model falls back).
    pub fallback_method: String,
    /// Whether the fitted model is kept.
    pub kept: bool,
    /// The two releases' spend.
    pub spent: PrivacySpent,
}

impl FitCheck {
    /// The model note of a fit that fell back (its numbers are in
    /// `preprocessing.fit_check`).
    pub const FELL_BACK: &'static str = "fit check: the released D (the intercept alone's clipped in-sample squared error minus the model's, scaled units; preprocess::fit_check) is below -threshold: the fitted model predicts worse than the intercept alone on the training rows, so the model is the private intercept alone (its weights are 0)";

    /// The remark of a fit that fell back, with the released values.
    pub fn remark(&self) -> String {
        format!(
            "fit check: released D = {:.4} < -{:.4}: the fitted model predicts worse than the intercept alone on the training rows (preprocess::fit_check); the model written is the private intercept alone",
            self.statistic, self.threshold
        )
    }
}

/// The Laplace scale of D̃ at n rows and the release's ε: 2C²/(n·ε).
pub fn check_noise_scale(n: usize, epsilon: f64) -> f64 {
    2.0 * CHECK_CLIP * CHECK_CLIP / (n as f64 * epsilon)
}

/// A row's term of D: min((y − b₀)², C²) − min((y − m − b)², C²).
#[inline]
pub fn check_term(y: f64, margin: f64, b0: f64, b: f64) -> f64 {
    let c2 = CHECK_CLIP * CHECK_CLIP;
    ((y - b0) * (y - b0)).min(c2) - ((y - margin - b) * (y - margin - b)).min(c2)
}

/// What the check reads of the rows: two sums, each one pass (in memory, or a
/// [`crate::algorithms::row_sums::Kernel`] on external rows).
pub trait CheckSource {
    /// The number of rows n (public).
    fn rows(&self) -> usize;
    /// Σᵢ clamp(yᵢ, −c, c) (scaled responses).
    fn clipped_response_sum(&mut self, c: f64) -> Result<f64, PreprocessError>;
    /// Σᵢ [`check_term`](yᵢ, mᵢ, b₀, b) at the fitted margins.
    fn check_sum(&mut self, b0: f64, b: f64) -> Result<f64, PreprocessError>;
}

/// The in-memory [`CheckSource`]: margins and scaled responses.
pub struct LocalCheck<'a> {
    pub margins: &'a [f64],
    pub y: &'a [f64],
}

impl CheckSource for LocalCheck<'_> {
    fn rows(&self) -> usize {
        self.y.len()
    }
    fn clipped_response_sum(&mut self, c: f64) -> Result<f64, PreprocessError> {
        Ok(self.y.iter().map(|yi| clipped_residual(0.0, *yi, c)).sum())
    }
    fn check_sum(&mut self, b0: f64, b: f64) -> Result<f64, PreprocessError> {
        Ok(self
            .margins
            .iter()
            .zip(self.y)
            .map(|(m, yi)| check_term(*yi, *m, b0, b))
            .sum())
    }
}

/// The ε of each of the check's two releases at the check's `budget` (half of it; ε = ∞
/// at ε = ∞).
fn release_epsilon(budget: Budget) -> f64 {
    if budget.is_non_private() {
        f64::INFINITY
    } else {
        calibration_target(budget.epsilon) / 2.0
    }
}

/// The clip C_b of the check's first release (the clipped mean of the responses) for n
/// rows at the check's `budget`: [`super::intercept_clip`] at its ε. Public: a
/// distributed fit reads Σ clamp(yᵢ, ±C_b) in the intercept's pass
/// ([`crate::algorithms::row_sums::ExternalRowSums::prefetch_check_responses`]).
pub fn response_clip(n: usize, budget: Budget) -> f64 {
    super::intercept_clip(n, release_epsilon(budget))
}

/// The private fit check (module doc) of the fitted margins and released intercept
/// `intercept` on the scaled responses of `src`, at `budget` (pure; ε = ∞: exact).
pub fn private_fit_check<R: RngCore + ?Sized>(
    src: &mut dyn CheckSource,
    intercept: f64,
    budget: Budget,
    rng: &mut R,
) -> Result<FitCheck, PreprocessError> {
    let n = src.rows();
    let mut ledger = PrivacyLedger::new(budget, Accountant::Basic);
    // each release gets half (ε = ∞: both exact)
    let eps = release_epsilon(budget);
    // 1. b₀: the clipped mean of the responses (the squared-loss intercept of zero margins)
    let (b0, c) = release_clipped_mean(&mut ledger, "fit check intercept", n, eps, rng, |c| {
        src.clipped_response_sum(c)
    })?;
    // 2. D and its release
    let d = src.check_sum(b0, intercept)? / n as f64;
    let lap = LaplaceMechanism::new(2.0 * CHECK_CLIP * CHECK_CLIP / n as f64, eps)?;
    let statistic = mechanisms::release(&mut ledger, "fit check", &lap, &[d], rng)?[0];
    let threshold = if eps.is_finite() {
        CHECK_MARGIN * check_noise_scale(n, eps)
    } else {
        0.0
    };
    let spent = ledger.summary(PrivacyModel::Pure);
    Ok(FitCheck {
        statistic,
        threshold,
        fallback_intercept: b0,
        fallback_method: format!(
            "the fit check's clipped mean of the responses at C = {c:.4} (scaled units; Laplace, sensitivity 2C/n)"
        ),
        kept: statistic >= -threshold,
        spent,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::rng_from_seed;
    use rand_distr::{Distribution, Normal};

    /// y = x + N(0, 1/4) with x ~ N(0, 1): n rows of (margin, y) for the weight `w`.
    fn rows(n: usize, w: f64, seed: u64) -> (Vec<f64>, Vec<f64>) {
        let mut rng = rng_from_seed(seed);
        let g = Normal::new(0.0, 1.0).unwrap();
        (0..n)
            .map(|_| {
                let x: f64 = g.sample(&mut rng);
                (w * x, x + 0.5 * g.sample(&mut rng))
            })
            .unzip()
    }

    fn check(margins: &[f64], y: &[f64], eps: f64, seed: u64) -> FitCheck {
        let budget = if eps.is_finite() {
            Budget::pure(eps).unwrap()
        } else {
            Budget::non_private()
        };
        let mut src = LocalCheck { margins, y };
        private_fit_check(&mut src, 0.0, budget, &mut rng_from_seed(seed)).unwrap()
    }

    #[test]
    fn noise_scale_and_threshold_follow_the_formula() {
        // Laplace scale 2C²/(n·ε/2) of D̃, τ = 3 scales; the spend is the budget
        let (m, y) = rows(1000, 1.0, 1);
        let c = check(&m, &y, 0.4, 2);
        let scale = 2.0 * 9.0 / (1000.0 * calibration_target(0.4) / 2.0);
        assert!((check_noise_scale(1000, calibration_target(0.4) / 2.0) - scale).abs() < 1e-15);
        assert!((c.threshold - 3.0 * scale).abs() < 1e-12, "{}", c.threshold);
        assert_eq!(c.spent.releases, 2);
        assert!(c.spent.epsilon <= 0.4 && c.spent.epsilon > 0.399);
        // the released D's spread over seeds matches the Laplace scale (sd = √2·scale)
        let (m, y) = rows(200, 1.0, 3);
        let draws: Vec<f64> = (0..4000).map(|s| check(&m, &y, 2.0, s).statistic).collect();
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        let sd =
            (draws.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / draws.len() as f64).sqrt();
        // b₀'s own noise moves D a little too: the sd is at least the Laplace part's
        let want = 2f64.sqrt() * 2.0 * 9.0 / (200.0 * 1.0);
        assert!(sd > 0.95 * want && sd < 1.15 * want, "sd {sd} vs {want}");
    }

    #[test]
    fn non_private_check_is_exact_and_keeps_a_better_model() {
        let (m, y) = rows(500, 1.0, 4);
        let c = check(&m, &y, f64::INFINITY, 5);
        let b0 = y.iter().map(|v| v.clamp(-50.0, 50.0)).sum::<f64>() / 500.0;
        let d = y
            .iter()
            .zip(&m)
            .map(|(yi, mi)| check_term(*yi, *mi, b0, 0.0))
            .sum::<f64>()
            / 500.0;
        assert_eq!(c.fallback_intercept, b0);
        assert_eq!(c.statistic, d);
        assert_eq!(c.threshold, 0.0);
        assert!(c.kept && d > 0.5, "{d}");
    }

    #[test]
    fn an_exploded_model_falls_back_and_a_good_one_is_kept() {
        // the truth w = 1 is kept at ε = 1 on 2 000 rows in 50 seeds of 50; a model whose
        // weight has the wrong sign and 20 times the size (predictions 20× the spread) falls
        // back in all of them; a weight 0 model (as good as the intercept) is kept in
        // about 97.5 % (false fallback ≤ ½·e⁻³ per fit)
        let (good, y) = rows(2000, 1.0, 6);
        let bad: Vec<f64> = good.iter().map(|m| -20.0 * m).collect();
        let zero = vec![0.0; y.len()];
        let mut kept_zero = 0;
        for s in 0..50 {
            assert!(check(&good, &y, 1.0, s).kept, "seed {s}");
            let c = check(&bad, &y, 1.0, s);
            assert!(!c.kept, "seed {s}: {}", c.statistic);
            assert!(c.fallback_intercept.abs() < 0.2, "{}", c.fallback_intercept);
            kept_zero += usize::from(check(&zero, &y, 1.0, s).kept);
        }
        assert!(kept_zero >= 45, "{kept_zero}");
    }

    #[test]
    fn each_term_is_within_the_clip() {
        for (y, m, b0, b) in [
            (0.0, 1e9, 0.0, 0.0),
            (1e9, 1e9, 0.0, 0.0),
            (1.0, 1.0, 1.0, 0.0),
        ] {
            let t = check_term(y, m, b0, b);
            assert!(t.abs() <= CHECK_CLIP * CHECK_CLIP, "{t}");
        }
        assert_eq!(check_term(0.0, 1e9, 0.0, 0.0), -9.0);
        assert_eq!(check_term(1e9, 1e9, 0.0, 0.0), 9.0);
    }
}
