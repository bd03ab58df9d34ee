//! The whole private fit, as `heavydp fit`, the Python package and the real-data
//! benchmark run it: resolve the algorithm (or `auto`), the loss, the domain and δ;
//! learn centres and scales under DP; fit on the standardised data; learn the intercept
//! under DP; map the model back to raw columns. One [`PhasedLedger`] splits the budget
//! over the phases (module [`crate::privacy::phases`]), and the model file's `privacy`
//! object lists every phase.
//!
//! | step | what | budget |
//! |---|---|---|
//! | 1 | `--algorithm auto` → an algorithm by [`auto_rule`] (public quantities only) | — |
//! | 2 | δ: `--delta` or, when missing and the algorithm is (ε, δ)/zCDP, n^−1.1 (said on stderr); an explicit 0 for such an algorithm is an error | — |
//! | 3 | scales ([`crate::preprocess::private_scales`]) | f·ε (·3/4 when the intercept is private), f·δ |
//! | 4 | the algorithm on standardised data; `bound=auto` (and a missing bound) → [`crate::preprocess::AUTO_BOUND`] when the data are scaled | what is left minus the intercept's share |
//! | 5 | intercept ([`crate::preprocess::private_intercept`]) | f·ε/4 (f·ε when the scales are not private) |
//!
//! With `--intercept none --scale none` steps 3 and 5 do nothing and the algorithm gets
//! the whole budget: the weights are bit for bit those of the algorithm alone.

use crate::algorithms::row_sums::{ExternalRowSums, RowTransform};
use crate::algorithms::{self, Observer, ParamMap, PrivateAlgorithm, Problem};
use crate::constraints::DomainSpec;
use crate::data::Dataset;
use crate::loss::LossKind;
use crate::model::ModelFile;
use crate::preprocess::{
    self, quantile::PublicGrid, InterceptMode, ScaleMode, Standardization, AUTO_BOUND,
    DEFAULT_PREPROCESS_SHARE,
};
use crate::privacy::{Budget, PhasedLedger, PrivacyModel};
use rand::RngCore;
use std::collections::BTreeMap;

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
    /// ([`crate::inference`]; post-processing, algorithms [`crate::inference::ALGORITHMS`]).
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
    pub fn parse(v: &str) -> Result<Self, String> {
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
    match algorithm {
        "clipped-gd" => (d.max(1) as f64).sqrt(),
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
) -> Result<Vec<String>, String> {
    let mut messages = Vec::new();
    for key in ["K", "tau", "M"] {
        if params.get(key).map(String::as_str) == Some("auto") {
            if !scaled {
                return Err(format!("--param {key}=auto needs scaled data (--scale private or public:FILE.json): the value is in robust standard deviations"));
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
/// | classification, n·ε < 100·d | `intercept-only` (the private base rate) | cells (n·ε ≤ 3 230, d = 56) and pd_speech: no private fit beat the constant's log-loss on every split; the base rate never loses much |
/// | classification, otherwise | `clipped-gd` (logistic loss) | the only dense private logistic fit whose noise shrinks with n at a data-free R |
pub fn auto_rule(logistic: bool, n: usize, d: usize, epsilon: f64) -> AutoChoice {
    let ne = n as f64 * if epsilon.is_finite() { epsilon } else { 1e12 };
    let factor = if logistic { 100.0 } else { 2.0 };
    if ne < factor * d as f64 {
        return AutoChoice {
            algorithm: INTERCEPT_ONLY.into(),
            params: ParamMap::new(),
            reason: format!(
                "n·ε = {ne:.4} < {factor}·d = {}: a d-dimensional private {} fit would be swamped by its noise (real-data benchmark); the model is the private intercept alone",
                factor * d as f64,
                if logistic { "classification" } else { "regression" }
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

/// `--algorithm auto` for these options: [`auto_rule`], then, for a regression on
/// privately scaled columns, the public check that the scaling can locate the target
/// ([`preprocess::target_scaling_check`] at the scaling phase's budget): when it cannot,
/// the model is the private intercept alone (a d-dimensional fit's raw-unit predictions
/// carry the target scale's error, which is then unbounded). A function of the options,
/// n and d only.
pub fn auto_choice(opts: &FitOptions, n: usize, d: usize) -> AutoChoice {
    let logistic = opts.loss.as_deref() == Some("logistic");
    let choice = auto_rule(logistic, n, d, opts.epsilon);
    if logistic || choice.algorithm == INTERCEPT_ONLY || !matches!(opts.scale, ScaleMode::Private) {
        return choice;
    }
    let check = preprocess::target_scaling_check(n, d, auto_scale_budget(opts, n));
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
    let share = opts
        .preprocess_share
        .unwrap_or(preprocess::DEFAULT_PREPROCESS_SHARE);
    let frac = if opts.intercept == InterceptMode::Private {
        0.75 * share
    } else {
        share
    };
    let delta = opts.delta.unwrap_or_else(|| default_delta(n));
    Budget {
        epsilon: opts.epsilon * frac,
        delta: delta * frac,
    }
}

/// The public reliability check every d-dimensional regression on privately scaled
/// columns runs, explicit or `auto`: [`preprocess::target_scaling_check`] at the scaling
/// phase's budget (`budget`, the fit's; the scales get 3/4 of the preprocessing share
/// with a private intercept, and all of δ when a pure algorithm uses the default δ).
/// When it fails, a d-dimensional model's raw-unit predictions carry the target scale's
/// error, unbounded (measured: `adassp` with its defaults on suite tables below n ≈ 5 000,
/// test MSE up to 10²⁴ times the mean's, every such fit failing this check), so the fit
/// falls back to the private intercept alone: returns the message (stderr and a model
/// note). `None`: the check passes, or no fallback applies (no private scaling, no
/// private intercept to fall back to). A function of the options, n, d and the budget.
fn scaling_fallback(
    opts: &FitOptions,
    name: &str,
    n: usize,
    d: usize,
    budget: Budget,
    all_delta: bool,
) -> Option<String> {
    if !matches!(opts.scale, ScaleMode::Private) || opts.intercept != InterceptMode::Private {
        return None;
    }
    let share = opts
        .preprocess_share
        .unwrap_or(preprocess::DEFAULT_PREPROCESS_SHARE);
    let mut b = PhasedLedger::new(budget).share(0.75 * share);
    if all_delta {
        b.delta = budget.delta;
    }
    let check = preprocess::target_scaling_check(n, d, b);
    (!check.reliable()).then(|| format!(
        "{name}: the private scaling of {d} features and the target cannot locate the target at this n and epsilon (n·ε₀ = {:.1} < {:.1}, preprocess::target_scaling_check), so a {d}-dimensional fit could miss by orders of magnitude: the model is the private intercept alone ({INTERCEPT_ONLY}); give --scale public:FILE.json, a larger --preprocess-share or epsilon for a {d}-dimensional fit",
        check.n_eps0, check.needed
    ))
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
    mut params: ParamMap,
) -> Result<Resolved, String> {
    let (dl, dd) = algorithms::default_loss_and_domain(algorithm);
    let loss_name = loss.unwrap_or(dl);
    let domain_name = domain.unwrap_or(dd);
    let mut take_num = |key: &str, applies: bool, what: &str| -> Result<Option<f64>, String> {
        match params.remove(key) {
            None => Ok(None),
            Some(_) if !applies => Err(format!("--param {key} applies only to {what}")),
            Some(v) => parse_number(&format!("--param {key}"), &v).map(Some),
        }
    };
    // `tau` is the Huber loss's parameter, unless the algorithm has a `tau` of its own (a
    // moment bound, e.g. l1-regression-expmech) and the loss is not Huber.
    let own_tau = algorithms::catalogue()
        .iter()
        .any(|a| a.name == algorithm && a.parameters.iter().any(|p| p.name == "tau"));
    let tau = if own_tau && loss_name != "huber" {
        None
    } else {
        take_num("tau", loss_name == "huber", "--loss huber")?
    };
    let c = take_num("c", loss_name == "biweight", "--loss biweight")?;
    let vertices = match params.remove("vertices") {
        Some(_) if domain_name != "polytope" => {
            return Err("--param vertices applies only to --domain polytope".into())
        }
        v => v,
    };
    let loss = LossKind::parse(loss_name, tau, c).map_err(|e| e.to_string())?;
    let domain = DomainSpec::parse(domain_name, radius, sparsity, vertices.as_deref())
        .map_err(|e| e.to_string())?;
    let algorithm = algorithms::build(algorithm, &params).map_err(|e| e.to_string())?;
    Ok(Resolved {
        algorithm,
        loss,
        domain,
    })
}

/// Parses repeated `--param KEY=VALUE` words into a [`ParamMap`] (keys and values
/// trimmed); a word without `=`, an empty key or value, or a key given twice is an error.
/// The CLI's parser of every `--param` flag (fuzzed by `tests/fuzz.rs`).
pub fn parse_params(raw: &[String]) -> Result<ParamMap, String> {
    let mut m = ParamMap::new();
    for p in raw {
        let (k, v) = p
            .split_once('=')
            .ok_or_else(|| format!("--param '{p}': expected KEY=VALUE"))?;
        let (k, v) = (k.trim(), v.trim());
        if k.is_empty() || v.is_empty() {
            return Err(format!("--param '{p}': expected KEY=VALUE"));
        }
        if m.insert(k.to_string(), v.to_string()).is_some() {
            return Err(format!("--param {k} is given more than once"));
        }
    }
    Ok(m)
}

/// Parses a number flag with a message that names the flag.
pub fn parse_number(flag: &str, v: &str) -> Result<f64, String> {
    v.trim()
        .parse::<f64>()
        .map_err(|_| format!("{flag} must be a number; got '{v}'"))
}

/// Resolves δ: the given value, checked against the algorithm's privacy model, or the
/// documented default n^−1.1 when missing (with a message for stderr).
pub fn resolve_delta(
    algorithm: &str,
    model: PrivacyModel,
    n: usize,
    delta: Option<f64>,
    epsilon: f64,
) -> Result<(f64, Option<String>), String> {
    let needs = matches!(model, PrivacyModel::Approx | PrivacyModel::Zcdp) && epsilon.is_finite();
    match delta {
        Some(d) if d == 0.0 && needs => Err(format!(
            "{algorithm} is (epsilon, delta)-DP and needs delta > 0: --delta 0 is not allowed (omit --delta for the default delta = n^-1.1 = {:e})",
            default_delta(n)
        )),
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
/// the one function the Python `Budget` and `heavydp.spark.fit` charge, and the budget
/// [`fit`] gives its ledger (it refuses to run when the two differ), so a charge can
/// never be smaller than what the model file then reports as spent.
pub fn planned_privacy(opts: &FitOptions, n: usize, d: usize) -> Result<PlannedPrivacy, String> {
    let mut params = opts.params.clone();
    let name = if opts.algorithm == "auto" {
        let choice = auto_choice(opts, n, d);
        for (k, v) in choice.params {
            params.entry(k).or_insert(v);
        }
        choice.algorithm
    } else {
        opts.algorithm.clone()
    };
    let (logistic, model) = if name == INTERCEPT_ONLY {
        (opts.loss.as_deref() == Some("logistic"), PrivacyModel::Pure)
    } else {
        // the resolution of `fit` (a model can depend on a parameter, e.g. the net of
        // l1-regression-expmech)
        let scaled = !matches!(opts.scale, ScaleMode::None);
        resolve_bound(&name, scaled, &mut params)?;
        resolve_unit_scale_autos(&name, scaled, &mut params)?;
        take_r_auto(scaled, &mut params)?;
        let radius = match opts.radius {
            Some(RadiusOpt::Value(r)) => Some(r),
            Some(RadiusOpt::Auto) if !scaled => return Err(RADIUS_AUTO_NEEDS_SCALE.into()),
            None if !scaled => None,
            _ => Some(auto_radius(&name, d)),
        };
        let r = resolve(
            &name,
            opts.loss.as_deref(),
            opts.domain.as_deref(),
            radius,
            opts.sparsity,
            params,
        )?;
        (
            matches!(r.loss, LossKind::Logistic),
            r.algorithm.privacy_model(),
        )
    };
    let budget = plan_budget(&name, model, logistic, opts, n, d)?.budget;
    Ok(PlannedPrivacy {
        algorithm: name,
        model,
        budget,
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
) -> Result<BudgetPlan, String> {
    let (mut delta, note) = resolve_delta(name, model, n, opts.delta, opts.epsilon)?;
    let mut messages: Vec<String> = note.into_iter().collect();
    // A pure algorithm with private scaling and no --delta: the scales' 5(d + 1) quantile
    // releases compose by zCDP at the default δ (≈ √(5(d+1)) times less noise than basic
    // composition; measured: with basic composition at ε·share = 0.15, n = 2·10⁴, d = 20,
    // one fit in two had a wild column). The fit is then (ε, δ)-DP; --delta 0 keeps it pure.
    let mut pure_with_default_delta = model == PrivacyModel::Pure
        && opts.delta.is_none()
        && matches!(opts.scale, ScaleMode::Private)
        && opts.epsilon.is_finite();
    if pure_with_default_delta {
        // δ only when the scaling phase uses it: the intercept-only model scales the
        // target alone, and nothing when the loss is logistic or the scaling cannot
        // locate the target (the check of `fit`); and the scaling composes by zCDP only
        // when that beats basic composition at its share (the choice of
        // `preprocess::scaling_epsilons`, with the δ `fit` gives it). Otherwise no phase
        // would spend δ and the fit stays pure.
        let b = Budget::new(opts.epsilon, default_delta(n)).map_err(|e| e.to_string())?;
        let (frac, columns, target) = if name == INTERCEPT_ONLY {
            (0.5, 1, false)
        } else {
            let share = opts
                .preprocess_share
                .unwrap_or(preprocess::DEFAULT_PREPROCESS_SHARE);
            let frac = if opts.intercept == InterceptMode::Private {
                0.75 * share
            } else {
                share
            };
            (frac, d, !logistic)
        };
        let mut scaling = PhasedLedger::new(b).share(frac);
        scaling.delta = b.delta;
        // the intercept-only model scales nothing (its intercept locates the target)
        let nothing_scaled = name == INTERCEPT_ONLY;
        let zcdp = preprocess::scaling_epsilons(scaling, columns, target).2
            == crate::privacy::Accountant::Zcdp;
        if nothing_scaled || !zcdp {
            pure_with_default_delta = false;
        }
    }
    if pure_with_default_delta {
        delta = default_delta(n);
        messages.push(format!(
            "--delta not given: {name} is pure epsilon-DP, but the private scaling uses the default delta = n^-1.1 = {delta:e} (zCDP composition of its quantiles), so the fit is (epsilon, delta)-DP; give --delta 0 for a pure fit"
        ));
    }
    let budget = Budget::new(opts.epsilon, delta).map_err(|e| e.to_string())?;
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
) -> Result<Option<String>, String> {
    let bound_required = name != "frank-wolfe"
        && algorithms::catalogue()
            .iter()
            .any(|a| a.name == name && a.parameters.iter().any(|p| p.name == "bound"));
    match params.get("bound").map(|s| s.as_str()) {
        Some("auto") if !scaled => Err("--param bound=auto needs scaled data (--scale private or public:FILE.json): the bound is in robust standard deviations".into()),
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
pub fn precheck(opts: &FitOptions) -> Result<(), String> {
    if opts.algorithm != "auto" {
        check_intervals(opts.intervals, &opts.algorithm, false)?;
    }
    if opts.algorithm == "auto" || opts.algorithm == INTERCEPT_ONLY {
        return Ok(());
    }
    let mut p = opts.params.clone();
    let scaled = !matches!(opts.scale, ScaleMode::None);
    resolve_bound(&opts.algorithm, scaled, &mut p)?;
    resolve_unit_scale_autos(&opts.algorithm, scaled, &mut p)?;
    take_r_auto(scaled, &mut p)?;
    let radius = match opts.radius {
        Some(RadiusOpt::Auto) if !scaled => return Err(RADIUS_AUTO_NEEDS_SCALE.into()),
        Some(RadiusOpt::Value(r)) => Some(r),
        _ => None,
    };
    resolve(
        &opts.algorithm,
        opts.loss.as_deref(),
        opts.domain.as_deref(),
        radius,
        opts.sparsity,
        p,
    )
    .map(|_| ())
}

/// `--intervals LEVEL`: a level in (0, 1) and an algorithm of
/// [`crate::inference::ALGORITHMS`] (`by_auto`: chosen by `--algorithm auto`).
fn check_intervals(level: Option<f64>, algorithm: &str, by_auto: bool) -> Result<(), String> {
    let Some(level) = level else { return Ok(()) };
    crate::inference::check_level(level)?;
    if crate::inference::supports(algorithm) {
        return Ok(());
    }
    Err(format!(
        "--intervals: {algorithm}{} has no confidence intervals; algorithms with intervals: {} (heavydp algorithms --json, field `intervals`)",
        if by_auto { " (chosen by --algorithm auto)" } else { "" },
        crate::inference::ALGORITHMS.join(", ")
    ))
}

const R_AUTO_NEEDS_SCALE: &str = "--param R=auto needs scaled data (--scale private or public:FILE.json): the radius is in robust standard deviations";
/// `--param R=auto` (the Zhao family's gradient clip): taken out of `params` (the fit
/// then sets [`auto_gradient_radius`]); an error on unscaled data. True when it was given.
fn take_r_auto(scaled: bool, params: &mut ParamMap) -> Result<bool, String> {
    if params.get("R").map(String::as_str) != Some("auto") {
        return Ok(false);
    }
    if !scaled {
        return Err(R_AUTO_NEEDS_SCALE.into());
    }
    params.remove("R");
    Ok(true)
}

const RADIUS_AUTO_NEEDS_SCALE: &str = "--radius auto needs scaled data (--scale private or public:FILE.json): the radius is in robust standard deviations";

/// Fits on `data` (taken by value: standardised in place, never copied). Errors are
/// one-line, data-free messages.
pub fn fit(
    data: Dataset,
    opts: &FitOptions,
    rng: &mut dyn RngCore,
    observer: &mut dyn Observer,
) -> Result<FitOutcome, String> {
    fit_with(data, opts, None, rng, observer)
}

/// The algorithms a distributed fit supports (their data passes are row sums).
pub const DISTRIBUTED_ALGORITHMS: [&str; 3] = ["clipped-gd", "ht-frank-wolfe", "dp-iht-huber"];

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
) -> Result<FitOutcome, String> {
    let name = opts.algorithm.as_str();
    if !(DISTRIBUTED_ALGORITHMS.contains(&name) || name == "auto" || name == INTERCEPT_ONLY) {
        return Err(format!(
            "--algorithm {name}: a distributed fit supports {}, {INTERCEPT_ONLY} and auto (their data passes are row sums)",
            DISTRIBUTED_ALGORITHMS.join(", ")
        ));
    }
    fit_with(data, opts, Some(sums), rng, observer)
}

fn fit_with(
    mut data: Dataset,
    opts: &FitOptions,
    mut external: Option<&mut ExternalRowSums>,
    rng: &mut dyn RngCore,
    observer: &mut dyn Observer,
) -> Result<FitOutcome, String> {
    let (n, d) = (data.n(), data.d());
    let mut messages = Vec::new();
    if let Some(f) = opts.preprocess_share {
        if !(f > 0.0 && f < 1.0) {
            return Err(preprocess::PreprocessError::BadShare(f).to_string());
        }
        if matches!(opts.scale, ScaleMode::None | ScaleMode::Public(_))
            && opts.intercept == InterceptMode::None
        {
            return Err("--preprocess-share applies only with --scale private or --intercept private (nothing else is learned privately before the fit)".into());
        }
    }
    let loss_hint = opts.loss.as_deref();
    // 1. auto
    let mut params = opts.params.clone();
    let mut auto: Option<AutoChoice> = None;
    let mut name = opts.algorithm.clone();
    if name == "auto" {
        let choice = auto_choice(opts, n, d);
        for (k, v) in &choice.params {
            params.entry(k.clone()).or_insert_with(|| v.clone());
        }
        name = choice.algorithm.clone();
        if external.is_some()
            && !(DISTRIBUTED_ALGORITHMS.contains(&name.as_str()) || name == INTERCEPT_ONLY)
        {
            return Err(format!(
                "--algorithm auto chose {name}, which a distributed fit does not support ({}, {INTERCEPT_ONLY})",
                DISTRIBUTED_ALGORITHMS.join(", ")
            ));
        }
        messages.push(format!("--algorithm auto: {} ({})", name, choice.reason));
        auto = Some(choice);
    }
    let mut intercept_only = name == INTERCEPT_ONLY;
    check_intervals(opts.intervals, &name, auto.is_some())?;
    let scaled = !matches!(opts.scale, ScaleMode::None);
    // bound=auto and a missing bound of the bounded family, on scaled data; K, tau, M=auto
    if !intercept_only {
        messages.extend(resolve_bound(&name, scaled, &mut params)?);
        messages.extend(resolve_unit_scale_autos(&name, scaled, &mut params)?);
    }
    // --radius: auto (and missing) on scaled data → auto_radius
    let domain_name = opts
        .domain
        .clone()
        .unwrap_or_else(|| algorithms::default_loss_and_domain(&name).1.to_string());
    let radius = match opts.radius {
        Some(RadiusOpt::Value(r)) => Some(r),
        Some(RadiusOpt::Auto) if !scaled => return Err(RADIUS_AUTO_NEEDS_SCALE.into()),
        None if !scaled => None,
        given => {
            let r = auto_radius(&name, d);
            if given.is_none()
                && matches!(domain_name.as_str(), "l1-ball" | "l2-ball" | "sparse")
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
    if scaled
        && matches!(name.as_str(), "clipped-gd" | "iterative-updating-gd")
        && !params.contains_key("R")
        && (r_auto || !params.contains_key("M"))
    {
        let l = if matches!(loss_hint, None | Some("squared")) {
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
    // 2. algorithm, loss, domain, δ
    let (mut resolved, model) = if intercept_only {
        let loss = LossKind::parse(loss_hint.unwrap_or("squared"), None, None)
            .map_err(|e| e.to_string())?;
        (None, (loss, PrivacyModel::Pure))
    } else {
        let r = resolve(
            &name,
            opts.loss.as_deref(),
            opts.domain.as_deref(),
            radius,
            opts.sparsity,
            params,
        )?;
        let m = r.algorithm.privacy_model();
        let loss = r.loss;
        (Some(r), (loss, m))
    };
    let (loss, privacy_model) = model;
    let logistic = matches!(loss, LossKind::Logistic);
    let plan = plan_budget(&name, privacy_model, logistic, opts, n, d)?;
    messages.extend(plan.messages);
    let (budget, pure_with_default_delta) = (plan.budget, plan.pure_with_default_delta);
    // The Python Budget and heavydp.spark charge `planned_privacy` before the fit: the
    // ledger's budget must be that one, or the charge could be smaller than the spend.
    let planned = planned_privacy(opts, n, d)?;
    if planned.budget != budget {
        return Err(format!(
            "heavydp internal error: the planned privacy ({}, {}) differs from the fit's budget ({}, {})",
            planned.budget.epsilon, planned.budget.delta, budget.epsilon, budget.delta
        ));
    }
    if opts.seed.is_some() && !budget.is_non_private() {
        messages.push(SEEDED_NOTE.into());
    }
    // The public reliability check of every d-dimensional regression on privately scaled
    // columns (explicit or auto): when the scaling cannot locate the target, the model is
    // the private intercept alone.
    let fallback = (!intercept_only && !logistic)
        .then(|| scaling_fallback(opts, &name, n, d, budget, pure_with_default_delta))
        .flatten();
    if let Some(reason) = &fallback {
        // the flags are checked all the same (a bad --sparsity is an error, not a fallback)
        if let Some(r) = &resolved {
            r.domain.build(d).map_err(|e| e.to_string())?;
        }
        if opts.intervals.is_some() {
            // a public decision, before any release
            return Err(format!(
                "--intervals: {reason}; the intercept-only model has no intervals (give a larger --epsilon or --scale public:FILE.json)"
            ));
        }
        messages.push(reason.clone());
        intercept_only = true;
        resolved = None;
    }
    match external.as_deref_mut() {
        // the executors check and map each label as they read it (the same function)
        Some(ext) => ext.set_labels(logistic),
        None => loss
            .prepare_labels(data.y_mut())
            .map_err(|e| format!("{}: {e}", data.target_name()))?,
    }
    // 3. budget split and scales
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
        return Err(
            "intercept-only needs --intercept private (it is the model's only parameter)".into(),
        );
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
        // the median on the 124 929-point public grid: a release outside the data has
        // utility ≤ −n/2, probability ≤ |G|·exp(−ε·n/4) (the bound of
        // preprocess::target_scaling_check); below 4·ln(|G|/β) it certifies nothing
        let needed = 4.0 * (PublicGrid::LEN as f64 / preprocess::SCALING_FAILURE).ln();
        let ne = n as f64 * budget.epsilon;
        if ne < needed {
            messages.push(format!(
                "intercept-only: n·ε = {ne:.1} < {needed:.1}: even the private median of the responses may land far outside them; declare the target's centre and scale with --scale public:FILE.json"
            ));
        }
    }
    let (scale_frac, intercept_frac) = match (private_scale, private_intercept) {
        (_, true) if intercept_only && (logistic || icpt_regression) => (0.0, 1.0),
        (true, true) => (0.75 * share, 0.25 * share),
        (true, false) => (share, 0.0),
        (false, true) => (0.0, share),
        (false, false) => (0.0, 0.0),
    };
    let mut ledger = PhasedLedger::new(budget);
    let mut preprocessing = serde_json::Map::new();
    preprocessing.insert("scale".into(), opts.scale.name().into());
    preprocessing.insert(
        "intercept".into(),
        if private_intercept { "private" } else { "none" }.into(),
    );
    let standardization = match &opts.scale {
        ScaleMode::None => Standardization::identity(d),
        ScaleMode::Public(p) => {
            let features = p.lookup(data.feature_names()).map_err(|e| e.to_string())?;
            let target = if logistic {
                preprocess::ColumnScale::IDENTITY
            } else {
                p.lookup(&[data.target_name().to_string()])
                    .map_err(|e| e.to_string())?[0]
            };
            preprocessing.insert("source".into(), p.path.clone().into());
            Standardization {
                features,
                target,
                winsor: Some(preprocess::WINSOR_BOUND),
            }
        }
        ScaleMode::Private => {
            let mut b = ledger.share(scale_frac);
            if pure_with_default_delta {
                // the pure algorithm uses no δ: the scales get all of it
                b.delta = ledger.remaining().delta;
            }
            if !intercept_only && !logistic {
                let check = preprocess::target_scaling_check(n, d, b);
                if !check.reliable() {
                    messages.push(format!(
                        "--scale private: at this n and ε the private scaling may misplace the target by orders of magnitude (n·ε₀ = {:.1} < {:.1}, preprocess::target_scaling_check), and the predictions with it; give --scale public:FILE.json, a larger --preprocess-share or epsilon, or --algorithm auto (which then fits the intercept alone)",
                        check.n_eps0, check.needed
                    ));
                }
            }
            let (st, spent) = if intercept_only {
                // the intercept-only model scales nothing: its intercept reads the raw
                // responses (preprocess::private_mean_intercept_of, or their median) or,
                // logistic, the labels
                (
                    Standardization::identity(d),
                    crate::privacy::PrivacyLedger::new(b, crate::privacy::Accountant::Basic)
                        .summary(PrivacyModel::Pure),
                )
            } else {
                let features: Vec<usize> = (0..d).collect();
                with_scaling_source(&data, external.as_deref_mut(), |src| {
                    preprocess::private_scales_of(src, &features, (!logistic).then_some(d), b, rng)
                })?
            };
            if spent.releases > 0 {
                ledger
                    .record("preprocessing", spent)
                    .map_err(|e| e.to_string())?;
            }
            st
        }
    };
    match external.as_deref_mut() {
        // the executors standardise each row as they read it (the same formulas)
        Some(ext) => ext.set_transform(RowTransform::of(&standardization)),
        None => standardization.apply(&mut data),
    }
    // A read-only loan is read through the map by the algorithms that can; the others
    // get the standardised copy (see `PrivateAlgorithm::reads_mapped_features`).
    if data.is_mapped()
        && !resolved
            .as_ref()
            .is_none_or(|r| r.algorithm.reads_mapped_features())
    {
        data.materialise();
    }
    // the released standardisation, in the model file's `preprocessing`
    let (centres, scales): (Vec<f64>, Vec<f64>) = standardization
        .features
        .iter()
        .map(|c| (c.centre, c.scale))
        .unzip();
    let target = standardization.target;
    for (key, value) in [
        ("centres", serde_json::json!(centres)),
        ("scales", serde_json::json!(scales)),
        ("target_centre", serde_json::json!(target.centre)),
        ("target_scale", serde_json::json!(target.scale)),
    ] {
        preprocessing.insert(key.into(), value);
    }
    // 4. the algorithm
    let intercept_budget = if private_intercept {
        ledger.share(intercept_frac)
    } else {
        Budget {
            epsilon: 0.0,
            delta: 0.0,
        }
    };
    let mut released = None;
    let (weights_s, status, hyper, notes, domain_desc, algo_name) = match &resolved {
        None => (
            vec![0.0; d],
            None,
            BTreeMap::new(),
            Vec::new(),
            serde_json::json!({"kind": "none"}),
            INTERCEPT_ONLY.to_string(),
        ),
        Some(r) => {
            let rem = ledger.remaining();
            let alg_budget = if budget.is_non_private() {
                budget
            } else {
                Budget {
                    epsilon: crate::privacy::phases::sub_down(
                        rem.epsilon,
                        intercept_budget.epsilon,
                    ),
                    delta: rem.delta,
                }
            };
            let domain = r.domain.build(d).map_err(|e| e.to_string())?;
            let problem = Problem {
                data: &data,
                loss: r.loss,
                domain: domain.as_ref(),
            };
            let mut report = match external.as_deref_mut() {
                Some(ext) => r
                    .algorithm
                    .fit_with_sums(&problem, ext, alg_budget, rng, observer),
                None => r.algorithm.fit(&problem, alg_budget, rng, observer),
            }
            .map_err(|e| e.to_string())?;
            ledger
                .record("algorithm", report.privacy.clone())
                .map_err(|e| e.to_string())?;
            released = report.released.take();
            let status = serde_json::to_value(report.status)
                .ok()
                .and_then(|v| v.as_str().map(String::from));
            (
                report.weights,
                status,
                report.hyperparameters,
                report.notes,
                domain.describe(),
                r.algorithm.name().to_string(),
            )
        }
    };
    // 5. intercept
    let mut b_s = 0.0;
    let mut mean_range = None;
    if private_intercept {
        let margins: Vec<f64>;
        let mut local;
        let mut remote;
        let src: &mut dyn preprocess::InterceptSource = match external {
            Some(ext) => {
                remote = ext.intercept_source(&weights_s);
                &mut remote
            }
            None => {
                margins = data.margins(&weights_s);
                local = preprocess::Residuals::new(&margins, data.y());
                &mut local
            }
        };
        let (b, spent, how) = if logistic && weights_s.iter().all(|w| *w == 0.0) {
            preprocess::private_base_rate_intercept_of(src, intercept_budget, rng)
        } else if mean_intercept {
            preprocess::private_mean_intercept_of(src, intercept_budget, rng).map(
                |(b, range, spent, how)| {
                    mean_range = Some(range);
                    (b, spent, how)
                },
            )
        } else {
            preprocess::private_intercept_of(
                &loss,
                src,
                scaled && !raw_target_intercept,
                intercept_budget,
                rng,
            )
        }
        .map_err(|e| e.to_string())?;
        ledger
            .record("intercept", spent)
            .map_err(|e| e.to_string())?;
        preprocessing.insert("intercept_method".into(), how.into());
        b_s = b;
    }
    let intervals = match (opts.intervals, released) {
        (Some(level), Some(ssp)) => {
            use crate::inference::InterceptInput;
            let icpt = if !private_intercept {
                InterceptInput::None
            } else if scaled && !raw_target_intercept {
                InterceptInput::clipped_mean(b_s, n, intercept_budget.epsilon)
            } else {
                InterceptInput::Unsupported {
                    value: b_s,
                    reason: "it is the private median of the residuals (unscaled data)".into(),
                }
            };
            let boot = crate::inference::Bootstrap::at(level);
            let names = data.feature_names();
            let iv = crate::inference::ssp_intervals(
                &ssp,
                &weights_s,
                &icpt,
                &standardization,
                names,
                boot,
            );
            Some(iv)
        }
        (Some(_), None) => {
            return Err(format!(
                "--intervals: {name} released no statistics to compute intervals from"
            ))
        }
        (None, _) => None,
    };
    let (weights, intercept) = standardization.unscale(&weights_s, b_s);
    preprocessing.insert("scaled_weights".into(), serde_json::json!(weights_s));
    preprocessing.insert("scaled_intercept".into(), serde_json::json!(b_s));
    let mut model = ModelFile {
        format: crate::model::FORMAT.to_string(),
        algorithm: if auto.is_some() || fallback.is_some() {
            opts.algorithm.clone()
        } else {
            algo_name.clone()
        },
        loss: loss.name().to_string(),
        loss_parameters: crate::model::loss_parameters(&loss),
        domain: domain_desc,
        features: data.feature_names().to_vec(),
        target: data.target_name().to_string(),
        weights,
        intercept,
        privacy: ledger.summary_json("algorithm"),
        hyperparameters: hyper,
        n,
        d,
        heavydp_version: crate::VERSION.to_string(),
        status,
        notes,
        feature_bounds: standardization.raw_bounds(),
        preprocessing: (scaled || private_intercept)
            .then_some(serde_json::Value::Object(preprocessing)),
        selected: match (&fallback, &auto) {
            (Some(reason), _) => Some(
                serde_json::json!({"algorithm": algo_name, "reason": reason, "params": ParamMap::new()}),
            ),
            (None, Some(a)) => Some(
                serde_json::json!({"algorithm": algo_name, "reason": a.reason, "params": a.params}),
            ),
            (None, None) => None,
        },
        intervals,
        // the released target range bounds every prediction (post-processing)
        // (the intercept-only model: the released range of its clipped mean)
        target_bounds: mean_range.or_else(|| {
            (private_scale && !logistic && !icpt_regression)
                .then(|| standardization.target_bounds())
        }),
    };
    model.notes.extend(plan.not_private);
    if let Some(reason) = fallback {
        model.notes.push(reason);
    }
    if model.weights.iter().any(|w| !w.is_finite()) || !model.intercept.is_finite() {
        // Public: the scales and weights are released values.
        model
            .notes
            .push("a weight is not finite after mapping back to raw units".into());
    }
    Ok(FitOutcome { model, messages })
}

/// Runs `f` on the scaling source of the fit: the external rows when there are, else
/// the in-memory columns of `data` (raw: the scaling comes before the standardisation).
fn with_scaling_source<T>(
    data: &Dataset,
    external: Option<&mut ExternalRowSums>,
    f: impl FnOnce(&mut dyn preprocess::ScalingSource) -> Result<T, preprocess::PreprocessError>,
) -> Result<T, String> {
    match external {
        Some(ext) => f(ext),
        None => f(&mut preprocess::LocalColumns::new(data)),
    }
    .map_err(|e| e.to_string())
}

/// `heavydp algorithms --json` (and `heavydp.algorithms()`): the catalogue, each entry
/// with `scaled_defaults` — what `auto` (and a missing value) means on privately or
/// publicly scaled columns, with its source.
pub fn algorithms_listing() -> serde_json::Value {
    let auto_entry =
        |value: String, source: &str| serde_json::json!({"auto": value, "source": source});
    let list = algorithms::catalogue()
        .iter()
        .map(|a| {
            let mut v = serde_json::to_value(a).expect("serialisable");
            let mut sd = serde_json::Map::new();
            let (_, domain) = algorithms::default_loss_and_domain(a.name);
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
                    "bound" if a.name != "frank-wolfe" => auto_entry(
                        format!("{AUTO_BOUND} (robust standard deviations)"),
                        "preprocess::AUTO_BOUND: three robust sds of a standardised column",
                    ),
                    "R" if matches!(a.name, "clipped-gd" | "iterative-updating-gd") => auto_entry(
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
            v["intervals"] = crate::inference::supports(a.name).into();
            v
        })
        .collect();
    serde_json::Value::Array(list)
}
