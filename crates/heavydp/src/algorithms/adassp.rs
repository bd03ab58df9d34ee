//! `adassp`: AdaSSP, sufficient-statistics perturbation with a privately chosen ridge —
//! Yu-Xiang Wang, *Revisiting differentially private linear regression: optimal and
//! adaptive prediction & estimation in unbounded domain*, UAI 2018, **Algorithm 2**
//! ("AdaSSP"). The paper's text is not in `../shared/papers`; the algorithm below is
//! written from the published Algorithm 2, whose lines are quoted with the paper's
//! symbols (B_X, B_Y, ε, δ, ρ) before heavydp's calibration of each noise level.
//!
//! # The paper's Algorithm 2
//!
//! Input: X ∈ ℝ^{n×d}, y ∈ ℝⁿ with ‖x_i‖₂ ≤ B_X and |y_i| ≤ B_Y; budget (ε, δ); failure
//! probability ρ.
//!
//! ```text
//! 1: λ_min = λ_min(XᵀX)
//! 2: λ̃_min = max{ λ_min + (√log(6/δ)/(ε/3))·B_X²·Z − (log(6/δ)/(ε/3))·B_X², 0 },  Z ~ N(0, 1)
//! 3: λ = max{ 0, √(d·log(6/δ)·log(2d²/ρ))·B_X²/(ε/3) − λ̃_min }
//! 4: XᵀX^ = XᵀX + (√log(6/δ)/(ε/3))·B_X²·Z,   Z ∈ ℝ^{d×d} symmetric, Z_ij ~ N(0, 1) i.i.d. (i ≤ j)
//! 5: Xᵀy^ = Xᵀy + (√log(6/δ)/(ε/3))·B_X·B_Y·z,  z ~ N(0, I_d)
//! 6: return θ̃ = (XᵀX^ + λI)⁻¹ Xᵀy^
//! ```
//!
//! Each of lines 2, 4, 5 is a Gaussian mechanism with the paper's noise level
//! σ_paper = √log(6/δ)·Δ_add/(ε/3) (Δ_add the add/remove sensitivity: B_X², B_X², B_X·B_Y),
//! spending (ε/3, δ/3) each. Lines 2 and 3 use two *tail quantiles* of that noise:
//! line 2 subtracts √log(6/δ) standard deviations of the λ_min noise (so λ̃_min ≤ λ_min with
//! high probability), and line 3's first term is √(d·log(2d²/ρ)) standard deviations of the
//! XᵀX noise (a high-probability bound on its operator norm).
//!
//! # heavydp's calibration (what is different, and why)
//!
//! * **Neighbours: one record replaced, n public** (the library's convention). The three
//!   ℓ2 sensitivities are then (proofs in one line each, every bound attained):
//!   - λ_min(XᵀX): **B_X²**. With S the Gram matrix of the n − 1 shared records,
//!     λ_min(S) ≤ λ_min(S + xxᵀ) ≤ λ_min(S) + ‖x‖² (Weyl), for either neighbour.
//!   - the upper triangle (i ≤ j) of XᵀX: **√2·B_X²**. For M = xxᵀ − x′x′ᵀ,
//!     Σ_{i≤j} M_ij² = (‖M‖_F² + Σ_i M_ii²)/2 with ‖M‖_F² = ‖x‖⁴ + ‖x′‖⁴ − 2⟨x, x′⟩² ≤ 2B_X⁴
//!     and Σ_i M_ii² ≤ Σ_i (x_i⁴ + x′_i⁴) ≤ 2B_X⁴; attained at x = B_X e₁, x′ = B_X e₂.
//!   - Xᵀy: **2·B_X·B_Y** (x y − x′y′, attained at x′ = x, y′ = −y).
//! * **Accountant: zCDP**, which gives the least noise of the two candidates. The three
//!   releases are Gaussian mechanisms charged ρ/3 each to a zCDP ledger; ρ is the largest
//!   value with ρ + 2√(ρ ln(1/δ)) ≤ ε (Zhao et al. Lemma 1(4), exact inversion, aimed at
//!   [`crate::privacy::calibration_target`]), so the ledger certifies (ε, δ) — the whole
//!   budget, up to rounding. σ_k = Δ_k′/√(2ρ/3) (Δ′ = the snapping grid's widened Δ). For
//!   ε = 1, δ = 10⁻⁶ this is σ = 9.27·Δ, against 16.5·Δ for the classic Gaussian mechanism
//!   (σ = Δ√(2 ln(1.25/δ′))/ε′) at (ε/3, δ/3) with basic composition, and the paper's own
//!   √log(6/δ)/(ε/3) = 11.9 (at add/remove Δ).
//! * **Lines 2–3 with heavydp's σ's**: the paper's tail quantiles are kept in units of the
//!   noise actually added:
//!
//!   ```text
//!   λ̃_min = max{ λ̂_min − σ_min·√ln(6/δ), 0 },   λ̂_min = λ_min(XᵀX) + N(0, σ_min²)   (line 2)
//!   λ     = max{ 0, σ_XX·√(d·ln(2d²/ρ)) − λ̃_min }                                   (line 3)
//!   ```
//!
//!   With heavydp's σ_XX = σ_paper exactly these are the paper's lines (log = ln).
//! * **Clipping** (no copy of the data): every row is clipped to ‖x‖₂ ≤ B_X and every
//!   response to [−B_Y, B_Y] on the fly, in the one parallel pass that accumulates XᵀX and
//!   Xᵀy. With `bound=B` (the CONTRACT's bounded-family convention) each feature is first
//!   clipped to [−B, B], and B_X = B·√d, B_Y = B.
//! * **Solving line 6**: Cholesky ([`crate::linalg::cholesky_in_place`]). Line 3 makes
//!   XᵀX^ + λI positive definite with probability ≥ 1 − ρ (the paper's event); when it is
//!   not (or, at ε = ∞, when XᵀX is singular), heavydp adds a ridge τ, doubling it from
//!   τ₀ = σ_XX (private runs) or 10⁻⁹·max_i |(XᵀX)_ii| (ε = ∞, where this approximates the
//!   minimum-norm least-squares solution) until the factorisation succeeds. This is
//!   post-processing of the released statistics (no privacy cost); the model file notes it
//!   and reports the ridge used.
//! * **ε = ∞**: every σ is 0, no random draw is made, λ̃_min = λ_min and λ = 0: θ̃ is the
//!   exact ordinary least-squares solution (XᵀX)⁻¹Xᵀy of the clipped data.
//! * **λ_min when n < d**: XᵀX has rank ≤ n < d, so λ_min = 0 exactly (no eigen-solve);
//!   otherwise Householder tridiagonalisation + Sturm bisection
//!   ([`crate::linalg::symmetric_min_eigenvalue`]). Cost O(n·d² + d³) time, O(d²) memory.
//!
//! # Privacy
//!
//! Three Gaussian mechanisms (lines 2, 4, 5) on statistics of ℓ2 sensitivity B_X², √2·B_X²,
//! 2·B_X·B_Y under replace-one, each ρ/3-zCDP (Zhao et al. Lemma 2; snapped and exact,
//! [`crate::mechanisms::GaussianMechanism`]); they compose to ρ-zCDP (Lemma 1(2)), i.e.
//! (ε, δ)-DP (Lemma 1(4)). Lines 3 and 6 are post-processing. The privacy model is `zcdp`
//! (the model file reports ρ and its (ε, δ) conversion). Audit target `adassp`.
//!
//! # Parameters
//!
//! | name | symbol | default | source |
//! |---|---|---|---|
//! | `bound_x` | B_X | B·√d with `bound=B`; required otherwise | Wang Alg. 2 input (public ℓ2 bound on a row) |
//! | `bound_y` | B_Y | B with `bound=B`; required otherwise | Wang Alg. 2 input (public bound on \|y\|) |
//! | `bound` | B | — (give `bound` or both `bound_x` and `bound_y`) | CONTRACT bounded-family convention: features and target clipped to [−B, B] |
//! | `fail_prob` | ρ | 0.05 | Wang Alg. 2 / Thm. 3's failure probability (project default, as `fail_prob` elsewhere) |
//! | δ | δ | n^{−1.1} when the budget's δ is 0 | project default (as for the Hu et al. and Zhao et al. algorithms) |
//!
//! # Errors
//! No bound (`bound`, or `bound_x` with `bound_y`); one of `bound_x` / `bound_y` without the
//! other and without `bound`; a loss other than `squared`; a domain other than
//! `unconstrained`; `fail_prob` ∉ (0, 1); an ε so small that a noise level exceeds the exact
//! samplers' range (2³⁵ times the sensitivity).

use super::*;
use crate::linalg::{axpy, cholesky_in_place, cholesky_solve, norm2, symmetric_min_eigenvalue};
use crate::linalg::{RawRows, Rows};
use crate::mechanisms::{release, GaussianMechanism};
use crate::privacy::{mul_up, zhao_target_rho, Accountant, PrivacyLedger, RhoRule};
use rayon::prelude::*;

const NAME: &str = "adassp";

/// The registry entry of `adassp` ([`crate::algorithms::REGISTRY`]).
pub const DESCRIPTOR: AlgorithmDescriptor = AlgorithmDescriptor::new(
    NAME,
    AdaSsp::info,
    |p| boxed(AdaSsp::from_params(p)),
    ("squared", "unconstrained"),
)
.with_intervals()
.cited(crate::algorithms::Citation {
    authors: "Wang",
    title: "*Revisiting differentially private linear regression* (UAI 2018)",
    item: "Alg. 2",
    summary: "AdaSSP: perturbed sufficient statistics XᵀX, Xᵀy and a privately chosen ridge (bounded data: `--param bound=B` or `bound_x=`/`bound_y=`), zCDP-calibrated",
    rust: "adassp::AdaSsp",
    spec: "— (no spec: the module docs quote Alg. 2 line by line)",
});

/// `adassp`. See the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct AdaSsp {
    /// `bound=B`: per-feature clip to [−B, B]; B_X = B√d and B_Y = B unless given.
    pub bound: Option<f64>,
    pub bound_x: Option<f64>,
    pub bound_y: Option<f64>,
    /// ρ of line 3 (failure probability).
    pub fail_prob: f64,
}

/// The resolved, public plan of a fit (every quantity from n, d, ε, δ and the bounds).
#[derive(Debug, Clone, PartialEq)]
pub struct AdaSspPlan {
    pub n: usize,
    pub d: usize,
    /// δ used (the budget's, or n^{−1.1} when it is 0).
    pub delta: f64,
    /// Per-feature clip (`bound`), if given.
    pub coord_bound: Option<f64>,
    pub bound_x: f64,
    pub bound_y: f64,
    /// Total ρ of the zCDP ledger, and each release's ρ/3.
    pub rho_total: f64,
    pub rho_each: f64,
    /// Replace-one ℓ2 sensitivities of λ_min(XᵀX), of the upper triangle of XᵀX, of Xᵀy.
    pub sensitivity_min: f64,
    pub sensitivity_xx: f64,
    pub sensitivity_xy: f64,
    /// The three Gaussian mechanisms (σ = 0 when ε = ∞).
    pub mech_min: GaussianMechanism,
    pub mech_xx: GaussianMechanism,
    pub mech_xy: GaussianMechanism,
    /// σ_min·√ln(6/δ) (line 2).
    pub shift: f64,
    /// σ_XX·√(d·ln(2d²/ρ)) (line 3).
    pub threshold: f64,
}

/// The three private releases of lines 2, 4, 5.
#[derive(Debug, Clone, PartialEq)]
pub struct Released {
    /// λ̂_min = λ_min(XᵀX) + N(0, σ_min²).
    pub lambda_min: f64,
    /// The upper triangle (row-major, i ≤ j) of XᵀX + noise.
    pub xtx_upper: Vec<f64>,
    /// Xᵀy + noise.
    pub xty: Vec<f64>,
}

/// What the intervals of a fit are computed from ([`crate::inference`]): the public plan
/// (noise levels, ridge rule), the three releases of lines 2, 4, 5 and the ridge used. All
/// of it is public or already released, so keeping it is post-processing (no privacy
/// cost); it is not written to the model file.
#[derive(Debug, Clone, PartialEq)]
pub struct SspRelease {
    pub plan: AdaSspPlan,
    pub released: Released,
    pub ridge_used: f64,
}

impl AdaSsp {
    /// Reads `--param` values.
    pub fn from_params(params: &ParamMap) -> Result<Self, FitError> {
        let p = DESCRIPTOR.params(params)?;
        let bound = p.positive("bound")?;
        let bound_x = p.positive("bound_x")?;
        let bound_y = p.positive("bound_y")?;
        if bound.is_none() {
            match (bound_x, bound_y) {
                (None, None) => return Err(FitError::BoundRequired { algorithm: NAME }),
                (Some(_), None) => return Err(missing_pair("bound_y", "bound_x")),
                (None, Some(_)) => return Err(missing_pair("bound_x", "bound_y")),
                _ => {}
            }
        }
        Ok(AdaSsp {
            bound,
            bound_x,
            bound_y,
            fail_prob: fail_prob_param(NAME, &p)?,
        })
    }

    /// The documentation row.
    pub fn info() -> AlgorithmInfo {
        AlgorithmInfo {
            name: NAME,
            paper: "Wang, Revisiting differentially private linear regression (UAI 2018), Alg. 2 (AdaSSP)",
            use_when: "dense low-d least squares, declared bounds (rows are clipped), light tails",
            privacy: "zcdp",
            losses: vec!["squared"],
            domains: vec!["unconstrained"],
            parameters: vec![
                ParamInfo {
                    name: "bound_x",
                    default: "B sqrt(d) with bound=B, else required",
                    meaning: "public l2 bound B_X on a feature row (rows clipped to it)",
                    source: "Wang Alg. 2 input",
                },
                ParamInfo {
                    name: "bound_y",
                    default: "B with bound=B, else required",
                    meaning: "public bound B_Y on |y| (responses clipped to [-B_Y, B_Y])",
                    source: "Wang Alg. 2 input",
                },
                ParamInfo {
                    name: "bound",
                    default: "required unless bound_x and bound_y are given",
                    meaning: "public bound B: features and target clipped to [-B, B]; B_X = B sqrt(d), B_Y = B",
                    source: "CONTRACT bounded-family convention",
                },
                ParamInfo {
                    name: "fail_prob",
                    default: "0.05",
                    meaning: "failure probability rho of the ridge rule lambda = max(0, sigma_XX sqrt(d ln(2 d^2/rho)) - lambda_min~)",
                    source: "Wang Alg. 2 line 3, Thm. 3 (project default)",
                },
            ],
        }
    }

    /// Resolves every public quantity: bounds, ρ, sensitivities, noise levels, line-2
    /// shift and line-3 threshold.
    pub fn plan(&self, n: usize, d: usize, budget: &Budget) -> Result<AdaSspPlan, FitError> {
        let budget = with_default_delta(*budget, n);
        let non_private = budget.is_non_private();
        let df = d as f64;
        let bound_x = match (self.bound_x, self.bound) {
            (Some(bx), _) => bx,
            (None, Some(b)) => b * df.sqrt(),
            (None, None) => return Err(FitError::BoundRequired { algorithm: NAME }),
        };
        let bound_y = match (self.bound_y, self.bound) {
            (Some(by), _) => by,
            (None, Some(b)) => b,
            (None, None) => return Err(FitError::BoundRequired { algorithm: NAME }),
        };
        check_bound(NAME, bound_x)?;
        check_bound(NAME, bound_y)?;
        let bx2 = mul_up(bound_x, bound_x);
        let sensitivity_min = bx2;
        // f64 SQRT_2 = 1.4142135623730951 > √2, and the product is rounded up.
        let sensitivity_xx = mul_up(std::f64::consts::SQRT_2, bx2);
        let sensitivity_xy = mul_up(2.0, mul_up(bound_x, bound_y));
        let (rho_total, rho_each) = if non_private {
            (f64::INFINITY, f64::INFINITY)
        } else {
            let rho = zhao_target_rho(budget.epsilon, budget.delta, RhoRule::Exact);
            (rho, (rho / 3.0).next_down())
        };
        let mech = |s: f64| {
            if non_private {
                GaussianMechanism::with_sigma(s, 0.0)
            } else {
                GaussianMechanism::from_rho(s, rho_each)
            }
        };
        let mech_min = mech(sensitivity_min)?;
        let mech_xx = mech(sensitivity_xx)?;
        let mech_xy = mech(sensitivity_xy)?;
        let (shift, threshold) = if non_private {
            (0.0, 0.0)
        } else {
            (
                mech_min.sigma * (6.0 / budget.delta).ln().sqrt(),
                mech_xx.sigma * (df * (2.0 * df * df / self.fail_prob).ln()).sqrt(),
            )
        };
        Ok(AdaSspPlan {
            n,
            d,
            delta: budget.delta,
            coord_bound: self.bound,
            bound_x,
            bound_y,
            rho_total,
            rho_each,
            sensitivity_min,
            sensitivity_xx,
            sensitivity_xy,
            mech_min,
            mech_xx,
            mech_xy,
            shift,
            threshold,
        })
    }
}

fn missing_pair(missing: &str, given: &str) -> FitError {
    FitError::BadParameter {
        algorithm: NAME,
        param: missing.into(),
        reason: format!(
            "required together with {given} (or give bound=B for B_X = B sqrt(d), B_Y = B)"
        ),
    }
}

/// Index of the first entry of row i in the packed upper triangle (row-major, i ≤ j).
#[inline]
fn row_start(i: usize, d: usize) -> usize {
    i * d - i * i.saturating_sub(1) / 2
}

/// The upper triangle of XᵀX (packed, row-major, i ≤ j) and Xᵀy of the clipped data, in
/// one parallel pass: each row is clipped to [−B, B] per feature (when `coord_bound` is
/// given), then to ‖x‖₂ ≤ B_X, and y to [−B_Y, B_Y], on the fly. Rows are split into
/// fixed blocks (a function of n and d only), each with its own accumulator, and the
/// partial sums are added in block order: the result does not depend on the number of
/// threads. At most 64 blocks and 2²⁴ accumulated numbers (128 MiB) in all.
pub fn clipped_moments(
    x: &[f64],
    y: &[f64],
    d: usize,
    coord_bound: Option<f64>,
    bound_x: f64,
    bound_y: f64,
) -> (Vec<f64>, Vec<f64>) {
    assert_eq!(x.len(), y.len() * d);
    clipped_moments_of(&RawRows { x, d }, y, coord_bound, bound_x, bound_y)
}

/// [`clipped_moments`] of any [`Rows`] (a dataset is read through its lazy
/// standardisation when it has one: the same values as the standardised copy).
pub fn clipped_moments_of<R: Rows + ?Sized>(
    x: &R,
    y: &[f64],
    coord_bound: Option<f64>,
    bound_x: f64,
    bound_y: f64,
) -> (Vec<f64>, Vec<f64>) {
    let (n, d) = (y.len(), x.width());
    let tri = d * (d + 1) / 2;
    let width = tri + d;
    let max_blocks = ((1usize << 24) / width).clamp(1, 64);
    let rows = n.div_ceil(max_blocks).max(256);
    let partials: Vec<Vec<f64>> = y
        .par_chunks(rows)
        .enumerate()
        .map(|(b, yb)| {
            let mut acc = vec![0.0; width];
            let mut r = vec![0.0; d];
            let mut scratch = vec![0.0; d];
            for (k, &yi) in yb.iter().enumerate() {
                r.copy_from_slice(x.get(b * rows + k, &mut scratch));
                if let Some(b) = coord_bound {
                    r.iter_mut().for_each(|v| *v = v.clamp(-b, b));
                }
                let nrm = norm2(&r);
                if nrm > bound_x {
                    let s = bound_x / nrm;
                    r.iter_mut().for_each(|v| *v *= s);
                }
                let yc = yi.clamp(-bound_y, bound_y);
                let (g, xy) = acc.split_at_mut(tri);
                for i in 0..d {
                    let ri = r[i];
                    if ri != 0.0 {
                        let st = row_start(i, d);
                        axpy(ri, &r[i..], &mut g[st..st + d - i]);
                    }
                }
                axpy(yc, &r, xy);
            }
            acc
        })
        .collect();
    let mut total = vec![0.0; width];
    for p in &partials {
        for (t, v) in total.iter_mut().zip(p) {
            *t += v;
        }
    }
    let xy = total.split_off(tri);
    (total, xy)
}

/// The full symmetric d×d matrix (row-major) of a packed upper triangle.
pub fn unpack_symmetric(upper: &[f64], d: usize) -> Vec<f64> {
    let mut m = vec![0.0; d * d];
    for i in 0..d {
        let st = row_start(i, d);
        for j in i..d {
            let v = upper[st + j - i];
            m[i * d + j] = v;
            m[j * d + i] = v;
        }
    }
    m
}

/// Lines 1, 2, 4, 5: computes λ_min(XᵀX) and releases it, XᵀX and Xᵀy through the plan's
/// Gaussian mechanisms, each charged to `ledger` before it runs. Also returns the ε the
/// ledger certifies after each release.
pub fn release_statistics(
    plan: &AdaSspPlan,
    xtx_upper: &[f64],
    xty: &[f64],
    ledger: &mut PrivacyLedger,
    rng: &mut dyn RngCore,
) -> Result<(Released, [f64; 3]), FitError> {
    let d = plan.d;
    // rank(XᵀX) ≤ n: for n < d the smallest eigenvalue is exactly 0.
    let lambda_min = if plan.n < d {
        0.0
    } else {
        symmetric_min_eigenvalue(&unpack_symmetric(xtx_upper, d), d).max(0.0)
    };
    let lambda_min = release(
        ledger,
        "lambda_min(XtX) (line 2)",
        &plan.mech_min,
        &[lambda_min],
        rng,
    )?[0];
    let e1 = ledger.spent().0;
    let xtx_upper = release(
        ledger,
        "XtX upper triangle (line 4)",
        &plan.mech_xx,
        xtx_upper,
        rng,
    )?;
    let e2 = ledger.spent().0;
    let xty = release(ledger, "Xty (line 5)", &plan.mech_xy, xty, rng)?;
    let e3 = ledger.spent().0;
    Ok((
        Released {
            lambda_min,
            xtx_upper,
            xty,
        },
        [e1, e2, e3],
    ))
}

/// Lines 3 and 6 (post-processing of the releases): the ridge λ, the ridge actually used
/// (λ plus the fallback τ when XᵀX^ + λI is not positive definite) and θ̃.
pub fn solve_released(plan: &AdaSspPlan, rel: &Released) -> (f64, f64, Vec<f64>) {
    let d = plan.d;
    let lambda_tilde = (rel.lambda_min - plan.shift).max(0.0);
    let lambda = (plan.threshold - lambda_tilde).max(0.0);
    let a = unpack_symmetric(&rel.xtx_upper, d);
    let max_diag = (0..d).fold(0.0f64, |m, i| m.max(a[i * d + i].abs()));
    let mut tau = 0.0;
    let mut next_tau = if plan.mech_xx.sigma > 0.0 {
        plan.mech_xx.sigma
    } else {
        (1e-9 * max_diag).max(f64::MIN_POSITIVE)
    };
    for _ in 0..2100 {
        let mut l = a.clone();
        for i in 0..d {
            l[i * d + i] += lambda + tau;
        }
        if cholesky_in_place(&mut l, d).is_ok() {
            let mut theta = rel.xty.clone();
            cholesky_solve(&l, d, &mut theta);
            return (lambda, lambda + tau, theta);
        }
        tau = next_tau;
        next_tau *= 2.0;
    }
    // Unreachable for finite releases (τ eventually dominates every entry); a NaN
    // release gives NaN weights rather than a panic.
    (lambda, f64::NAN, vec![f64::NAN; d])
}

impl PrivateAlgorithm for AdaSsp {
    fn identity(&self) -> Identity {
        Identity::mapped(NAME, PrivacyModel::Zcdp)
    }
    fn validate(&self, problem: &Problem, budget: &Budget) -> Result<(), FitError> {
        let budget = approx_budget(NAME, problem, budget, &["squared"], &["unconstrained"])?;
        if !(self.fail_prob > 0.0 && self.fail_prob < 1.0) {
            return Err(FitError::BadParameter {
                algorithm: NAME,
                param: "fail_prob".into(),
                reason: format!("expected a probability in (0, 1), got {}", self.fail_prob),
            });
        }
        self.plan(problem.data.n(), problem.data.d(), &budget)?;
        Ok(())
    }
    fn fit_validated(&self, inputs: FitInputs) -> Result<FitReport, FitError> {
        let (problem, budget, rng, observer) = inputs.parts();
        let budget = with_default_delta(budget, problem.data.n());
        let data = problem.data;
        let (n, d) = (data.n(), data.d());
        let plan = self.plan(n, d, &budget)?;
        observer.on_start(3);
        let (xtx_upper, xty) =
            clipped_moments_of(data, data.y(), plan.coord_bound, plan.bound_x, plan.bound_y);
        let mut ledger = PrivacyLedger::new(budget, Accountant::Zcdp);
        let (rel, spent) = release_statistics(&plan, &xtx_upper, &xty, &mut ledger, rng)?;
        let trace = [&plan.mech_min, &plan.mech_xx, &plan.mech_xy]
            .iter()
            .zip(spent)
            .enumerate()
            .map(|(i, (m, eps_spent))| {
                observer.on_iteration(i + 1);
                TraceRecord {
                    iteration: i + 1,
                    step_size: 0.0,
                    noise_scale: m.sigma,
                    epsilon_spent: eps_spent,
                }
            })
            .collect();
        observer.on_finish();
        let (lambda, ridge_used, theta) = solve_released(&plan, &rel);

        let mut h = BTreeMap::new();
        if let Some(b) = plan.coord_bound {
            hp(&mut h, "bound", b);
        }
        hp(&mut h, "bound_x", plan.bound_x);
        hp(&mut h, "bound_y", plan.bound_y);
        hp(&mut h, "fail_prob", self.fail_prob);
        hp(&mut h, "delta", plan.delta);
        hp(&mut h, "rho_total", plan.rho_total);
        hp(&mut h, "rho_each", plan.rho_each);
        hp(&mut h, "sensitivity_lambda_min", plan.sensitivity_min);
        hp(&mut h, "sensitivity_xtx", plan.sensitivity_xx);
        hp(&mut h, "sensitivity_xty", plan.sensitivity_xy);
        hp(&mut h, "sigma_lambda_min", plan.mech_min.sigma);
        hp(&mut h, "sigma_xtx", plan.mech_xx.sigma);
        hp(&mut h, "sigma_xty", plan.mech_xy.sigma);
        hp(&mut h, "lambda_shift", plan.shift);
        hp(&mut h, "lambda_threshold", plan.threshold);
        // Post-processing of the released λ̂_min and XᵀX^ (no further privacy cost).
        hp(&mut h, "lambda", lambda);
        hp(&mut h, "ridge_used", ridge_used);
        hp(
            &mut h,
            "accountant",
            "zcdp: rho/3 per release, exact inversion of Lemma 1(4)",
        );
        let mut notes = vec![format!(
            "replace-one sensitivities: lambda_min B_X^2, X^T X (upper triangle) sqrt(2) B_X^2, X^T y 2 B_X B_Y (B_X = {}, B_Y = {})",
            plan.bound_x, plan.bound_y
        )];
        if ridge_used != lambda {
            notes.push(format!(
                "the released X^T X + lambda I was not positive definite: ridge raised from {lambda:e} to {ridge_used:e} (post-processing of the released statistics)"
            ));
        }
        if budget.is_non_private() {
            notes.push(
                "epsilon = inf: no noise, lambda = 0 (ordinary least squares on the clipped data)"
                    .into(),
            );
        }
        let privacy = ledger.summary(self.privacy_model());
        let mut report = FitReport::fixed_iterations(theta, privacy, h, trace, notes);
        report.released = Some(Box::new(SspRelease {
            plan,
            released: rel,
            ridge_used,
        }));
        Ok(report)
    }
}

#[cfg(test)]
#[path = "adassp_tests.rs"]
mod tests;
