//! The private mean estimators behind `heavydp mean --estimator NAME` (CONTRACT):
//! `clip`, `iterative-updating`, `catoni`, `sparse-peeling`.
//!
//! Each validates its inputs (shapes, non-finite values, parameters, budget) before any
//! work, charges one [`PrivacyLedger`] before its single release, and reports the mean, the
//! privacy spent, every hyperparameter used and public notes. Errors depend only on
//! shapes, flags, public parameters and the position of non-finite values — never on data
//! values. ε = ∞ runs the same computation with the noise removed (no noise draws): the
//! non-private estimator. Its data-independent defaults are those of ε = 1 (and of
//! δ = n^{−1.1} when δ = 0), as everywhere in heavydp ([`crate::algorithms::formula_epsilon`]).
//!
//! | `--estimator` | paper / spec | privacy | release |
//! |---|---|---|---|
//! | `clip` | Zhao et al. Alg. 2, Lemma 4, Theorem 2 (spec Zhao §3) | ρ-zCDP, reported with its (ε, δ) by Lemma 1(4) (`zcdp`) | clipped mean + N(0, 2R²/(ρn²) I) |
//! | `iterative-updating` | Zhao et al. Alg. 3, Theorem 5/6 (spec Zhao §4–§5) | `conservative` (default): ρ-zCDP for the vector of group means by parallel composition (`zcdp`); `shuffle`: (ε, δ) relying on Theorem 6 (`approx`) | k noisy group means, then post-processing |
//! | `catoni` | Hu et al. §A.5 (derived, not in the paper) | pure ε-DP (`pure`) | Catoni–Giulini coordinate means + Lap(d·4√2k/(3nε)) |
//! | `sparse-peeling` | Hu et al. §E.1 (derived, not in the paper) | (ε, δ)-DP (`approx`), Lemma 10 | Peeling(robust coordinate means, s, λ = 4√2k/(3n)) |
//!
//! **Deviation (`iterative-updating`).** The spec's public defaults (R of Theorem 7's
//! form, t_c from r_0 of (95)) leave the group means noise-dominated in the default
//! conservative accounting unless n is very large (σ ≈ 9 per coordinate and t_c = 1, i.e.
//! the estimate stays at c_1 = 0, at n = 2·10⁴, d = 3, ε = 1, δ = 10⁻⁵). heavydp's
//! conservative defaults balance R against the group noise and take t_c from the practical
//! error scale; see [`crate::estimators::iterative_updating`] ("Accuracy").
//!
//! # Parameters
//!
//! `clip`:
//!
//! | name | paper symbol | default | source |
//! |---|---|---|---|
//! | `p` | p | 2 | moment order of Assumption 1(c) (user-declared, ≥ 2) |
//! | `M` | M | 1 | moment bound E\|⟨u, X⟩\|^p ≤ M^p (user-declared) |
//! | `R` | R | M√d·(n√ρ/√d)^{1/p} | spec Zhao §3 (Theorem 4's R without T, Z12) |
//! | `rho_rule` | ρ | `eq15`: ρ of (15) for ε ≤ 1, exact inversion for ε > 1; `exact`: exact inversion | Theorem 3, spec Z14 |
//!
//! `iterative-updating`:
//!
//! | name | paper symbol | default | source |
//! |---|---|---|---|
//! | `p`, `M` | p, M | 2, 1 | as for `clip` |
//! | `R` | R | conservative: M√d·(n√ρ/(k√d))^{1/p} (noise/bias balance, project); shuffle: M√d·(nε/√d)^{1/p} | project deviation; spec Zhao §4.3 (Theorem 7's form, Z12) |
//! | `k` | k | max(2, min(⌈8 ln n⌉, ⌊n/2⌋)); `paper`: ⌈800 ln(1/0.05)⌉ = 2397 | spec §4.3, Z9; Lemma 6 |
//! | `t_c` | t_c | max(1, ⌈2 ln(R/(4r_0))/ln(256/233)⌉) with the practical r_0 = √2Rk√d/(n√ρ) + M√(dk/n) | Lemma 8, spec §4.3, Z10 (deviation: (95)'s constants give t_c = 1) |
//! | `estimate` | — | `multistart` (`exact`: d ≤ 2 or k ≤ 20) | spec §5.2 |
//! | `accounting` | — | `conservative` (ρ from `rho_rule`); `shuffle`: ρ of (24), refused unless [`zhao_shuffle_preconditions`] pass | spec §4.1 (Reviewed), Z7 |
//! | `rho_rule` | ρ | `eq15` (conservative accounting only) | Theorem 3, Z14 |
//! | c_1, η_c | c_1, η_c | 0, 1/4 (fixed) | spec §4.3, Lemma 8 |
//!
//! `catoni` (`sparse-peeling` shares `tau`, `beta`, `k`):
//!
//! | name | paper symbol | default | source |
//! |---|---|---|---|
//! | `tau` | τ | 1 | second-moment bound E x_j² ≤ τ (user-declared) |
//! | `beta` | β | 1 | spec Hu §A.5, H19 |
//! | `k` | scale s | √(3nετ(1 + 1/β)/(8√2·d)) (`catoni`); (n²ε²τ²/(s² ln(s/ζ)))^{1/4} (`sparse-peeling`) | spec Hu §A.5; §E.1 (Alg. 5's proof formula with T = 1) |
//! | `s` | s | required, 1 ≤ s ≤ d (`sparse-peeling`) | spec Hu §E.1 |
//! | `fail_prob` | ζ | 0.05 (`sparse-peeling`) | spec Hu §E.1 |
//! | δ | δ | n^{−1.1} when the budget's δ is 0 (`sparse-peeling`) | spec Hu X.2 |

use super::catoni::CatoniGiulini;
use super::clip::{clip_default_radius, clip_sensitivity, clip_sigma, clipped_row_sum};
use super::iterative_updating::{
    check_solver, default_groups, default_t_c, iu_conservative_radius, iu_default_radius,
    noisy_group_means, paper_groups, r0_eq95, r0_practical, refine, EstimateSolver, IuConfig,
};
use super::EstimatorError;
use crate::mechanisms::{release, GaussianMechanism, LaplaceMechanism, Mechanism, Peeling};
use crate::params::{
    fail_prob_param, formula_epsilon, hp, key, with_default_delta, AlgorithmInfo, FitError,
    ParamInfo, ParamMap, Params,
};
use crate::privacy::{
    calibration_target, div_up, mul_up, shuffle_amplification, zcdp_to_approx, zhao_rho_eq24,
    zhao_shuffle_preconditions, zhao_target_rho, Accountant, Budget, Cost, PrivacyError,
    PrivacyLedger, PrivacyModel, PrivacySpent, RhoRule,
};
use rand::RngCore;
use serde::Serialize;
use std::collections::BTreeMap;

/// What a private mean estimate returns (`heavydp mean` prints `mean` and `privacy`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeanReport {
    /// The released mean, length d.
    pub mean: Vec<f64>,
    /// What was spent, from the ledger.
    pub privacy: PrivacySpent,
    /// Every hyperparameter actually used (defaults resolved; public quantities only).
    pub hyperparameters: BTreeMap<String, serde_json::Value>,
    /// Public remarks (guarantee labels, defaults applied).
    pub notes: Vec<String>,
}

const NAMES: [&str; 4] = ["clip", "iterative-updating", "catoni", "sparse-peeling"];

/// The CONTRACT names of the mean estimators.
pub fn mean_estimator_names() -> &'static [&'static str] {
    &NAMES
}

fn pm(
    name: &'static str,
    default: &'static str,
    meaning: &'static str,
    source: &'static str,
) -> ParamInfo {
    ParamInfo {
        name,
        default,
        meaning,
        source,
    }
}

/// The documentation row of a mean estimator: (name, privacy model), (use when, paper)
/// and its parameters; no losses or domains.
fn mean_info(
    (name, privacy): (&'static str, &'static str),
    (use_when, paper): (&'static str, &'static str),
    parameters: Vec<ParamInfo>,
) -> AlgorithmInfo {
    AlgorithmInfo {
        name,
        paper,
        use_when,
        privacy,
        losses: vec![],
        domains: vec![],
        parameters,
    }
}

/// Documentation rows of the four estimators (name, paper, privacy model, parameters);
/// `losses` and `domains` are empty.
pub fn mean_estimator_info() -> Vec<AlgorithmInfo> {
    let moment = [
        pm(
            "p",
            "2",
            "moment order p >= 2 of the declared bound E|<u,X>|^p <= M^p",
            "Zhao Assumption 1(c)",
        ),
        pm("M", "1", "declared moment bound M", "Zhao Assumption 1(c)"),
    ];
    let rho_rule = pm(
        "rho_rule",
        "eq15",
        "eq15: rho of eq. (15) for epsilon <= 1, exact inversion of Lemma 1(4) for epsilon > 1; exact: always the exact inversion",
        "Zhao Thm 3; spec Z14",
    );
    let robust = [
        pm(
            "tau",
            "1",
            "declared second-moment bound E x_j^2 <= tau",
            "Hu Lemma 4 (spec A.3)",
        ),
        pm(
            "beta",
            "1",
            "precision of the multiplicative noise of the Catoni-Giulini estimator",
            "spec Hu A.5, H19",
        ),
    ];
    vec![
        mean_info(
            ("clip", "zcdp"),
            ("mean of light-to-moderate tails, declared moment bound M", "Zhao, Wu, Liu, Wang, Fan & Li, Alg. 2 (simple clipping mean)"),
            vec![
                moment[0].clone(),
                moment[1].clone(),
                pm("R", "M sqrt(d) (n sqrt(rho)/sqrt(d))^(1/p)", "l2 clipping radius", "spec Zhao §3 (Thm 4's R without T, Z12)"),
                rho_rule.clone(),
            ],
        ),
        mean_info(
            ("iterative-updating", "zcdp"),
            ("mean under heavy tails, large n, declared moment bound M", "Zhao, Wu, Liu, Wang, Fan & Li, Alg. 3 (iterative updating mean)"),
            vec![
                moment[0].clone(),
                moment[1].clone(),
                pm("R", "M sqrt(d) (n eps/sqrt(d))^(1/p)", "l2 clipping radius of the group means", "spec Zhao §4.3 (Thm 7's form, Z12)"),
                pm("k", "max(2, min(ceil(8 ln n), floor(n/2)))", "number of groups; k=paper: ceil(800 ln 20) = 2397", "spec Zhao §4.3, Z9; Lemma 6"),
                pm("t_c", "max(1, ceil(2 ln(R/(4 r0))/ln(256/233))), r0 of (95)", "number of centre updates", "Zhao Lemma 8; spec §4.3, Z10"),
                pm("estimate", "multistart", "solver of problem (27): multistart (spec §5.2) or exact (d <= 2 or k <= 20)", "spec Zhao §5"),
                pm("accounting", "conservative", "conservative: rho-zCDP by parallel composition (always valid); shuffle: UNPROVEN - rho of (24) and the (eps, delta) of Theorem 6, not established for group means (Z7)", "spec Zhao §4.1"),
                rho_rule,
            ],
        ),
        mean_info(
            ("catoni", "pure"),
            ("coordinate-wise means, heavy tails, pure DP; declare tau", "Hu, Ni, Xiao & Wang, Catoni-Giulini coordinate means + Laplace (spec §A.5, derived)"),
            vec![
                robust[0].clone(),
                robust[1].clone(),
                pm("k", "sqrt(3 n eps tau (1 + 1/beta)/(8 sqrt(2) d))", "truncation scale of the estimator", "spec Hu §A.5"),
            ],
        ),
        mean_info(
            ("sparse-peeling", "approx"),
            ("sparse high-d mean (few non-zero coordinates)", "Hu, Ni, Xiao & Wang, robust coordinate means + Peeling (spec §E.1, derived)"),
            vec![
                pm("s", "required", "sparsity of the released mean (1 <= s <= d)", "spec Hu §E.1"),
                robust[0].clone(),
                robust[1].clone(),
                pm("k", "(n^2 eps^2 tau^2/(s^2 ln(s/fail_prob)))^(1/4)", "truncation scale of the estimator", "spec Hu §E.1 (Alg. 5's proof formula with T = 1)"),
                pm("fail_prob", "0.05", "failure probability zeta in the default k", "spec Hu §E.1"),
                crate::mechanisms::PeelingCalibration::param_info(),
            ],
        ),
    ]
}

/// A private mean of the rows of `x` (n × d, row-major) by the estimator `name`, within
/// `budget`. See the module documentation for the estimators, their guarantees and their
/// parameters.
///
/// # Errors
/// An unknown estimator or parameter; a malformed parameter; n = 0, d = 0 or
/// `x.len() != n·d`; a NaN or infinite entry (its row and column are named, not its value);
/// an invalid budget (ε ≤ 0 or NaN, δ ∉ [0, 1)); δ = 0 for `clip` and `iterative-updating`;
/// k > n groups; `estimate=exact` outside its range; `accounting=shuffle` outside the
/// range of Theorem 6; a Peeling (ε, δ, s) that does not certify.
pub fn private_mean(
    name: &str,
    x: &[f64],
    n: usize,
    d: usize,
    budget: Budget,
    params: &ParamMap,
    rng: &mut dyn RngCore,
) -> Result<MeanReport, FitError> {
    let Some(&est) = NAMES.iter().find(|&&e| e == name) else {
        return Err(FitError::Unsupported {
            algorithm: "mean",
            reason: format!(
                "unknown estimator '{name}' (accepted: {})",
                NAMES.join(", ")
            ),
        });
    };
    // the accepted keys are the estimator's documented parameters (one table)
    let accepted: Vec<&str> = mean_estimator_info()
        .into_iter()
        .find(|info| info.name == est)
        .map(|info| info.parameters.iter().map(|p| p.name).collect())
        .unwrap_or_default();
    let p = Params::new(est, params, &accepted)?;
    let budget = Budget::new(budget.epsilon, budget.delta)?;
    check_data(est, x, n, d)?;
    let input = MeanInput {
        x,
        n,
        d,
        budget,
        p: &p,
    };
    match est {
        "clip" => clip_mean(&input, rng),
        "iterative-updating" => iu_mean(&input, rng),
        "catoni" => catoni_mean(&input, rng),
        _ => peeling_mean(&input, rng),
    }
}

/// What every estimator reads: the n × d row-major data, the validated budget and the
/// parameters (names already checked).
#[derive(Clone, Copy)]
struct MeanInput<'a> {
    x: &'a [f64],
    n: usize,
    d: usize,
    budget: Budget,
    p: &'a Params<'a>,
}

/// The one data release of `clip`, `catoni` and `sparse-peeling`: `mech` on `value`,
/// charged under `label` to a fresh ledger of `budget`.
fn release_once<M>(
    budget: Budget,
    accountant: Accountant,
    label: &str,
    mech: &M,
    value: &[f64],
    rng: &mut dyn RngCore,
) -> Result<(Vec<f64>, PrivacyLedger), FitError>
where
    M: Mechanism<Input = [f64], Output = Vec<f64>>,
{
    let mut ledger = PrivacyLedger::new(budget, accountant);
    let released = release(&mut ledger, label, mech, value, rng)?;
    Ok((released, ledger))
}

/// The report of an estimate: what the ledger spent (under `model`), the hyperparameters
/// and the notes.
fn report(
    mean: Vec<f64>,
    ledger: &PrivacyLedger,
    model: PrivacyModel,
    hyperparameters: BTreeMap<String, serde_json::Value>,
    notes: Vec<String>,
) -> MeanReport {
    let privacy = ledger.summary(model);
    MeanReport {
        mean,
        privacy,
        hyperparameters,
        notes,
    }
}

fn unsupported(algorithm: &'static str, reason: impl Into<String>) -> FitError {
    FitError::Unsupported {
        algorithm,
        reason: reason.into(),
    }
}

fn bad(algorithm: &'static str, param: &str, reason: impl Into<String>) -> FitError {
    FitError::BadParameter {
        algorithm,
        param: param.to_string(),
        reason: reason.into(),
    }
}

fn estimator_error(algorithm: &'static str, param: &str, e: EstimatorError) -> FitError {
    bad(algorithm, param, e.to_string())
}

/// Shapes and finiteness (the position of the first non-finite entry, never a value).
fn check_data(est: &'static str, x: &[f64], n: usize, d: usize) -> Result<(), FitError> {
    if n == 0 {
        return Err(unsupported(est, "the data have no rows (n = 0)"));
    }
    if d == 0 {
        return Err(unsupported(est, "the data have no columns (d = 0)"));
    }
    if n.checked_mul(d) != Some(x.len()) {
        return Err(unsupported(
            est,
            format!(
                "the data buffer has {} values but n x d = {n} x {d}",
                x.len()
            ),
        ));
    }
    if let Some(pos) = x.iter().position(|v| !v.is_finite()) {
        return Err(unsupported(
            est,
            format!(
                "data row {}, column {}: NaN or infinite values are not allowed",
                pos / d + 1,
                pos % d + 1
            ),
        ));
    }
    Ok(())
}

/// p (≥ 2) and M (> 0).
fn moment_params(est: &'static str, p: &Params) -> Result<(f64, f64), FitError> {
    let pv = p.positive("p")?.unwrap_or(2.0);
    if pv < 2.0 {
        return Err(bad(
            est,
            "p",
            format!("the moment order must be >= 2 (Assumption 1(c) of Zhao et al.), got {pv}"),
        ));
    }
    Ok((pv, p.positive("M")?.unwrap_or(1.0)))
}

fn rho_rule_param(p: &Params) -> Result<RhoRule, FitError> {
    p.pick(
        "rho_rule",
        &[("eq15", RhoRule::Eq15), ("exact", RhoRule::Exact)],
    )
}

/// δ > 0 unless non-private.
fn require_delta(est: &'static str, budget: &Budget) -> Result<(), FitError> {
    if !budget.is_non_private() && budget.delta <= 0.0 {
        return Err(PrivacyError::DeltaRequired {
            algorithm: est.to_string(),
        }
        .into());
    }
    Ok(())
}

/// The (ε, δ) used in default formulas: the budget's, or ε = 1 and δ = n^{−1.1} when
/// ε = ∞ / δ = 0 (public functions of n).
fn formula_budget(budget: &Budget, n: usize) -> (f64, f64) {
    let delta = if budget.delta > 0.0 {
        budget.delta
    } else {
        (n.max(2) as f64).powf(-1.1)
    };
    (formula_epsilon(budget), delta)
}

fn copy_row(x: &[f64], d: usize) -> impl Fn(usize, &mut [f64]) + Sync + '_ {
    move |i: usize, buf: &mut [f64]| buf.copy_from_slice(&x[i * d..(i + 1) * d])
}

fn clip_mean(input: &MeanInput, rng: &mut dyn RngCore) -> Result<MeanReport, FitError> {
    let MeanInput { x, n, d, budget, p } = *input;
    const EST: &str = "clip";
    let (pv, m_bound) = moment_params(EST, p)?;
    let rule = rho_rule_param(p)?;
    let r_param = p.positive("R")?;
    require_delta(EST, &budget)?;
    let (eps_f, delta_f) = formula_budget(&budget, n);
    let rho = zhao_target_rho(budget.epsilon, budget.delta, rule);
    let rho_f = zhao_target_rho(eps_f, delta_f, rule);
    let radius = r_param.unwrap_or_else(|| clip_default_radius(m_bound, pv, d, n, rho_f));
    let sigma = clip_sigma(radius, rho, n);
    let sensitivity = clip_sensitivity(radius, n);
    let mech = GaussianMechanism::with_sigma(sensitivity, sigma)?;
    let mut sum = vec![0.0; d];
    clipped_row_sum(n, d, radius, copy_row(x, d), &mut sum);
    let mean: Vec<f64> = sum.iter().map(|s| s / n as f64).collect();
    let label = "clip: clipped mean + Gaussian noise (Zhao Alg. 2)";
    let (released, ledger) = release_once(budget, Accountant::Zcdp, label, &mech, &mean, rng)?;
    let mut h = BTreeMap::new();
    hp(&mut h, "p", pv);
    hp(&mut h, "M", m_bound);
    hp(&mut h, "R", radius);
    hp(&mut h, "rho", rho);
    hp(&mut h, "rho_rule", rule.name());
    hp(&mut h, "sigma", sigma);
    hp(&mut h, "sensitivity_l2", sensitivity);
    let mut notes = Vec::new();
    if r_param.is_none() {
        notes.push(format!(
            "R = M sqrt(d) (n sqrt(rho)/sqrt(d))^(1/p) at the declared p = {pv}, M = {m_bound} (spec Zhao §3)"
        ));
    }
    notes.extend(default_scale_note(p, "M", "M^2"));
    notes.extend(noise_dominated_note(
        sigma * (d as f64).sqrt(),
        m_bound,
        "the noise sigma sqrt(d)",
    ));
    Ok(report(released, &ledger, PrivacyModel::Zcdp, h, notes))
}

fn iu_mean(input: &MeanInput, rng: &mut dyn RngCore) -> Result<MeanReport, FitError> {
    let MeanInput { x, n, d, budget, p } = *input;
    const EST: &str = "iterative-updating";
    let (pv, m_bound) = moment_params(EST, p)?;
    let r_param = p.positive("R")?;
    let k = match p.string("k") {
        Some("paper") => paper_groups(0.05),
        Some(_) => p.integer("k", 1)?.expect("present"),
        None => default_groups(n),
    };
    let t_c_param = p.integer("t_c", 1)?;
    let solver = p.pick("estimate", EstimateSolver::WORDS)?;
    let shuffle = matches!(
        p.choice("accounting", &["conservative", "shuffle"])?,
        Some("shuffle")
    );
    let rule = rho_rule_param(p)?;
    if shuffle && p.string("rho_rule").is_some() {
        return Err(bad(
            EST,
            "rho_rule",
            "applies to accounting=conservative only (accounting=shuffle uses rho of eq. (24))",
        ));
    }
    if k > n {
        return Err(FitError::TooFewRecords {
            algorithm: EST,
            n,
            needed: k,
        });
    }
    check_solver(solver, k, d).map_err(|e| estimator_error(EST, "estimate", e))?;
    require_delta(EST, &budget)?;
    if shuffle && !budget.is_non_private() {
        zhao_shuffle_preconditions(budget.epsilon, budget.delta, k).map_err(|reason| {
            unsupported(
                EST,
                format!("accounting=shuffle refused: {reason}; use accounting=conservative"),
            )
        })?;
    }
    let m = n / k;
    let (eps_f, delta_f) = formula_budget(&budget, n);
    let (rho, rho_f) = if shuffle {
        (
            zhao_rho_eq24(budget.epsilon, budget.delta, k),
            zhao_rho_eq24(eps_f, delta_f, k),
        )
    } else {
        (
            zhao_target_rho(budget.epsilon, budget.delta, rule),
            zhao_target_rho(eps_f, delta_f, rule),
        )
    };
    let radius = r_param.unwrap_or_else(|| {
        if shuffle {
            iu_default_radius(m_bound, pv, d, n, eps_f)
        } else {
            iu_conservative_radius(m_bound, pv, d, n, k, rho_f)
        }
    });
    let sigma = clip_sigma(radius, rho, m);
    let sensitivity = clip_sensitivity(radius, m);
    let r0 = r0_eq95(m_bound, d, n, radius, k, rho_f);
    let r0_used = r0_practical(m_bound, d, n, radius, k, rho_f);
    let t_c = t_c_param.unwrap_or_else(|| default_t_c(0.0, radius, r0_used));
    let mech = GaussianMechanism::with_sigma(sensitivity, sigma)?;
    let label =
        "iterative-updating: k noisy clipped group means (Zhao Alg. 3, eq. (23); disjoint groups)";
    let (ledger, model) = if shuffle && !budget.is_non_private() {
        let mut ledger = PrivacyLedger::new(budget, Accountant::Basic);
        let Cost::Zcdp { rho: rho_charged } = mech.cost() else {
            unreachable!("the Gaussian mechanism's cost is zCDP")
        };
        let delta0 = budget.delta / (12.0 * k as f64);
        let eps0 = zcdp_to_approx(rho_charged, delta0);
        let (eps_g, delta_g) = shuffle_amplification(eps0, delta0, k, budget.delta / 2.0);
        ledger.charge(
            &format!("{label}; amplification by shuffling, Zhao Theorem 6 (relies on an unproven step, spec Z7)"),
            Cost::Approx {
                epsilon: eps_g,
                delta: delta_g,
            },
        )?;
        (ledger, PrivacyModel::Approx)
    } else {
        let mut ledger = PrivacyLedger::new(budget, Accountant::Zcdp);
        ledger.charge(&format!("{label}; parallel composition"), mech.cost())?;
        (ledger, PrivacyModel::Zcdp)
    };
    // Charged above; now the only data access.
    let q = noisy_group_means(n, d, radius, k, sigma, copy_row(x, d), rng);
    let cfg = IuConfig {
        radius,
        k,
        t_c,
        eta_c: 0.25,
        solver,
    };
    let c1 = vec![0.0; d];
    let mean = refine(&q, d, &c1, &cfg).map_err(|e| estimator_error(EST, "estimate", e))?;
    let mut h = BTreeMap::new();
    hp(&mut h, "p", pv);
    hp(&mut h, "M", m_bound);
    hp(&mut h, "R", radius);
    hp(&mut h, "k", k);
    hp(&mut h, "m", m);
    hp(&mut h, "t_c", t_c);
    hp(&mut h, "eta_c", 0.25);
    hp(&mut h, "sigma", sigma);
    hp(&mut h, "rho", rho);
    hp(&mut h, "r_0", r0);
    hp(&mut h, "r_0_practical", r0_used);
    hp(
        &mut h,
        "accounting",
        if shuffle { "shuffle" } else { "conservative" },
    );
    if !shuffle {
        hp(&mut h, "rho_rule", rule.name());
    }
    hp(&mut h, "estimate", solver.name());
    hp(&mut h, "sensitivity_l2", sensitivity);
    let mut notes = vec![];
    if solver == EstimateSolver::Multistart && d >= 3 {
        notes.push("problem (27) solved by the multistart local search (spec Zhao §5.2): every answer is feasible but not certified optimal, so the paper's optimal rate is not certified (spec §5.3); privacy is unaffected (post-processing)".to_string());
    }
    if shuffle {
        notes.push("UNPROVEN privacy claim: accounting=shuffle: the (epsilon, delta) relies on Theorem 6 of Zhao et al. (amplification by shuffling), whose application to group means that are private only w.r.t. one-sample changes is not proven (spec §4.1, Z7); accounting=conservative is always valid".to_string());
    }
    if n > k * m {
        notes.push(format!(
            "{} records beyond k x m = {k} x {m} are not used (spec Z9)",
            n - k * m
        ));
    }
    notes.extend(default_scale_note(p, "M", "M^2"));
    notes.extend(noise_dominated_note(
        r0_used,
        m_bound,
        "the error scale r_0_practical",
    ));
    // Post-processing of the released estimate only (no further data access): the answer
    // is the data-free starting centre when no centre update improved on it.
    if !budget.is_non_private() && mean == c1 {
        notes.push(format!(
            "the estimate is the data-free starting centre c_1 = 0: no centre update improved on it, so the noisy group means (sigma = {sigma:.4e} each) carry no usable signal; raise epsilon, or declare M nearer the data's scale (now {m_bound}; `heavydp mean --estimator clip` or a private scale gives one)"
        ));
    }
    Ok(report(mean, &ledger, model, h, notes))
}

/// `tau`, `beta` of the Catoni–Giulini estimators.
fn robust_params(p: &Params) -> Result<(f64, f64), FitError> {
    Ok((
        p.positive("tau")?.unwrap_or(1.0),
        p.positive("beta")?.unwrap_or(1.0),
    ))
}

fn robust_means(
    est: &'static str,
    x: &[f64],
    n: usize,
    d: usize,
    scale: f64,
    beta: f64,
) -> Result<Vec<f64>, FitError> {
    let cg = CatoniGiulini::new(scale, beta).map_err(|e| estimator_error(est, "k", e))?;
    let rows: Vec<usize> = (0..n).collect();
    let mut out = vec![0.0; d];
    cg.column_means(x, d, &rows, &mut out);
    Ok(out)
}

fn catoni_mean(input: &MeanInput, rng: &mut dyn RngCore) -> Result<MeanReport, FitError> {
    let MeanInput { x, n, d, budget, p } = *input;
    const EST: &str = "catoni";
    let (tau, beta) = robust_params(p)?;
    let k_param = p.positive("k")?;
    let eps_f = formula_epsilon(&budget);
    let k = k_param.unwrap_or_else(|| {
        (3.0 * n as f64 * eps_f * tau * (1.0 + 1.0 / beta)
            / (8.0 * std::f64::consts::SQRT_2 * d as f64))
            .sqrt()
    });
    let xhat = robust_means(EST, x, n, d, k, beta)?;
    let sensitivity = catoni_l1_sensitivity(k, n, d);
    // b = Δ₁/ε at the calibration target, so the ledger's upward rounding accepts it
    let mech = LaplaceMechanism::new(sensitivity, calibration_target(budget.epsilon))?;
    let label = "catoni: Catoni-Giulini coordinate means + Laplace noise (spec Hu A.5)";
    let (released, ledger) = release_once(budget, Accountant::Basic, label, &mech, &xhat, rng)?;
    let mut h = BTreeMap::new();
    hp(&mut h, "tau", tau);
    hp(&mut h, "beta", beta);
    hp(&mut h, "k", k);
    hp(&mut h, "sensitivity_l1", sensitivity);
    hp(&mut h, "laplace_scale", mech.scale);
    let mut notes = vec![];
    if budget.delta > 0.0 {
        notes.push("catoni is pure epsilon-DP: the given delta is not used".to_string());
    }
    notes.extend(robust_scale_notes(p, tau, k, mech.scale, &released));
    Ok(report(released, &ledger, PrivacyModel::Pure, h, notes))
}

fn peeling_mean(input: &MeanInput, rng: &mut dyn RngCore) -> Result<MeanReport, FitError> {
    let MeanInput { x, n, d, budget, p } = *input;
    const EST: &str = "sparse-peeling";
    let Some(s) = p.integer("s", 1)? else {
        return Err(bad(
            EST,
            "s",
            "required: the sparsity s of the mean (--param s=S, 1 <= S <= d)",
        ));
    };
    if s > d {
        return Err(bad(
            EST,
            "s",
            format!("the sparsity s = {s} exceeds the dimension d = {d}"),
        ));
    }
    let (tau, beta) = robust_params(p)?;
    let k_param = p.positive("k")?;
    let zeta = fail_prob_param(EST, p)?;
    let budget2 = with_default_delta(budget, n);
    let eps_f = formula_epsilon(&budget);
    let k = k_param.unwrap_or_else(|| {
        let nf = n as f64;
        let sf = s as f64;
        (nf * nf * eps_f * eps_f * tau * tau / (sf * sf * (sf / zeta).ln())).powf(0.25)
    });
    CatoniGiulini::new(k, beta).map_err(|e| estimator_error(EST, "k", e))?;
    let lambda = catoni_l1_sensitivity(k, n, 1);
    let calibration = crate::mechanisms::PeelingCalibration::parse(p)?;
    let peeling = Peeling::calibrated(s, lambda, budget2.epsilon, budget2.delta, calibration)?;
    let xhat = robust_means(EST, x, n, d, k, beta)?;
    let label = "sparse-peeling: Peeling of the robust coordinate means (spec Hu E.1)";
    let (released, ledger) = release_once(budget2, Accountant::Basic, label, &peeling, &xhat, rng)?;
    let mut h = BTreeMap::new();
    hp(&mut h, "s", s);
    hp(&mut h, "tau", tau);
    hp(&mut h, "beta", beta);
    hp(&mut h, "k", k);
    hp(&mut h, "fail_prob", zeta);
    hp(&mut h, "lambda", lambda);
    hp(&mut h, "laplace_scale", peeling.scale);
    hp(&mut h, key::CALIBRATION, calibration.name());
    hp(&mut h, "delta", budget2.delta);
    let mut notes = vec![];
    if !budget.is_non_private() && budget.delta == 0.0 {
        notes.push(format!(
            "delta defaulted to n^-1.1 = {:e} (spec Hu X.2)",
            budget2.delta
        ));
    }
    notes.extend(robust_scale_notes(p, tau, k, peeling.scale, &released));
    Ok(report(released, &ledger, PrivacyModel::Approx, h, notes))
}

/// A note when the data-scale parameter `key` (a bound on `what`, in the data's units) was
/// left at its default 1, which presumes standardised columns. Public: depends only on
/// which parameters were given.
fn default_scale_note(p: &Params, key: &str, what: &str) -> Option<String> {
    p.string(key).is_none().then(|| {
        format!(
            "{key} was not given: the default {key} = 1 presumes standardised columns ({what} <= 1); on raw columns declare --param {key}=... in the data's units, or the estimate is shrunk toward 0"
        )
    })
}

/// A note when the noise (or error) scale `scale` of the estimate, fixed by n, d, ε, δ and
/// the parameters, is at least the declared bound `m_bound` on the mean's size: the result
/// is then noise-dominated whatever the data. Public.
fn noise_dominated_note(scale: f64, m_bound: f64, what: &str) -> Option<String> {
    (scale.is_finite() && scale >= m_bound).then(|| {
        format!(
            "{what} = {scale:.4e} is at least the declared bound M = {m_bound} on the mean's size: at this n, d and epsilon the estimate is noise-dominated; raise epsilon or use fewer columns"
        )
    })
}

/// Notes of the Catoni–Giulini means (`catoni`, `sparse-peeling`): τ left at its default
/// (public); a truncation scale k below √τ, the declared scale of a column, so that the
/// estimator shrinks every column toward 0 (public: k is a function of n, d, ε, τ, β); and
/// released coordinates with |μ̂_j| > √τ, which contradict the declared E x_j² ≤ τ (or are
/// noise-dominated, when the public noise scale is of the order of √τ) — a function of
/// the released (already private) estimate only, i.e. post-processing.
fn robust_scale_notes(
    p: &Params,
    tau: f64,
    k: f64,
    noise_scale: f64,
    released: &[f64],
) -> Vec<String> {
    let mut notes: Vec<String> = default_scale_note(p, "tau", "E x_j^2")
        .into_iter()
        .collect();
    let root = tau.sqrt();
    if k.is_finite() && k < root {
        notes.push(format!(
            "the truncation scale k = {k:.4e} is below sqrt(tau) = {root:.4e}, the declared scale of a column: at this n, d and epsilon the estimator shrinks every column toward 0"
        ));
    }
    let over: Vec<String> = released
        .iter()
        .enumerate()
        .filter(|(_, m)| m.abs() > root)
        .map(|(j, _)| j.to_string())
        .collect();
    if !over.is_empty() && noise_scale >= root / 4.0 {
        notes.push(format!(
            "the released mean of column(s) {} (0-based, in the order of the data) exceeds sqrt(tau) = {root:.4e} in absolute value; the Laplace noise scale {noise_scale:.4e} is of the same order, so these values are noise-dominated: raise epsilon",
            over.join(", ")
        ));
    } else if !over.is_empty() {
        notes.push(format!(
            "the released mean of column(s) {} (0-based, in the order of the data) exceeds sqrt(tau) = {root:.4e} in absolute value, which contradicts the declared E x_j^2 <= tau: tau is too small for these columns, and their estimates are biased toward 0; declare tau >= (the column's root mean square)^2 in the data's units, or standardise the columns",
            over.join(", ")
        ));
    }
    notes
}

/// ℓ1 sensitivity of the `catoni` mean, d·4√2k/(3n) (spec Hu §A.5), rounded up; with
/// d = 1 the ℓ∞ sensitivity λ = 4√2k/(3n) that `sparse-peeling` passes to Peeling (§E.1).
pub fn catoni_l1_sensitivity(scale: f64, n: usize, d: usize) -> f64 {
    mul_up(
        d as f64,
        div_up(4.0 * std::f64::consts::SQRT_2 * scale, 3.0 * n as f64),
    )
}

#[cfg(test)]
#[path = "private_mean_tests.rs"]
mod tests;
