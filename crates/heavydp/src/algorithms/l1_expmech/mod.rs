//! `l1-regression-expmech`: private ℓ1 (least-absolute-deviation) regression with
//! heavy-tailed data by the exponential mechanism over a net — Wang & Xu, *Differentially
//! Private ℓ1-norm Linear Regression with Heavy-tailed Data*, Algorithm 1 (θ = 2,
//! Theorem 1) and Algorithm 2 (θ ∈ (1, 2), Theorem 2). Spec:
//! `spec/wang-xu-l1-regression.md` §2–§6, ambiguities W1–W13.
//!
//! # Algorithm
//!
//! ```text
//! 1  build a data-independent candidate set W̃ = {w_1, …, w_N} ⊆ W      (net.rs; §3, §6)
//! 2  for every w ∈ W̃:  S(w) = Σ_i ψ_θ(ι·|y_i − ⟨x_i, w⟩|)              (kernel.rs; §2)
//!                        (the truncated risk is L̂_ι(w) = S(w)/(nι), eq. 2)
//! 3  output w_j with probability ∝ exp(−ε·S(w_j)/(2κ·log θ))           (sampler.rs; §5)
//!    κ = 1: Δ_u = log θ/(nι) (`sensitivity=tight`), κ = 2: Δ_u = 2 log θ/(nι) (`paper`)
//! ```
//!
//! ψ_θ(x) = −log(1 − x + x^θ/θ) on [0, 1], log θ above (eqs. 6, 16); θ = 2 is
//! Algorithm 1, θ ∈ (1, 2) Algorithm 2 — one implementation with parameter θ. Step 3 is
//! the exponential mechanism with utility u = −L̂_ι: ε·u/(2Δ_u) = −ε·S/(2κ log θ). The
//! paper prints the exponent −nιε L̂_ι/log θ, which is 2ε-DP (W1, W2); heavydp uses the
//! corrected one.
//!
//! Step 3 is sampled exactly by the Gumbel-max trick, streamed over the candidates in
//! blocks of [`net::CANDIDATE_BLOCK`] (parallel over blocks; block b draws its Gumbel
//! variables from ChaCha20 stream b of a key drawn once from the fit's generator), so a
//! fit is reproducible for any number of threads and never holds more than a block of
//! candidates. At ε = ∞ it is the exact argmin of L̂_ι over the net (smallest index on
//! ties) and draws nothing.
//!
//! # Candidate sets (`net=`)
//!
//! | `net` | candidates | privacy reported | utility |
//! |---|---|---|---|
//! | `grid` (default) | the grid ζ-net of spec §3 ([`GridNet`]) | `approx`: ε, δ = (1 + e^ε)N·2⁻⁵⁰ | Theorems 1–2 hold at the ζ used |
//! | `random` | M = `max_candidates` uniform points of W ([`RandomNet`], ℓ2 / ℓ1 ball) | `approx`: ε, δ = (1 + e^ε)M·2⁻⁵⁰ | **not covered by the theorems** (covering radius ≈ Δ_W(log M/M)^{1/d}) |
//! | `mcmc` (opt-in) | Metropolis random walk targeting the continuous exponential-mechanism density ∝ exp(−ε S(w)/(2κ log θ)) on W | `none`: "heuristic; targets an ε-DP distribution but sampling error is uncertified" | none |
//!
//! The grid net's resolution is ζ = max(1/n, ζ_min) (spec §5 "heavydp defaults"), where
//! ζ_min is the smallest resolution whose grid net has at most `max_candidates` points
//! ([`zeta_min`], a public search: counting grid points reads no data; a grid whose
//! bounding box has more than 64·`max_candidates` + 2^20 points counts as infeasible,
//! because the enumeration scans the box). When 1/n is
//! coarser than ζ_min but its grid (which moves with ζ, so counts are not exactly
//! monotone) is still too large, ζ_min is used. Nothing silent: a `zeta` finer than
//! feasible, or a feasible grid that is useless (ζ_min ≥ R = max_{w∈W}‖w‖₂, when the
//! one-point net {0} already covers W as well), is an error naming the options
//! (coarser `zeta`, larger `max_candidates`, `net=random`, `net=mcmc`).
//!
//! # Privacy
//!
//! **(ε, δ)-DP** for `grid` and `random`, with δ = (1 + e^ε)·N·2⁻⁵⁰:
//! the exponential mechanism itself is pure ε-DP (Theorems 1–2 with the corrected
//! exponent), and its floating-point streaming Gumbel-max sampler is within total
//! variation ≈ N·2⁻⁵⁰ of it (docs/privacy.md §5), which costs that additive δ. The δ is
//! computed with the real N, rounded up ([`sampler::sampler_delta`]), charged to the
//! ledger with ε, and a budget whose δ is smaller (in particular δ = 0) is refused with
//! the δ needed (≈ 10⁻⁹ at N = 2¹⁸, ε = 1).
//! Every per-record term ψ_θ(ι|r_i|) lies in [0, log θ] — the kernel clamps every factor
//! (a NaN residual, possible when ⟨x, w⟩ overflows, is scored log θ) — so replacing one
//! record moves S(w) by at most log θ, u = −S/(nι) by at most Δ_u = log θ/(nι), with both
//! signs possible, which is exactly what the exponential mechanism with Δ_u needs (W1;
//! tested: a worst-case neighbouring pair attains log θ exactly). The candidates depend
//! only on W, ζ, M and the seed. The ledger charges ε once, before sampling; the
//! coefficient ([`sampler::coefficient`]) is shrunk by [`crate::privacy::calibration_target`]
//! and by the bound on the floating-point rounding of the computed S (relative
//! 1e−12/log θ + 1e−15·n, see [`kernel`]), so the rounding cannot raise the privacy loss
//! above the ε charged. `mcmc` is reported with privacy model
//! `none` (spec §6: the target is not log-concave; no mixing bound).
//!
//! # Parameters
//!
//! | name | symbol | default | source |
//! |---|---|---|---|
//! | `moment` (alias `theta`) | θ | 2 | θ = 2: Alg. 1 (A1/A2); θ ∈ (1, 2): Alg. 2 (A3/A4); θ ≤ 1 or θ > 2 rejected (W12) |
//! | `moment_kind` | — | `norm` | `norm`: E‖x‖₂^θ ≤ τ^θ (A1/A3, d_eff = d); `coord`: E\|x_j\|^θ ≤ τ^θ (A2/A4, d_eff = 1) |
//! | `tau` | τ | 1 | user-declared moment bound (Assumptions 1–4) |
//! | `fail_prob` | η | 0.05 | failure probability of the utility statements |
//! | `iota` | ι | (1/τ)·(d_eff·ln n·ln(1/η)/(nε))^{1/θ} | spec §5 "heavydp defaults" (Thm 1 exactly; Thm 2 with W5, W6); ε = 1 in the formula when ε = ∞ |
//! | `sensitivity` | Δ_u | `tight` = log θ/(nι) | W1 (`paper` = 2 log θ/(nι)) |
//! | `net` | — | `grid` | spec §6, W13 |
//! | `zeta` | ζ | max(1/n, ζ_min) | Thm 1–2 (ζ = O(1/n)); ζ_min: spec §5 defaults (`grid` only) |
//! | `max_candidates` | N_max / M | [`default_max_candidates`]: min(2^18, W_θ/n), at least 2^12 | spec §5 (2^18), capped by a public compute budget (deviation, see below) |
//! | `mcmc_steps` | — | 5000 | `mcmc` only (heuristic) |
//! | `mcmc_step` | σ | R·min(1, (2.38/√d)·√(2κ log θ/(nιε))) | `mcmc` only: the target's local scale |
//!
//! **Compute budget (deviation from the spec's 2^18).** A fit costs N·n ψ evaluations.
//! Measured on the 2-core build machine (thread CPU time, release profile; SSE2 code),
//! the kernel does one evaluation in ≈ 0.86 ns (θ = 2, d = 1), ≈ 1.25 ns (θ = 2,
//! d = 2) and ≈ 10 ns (θ < 2, which needs x^θ; d = 1, 2). N = 2^18 at n = 10⁵ would
//! take ≈ 16 s (θ = 2, d = 2) and ≈ 2 minutes (θ < 2) on 2 idle cores, so the default
//! cap is the public rule N ≤ min(2^18, max(2^12, W_θ/n)) with W_2 = 2^33 and
//! W_θ = 2^29 for θ < 2 residual evaluations ([`default_max_candidates`]). Whole default
//! fits at n = 10⁵ then cost 7.3 s (θ = 2, d = 1, N = 85 895), 9.7 s (θ = 2, d = 2,
//! N = 85 893), 5.2 s (θ = 1.5, d = 1, N = 5 367) and 5.6 s (θ = 1.5, d = 2, N = 5 345)
//! of CPU time, i.e. ≈ 2.5–5 s on 2 idle cores. Below n ≈ 33 000 (θ = 2) the cap is the
//! spec's 2^18. `max_candidates` overrides it.
//!
//! **Utility terms reported.** The model file records the public, ζ- and N-dependent
//! terms of the explicit bounds at the ζ and N used: for θ = 2 (eq. 14)
//! `utility_net_terms` = 3ζτ + ιζ²τ²; for θ < 2 (eq. 26) 3ζτ + 2(2ι)^{θ−1}ζ^θτ^θ/θ; and
//! `utility_mechanism_term` = (2Δ_u/ε)·log(N/η) (Lemma 1 with t = log(1/η); eq. 14 writes
//! it with the paper's Δ_u). The remaining terms involve the unknown
//! sup_W E|y − ⟨x, w⟩|^θ and are not computed. For `random` only the mechanism term is
//! reported (the ζ terms need a covering radius).
//!
//! # Errors
//! A loss other than `absolute`; a non-convex domain (`sparse`); `net=random` on a domain
//! other than `l2-ball` / `l1-ball`; θ ∉ (1, 2]; n < 2; `zeta` finer than feasible with
//! `max_candidates`; a useless feasible grid; `net=mcmc` at ε = ∞; parameters that do not
//! apply to the chosen net (`zeta` without `grid`, `mcmc_*` without `mcmc`,
//! `max_candidates` with `mcmc`).
//!
//! # Example
//! ```
//! use heavydp::algorithms::l1_expmech::L1RegressionExpMech;
//! use heavydp::algorithms::{NoObserver, PrivateAlgorithm, Problem};
//! use heavydp::constraints::L2Ball;
//! use heavydp::data::Dataset;
//! use heavydp::loss::LossKind;
//! use heavydp::noise::rng_from_seed;
//! use heavydp::privacy::Budget;
//! let x: Vec<f64> = (0..2000).map(|i| ((i * 37 % 101) as f64 / 50.0 - 1.0).powi(3)).collect();
//! let y: Vec<f64> = x.chunks(2).enumerate().map(|(i, r)| 0.5 * r[0] - 0.3 * r[1] + ((i % 7) as f64 - 3.0) / 10.0).collect();
//! let data = Dataset::from_rows(x, y, 2).unwrap();
//! let domain = L2Ball { d: 2, radius: 1.0 };
//! let problem = Problem { data: &data, loss: LossKind::Absolute, domain: &domain };
//! let report = L1RegressionExpMech::default()
//!     .fit(&problem, Budget::new(1.0, 1e-6).unwrap(), &mut rng_from_seed(1), &mut NoObserver)
//!     .unwrap();
//! assert_eq!(report.privacy.epsilon, 1.0);
//! assert!(report.weights.iter().map(|w| w * w).sum::<f64>() <= 1.0 + 1e-12);
//! ```

pub mod kernel;
pub mod net;
pub mod sampler;
#[cfg(test)]
mod tests;

pub use kernel::{psi, psi_record, TruncatedScore, RECORD_CHUNK};
pub use net::{
    grid_count, zeta_min, CandidateSet, GridNet, NetError, RandomNet, ZetaMin, CANDIDATE_BLOCK,
};
pub use sampler::{metropolis, select, McmcSettings, NetExponentialMechanism, Selected, Selection};

use super::*;
use crate::mechanisms::Mechanism;
use crate::params::param_words;
use crate::privacy::{Accountant, Cost, PrivacyLedger};

const NAME: &str = "l1-regression-expmech";

/// The registry entry of `l1-regression-expmech` ([`crate::algorithms::REGISTRY`]).
pub const DESCRIPTOR: AlgorithmDescriptor = AlgorithmDescriptor::new(
    NAME,
    L1RegressionExpMech::info,
    |p| boxed(L1RegressionExpMech::from_params(p)),
    ("absolute", "l2-ball"),
)
.cited(crate::algorithms::Citation {
    authors: "Wang & Xu",
    title: "*DP ℓ1-norm linear regression with heavy-tailed data*",
    item: "Algs. 1–2",
    summary: "exponential mechanism over a data-independent net with a truncated loss (θ = 2 or θ ∈ (1, 2)), streamed; (ε, δ)-DP with the floating-point sampler's δ = (1 + e^ε)N·2⁻⁵⁰",
    rust: "l1_expmech::L1RegressionExpMech",
    spec: "wangxu §5, W3–W12",
});

/// The spec's default cap on the number of candidates, 2^18 (spec §5 "heavydp defaults").
pub const SPEC_MAX_CANDIDATES: u64 = 1 << 18;
/// The floor of the compute-budget rule, 2^12 candidates.
pub const MIN_DEFAULT_CANDIDATES: u64 = 1 << 12;
/// Residual evaluations N·n the default allows for θ = 2 (≈ 4 s on 2 cores).
pub const WORK_BUDGET_THETA_TWO: f64 = 8_589_934_592.0; // 2^33
/// Residual evaluations N·n the default allows for θ < 2 (the kernel needs x^θ, ≈ 10×
/// slower per evaluation; ≈ 3 s on 2 cores at d = 2).
pub const WORK_BUDGET_THETA_LT_TWO: f64 = 536_870_912.0; // 2^29

/// The note of a `net=mcmc` run.
pub const MCMC_NOTE: &str =
    "heuristic; targets an ε-DP distribution but sampling error is uncertified";

/// Which moment assumption the user declares (spec §5 "Assumptions").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MomentKind {
    /// E‖x‖₂^θ ≤ τ^θ (Assumptions 1 and 3): d_eff = d.
    Norm,
    /// E|x_j|^θ ≤ τ^θ for every j (Assumptions 2 and 4): d_eff = 1.
    Coord,
}
param_words!(MomentKind: "norm" => Norm, "coord" => Coord);

/// The score sensitivity rule (W1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SensitivityRule {
    /// Δ_u = log θ/(nι) (ψ ∈ [0, log θ] at non-negative arguments).
    Tight,
    /// Δ_u = 2 log θ/(nι) (the paper's value).
    Paper,
}
param_words!(SensitivityRule: "tight" => Tight, "paper" => Paper);

impl SensitivityRule {
    /// κ in Δ_u = κ·log θ/(nι).
    pub fn kappa(self) -> f64 {
        match self {
            SensitivityRule::Tight => 1.0,
            SensitivityRule::Paper => 2.0,
        }
    }
}

/// The candidate set / sampler (spec §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetKind {
    Grid,
    Random,
    Mcmc,
}
param_words!(NetKind: "grid" => Grid, "random" => Random, "mcmc" => Mcmc);

/// Score sensitivity Δ_u = κ·log θ/(nι) (spec §5, W1), rounded up.
pub fn score_sensitivity(theta: f64, n: usize, iota: f64, rule: SensitivityRule) -> f64 {
    crate::privacy::div_up(
        crate::privacy::mul_up(rule.kappa(), crate::privacy::up(theta.ln())),
        crate::privacy::mul_up(n as f64, iota),
    )
}

/// The default ι = (1/τ)·(d_eff·ln n·ln(1/η)/(nε))^{1/θ} (spec §5 "heavydp defaults",
/// W5, W6), with d_eff = d (`norm`) or 1 (`coord`). Pass ε = [`formula_epsilon`].
pub fn default_iota(
    n: usize,
    d: usize,
    epsilon: f64,
    theta: f64,
    tau: f64,
    fail_prob: f64,
    kind: MomentKind,
) -> f64 {
    let d_eff = match kind {
        MomentKind::Norm => d as f64,
        MomentKind::Coord => 1.0,
    };
    let n_f = n as f64;
    (d_eff * n_f.ln() * (1.0 / fail_prob).ln() / (n_f * epsilon)).powf(1.0 / theta) / tau
}

/// The default cap on the number of candidates: min(2^18, max(2^12, W_θ/n)) with
/// W_2 = 2^33 and W_θ = 2^29 (θ < 2) residual evaluations — a public compute-budget rule
/// (deviation from the spec's flat 2^18; see the module docs for the timings).
pub fn default_max_candidates(n: usize, theta: f64) -> u64 {
    let w = if theta == 2.0 {
        WORK_BUDGET_THETA_TWO
    } else {
        WORK_BUDGET_THETA_LT_TWO
    };
    let by_work = (w / n.max(1) as f64).floor() as u64;
    by_work.clamp(MIN_DEFAULT_CANDIDATES, SPEC_MAX_CANDIDATES)
}

/// The public, ζ-dependent terms of the explicit utility bounds (spec §5 "Utility
/// statements"): θ = 2 (eq. 14) 3ζτ + ιζ²τ²; θ < 2 (eq. 26) 3ζτ + 2(2ι)^{θ−1}ζ^θτ^θ/θ.
pub fn utility_net_terms(theta: f64, tau: f64, iota: f64, zeta: f64) -> f64 {
    if theta == 2.0 {
        3.0 * zeta * tau + iota * zeta * zeta * tau * tau
    } else {
        3.0 * zeta * tau
            + 2.0 * (2.0 * iota).powf(theta - 1.0) * zeta.powf(theta) * tau.powf(theta) / theta
    }
}

/// The exponential mechanism's utility loss (2Δ_u/ε)·log(N/η) (Lemma 1 with
/// t = log(1/η)); 0 at ε = ∞.
pub fn utility_mechanism_term(score_sensitivity: f64, epsilon: f64, n_cand: u64, eta: f64) -> f64 {
    if epsilon.is_infinite() {
        0.0
    } else {
        2.0 * score_sensitivity / epsilon * (n_cand as f64 / eta).ln()
    }
}

/// `l1-regression-expmech` (Wang & Xu Alg. 1 and 2). See the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct L1RegressionExpMech {
    pub theta: f64,
    pub moment_kind: MomentKind,
    pub tau: f64,
    pub fail_prob: f64,
    pub iota: Option<f64>,
    pub zeta: Option<f64>,
    pub net: NetKind,
    pub max_candidates: Option<u64>,
    pub sensitivity: SensitivityRule,
    pub mcmc_steps: usize,
    pub mcmc_step: Option<f64>,
}

impl Default for L1RegressionExpMech {
    fn default() -> Self {
        L1RegressionExpMech {
            theta: 2.0,
            moment_kind: MomentKind::Norm,
            tau: 1.0,
            fail_prob: 0.05,
            iota: None,
            zeta: None,
            net: NetKind::Grid,
            max_candidates: None,
            sensitivity: SensitivityRule::Tight,
            mcmc_steps: 5000,
            mcmc_step: None,
        }
    }
}

/// The resolved, public plan of a fit.
#[derive(Debug, Clone, PartialEq)]
pub struct L1ExpMechPlan {
    pub n: usize,
    pub d: usize,
    pub theta: f64,
    pub iota: f64,
    /// Δ_u = κ log θ/(nι).
    pub score_sensitivity: f64,
    pub net: NetKind,
    /// The cap used for the grid search / the number of random candidates.
    pub max_candidates: u64,
    /// The grid resolution used (`grid` only).
    pub zeta: Option<f64>,
    /// ζ_min of the default rule (`grid` with default ζ only).
    pub zeta_min: Option<f64>,
    /// Number of candidates scored, N (`grid`, `random`).
    pub candidates: Option<u64>,
    /// `mcmc`: number of proposals and proposal σ.
    pub mcmc_steps: Option<usize>,
    pub mcmc_step: Option<f64>,
    /// R = max_{w∈W}‖w‖₂.
    pub radius: f64,
    /// The additive δ of the floating-point Gumbel-max sampler, (1 + e^ε)·N·2⁻⁵⁰ rounded
    /// up ([`sampler::sampler_delta`]; `grid`, `random` at finite ε; 0 otherwise).
    pub sampler_delta: f64,
}

fn bad(param: &str, reason: impl Into<String>) -> FitError {
    FitError::BadParameter {
        algorithm: NAME,
        param: param.into(),
        reason: reason.into(),
    }
}

const OPTIONS: &str = "choose a coarser --param zeta, a larger --param max_candidates (slower: a fit costs N*n residual evaluations), --param net=random (the same (epsilon, delta) guarantee over max_candidates uniform points of W, not covered by the utility theorems) or --param net=mcmc (heuristic, privacy uncertified)";

impl L1RegressionExpMech {
    pub fn from_params(params: &ParamMap) -> Result<Self, FitError> {
        let p = DESCRIPTOR.params_with_aliases(params, &["theta"])?;
        let parse_theta = |key: &str| -> Result<Option<f64>, FitError> {
            match p.string(key) {
                None => Ok(None),
                Some(v) => match v.parse::<f64>() {
                    Ok(t) if t.is_finite() => Ok(Some(t)),
                    _ => Err(bad(key, format!("expected a number in (1, 2], got '{v}'"))),
                },
            }
        };
        let theta = match (parse_theta("moment")?, parse_theta("theta")?) {
            (Some(a), Some(b)) if a != b => {
                return Err(bad(
                    "theta",
                    format!("moment = {a} and theta = {b} disagree (theta is an alias of moment)"),
                ))
            }
            (Some(a), _) => {
                check_theta(a, "moment")?;
                a
            }
            (None, Some(b)) => {
                check_theta(b, "theta")?;
                b
            }
            (None, None) => 2.0,
        };
        let net = p.pick("net", NetKind::WORDS)?;
        let zeta = p.positive("zeta")?;
        if zeta.is_some() && net != NetKind::Grid {
            return Err(bad("zeta", "the net resolution applies to net=grid only"));
        }
        let max_candidates = p.integer("max_candidates", 1)?.map(|m| m as u64);
        if max_candidates.is_some() && net == NetKind::Mcmc {
            return Err(bad(
                "max_candidates",
                "applies to net=grid and net=random only (net=mcmc has no candidate set)",
            ));
        }
        let mcmc_steps = p.integer("mcmc_steps", 1)?;
        let mcmc_step = p.positive("mcmc_step")?;
        if net != NetKind::Mcmc {
            if mcmc_steps.is_some() {
                return Err(bad("mcmc_steps", "applies to net=mcmc only"));
            }
            if mcmc_step.is_some() {
                return Err(bad("mcmc_step", "applies to net=mcmc only"));
            }
        }
        Ok(L1RegressionExpMech {
            theta,
            moment_kind: p.pick("moment_kind", MomentKind::WORDS)?,
            tau: p.positive("tau")?.unwrap_or(1.0),
            fail_prob: fail_prob_param(NAME, &p)?,
            iota: p.positive("iota")?,
            zeta,
            net,
            max_candidates,
            sensitivity: p.pick("sensitivity", SensitivityRule::WORDS)?,
            mcmc_steps: mcmc_steps.unwrap_or(5000),
            mcmc_step,
        })
    }

    pub fn info() -> AlgorithmInfo {
        AlgorithmInfo {
            name: NAME,
            use_when: "low-d median (l1) regression, heavy tails, pure DP; slow",
            paper: "Wang & Xu, Alg. 1 and 2",
            privacy: "approx",
            losses: vec!["absolute"],
            domains: vec!["l2-ball", "l1-ball", "simplex", "polytope"],
            parameters: vec![
                ParamInfo {
                    name: "moment",
                    default: "2",
                    meaning: "moment order theta in (1, 2] (alias: theta): 2 = Alg. 1, (1,2) = Alg. 2",
                    source: "Wang & Xu Alg. 1/2; spec W12",
                },
                ParamInfo {
                    name: "moment_kind",
                    default: "norm",
                    meaning: "norm: E||x||^theta <= tau^theta (d_eff = d); coord: E|x_j|^theta <= tau^theta (d_eff = 1)",
                    source: "Assumptions 1-4 (spec §5)",
                },
                ParamInfo {
                    name: "tau",
                    default: "1",
                    meaning: "user-declared moment bound tau",
                    source: "Assumptions 1-4",
                },
                ParamInfo {
                    name: "fail_prob",
                    default: "0.05",
                    meaning: "failure probability eta of the utility statements",
                    source: "Thm 1-2",
                },
                ParamInfo {
                    name: "iota",
                    default: "(1/tau) (d_eff ln n ln(1/eta) / (n eps))^(1/theta)",
                    meaning: "truncation scale iota of the score",
                    source: "Thm 1-2; spec §5 defaults, W5, W6",
                },
                ParamInfo {
                    name: "sensitivity",
                    default: "tight",
                    meaning: "score sensitivity: tight = log(theta)/(n iota), paper = 2 log(theta)/(n iota)",
                    source: "spec W1",
                },
                ParamInfo {
                    name: "net",
                    default: "grid",
                    meaning: "grid (exact zeta-net, approx: delta = (1 + e^eps) N 2^-50), random (max_candidates uniform points of W, approx, no utility theorem), mcmc (heuristic, privacy none)",
                    source: "spec §6, W13",
                },
                ParamInfo {
                    name: "zeta",
                    default: "max(1/n, zeta_min)",
                    meaning: "grid net resolution; zeta_min = smallest zeta with <= max_candidates grid points",
                    source: "Thm 1-2 (zeta = O(1/n)); spec §5 defaults",
                },
                ParamInfo {
                    name: "max_candidates",
                    default: "min(2^18, max(2^12, W/n)), W = 2^33 (theta = 2) or 2^29 (theta < 2)",
                    meaning: "cap on the grid net size / number of random candidates (compute budget: N*n residual evaluations)",
                    source: "spec §5 defaults (2^18), public compute-budget rule",
                },
                ParamInfo {
                    name: "mcmc_steps",
                    default: "5000",
                    meaning: "net=mcmc: Metropolis proposals",
                    source: "heuristic (spec §6)",
                },
                ParamInfo {
                    name: "mcmc_step",
                    default: "R min(1, (2.38/sqrt(d)) sqrt(2 kappa log(theta)/(n iota eps)))",
                    meaning: "net=mcmc: Gaussian proposal standard deviation",
                    source: "heuristic (spec §6)",
                },
            ],
        }
    }

    /// Resolves every parameter from public quantities (n, d, ε, θ, τ, η, W, the caps)
    /// and performs every check of [`PrivateAlgorithm::validate`].
    pub fn plan(&self, problem: &Problem, budget: &Budget) -> Result<L1ExpMechPlan, FitError> {
        check_theta(self.theta, "moment")?;
        let domain = problem.domain;
        let dname = domain.describe()["kind"].as_str().unwrap_or("").to_string();
        if self.net == NetKind::Random && dname != "l2-ball" && dname != "l1-ball" {
            return Err(FitError::Unsupported {
                algorithm: NAME,
                reason: format!(
                    "net=random samples uniform points of the l2-ball or l1-ball only; the domain '{dname}' needs net=grid"
                ),
            });
        }
        // The budget's δ is checked at the end of the plan, against the sampler's δ for
        // the actual number of candidates N (a more specific message than "needs δ > 0").
        check_common(
            NAME,
            PrivacyModel::Pure,
            problem,
            budget,
            &["absolute"],
            &["l2-ball", "l1-ball", "simplex", "polytope"],
        )?;
        if !domain.is_convex() {
            return Err(FitError::Unsupported {
                algorithm: NAME,
                reason: "the domain must be convex".into(),
            });
        }
        let n = problem.data.n();
        let d = problem.data.d();
        if n < 2 {
            return Err(FitError::TooFewRecords {
                algorithm: NAME,
                n,
                needed: 2,
            });
        }
        if self.net == NetKind::Mcmc && budget.is_non_private() {
            return Err(FitError::Unsupported {
                algorithm: NAME,
                reason: "net=mcmc samples a density at finite epsilon; for epsilon = inf use net=grid (exact argmin over the net)".into(),
            });
        }
        let eps_f = formula_epsilon(budget);
        let iota = match self.iota {
            Some(i) => i,
            None => default_iota(
                n,
                d,
                eps_f,
                self.theta,
                self.tau,
                self.fail_prob,
                self.moment_kind,
            ),
        };
        if !(iota.is_finite() && iota > 0.0) {
            return Err(bad(
                "iota",
                "the default truncation scale is not a positive finite number for these n, epsilon, tau; give --param iota",
            ));
        }
        let score_sensitivity = score_sensitivity(self.theta, n, iota, self.sensitivity);
        let radius = domain.l2_radius();
        let max_candidates = self
            .max_candidates
            .unwrap_or_else(|| default_max_candidates(n, self.theta));
        let mut plan = L1ExpMechPlan {
            n,
            d,
            theta: self.theta,
            iota,
            score_sensitivity,
            net: self.net,
            max_candidates,
            zeta: None,
            zeta_min: None,
            candidates: None,
            mcmc_steps: None,
            mcmc_step: None,
            radius,
            sampler_delta: 0.0,
        };
        match self.net {
            NetKind::Grid => {
                let (zeta, count, zmin) = match self.zeta {
                    Some(z) => match GridNet::with_cap(domain, z, max_candidates) {
                        Ok(g) => (z, g.count(), None),
                        Err(NetError::TooManyPoints { .. }) | Err(NetError::BoxTooLarge { .. }) => {
                            return Err(bad(
                                "zeta",
                                format!(
                                    "the grid net at zeta = {z:e} has more than max_candidates = {max_candidates} points (or its bounding box is too large to enumerate); {OPTIONS}"
                                ),
                            ))
                        }
                        Err(e) => return Err(bad("zeta", e.to_string())),
                    },
                    None => {
                        let zm = zeta_min(domain, max_candidates).ok_or_else(|| {
                            FitError::Unsupported {
                                algorithm: NAME,
                                reason: format!(
                                    "no grid net of this domain has at most max_candidates = {max_candidates} points; {OPTIONS}"
                                ),
                            }
                        })?;
                        if zm.zeta >= radius {
                            return Err(FitError::Unsupported {
                                algorithm: NAME,
                                reason: format!(
                                    "the finest grid net with at most max_candidates = {max_candidates} points in d = {d} has resolution zeta_min = {:.4} >= R = {radius} (no better than the single point 0); {OPTIONS}",
                                    zm.zeta
                                ),
                            });
                        }
                        let target = 1.0 / n as f64;
                        match (target > zm.zeta)
                            .then(|| grid_count(domain, target, max_candidates))
                            .flatten()
                        {
                            Some(c) => (target, c, Some(zm.zeta)),
                            None => (zm.zeta, zm.count, Some(zm.zeta)),
                        }
                    }
                };
                plan.zeta = Some(zeta);
                plan.zeta_min = zmin;
                plan.candidates = Some(count);
            }
            NetKind::Random => {
                plan.candidates = Some(max_candidates);
            }
            NetKind::Mcmc => {
                let eps = budget.epsilon;
                let step = self.mcmc_step.unwrap_or_else(|| {
                    radius
                        * (2.38 / (d as f64).sqrt()
                            * (2.0 * self.sensitivity.kappa() * self.theta.ln()
                                / (n as f64 * iota * eps))
                                .sqrt())
                        .min(1.0)
                });
                plan.mcmc_steps = Some(self.mcmc_steps);
                plan.mcmc_step = Some(step);
            }
        }
        if let (Some(count), false) = (plan.candidates, budget.is_non_private()) {
            let needed = sampler::sampler_delta(budget.epsilon, count);
            plan.sampler_delta = needed;
            if needed > budget.delta {
                let fix = if budget.delta == 0.0 {
                    "--delta 0 (pure epsilon-DP) cannot be met; give --delta".to_string()
                } else {
                    format!("--delta {:e} is too small; give --delta", budget.delta)
                };
                return Err(FitError::Unsupported {
                    algorithm: NAME,
                    reason: format!(
                        "the floating-point streaming Gumbel-max sampler is epsilon-DP only up to an additive delta = (1 + e^eps)*N*2^-50 = {needed:e} for N = {count} candidates at epsilon = {} (docs/privacy.md §5), so {fix} >= {needed:e} (or use fewer candidates, --param max_candidates)",
                        budget.epsilon
                    ),
                });
            }
        }
        Ok(plan)
    }
}

fn check_theta(theta: f64, key: &str) -> Result<(), FitError> {
    if theta.is_finite() && theta > 1.0 && theta <= 2.0 {
        Ok(())
    } else {
        Err(bad(
            key,
            format!(
                "the moment order theta must be in (1, 2] (2: Algorithm 1; (1, 2): Algorithm 2); theta <= 1 degenerates (log theta <= 0, spec W12) and theta > 2 is not covered by the paper; got {theta}"
            ),
        ))
    }
}

impl PrivateAlgorithm for L1RegressionExpMech {
    /// `approx`: the floating-point Gumbel-max sampler is ε-DP up to an additive δ
    /// (docs/privacy.md §5); `none` for the uncertified `mcmc`. Reads the features only
    /// through the kernel's `Dataset::block`.
    fn identity(&self) -> Identity {
        let model = match self.net {
            NetKind::Mcmc => PrivacyModel::None,
            _ => PrivacyModel::Approx,
        };
        Identity::mapped(NAME, model)
    }
    fn validate(&self, problem: &Problem, budget: &Budget) -> Result<(), FitError> {
        self.plan(problem, budget).map(|_| ())
    }
    fn fit_validated(&self, inputs: FitInputs) -> Result<FitReport, FitError> {
        let (problem, budget, rng, observer) = inputs.parts();
        let plan = self.plan(problem, &budget)?;
        let data = problem.data;
        let domain = problem.domain;
        let score = TruncatedScore::new(plan.theta, plan.iota);
        let kappa = self.sensitivity.kappa();
        let mut ledger = PrivacyLedger::new(budget, Accountant::Basic);
        let temperature = if budget.is_non_private() {
            0.0
        } else {
            2.0 * kappa * plan.theta.ln() / budget.epsilon
        };
        let mut h = BTreeMap::new();
        hp(&mut h, "moment", plan.theta);
        hp(
            &mut h,
            "paper_algorithm",
            if plan.theta == 2.0 { 1 } else { 2 },
        );
        hp(&mut h, "moment_kind", self.moment_kind.name());
        hp(&mut h, "tau", self.tau);
        hp(&mut h, "fail_prob", self.fail_prob);
        hp(&mut h, "iota", plan.iota);
        hp(
            &mut h,
            "iota_source",
            if self.iota.is_some() {
                "user"
            } else {
                "default"
            },
        );
        hp(&mut h, "sensitivity", self.sensitivity.name());
        hp(&mut h, "score_sensitivity", plan.score_sensitivity);
        hp(&mut h, "exponent_temperature", temperature);
        hp(&mut h, "net", plan.net.name());
        hp(&mut h, "radius", plan.radius);
        let mut notes = vec![];
        let weights = match plan.net {
            NetKind::Grid | NetKind::Random => {
                let grid;
                let random;
                let net: &dyn CandidateSet = if plan.net == NetKind::Grid {
                    let zeta = plan.zeta.expect("grid plan has zeta");
                    grid = GridNet::with_cap(domain, zeta, plan.max_candidates)
                        .map_err(|e| bad("zeta", e.to_string()))?;
                    &grid
                } else {
                    random = RandomNet::new(domain, plan.max_candidates, rng).map_err(|e| {
                        FitError::Unsupported {
                            algorithm: NAME,
                            reason: e.to_string(),
                        }
                    })?;
                    &random
                };
                let n_cand = net.count();
                let mech = NetExponentialMechanism {
                    net,
                    score,
                    epsilon: budget.epsilon,
                    kappa,
                };
                // charged first; then the streaming selection reports the candidate
                // blocks scored (public counts) to the observer
                ledger.charge("exponential mechanism over the candidate set", mech.cost())?;
                observer.on_start(sampler::candidate_blocks(n_cand) as usize);
                let selected = mech
                    .run_with_progress(data, rng, &mut |done| observer.on_iteration(done as usize));
                observer.on_finish();
                hp(&mut h, "candidates", n_cand);
                if !budget.is_non_private() {
                    hp(&mut h, "sampler_delta", plan.sampler_delta);
                    notes.push(format!(
                        "the streaming Gumbel-max sampler works in floating point: epsilon-DP up to an additive delta = (1 + e^eps)*N*2^-50 = {:e} (N = {n_cand}), charged to the ledger (docs/privacy.md §5)",
                        plan.sampler_delta
                    ));
                }
                hp(&mut h, "max_candidates", plan.max_candidates);
                hp(&mut h, "privacy_exact", true);
                hp(
                    &mut h,
                    "utility_mechanism_term",
                    utility_mechanism_term(
                        plan.score_sensitivity,
                        budget.epsilon,
                        n_cand,
                        self.fail_prob,
                    ),
                );
                if let Some(z) = plan.zeta {
                    hp(&mut h, "zeta", z);
                    hp(&mut h, "grid_spacing", 2.0 * z / (plan.d as f64).sqrt());
                    if let Some(zm) = plan.zeta_min {
                        hp(&mut h, "zeta_min", zm);
                    }
                    hp(
                        &mut h,
                        "utility_net_terms",
                        utility_net_terms(plan.theta, self.tau, plan.iota, z),
                    );
                } else {
                    hp(&mut h, "zeta", serde_json::Value::Null);
                    notes.push(format!(
                        "net=random: {n_cand} uniform candidates of W; the same (epsilon, delta) guarantee as the grid, but not a zeta-net, so Theorems 1-2 do not cover the result (covering radius ~ diameter*(log M/M)^(1/d))"
                    ));
                }
                selected.point
            }
            NetKind::Mcmc => {
                let steps = plan.mcmc_steps.expect("mcmc plan");
                let step = plan.mcmc_step.expect("mcmc plan");
                ledger.charge(
                    "metropolis random walk (uncertified)",
                    Cost::Pure {
                        epsilon: budget.epsilon,
                    },
                )?;
                let settings = McmcSettings {
                    steps,
                    step,
                    coef: sampler::coefficient(budget.epsilon, kappa, plan.theta, plan.n),
                };
                observer.on_start(steps);
                let w = metropolis(domain, &score, data, settings, rng, |t| {
                    observer.on_iteration(t)
                });
                observer.on_finish();
                hp(&mut h, "mcmc_steps", steps);
                hp(&mut h, "mcmc_step", step);
                hp(&mut h, "privacy_exact", false);
                hp(&mut h, "zeta", serde_json::Value::Null);
                notes.push(MCMC_NOTE.to_string());
                w
            }
        };
        if budget.is_non_private() {
            notes.push(
                "epsilon = inf: exact argmin of the truncated risk over the net (no random draws for the selection); the default iota is evaluated at epsilon = 1".into(),
            );
        }
        let trace = vec![TraceRecord {
            iteration: 1,
            step_size: 0.0,
            noise_scale: temperature,
            epsilon_spent: ledger.spent().0,
        }];
        let privacy = ledger.summary(self.privacy_model());
        Ok(FitReport::fixed_iterations(
            weights, privacy, h, trace, notes,
        ))
    }
}
