//! The Zhao et al. experiments. The paper has none (spec
//! `zhao-optimal-rates-heavy-tailed.md` §8), so both are project designs:
//!
//! * `zhao-mean-tails` ([`run_mean_tails`]): the error distribution of the private mean
//!   estimators over many repetitions (≥ 2000) on heavy-tailed data at equal (ε, δ) —
//!   the 50/90/99/99.9 % quantiles of ‖μ̂ − μ‖₂. It probes the paper's central claim: the
//!   iterative-updating estimator (Alg. 3) has sub-Gaussian error tails, the simple
//!   clipping estimator (Alg. 2) only sub-exponential ones (Theorem 2's
//!   (8R/n) ln(2·6^d/β) term), so the upper quantiles of clipping should be heavier.
//! * `zhao-risk` ([`risk_plan`], a figure panel on the common runner): the excess
//!   population risk of `clipped-gd`, `iterative-updating-gd` and `ht-frank-wolfe` against
//!   n on linear regression with Student-t features (`hu-linear-student`).
//!
//! # `zhao-mean-tails` protocol
//!
//! * Data: X = μ + Z with μ = (1/√d)·1 (‖μ‖₂ = 1) and Z with i.i.d. coordinates, either
//!   Student t with ν = 3 (variance 3) or symmetric Pareto, Z_j = S·(U^{−1/3} − 1) with a
//!   random sign S (tail index 3, variance 1). Both have finite second but infinite third
//!   absolute moments: p = 2 (the only moment order the estimators may assume), with the
//!   declared bound M² = ‖μ‖² + Var(Z_j) ≥ E⟨u, X⟩² for every unit u (M = 2 for t₃,
//!   M = √2 for Pareto).
//! * Estimators at their public defaults (see `estimators::private_mean`): `clip`
//!   (ρ of eq. (15) for ε ≤ 1), `iterative-updating` (conservative accounting,
//!   k = ⌈8 ln n⌉), and `catoni` (pure ε-DP, Hu et al. §A.5, τ = E X_j² = Var + 1/d) as a
//!   reference. The paper's `accounting=shuffle` is left out: Theorem 6's preconditions
//!   need k of several hundred groups (refused at the default k), k = 2397 costs about a
//!   second per estimate (Estimate on 2397 points, t_c times) — hours at 2000 repetitions —
//!   and spec §4.1 shows it adds more noise than the conservative accounting for every
//!   k below ≈ 1.2·10⁵ anyway.
//!   δ = n^{−1.1} for all (ε, δ) estimators.
//! * Grid: distribution ∈ {t₃, Pareto₃} × d ∈ {2, 10} × n ∈ {10⁴, 10⁵} × ε ∈ {0.5, 1}
//!   (`--quick`: d = 2, n = 10⁴, ε = 1); 2000 repetitions by default (`--reps` may not go
//!   below 2000: the 99.9 % quantile needs them). Smaller n or larger d leave the
//!   iterative-updating estimator's group means noise-dominated under the always-valid
//!   accounting (it then returns its public start c₁ = 0, error ‖μ‖ = 1, in every
//!   repetition: a constant, which would make its "tail" trivially light).
//! * Reported per (setting, estimator): the 50/90/99/99.9 % quantiles (type 7) with a
//!   distribution-free 95 % confidence interval from order statistics, the mean error, and
//!   the tail ratio q99.9/q50.
//! * Seeds: repetition r of a setting uses `derive_seed(seed, [ID, setting, r])`; the data
//!   come from `["data"]` and each estimator's noise from `["method", label]`.

use super::output::metric_lines_csv;
use super::runner::per_method_reps;
use super::{
    mean_sd, Axis, Choice, DomainKind, ExperimentError, ExperimentInfo, MethodSpec, Plan,
    PlanOptions, RunInfo, Setting, Source,
};
use crate::algorithms::{FitError, ParamMap};
use crate::estimators::private_mean::private_mean;
use crate::loss::LossKind;
use crate::noise::{derive_seed, open01, rng_from_seed};
use crate::params::param_map;
use crate::privacy::Budget;
use rand::Rng;
use rand_distr::{Distribution, StudentT};
use serde::Serialize;
use serde_json::json;
use std::collections::BTreeMap;
use std::time::Instant;

/// The paper of both experiments.
pub const ZHAO_PAPER: &str = "Zhao, Wu, Liu, Wang, Fan & Li, Differential Private Stochastic Optimization with Heavy-tailed Data: Towards Optimal Rates";
/// The mean-estimation tail experiment.
pub const MEAN_TAILS_ID: &str = "zhao-mean-tails";
/// The optimisation panel.
pub const RISK_ID: &str = "zhao-risk";
/// The fewest repetitions `zhao-mean-tails` accepts (the 99.9 % quantile needs them).
pub const MIN_TAIL_REPS: usize = 2000;
/// The quantile levels reported.
pub const LEVELS: [f64; 4] = [0.5, 0.9, 0.99, 0.999];

/// The `--list` rows.
pub fn info(id: &str) -> Option<ExperimentInfo> {
    match id {
        MEAN_TAILS_ID => Some(ExperimentInfo::project_design(
            MEAN_TAILS_ID,
            ZHAO_PAPER,
            "error quantiles (50/90/99/99.9 %) of the private means clip, iterative-updating, catoni over >= 2000 repetitions, Student-t and Pareto data, equal (epsilon, delta)",
        )),
        RISK_ID => Some(ExperimentInfo::project_design(
            RISK_ID,
            ZHAO_PAPER,
            "excess risk vs n of clipped-gd, iterative-updating-gd and ht-frank-wolfe, linear regression with Student-t features",
        )),
        _ => None,
    }
}

/// A heavy-tailed coordinate law (mean 0).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "law", rename_all = "kebab-case")]
pub enum Law {
    /// Student t with ν degrees of freedom.
    StudentT { nu: f64 },
    /// Symmetric Pareto: S·(U^{−1/α} − 1), S a random sign.
    Pareto { alpha: f64 },
}

impl Law {
    /// Short label used in the results.
    pub fn label(&self) -> String {
        match self {
            Law::StudentT { nu } => format!("student-t(nu={nu})"),
            Law::Pareto { alpha } => format!("pareto(alpha={alpha})"),
        }
    }
    /// Var(Z_j).
    pub fn variance(&self) -> f64 {
        match *self {
            Law::StudentT { nu } => nu / (nu - 2.0),
            // E(Y − 1)² for Y ~ Pareto(α, 1): Var Y + (E Y − 1)².
            Law::Pareto { alpha } => {
                let m = alpha / (alpha - 1.0);
                let v = alpha / ((alpha - 1.0).powi(2) * (alpha - 2.0));
                v + (m - 1.0).powi(2)
            }
        }
    }
    fn sampler(&self) -> impl Fn(&mut dyn rand::RngCore) -> f64 + '_ {
        let t = match self {
            Law::StudentT { nu } => Some(StudentT::new(*nu).expect("nu > 0")),
            Law::Pareto { .. } => None,
        };
        move |rng: &mut dyn rand::RngCore| match (self, &t) {
            (Law::StudentT { .. }, Some(t)) => t.sample(rng),
            (Law::Pareto { alpha }, _) => {
                let s = if rng.random::<bool>() { 1.0 } else { -1.0 };
                s * (open01(rng).powf(-1.0 / alpha) - 1.0)
            }
            _ => unreachable!(),
        }
    }
}

/// One grid point of `zhao-mean-tails`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TailSetting {
    pub law: Law,
    pub d: usize,
    pub n: usize,
    pub epsilon: f64,
    pub delta: f64,
    /// The declared moment bound M (p = 2).
    pub m_bound: f64,
}

impl TailSetting {
    fn key(&self) -> String {
        format!(
            "{},d={},n={},epsilon={}",
            self.law.label(),
            self.d,
            self.n,
            self.epsilon
        )
    }
}

/// An estimator of the experiment.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TailMethod {
    pub label: String,
    pub estimator: &'static str,
    pub params: ParamMap,
}

/// The grid and the estimators.
pub fn tail_grid(quick: bool) -> (Vec<TailSetting>, Vec<TailMethod>) {
    let laws = [Law::StudentT { nu: 3.0 }, Law::Pareto { alpha: 3.0 }];
    let (ds, ns, eps): (&[usize], &[usize], &[f64]) = if quick {
        (&[2], &[10_000], &[1.0])
    } else {
        (&[2, 10], &[10_000, 100_000], &[0.5, 1.0])
    };
    let mut settings = Vec::new();
    for law in laws {
        for &d in ds {
            for &n in ns {
                for &e in eps {
                    settings.push(TailSetting {
                        law,
                        d,
                        n,
                        epsilon: e,
                        delta: (n as f64).powf(-1.1),
                        m_bound: (1.0 + law.variance()).sqrt(),
                    });
                }
            }
        }
    }
    let p = param_map;
    let methods = vec![
        TailMethod {
            label: "clip".into(),
            estimator: "clip",
            params: p(&[]),
        },
        TailMethod {
            label: "iterative-updating".into(),
            estimator: "iterative-updating",
            params: p(&[]),
        },
        TailMethod {
            label: "catoni (pure)".into(),
            estimator: "catoni",
            params: p(&[]),
        },
    ];
    (settings, methods)
}

/// One (setting, estimator) row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TailRow {
    pub setting: String,
    pub distribution: String,
    pub d: usize,
    pub n: usize,
    pub epsilon: f64,
    pub delta: f64,
    pub method: String,
    /// Successful repetitions.
    pub reps: usize,
    /// The error message when every repetition failed (e.g. the shuffle preconditions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// (level, quantile, 95 % CI lower, 95 % CI upper).
    pub quantiles: Vec<(f64, f64, f64, f64)>,
    pub mean_error: f64,
    pub std_error: f64,
    /// q99.9 / q50.
    pub tail_ratio: f64,
    /// The estimator's resolved hyperparameters (first repetition).
    pub hyperparameters: BTreeMap<String, serde_json::Value>,
    pub seconds: f64,
}

/// The whole result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TailResults {
    #[serde(flatten)]
    pub run: RunInfo,
    pub settings: Vec<TailSetting>,
    pub rows: Vec<TailRow>,
    pub total_seconds: f64,
}

/// Type-7 quantile of sorted values.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return f64::NAN;
    }
    let h = (n - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(n - 1);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// Distribution-free 95 % confidence interval of the q-quantile from order statistics
/// (normal approximation of the binomial rank), clamped to the sample.
pub fn quantile_ci(sorted: &[f64], q: f64) -> (f64, f64) {
    let n = sorted.len() as f64;
    if sorted.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let half = 1.96 * (n * q * (1.0 - q)).sqrt();
    let lo = ((n * q - half).floor().max(1.0) as usize).min(sorted.len()) - 1;
    let hi = ((n * q + half).ceil().max(1.0) as usize).min(sorted.len()) - 1;
    (sorted[lo], sorted[hi])
}

/// Runs `zhao-mean-tails`: `reps` (≥ 2000) repetitions of every estimator in every
/// setting, in parallel on the current rayon pool (thread-count independent).
pub fn run_mean_tails(
    opts: &PlanOptions,
    reps: usize,
    base_seed: u64,
) -> Result<TailResults, ExperimentError> {
    if reps < MIN_TAIL_REPS {
        return Err(ExperimentError::Invalid {
            id: MEAN_TAILS_ID.into(),
            reason: format!(
                "--reps must be at least {MIN_TAIL_REPS} (the 99.9 % quantile needs them; got {reps})"
            ),
        });
    }
    let (settings, methods) = tail_grid(opts.quick);
    run_tails_grid(settings, &methods, reps, base_seed, opts.quick)
}

/// [`run_mean_tails`] on an explicit grid (any number of repetitions; used by the tests).
pub fn run_tails_grid(
    settings: Vec<TailSetting>,
    methods: &[TailMethod],
    reps: usize,
    base_seed: u64,
    quick: bool,
) -> Result<TailResults, ExperimentError> {
    let start = Instant::now();
    let mut rows = Vec::new();
    for st in &settings {
        let key = st.key();
        let mu = vec![1.0 / (st.d as f64).sqrt(); st.d];
        let t0 = Instant::now();
        let outs = per_method_reps(
            (base_seed, MEAN_TAILS_ID, &key),
            reps,
            methods.len(),
            |rep_seed| {
                let mut rng = rng_from_seed(derive_seed(rep_seed, &["data"]));
                let draw = st.law.sampler();
                let x: Vec<f64> = (0..st.n * st.d)
                    .map(|i| mu[i % st.d] + draw(&mut rng))
                    .collect();
                methods
                    .iter()
                    .map(|m| {
                        let mut params = m.params.clone();
                        match m.estimator {
                            "catoni" => {
                                params.insert(
                                    "tau".into(),
                                    format!("{}", st.law.variance() + 1.0 / st.d as f64),
                                );
                            }
                            _ => {
                                params.insert("p".into(), "2".into());
                                params.insert("M".into(), format!("{}", st.m_bound));
                            }
                        }
                        let budget = if m.estimator == "catoni" {
                            Budget::new(st.epsilon, 0.0)
                        } else {
                            Budget::new(st.epsilon, st.delta)
                        }
                        .map_err(|e| e.to_string())?;
                        let mut nrng = rng_from_seed(derive_seed(rep_seed, &["method", &m.label]));
                        let rep =
                            private_mean(m.estimator, &x, st.n, st.d, budget, &params, &mut nrng)
                                .map_err(|e: FitError| e.to_string())?;
                        let err = crate::linalg::dist2(&rep.mean, &mu);
                        Ok((err, rep.hyperparameters))
                    })
                    .collect()
            },
        );
        let secs = t0.elapsed().as_secs_f64();
        for (m, o) in methods.iter().zip(outs) {
            let mut errs = o.values;
            errs.sort_by(f64::total_cmp);
            let quantiles: Vec<(f64, f64, f64, f64)> = LEVELS
                .iter()
                .map(|&q| {
                    let (lo, hi) = quantile_ci(&errs, q);
                    (q, quantile(&errs, q), lo, hi)
                })
                .collect();
            let (mean, sd) = mean_sd(&errs);
            rows.push(TailRow {
                setting: key.clone(),
                distribution: st.law.label(),
                d: st.d,
                n: st.n,
                epsilon: st.epsilon,
                delta: st.delta,
                method: m.label.clone(),
                reps: errs.len(),
                failure: o.failure,
                tail_ratio: quantiles[3].1 / quantiles[0].1,
                quantiles,
                mean_error: mean,
                std_error: sd / (errs.len() as f64).sqrt(),
                hyperparameters: o.hyperparameters,
                seconds: secs / methods.len() as f64,
            });
        }
    }
    Ok(TailResults {
        run: RunInfo {
            base_seed,
            reps,
            quick,
        },
        settings,
        rows,
        total_seconds: start.elapsed().as_secs_f64(),
    })
}

/// `results.csv`: one row per (setting, estimator, metric): the varied parameters,
/// `method`, `metric` (`q50`, `q90`, `q99`, `q99.9`, `mean_error`, `tail_ratio`), `mean`
/// (the value), `std` (for a quantile: half the width of its 95 % CI divided by 1.96, an
/// approximate standard error; for the mean error its standard error), `reps`.
pub fn tails_csv(r: &TailResults) -> String {
    let columns = "distribution,d,n,epsilon,method,metric,mean,std,reps";
    metric_lines_csv(columns, &r.rows, |row| {
        let lead = format!(
            "{},{},{},{},\"{}\"",
            row.distribution, row.d, row.n, row.epsilon, row.method
        );
        let mut metrics: Vec<(String, f64, f64)> = row
            .quantiles
            .iter()
            .map(|&(q, v, lo, hi)| (format!("q{}", q * 100.0), v, (hi - lo) / (2.0 * 1.96)))
            .collect();
        metrics.push(("mean_error".into(), row.mean_error, row.std_error));
        metrics.push(("tail_ratio".into(), row.tail_ratio, f64::NAN));
        (lead, row.reps, metrics)
    })
}

/// Whether the tail claim held in a setting: the iterative-updating estimator's 99.9 %
/// quantile is below clipping's, with disjoint 95 % intervals ("yes"), overlapping
/// intervals ("unresolved"), or above ("no").
pub fn tail_verdicts(r: &TailResults) -> Vec<(String, &'static str, f64, f64)> {
    let mut out = Vec::new();
    for st in &r.settings {
        let key = st.key();
        let find = |m: &str| {
            r.rows
                .iter()
                .find(|row| row.setting == key && row.method == m && row.reps > 0)
        };
        if let (Some(c), Some(iu)) = (find("clip"), find("iterative-updating")) {
            let (qc, qi) = (c.quantiles[3], iu.quantiles[3]);
            let v = if qi.3 < qc.2 {
                "yes"
            } else if qi.2 > qc.3 {
                "no"
            } else {
                "unresolved"
            };
            out.push((key, v, qi.1, qc.1));
        }
    }
    out
}

/// `results.md`: the quantile table and the verdict per setting.
pub fn tails_markdown(r: &TailResults) -> String {
    let mut s = format!(
        "# {MEAN_TAILS_ID}\n\n{} repetitions per setting; error ‖μ̂ − μ‖₂; δ = n^-1.1; quantiles with 95 % order-statistic intervals.\n\n| distribution | d | n | ε | estimator | q50 | q90 | q99 | q99.9 | q99.9/q50 | mean |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
        r.run.reps
    );
    for row in &r.rows {
        if row.reps == 0 {
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | failed: {} |||||| \n",
                row.distribution,
                row.d,
                row.n,
                row.epsilon,
                row.method,
                row.failure.clone().unwrap_or_default()
            ));
            continue;
        }
        let q = |i: usize| {
            let (_, v, lo, hi) = row.quantiles[i];
            format!("{v:.4} [{lo:.4}, {hi:.4}]")
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2} | {:.4} |\n",
            row.distribution,
            row.d,
            row.n,
            row.epsilon,
            row.method,
            q(0),
            q(1),
            q(2),
            q(3),
            row.tail_ratio,
            row.mean_error
        ));
    }
    s.push_str("\n## Tail claim (iterative-updating q99.9 below clip q99.9)\n\n| setting | held | iterative-updating q99.9 | clip q99.9 |\n|---|---|---|---|\n");
    for (k, v, qi, qc) in tail_verdicts(r) {
        s.push_str(&format!("| {k} | {v} | {qi:.4} | {qc:.4} |\n"));
    }
    s
}

/// `summary.json`.
pub fn tails_summary(r: &TailResults, run: serde_json::Value) -> serde_json::Value {
    json!({
        "id": MEAN_TAILS_ID,
        "paper": format!("{ZHAO_PAPER} (project design, spec §8)"),
        "protocol": {
            "data": "X = mu + Z, mu = (1/sqrt d) 1, Z i.i.d. Student t (nu = 3) or symmetric Pareto (alpha = 3)",
            "moment": "p = 2, M = sqrt(1 + Var Z_j) (declared)",
            "delta": "n^-1.1",
            "estimators": "public defaults of heavydp mean; catoni is pure epsilon-DP with tau = Var Z_j + 1/d",
            "metric": "||mu_hat - mu||_2; quantiles type 7 with 95% order-statistic intervals",
            "verdict": "held = iterative-updating q99.9 interval entirely below clip's",
        },
        "verdicts": tail_verdicts(r).iter().map(|(k, v, qi, qc)| json!({"setting": k, "held": v, "iterative_updating_q999": qi, "clip_q999": qc})).collect::<Vec<_>>(),
        "results": r,
        "run": run,
        "heavydp_version": env!("CARGO_PKG_VERSION"),
    })
}

/// The plan of `zhao-risk`: excess population risk against n on `hu-linear-student`
/// (x ~ t₁₀, noise N(0, 0.1²), w* on the unit ℓ1 sphere), squared loss, unit ℓ1 ball,
/// d = 10, ε = 1, δ = n^{−1.1}.
///
/// Declared constants for the Zhao methods (public; not read from data): p = 2;
/// λ = 2·E‖x‖-smoothness of F(w) = E(⟨x, w⟩ − y)², i.e. 2·λ_max(E xxᵀ) = 2·1.25 = 2.5;
/// M = 5, a bound on (E⟨u, ∇ℓ(w, z)⟩²)^{1/2} = 2(E(⟨x, w − w*⟩ − ξ)²⟨u, x⟩²)^{1/2} over the
/// unit ℓ1 ball (Cauchy–Schwarz with E⟨x, v⟩⁴ ≤ 4σ⁴‖v‖₂⁴ for t₁₀ coordinates, σ² = 1.25,
/// ‖w − w*‖₂ ≤ 2, gives ≈ 10; M = 5 is the value on the path from w = 0, where
/// ‖w − w*‖₂ ≤ 1).
pub fn risk_plan(opts: &PlanOptions) -> Result<Plan, ExperimentError> {
    let q = opts.quick;
    let ns: Vec<f64> = if q {
        vec![1000.0, 4000.0, 16_000.0]
    } else {
        vec![1000.0, 4000.0, 16_000.0, 64_000.0, 256_000.0]
    };
    let d = 10;
    let settings: Vec<Setting> = ns
        .iter()
        .map(|&n| Setting {
            values: vec![("n", n)],
            ..Setting::synthetic(1.0, n as usize, d, None)
        })
        .collect();
    let zp = |kv: &[(&str, &str)]| -> ParamMap {
        // the paper's Algorithm 1 schedule (T of Theorems 4 / 7 up to 10 000 steps), not the
        // library's compute rule
        let mut m = param_map(&[
            ("p", "2"),
            ("M", "5"),
            ("lambda", "2.5"),
            ("schedule", "theorem"),
            ("max_steps", "10000"),
        ]);
        m.extend(param_map(kv));
        m
    };
    let l1 = DomainKind::L1Ball { radius: 1.0 };
    let method =
        |label: &str, alg: &str, params| MethodSpec::new(label, alg, LossKind::Squared, l1, params);
    let methods = vec![
        method("clipped-gd", "clipped-gd", zp(&[])),
        method("iterative-updating-gd", "iterative-updating-gd", zp(&[])),
        method("ht-frank-wolfe", "ht-frank-wolfe", ParamMap::new()),
    ];
    let mut fixed = BTreeMap::new();
    fixed.insert("scenario".into(), json!("hu-linear-student"));
    fixed.insert("d".into(), json!(d));
    fixed.insert("epsilon".into(), json!(1.0));
    fixed.insert("delta".into(), json!("n^-1.1"));
    fixed.insert("domain".into(), json!({"kind": "l1-ball", "radius": 1.0}));
    let ch = |name: &str, value: &str, source: &str| Choice::new(name, value, true, source);
    Ok(Plan {
        id: RISK_ID.into(),
        paper: format!("{ZHAO_PAPER} (project design)"),
        description: "excess population risk vs n: clipped-gd, iterative-updating-gd, ht-frank-wolfe; hu-linear-student, d = 10, epsilon = 1".into(),
        data_note: None,
        options: opts.clone(),
        axes: vec![Axis {
            name: "n",
            values: ns,
        }],
        x_axis: "n",
        series_axis: None,
        settings,
        methods,
        metrics: vec!["excess_risk"],
        source: Source::Synthetic {
            scenario: "hu-linear-student",
        },
        loss: LossKind::Squared,
        eval_l2_penalty: 0.0,
        fixed,
        choices: vec![
            ch("problem", "hu-linear-student (x ~ t10: finite moments below order 10, per-sample gradients below order 5), squared loss, unit l1 ball", "project design (the paper has no experiments)"),
            ch("declared constants", "p = 2, M = 5, lambda = 2.5 for clipped-gd and iterative-updating-gd (derivation in the plan's documentation)", "Zhao Assumption 1; spec Z12"),
            ch("schedule", "schedule=theorem, max_steps=10000 for clipped-gd and iterative-updating-gd: Algorithm 1 with Theorem 4/7's T, as in the paper", "Zhao Alg. 1"),
            ch("ht-frank-wolfe", "its documented defaults (theory preset)", "Hu et al. Alg. 1"),
            ch("grid", if q { "--quick: n in {1e3, 4e3, 1.6e4}" } else { "n in {1e3, 4e3, 1.6e4, 6.4e4, 2.56e5}" }, "project"),
        ],
        reference_t: None,
    })
}
