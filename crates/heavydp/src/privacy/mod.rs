//! Privacy budgets, composition theorems, conversions and the privacy ledger.
//!
//! Neighbouring datasets differ in **one record replaced**; the number of
//! records `n` is public. Every private release in heavydp goes through a
//! [`PrivacyLedger`], which
//!
//! 1. knows the cost of a mechanism *before* it runs ([`crate::mechanisms::Mechanism::cost`]),
//! 2. adds that cost to what has been spent under the ledger's [`Accountant`],
//!    rounding every floating-point step **up** (`f64::next_up`),
//! 3. refuses the release (returns [`PrivacyError::BudgetExceeded`]) when the
//!    total would exceed the budget, and only then lets the mechanism run.
//!
//! Because the ledger rounds up, calibrations that split a budget exactly would
//! be refused by a few ulps; calibrations therefore aim at
//! [`calibration_target`], a hair (relative 1e-9) below the budget.
//!
//! ## Composition and conversion formulas
//!
//! | function | statement | source |
//! |---|---|---|
//! | [`basic_composition`] | ε and δ add | Dwork & Roth, Thm 3.16 |
//! | [`advanced_composition`] | k-fold (ε₀, δ₀) ⇒ (√(2k ln(1/δ'))ε₀ + kε₀(e^ε₀ − 1), kδ₀ + δ') | Zhao et al. Lemma 1(1); Hu et al. Lemma 2 |
//! | [`hu_advanced_per_step_epsilon`] | ε' = ε / (2√(2T ln(2/δ))) per step | Hu et al. Lemma 2 (spec B.3) |
//! | [`pure_to_zcdp`] | ε-DP ⇒ (ε²/2)-zCDP | Zhao et al. Lemma 1(3) |
//! | [`bounded_range_to_zcdp`] | ε-bounded-range (an ε-DP exponential mechanism) ⇒ (ε²/8)-zCDP | Cesar & Rogers 2021, Lemma 3.2; Durfee & Rogers 2019 (exponential mechanism is ε-BR) |
//! | [`zcdp_to_approx`] | ρ-zCDP ⇒ (ρ + 2√(ρ ln(1/δ)), δ)-DP | Zhao et al. Lemma 1(4) |
//! | [`approx_to_zcdp_rho`] | the largest ρ with ρ + 2√(ρ ln(1/δ)) ≤ ε | inverse of Lemma 1(4) |
//! | [`zhao_rho_eq15`] | ρ = ε² / (1 + 2√(ln(1/δ)))² (valid for ε ≤ 1) | Zhao et al. eq. (15), Thm 3 |
//! | [`gaussian_zcdp_rho`] | N(0, σ²) on ℓ2-sensitivity Δ is Δ²/(2σ²)-zCDP | Zhao et al. Lemma 2 |
//! | [`zhao_target_rho`] | ρ for a target (ε, δ): (15) when ε ≤ 1 ([`RhoRule::Eq15`]), else the exact inversion (Z14) | Zhao et al. Thm 3, spec §1, Z14 |
//! | [`zhao_rho_eq24`] | ρ = ε²k / (64e⁴ ln(8/δ)(1 + 2√(ln(12k/δ)))²) per group (paper's shuffle mode) | Zhao et al. eq. (24), Thm 6 |
//! | [`zhao_per_step_eq32`] | (ε₀, δ₀) = (ε / (2√(2T ln(2/δ))), δ/(2T)): T steps compose to (ε, δ) for ε ≤ 1 | Zhao et al. eq. (32), §V-C |
//! | [`shuffle_amplification`] | k shuffled (ε₀, δ₀) local reports ⇒ (ε_g, δ_g) of (79)–(80), second term 8e^{ε₀}/k (Z4) | Zhao et al. App. E; Feldman–McMillan–Talwar Thm III.8 |
//! | [`zhao_shuffle_preconditions`] | Theorem 6's stated range, ε₀ ≤ 1, FMT's range ε₀ ≤ ln(k/(16 ln(4/δ'))), and the numeric (79)–(80) certificate | spec §4.1, §4.3 (Reviewed), Z5, Z7 |
//!
//! Rounding: a function whose result is *charged* (a certified ε or δ) rounds up;
//! a function whose result *calibrates* noise (a ρ, a per-step ε₀ or δ₀) rounds down,
//! by a relative 16·2⁻⁵² (larger than the error of the few correctly-rounded operations
//! and `libm`-quality transcendental calls involved).

pub mod phases;
pub use phases::{Phase, PhasedLedger};

use serde::Serialize;
use thiserror::Error;

/// Errors of the privacy core. Messages name parameters, never data values.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum PrivacyError {
    #[error("--epsilon must be a number > 0 (or 'inf' for the non-private run); got {0}")]
    InvalidEpsilon(f64),
    #[error("--delta must be in [0, 1); got {0}")]
    InvalidDelta(f64),
    #[error("{algorithm} gives (epsilon, delta)-DP and needs --delta > 0")]
    DeltaRequired { algorithm: String },
    #[error(
        "privacy budget exceeded: releasing '{release}' would spend epsilon {would_epsilon:.6}, delta {would_delta:.3e}, \
         over the budget epsilon {budget_epsilon}, delta {budget_delta:e}"
    )]
    BudgetExceeded {
        release: String,
        would_epsilon: f64,
        would_delta: f64,
        budget_epsilon: f64,
        budget_delta: f64,
    },
    #[error("the {accountant} accountant cannot compose a {cost} charge")]
    IncompatibleCost {
        accountant: &'static str,
        cost: &'static str,
    },
    #[error("invalid mechanism parameter: {0}")]
    InvalidMechanism(String),
    #[error("refused the charge of '{release}': {reason}")]
    InvalidCost { release: String, reason: String },
}

/// The privacy model an algorithm's guarantee is stated in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PrivacyModel {
    /// Pure ε-DP.
    Pure,
    /// Approximate (ε, δ)-DP.
    Approx,
    /// ρ-zero-concentrated DP (reported together with its (ε, δ) conversion).
    Zcdp,
    /// No privacy (non-private baselines, or ε = ∞).
    None,
}

impl PrivacyModel {
    /// The name used in `heavydp algorithms` and model files.
    pub fn as_str(self) -> &'static str {
        match self {
            PrivacyModel::Pure => "pure",
            PrivacyModel::Approx => "approx",
            PrivacyModel::Zcdp => "zcdp",
            PrivacyModel::None => "none",
        }
    }
}

/// A user's privacy budget: a total (ε, δ). `ε = ∞` means "non-private".
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Budget {
    pub epsilon: f64,
    pub delta: f64,
}

impl Budget {
    /// Validates ε > 0 (∞ allowed) and δ ∈ [0, 1).
    pub fn new(epsilon: f64, delta: f64) -> Result<Self, PrivacyError> {
        if epsilon.is_nan() || epsilon <= 0.0 {
            return Err(PrivacyError::InvalidEpsilon(epsilon));
        }
        if !delta.is_finite() || !(0.0..1.0).contains(&delta) {
            return Err(PrivacyError::InvalidDelta(delta));
        }
        Ok(Budget { epsilon, delta })
    }

    /// Pure ε-DP budget.
    pub fn pure(epsilon: f64) -> Result<Self, PrivacyError> {
        Budget::new(epsilon, 0.0)
    }

    /// The non-private "budget" ε = ∞, δ = 0.
    pub fn non_private() -> Self {
        Budget {
            epsilon: f64::INFINITY,
            delta: 0.0,
        }
    }

    /// True when ε = ∞ (the run must reproduce the non-private algorithm exactly).
    pub fn is_non_private(&self) -> bool {
        self.epsilon.is_infinite()
    }
}

/// The privacy cost of one mechanism invocation, known before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Cost {
    /// ε-DP.
    Pure { epsilon: f64 },
    /// (ε, δ)-DP.
    Approx { epsilon: f64, delta: f64 },
    /// ρ-zCDP.
    Zcdp { rho: f64 },
}

impl Cost {
    /// Checks a cost before it enters a ledger whose budget is `budget`: ε ≥ 0, δ ∈ [0, 1)
    /// and ρ ≥ 0, none NaN; an infinite ε or ρ only under the non-private budget ε = ∞
    /// (where a noiseless mechanism's cost is ∞). A negative cost would refund budget
    /// and a NaN one would disable every later refusal (`NaN > budget` is false), so
    /// both are refused here, before any total is touched. The reason names no data.
    pub fn check(&self, budget: Budget) -> Result<(), String> {
        let finite_ok = |v: f64| v.is_finite() || budget.is_non_private();
        let (name, v, ok) = match *self {
            Cost::Pure { epsilon } => ("epsilon", epsilon, epsilon >= 0.0 && finite_ok(epsilon)),
            Cost::Approx { epsilon, delta } => {
                if !(epsilon >= 0.0 && finite_ok(epsilon)) {
                    ("epsilon", epsilon, false)
                } else {
                    ("delta", delta, (0.0..1.0).contains(&delta))
                }
            }
            Cost::Zcdp { rho } => ("rho", rho, rho >= 0.0 && finite_ok(rho)),
        };
        if ok {
            Ok(())
        } else {
            Err(format!(
                "a cost's {name} must be {} (not NaN{}); got {v}",
                if name == "delta" { "in [0, 1)" } else { ">= 0" },
                if name == "delta" || budget.is_non_private() {
                    ""
                } else {
                    ", not infinite under a finite budget"
                }
            ))
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Cost::Pure { .. } => "pure",
            Cost::Approx { .. } => "approx",
            Cost::Zcdp { .. } => "zcdp",
        }
    }
}

/// How the ledger composes the charges it receives.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Accountant {
    /// Basic composition: ε's and δ's add. Accepts pure and approximate charges.
    Basic,
    /// zCDP composition (ρ's add; pure ε-DP charges count as ε²/2), converted to
    /// (ε, δ) at the budget's δ by Lemma 1(4) of Zhao et al.
    Zcdp,
    /// Advanced composition of k charges with slack `delta_slack` (δ' of Lemma 1(1)):
    /// total (√(2k ln(1/δ'))·max ε_i + k·max ε_i(e^{max ε_i} − 1), Σδ_i + δ'), never more than
    /// the basic sum.
    Advanced { delta_slack: f64 },
    /// Parallel composition over disjoint data chunks (replace-one, n public): charges
    /// name the chunk they read; the total is the maximum over chunks of the basic sum.
    Parallel,
}

impl Accountant {
    fn name(&self) -> &'static str {
        match self {
            Accountant::Basic => "basic",
            Accountant::Zcdp => "zcdp",
            Accountant::Advanced { .. } => "advanced",
            Accountant::Parallel => "parallel",
        }
    }
}

/// The smallest noise level x (to a relative `rel_tol`) whose certificate `cert(x)` is at
/// most `epsilon`, for a certificate non-increasing in x, starting from an `upper` level
/// that certifies: the bracket is lowered by the factor `shrink` (< 1) until its lower end
/// fails, then bisected. Returns the upper end of the final bracket, which certifies.
/// The calibration search of Peeling's exact scale and of objective perturbation's σ.
pub fn smallest_certified(
    cert: impl Fn(f64) -> f64,
    epsilon: f64,
    upper: f64,
    shrink: f64,
    rel_tol: f64,
) -> f64 {
    let mut hi = upper;
    let mut lo = hi * shrink;
    while cert(lo) <= epsilon {
        hi = lo;
        lo *= shrink;
    }
    while hi - lo > hi * rel_tol {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if cert(mid) <= epsilon {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// `x` rounded up to the next representable double (identity for ±∞ and 0). Used after
/// transcendental functions (ln, exp, sqrt), whose results are not correctly rounded.
#[inline]
pub fn up(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        x
    } else {
        x.next_up()
    }
}

/// a + b rounded upward: exact sums stay exact, inexact ones go to the next double up
/// (error-free transformation TwoSum).
#[inline]
pub fn add_up(a: f64, b: f64) -> f64 {
    let s = a + b;
    if !s.is_finite() {
        return s;
    }
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    if err > 0.0 {
        s.next_up()
    } else {
        s
    }
}

/// a · b rounded upward (exactness checked with a fused multiply-add).
#[inline]
pub fn mul_up(a: f64, b: f64) -> f64 {
    let p = a * b;
    if !p.is_finite() {
        return p;
    }
    if a.mul_add(b, -p) > 0.0 {
        p.next_up()
    } else {
        p
    }
}

/// a / b rounded upward, for b > 0.
#[inline]
pub fn div_up(a: f64, b: f64) -> f64 {
    let q = a / b;
    if !q.is_finite() {
        return q;
    }
    // q·b − a < 0 exactly means q is below the true quotient.
    if q.mul_add(b, -a) < 0.0 {
        q.next_up()
    } else {
        q
    }
}

/// The value calibrations aim at for a budget `epsilon`: relative 1e-9 below it,
/// so that the ledger's upward rounding never refuses an exact split.
pub fn calibration_target(epsilon: f64) -> f64 {
    epsilon * (1.0 - 1e-9)
}

/// Basic composition of (ε_i, δ_i), rounded up.
pub fn basic_composition(costs: &[(f64, f64)]) -> (f64, f64) {
    let mut e = 0.0;
    let mut d = 0.0;
    for &(ei, di) in costs {
        e = add_up(e, ei);
        d = add_up(d, di);
    }
    (e, d)
}

/// Advanced composition (Zhao et al. Lemma 1(1), Dwork–Rothblum–Vadhan):
/// k-fold adaptive composition of (ε₀, δ₀)-DP mechanisms is
/// (√(2k ln(1/δ'))·ε₀ + k·ε₀·(e^{ε₀} − 1), k·δ₀ + δ')-DP. Rounded up.
pub fn advanced_composition(k: usize, eps0: f64, delta0: f64, delta_slack: f64) -> (f64, f64) {
    let k = k as f64;
    let a = mul_up(up(mul_up(2.0 * k, up(-delta_slack.ln())).sqrt()), eps0);
    let b = mul_up(mul_up(k, eps0), up(eps0.exp_m1()));
    (add_up(a, b), add_up(mul_up(k, delta0), delta_slack))
}

/// Per-step ε of Hu et al. Lemma 2 (spec B.3): ε' = ε / (2√(2T ln(2/δ))). T pure ε'-DP
/// steps compose by [`advanced_composition`] (slack δ) to at most ε for ε ≤ 1.
pub fn hu_advanced_per_step_epsilon(epsilon: f64, steps: usize, delta: f64) -> f64 {
    epsilon / (2.0 * (2.0 * steps as f64 * (2.0 / delta).ln()).sqrt())
}

/// ε-DP ⇒ (ε²/2)-zCDP (Zhao et al. Lemma 1(3)). Rounded up.
pub fn pure_to_zcdp(epsilon: f64) -> f64 {
    mul_up(epsilon, epsilon) / 2.0
}

/// ε-bounded-range ⇒ (ε²/8)-zCDP (Cesar & Rogers 2021, Lemma 3.2). Rounded up.
///
/// A mechanism is ε-bounded-range when, for every pair of neighbours D, D′, the privacy
/// loss ln(P(r|D)/P(r|D′)) over its outputs r lies in an interval of width ε. The
/// exponential mechanism P(r) ∝ exp(ε·u_r/(2Δ_u)) is: the loss of r is
/// ε(u_r(D) − u_r(D′))/(2Δ_u) minus the log of the normalisers' ratio, which is common to
/// every r, and the first term lies in [−ε/2, ε/2] (Durfee & Rogers 2019). The exact
/// sampler of [`crate::mechanisms::ExponentialMechanism`] keeps this: its integer scores
/// move by at most widened(Δ_u)/g units and λ = ε·g/(2·widened(Δ_u)) is rounded down.
/// A mechanism that is only ε-DP (randomised response, Laplace) is 2ε-bounded-range and
/// must be charged [`pure_to_zcdp`] instead.
pub fn bounded_range_to_zcdp(epsilon: f64) -> f64 {
    mul_up(epsilon, epsilon) / 8.0
}

/// ρ-zCDP ⇒ (ρ + 2√(ρ ln(1/δ)), δ)-DP (Zhao et al. Lemma 1(4)). Returns ε, rounded up.
/// δ = 0 gives ε = ∞ (zCDP does not imply pure DP).
pub fn zcdp_to_approx(rho: f64, delta: f64) -> f64 {
    if rho == 0.0 {
        return 0.0;
    }
    if delta <= 0.0 {
        return f64::INFINITY;
    }
    let l = up(-delta.ln());
    add_up(rho, 2.0 * up(mul_up(rho, l).sqrt()))
}

/// The largest ρ with ρ + 2√(ρ ln(1/δ)) ≤ ε (the exact inverse of [`zcdp_to_approx`]):
/// √ρ = √(ln(1/δ) + ε) − √(ln(1/δ)). Rounded *down* (a calibration, not a charge).
pub fn approx_to_zcdp_rho(epsilon: f64, delta: f64) -> f64 {
    if epsilon.is_infinite() {
        return f64::INFINITY;
    }
    let l = -delta.ln();
    // Stable difference of square roots: ε / (√(l+ε) + √l).
    let r = epsilon / ((l + epsilon).sqrt() + l.sqrt());
    (r * r).next_down()
}

/// Zhao et al. eq. (15): ρ = ε² / (1 + 2√(ln(1/δ)))², which guarantees (ε, δ)-DP for ε ≤ 1.
pub fn zhao_rho_eq15(epsilon: f64, delta: f64) -> f64 {
    let den = 1.0 + 2.0 * (-delta.ln()).sqrt();
    epsilon * epsilon / (den * den)
}

/// The Gaussian mechanism N(0, σ²I) on a query of ℓ2-sensitivity Δ is Δ²/(2σ²)-zCDP
/// (Zhao et al. Lemma 2). Rounded up. σ = 0 gives ∞.
pub fn gaussian_zcdp_rho(sensitivity: f64, sigma: f64) -> f64 {
    if sigma == 0.0 {
        return f64::INFINITY;
    }
    // denominator 2σ² rounded down (so the quotient is an upper bound)
    let s2 = sigma * sigma;
    let s2_down = if sigma.mul_add(sigma, -s2) < 0.0 {
        s2.next_down()
    } else {
        s2
    };
    div_up(mul_up(sensitivity, sensitivity), 2.0 * s2_down)
}

/// `x` lowered by a relative 16·2⁻⁵² (at least one ulp): the rounding-down of a
/// calibration computed with a handful of floating-point operations. Identity for 0 and ±∞.
#[inline]
fn down_rel(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let y = x - x.abs() * (16.0 * f64::EPSILON);
    if y < x {
        y
    } else {
        x.next_down()
    }
}

/// a / b rounded downward, for b > 0.
#[inline]
fn div_down(a: f64, b: f64) -> f64 {
    let q = a / b;
    if !q.is_finite() {
        return q;
    }
    // q·b − a > 0 exactly means q is above the true quotient.
    if q.mul_add(b, -a) > 0.0 {
        q.next_down()
    } else {
        q
    }
}

/// Which rule turns a target (ε, δ) into a zCDP parameter ρ ([`zhao_target_rho`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RhoRule {
    /// Zhao et al. eq. (15), ρ = ε²/(1 + 2√(ln(1/δ)))², valid for ε ≤ 1 (Theorem 3);
    /// falls back to [`RhoRule::Exact`] when ε > 1 (spec Z14).
    Eq15,
    /// The exact inversion of Lemma 1(4): the largest ρ with ρ + 2√(ρ ln(1/δ)) ≤ ε.
    Exact,
}

impl RhoRule {
    /// The parameter value (`eq15` / `exact`).
    pub fn name(self) -> &'static str {
        match self {
            RhoRule::Eq15 => "eq15",
            RhoRule::Exact => "exact",
        }
    }
}

/// The zCDP parameter ρ that certifies a target (ε, δ) through Lemma 1(4) of Zhao et al.
/// (ρ-zCDP ⇒ (ρ + 2√(ρ ln(1/δ)), δ)-DP): eq. (15) for ε ≤ 1 with [`RhoRule::Eq15`]
/// (Theorem 3), the exact inversion [`approx_to_zcdp_rho`] otherwise (spec Z14).
/// A calibration: computed at [`calibration_target`]`(ε)` and rounded down, so that a
/// ledger charging the resulting Gaussian mechanism never exceeds ε. ε = ∞ gives ∞.
/// Needs δ ∈ (0, 1).
pub fn zhao_target_rho(epsilon: f64, delta: f64, rule: RhoRule) -> f64 {
    if epsilon.is_infinite() {
        return f64::INFINITY;
    }
    let target = calibration_target(epsilon);
    match rule {
        RhoRule::Eq15 if epsilon <= 1.0 => down_rel(zhao_rho_eq15(target, delta)),
        _ => approx_to_zcdp_rho(target, delta),
    }
}

/// Zhao et al. eq. (24), the per-group ρ of Theorem 6 (paper's shuffle-amplified mode):
/// ρ = ε² k / (64 e⁴ ln(8/δ) (1 + 2√(ln(12k/δ)))²). A calibration, rounded down.
/// ε = ∞ gives ∞.
pub fn zhao_rho_eq24(epsilon: f64, delta: f64, k: usize) -> f64 {
    if epsilon.is_infinite() {
        return f64::INFINITY;
    }
    let k = k as f64;
    let e4 = 4.0f64.exp();
    let l8 = (8.0 / delta).ln();
    let a = 1.0 + 2.0 * (12.0 * k / delta).ln().sqrt();
    down_rel(epsilon * epsilon * k / (64.0 * e4 * l8 * a * a))
}

/// Zhao et al. eq. (32): the per-step budget (ε₀, δ₀) = (ε / (2√(2T ln(2/δ))), δ/(2T))
/// of T adaptively composed steps, which by advanced composition (Lemma 1(1), slack δ/2)
/// are (ε, δ)-DP for ε ≤ 1 (spec §1: the first term is ε/2, the second at most
/// (e − 1)ε²/(8 ln(2/δ)) ≤ ε/2). Both rounded down (calibrations). ε = ∞ gives (∞, δ/(2T)).
pub fn zhao_per_step_eq32(epsilon: f64, delta: f64, steps: usize) -> (f64, f64) {
    let t = steps as f64;
    let delta0 = div_down(delta, 2.0 * t);
    if epsilon.is_infinite() {
        return (f64::INFINITY, delta0);
    }
    let eps0 = down_rel(epsilon / (2.0 * (2.0 * t * (2.0 / delta).ln()).sqrt()));
    (eps0, delta0)
}

/// Privacy amplification by shuffling, Zhao et al. (79)–(80) (Feldman, McMillan &
/// Talwar, Theorem III.8): k reports of (ε₀, δ₀)-DP local randomizers, shuffled, are
/// (ε_g, δ_g)-DP with slack δ' ∈ (0, 1):
///
/// ε_g = min{ ln[1 + ((e^{ε₀} − 1)/(e^{ε₀} + 1))·(8√(e^{ε₀} ln(4/δ'))/√k + 8e^{ε₀}/k)], ε₀ },
/// δ_g = δ' + (e^{ε_g} + 1)(1 + e^{−ε₀}/2)·k·δ₀.
///
/// The second term inside the bracket is 8e^{ε₀}/k as in FMT and the proof's (84), not the
/// printed 8e^{ε₀}/√k (spec Z4). FMT state the bound for ε₀ ≤ ln(k/(16 ln(2/δ'))) only;
/// this function evaluates the formula and leaves range checks to
/// [`zhao_shuffle_preconditions`]. A certified value: rounded up.
pub fn shuffle_amplification(eps0: f64, delta0: f64, k: usize, delta_prime: f64) -> (f64, f64) {
    let kf = k as f64;
    let e_up = up(eps0.exp());
    let e_down = eps0.exp().next_down();
    // (e^{ε₀} − 1)/(e^{ε₀} + 1), numerator up, denominator down
    let t = div_up(up(eps0.exp_m1()), (e_down + 1.0).next_down());
    let l4 = up((4.0 / delta_prime).ln());
    let sqrt_k_down = kf.sqrt().next_down();
    let a = div_up(mul_up(8.0, up(mul_up(e_up, l4).sqrt())), sqrt_k_down);
    let b = div_up(mul_up(8.0, e_up), kf);
    let inner = mul_up(t, add_up(a, b));
    let eps_g = up(inner.ln_1p()).min(eps0);
    let em = up((-eps0).exp());
    let f1 = add_up(up(eps_g.exp()), 1.0);
    let f2 = add_up(1.0, em / 2.0);
    let delta_g = add_up(delta_prime, mul_up(mul_up(f1, f2), mul_up(kf, delta0)));
    (eps_g, delta_g)
}

/// Whether Theorem 6 of Zhao et al. (the shuffle-amplified guarantee of the iterative
/// updating estimator with ρ of eq. (24)) may be invoked for a target (ε, δ) and k groups.
/// Checks, in order, and names the first that fails:
///
/// 1. the stated range ε ≤ 8e²√(ln(4/δ)/k);
/// 2. ε₀ ≤ 1 for the local guarantee ε₀ = ρ + 2√(ρ ln(1/δ₀)), ρ of (24), δ₀ = δ/(12k)
///    (the range does not imply it exactly, spec §4.3 Reviewed, Z5);
/// 3. FMT's range ε₀ ≤ ln(k/(16 ln(4/δ'))) with δ' = δ/2 (spec §4.1(c));
/// 4. the amplified (ε_g, δ_g) of [`shuffle_amplification`]`(ε₀, δ₀, k, δ/2)` is within
///    (ε, δ) (the numeric certificate of the proof's last step).
///
/// Passing these checks does not close the gap Z7 (the group means are not local
/// randomizers w.r.t. a whole group's change); callers must label the guarantee as
/// relying on Theorem 6. Errors are about the public (ε, δ, k) only.
pub fn zhao_shuffle_preconditions(epsilon: f64, delta: f64, k: usize) -> Result<(), String> {
    if !(epsilon.is_finite() && epsilon > 0.0) {
        return Err(format!(
            "Theorem 6 needs a finite epsilon > 0, got {epsilon}"
        ));
    }
    if !(delta > 0.0 && delta < 1.0) {
        return Err(format!("Theorem 6 needs delta in (0, 1), got {delta}"));
    }
    if k == 0 {
        return Err("Theorem 6 needs k >= 1 groups".into());
    }
    let kf = k as f64;
    let range = 8.0 * 2.0f64.exp() * ((4.0 / delta).ln() / kf).sqrt();
    if epsilon > range {
        return Err(format!(
            "Theorem 6's range epsilon <= 8 e^2 sqrt(ln(4/delta)/k) = {range:.6} fails for epsilon = {epsilon}, delta = {delta}, k = {k}"
        ));
    }
    let rho = zhao_rho_eq24(epsilon, delta, k);
    let delta0 = div_down(delta, 12.0 * kf);
    let eps0 = zcdp_to_approx(rho, delta0);
    if eps0 > 1.0 {
        return Err(format!(
            "the local guarantee epsilon_0 = rho + 2 sqrt(rho ln(12k/delta)) = {eps0:.6} exceeds 1 (Theorem 6 needs epsilon_0 <= 1; k = {k})"
        ));
    }
    let delta_prime = delta / 2.0;
    let fmt = (kf / (16.0 * (4.0 / delta_prime).ln())).ln();
    if eps0 > fmt {
        return Err(format!(
            "amplification by shuffling (Feldman-McMillan-Talwar Thm III.8) needs epsilon_0 <= ln(k/(16 ln(4/delta'))) = {fmt:.6} with delta' = delta/2, but epsilon_0 = {eps0:.6} (k = {k}; this range needs k of a few hundred or more)"
        ));
    }
    let (eg, dg) = shuffle_amplification(eps0, delta0, k, delta_prime);
    if eg > epsilon || dg > delta {
        return Err(format!(
            "the amplified guarantee (79)-(80) is ({eg:.6}, {dg:.3e}), outside the budget ({epsilon}, {delta:e})"
        ));
    }
    Ok(())
}

/// One line of the ledger: a release label, its per-invocation cost, and how many
/// consecutive invocations with that label and cost were charged.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LedgerEntry {
    pub release: String,
    pub cost: Cost,
    pub count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunk: Option<usize>,
}

/// What a fit spent, as written into the model file's `privacy` object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PrivacySpent {
    /// The privacy model of the guarantee (`pure`, `approx`, `zcdp`, `none`).
    pub model: PrivacyModel,
    /// Total ε actually certified (rounded up); `null` in JSON when non-private.
    pub epsilon: f64,
    /// Total δ actually certified.
    pub delta: f64,
    /// Total ρ when the accountant is zCDP.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rho: Option<f64>,
    /// The budget the user gave.
    pub budget_epsilon: f64,
    pub budget_delta: f64,
    /// How the charges were composed.
    pub accountant: &'static str,
    /// Number of mechanism invocations charged.
    pub releases: usize,
    /// The charges, consecutive identical ones merged.
    pub ledger: Vec<LedgerEntry>,
}

/// The one place privacy is spent. See the module documentation.
#[derive(Debug, Clone)]
pub struct PrivacyLedger {
    budget: Budget,
    accountant: Accountant,
    entries: Vec<LedgerEntry>,
    releases: usize,
    // running totals (all rounded up)
    sum_eps: f64,
    sum_delta: f64,
    sum_rho: f64,
    max_eps: f64,
    max_delta: f64,
    /// Parallel accountant: the basic sum of the whole-data charges (they touch every chunk).
    whole_data: (f64, f64),
    /// Parallel accountant: the basic sum of each chunk's *own* charges; the chunk's
    /// total is `whole_data` + its own sum.
    chunk_totals: Vec<(f64, f64)>,
}

impl PrivacyLedger {
    /// A ledger for `budget`, composing with `accountant`.
    pub fn new(budget: Budget, accountant: Accountant) -> Self {
        PrivacyLedger {
            budget,
            accountant,
            entries: Vec::new(),
            releases: 0,
            sum_eps: 0.0,
            sum_delta: 0.0,
            sum_rho: 0.0,
            max_eps: 0.0,
            max_delta: 0.0,
            whole_data: (0.0, 0.0),
            chunk_totals: Vec::new(),
        }
    }

    /// The budget this ledger enforces.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// The accountant this ledger uses.
    pub fn accountant(&self) -> Accountant {
        self.accountant
    }

    /// Total (ε, δ) spent so far (rounded up).
    pub fn spent(&self) -> (f64, f64) {
        self.totals_with(None).unwrap_or((f64::INFINITY, 1.0))
    }

    fn totals_with(
        &self,
        extra: Option<(Cost, Option<usize>)>,
    ) -> Result<(f64, f64), PrivacyError> {
        let mut sum_eps = self.sum_eps;
        let mut sum_delta = self.sum_delta;
        let mut sum_rho = self.sum_rho;
        let mut max_eps = self.max_eps;
        let mut max_delta = self.max_delta;
        let mut k = self.releases;
        // Parallel accountant: every chunk carries every whole-data charge, in whatever
        // order the charges come (a whole-data release reads every chunk's records;
        // docs/privacy.md §8), so a chunk's total is whole_data + its own charges; chunks
        // never charged on their own carry whole_data alone.
        let chunk_total =
            |whole: (f64, f64), own: (f64, f64)| (add_up(whole.0, own.0), add_up(whole.1, own.1));
        let mut whole = self.whole_data;
        // (chunk index, its own total after the extra charge)
        let mut charged: Option<(usize, (f64, f64))> = None;
        if let Some((cost, chunk)) = extra {
            k += 1;
            match (self.accountant, cost) {
                (Accountant::Zcdp, Cost::Pure { epsilon }) => {
                    sum_rho = add_up(sum_rho, pure_to_zcdp(epsilon))
                }
                (Accountant::Zcdp, Cost::Zcdp { rho }) => sum_rho = add_up(sum_rho, rho),
                (Accountant::Zcdp, c) => {
                    return Err(PrivacyError::IncompatibleCost {
                        accountant: "zcdp",
                        cost: c.kind(),
                    })
                }
                (Accountant::Parallel, c) => {
                    let (e, d) = match c {
                        Cost::Pure { epsilon } => (epsilon, 0.0),
                        Cost::Approx { epsilon, delta } => (epsilon, delta),
                        Cost::Zcdp { .. } => {
                            return Err(PrivacyError::IncompatibleCost {
                                accountant: "parallel",
                                cost: "zcdp",
                            })
                        }
                    };
                    match chunk {
                        None => whole = (add_up(whole.0, e), add_up(whole.1, d)),
                        Some(i) => {
                            let o = self.chunk_totals.get(i).copied().unwrap_or((0.0, 0.0));
                            charged = Some((i, (add_up(o.0, e), add_up(o.1, d))));
                        }
                    }
                }
                (_, Cost::Pure { epsilon }) => {
                    sum_eps = add_up(sum_eps, epsilon);
                    max_eps = max_eps.max(epsilon);
                }
                (_, Cost::Approx { epsilon, delta }) => {
                    sum_eps = add_up(sum_eps, epsilon);
                    sum_delta = add_up(sum_delta, delta);
                    max_eps = max_eps.max(epsilon);
                    max_delta = max_delta.max(delta);
                }
                (acc, Cost::Zcdp { .. }) => {
                    return Err(PrivacyError::IncompatibleCost {
                        accountant: acc.name(),
                        cost: "zcdp",
                    })
                }
            }
        }
        Ok(match self.accountant {
            Accountant::Basic => (sum_eps, sum_delta),
            Accountant::Zcdp => (
                zcdp_to_approx(sum_rho, self.budget.delta),
                if sum_rho > 0.0 {
                    self.budget.delta
                } else {
                    0.0
                },
            ),
            Accountant::Advanced { delta_slack } => {
                if k == 0 {
                    (0.0, 0.0)
                } else {
                    let (ae, ad) = advanced_composition(k, max_eps, max_delta, delta_slack);
                    if ae < sum_eps {
                        (ae, ad)
                    } else {
                        (sum_eps, sum_delta)
                    }
                }
            }
            Accountant::Parallel => {
                let max = |a: (f64, f64), b: (f64, f64)| (a.0.max(b.0), a.1.max(b.1));
                let mut total = self
                    .chunk_totals
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| charged.is_none_or(|(c, _)| c != *i))
                    .map(|(_, &o)| chunk_total(whole, o))
                    .fold(whole, max);
                if let Some((_, o)) = charged {
                    total = max(total, chunk_total(whole, o));
                }
                total
            }
        })
    }

    /// Charges `cost` for the release `release` (on the whole data set). Refuses, and
    /// changes nothing, when the total would exceed the budget.
    pub fn charge(&mut self, release: &str, cost: Cost) -> Result<(), PrivacyError> {
        self.charge_inner(release, cost, None)
    }

    /// Charges `cost` for a release that reads only the disjoint data chunk `chunk`
    /// (parallel composition; only meaningful with [`Accountant::Parallel`], where a
    /// plain [`PrivacyLedger::charge`] counts against every chunk).
    pub fn charge_on_chunk(
        &mut self,
        release: &str,
        chunk: usize,
        cost: Cost,
    ) -> Result<(), PrivacyError> {
        self.charge_inner(release, cost, Some(chunk))
    }

    fn charge_inner(
        &mut self,
        release: &str,
        cost: Cost,
        chunk: Option<usize>,
    ) -> Result<(), PrivacyError> {
        cost.check(self.budget)
            .map_err(|reason| PrivacyError::InvalidCost {
                release: release.to_string(),
                reason,
            })?;
        let (e, d) = self.totals_with(Some((cost, chunk)))?;
        // written so that a NaN total refuses
        if !(e <= self.budget.epsilon && d <= self.budget.delta) {
            return Err(PrivacyError::BudgetExceeded {
                release: release.to_string(),
                would_epsilon: e,
                would_delta: d,
                budget_epsilon: self.budget.epsilon,
                budget_delta: self.budget.delta,
            });
        }
        // Commit.
        self.releases += 1;
        match (self.accountant, cost) {
            (Accountant::Zcdp, Cost::Pure { epsilon }) => {
                self.sum_rho = add_up(self.sum_rho, pure_to_zcdp(epsilon))
            }
            (Accountant::Zcdp, Cost::Zcdp { rho }) => self.sum_rho = add_up(self.sum_rho, rho),
            (Accountant::Parallel, c) => {
                let (ce, cd) = match c {
                    Cost::Pure { epsilon } => (epsilon, 0.0),
                    Cost::Approx { epsilon, delta } => (epsilon, delta),
                    Cost::Zcdp { .. } => unreachable!("rejected by totals_with"),
                };
                match chunk {
                    Some(i) => {
                        if self.chunk_totals.len() <= i {
                            self.chunk_totals.resize(i + 1, (0.0, 0.0));
                        }
                        let t = &mut self.chunk_totals[i];
                        *t = (add_up(t.0, ce), add_up(t.1, cd));
                    }
                    None => {
                        let w = &mut self.whole_data;
                        *w = (add_up(w.0, ce), add_up(w.1, cd));
                    }
                }
            }
            (_, Cost::Pure { epsilon }) => {
                self.sum_eps = add_up(self.sum_eps, epsilon);
                self.max_eps = self.max_eps.max(epsilon);
            }
            (_, Cost::Approx { epsilon, delta }) => {
                self.sum_eps = add_up(self.sum_eps, epsilon);
                self.sum_delta = add_up(self.sum_delta, delta);
                self.max_eps = self.max_eps.max(epsilon);
                self.max_delta = self.max_delta.max(delta);
            }
            (_, Cost::Zcdp { .. }) => unreachable!("rejected by totals_with"),
        }
        match self.entries.last_mut() {
            Some(last)
                if last.release == release
                    && last.cost == cost
                    && last.chunk.is_none()
                    && chunk.is_none() =>
            {
                last.count += 1
            }
            _ => self.entries.push(LedgerEntry {
                release: release.to_string(),
                cost,
                count: 1,
                chunk,
            }),
        }
        Ok(())
    }

    /// Number of mechanism invocations charged so far.
    pub fn releases(&self) -> usize {
        self.releases
    }

    /// The summary written into model files. `model` is the algorithm's privacy model.
    pub fn summary(&self, model: PrivacyModel) -> PrivacySpent {
        let (mut epsilon, mut delta) = self.spent();
        let model = if self.budget.is_non_private() || model == PrivacyModel::None {
            // No guarantee: report epsilon = infinity (null in JSON).
            epsilon = f64::INFINITY;
            delta = 0.0;
            PrivacyModel::None
        } else {
            model
        };
        let mut entries = self.entries.clone();
        // Keep model files small: merge chunk entries with identical label and cost.
        if entries.len() > 64 {
            let mut merged: Vec<LedgerEntry> = Vec::new();
            for e in entries {
                match merged
                    .iter_mut()
                    .find(|m| m.release == e.release && m.cost == e.cost)
                {
                    Some(m) => {
                        m.count += e.count;
                        m.chunk = None;
                    }
                    None => merged.push(LedgerEntry { chunk: None, ..e }),
                }
            }
            entries = merged;
        }
        PrivacySpent {
            model,
            epsilon,
            delta,
            rho: match self.accountant {
                Accountant::Zcdp => Some(self.sum_rho),
                _ => None,
            },
            budget_epsilon: self.budget.epsilon,
            budget_delta: self.budget.delta,
            accountant: self.accountant.name(),
            releases: self.releases,
            ledger: entries,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Negative, NaN and infinite costs are refused by every accountant, and the ledger
    /// is unchanged afterwards: a later valid charge is refused exactly when it would be
    /// without the bad one (guarantee 2 of docs/privacy.md).
    #[test]
    fn bad_costs_are_refused_and_change_nothing() {
        let bad = [
            Cost::Pure { epsilon: -5.0 },
            Cost::Pure { epsilon: f64::NAN },
            Cost::Pure {
                epsilon: f64::INFINITY,
            },
            Cost::Pure {
                epsilon: f64::NEG_INFINITY,
            },
            Cost::Approx {
                epsilon: 0.1,
                delta: -1e-6,
            },
            Cost::Approx {
                epsilon: 0.1,
                delta: f64::NAN,
            },
            Cost::Approx {
                epsilon: 0.1,
                delta: 1.0,
            },
            Cost::Approx {
                epsilon: f64::NAN,
                delta: 1e-9,
            },
            Cost::Approx {
                epsilon: -1.0,
                delta: 1e-9,
            },
            Cost::Zcdp { rho: -0.5 },
            Cost::Zcdp { rho: f64::NAN },
            Cost::Zcdp { rho: f64::INFINITY },
        ];
        let accountants = [
            Accountant::Basic,
            Accountant::Zcdp,
            Accountant::Advanced { delta_slack: 1e-9 },
            Accountant::Parallel,
        ];
        for acc in accountants {
            for cost in bad {
                let mut l = PrivacyLedger::new(Budget::new(1.0, 1e-6).unwrap(), acc);
                l.charge("first", Cost::Pure { epsilon: 0.01 }).unwrap();
                let before = (l.spent(), l.releases(), l.summary(PrivacyModel::Pure));
                let r = l.charge("bad", cost);
                assert!(
                    matches!(r, Err(PrivacyError::InvalidCost { .. })),
                    "{acc:?} {cost:?}: {r:?}"
                );
                assert!(
                    l.charge_on_chunk("bad", 0, cost).is_err(),
                    "{acc:?} {cost:?}"
                );
                let after = (l.spent(), l.releases(), l.summary(PrivacyModel::Pure));
                assert_eq!(
                    format!("{before:?}"),
                    format!("{after:?}"),
                    "{acc:?} {cost:?}"
                );
                // the budget still refuses what it refused before
                assert!(l.charge("more", Cost::Pure { epsilon: 1.0 }).is_err());
                let (e, _) = l.spent();
                assert!(e <= 1.0, "{acc:?} {cost:?}: {e}");
            }
        }
        // under the non-private budget a noiseless mechanism costs epsilon = inf
        let mut l = PrivacyLedger::new(Budget::non_private(), Accountant::Basic);
        l.charge(
            "noiseless",
            Cost::Pure {
                epsilon: f64::INFINITY,
            },
        )
        .unwrap();
        assert!(l.charge("nan", Cost::Pure { epsilon: f64::NAN }).is_err());
        assert!(l.charge("neg", Cost::Pure { epsilon: -1.0 }).is_err());
    }

    /// Five negative charges cannot refund a budget so that several whole-budget
    /// releases fit (the bypass the check closes).
    #[test]
    fn negative_charges_cannot_refund() {
        let mut l = PrivacyLedger::new(Budget::pure(1.0).unwrap(), Accountant::Basic);
        for _ in 0..5 {
            assert!(l.charge("refund", Cost::Pure { epsilon: -1.0 }).is_err());
        }
        l.charge("mean", Cost::Pure { epsilon: 1.0 }).unwrap();
        assert!(l.charge("mean", Cost::Pure { epsilon: 1.0 }).is_err());
        assert!(l.spent().0 <= 1.0);
    }

    #[test]
    fn budget_validation() {
        assert!(Budget::new(1.0, 1e-5).is_ok());
        assert!(Budget::new(f64::INFINITY, 0.0).is_ok());
        assert_eq!(
            Budget::new(0.0, 0.0),
            Err(PrivacyError::InvalidEpsilon(0.0))
        );
        assert_eq!(
            Budget::new(-1.0, 0.0),
            Err(PrivacyError::InvalidEpsilon(-1.0))
        );
        assert!(matches!(
            Budget::new(f64::NAN, 0.0),
            Err(PrivacyError::InvalidEpsilon(_))
        ));
        assert_eq!(Budget::new(1.0, 1.0), Err(PrivacyError::InvalidDelta(1.0)));
        assert_eq!(
            Budget::new(1.0, -0.1),
            Err(PrivacyError::InvalidDelta(-0.1))
        );
    }

    #[test]
    fn zcdp_conversion_hand_calculation() {
        // rho = 0.5, delta = e^-2: eps = 0.5 + 2 sqrt(0.5 * 2) = 2.5
        let e = zcdp_to_approx(0.5, (-2.0f64).exp());
        assert!((e - 2.5).abs() < 1e-12 && e >= 2.5 - 1e-15);
        // inverse
        let r = approx_to_zcdp_rho(2.5, (-2.0f64).exp());
        assert!((r - 0.5).abs() < 1e-12 && r <= 0.5);
        assert_eq!(pure_to_zcdp(2.0), 2.0);
        // bounded range: a quarter of the pure conversion (fails if ε is halved or the
        // pure conversion is used)
        assert_eq!(bounded_range_to_zcdp(2.0), 0.5);
        assert_eq!(bounded_range_to_zcdp(0.3), mul_up(0.3, 0.3) / 8.0);
        assert!(bounded_range_to_zcdp(0.3) >= 0.3 * 0.3 / 8.0);
        // eq. (15): eps = 1, delta = e^-4: rho = 1/(1+4)^2 = 0.04
        assert!((zhao_rho_eq15(1.0, (-4.0f64).exp()) - 0.04).abs() < 1e-15);
        // and eq. (15) is indeed (1, delta)-DP through Lemma 1(4)
        assert!(zcdp_to_approx(0.04, (-4.0f64).exp()) <= 1.0);
        // Gaussian: Delta = 2, sigma = 2 => rho = 4/8 = 0.5
        assert!((gaussian_zcdp_rho(2.0, 2.0) - 0.5).abs() < 1e-15);
    }

    #[test]
    fn advanced_composition_hand_calculation() {
        // k = 100, eps0 = 0.01, delta' = e^-5: sqrt(2*100*5)*0.01 + 100*0.01*(e^0.01 - 1)
        let (e, d) = advanced_composition(100, 0.01, 1e-7, (-5.0f64).exp());
        let expect = (1000.0f64).sqrt() * 0.01 + 1.0 * (0.01f64).exp_m1();
        assert!(e >= expect && (e - expect) < 1e-12, "{e} vs {expect}");
        assert!((d - (1e-5 + (-5.0f64).exp())).abs() < 1e-15);
        // Hu's per-step epsilon composes to at most epsilon (for eps <= 1)
        for &(eps, t, delta) in &[(1.0, 40, 1e-5), (0.5, 100, 1e-6), (1.0, 10, 1e-3)] {
            let e0 = hu_advanced_per_step_epsilon(eps, t, delta);
            let (tot, _) = advanced_composition(t, e0, 0.0, delta);
            assert!(tot <= eps, "{tot} > {eps}");
        }
    }

    #[test]
    fn ledger_refuses_overspend_and_changes_nothing() {
        let mut l = PrivacyLedger::new(Budget::pure(1.0).unwrap(), Accountant::Basic);
        l.charge("a", Cost::Pure { epsilon: 0.6 }).unwrap();
        let before = l.spent();
        let err = l.charge("b", Cost::Pure { epsilon: 0.6 }).unwrap_err();
        assert!(matches!(err, PrivacyError::BudgetExceeded { .. }));
        assert_eq!(l.spent(), before);
        assert_eq!(l.releases(), 1);
        l.charge("c", Cost::Pure { epsilon: 0.3 }).unwrap();
        assert!(l.spent().0 >= 0.9);
    }

    #[test]
    fn directed_rounding_helpers() {
        assert_eq!(add_up(1.0, 2.0), 3.0);
        assert_eq!(add_up(0.5, 0.5), 1.0);
        // 0.1 + 0.2 is inexact: the upward result must be >= the true sum 0.3000000000000000166...
        assert!(add_up(0.1, 0.2) >= 0.1 + 0.2);
        assert_eq!(mul_up(3.0, 0.5), 1.5);
        assert!(mul_up(0.1, 3.0) >= 0.1 * 3.0);
        assert_eq!(div_up(1.0, 4.0), 0.25);
        let q = div_up(1.0, 3.0);
        assert!(q.mul_add(3.0, -1.0) >= 0.0);
    }

    #[test]
    fn ledger_rounds_up_never_below_exact_sum() {
        let mut l = PrivacyLedger::new(Budget::pure(10.0).unwrap(), Accountant::Basic);
        for _ in 0..10 {
            l.charge("x", Cost::Pure { epsilon: 0.1 }).unwrap();
        }
        // 0.1 summed ten times in round-to-nearest gives 0.9999999999999999; we must not report less than 1.
        assert!(l.spent().0 >= 1.0);
        assert_eq!(l.summary(PrivacyModel::Pure).ledger.len(), 1);
        assert_eq!(l.summary(PrivacyModel::Pure).ledger[0].count, 10);
    }

    #[test]
    fn ledger_zcdp_accountant() {
        let delta = 1e-6;
        let rho = approx_to_zcdp_rho(calibration_target(1.0), delta);
        let mut l = PrivacyLedger::new(Budget::new(1.0, delta).unwrap(), Accountant::Zcdp);
        let per = rho / 10.0;
        for _ in 0..10 {
            l.charge(
                "g",
                Cost::Zcdp {
                    rho: per * (1.0 - 1e-12),
                },
            )
            .unwrap();
        }
        let (e, d) = l.spent();
        assert!(e <= 1.0 && e > 0.999, "{e}");
        assert_eq!(d, delta);
        assert!(l.charge("g", Cost::Zcdp { rho: per }).is_err());
        // approx charges are not composable under zCDP
        assert!(matches!(
            l.charge(
                "a",
                Cost::Approx {
                    epsilon: 0.1,
                    delta: 0.0
                }
            ),
            Err(PrivacyError::IncompatibleCost { .. })
        ));
    }

    #[test]
    fn ledger_parallel_accountant_takes_max_over_chunks() {
        let mut l = PrivacyLedger::new(Budget::pure(1.0).unwrap(), Accountant::Parallel);
        for c in 0..50 {
            l.charge_on_chunk("em", c, Cost::Pure { epsilon: 1.0 })
                .unwrap();
        }
        assert_eq!(l.spent(), (1.0, 0.0));
        // a second charge on chunk 3 is over budget
        assert!(l
            .charge_on_chunk("em", 3, Cost::Pure { epsilon: 0.1 })
            .is_err());
        // a whole-data charge is over budget too
        assert!(l.charge("all", Cost::Pure { epsilon: 0.1 }).is_err());
    }

    /// A chunk first charged after a whole-data charge carries it (docs/privacy.md §8).
    #[test]
    fn parallel_whole_then_new_chunk_is_refused() {
        let mut l = PrivacyLedger::new(Budget::pure(1.0).unwrap(), Accountant::Parallel);
        l.charge("all", Cost::Pure { epsilon: 0.6 }).unwrap();
        assert_eq!(l.spent(), (0.6, 0.0));
        let before = l.spent();
        let err = l
            .charge_on_chunk("c3", 3, Cost::Pure { epsilon: 0.6 })
            .unwrap_err();
        match err {
            PrivacyError::BudgetExceeded { would_epsilon, .. } => {
                assert!((1.2..1.2 + 1e-12).contains(&would_epsilon))
            }
            e => panic!("{e:?}"),
        }
        assert_eq!(l.spent(), before);
        // 0.4 fits exactly and the total is then 1.0 on chunk 3
        l.charge_on_chunk("c3", 3, Cost::Pure { epsilon: 0.4 })
            .unwrap();
        assert!((1.0..1.0 + 1e-12).contains(&l.spent().0));
        assert_eq!(l.summary(PrivacyModel::Pure).epsilon, l.spent().0);
    }

    /// Chunk 0, then whole data, then a new chunk 5: chunk 5 starts from the whole-data
    /// charge.
    #[test]
    fn parallel_chunk_whole_new_chunk_is_refused() {
        let mut l = PrivacyLedger::new(Budget::pure(1.0).unwrap(), Accountant::Parallel);
        l.charge_on_chunk("c0", 0, Cost::Pure { epsilon: 0.5 })
            .unwrap();
        l.charge("all", Cost::Pure { epsilon: 0.4 }).unwrap();
        assert!(close_above(l.spent().0, 0.9));
        let err = l
            .charge_on_chunk("c5", 5, Cost::Pure { epsilon: 0.9 })
            .unwrap_err();
        match err {
            PrivacyError::BudgetExceeded { would_epsilon, .. } => {
                assert!(close_above(would_epsilon, 1.3), "{would_epsilon}")
            }
            e => panic!("{e:?}"),
        }
        // chunk 5 can still take 0.6 (0.4 whole + 0.6): the max is then 1.0
        l.charge_on_chunk("c5", 5, Cost::Pure { epsilon: 0.6 })
            .unwrap();
        assert!(close_above(l.spent().0, 1.0));
        // chunk 0 (0.5 + 0.4) can take 0.05 but then not 0.1 more
        l.charge_on_chunk("c0", 0, Cost::Pure { epsilon: 0.05 })
            .unwrap();
        assert!(l
            .charge_on_chunk("c0", 0, Cost::Pure { epsilon: 0.1 })
            .is_err());
    }

    /// The other order (chunks first, whole data last) and δ: the reported total is the
    /// maximum over chunks of whole-data + own.
    #[test]
    fn parallel_chunks_then_whole_and_summary_max() {
        let mut l = PrivacyLedger::new(Budget::new(1.0, 1e-5).unwrap(), Accountant::Parallel);
        l.charge_on_chunk(
            "c1",
            1,
            Cost::Approx {
                epsilon: 0.3,
                delta: 2e-6,
            },
        )
        .unwrap();
        l.charge_on_chunk(
            "c7",
            7,
            Cost::Approx {
                epsilon: 0.5,
                delta: 1e-6,
            },
        )
        .unwrap();
        // whole data 0.6: chunk 7 would reach 1.1
        assert!(l.charge("all", Cost::Pure { epsilon: 0.6 }).is_err());
        l.charge(
            "all",
            Cost::Approx {
                epsilon: 0.25,
                delta: 3e-6,
            },
        )
        .unwrap();
        // max over chunks: ε from chunk 7 (0.75), δ from chunk 1 (5e-6)
        let (e, d) = l.spent();
        assert!(close_above(e, 0.75), "{e}");
        assert!(close_above(d, 5e-6), "{d}");
        // a chunk created now starts from the whole-data 0.25
        l.charge_on_chunk("c9", 9, Cost::Pure { epsilon: 0.7 })
            .unwrap();
        let s = l.summary(PrivacyModel::Approx);
        assert!(close_above(s.epsilon, 0.95), "{}", s.epsilon);
        assert!(close_above(s.delta, 5e-6));
        assert!(l
            .charge_on_chunk("c9", 9, Cost::Pure { epsilon: 0.1 })
            .is_err());
        // chunk 2 (never charged) carries 0.25 + 3e-6 and can take 0.75 but δ only 7e-6
        assert!(l
            .charge_on_chunk(
                "c2",
                2,
                Cost::Approx {
                    epsilon: 0.1,
                    delta: 8e-6
                }
            )
            .is_err());
        l.charge_on_chunk(
            "c2",
            2,
            Cost::Approx {
                epsilon: 0.1,
                delta: 6e-6,
            },
        )
        .unwrap();
        assert!(close_above(l.spent().1, 9e-6));
    }

    /// Whole-data charges only: the total is their basic sum.
    #[test]
    fn parallel_whole_data_only_is_basic_sum() {
        let mut l = PrivacyLedger::new(Budget::pure(1.0).unwrap(), Accountant::Parallel);
        assert_eq!(l.spent(), (0.0, 0.0));
        l.charge("a", Cost::Pure { epsilon: 0.5 }).unwrap();
        l.charge("b", Cost::Pure { epsilon: 0.5 }).unwrap();
        assert_eq!(l.spent(), (1.0, 0.0));
        assert!(l
            .charge_on_chunk("c", 0, Cost::Pure { epsilon: 1e-9 })
            .is_err());
    }

    /// |a − b| ≤ 1e-13·|b| and a on the required side of b.
    fn close_below(a: f64, b: f64) -> bool {
        a <= b && (b - a) <= 1e-13 * b.abs()
    }
    fn close_above(a: f64, b: f64) -> bool {
        a >= b && (a - b) <= 1e-13 * b.abs()
    }

    #[test]
    fn zhao_eq24_hand_calculation() {
        // (ε, δ, k) = (1, 1e-5, 10):
        // ρ = 1·10 / (64 e⁴ ln(8·10⁵) (1 + 2√(ln(1.2·10⁷)))²)
        //   = 10 / (64 · 54.598150033 · 13.592366737 · (1 + 2·4.0847866)²)
        //   = 2.556684775661192e-6 (40-digit arithmetic)
        let r = zhao_rho_eq24(1.0, 1e-5, 10);
        assert!(close_below(r, 2.556684775661192e-6), "{r}");
        // ρ is proportional to ε² k at fixed ln terms: ε = 0.5 gives a quarter
        assert!(close_below(
            zhao_rho_eq24(0.5, 1e-5, 10),
            2.556684775661192e-6 / 4.0
        ));
        assert_eq!(zhao_rho_eq24(f64::INFINITY, 1e-5, 10), f64::INFINITY);
        // eq. (24) vs the conservative eq. (15) at k = 10: ratio ≈ 1.5·10⁻⁴ (spec §4.1 Reviewed (b))
        let ratio = r / zhao_rho_eq15(1.0, 1e-5);
        assert!((1e-4..2e-4).contains(&ratio), "{ratio}");
    }

    #[test]
    fn zhao_eq32_hand_calculation_and_composition() {
        // (ε, δ, T) = (1, 1e-5, 100): ε₀ = 1 / (2√(200 ln(2·10⁵))) = 1/(2√(2441.1...)),
        // = 0.010119685864129023; δ₀ = 10⁻⁵/200 = 5·10⁻⁸.
        let (e0, d0) = zhao_per_step_eq32(1.0, 1e-5, 100);
        assert!(close_below(e0, 0.010119685864129023), "{e0}");
        assert!(d0 <= 5e-8 && d0 > 5e-8 * (1.0 - 1e-15), "{d0}");
        // T (ε₀, δ₀) steps compose to at most (ε, δ) by advanced composition with slack δ/2
        for &eps in &[0.01, 0.1, 0.3, 0.5, 0.75, 0.9, 1.0] {
            for &delta in &[1e-3, 1e-5, 1e-8, 1e-12] {
                for &t in &[1usize, 2, 10, 100, 1000, 100_000] {
                    let (e0, d0) = zhao_per_step_eq32(eps, delta, t);
                    let (te, td) = advanced_composition(t, e0, d0, delta / 2.0);
                    assert!(te <= eps, "eps {eps} delta {delta} T {t}: {te}");
                    assert!(td <= delta, "eps {eps} delta {delta} T {t}: {td}");
                }
            }
        }
        assert_eq!(zhao_per_step_eq32(f64::INFINITY, 1e-5, 4).0, f64::INFINITY);
    }

    #[test]
    fn shuffle_amplification_hand_calculation() {
        // (ε₀, δ₀, k, δ') = (0.5, 1e-8, 1000, 5e-6):
        // t = (e^0.5 − 1)/(e^0.5 + 1) = 0.24491866240370913
        // bracket = 8√(e^0.5 ln(8·10⁵))/√1000 + 8e^0.5/1000 = 1.19373... + 0.013190...
        // ε_g = ln(1 + t·bracket) = 0.2597027125911739 (< ε₀ = 0.5)
        // δ_g = 5e-6 + (e^{ε_g} + 1)(1 + e^{−0.5}/2)·1000·1e-8 = 3.493006933475524e-5
        let (eg, dg) = shuffle_amplification(0.5, 1e-8, 1000, 5e-6);
        assert!(close_above(eg, 0.2597027125911739), "{eg}");
        assert!(close_above(dg, 3.493006933475524e-5), "{dg}");
        // small k: no amplification, ε_g = ε₀
        let (eg, _) = shuffle_amplification(0.5, 1e-8, 10, 5e-6);
        assert_eq!(eg, 0.5);
        // the /k second term (Z4): with /√k the value would be larger
        let kf = 1000f64;
        let t = 0.5f64.exp_m1() / (0.5f64.exp() + 1.0);
        let sqrtk_variant = (1.0
            + t * (8.0 * (0.5f64.exp() * (4.0f64 / 5e-6).ln()).sqrt() / kf.sqrt()
                + 8.0 * 0.5f64.exp() / kf.sqrt()))
        .ln();
        assert!(sqrtk_variant > 0.2597027125911739 + 1e-3);
    }

    #[test]
    fn zhao_target_rho_rules() {
        // ε ≤ 1, eq. (15): (1, 1e-5): ρ = 1/(1 + 2√(ln 10⁵))² = 0.01649512215000531,
        // taken at the calibration target ε(1 − 1e-9): ρ·(1 − 1e-9)²
        let r = zhao_target_rho(1.0, 1e-5, RhoRule::Eq15);
        let want = 0.01649512215000531 * (1.0 - 1e-9f64).powi(2);
        assert!(close_below(r, want), "{r} vs {want}");
        // ε > 1: eq. (15) is not valid; exact inversion
        // (2, 1e-5): ρ* = (√(ln 10⁵ + 2) − √(ln 10⁵))² = 0.08004537534668204
        let r2 = zhao_target_rho(2.0, 1e-5, RhoRule::Eq15);
        assert_eq!(r2, zhao_target_rho(2.0, 1e-5, RhoRule::Exact));
        assert!(r2 <= 0.08004537534668204 && r2 > 0.08004537534668204 * (1.0 - 3e-9));
        // exact ≥ eq. (15) always (the exact inversion is the largest valid ρ)
        for &eps in &[0.1, 0.5, 1.0] {
            for &delta in &[1e-3, 1e-6, 1e-10] {
                let a = zhao_target_rho(eps, delta, RhoRule::Eq15);
                let b = zhao_target_rho(eps, delta, RhoRule::Exact);
                assert!(a <= b);
                // both certify (ε, δ) through Lemma 1(4)
                assert!(zcdp_to_approx(a, delta) <= eps);
                assert!(zcdp_to_approx(b, delta) <= eps);
            }
        }
        assert_eq!(
            zhao_target_rho(f64::INFINITY, 0.0, RhoRule::Eq15),
            f64::INFINITY
        );
    }

    #[test]
    fn lemma_1_4_round_trip() {
        for &eps in &[1e-3, 0.1, 0.5, 1.0, 2.0, 8.0] {
            for &delta in &[0.5, 1e-3, 1e-6, 1e-12] {
                let rho = approx_to_zcdp_rho(eps, delta);
                let back = zcdp_to_approx(rho, delta);
                assert!(back <= eps * (1.0 + 1e-14), "{eps} {delta}: {back}");
                assert!(back >= eps * (1.0 - 1e-12), "{eps} {delta}: {back}");
                // and the other way round
                let rho2 = approx_to_zcdp_rho(zcdp_to_approx(rho, delta), delta);
                assert!((rho2 - rho).abs() <= 1e-12 * rho);
            }
        }
    }

    #[test]
    fn shuffle_preconditions() {
        // k = 10: the FMT range ln(k/(16 ln(4/δ'))) is negative — refused (spec §4.1(c))
        let e = zhao_shuffle_preconditions(1.0, 1e-5, 10).unwrap_err();
        assert!(e.contains("Feldman-McMillan-Talwar"), "{e}");
        // the stated range: ε ≤ 8e²√(ln(4/δ)/k); at k = 10⁵, δ = 1e-5: 8e²·√(12.9/10⁵) = 0.671
        let e = zhao_shuffle_preconditions(1.0, 1e-5, 100_000).unwrap_err();
        assert!(e.contains("range"), "{e}");
        // k = 10⁴, ε = 1, δ = 1e-5: within all ranges
        zhao_shuffle_preconditions(1.0, 1e-5, 10_000).unwrap();
        // bad inputs
        assert!(zhao_shuffle_preconditions(1.0, 0.0, 10_000).is_err());
        assert!(zhao_shuffle_preconditions(f64::INFINITY, 1e-5, 10_000).is_err());
        assert!(zhao_shuffle_preconditions(1.0, 1e-5, 0).is_err());
        // whenever accepted, the amplified guarantee is within budget
        for &k in &[300usize, 1000, 5000, 20_000] {
            for &eps in &[0.1, 0.5, 1.0] {
                let delta = 1e-6;
                if zhao_shuffle_preconditions(eps, delta, k).is_ok() {
                    let rho = zhao_rho_eq24(eps, delta, k);
                    let d0 = delta / (12.0 * k as f64);
                    let e0 = zcdp_to_approx(rho, d0);
                    let (eg, dg) = shuffle_amplification(e0, d0, k, delta / 2.0);
                    assert!(eg <= eps && dg <= delta);
                }
            }
        }
    }

    #[test]
    fn zcdp_ledger_never_reports_less_than_spent() {
        // Charges of ρ/7 seven times: the ledger's ρ and its (ε, δ) are ≥ the exact values.
        let delta = 1e-5;
        let mut l = PrivacyLedger::new(Budget::new(5.0, delta).unwrap(), Accountant::Zcdp);
        let per = 0.1 / 7.0;
        let mut exact_rho = 0.0;
        for _ in 0..7 {
            l.charge("g", Cost::Zcdp { rho: per }).unwrap();
            exact_rho += per;
        }
        let s = l.summary(PrivacyModel::Zcdp);
        assert!(s.rho.unwrap() >= exact_rho && s.rho.unwrap() >= 0.1 * (1.0 - 1e-15));
        let exact_eps = 0.1 + 2.0 * (0.1 * (1.0 / delta).ln()).sqrt();
        assert!(s.epsilon >= exact_eps, "{} < {exact_eps}", s.epsilon);
        assert!(s.epsilon - exact_eps < 1e-12);
        // a calibration by zhao_target_rho is always accepted by a ledger with that budget
        for &eps in &[0.3, 1.0, 3.0] {
            for rule in [RhoRule::Eq15, RhoRule::Exact] {
                let rho = zhao_target_rho(eps, delta, rule);
                let mut l = PrivacyLedger::new(Budget::new(eps, delta).unwrap(), Accountant::Zcdp);
                l.charge("x", Cost::Zcdp { rho }).unwrap();
                assert!(l.spent().0 <= eps);
            }
        }
    }

    #[test]
    fn non_private_ledger_reports_none() {
        let mut l = PrivacyLedger::new(Budget::non_private(), Accountant::Basic);
        l.charge(
            "x",
            Cost::Pure {
                epsilon: f64::INFINITY,
            },
        )
        .unwrap();
        let s = l.summary(PrivacyModel::Approx);
        assert_eq!(s.model, PrivacyModel::None);
        assert!(s.epsilon.is_infinite());
    }
}
