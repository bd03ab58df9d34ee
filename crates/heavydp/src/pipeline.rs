//! The whole private fit, as `heavydp fit`, the Python package and the real-data
//! benchmark run it, in five phases (the fourth in three steps), each a function with a
//! typed result. One [`PhasedLedger`] splits the budget over the phases (module
//! [`crate::privacy::phases`]), and the model file's `privacy` object lists every phase.
//!
//! | phase | what | budget |
//! |---|---|---|
//! | 1 [`plan`] → [`FitPlan`] | every choice, from the options, n and d before any row is read: `--algorithm auto` by [`auto_rule`]; loss, domain and hyperparameters (`bound`, `R`, `--radius` … `auto` on scaled data); δ (`--delta`, or n^−1.1 for an (ε, δ)/zCDP algorithm, said on stderr; an explicit 0 for one is an error); the ledger's budget and its split; the private scaling's public plan ([`crate::preprocess::ScalingPlan`]: its budget, accountant and binary gate, computed once); the public fallbacks to the intercept alone (a regression whose target scaling is not certified, a logistic model where the fit check would be blind: [`preprocess::fit_check::logistic_check_blind`]). [`planned_privacy`] (what Python charges) reads the same plan | — |
//! | 1b `gate_phase` | with private scaling: the binary gate's release, then the plan completed with the released count (`close_plan`: the fallback may then apply) | the gate's charge, part of phase 2's |
//! | 2 `scale_phase` | labels checked for the loss; centres and scales ([`crate::preprocess::private_scales_after_gate`]); the data standardised | f·ε (·3/4 when the intercept is private), f·δ |
//! | 3 `fit_phase` | the algorithm on the standardised data | what is left minus the intercept's and the check's shares |
//! | 4 `intercept_phase` | intercept ([`crate::preprocess::private_intercept_of`]) | f·ε/4 (f·ε when the scales are not private) |
//! | 4b `check_phase` | a regression with a model, a private intercept and a scaled target, or a logistic model with a private intercept: the private fit check ([`crate::preprocess::fit_check`]); the intercept alone (the base rate) when the model predicts worse | 0.05·ε (logistic: [`preprocess::fit_check::check_share`], 120/(n·ε) in [0.05, 0.5]) |
//! | 4c `intervals_phase` | `--intervals` (post-processing) | — |
//! | 5 [`ModelFile::from_fit`] | the model file, mapped back to raw columns | — |
//!
//! With `--intercept none --scale none` phases 2 and 4 learn nothing and the algorithm
//! gets the whole budget: the weights are bit for bit those of the algorithm alone.
//! Errors are [`PipelineError`]s (strings only at the CLI and Python boundary).

use crate::algorithms::row_sums::{ExternalRowSums, RowTransform};
use crate::algorithms::{self, AutoRadius, Observer, ParamMap, PrivateAlgorithm, Problem};
use crate::constraints::{DomainError, DomainSpec};
use crate::data::Dataset;
use crate::loss::{LossError, LossKind};
use crate::model::{self, ModelFile};
use crate::params::FitError;
use crate::preprocess::{
    self, quantile::PublicGrid, InterceptMode, PreprocessError, ScaleMode, Standardization,
    AUTO_BOUND, DEFAULT_PREPROCESS_SHARE,
};
use crate::privacy::{Budget, PhasedLedger, PrivacyError, PrivacyModel};
use rand::RngCore;
use std::collections::BTreeMap;
use thiserror::Error;

/// Why a fit, its plan or its check of the options refuses or fails: one-line messages
/// that name flags, files, columns and public quantities, never a data value. The CLI
/// prints them and the Python package raises them; [`String::from`] gives the message.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum PipelineError {
    /// A flag whose value is not a number.
    #[error("{flag} must be a number; got '{value}'")]
    NotANumber { flag: String, value: String },
    /// A `--param` word that is not `KEY=VALUE`.
    #[error("--param '{0}': expected KEY=VALUE")]
    ParamSyntax(String),
    #[error("--param {0} is given more than once")]
    ParamTwice(String),
    /// A flag or parameter that applies only to another loss, domain or setting.
    #[error("{flag} applies only {scope}")]
    NotApplicable { flag: String, scope: String },
    /// An `auto` value on raw columns: it is in robust standard deviations.
    #[error("{flag} needs scaled data (--scale private or public:FILE.json): the {quantity} is in robust standard deviations")]
    NeedsScaledData {
        flag: String,
        quantity: &'static str,
    },
    #[error("{algorithm} is (epsilon, delta)-DP and needs delta > 0: --delta 0 is not allowed (omit --delta for the default delta = n^-1.1 = {default_delta:e})")]
    DeltaZero {
        algorithm: String,
        default_delta: f64,
    },
    #[error("intercept-only needs --intercept private (it is the model's only parameter)")]
    InterceptOnlyNeedsIntercept,
    /// An algorithm a distributed fit cannot run (the message lists those it can).
    #[error("{0}")]
    NotDistributed(String),
    /// `--intervals` refused: a bad level, an algorithm without intervals, or a model
    /// that has none.
    #[error("{0}")]
    Intervals(String),
    /// A fit, by any algorithm (`auto` included), whose model would be the uncertified
    /// private median of the responses ([`grid_median_refused`]).
    #[error("{0}")]
    UnlocatableTarget(String),
    /// The response column does not suit the loss (e.g. logistic labels).
    #[error("{target}: {source}")]
    Labels { target: String, source: LossError },
    #[error(transparent)]
    Algorithm(#[from] FitError),
    #[error(transparent)]
    Loss(#[from] LossError),
    #[error(transparent)]
    Domain(#[from] DomainError),
    #[error(transparent)]
    Preprocess(#[from] PreprocessError),
    #[error(transparent)]
    Privacy(#[from] PrivacyError),
}

impl From<PipelineError> for String {
    fn from(e: PipelineError) -> String {
        e.to_string()
    }
}

/// Everything a fit needs besides the data and the generator.
#[derive(Debug, Clone)]
pub struct FitOptions {
    /// An `heavydp algorithms` name or `auto`.
    pub algorithm: String,
    pub loss: Option<String>,
    pub domain: Option<String>,
    /// `--radius`: a number, `auto` ([`auto_radius`], scaled data only), or `None` (auto
    /// on scaled data, 1 on raw columns).
    pub radius: Option<RadiusOpt>,
    pub sparsity: Option<usize>,
    /// `--param KEY=VALUE` pairs (loss parameters `tau`, `c` and `vertices` included).
    pub params: ParamMap,
    pub epsilon: f64,
    /// `None`: the documented default (n^−1.1 for (ε, δ) algorithms, 0 otherwise).
    pub delta: Option<f64>,
    pub intercept: InterceptMode,
    pub scale: ScaleMode,
    /// Fraction of ε and δ for preprocessing; `None` = [`DEFAULT_PREPROCESS_SHARE`].
    pub preprocess_share: Option<f64>,
    /// The caller's noise seed, when it seeded the generator: never written into the
    /// model file (a released seed lets anyone re-run the fit on candidate datasets);
    /// a finite-ε fit that is seeded says on stderr that the seed must stay secret.
    pub seed: Option<u64>,
    /// `--intervals LEVEL`: confidence intervals at this level in the model file
    /// ([`crate::inference`]; post-processing, algorithms [`crate::inference::algorithms`]).
    pub intervals: Option<f64>,
}

impl FitOptions {
    /// Options with the CLI's defaults: private intercept and scales, default share.
    pub fn new(algorithm: &str, epsilon: f64) -> Self {
        FitOptions {
            algorithm: algorithm.to_string(),
            loss: None,
            domain: None,
            radius: None,
            sparsity: None,
            params: ParamMap::new(),
            epsilon,
            delta: None,
            intercept: InterceptMode::Private,
            scale: ScaleMode::Private,
            preprocess_share: None,
            seed: None,
            intervals: None,
        }
    }
}

/// `--radius`: a declared value or `auto`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RadiusOpt {
    Value(f64),
    Auto,
}

impl RadiusOpt {
    /// Parses `--radius` (`auto` or a number).
    pub fn parse(v: &str) -> Result<Self, PipelineError> {
        if v.trim() == "auto" {
            Ok(RadiusOpt::Auto)
        } else {
            parse_number("--radius", v).map(RadiusOpt::Value)
        }
    }
}

/// `--radius auto`: the data-free radius of the coefficient ball on scaled data.
///
/// | algorithms | auto radius | why |
/// |---|---|---|
/// | `clipped-gd` (the radius is only the projection; its noise is set by the gradient clip R) | √d | a scaled coefficient w̃ⱼ = 1 means "one robust sd of xⱼ moves ŷ by one robust sd of y"; the ℓ2 ball of radius √d holds the box \|w̃ⱼ\| ≤ 1. The former default 1 is too small for real data: the non-private OLS fits of the regression sets, on the same robust scaling, have ‖w̃‖₂ = 1.22 (cps1988, d = 8), 3.35 (gss_wages, d = 30) and 1.25 (flights, d = 23). Measured (gss, 2 splits × 2 seeds, ε = 2): gain kept 0.705–0.846 at radius 1, 0.764–0.854 at √d; identical at ε = 1 |
/// | every other algorithm (Frank–Wolfe family, mirror descent, objective perturbation, the ℓ1 expmech net, the sparse IHT family, `iterative-updating-gd`) | 1 | the radius scales their noise (vertex scores, gradient or objective noise, net size) or, for `iterative-updating-gd` (noise-dominated group means in the conservative accounting), the ball is what bounds the damage: measured at ε = 1, radius √d instead of 1 lost gain (cps1988, one split: ht-frank-wolfe 0.18 → −0.52, dp-frank-wolfe 0.21 → 0.16, noisy-mirror-descent 0.18 → 0.12, objective-perturbation 0.48 → −0.16, ht-sparse-linreg −20 → −63; dp-iht-huber and iterative-updating-gd unchanged; gss, two splits: iterative-updating-gd −34 / −21 → −69 / −53) |
pub fn auto_radius(algorithm: &str, d: usize) -> f64 {
    match algorithms::descriptor(algorithm).map(|a| a.scaled.radius) {
        Some(AutoRadius::SqrtD) => (d.max(1) as f64).sqrt(),
        _ => 1.0,
    }
}

/// `K=auto`, `tau=auto`, `M=auto` on scaled data: the key is removed so that the
/// algorithm's own default applies — each is a theorem's formula or constant for data of
/// unit scale (K: Hu et al. Thms 5 and 7, Tian et al. Sec. 6; τ: Hu et al. Assumption
/// 1/4, the Huber threshold of Tian et al. Sec. 6; M: Zhao et al. Assumption 1(c)), which
/// the private scaling makes true. On raw columns `auto` is an error. Returns the
/// messages for stderr.
fn resolve_unit_scale_autos(
    name: &str,
    scaled: bool,
    params: &mut ParamMap,
) -> Result<Vec<String>, PipelineError> {
    let mut messages = Vec::new();
    for key in ["K", "tau", "M"] {
        if params.get(key).map(String::as_str) == Some("auto") {
            if !scaled {
                return Err(PipelineError::NeedsScaledData {
                    flag: format!("--param {key}=auto"),
                    quantity: "value",
                });
            }
            params.remove(key);
            messages.push(format!(
                "{name}: {key}=auto: the algorithm's unit-scale default, valid on the privately scaled columns (hyperparameters show its value)"
            ));
        }
    }
    Ok(messages)
}

/// A fitted model and the public remarks to show the user (stderr in the CLI).
#[derive(Debug, Clone)]
pub struct FitOutcome {
    pub model: ModelFile,
    pub messages: Vec<String>,
}

/// What `auto` picked and why.
#[derive(Debug, Clone, PartialEq)]
pub struct AutoChoice {
    /// An algorithm name, or `intercept-only`.
    pub algorithm: String,
    pub params: ParamMap,
    pub reason: String,
}

/// The name of the model that predicts the private intercept alone.
pub const INTERCEPT_ONLY: &str = "intercept-only";

/// `--algorithm auto`: a public decision rule of the task (loss), n, d and ε — never of
/// the data. Justified by the real-data benchmark (`docs/benchmark.md`):
///
/// | condition | choice | evidence |
/// |---|---|---|
/// | regression, n·ε < 2·d | `intercept-only` | d ≥ n sets (bladderbatch): every d-dimensional private fit is worse than the constant by orders of magnitude |
/// | regression, otherwise | `clipped-gd` (squared loss, data-free R) | the best private default on cps1988 and gss_wages (0.92–0.95 and 0.83 of the gain at ε = 1) |
/// | classification, n·ε < 100·d ([`AUTO_LOGISTIC_FACTOR`]) | `intercept-only` (the private base rate) | cells (n·ε ≤ 3 230, d = 56) and pd_speech: no private fit beat the constant's log-loss on every split; the base rate never loses much |
/// | classification, otherwise | `clipped-gd` (logistic loss) | the only dense private logistic fit whose noise shrinks with n at a data-free R |
///
/// With `--scale public:FILE.json` the classification threshold is
/// [`AUTO_LOGISTIC_PUBLIC_FACTOR`]·d instead ([`auto_choice`]).
pub fn auto_rule(logistic: bool, n: usize, d: usize, epsilon: f64) -> AutoChoice {
    let factor = if logistic { AUTO_LOGISTIC_FACTOR } else { 2.0 };
    auto_rule_at(factor, logistic, n, d, epsilon)
}

/// `auto`'s classification threshold on privately scaled columns: the base rate alone
/// below n·ε = 100·d ([`auto_rule`]).
pub const AUTO_LOGISTIC_FACTOR: f64 = 100.0;

/// `auto`'s classification threshold when the user declares the columns' centres and
/// scales (`--scale public:FILE.json`): the base rate alone below n·ε = 50·d. Known scales
/// remove the private scaling's failures, which set the factor 100; what is left is the
/// fit's own noise. On the binary design half with declared scales (the training part's
/// quartiles, `scripts/logistic-check-share.py --scales exact`), `clipped-gd` predicted
/// worse than the base rate at n·ε = 33.6·d (MASS_birthwt, ε = 2: log-loss 1.9 times the
/// base rate's) and better from 105·d (carData_TitanicSurvival); 50 is the lower half of
/// that range. Confirmed on the confirm half: AER_SwissLabor (58·d–233·d, log-loss 0.91–0.97
/// times the base rate's), cells_ps at ε = 2 (57.7·d, AUC 0.842 against the floor's
/// 0.878), and cells_ps at ε = 0.5 (14.4·d, a fit would be 1.2 times worse: the base
/// rate); `docs/benchmark.md`, "The six real sets".
pub const AUTO_LOGISTIC_PUBLIC_FACTOR: f64 = 50.0;

/// [`auto_rule`] at the threshold n·ε < `factor`·d.
fn auto_rule_at(factor: f64, logistic: bool, n: usize, d: usize, epsilon: f64) -> AutoChoice {
    let ne = n as f64 * if epsilon.is_finite() { epsilon } else { 1e12 };
    if ne < factor * d as f64 {
        return AutoChoice {
            algorithm: INTERCEPT_ONLY.into(),
            params: ParamMap::new(),
            reason: format!(
                "n·ε = {ne:.4} < {factor}·d = {}: a d-dimensional private {} fit would be swamped by its noise (real-data benchmark); the model is the private intercept alone{}",
                factor * d as f64,
                if logistic { "classification" } else { "regression" },
                if logistic && factor > AUTO_LOGISTIC_PUBLIC_FACTOR {
                    format!(" (with the columns' centres and scales declared, --scale public:FILE.json, the threshold is {AUTO_LOGISTIC_PUBLIC_FACTOR}·d)")
                } else {
                    String::new()
                }
            ),
        };
    }
    AutoChoice {
        algorithm: "clipped-gd".into(),
        params: ParamMap::new(),
        reason: format!(
            "n·ε = {ne:.4} ≥ {factor}·d = {}: {} with clipped-gd (Zhao et al. Alg. 1 + 2) on privately standardised columns, the best private default of the real-data benchmark",
            factor * d as f64,
            if logistic { "classification" } else { "regression" }
        ),
    }
}

/// `--algorithm auto` for these options: [`auto_rule`] (a classification on declared
/// scales at [`AUTO_LOGISTIC_PUBLIC_FACTOR`]), then, for a regression on
/// privately scaled columns, the public check that the scaling can locate the target
/// ([`preprocess::target_scaling_check`] at the scaling phase's budget): when it cannot,
/// the model is the private intercept alone (a d-dimensional fit's raw-unit predictions
/// carry the target scale's error, which is then unbounded). A function of the options,
/// n and d only.
pub fn auto_choice(opts: &FitOptions, n: usize, d: usize) -> AutoChoice {
    let logistic = opts.loss.as_deref() == Some("logistic");
    let choice = if logistic && matches!(opts.scale, ScaleMode::Public(_)) {
        auto_rule_at(AUTO_LOGISTIC_PUBLIC_FACTOR, true, n, d, opts.epsilon)
    } else {
        auto_rule(logistic, n, d, opts.epsilon)
    };
    if logistic || choice.algorithm == INTERCEPT_ONLY || !matches!(opts.scale, ScaleMode::Private) {
        return choice;
    }
    let check =
        preprocess::ScalingPlan::new(n, d, auto_scale_budget(opts, n), true).best_target_check();
    if check.reliable() {
        return choice;
    }
    AutoChoice {
        algorithm: INTERCEPT_ONLY.into(),
        params: ParamMap::new(),
        reason: format!(
            "the private scaling of {d} features and the target cannot locate the target at this n and ε: n·ε₀ = {:.1} < {:.1} (preprocess::target_scaling_check); the model is the private intercept alone",
            check.n_eps0, check.needed
        ),
    }
}

/// The scaling phase's budget of a `clipped-gd` fit with these options (ε, δ, share
/// and intercept as given, δ's default when absent): what [`auto_choice`] checks.
fn auto_scale_budget(opts: &FitOptions, n: usize) -> Budget {
    let frac = scaling_fraction(opts);
    let delta = opts.delta.unwrap_or_else(|| default_delta(n));
    Budget {
        epsilon: opts.epsilon * frac,
        delta: delta * frac,
    }
}

/// The scaling phase's fraction of a d-dimensional fit's budget: the preprocessing share
/// (its default when not given), 3/4 of it when the intercept is private (the intercept
/// takes the other quarter).
fn scaling_fraction(opts: &FitOptions) -> f64 {
    let share = opts
        .preprocess_share
        .unwrap_or(preprocess::DEFAULT_PREPROCESS_SHARE);
    if opts.intercept == InterceptMode::Private {
        0.75 * share
    } else {
        share
    }
}

/// The public reliability rule of every logistic model with a private intercept,
/// explicit or `auto`: where the private fit check is blind
/// ([`preprocess::fit_check::logistic_check_blind`], n·ε < 240) no released value could
/// reveal a model that predicts worse than the base rate, and there the fits measured
/// did (`clipped-gd` on MASS_birthwt and pd_speech_pd, test log-loss up to 10²× the base
/// rate's; `docs/benchmark.md`, "The logistic fit check"), so the model is the private
/// base rate alone: returns the message (stderr and a model note). A function of the
/// options, n and ε.
fn logistic_fallback(opts: &FitOptions, name: &str, n: usize) -> Option<String> {
    let (sight, max_share) = (
        preprocess::fit_check::LOGISTIC_CHECK_SIGHT,
        preprocess::fit_check::LOGISTIC_CHECK_MAX_SHARE,
    );
    (opts.intercept == InterceptMode::Private
        && preprocess::fit_check::logistic_check_blind(n, opts.epsilon))
    .then(|| format!(
        "{name}: at n·ε = {:.1} < {:.0} the private fit check cannot tell a logistic model from one worse than the base rate (preprocess::fit_check::logistic_check_blind), so the model is the private base rate alone ({INTERCEPT_ONLY}); give a larger --epsilon for a fitted model",
        n as f64 * opts.epsilon,
        sight / max_share
    ))
}

/// The public reliability check every d-dimensional regression on privately scaled
/// columns runs, explicit or `auto`: the target's [`preprocess::ScalingCheck`] at the
/// scaling phase's budget ([`OpenPlan::target_check`]). When it fails, a d-dimensional
/// model's raw-unit predictions carry the target scale's error, unbounded (measured:
/// `adassp` with its defaults on suite tables below n ≈ 5 000, test MSE up to 10²⁴ times
/// the mean's, every such fit failing this check), so a fit with a private intercept
/// falls back to the private intercept alone: returns the message (stderr and a model
/// note). `None`: the check passes, or there is no private intercept to fall back to. A
/// function of the options and the check.
fn scaling_fallback(
    opts: &FitOptions,
    name: &str,
    d: usize,
    check: preprocess::ScalingCheck,
) -> Option<String> {
    (opts.intercept == InterceptMode::Private && !check.reliable()).then(|| format!(
        "{name}: the private scaling of {d} features and the target cannot locate the target at this n and epsilon (n·ε₀ = {:.1} < {:.1}, preprocess::target_scaling_check), so a {d}-dimensional fit could miss by orders of magnitude: the model is the private intercept alone ({INTERCEPT_ONLY}); give --scale public:FILE.json, a larger --preprocess-share or epsilon for a {d}-dimensional fit",
        check.n_eps0, check.needed
    ))
}

/// The n·ε from which the private median of the responses on the public grid (the
/// intercept-only regression below [`preprocess::mean_intercept_min_n_eps`]) is certified:
/// a grid point outside the data has utility ≤ −n/2, so the release leaves the data with
/// probability ≤ |G|·exp(−ε·n/4) (the bound of [`preprocess::target_scaling_check`]),
/// at most β = [`preprocess::SCALING_FAILURE`] from 4·ln(|G|/β) ≈ 56.2. Public constants
/// only.
pub fn grid_median_min_n_eps() -> f64 {
    4.0 * (PublicGrid::LEN as f64 / preprocess::SCALING_FAILURE).ln()
}

/// Whether a regression whose model is the private median of the responses (an
/// `intercept-only` fit, the reliability fallback of an explicit algorithm, or `auto`'s
/// choice, with `--scale private`) refuses: n·ε below [`grid_median_min_n_eps`], where the
/// median may land anywhere on the grid's range (measured: `adassp` and `ht-lasso` on
/// carData_Prestige at ε = 0.5, 78 rows, n·ε = 39, one split each at 10¹¹–10¹⁶ times the
/// mean's MSE; `auto` on bladderbatch_krt19 at ε = 0.5, 46 rows, n·ε = 23, one split at
/// 10²² times; docs/benchmark.md "The intercept alone"). The same rule for every
/// algorithm, `auto` included. A function of n and ε.
pub fn grid_median_refused(n: usize, epsilon: f64) -> bool {
    !preprocess::mean_intercept_applies(n, epsilon)
        && (n as f64) * epsilon < grid_median_min_n_eps()
}

/// The data-free gradient clip radius on scaled data: R = 2·L·√d, twice the typical norm
/// of a per-sample gradient r·x̃ when the features have unit robust scale (‖x̃‖ ≈ √d)
/// and the residual derivative is of order L (2 for the squared loss (2r with r ≈ 1),
/// 1 for the logistic, Huber and absolute losses). Real-data benchmark: on cps1988 the
/// MSE is flat for R between √d and 8√d and 10 % worse at the theory default.
pub fn auto_gradient_radius(l: f64, d: usize) -> f64 {
    2.0 * l * (d as f64).sqrt()
}

/// The loss, domain, budget and algorithm resolved from names and flags (before any data
/// are read, except n for δ's default).
pub struct Resolved {
    pub algorithm: Box<dyn PrivateAlgorithm>,
    pub loss: LossKind,
    pub domain: DomainSpec,
    /// The algorithm fits the model's intercept itself (`clipped-gd`'s `intercept=fit`
    /// with `--intercept private`): no separate intercept release.
    pub joint_intercept: bool,
}

/// Resolves algorithm, loss and domain from the names. Loss parameters (`tau`, `c`) and
/// the polytope vertex file (`vertices`) are taken out of `params`; the rest goes to the
/// algorithm, which rejects unknown keys.
pub fn resolve(
    algorithm: &str,
    loss: Option<&str>,
    domain: Option<&str>,
    radius: Option<f64>,
    sparsity: Option<usize>,
    params: ParamMap,
) -> Result<Resolved, PipelineError> {
    let (dl, dd) = algorithms::default_loss_and_domain(algorithm);
    resolve_names(
        algorithm,
        loss.unwrap_or(dl),
        domain.unwrap_or(dd),
        radius,
        sparsity,
        params,
    )
}

/// [`resolve`] with the loss and domain names given (the algorithm's defaults already
/// applied).
fn resolve_names(
    algorithm: &str,
    loss_name: &str,
    domain_name: &str,
    radius: Option<f64>,
    sparsity: Option<usize>,
    mut params: ParamMap,
) -> Result<Resolved, PipelineError> {
    let mut take_num =
        |key: &str, applies: bool, what: &str| -> Result<Option<f64>, PipelineError> {
            match params.remove(key) {
                None => Ok(None),
                Some(_) if !applies => Err(PipelineError::NotApplicable {
                    flag: format!("--param {key}"),
                    scope: format!("to {what}"),
                }),
                Some(v) => parse_number(&format!("--param {key}"), &v).map(Some),
            }
        };
    // `tau` is the Huber loss's parameter, unless the algorithm has a `tau` of its own (a
    // moment bound, e.g. l1-regression-expmech) and the loss is not Huber.
    let own_tau =
        algorithms::descriptor(algorithm).is_some_and(|a| (a.info)().param("tau").is_some());
    let tau = if own_tau && loss_name != "huber" {
        None
    } else {
        take_num("tau", loss_name == "huber", "--loss huber")?
    };
    let c = take_num("c", loss_name == "biweight", "--loss biweight")?;
    let vertices = match params.remove("vertices") {
        Some(_) if domain_name != "polytope" => {
            return Err(PipelineError::NotApplicable {
                flag: "--param vertices".into(),
                scope: "to --domain polytope".into(),
            })
        }
        v => v,
    };
    let loss = LossKind::parse(loss_name, tau, c)?;
    let domain = DomainSpec::parse(domain_name, radius, sparsity, vertices.as_deref())?;
    let algorithm = algorithms::build(algorithm, &params)?;
    Ok(Resolved {
        algorithm,
        loss,
        domain,
        joint_intercept: false,
    })
}

/// Parses repeated `--param KEY=VALUE` words into a [`ParamMap`] (keys and values
/// trimmed); a word without `=`, an empty key or value, or a key given twice is an error.
/// The CLI's parser of every `--param` flag (fuzzed by `tests/fuzz.rs`).
pub fn parse_params(raw: &[String]) -> Result<ParamMap, PipelineError> {
    let mut m = ParamMap::new();
    for p in raw {
        let (k, v) = p
            .split_once('=')
            .ok_or_else(|| PipelineError::ParamSyntax(p.clone()))?;
        let (k, v) = (k.trim(), v.trim());
        if k.is_empty() || v.is_empty() {
            return Err(PipelineError::ParamSyntax(p.clone()));
        }
        if m.insert(k.to_string(), v.to_string()).is_some() {
            return Err(PipelineError::ParamTwice(k.to_string()));
        }
    }
    Ok(m)
}

/// Parses a number flag with a message that names the flag.
pub fn parse_number(flag: &str, v: &str) -> Result<f64, PipelineError> {
    v.trim()
        .parse::<f64>()
        .map_err(|_| PipelineError::NotANumber {
            flag: flag.to_string(),
            value: v.to_string(),
        })
}

/// Resolves δ: the given value, checked against the algorithm's privacy model, or the
/// documented default n^−1.1 when missing (with a message for stderr).
pub fn resolve_delta(
    algorithm: &str,
    model: PrivacyModel,
    n: usize,
    delta: Option<f64>,
    epsilon: f64,
) -> Result<(f64, Option<String>), PipelineError> {
    let needs = matches!(model, PrivacyModel::Approx | PrivacyModel::Zcdp) && epsilon.is_finite();
    match delta {
        Some(d) if d == 0.0 && needs => Err(PipelineError::DeltaZero {
            algorithm: algorithm.to_string(),
            default_delta: default_delta(n),
        }),
        Some(d) => Ok((d, None)),
        None if needs => {
            let d = default_delta(n);
            Ok((
                d,
                Some(format!(
                    "--delta not given: using the default delta = n^-1.1 = {d:e} (n = {n})"
                )),
            ))
        }
        None => Ok((0.0, None)),
    }
}

/// The default δ = n^−1.1 (Hu et al. spec X.2; a public function of n).
pub fn default_delta(n: usize) -> f64 {
    (n.max(2) as f64).powf(-1.1)
}

/// The note of a seeded private fit (stderr in the CLI, `notes_` in Python).
pub const SEEDED_NOTE: &str = "--seed: the noise of this private release is seeded: anyone who learns the seed can re-run it on candidate datasets and recognise the one that reproduces the output, so keep the seed secret (it is not written into released files)";

/// The whole (ε, δ) budget of a fit — what its ledger gets, so what it may spend at
/// most — and the algorithm and privacy model it was derived from.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedPrivacy {
    /// The algorithm that runs (`auto` resolved).
    pub algorithm: String,
    /// Its privacy model (`intercept-only`: pure).
    pub model: PrivacyModel,
    /// The ledger's budget: (ε, δ) as resolved by [`resolve_delta`] and the default δ
    /// of the private scaling; `(∞, 0)` for a non-private algorithm.
    pub budget: Budget,
}

/// A fit's planned (ε, δ), from the options, n and d only (before any data are read):
/// the one function the Python `Budget` and `heavydp.spark.fit` charge. It reads the
/// [`plan`] whose budget [`fit`] gives its ledger, so a charge can never be smaller than
/// what the model file then reports as spent.
pub fn planned_privacy(
    opts: &FitOptions,
    n: usize,
    d: usize,
) -> Result<PlannedPrivacy, PipelineError> {
    let plan = plan(opts, n, d, false)?;
    Ok(PlannedPrivacy {
        algorithm: plan.algorithm,
        model: plan.privacy_model,
        budget: plan.budget,
    })
}

/// The budget of [`planned_privacy`] with its messages.
struct BudgetPlan {
    budget: Budget,
    /// A pure algorithm whose private scaling uses the default δ.
    pure_with_default_delta: bool,
    messages: Vec<String>,
    /// The model note of a non-private algorithm run with a finite ε.
    not_private: Option<String>,
}

/// The ledger's budget of a fit of `name` (privacy model `model`) with `opts` on n rows.
fn plan_budget(
    name: &str,
    model: PrivacyModel,
    logistic: bool,
    opts: &FitOptions,
    n: usize,
    d: usize,
) -> Result<BudgetPlan, PipelineError> {
    let (mut delta, note) = resolve_delta(name, model, n, opts.delta, opts.epsilon)?;
    let mut messages: Vec<String> = note.into_iter().collect();
    // A pure algorithm with private scaling and no --delta: the scales' 5·d + R_t quantile
    // releases compose by zCDP at the default δ (≈ √(5(d+1)) times less noise than basic
    // composition; measured: with basic composition at ε·share = 0.15, n = 2·10⁴, d = 20,
    // one fit in two had a wild column). The fit is then (ε, δ)-DP; --delta 0 keeps it pure.
    let mut pure_with_default_delta = model == PrivacyModel::Pure
        && opts.delta.is_none()
        && matches!(opts.scale, ScaleMode::Private)
        && opts.epsilon.is_finite();
    if pure_with_default_delta {
        // δ only when the scaling phase uses it: the intercept-only model scales nothing
        // (its intercept locates the target), and the scaling composes by zCDP only when
        // that beats basic composition at its share (the choice of
        // `preprocess::ScalingPlan`, with the δ `fit` gives it). Otherwise no phase
        // would spend δ and the fit stays pure.
        pure_with_default_delta = name != INTERCEPT_ONLY && {
            let b = Budget::new(opts.epsilon, default_delta(n))?;
            let mut scaling = PhasedLedger::new(b).share(scaling_fraction(opts));
            scaling.delta = b.delta;
            preprocess::ScalingPlan::new(n, d, scaling, !logistic).accountant
                == crate::privacy::Accountant::Zcdp
        };
    }
    if pure_with_default_delta {
        delta = default_delta(n);
        messages.push(format!(
            "--delta not given: {name} is pure epsilon-DP, but the private scaling uses the default delta = n^-1.1 = {delta:e} (zCDP composition of its quantiles), so the fit is (epsilon, delta)-DP; give --delta 0 for a pure fit"
        ));
    }
    let budget = Budget::new(opts.epsilon, delta)?;
    // A non-private algorithm is a non-private pipeline: exact (grid) scales and intercept.
    let mut not_private = None;
    let budget = if model == PrivacyModel::None {
        if opts.epsilon.is_finite() {
            let warning = format!(
                "WARNING: {name} is not a private algorithm: this fit is NOT differentially private whatever --epsilon says (its scales and intercept are exact too); use a private algorithm (heavydp algorithms) for a private model"
            );
            messages.push(warning.clone());
            not_private = Some(warning);
        }
        Budget::non_private()
    } else {
        budget
    };
    Ok(BudgetPlan {
        budget,
        pure_with_default_delta,
        messages,
        not_private,
    })
}

/// `bound=auto` and a missing bound of the bounded family: on scaled data both become
/// [`AUTO_BOUND`] (the second with a message); `auto` on unscaled data is an error. The
/// one rule used by [`precheck`] and [`fit`].
fn resolve_bound(
    name: &str,
    scaled: bool,
    params: &mut ParamMap,
) -> Result<Option<String>, PipelineError> {
    let bound_required = algorithms::descriptor(name).is_some_and(|a| a.auto_bound());
    match params.get("bound").map(|s| s.as_str()) {
        Some("auto") if !scaled => Err(PipelineError::NeedsScaledData {
            flag: "--param bound=auto".into(),
            quantity: "bound",
        }),
        Some("auto") => {
            params.insert("bound".into(), format!("{AUTO_BOUND}"));
            Ok(None)
        }
        None if bound_required && scaled => {
            params.insert("bound".into(), format!("{AUTO_BOUND}"));
            Ok(Some(format!(
                "{name}: bound not given: using bound=auto = {AUTO_BOUND} (robust standard deviations of the privately scaled columns)"
            )))
        }
        _ => Ok(None),
    }
}

/// Checks the names and flags of `opts` before any data are read (unknown algorithm,
/// loss, domain, parameter, a missing bound on unscaled data): the same resolution as
/// [`fit`], with placeholders for what depends on n.
pub fn precheck(opts: &FitOptions) -> Result<(), PipelineError> {
    if opts.algorithm != "auto" {
        check_intervals(opts, &opts.algorithm, false).map_err(PipelineError::Intervals)?;
    }
    if opts.algorithm == "auto" || opts.algorithm == INTERCEPT_ONLY {
        return Ok(());
    }
    resolve_choices(
        &opts.algorithm,
        opts,
        opts.params.clone(),
        None,
        &mut Vec::new(),
    )
    .map(|_| ())
}

/// `--intervals LEVEL`: a level in (0, 1) and an algorithm with intervals for these
/// options ([`crate::inference::check`]; `by_auto`: chosen by `--algorithm auto`).
fn check_intervals(opts: &FitOptions, algorithm: &str, by_auto: bool) -> Result<(), String> {
    let Some(level) = opts.intervals else {
        return Ok(());
    };
    crate::inference::check_level(level)?;
    let scaled = !matches!(opts.scale, ScaleMode::None);
    crate::inference::check(algorithm, opts.loss.as_deref(), scaled).map_err(|reason| {
        format!(
            "--intervals: {reason}{}; algorithms with intervals: {} (heavydp algorithms --json, field `intervals`)",
            if by_auto { " (chosen by --algorithm auto)" } else { "" },
            crate::inference::algorithms().join(", ")
        )
    })
}

/// `--param R=auto` (the Zhao family's gradient clip): taken out of `params` (the fit
/// then sets [`auto_gradient_radius`]); an error on unscaled data. True when it was given.
fn take_r_auto(scaled: bool, params: &mut ParamMap) -> Result<bool, PipelineError> {
    if params.get("R").map(String::as_str) != Some("auto") {
        return Ok(false);
    }
    if !scaled {
        return Err(PipelineError::NeedsScaledData {
            flag: "--param R=auto".into(),
            quantity: "radius",
        });
    }
    params.remove("R");
    Ok(true)
}

/// Fits on `data` (taken by value: standardised in place, never copied). Errors are
/// one-line, data-free messages.
pub fn fit(
    data: Dataset,
    opts: &FitOptions,
    rng: &mut dyn RngCore,
    observer: &mut dyn Observer,
) -> Result<FitOutcome, PipelineError> {
    fit_with(data, opts, None, rng, observer)
}

/// The algorithms a distributed fit supports (their data passes are row sums): the
/// registry's `distributed` descriptors.
pub static DISTRIBUTED_ALGORITHMS: std::sync::LazyLock<Vec<&'static str>> =
    std::sync::LazyLock::new(algorithms::registry::distributed_names);

/// [`fit`] of rows that live elsewhere (a Spark DataFrame, `docs/distributed.md`):
/// `data` is a [`Dataset::remote`] (n, d and names only) and every data pass — the
/// private scaling's histograms, the algorithm's iterations, the intercept's sums — is a
/// call of `sums`. The same options, ledger, mechanisms and model file as [`fit`], by the
/// same code (`fit_with` reads the data only through [`preprocess::ScalingSource`],
/// [`algorithms::RowSums`] and [`preprocess::InterceptSource`]); the algorithm must be
/// one of [`DISTRIBUTED_ALGORITHMS`], `intercept-only` or `auto` (which picks one of
/// them).
pub fn fit_external(
    data: Dataset,
    opts: &FitOptions,
    sums: &mut ExternalRowSums,
    rng: &mut dyn RngCore,
    observer: &mut dyn Observer,
) -> Result<FitOutcome, PipelineError> {
    let name = opts.algorithm.as_str();
    if !(DISTRIBUTED_ALGORITHMS.contains(&name) || name == "auto" || name == INTERCEPT_ONLY) {
        return Err(PipelineError::NotDistributed(format!(
            "--algorithm {name}: a distributed fit supports {}, {INTERCEPT_ONLY} and auto (their data passes are row sums)",
            DISTRIBUTED_ALGORITHMS.join(", ")
        )));
    }
    let mut out = fit_with(data, opts, Some(sums), rng, observer)?;
    let (scaling, algorithm, intercept, check) = sums.passes();
    // the kinds of pass made (a fit check whose reads came with the intercept's pass
    // makes none of its own)
    let kinds: Vec<String> = [
        (scaling, "private scaling"),
        (algorithm, "algorithm"),
        (intercept, "intercept"),
        (check, "fit check"),
    ]
    .iter()
    .filter(|(k, _)| *k > 0)
    .map(|(k, what)| format!("{k} {what}"))
    .collect();
    out.messages.push(format!(
        "distributed fit: {} passes over the rows ({})",
        scaling + algorithm + intercept + check,
        kinds.join(", ")
    ));
    Ok(out)
}

/// Phase 1 of a fit, its plan: every choice of the fit, made from the options, n and d
/// alone before any row is read — what `auto` picks, the loss, domain and
/// hyperparameters, the ledger's budget and its split over the phases, the public
/// fallback to the intercept alone, and the public remarks. [`planned_privacy`] (what
/// the Python `Budget` and `heavydp.spark.fit` charge) and [`fit`] both read it, so a
/// charge is always the budget the fit's ledger gets.
pub struct FitPlan {
    /// The algorithm `--algorithm` names, `auto` resolved (before the scaling fallback).
    pub algorithm: String,
    /// What `auto` picked and why.
    pub auto: Option<AutoChoice>,
    /// The scaling fallback (`scaling_fallback`): the model is the private intercept alone.
    pub fallback: Option<String>,
    /// The algorithm that runs, its loss and domain; `None` for the intercept-only model.
    resolved: Option<Resolved>,
    pub loss: LossKind,
    /// The privacy model of `algorithm` (`intercept-only`: pure).
    pub privacy_model: PrivacyModel,
    /// The ledger's budget.
    pub budget: Budget,
    /// The private scaling of a d-dimensional model (`--scale private`; `None` for the
    /// intercept-only model, which scales nothing): its budget (a share of `budget`; all
    /// of δ for a pure algorithm whose private scaling uses the default δ), accountant
    /// and binary gate.
    pub scaling: Option<preprocess::ScalingPlan>,
    /// The public reliability check of a feature scaled by quantiles (`None` without
    /// private scaling or when every feature is released binary):
    /// [`preprocess::ScalingPlan::feature_check`]; below it the intervals are unbounded.
    pub feature_check: Option<preprocess::ScalingCheck>,
    /// The share of `budget` for the intercept (taken after the scaling phase).
    pub intercept_frac: f64,
    /// The share of `budget` for the private fit check ([`preprocess::fit_check`]; 0
    /// where it does not run), taken from the algorithm's.
    pub check_frac: f64,
    /// An intercept-only regression whose intercept is the private median of the raw
    /// responses (n·ε below [`preprocess::mean_intercept_applies`]).
    pub raw_target_intercept: bool,
    /// An intercept-only regression whose intercept is the private clipped mean of the
    /// responses ([`preprocess::mean_intercept_applies`]).
    pub mean_intercept: bool,
    /// The model note of a non-private algorithm run with a finite ε.
    pub not_private: Option<String>,
    /// Public remarks, in order (stderr in the CLI, `notes_` in Python).
    pub messages: Vec<String>,
}

impl FitPlan {
    /// The model is the private intercept alone (chosen, or by the scaling fallback).
    pub fn intercept_only(&self) -> bool {
        self.resolved.is_none()
    }

    /// The loss is logistic (labels ±1, no target scale).
    pub fn logistic(&self) -> bool {
        matches!(self.loss, LossKind::Logistic)
    }
}

/// The plan of a fit of `opts` on n rows of d features ([`FitPlan`]) before the binary
/// gate's release (every feature counted as scaled); `distributed`: a fit of rows that
/// live elsewhere ([`fit_external`]), where `auto` must pick an algorithm of
/// [`DISTRIBUTED_ALGORITHMS`]. A function of the options, n and d only.
pub fn plan(
    opts: &FitOptions,
    n: usize,
    d: usize,
    distributed: bool,
) -> Result<FitPlan, PipelineError> {
    close_plan(open_plan(opts, n, d, distributed)?, opts, n, d, None)
}

/// Phase 1a of a fit: the choices that do not depend on the binary gate's release —
/// what `auto` picks, the algorithm with its loss, domain and hyperparameters, the
/// ledger's budget, and the private scaling's public plan. [`close_plan`] completes it
/// once the gate has released how many features are scaled by quantiles (the budget and
/// the algorithm never depend on the gate).
struct OpenPlan {
    name: String,
    auto: Option<AutoChoice>,
    resolved: Option<Resolved>,
    loss: LossKind,
    privacy_model: PrivacyModel,
    budget: BudgetPlan,
    messages: Vec<String>,
    /// The private scaling of the d-dimensional fit (`--scale private` and an algorithm
    /// resolved): the preprocessing share of the budget (3/4 of it with a private
    /// intercept; all of δ for a pure algorithm whose scaling uses the default δ), its
    /// accountant and binary gate ([`preprocess::ScalingPlan`]).
    scaling: Option<preprocess::ScalingPlan>,
}

impl OpenPlan {
    /// The target's scaling check of a regression with private scaling when `scaled`
    /// of the d features are scaled by quantiles ([`preprocess::ScalingPlan::target_check`]).
    fn target_check(&self, scaled: usize) -> Option<preprocess::ScalingCheck> {
        self.scaling
            .filter(|s| s.scale_target)
            .map(|s| s.target_check(scaled))
    }
}

/// [`OpenPlan`] of a fit of `opts` on n rows of d features.
fn open_plan(
    opts: &FitOptions,
    n: usize,
    d: usize,
    distributed: bool,
) -> Result<OpenPlan, PipelineError> {
    let mut messages = Vec::new();
    if let Some(f) = opts.preprocess_share {
        if !(f > 0.0 && f < 1.0) {
            return Err(PreprocessError::BadShare(f).into());
        }
        if matches!(opts.scale, ScaleMode::None | ScaleMode::Public(_))
            && opts.intercept == InterceptMode::None
        {
            return Err(PipelineError::NotApplicable {
                flag: "--preprocess-share".into(),
                scope: "with --scale private or --intercept private (nothing else is learned privately before the fit)".into(),
            });
        }
    }
    // `auto`
    let mut params = opts.params.clone();
    let mut auto: Option<AutoChoice> = None;
    let mut name = opts.algorithm.clone();
    if name == "auto" {
        let choice = auto_choice(opts, n, d);
        for (k, v) in &choice.params {
            params.entry(k.clone()).or_insert_with(|| v.clone());
        }
        name = choice.algorithm.clone();
        if distributed
            && !(DISTRIBUTED_ALGORITHMS.contains(&name.as_str()) || name == INTERCEPT_ONLY)
        {
            return Err(PipelineError::NotDistributed(format!(
                "--algorithm auto chose {name}, which a distributed fit does not support ({}, {INTERCEPT_ONLY})",
                DISTRIBUTED_ALGORITHMS.join(", ")
            )));
        }
        messages.push(format!("--algorithm auto: {} ({})", name, choice.reason));
        auto = Some(choice);
    }
    check_intervals(opts, &name, auto.is_some()).map_err(PipelineError::Intervals)?;
    // the algorithm, its loss, domain and hyperparameters
    let resolved = resolve_choices(&name, opts, params, Some(d), &mut messages)?;
    let (loss, privacy_model) = match &resolved {
        None => (
            LossKind::parse(opts.loss.as_deref().unwrap_or("squared"), None, None)?,
            PrivacyModel::Pure,
        ),
        Some(r) => (r.loss, r.algorithm.privacy_model()),
    };
    let logistic = matches!(loss, LossKind::Logistic);
    // the ledger's budget
    let mut budget = plan_budget(&name, privacy_model, logistic, opts, n, d)?;
    messages.append(&mut budget.messages);
    if opts.seed.is_some() && !budget.budget.is_non_private() {
        messages.push(SEEDED_NOTE.into());
    }
    // the private scaling's budget, accountant and gate
    let scaling = if matches!(opts.scale, ScaleMode::Private) && resolved.is_some() {
        let mut b = PhasedLedger::new(budget.budget).share(scaling_fraction(opts));
        if budget.pure_with_default_delta {
            // the pure algorithm uses no δ: the scales get all of it
            b.delta = budget.budget.delta;
        }
        Some(preprocess::ScalingPlan::new(n, d, b, !logistic))
    } else {
        None
    };
    Ok(OpenPlan {
        name,
        auto,
        resolved,
        loss,
        privacy_model,
        budget,
        messages,
        scaling,
    })
}

/// Phase 1 completed ([`FitPlan`]) once `scaled` of the d features are known to be
/// scaled by quantiles (`None`: before the gate, all d): the public reliability check of
/// the target and its fallback to the intercept alone, and the budget's split over the
/// phases.
fn close_plan(
    open: OpenPlan,
    opts: &FitOptions,
    n: usize,
    d: usize,
    scaled: Option<usize>,
) -> Result<FitPlan, PipelineError> {
    let check = open.target_check(scaled.unwrap_or(d));
    let OpenPlan {
        name,
        auto,
        mut resolved,
        loss,
        privacy_model,
        budget: budget_plan,
        mut messages,
        scaling,
    } = open;
    let logistic = matches!(loss, LossKind::Logistic);
    let budget = budget_plan.budget;
    // The public reliability check of every d-dimensional regression on privately scaled
    // columns (explicit or auto): when the scaling cannot locate the target, the model is
    // the private intercept alone.
    let fallback = check
        .and_then(|c| scaling_fallback(opts, &name, d, c))
        .or_else(|| {
            (logistic && resolved.is_some())
                .then(|| logistic_fallback(opts, &name, n))
                .flatten()
        });
    if let Some(reason) = &fallback {
        // the flags are checked all the same (a bad --sparsity or a loss the algorithm
        // does not take is an error, not a fallback)
        if let Some(r) = &resolved {
            let domain = r.domain.build(d)?;
            if let Some(a) = crate::algorithms::registry::descriptor(&name) {
                let info = (a.info)();
                crate::algorithms::check_loss_and_domain(
                    a.name,
                    r.loss.name(),
                    domain.describe()["kind"].as_str().unwrap_or(""),
                    &info.losses,
                    &info.domains,
                )?;
            }
        }
        if opts.intervals.is_some() {
            // a public decision, before any release
            return Err(PipelineError::Intervals(format!(
                "--intervals: {reason}; the intercept-only model has no intervals (give a larger --epsilon or --scale public:FILE.json)"
            )));
        }
        messages.push(reason.clone());
        resolved = None;
    }
    let intercept_only = resolved.is_none();
    // the budget's split over the phases
    let private_scale = matches!(opts.scale, ScaleMode::Private);
    let private_intercept = opts.intercept == InterceptMode::Private;
    let share = if private_scale || private_intercept {
        opts.preprocess_share.unwrap_or(if intercept_only {
            1.0
        } else {
            DEFAULT_PREPROCESS_SHARE
        })
    } else {
        0.0
    };
    if intercept_only && !private_intercept {
        return Err(PipelineError::InterceptOnlyNeedsIntercept);
    }
    // An intercept-only regression with private scaling scales nothing: its intercept,
    // with the whole budget, is the private clipped mean of the raw responses where n·ε
    // certifies its releases (preprocess::mean_intercept_applies, a public rule), else
    // their private median on the public grid.
    let icpt_regression = intercept_only && !logistic && private_scale;
    let mean_intercept = icpt_regression && preprocess::mean_intercept_applies(n, budget.epsilon);
    let raw_target_intercept = icpt_regression && !mean_intercept;
    if raw_target_intercept {
        messages.push(format!(
            "intercept-only: n·ε = {:.1} < {:.1} (preprocess::mean_intercept_applies): the private mean cannot be located; the intercept is the private median of the responses",
            n as f64 * budget.epsilon,
            preprocess::mean_intercept_min_n_eps()
        ));
        let needed = grid_median_min_n_eps();
        let ne = n as f64 * budget.epsilon;
        if grid_median_refused(n, budget.epsilon) {
            return Err(PipelineError::UnlocatableTarget(format!(
                "{}: the model would be the private intercept alone, the private median of the responses, at n·ε = {ne:.1} < {needed:.1}, where it may land orders of magnitude away from them (no ε-DP estimator can place a constant near n records at this n·ε without a public range; pipeline::grid_median_refused); nothing written: declare the target's centre and scale with --scale public:FILE.json, or give a larger --epsilon",
                opts.algorithm
            )));
        }
    }
    // the scales' share is the scaling plan's (scaling_fraction)
    let joint_intercept = resolved.as_ref().is_some_and(|r| r.joint_intercept);
    let intercept_frac = match (private_scale, private_intercept) {
        (_, true) if intercept_only && (logistic || icpt_regression) => 1.0,
        // the algorithm fits the intercept: its share stays with the algorithm
        (_, true) if joint_intercept => 0.0,
        (true, true) => 0.25 * share,
        (false, true) => share,
        (_, false) => 0.0,
    };
    if let Some(check) = check.filter(|_| !intercept_only) {
        if !check.reliable() {
            messages.push(format!(
                "--scale private: at this n and ε the private scaling may misplace the target by orders of magnitude (n·ε₀ = {:.1} < {:.1}, preprocess::target_scaling_check), and the predictions with it; give --scale public:FILE.json, a larger --preprocess-share or epsilon, or --algorithm auto (which then fits the intercept alone)",
                check.n_eps0, check.needed
            ));
        }
    }
    let feature_check = scaling
        .filter(|_| !intercept_only)
        .and_then(|s| s.feature_check(scaled.unwrap_or(d)));
    if let Some(c) = feature_check.filter(|c| !c.reliable()) {
        messages.push(format!(
            "--scale private: at this n, d and ε a feature's private scale is not certified (n·ε₀ = {:.1} < {:.1} per release, preprocess::ScalingPlan::feature_check): a column's scale may be off by orders of magnitude, and its raw coefficient with it (predictions stay in range: the column is winsorised), and confidence intervals, where the algorithm has them, are unbounded; give --scale public:FILE.json, a larger --preprocess-share or epsilon, or fewer features",
            c.n_eps0, c.needed
        ));
    }
    // The private fit check of every regression with a model, a private intercept and
    // a scaled target, and of every logistic model with a private intercept, in memory
    // or on external rows (preprocess::fit_check).
    let check_frac = if !intercept_only
        && private_intercept
        && (logistic || !matches!(opts.scale, ScaleMode::None))
    {
        preprocess::fit_check::check_share(logistic, n, opts.epsilon)
    } else {
        0.0
    };
    Ok(FitPlan {
        algorithm: name,
        auto,
        fallback,
        resolved,
        loss,
        privacy_model,
        budget,
        scaling: scaling.filter(|_| !intercept_only),
        feature_check,
        intercept_frac,
        check_frac,
        raw_target_intercept,
        mean_intercept,
        not_private: budget_plan.not_private,
        messages,
    })
}

/// The loss, domain and algorithm of `name` (`auto` resolved) with the options' flags
/// and `params`: `bound=auto` and a missing bound, `K`/`tau`/`M=auto`, `--radius` and the
/// gradient clip `R` on scaled data, then [`resolve`]. `d`: the fit's dimension, or
/// `None` before the data are read ([`precheck`]: the defaults that depend on d are
/// left to the fit). Appends its remarks to `messages`; `None` for the intercept-only
/// model (whose flags are checked all the same).
fn resolve_choices(
    name: &str,
    opts: &FitOptions,
    mut params: ParamMap,
    d: Option<usize>,
    messages: &mut Vec<String>,
) -> Result<Option<Resolved>, PipelineError> {
    let intercept_only = name == INTERCEPT_ONLY;
    let scaled = !matches!(opts.scale, ScaleMode::None);
    // bound=auto and a missing bound of the bounded family, on scaled data; K, tau, M=auto
    if !intercept_only {
        messages.extend(resolve_bound(name, scaled, &mut params)?);
        messages.extend(resolve_unit_scale_autos(name, scaled, &mut params)?);
    }
    // --radius: auto (and missing) on scaled data → auto_radius
    let (dl, dd) = algorithms::default_loss_and_domain(name);
    let domain_name = opts.domain.as_deref().unwrap_or(dd);
    let radius = match (opts.radius, d) {
        (Some(RadiusOpt::Value(r)), _) => Some(r),
        (Some(RadiusOpt::Auto), _) if !scaled => {
            return Err(PipelineError::NeedsScaledData {
                flag: "--radius auto".into(),
                quantity: "radius",
            })
        }
        (None, _) if !scaled => None,
        (_, None) => None,
        (given, Some(d)) => {
            let r = auto_radius(name, d);
            if given.is_none()
                && matches!(domain_name, "l1-ball" | "l2-ball" | "sparse")
                && !intercept_only
            {
                messages.push(format!(
                    "--radius not given: using --radius auto = {r:.4} for {name} on scaled columns"
                ));
            }
            Some(r)
        }
    };
    // data-free gradient clip radius of the Zhao et al. family on scaled data (R=auto, or
    // neither R nor M given)
    let r_auto = take_r_auto(scaled, &mut params)?;
    if let Some(d) = d {
        if scaled
            && algorithms::descriptor(name).is_some_and(|a| a.scaled.gradient_radius)
            && !params.contains_key("R")
            && (r_auto || !params.contains_key("M"))
        {
            let l = if matches!(opts.loss.as_deref(), None | Some("squared")) {
                2.0
            } else {
                1.0
            };
            let r = auto_gradient_radius(l, d);
            params.insert("R".into(), format!("{r}"));
            messages.push(format!(
                "{name}: R not given: using R = 2·L·sqrt(d) = {r:.4} (twice the typical gradient norm of privately scaled data; L = {l})"
            ));
        }
    }
    // the logistic loss with a private intercept: an algorithm that can (clipped-gd)
    // fits the intercept jointly with the weights (intercept=fit), the model's intercept
    if algorithms::descriptor(name).is_some_and(|a| a.joint_logistic_intercept)
        && opts.loss.as_deref() == Some("logistic")
        && opts.intercept == InterceptMode::Private
        && !params.contains_key("intercept")
    {
        params.insert("intercept".into(), "fit".into());
        messages.push(format!(
            "{name}: intercept not given: using intercept=fit for the logistic loss (the intercept is fitted jointly with the weights, from the same noisy gradients; no separate intercept release)"
        ));
    }
    let joint_intercept = params.get("intercept").map(String::as_str) == Some("fit");
    if joint_intercept && opts.intercept != InterceptMode::Private {
        return Err(PipelineError::NotApplicable {
            flag: "--param intercept=fit".into(),
            scope: "to --intercept private (the jointly fitted intercept is the model's)".into(),
        });
    }
    if intercept_only {
        return Ok(None);
    }
    resolve_names(
        name,
        opts.loss.as_deref().unwrap_or(dl),
        domain_name,
        radius,
        opts.sparsity,
        params,
    )
    .map(|r| {
        Some(Resolved {
            joint_intercept,
            ..r
        })
    })
}

/// The phases of a fit, in order: 1. [`plan`] (every choice, before any row is read),
/// 2. [`scale_phase`] (labels, centres and scales, the standardisation), 3.
/// [`fit_phase`] (the algorithm on the standardised data), 4. [`intercept_phase`] (the
/// private intercept), 4b. [`check_phase`] (the private fit check), 4c.
/// [`intervals_phase`] (`--intervals`), 5. [`ModelFile::from_fit`] (the model file, in
/// raw units). One [`PhasedLedger`] records what each phase spends.
fn fit_with(
    mut data: Dataset,
    opts: &FitOptions,
    mut external: Option<&mut ExternalRowSums>,
    rng: &mut dyn RngCore,
    observer: &mut dyn Observer,
) -> Result<FitOutcome, PipelineError> {
    let (plan, gate) = gate_phase(opts, &data, external.as_deref_mut(), rng)?;
    let mut ledger = PhasedLedger::new(plan.budget);
    let gate = match gate {
        // the fit fell back to the intercept alone at the released count: the gate's
        // spend is recorded, the intercept gets what is left
        Some(g) if plan.intercept_only() => {
            let spent = g.spent();
            if spent.releases > 0 {
                ledger.record("preprocessing", spent)?;
            }
            None
        }
        g => g,
    };
    let scaled = scale_phase(
        &plan,
        opts,
        &mut data,
        external.as_deref_mut(),
        &mut ledger,
        gate,
        rng,
    )?;
    let (intercept_budget, check_budget) = intercept_and_check_budgets(&plan, opts, &ledger);
    let mut fitted = fit_phase(
        &plan,
        &data,
        external.as_deref_mut(),
        &mut ledger,
        crate::privacy::add_up(intercept_budget.epsilon, check_budget.epsilon),
        rng,
        observer,
    )?;
    if let Some(ext) = external
        .as_deref_mut()
        .filter(|_| plan.check_frac > 0.0 && !plan.logistic())
    {
        // the fit check reads its sum and histograms in the intercept's pass (no pass of its own)
        ext.prefetch_check_reads(preprocess::fit_check::response_clip(data.n(), check_budget));
    }
    let mut intercept = intercept_phase(
        &plan,
        opts,
        &data,
        external.as_deref_mut(),
        &mut ledger,
        intercept_budget,
        &fitted,
        rng,
    )?;
    // 4b. the private fit check: the intercept alone when the model predicts worse
    let mut messages = plan.messages.clone();
    let fit_check = check_phase(
        &plan,
        &data,
        external,
        &mut ledger,
        check_budget,
        &mut fitted,
        &mut intercept,
        &mut messages,
        rng,
    )?;
    let fell_back = fit_check.as_ref().is_some_and(|c| !c.kept);
    let intervals = if fell_back && opts.intervals.is_some() {
        fitted
            .notes
            .push("--intervals: none, the model is the intercept alone (fit check)".into());
        None
    } else {
        intervals_phase(
            &plan,
            opts,
            &data,
            intercept_budget,
            &scaled.standardization,
            &fitted,
            intercept.value,
        )?
    };
    let world_note = crate::inference::REFIT_FEATURES_NOTE;
    // said where it is seen: the bootstrap world's features are independent (a note
    // that depends on released or public values only: the algorithm, the public
    // scaling check and the fit check's released decision)
    if intervals
        .as_ref()
        .is_some_and(|iv| iv.notes.iter().any(|n| n == world_note))
    {
        messages.push(format!(
            "--intervals: {world_note}; --algorithm adassp's intervals use its released XᵀX instead"
        ));
    }
    let model = model_phase(
        &plan, opts, &data, scaled, fitted, intercept, fit_check, intervals, &ledger,
    );
    Ok(FitOutcome { model, messages })
}

/// The budgets of phases 4 (the private intercept) and 4b (the fit check): their shares
/// of the fit's budget ([`FitPlan`]), or nothing when the phase does not run.
fn intercept_and_check_budgets(
    plan: &FitPlan,
    opts: &FitOptions,
    ledger: &PhasedLedger,
) -> (Budget, Budget) {
    let share = |runs: bool, frac: f64| {
        if runs && frac > 0.0 {
            ledger.share(frac)
        } else {
            Budget {
                epsilon: 0.0,
                delta: 0.0,
            }
        }
    };
    (
        share(
            opts.intercept == InterceptMode::Private,
            plan.intercept_frac,
        ),
        share(true, plan.check_frac),
    )
}

/// Phase 5 of a fit: the model file ([`ModelFile::from_fit`], raw units) of the phases'
/// results — what `auto` or a fallback selected and why, the notes, the ledger's
/// summary, the fit check and the intervals.
#[allow(clippy::too_many_arguments)]
fn model_phase(
    plan: &FitPlan,
    opts: &FitOptions,
    data: &Dataset,
    scaled: ScalePhase,
    fitted: FitPhase,
    intercept: InterceptPhase,
    fit_check: Option<preprocess::fit_check::FitCheck>,
    intervals: Option<crate::inference::Intervals>,
    ledger: &PhasedLedger,
) -> ModelFile {
    let algorithm = fitted.algorithm.clone();
    let selected = match (&plan.fallback, &plan.auto) {
        (Some(reason), _) => Some(model::Selection {
            algorithm,
            reason: reason.clone(),
            params: ParamMap::new(),
        }),
        (None, Some(a)) => Some(model::Selection {
            algorithm,
            reason: a.reason.clone(),
            params: a.params.clone(),
        }),
        (None, None) => None,
    };
    let mut notes = fitted.notes;
    notes.extend(plan.not_private.clone());
    notes.extend(plan.fallback.clone());
    let private_scale = matches!(opts.scale, ScaleMode::Private);
    ModelFile::from_fit(model::FitRecord {
        algorithm: if selected.is_some() {
            opts.algorithm.clone()
        } else {
            fitted.algorithm
        },
        selected,
        loss: &plan.loss,
        domain: fitted.domain,
        data,
        standardization: &scaled.standardization,
        preprocessing: scaled.preprocessing.map(|mut p| {
            p.intercept_method = intercept.method;
            p.fit_check = fit_check;
            p
        }),
        scaled_weights: fitted.weights,
        scaled_intercept: intercept.value,
        privacy: ledger.summary_json("algorithm"),
        hyperparameters: fitted.hyperparameters,
        status: fitted.status,
        notes,
        intervals,
        // the released target range bounds every prediction (post-processing); the
        // intercept-only regression's is the released range of its clipped mean
        target_bounds: intercept.mean_range.or_else(|| {
            (private_scale && !plan.logistic() && !plan.intercept_only())
                .then(|| scaled.standardization.target_bounds())
        }),
    })
}

/// Phase 1b of a fit with private scaling: the plan, after the private scaling's binary
/// gate ([`preprocess::release_binary_gate`], the scaling phase's first release, charged
/// to its ledger) when the scaling plan has one and the most favourable scaling check
/// (every feature binary) keeps the d-dimensional fit. The gate releases which features
/// are binary, and the plan is completed with the released count ([`close_plan`]): its
/// scaling check may fall back to the intercept alone. The budget and the algorithm do
/// not depend on the gate.
fn gate_phase(
    opts: &FitOptions,
    data: &Dataset,
    external: Option<&mut ExternalRowSums>,
    rng: &mut dyn RngCore,
) -> Result<(FitPlan, Option<preprocess::GateRelease>), PipelineError> {
    let (n, d, distributed) = (data.n(), data.d(), external.is_some());
    let open = open_plan(opts, n, d, distributed)?;
    let kept_at_best = open
        .target_check(0)
        .is_none_or(|c| scaling_fallback(opts, &open.name, d, c).is_none());
    let gate = match open.scaling {
        Some(s) if s.gate.is_some() && kept_at_best => {
            let mut local;
            let src: &mut dyn preprocess::ScalingSource = match external {
                Some(ext) => ext,
                None => {
                    local = preprocess::LocalColumns::new(data);
                    &mut local
                }
            };
            let features: Vec<usize> = (0..d).collect();
            let target = s.scale_target.then_some(d);
            Some(preprocess::release_binary_gate(
                src, &features, target, s, rng,
            )?)
        }
        _ => None,
    };
    let plan = close_plan(open, opts, n, d, gate.as_ref().map(|g| g.scaled()))?;
    Ok((plan, gate))
}

/// Phase 2's result: the standardisation the algorithm's data went through, and what the
/// model file says of it.
struct ScalePhase {
    standardization: Standardization,
    /// `None` when nothing is learned before the fit (`--scale none --intercept none`).
    preprocessing: Option<model::Preprocessing>,
}

/// Phase 2 of a fit: the labels checked and mapped for the loss; the centres and scales
/// (declared, or private at the plan's scaling budget, recorded as `preprocessing`);
/// the data standardised (in place, or row by row by the executors of a distributed
/// fit).
fn scale_phase(
    plan: &FitPlan,
    opts: &FitOptions,
    data: &mut Dataset,
    mut external: Option<&mut ExternalRowSums>,
    ledger: &mut PhasedLedger,
    gate: Option<preprocess::GateRelease>,
    rng: &mut dyn RngCore,
) -> Result<ScalePhase, PipelineError> {
    let d = data.d();
    let logistic = plan.logistic();
    match external.as_deref_mut() {
        // the executors check and map each label as they read it (the same function)
        Some(ext) => ext.set_labels(logistic),
        None => plan
            .loss
            .prepare_labels(data.y_mut())
            .map_err(|source| PipelineError::Labels {
                target: data.target_name().to_string(),
                source,
            })?,
    }
    let mut source = None;
    let standardization = match &opts.scale {
        ScaleMode::None => Standardization::identity(d),
        ScaleMode::Public(p) => {
            let features = p.lookup(data.feature_names())?;
            let target = if logistic {
                preprocess::ColumnScale::IDENTITY
            } else {
                p.lookup(&[data.target_name().to_string()])?[0]
            };
            source = Some(p.path.clone());
            Standardization {
                features,
                target,
                winsor: Some(preprocess::WINSOR_BOUND),
            }
        }
        // the intercept-only model scales nothing: its intercept reads the raw responses
        // (preprocess::private_mean_intercept_of, or their median) or, logistic, the labels
        ScaleMode::Private => match plan.scaling {
            None => Standardization {
                features: vec![preprocess::ColumnScale::IDENTITY; d],
                target: preprocess::ColumnScale::IDENTITY,
                winsor: None,
            },
            Some(scaling) => {
                let columns: Vec<usize> = (0..d).collect();
                let target = scaling.scale_target.then_some(d);
                // the external rows when there are, else the raw in-memory columns
                let mut local;
                let src: &mut dyn preprocess::ScalingSource = match external.as_deref_mut() {
                    Some(ext) => ext,
                    None => {
                        local = preprocess::LocalColumns::new(data);
                        &mut local
                    }
                };
                // the gate released by gate_phase, else the plan's (which then has no
                // gate to release: nothing is read or charged)
                let gate = match gate {
                    Some(g) => g,
                    None => preprocess::release_binary_gate(src, &columns, target, scaling, rng)?,
                };
                let (st, spent) =
                    preprocess::private_scales_after_gate(src, &columns, target, gate, rng)?;
                if spent.releases > 0 {
                    ledger.record("preprocessing", spent)?;
                }
                st
            }
        },
    };
    match external {
        // the executors standardise each row as they read it (the same formulas)
        Some(ext) => ext.set_transform(RowTransform::of(&standardization)),
        None => standardization.apply(data),
    }
    // A read-only loan is read through the map by the algorithms that can; the others
    // get the standardised copy (see `PrivateAlgorithm::reads_mapped_features`).
    if data.is_mapped()
        && !plan
            .resolved
            .as_ref()
            .is_none_or(|r| r.algorithm.reads_mapped_features())
    {
        data.materialise();
    }
    let private_intercept = opts.intercept == InterceptMode::Private;
    let preprocessing = (!matches!(opts.scale, ScaleMode::None) || private_intercept).then(|| {
        model::Preprocessing {
            scale: opts.scale.name().to_string(),
            private_intercept,
            source,
            intercept_method: None,
            fit_check: None,
        }
    });
    Ok(ScalePhase {
        standardization,
        preprocessing,
    })
}

/// Phase 3's result: the algorithm's release in scaled units (zeros for the
/// intercept-only model) and its record.
struct FitPhase {
    /// The name of what ran (`intercept-only` for the intercept alone).
    algorithm: String,
    weights: Vec<f64>,
    status: Option<String>,
    hyperparameters: BTreeMap<String, serde_json::Value>,
    notes: Vec<String>,
    domain: serde_json::Value,
    /// The released sufficient statistics, for the intervals.
    released: Option<Box<algorithms::adassp::SspRelease>>,
    /// The intercept the algorithm fitted jointly (scaled units), when the plan uses it
    /// as the model's ([`Resolved::joint_intercept`]).
    intercept: Option<f64>,
}

/// Phase 3 of a fit: the algorithm on the standardised data, with what is left of the
/// budget after the scales and before the intercept's and the fit check's shares
/// (`reserved_epsilon`; recorded as `algorithm`).
fn fit_phase(
    plan: &FitPlan,
    data: &Dataset,
    external: Option<&mut ExternalRowSums>,
    ledger: &mut PhasedLedger,
    reserved_epsilon: f64,
    rng: &mut dyn RngCore,
    observer: &mut dyn Observer,
) -> Result<FitPhase, PipelineError> {
    let d = data.d();
    let Some(r) = &plan.resolved else {
        return Ok(FitPhase {
            algorithm: INTERCEPT_ONLY.to_string(),
            weights: vec![0.0; d],
            status: None,
            hyperparameters: BTreeMap::new(),
            notes: Vec::new(),
            domain: serde_json::json!({"kind": "none"}),
            released: None,
            intercept: None,
        });
    };
    let budget = plan.budget;
    let rem = ledger.remaining();
    let alg_budget = if budget.is_non_private() {
        budget
    } else {
        Budget {
            epsilon: crate::privacy::phases::sub_down(rem.epsilon, reserved_epsilon),
            delta: rem.delta,
        }
    };
    let domain = r.domain.build(d)?;
    let problem = Problem {
        data,
        loss: r.loss,
        domain: domain.as_ref(),
    };
    let mut report = match external {
        Some(ext) => r
            .algorithm
            .fit_with_sums(&problem, ext, alg_budget, rng, observer),
        None => r.algorithm.fit(&problem, alg_budget, rng, observer),
    }?;
    ledger.record("algorithm", report.privacy.clone())?;
    let released = report.released.take();
    Ok(FitPhase {
        algorithm: r.algorithm.name().to_string(),
        weights: report.weights,
        status: Some(model::STATUS_COMPLETED.to_string()),
        hyperparameters: report.hyperparameters,
        notes: report.notes,
        domain: domain.describe(),
        released,
        intercept: report.intercept.filter(|_| r.joint_intercept),
    })
}

/// Phase 4's result: the intercept in scaled units and how it was learned.
struct InterceptPhase {
    /// 0 with `--intercept none`.
    value: f64,
    method: Option<String>,
    /// The intercept-only regression's released range of its clipped mean
    /// ([`preprocess::private_mean_intercept_of`]): the model's `target_bounds`.
    mean_range: Option<[f64; 2]>,
    /// The fitted margins ⟨x̃ᵢ, w̃⟩ of in-memory rows, when the intercept read them (the
    /// fit check reads the same).
    margins: Option<Vec<f64>>,
}

/// Phase 4 of a fit: the private intercept of the residuals of the scaled weights (at
/// the intercept's share, recorded as `intercept`).
#[allow(clippy::too_many_arguments)]
fn intercept_phase(
    plan: &FitPlan,
    opts: &FitOptions,
    data: &Dataset,
    external: Option<&mut ExternalRowSums>,
    ledger: &mut PhasedLedger,
    intercept_budget: Budget,
    fitted: &FitPhase,
    rng: &mut dyn RngCore,
) -> Result<InterceptPhase, PipelineError> {
    let weights_s = &fitted.weights;
    let private_intercept = opts.intercept == InterceptMode::Private;
    let scaled = !matches!(opts.scale, ScaleMode::None);
    let raw_target_intercept = plan.raw_target_intercept;
    let mut b_s = 0.0;
    let mut method = None;
    let mut mean_range = None;
    let mut margins = None;
    if let Some(b) = fitted.intercept {
        // fitted jointly by the algorithm, from its noisy gradients: nothing to release
        return Ok(InterceptPhase {
            value: b,
            method: Some(format!(
                "fitted jointly with the weights by {} (intercept=fit: the weight of a constant feature, clipped and noised with the gradient)",
                fitted.algorithm
            )),
            mean_range,
            margins,
        });
    }
    if private_intercept {
        let mut local;
        let mut remote;
        let src: &mut dyn preprocess::InterceptSource = match external {
            Some(ext) => {
                remote = ext.intercept_source(weights_s);
                &mut remote
            }
            None => {
                local =
                    preprocess::Residuals::new(margins.insert(data.margins(weights_s)), data.y());
                &mut local
            }
        };
        let (b, spent, how) = if plan.logistic() && weights_s.iter().all(|w| *w == 0.0) {
            preprocess::private_base_rate_intercept_of(src, intercept_budget, rng)
        } else if plan.mean_intercept {
            preprocess::private_mean_intercept_of(src, intercept_budget, rng).map(
                |(b, range, spent, how)| {
                    mean_range = Some(range);
                    (b, spent, how)
                },
            )
        } else {
            preprocess::private_intercept_of(
                &plan.loss,
                src,
                scaled && !raw_target_intercept,
                intercept_budget,
                rng,
            )
        }?;
        ledger.record("intercept", spent)?;
        method = Some(how);
        b_s = b;
    }
    Ok(InterceptPhase {
        value: b_s,
        method,
        mean_range,
        margins,
    })
}

/// Phase 4b of a fit: the private fit check ([`preprocess::fit_check`], at its share,
/// recorded as `check`) where the plan runs it. When the fitted model predicts worse
/// than the intercept alone, its weights become 0 and its intercept the check's
/// clipped mean of the responses, or the logit of its private base rate for the
/// logistic loss (a note and a remark say so).
#[allow(clippy::too_many_arguments)]
fn check_phase(
    plan: &FitPlan,
    data: &Dataset,
    external: Option<&mut ExternalRowSums>,
    ledger: &mut PhasedLedger,
    check_budget: Budget,
    fitted: &mut FitPhase,
    intercept: &mut InterceptPhase,
    messages: &mut Vec<String>,
    rng: &mut dyn RngCore,
) -> Result<Option<preprocess::fit_check::FitCheck>, PipelineError> {
    if plan.check_frac == 0.0 {
        return Ok(None);
    }
    let margins;
    let mut local;
    let mut remote;
    let src: &mut dyn preprocess::fit_check::CheckSource = match external {
        Some(ext) => {
            remote = ext.check_source(&fitted.weights);
            &mut remote
        }
        None => {
            // the intercept's margins (the same weights): computed once
            margins = intercept
                .margins
                .take()
                .unwrap_or_else(|| data.margins(&fitted.weights));
            local = preprocess::fit_check::LocalCheck {
                margins: &margins,
                y: data.y(),
            };
            &mut local
        }
    };
    let check = if plan.logistic() {
        preprocess::fit_check::private_logistic_fit_check(src, intercept.value, check_budget, rng)
    } else {
        preprocess::fit_check::private_fit_check(src, intercept.value, check_budget, rng)
    }?;
    ledger.record("check", check.spent.clone())?;
    if !check.kept {
        fitted.weights.iter_mut().for_each(|w| *w = 0.0);
        fitted.released = None;
        intercept.value = check.fallback_intercept;
        intercept.method = Some(check.fallback_method.clone());
        messages.push(check.remark());
        fitted.notes.push(check.note().into());
    }
    Ok(Some(check))
}

/// Phase 4c of a fit: the confidence intervals of `--intervals` for the scaled weights
/// and intercept `b_s` (post-processing of the released values).
#[allow(clippy::too_many_arguments)]
fn intervals_phase(
    plan: &FitPlan,
    opts: &FitOptions,
    data: &Dataset,
    intercept_budget: Budget,
    standardization: &Standardization,
    fitted: &FitPhase,
    b_s: f64,
) -> Result<Option<crate::inference::Intervals>, PipelineError> {
    let n = data.n();
    let weights_s = &fitted.weights;
    let private_intercept = opts.intercept == InterceptMode::Private;
    let scaled = !matches!(opts.scale, ScaleMode::None);
    let raw_target_intercept = plan.raw_target_intercept;
    let intervals = match (opts.intervals, &fitted.released) {
        (None, _) => None,
        // an algorithm of inference::algorithms() (check_intervals)
        (Some(level), released) => {
            use crate::inference::InterceptInput;
            let icpt = if !private_intercept {
                InterceptInput::None
            } else if fitted.intercept.is_some() {
                InterceptInput::Unsupported {
                    value: b_s,
                    reason: "it is fitted jointly with the weights (intercept=fit)".into(),
                }
            } else if scaled && !raw_target_intercept {
                InterceptInput::clipped_mean(b_s, n, intercept_budget.epsilon)
            } else {
                InterceptInput::Unsupported {
                    value: b_s,
                    reason: "it is the private median of the residuals (unscaled data)".into(),
                }
            };
            let names = data.feature_names();
            let boot = crate::inference::Bootstrap::at(level);
            let uncertified = plan.feature_check.filter(|c| !c.reliable());
            Some(match (released, uncertified) {
                // the features' private scales are not certified: unbounded, no refit
                (_, Some(c)) => {
                    let method = match released {
                        Some(_) => (crate::inference::METHOD, crate::inference::COVERS),
                        None => (
                            crate::inference::REFIT_METHOD,
                            crate::inference::REFIT_COVERS,
                        ),
                    };
                    let (w_raw, b_raw) = standardization.unscale(weights_s, b_s);
                    crate::inference::uncertified_scales(
                        method,
                        (&w_raw, b_raw),
                        &icpt,
                        names,
                        boot,
                        (c.n_eps0, c.needed),
                    )
                }
                (Some(ssp), None) => crate::inference::ssp_intervals(
                    ssp,
                    weights_s,
                    &icpt,
                    standardization,
                    names,
                    boot,
                ),
                // the same private fit (scaling, algorithm, intercept) on data simulated
                // from released values (post-processing)
                (None, None) => {
                    let mut again = opts.clone();
                    again.intervals = None;
                    again.seed = None;
                    again.algorithm = plan.algorithm.clone();
                    for (k, v) in plan.auto.iter().flat_map(|a| &a.params) {
                        again.params.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                    let mut refit = |sim: Dataset, rng: &mut dyn RngCore| {
                        fit(sim, &again, rng, &mut algorithms::NoObserver)
                            .map(|o| (o.model.weights, o.model.intercept))
                            .map_err(|e| format!("--intervals: a bootstrap refit failed: {e}"))
                    };
                    let boot = crate::inference::Bootstrap {
                        replicates: crate::inference::REFIT_REPLICATES,
                        ..boot
                    };
                    let (w_raw, b_raw) = standardization.unscale(weights_s, b_s);
                    crate::inference::refit_intervals(
                        (&w_raw, b_raw),
                        &icpt,
                        standardization,
                        names,
                        n,
                        boot,
                        crate::inference::RECENTRE,
                        &mut refit,
                    )
                    .map_err(PipelineError::Intervals)?
                }
            })
        }
    };
    Ok(intervals)
}

/// `heavydp algorithms --json` (and `heavydp.algorithms()`): the catalogue, each entry
/// with `scaled_defaults` — what `auto` (and a missing value) means on privately or
/// publicly scaled columns, with its source.
pub fn algorithms_listing() -> serde_json::Value {
    let auto_entry =
        |value: String, source: &str| serde_json::json!({"auto": value, "source": source});
    let mut list: Vec<serde_json::Value> = algorithms::REGISTRY
        .iter()
        .map(|desc| {
            let a = &(desc.info)();
            let mut v = serde_json::to_value(a).expect("serialisable");
            let mut sd = serde_json::Map::new();
            let domain = desc.default_domain;
            if a.domains.iter().any(|d| matches!(*d, "l1-ball" | "l2-ball" | "sparse"))
                || matches!(domain, "l1-ball" | "l2-ball" | "sparse")
            {
                let value = if auto_radius(a.name, 4) > 1.0 {
                    "sqrt(d)".to_string()
                } else {
                    "1".to_string()
                };
                sd.insert(
                    "--radius".into(),
                    auto_entry(value, "pipeline::auto_radius: OLS norms of the scaled real sets; radius sweeps on cps1988/gss (docs/benchmark.md)"),
                );
            }
            for p in &a.parameters {
                let e = match p.name {
                    "bound" if desc.scaled.bound => auto_entry(
                        format!("{AUTO_BOUND} (robust standard deviations)"),
                        "preprocess::AUTO_BOUND: three robust sds of a standardised column",
                    ),
                    "R" if desc.scaled.gradient_radius => auto_entry(
                        "2*L*sqrt(d) (L = 2 squared loss, 1 otherwise)".into(),
                        "pipeline::auto_gradient_radius: twice a scaled gradient's typical norm; cps1988 sweep",
                    ),
                    "K" | "tau" | "M" => auto_entry(
                        format!("the unit-scale default: {}", p.default),
                        p.source,
                    ),
                    _ => continue,
                };
                sd.insert(p.name.into(), e);
            }
            v["scaled_defaults"] = serde_json::Value::Object(sd);
            v["intervals"] = desc.intervals.into();
            v["distributed"] = desc.distributed.into();
            v["rule"] = serde_json::Value::Null;
            v
        })
        .collect();
    list.extend(choice_entries());
    serde_json::Value::Array(list)
}

/// What `--algorithm auto` picks: the rule of [`auto_rule`] and [`auto_choice`], as
/// `heavydp algorithms` lists it.
pub const AUTO_RULE: &str = "regression: intercept-only when n*eps < 2*d, else clipped-gd (squared loss); classification (--loss logistic): intercept-only when n*eps < 100*d (50*d with --scale public:FILE.json), else clipped-gd (logistic loss); intercept-only also when the private scaling of a regression cannot locate the target, and for a logistic model (any algorithm) below n*eps = 240, where the private fit check could not see a bad one. A public rule of the loss, n, d and eps, never of the data (pipeline::auto_rule; evidence: docs/benchmark.md)";

/// What `--algorithm intercept-only` fits, as `heavydp algorithms` lists it.
pub const INTERCEPT_ONLY_RULE: &str = "the model predicts the private intercept alone (the private mean of the target, or the private base rate with --loss logistic), with no coefficients; auto's choice when n*eps is too small for a d-dimensional fit";

/// The listing entries of `auto` and `intercept-only`: the two choices of `fit` that
/// are not algorithms of the registry, with the fields of every entry (`rule` set).
fn choice_entries() -> [serde_json::Value; 2] {
    let entry = |name: &str, use_when: &str, privacy: &str, rule: &str| {
        serde_json::json!({
            "name": name,
            "paper": "",
            "use_when": use_when,
            "privacy": privacy,
            "losses": ["squared", "logistic"],
            "domains": [],
            "parameters": [],
            "scaled_defaults": {},
            "intervals": false,
            "distributed": true,
            "rule": rule,
        })
    };
    [
        entry(
            "auto",
            "the default: picks clipped-gd or intercept-only from the loss, n, d and eps",
            "zcdp",
            AUTO_RULE,
        ),
        entry(
            INTERCEPT_ONLY,
            "too little data for a d-dimensional fit (n*eps small against d): the private mean of the target",
            "pure",
            INTERCEPT_ONLY_RULE,
        ),
    ]
}
