//! The private fit check: a fitted regression falls back to the intercept alone when a
//! released comparison of its in-sample squared errors with the intercept alone's says
//! that it predicts worse; a fitted logistic model falls back to the base rate alone on
//! the same comparison of clipped log-losses ("The logistic loss" below).
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
//! 2. D = (1/n)·Σᵢ [min((⌊ỹᵢ⌉ − b₀)², C²) − min((⌊ỹᵢ − mᵢ⌉ − b̃)², C²)], released as
//!    D̃ = D + Lap(2C²/(n·ε_c/2)) (each term lies in [−C², C²]); ⌊v⌉ is the midpoint of
//!    v's cell of the check's public grid ([`check_cell`]: width 1/32 on [−16, 16], one
//!    cell below and one above, whose terms count C²), so D is a function of the two
//!    histograms of ỹᵢ and of ỹᵢ − mᵢ, which are read with b₀'s sum in the private
//!    intercept's pass (before b₀ and b̃ are released): the check reads the rows in no
//!    pass of its own;
//! 3. the fitted model is kept unless D̃ < −τ, τ = [`CHECK_MARGIN`] Laplace scales; else
//!    the model is the intercept alone, (0, b₀).
//!
//! With ε = ∞ both releases are exact and τ = 0: the non-private pipeline keeps a model
//! exactly when its clipped in-sample squared error (of residuals at their cells'
//! midpoints) is at most the intercept alone's.
//!
//! # The logistic loss
//!
//! Explicit logistic fits whose private scales are not certified can saturate their
//! margins and predict one class with near certainty: on the real set `cells_ps`
//! `clipped-gd --loss logistic` with its defaults and without this check writes models
//! whose test log-loss is 19 times the base rate's at ε = 1 (`docs/benchmark.md`, "The
//! logistic fit check"). The check for a
//! logistic model with a private intercept (its own release, or `clipped-gd`'s jointly
//! fitted one) is the same two releases, in log-odds:
//!
//! 1. b₀ = the logit of the private base rate, (#{yᵢ > 0} + Lap(1/(ε_c/2)))/n clamped to
//!    [1/(n + 2), 1 − 1/(n + 2)] ([`super::release_base_rate`]: the intercept-only
//!    logistic model's release);
//! 2. D = (1/n)·Σᵢ [ℓ_L(b₀; yᵢ) − ℓ_L(⌊mᵢ⌉ + b̃; yᵢ)], ℓ_L(z; y) the log-loss of label y at
//!    log-odds z clipped at L = [`LOGISTIC_CHECK_CLIP`] nats, ⌊mᵢ⌉ the midpoint of the
//!    margin's cell on the check's grid, released as D̃ = D + Lap(2L/(n·ε_c/2)) (each
//!    term lies in [−L, L]); D is a function of the two histograms of the margins of the
//!    positive and of the negative rows ([`LogisticCheckReads`], one pass);
//! 3. the model is kept unless D̃ < −τ; else it is the base rate alone, (0, b₀).
//!
//! Its share of ε grows as n·ε falls ([`check_share`]): 120/(n·ε) clamped to [0.05, 0.5],
//! so that τ is at most ln 2 nats (the check sees a model worse than the base rate by a
//! coin's whole log-loss) wherever n·ε ≥ 240. At the regression check's 0.05 it could not
//! see even a model that puts every row's probability on the wrong label below
//! n·ε ≈ 264, and there the fits measured did (`docs/benchmark.md`, "The logistic fit
//! check"). Below n·ε = 240 ([`logistic_check_blind`]) no share up to 0.5 gives that
//! sight, and `pipeline` writes the base rate alone with the whole budget, a public
//! decision of n and ε (no check, no fit).
//!
//! Privacy as below: b₀ is ε_c/2-DP (a count, sensitivity 1); given b₀, b̃ and w̃,
//! replacing one row moves one count of one histogram out and one in, so n·D by at most
//! 2L.
//!
//! # Privacy
//!
//! b₀ is ε_c/2-DP (the `intercept-mean` mechanism); given b₀, b̃ and w̃ (released before),
//! replacing one row moves one count of each histogram, so n·D by at most 2C², and D̃
//! is ε_c/2-DP (Laplace); the pair is
//! ε_c-DP by basic composition, charged to the fit's ledger as the phase `check` before
//! either value is used. The decision and the fallback model are post-processing.
//!
//! # Parameters
//!
//! | name | symbol | default | source |
//! |---|---|---|---|
//! | share of ε | ε_c/ε | [`CHECK_SHARE`] = 0.05, taken from the algorithm's share; logistic: [`check_share`] = 120/(n·ε) in [0.05, [`LOGISTIC_CHECK_MAX_SHARE`] = 0.5] | a twentieth of ε: the algorithm keeps 0.75 of ε instead of 0.8 (its noise scales grow by ≈ 7 %); the logistic check's [`LOGISTIC_CHECK_SIGHT`] = 12·L/ln 2 = 120 makes τ = ln 2 nats, and below n·ε = 240 it is blind ([`logistic_check_blind`]): measured on the binary tables' design half and confirmed on subsamples of the confirm half (`docs/benchmark.md`, "The logistic fit check") |
//! | clip of a squared error | C² | [`CHECK_CLIP`]² = 9 (scaled units) | three robust standard deviations, the convention of `bound=auto` ([`super::AUTO_BOUND`]) |
//! | clip of a log-loss (logistic) | L | [`LOGISTIC_CHECK_CLIP`] = 10·ln 2 ≈ 6.93 nats | ten times a base rate of ½'s log-loss: an exploded model (test log-loss over 10× the constant's, `docs/benchmark.md`) has in-sample losses of that size, and D̃'s power to see a saturated model grows with L (its noise grows with L too, so a larger L sees a mildly worse model less well); against L = 3 on the binary tables' design half (`docs/benchmark.md`, "The logistic fit check") |
//! | margin | τ | [`CHECK_MARGIN`] = 3 Laplace scales | a model exactly as good as the intercept alone falls back with probability ½·e⁻³ ≈ 2.5 % |
//! | grid | — | cells of [`CHECK_CELL`] = 1/32 on ±[`CHECK_RANGE`] = ±16 (scaled units) | a term moves by at most 3/32 of its C² = 9 within a cell (a midpoint's error averages out); 16 robust sds hold every b̃ and b₀ of a scaled target but a wild draw, whose terms stay valid (bounded) but inexact near the edges |

use super::{release_clipped_mean, PreprocessError};
use crate::mechanisms::{self, LaplaceMechanism};
use crate::privacy::{
    calibration_target, Accountant, Budget, PrivacyLedger, PrivacyModel, PrivacySpent,
};
use rand::RngCore;

/// The check's share of the fit's ε (pure ε-DP: no δ), taken from the algorithm's: the
/// regression check's always, the logistic check's where n·ε is large enough
/// ([`check_share`]).
pub const CHECK_SHARE: f64 = 0.05;

/// The logistic check's sight: its share s of ε is at least this over n·ε, so that at
/// [`CHECK_MARGIN`] Laplace scales it sees a model whose clipped in-sample log-loss
/// exceeds the base rate's by ln 2 nats (a coin's whole loss): 3·2L/(n·s·ε/2) ≤ ln 2 ⇔
/// n·ε·s ≥ 12·L/ln 2 = 120 at L = [`LOGISTIC_CHECK_CLIP`] = 10·ln 2.
pub const LOGISTIC_CHECK_SIGHT: f64 = 12.0 * LOGISTIC_CHECK_CLIP / std::f64::consts::LN_2;

/// The most of ε the logistic check takes ([`check_share`]): the algorithm then keeps
/// 1 − f − 0.5 of ε, 0.3 at the default preprocessing share f = 0.2.
pub const LOGISTIC_CHECK_MAX_SHARE: f64 = 0.5;

/// Whether the logistic check is blind at n rows and ε: even at its largest share it
/// cannot see a model worse than the base rate by ln 2 nats (n·ε < [`LOGISTIC_CHECK_SIGHT`]
/// / [`LOGISTIC_CHECK_MAX_SHARE`] = 240). A logistic model there is not certified, and
/// `heavydp fit` writes the base rate alone (`pipeline`'s public fallback). A function of
/// n and ε only; never blind at ε = ∞.
pub fn logistic_check_blind(n: usize, epsilon: f64) -> bool {
    epsilon.is_finite() && (n as f64) * epsilon * LOGISTIC_CHECK_MAX_SHARE < LOGISTIC_CHECK_SIGHT
}

/// The check's share of ε at n rows (a public function of the loss, n and ε): the
/// regression check's [`CHECK_SHARE`]; the logistic check's
/// [`LOGISTIC_CHECK_SIGHT`]/(n·ε) clamped to [[`CHECK_SHARE`], [`LOGISTIC_CHECK_MAX_SHARE`]]
/// (0.05 from n·ε = 2 400, the most below n·ε = 240). Where n·ε is small a logistic fit
/// is the least reliable (its feature scales are not certified, its margins can
/// saturate: `docs/benchmark.md`, "The logistic fit check") and a check at 0.05 of ε
/// cannot see it: below n·ε ≈ 264 no model could move D̃ below its threshold.
pub fn check_share(logistic: bool, n: usize, epsilon: f64) -> f64 {
    if !logistic || !epsilon.is_finite() {
        return CHECK_SHARE;
    }
    (LOGISTIC_CHECK_SIGHT / (n as f64 * epsilon)).clamp(CHECK_SHARE, LOGISTIC_CHECK_MAX_SHARE)
}

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
    /// The logistic check ([`private_logistic_fit_check`]: log-losses against the base
    /// rate's) rather than the squared-error one.
    pub logistic: bool,
}

impl FitCheck {
    /// The model note of a fit that fell back (its numbers are in
    /// `preprocessing.fit_check`).
    pub const FELL_BACK: &'static str = "fit check: the released D (the intercept alone's clipped in-sample squared error minus the model's, scaled units; preprocess::fit_check) is below -threshold: the fitted model predicts worse than the intercept alone on the training rows, so the model is the private intercept alone (its weights are 0)";

    /// The model note of a logistic fit that fell back.
    pub const FELL_BACK_LOGISTIC: &'static str = "fit check: the released D (the base rate's clipped in-sample log-loss minus the model's, nats; preprocess::fit_check) is below -threshold: the fitted model predicts worse than the base rate on the training rows, so the model is the private base rate alone (its weights are 0)";

    /// The model note of a fit that fell back.
    pub fn note(&self) -> &'static str {
        if self.logistic {
            Self::FELL_BACK_LOGISTIC
        } else {
            Self::FELL_BACK
        }
    }

    /// The remark of a fit that fell back, with the released values.
    pub fn remark(&self) -> String {
        if self.logistic {
            return format!(
                "fit check: released D = {:.4} < -{:.4}: the fitted model's log-loss is worse than the base rate's on the training rows (preprocess::fit_check); the model written is the private base rate alone",
                self.statistic, self.threshold
            );
        }
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

/// The check's grid: cells of this width (scaled units) …
pub const CHECK_CELL: f64 = 1.0 / 32.0;

/// … on [−16, 16], with one cell below and one above.
pub const CHECK_RANGE: f64 = 16.0;

/// The number of cells of the check's grid: 1 024 of width [`CHECK_CELL`], and the
/// cells below −[`CHECK_RANGE`] and above it (NaN included).
pub const CHECK_CELLS: usize = (2.0 * CHECK_RANGE / CHECK_CELL) as usize + 2;

/// The cell of `v` on the check's grid: 0 below −16, k + 1 for v in
/// [−16 + k/32, −16 + (k + 1)/32) (16 itself in the last inner cell), the last cell
/// above 16 or NaN.
#[inline]
pub fn check_cell(v: f64) -> usize {
    if v < -CHECK_RANGE {
        0
    } else if v <= CHECK_RANGE {
        (((v + CHECK_RANGE) / CHECK_CELL) as usize + 1).min(CHECK_CELLS - 2)
    } else {
        CHECK_CELLS - 1
    }
}

/// The value a cell stands for: its midpoint; ∓∞ for the outer cells.
pub fn check_cell_value(k: usize) -> f64 {
    match k {
        0 => f64::NEG_INFINITY,
        k if k == CHECK_CELLS - 1 => f64::INFINITY,
        k => -CHECK_RANGE + (k as f64 - 0.5) * CHECK_CELL,
    }
}

/// A term of D: min((v − b)², C²) (C² when v is ±∞).
#[inline]
fn clipped_square(v: f64, b: f64) -> f64 {
    let c2 = CHECK_CLIP * CHECK_CLIP;
    if v.is_finite() {
        ((v - b) * (v - b)).min(c2)
    } else {
        c2
    }
}

/// What the check reads of the rows, in one pass: Σᵢ clamp(yᵢ, ±c) and the counts of
/// the responses yᵢ and of the residuals yᵢ − mᵢ in the cells of the check's grid
/// ([`check_cell`]; counts as f64, exact).
#[derive(Debug, Clone, PartialEq)]
pub struct CheckReads {
    pub response_sum: f64,
    pub responses: Vec<f64>,
    pub residuals: Vec<f64>,
}

impl CheckReads {
    /// The reads of the scaled responses `y` at the fitted `margins`, clip `c`.
    pub fn of(margins: &[f64], y: &[f64], c: f64) -> Self {
        let mut reads = CheckReads {
            response_sum: y
                .iter()
                .map(|yi| super::clipped_residual(0.0, *yi, c))
                .sum(),
            responses: vec![0.0; CHECK_CELLS],
            residuals: vec![0.0; CHECK_CELLS],
        };
        for (m, yi) in margins.iter().zip(y) {
            reads.responses[check_cell(*yi)] += 1.0;
            reads.residuals[check_cell(yi - m)] += 1.0;
        }
        reads
    }

    /// The flat layout of a pass's result: the sum, then the two histograms.
    pub fn to_flat(&self) -> Vec<f64> {
        let mut v = Vec::with_capacity(1 + 2 * CHECK_CELLS);
        v.push(self.response_sum);
        v.extend_from_slice(&self.responses);
        v.extend_from_slice(&self.residuals);
        v
    }

    /// The inverse of [`CheckReads::to_flat`] (None: not its length).
    pub fn from_flat(v: &[f64]) -> Option<Self> {
        (v.len() == 1 + 2 * CHECK_CELLS).then(|| CheckReads {
            response_sum: v[0],
            responses: v[1..1 + CHECK_CELLS].to_vec(),
            residuals: v[1 + CHECK_CELLS..].to_vec(),
        })
    }

    /// n·D of the intercept alone `b0` and the model's intercept `b`: Σ over the cells
    /// of the responses' count × min((v − b₀)², C²) minus the residuals' count ×
    /// min((v − b)², C²), v the cell's value (a fixed order: the same counts give the
    /// same sum bit for bit, in memory and on external rows).
    pub fn statistic_sum(&self, b0: f64, b: f64) -> f64 {
        (0..CHECK_CELLS)
            .map(|k| {
                let v = check_cell_value(k);
                self.responses[k] * clipped_square(v, b0) - self.residuals[k] * clipped_square(v, b)
            })
            .sum()
    }
}

/// What the check reads of the rows (in memory, or a
/// [`crate::algorithms::row_sums::Kernel`] on external rows, read in the private
/// intercept's pass).
pub trait CheckSource {
    /// The number of rows n (public).
    fn rows(&self) -> usize;
    /// The [`CheckReads`] at the fitted margins with the responses clipped at `c`.
    fn check_reads(&mut self, c: f64) -> Result<CheckReads, PreprocessError>;
    /// The [`LogisticCheckReads`] at the fitted margins (labels: yᵢ > 0 is positive).
    fn logistic_check_reads(&mut self) -> Result<LogisticCheckReads, PreprocessError>;
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
    fn check_reads(&mut self, c: f64) -> Result<CheckReads, PreprocessError> {
        Ok(CheckReads::of(self.margins, self.y, c))
    }
    fn logistic_check_reads(&mut self) -> Result<LogisticCheckReads, PreprocessError> {
        Ok(LogisticCheckReads::of(self.margins, self.y))
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
/// ([`crate::algorithms::row_sums::ExternalRowSums::prefetch_check_reads`]).
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
    let mut reads = None;
    let (b0, c) = release_clipped_mean(&mut ledger, "fit check intercept", n, eps, rng, |c| {
        let r = src.check_reads(c)?;
        let sum = r.response_sum;
        reads = Some(r);
        Ok(sum)
    })?;
    // 2. D (from the histograms read with b₀'s sum) and its release
    let reads = reads.expect("read by the first release");
    let d = reads.statistic_sum(b0, intercept) / n as f64;
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
        logistic: false,
    })
}

/// A logistic log-loss counts at most L = 10·ln 2 ≈ 6.93 nats in the logistic check's D:
/// ten times the log-loss of a base rate of ½, the level of the benchmark's "log-loss
/// over 10× the constant's" (`docs/benchmark.md`).
pub const LOGISTIC_CHECK_CLIP: f64 = 10.0 * std::f64::consts::LN_2;

/// A term of the logistic D: the log-loss min(ln(1 + e^(−z)), L) of a positive label at
/// log-odds z, min(ln(1 + e^z), L) of a negative one (L for a NaN z; the outer cells'
/// ∓∞ count L or 0).
#[inline]
fn clipped_log_loss(z: f64, positive: bool) -> f64 {
    let t = if positive { -z } else { z };
    if t.is_nan() {
        LOGISTIC_CHECK_CLIP
    } else {
        crate::loss::softplus(t).min(LOGISTIC_CHECK_CLIP)
    }
}

/// The Laplace scale of the logistic D̃ at n rows and the release's ε: 2L/(n·ε).
pub fn logistic_check_noise_scale(n: usize, epsilon: f64) -> f64 {
    2.0 * LOGISTIC_CHECK_CLIP / (n as f64 * epsilon)
}

/// What the logistic check reads of the rows, in one pass: the counts of the fitted
/// margins mᵢ = ⟨x̃ᵢ, w̃⟩ of the positive rows (yᵢ > 0) and of the negative rows in the
/// cells of the check's grid ([`check_cell`]; counts as f64, exact). The count of
/// positives is the first histogram's total.
#[derive(Debug, Clone, PartialEq)]
pub struct LogisticCheckReads {
    pub positives: Vec<f64>,
    pub negatives: Vec<f64>,
}

impl LogisticCheckReads {
    /// The reads of the labels `y` (yᵢ > 0: positive) at the fitted `margins`.
    pub fn of(margins: &[f64], y: &[f64]) -> Self {
        let mut reads = LogisticCheckReads {
            positives: vec![0.0; CHECK_CELLS],
            negatives: vec![0.0; CHECK_CELLS],
        };
        for (m, yi) in margins.iter().zip(y) {
            let h = if *yi > 0.0 {
                &mut reads.positives
            } else {
                &mut reads.negatives
            };
            h[check_cell(*m)] += 1.0;
        }
        reads
    }

    /// The flat layout of a pass's result: the positives' histogram, then the negatives'.
    pub fn to_flat(&self) -> Vec<f64> {
        [self.positives.as_slice(), &self.negatives].concat()
    }

    /// The inverse of [`LogisticCheckReads::to_flat`] (None: not its length).
    pub fn from_flat(v: &[f64]) -> Option<Self> {
        (v.len() == 2 * CHECK_CELLS).then(|| LogisticCheckReads {
            positives: v[..CHECK_CELLS].to_vec(),
            negatives: v[CHECK_CELLS..].to_vec(),
        })
    }

    /// The number of positive rows (exact: a sum of integer counts).
    pub fn positives_count(&self) -> f64 {
        self.positives.iter().sum()
    }

    /// n·D of the base rate's log-odds `b0` and the model's intercept `b`: Σ over the
    /// cells of each label's count × (its clipped log-loss at b₀ minus that at the cell's
    /// value + b), in a fixed order.
    pub fn statistic_sum(&self, b0: f64, b: f64) -> f64 {
        let (pos0, neg0) = (clipped_log_loss(b0, true), clipped_log_loss(b0, false));
        (0..CHECK_CELLS)
            .map(|k| {
                let z = check_cell_value(k) + b;
                self.positives[k] * (pos0 - clipped_log_loss(z, true))
                    + self.negatives[k] * (neg0 - clipped_log_loss(z, false))
            })
            .sum()
    }
}

/// The private fit check of a logistic model (module doc, "The logistic loss"): the
/// fitted margins and released intercept `intercept` (log-odds) against the private base
/// rate, on the labels of `src`, at `budget` (pure; ε = ∞: exact).
pub fn private_logistic_fit_check<R: RngCore + ?Sized>(
    src: &mut dyn CheckSource,
    intercept: f64,
    budget: Budget,
    rng: &mut R,
) -> Result<FitCheck, PreprocessError> {
    let n = src.rows();
    let mut ledger = PrivacyLedger::new(budget, Accountant::Basic);
    let eps = release_epsilon(budget);
    let reads = src.logistic_check_reads()?;
    // 1. b₀: the logit of the private base rate (the intercept of zero weights)
    let b0 = super::release_base_rate(
        &mut ledger,
        "fit check base rate",
        n as f64,
        reads.positives_count(),
        eps,
        rng,
    )?;
    // 2. D and its release
    let d = reads.statistic_sum(b0, intercept) / n as f64;
    let lap = LaplaceMechanism::new(2.0 * LOGISTIC_CHECK_CLIP / n as f64, eps)?;
    let statistic = mechanisms::release(&mut ledger, "fit check", &lap, &[d], rng)?[0];
    let threshold = if eps.is_finite() {
        CHECK_MARGIN * logistic_check_noise_scale(n, eps)
    } else {
        0.0
    };
    Ok(FitCheck {
        statistic,
        threshold,
        fallback_intercept: b0,
        fallback_method: "the fit check's logit of the private base rate (Laplace on the count of positives, sensitivity 1; the weights are all zero)".into(),
        kept: statistic >= -threshold,
        spent: ledger.summary(PrivacyModel::Pure),
        logistic: true,
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

    /// A pure budget of ε (ε = ∞: non-private).
    fn budget(eps: f64) -> Budget {
        if eps.is_finite() {
            Budget::pure(eps).unwrap()
        } else {
            Budget::non_private()
        }
    }

    fn check(margins: &[f64], y: &[f64], eps: f64, seed: u64) -> FitCheck {
        let mut src = LocalCheck { margins, y };
        private_fit_check(&mut src, 0.0, budget(eps), &mut rng_from_seed(seed)).unwrap()
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

    /// min((v − b)², 9) − the row-by-row D of unsnapped values, for comparison.
    fn exact_term(y: f64, m: f64, b0: f64, b: f64) -> f64 {
        ((y - b0) * (y - b0)).min(9.0) - ((y - m - b) * (y - m - b)).min(9.0)
    }

    #[test]
    fn non_private_check_is_exact_and_keeps_a_better_model() {
        let (m, y) = rows(500, 1.0, 4);
        let c = check(&m, &y, f64::INFINITY, 5);
        let b0 = y.iter().map(|v| v.clamp(-50.0, 50.0)).sum::<f64>() / 500.0;
        // D row by row at the cells' midpoints
        let mid = |v: f64| check_cell_value(check_cell(v));
        let d = y
            .iter()
            .zip(&m)
            .map(|(yi, mi)| clipped_square(mid(*yi), b0) - clipped_square(mid(yi - mi), 0.0))
            .sum::<f64>()
            / 500.0;
        assert_eq!(c.fallback_intercept, b0);
        assert!((c.statistic - d).abs() < 1e-12, "{} vs {d}", c.statistic);
        assert_eq!(c.threshold, 0.0);
        assert!(c.kept && d > 0.5, "{d}");
        // the midpoints move D by far less than its noise at any ε the check runs at
        let exact = y
            .iter()
            .zip(&m)
            .map(|(yi, mi)| exact_term(*yi, *mi, b0, 0.0))
            .sum::<f64>()
            / 500.0;
        assert!((d - exact).abs() < 2e-3, "{d} vs {exact}");
    }

    #[test]
    fn the_grid_cells_hold_their_values_and_the_outer_cells_count_the_clip() {
        assert_eq!(CHECK_CELLS, 1026);
        assert_eq!(check_cell(-16.0), 1);
        assert_eq!(check_cell(-16.0 - 1e-9), 0);
        assert_eq!(check_cell(16.0), CHECK_CELLS - 2);
        assert_eq!(check_cell(16.0 + 1e-9), CHECK_CELLS - 1);
        assert_eq!(check_cell(f64::NAN), CHECK_CELLS - 1);
        assert_eq!(check_cell(f64::NEG_INFINITY), 0);
        for i in 0..=64_000 {
            let v = -16.0 + i as f64 / 2000.0;
            let k = check_cell(v);
            assert!(
                (check_cell_value(k) - v).abs() <= CHECK_CELL / 2.0 + 1e-12,
                "{v}"
            );
        }
        assert_eq!(clipped_square(check_cell_value(0), 15.0), 9.0);
        assert_eq!(
            clipped_square(check_cell_value(CHECK_CELLS - 1), -15.0),
            9.0
        );
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
    fn one_row_moves_the_sum_by_at_most_twice_the_clip() {
        // the sensitivity of n·D: replacing one row moves one count of each histogram
        let (m, y) = rows(300, 1.0, 7);
        let base = CheckReads::of(&m, &y, 2.0);
        for (yr, mr) in [
            (1e9, 0.0),
            (0.0, 1e9),
            (0.0, f64::NAN),
            (3.0, -3.0),
            (-16.5, 16.5),
        ] {
            let (mut m2, mut y2) = (m.clone(), y.clone());
            m2[0] = mr;
            y2[0] = yr;
            let other = CheckReads::of(&m2, &y2, 2.0);
            for (b0, b) in [(0.0, 0.0), (0.3, -0.4), (14.0, -14.0), (40.0, 1.0)] {
                let moved = (base.statistic_sum(b0, b) - other.statistic_sum(b0, b)).abs();
                assert!(
                    moved <= 2.0 * 9.0 + 1e-9,
                    "{moved} at ({yr}, {mr}), ({b0}, {b})"
                );
            }
            assert!((base.response_sum - other.response_sum).abs() <= 4.0 + 1e-12);
        }
        // the flat layout of a pass's result round-trips
        assert_eq!(CheckReads::from_flat(&base.to_flat()), Some(base));
    }
    /// Labels with P(y = 1) = σ(2x), x ~ N(0, 1): n rows of (w·2x, y) for the weight `w`.
    fn labelled(n: usize, w: f64, seed: u64) -> (Vec<f64>, Vec<f64>) {
        let mut rng = rng_from_seed(seed);
        let g = Normal::new(0.0, 1.0).unwrap();
        (0..n)
            .map(|_| {
                let x: f64 = g.sample(&mut rng);
                let u: f64 = rand::Rng::random(&mut rng);
                (w * 2.0 * x, f64::from(u < crate::loss::sigmoid(2.0 * x)))
            })
            .unzip()
    }

    fn logistic_check(margins: &[f64], y: &[f64], eps: f64, seed: u64) -> FitCheck {
        let mut src = LocalCheck { margins, y };
        private_logistic_fit_check(&mut src, 0.0, budget(eps), &mut rng_from_seed(seed)).unwrap()
    }

    #[test]
    fn the_logistic_checks_noise_scale_and_threshold_follow_the_formula() {
        // Laplace scale 2L/(n·ε/2) of D̃, τ = 3 scales; the spend is the budget
        let (m, y) = labelled(1000, 1.0, 1);
        let c = logistic_check(&m, &y, 0.4, 2);
        let l = LOGISTIC_CHECK_CLIP;
        let scale = 2.0 * l / (1000.0 * calibration_target(0.4) / 2.0);
        assert!(
            (logistic_check_noise_scale(1000, calibration_target(0.4) / 2.0) - scale).abs() < 1e-15
        );
        assert!((c.threshold - 3.0 * scale).abs() < 1e-12, "{}", c.threshold);
        assert_eq!(c.spent.releases, 2);
        assert!(c.spent.epsilon <= 0.4 && c.spent.epsilon > 0.399);
        assert!(c.logistic);
        // the released D's spread over seeds: the Laplace part's sd √2·2L/(n·ε/2), plus a
        // little from b₀'s own noise
        let (m, y) = labelled(200, 1.0, 3);
        let draws: Vec<f64> = (0..4000)
            .map(|s| logistic_check(&m, &y, 2.0, s).statistic)
            .collect();
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        let sd =
            (draws.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / draws.len() as f64).sqrt();
        let want = 2f64.sqrt() * 2.0 * l / (200.0 * 1.0);
        assert!(sd > 0.95 * want && sd < 1.15 * want, "sd {sd} vs {want}");
    }

    #[test]
    fn the_non_private_logistic_check_is_exact() {
        let (m, y) = labelled(500, 1.0, 4);
        let c = logistic_check(&m, &y, f64::INFINITY, 5);
        let p = y.iter().sum::<f64>() / 500.0;
        let b0 = (p / (1.0 - p)).ln();
        assert!((c.fallback_intercept - b0).abs() < 1e-12);
        // D row by row at the margins' cell midpoints, and at the margins themselves
        let mid = |v: f64| check_cell_value(check_cell(v));
        let term = |mi: f64, yi: f64| {
            let pos = yi > 0.0;
            clipped_log_loss(b0, pos) - clipped_log_loss(mi, pos)
        };
        let d = m
            .iter()
            .zip(&y)
            .map(|(mi, yi)| term(mid(*mi), *yi))
            .sum::<f64>()
            / 500.0;
        let exact = m.iter().zip(&y).map(|(mi, yi)| term(*mi, *yi)).sum::<f64>() / 500.0;
        assert!((c.statistic - d).abs() < 1e-12, "{} vs {d}", c.statistic);
        assert!((d - exact).abs() < 2e-3, "{d} vs {exact}");
        assert_eq!(c.threshold, 0.0);
        // the true model beats the base rate by a clear margin of log-loss
        assert!(c.kept && d > 0.1, "{d}");
        // a clipped log-loss: a margin far on the wrong side counts L, a NaN too
        assert_eq!(clipped_log_loss(-40.0, true), LOGISTIC_CHECK_CLIP);
        assert_eq!(clipped_log_loss(f64::NAN, false), LOGISTIC_CHECK_CLIP);
        assert!((LOGISTIC_CHECK_CLIP - 6.931_471_805_599_453).abs() < 1e-12);
        assert_eq!(clipped_log_loss(f64::INFINITY, true), 0.0);
        assert!((clipped_log_loss(0.0, false) - 2f64.ln()).abs() < 1e-15);
    }

    #[test]
    fn a_saturated_logistic_model_falls_back_and_a_good_one_is_kept() {
        // the truth is kept at ε = 1 on 2 000 rows in 50 seeds of 50; margins of the wrong
        // sign and 20 times the size (near-certain wrong predictions) fall back in all of
        // them, to the base rate's log-odds; a zero-weight model (as good as the base
        // rate) is kept in about 97.5 %
        let (good, y) = labelled(2000, 1.0, 6);
        let bad: Vec<f64> = good.iter().map(|m| -20.0 * m).collect();
        let zero = vec![0.0; y.len()];
        let p = y.iter().sum::<f64>() / y.len() as f64;
        let mut kept_zero = 0;
        for s in 0..50 {
            assert!(logistic_check(&good, &y, 1.0, s).kept, "seed {s}");
            let c = logistic_check(&bad, &y, 1.0, s);
            assert!(!c.kept, "seed {s}: {}", c.statistic);
            assert!(
                (c.fallback_intercept - (p / (1.0 - p)).ln()).abs() < 0.1,
                "{}",
                c.fallback_intercept
            );
            kept_zero += usize::from(logistic_check(&zero, &y, 1.0, s).kept);
        }
        assert!(kept_zero >= 45, "{kept_zero}");
    }

    #[test]
    fn one_row_moves_the_logistic_sum_by_at_most_twice_the_clip() {
        let (m, y) = labelled(300, 1.0, 7);
        let base = LogisticCheckReads::of(&m, &y);
        for (yr, mr) in [
            (1.0, 1e9),
            (0.0, 1e9),
            (1.0, -1e9),
            (0.0, f64::NAN),
            (-1.0, 3.0),
        ] {
            let (mut m2, mut y2) = (m.clone(), y.clone());
            m2[0] = mr;
            y2[0] = yr;
            let other = LogisticCheckReads::of(&m2, &y2);
            for (b0, b) in [(0.0, 0.0), (0.3, -0.4), (-6.0, 14.0), (6.0, -40.0)] {
                let moved = (base.statistic_sum(b0, b) - other.statistic_sum(b0, b)).abs();
                assert!(
                    moved <= 2.0 * LOGISTIC_CHECK_CLIP + 1e-9,
                    "{moved} at ({yr}, {mr}), ({b0}, {b})"
                );
            }
            assert!((base.positives_count() - other.positives_count()).abs() <= 1.0);
        }
        assert_eq!(
            LogisticCheckReads::from_flat(&base.to_flat()),
            Some(base.clone())
        );
        assert_eq!(
            base.positives_count(),
            y.iter().filter(|v| **v > 0.0).count() as f64
        );
    }

    #[test]
    fn the_logistic_checks_share_gives_it_sight_of_a_coins_loss() {
        // the regression check's share is fixed; the logistic one's is 120/(n·ε) in
        // [0.05, 0.5]
        assert_eq!(check_share(false, 100, 0.5), CHECK_SHARE);
        assert_eq!(check_share(true, 100, f64::INFINITY), CHECK_SHARE);
        assert_eq!(check_share(true, 10_000, 1.0), CHECK_SHARE);
        assert_eq!(check_share(true, 2_400, 1.0), CHECK_SHARE);
        assert!((check_share(true, 1_000, 1.2) - 0.1).abs() < 1e-12);
        assert_eq!(check_share(true, 240, 1.0), LOGISTIC_CHECK_MAX_SHARE);
        assert_eq!(check_share(true, 100, 1.0), LOGISTIC_CHECK_MAX_SHARE);
        assert!((LOGISTIC_CHECK_SIGHT - 120.0).abs() < 1e-12);
        // at its share the check's threshold (3 Laplace scales of D̃, released at half the
        // share) is ln 2 nats exactly where the share is 120/(n·ε), at most ln 2 above,
        // more below n·ε = 240 (blind)
        let threshold = |n: usize, eps: f64| {
            CHECK_MARGIN * logistic_check_noise_scale(n, check_share(true, n, eps) * eps / 2.0)
        };
        let ln2 = std::f64::consts::LN_2;
        assert!((threshold(1_000, 1.0) - ln2).abs() < 1e-12);
        assert!((threshold(240, 1.0) - ln2).abs() < 1e-12);
        assert!(threshold(20_000, 1.0) < ln2 && threshold(20_000, 1.0) > 0.1 * ln2);
        assert!(threshold(239, 1.0) > ln2);
        assert!(logistic_check_blind(239, 1.0) && logistic_check_blind(479, 0.5));
        assert!(!logistic_check_blind(240, 1.0) && !logistic_check_blind(480, 0.5));
        assert!(!logistic_check_blind(1, f64::INFINITY));
        // a saturated model's D (L minus the base rate's loss, about 6.2 nats at a base
        // rate of ½) is then below -threshold with room to spare: the check sees it
        // wherever it is not blind, and could not at the regression check's 0.05 below
        // n·ε = 264
        let worst = LOGISTIC_CHECK_CLIP - ln2;
        assert!(threshold(240, 1.0) < worst);
        assert!(CHECK_MARGIN * logistic_check_noise_scale(263, CHECK_SHARE / 2.0) > worst);
    }
}
