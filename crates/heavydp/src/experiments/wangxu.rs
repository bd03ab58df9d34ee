//! `wangxu-rate`: the excess population risk of `l1-regression-expmech` (Wang & Xu,
//! Algorithms 1–2) against n·ε, with the theorems' slopes drawn for comparison. The paper
//! has no experiments; this is the project design of spec `wang-xu-l1-regression.md`,
//! "Experiments".
//!
//! # Protocol
//!
//! * W = the unit ℓ2 ball of ℝ^d, d ∈ {1, 2}; w* = (0.5, −0.3) (d = 2) or 0.5 (d = 1);
//!   y = ⟨w*, x⟩ + ξ, x and ξ independent with i.i.d. coordinates.
//! * Two cases: θ = 2 (Algorithm 1, A1) with Student t, ν = 3 (E‖x‖₂² = 3d, τ = √(3d));
//!   θ = 1.5 (Algorithm 2, A3) with Student t, ν = 1.8 (infinite variance;
//!   E|x_j|^{1.5} ≈ 4.626, so E‖x‖₂^{1.5} ≤ Σ_j E|x_j|^{1.5} = 4.626·d and
//!   τ = (4.626·d)^{1/1.5}). Symmetric noise, so w* minimises L_𝒟(w) = E|y − ⟨x, w⟩|.
//! * n ∈ {10³, 3·10³, 10⁴, 3·10⁴}, ε ∈ {0.5, 1, 2} (x-axis n·ε); 20 repetitions;
//!   `--quick`: n ∈ {10³, 10⁴}, ε = 1, 5 repetitions.
//! * `l1-regression-expmech` with `moment` = θ, `tau` = τ, ι at its default
//!   (`moment_kind=norm`, η = 0.05) and the grid net with `max_candidates` = 2¹⁴
//!   (spec: ζ ≈ 0.0098 at d = 2).
//! * Comparison (where they apply): `dp-iht-l1` (Tian et al. Alg. 3; the `sparse` domain
//!   with s* = d and radius 1, i.e. the unit ℓ2 ball; (ε, δ = n^{−1.1})-DP) and `ht-lasso`
//!   (Hu et al. Alg. 2: squared loss on the unit ℓ1 ball, (ε, δ)-DP) — both evaluated
//!   on the same absolute-loss risk.
//! * Metrics: the excess population risk L_𝒟(w̃) − L_𝒟(w*), estimated on one fixed
//!   fresh sample of 10⁶ records per (case, d) (10⁵ with `--quick`), common to every
//!   run (paired differences, so its Monte Carlo error is far below the effects), and
//!   ‖w̃ − w*‖₂.
//! * Slopes: least-squares slope of log(mean excess risk) on log(nε) per (case, d,
//!   method), against the theory: −1/2 (θ = 2) and −(θ − 1)/θ = −1/3 (θ = 1.5).

use super::mean_sd;
use super::output::metric_lines_csv;
use super::runner::per_method_reps;
use super::{ExperimentError, ExperimentInfo, PlanOptions, RunInfo};
use crate::algorithms::{self, NoObserver, ParamMap, Problem};
use crate::constraints::{ConstraintSet, L1Ball, L2Ball, SparseBall};
use crate::data::Dataset;
use crate::linalg::dot;
use crate::loss::LossKind;
use crate::noise::{derive_seed, rng_from_seed};
use crate::privacy::{Budget, PrivacyModel};
use rand_distr::{Distribution, StudentT};
use serde::Serialize;
use serde_json::json;
use std::time::Instant;

/// The experiment ID.
pub const ID: &str = "wangxu-rate";
/// The paper.
pub const WANGXU_PAPER: &str =
    "Wang & Xu, Differentially Private l1-norm Linear Regression with Heavy-tailed Data";
/// E|T|^{1.5} for T ~ Student t with ν = 1.8 (spec "Experiments").
const T18_MOMENT_15: f64 = 4.626;

/// The `--list` row.
pub fn info() -> ExperimentInfo {
    ExperimentInfo::project_design(
        ID,
        WANGXU_PAPER,
        "excess population risk of l1-regression-expmech vs n*epsilon (d = 1, 2; theta = 2 with t3 data, theta = 1.5 with t1.8 data), theory slopes drawn; dp-iht-l1 and ht-lasso for comparison",
    )
}

/// One case: moment order θ and the Student-t degrees of freedom of x and ξ.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Case {
    pub theta: f64,
    pub nu: f64,
    pub d: usize,
}

impl Case {
    /// τ of the case (A1: E‖x‖₂² ≤ τ²; A3: E‖x‖₂^θ ≤ τ^θ).
    pub fn tau(&self) -> f64 {
        let d = self.d as f64;
        if self.theta == 2.0 {
            (d * self.nu / (self.nu - 2.0)).sqrt()
        } else {
            (T18_MOMENT_15 * d).powf(1.0 / self.theta)
        }
    }
    /// The theorem's slope of the excess risk in nε.
    pub fn theory_slope(&self) -> f64 {
        -(self.theta - 1.0) / self.theta
    }
    pub fn w_star(&self) -> Vec<f64> {
        [0.5, -0.3][..self.d].to_vec()
    }
    pub fn label(&self) -> String {
        format!("theta={}, nu={}, d={}", self.theta, self.nu, self.d)
    }
    fn sample(&self, n: usize, seed: u64) -> Dataset {
        let mut rng = rng_from_seed(seed);
        let t = StudentT::new(self.nu).expect("nu > 0");
        let d = self.d;
        let w = self.w_star();
        let x: Vec<f64> = (0..n * d).map(|_| t.sample(&mut rng)).collect();
        let y: Vec<f64> = (0..n)
            .map(|i| dot(&x[i * d..(i + 1) * d], &w) + t.sample(&mut rng))
            .collect();
        Dataset::from_rows(x, y, d).expect("finite draws")
    }
}

/// A method of the experiment.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RateMethod {
    pub label: &'static str,
    pub algorithm: &'static str,
}

fn methods() -> Vec<RateMethod> {
    vec![
        RateMethod {
            label: "l1-regression-expmech",
            algorithm: "l1-regression-expmech",
        },
        RateMethod {
            label: "dp-iht-l1",
            algorithm: "dp-iht-l1",
        },
        RateMethod {
            label: "ht-lasso",
            algorithm: "ht-lasso",
        },
    ]
}

/// One (case, n, ε, method) row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RateRow {
    pub case: Case,
    pub n: usize,
    pub epsilon: f64,
    pub n_epsilon: f64,
    pub method: String,
    pub reps: usize,
    pub excess_mean: f64,
    pub excess_std: f64,
    pub l2_mean: f64,
    pub l2_std: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Resolved hyperparameters of the first repetition (net size, ζ, ι, …).
    pub hyperparameters: std::collections::BTreeMap<String, serde_json::Value>,
    pub seconds: f64,
}

/// A fitted slope.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Slope {
    pub case: Case,
    pub method: String,
    pub slope: f64,
    pub theory: f64,
    /// |slope − theory| ≤ 0.15.
    pub within_tolerance: bool,
    pub points: usize,
}

/// The whole result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RateResults {
    #[serde(flatten)]
    pub run: RunInfo,
    pub eval_size: usize,
    pub rows: Vec<RateRow>,
    pub slopes: Vec<Slope>,
    pub total_seconds: f64,
}

/// The grid: cases × n × ε.
pub fn grid(quick: bool) -> (Vec<Case>, Vec<usize>, Vec<f64>) {
    let mut cases = Vec::new();
    for d in [1, 2] {
        cases.push(Case {
            theta: 2.0,
            nu: 3.0,
            d,
        });
        cases.push(Case {
            theta: 1.5,
            nu: 1.8,
            d,
        });
    }
    if quick {
        (cases, vec![1000, 10_000], vec![1.0])
    } else {
        (cases, vec![1000, 3000, 10_000, 30_000], vec![0.5, 1.0, 2.0])
    }
}

/// Least-squares slope of log y on log x.
pub fn loglog_slope(points: &[(f64, f64)]) -> f64 {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| p.0 > 0.0 && p.1 > 0.0)
        .map(|p| (p.0.ln(), p.1.ln()))
        .collect();
    let k = pts.len() as f64;
    if pts.len() < 2 {
        return f64::NAN;
    }
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / k;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / k;
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    sxy / sxx
}

/// Mean absolute residual of `w` on the evaluation sample.
fn risk(eval: &Dataset, w: &[f64]) -> f64 {
    crate::loss::mean_loss(&LossKind::Absolute, eval.x(), eval.y(), eval.d(), w)
}

/// Runs the experiment on the current rayon pool (thread-count independent).
pub fn run_rate(
    opts: &PlanOptions,
    reps: usize,
    base_seed: u64,
) -> Result<RateResults, ExperimentError> {
    if reps == 0 {
        return Err(ExperimentError::Invalid {
            id: ID.into(),
            reason: "--reps must be at least 1".into(),
        });
    }
    let (cases, ns, eps) = grid(opts.quick);
    let eval_size = if opts.quick { 100_000 } else { 1_000_000 };
    run_rate_grid(&cases, &ns, &eps, reps, base_seed, eval_size, opts.quick)
}

/// [`run_rate`] on an explicit grid (used by the tests).
pub fn run_rate_grid(
    cases: &[Case],
    ns: &[usize],
    eps: &[f64],
    reps: usize,
    base_seed: u64,
    eval_size: usize,
    quick: bool,
) -> Result<RateResults, ExperimentError> {
    let start = Instant::now();
    let ms = methods();
    let mut rows = Vec::new();
    for case in cases {
        let eval = case.sample(
            eval_size,
            derive_seed(base_seed, &[ID, &case.label(), "eval"]),
        );
        let w_star = case.w_star();
        let r_star = risk(&eval, &w_star);
        for &n in ns {
            for &e in eps {
                let key = format!("{},n={n},epsilon={e}", case.label());
                let t0 = Instant::now();
                let outs = per_method_reps((base_seed, ID, &key), reps, ms.len(), |rep_seed| {
                    let data = case.sample(n, derive_seed(rep_seed, &["data"]));
                    ms.iter()
                        .map(|m| {
                            let (loss, domain, params): (
                                LossKind,
                                Box<dyn ConstraintSet>,
                                ParamMap,
                            ) = match m.algorithm {
                                "l1-regression-expmech" => (
                                    LossKind::Absolute,
                                    Box::new(L2Ball {
                                        d: case.d,
                                        radius: 1.0,
                                    }),
                                    [
                                        ("moment", format!("{}", case.theta)),
                                        ("tau", format!("{}", case.tau())),
                                        ("max_candidates", "16384".to_string()),
                                    ]
                                    .into_iter()
                                    .map(|(k, v)| (k.to_string(), v))
                                    .collect(),
                                ),
                                "dp-iht-l1" => (
                                    LossKind::Absolute,
                                    Box::new(SparseBall {
                                        d: case.d,
                                        s: case.d,
                                        radius: 1.0,
                                    }),
                                    ParamMap::new(),
                                ),
                                _ => (
                                    LossKind::Squared,
                                    Box::new(L1Ball {
                                        d: case.d,
                                        radius: 1.0,
                                    }),
                                    ParamMap::new(),
                                ),
                            };
                            let alg = algorithms::build(m.algorithm, &params)
                                .map_err(|e| e.to_string())?;
                            let budget = match alg.privacy_model() {
                                PrivacyModel::Pure => Budget::new(e, 0.0),
                                _ => Budget::new(e, (n as f64).powf(-1.1)),
                            }
                            .map_err(|e| e.to_string())?;
                            let problem = Problem {
                                data: &data,
                                loss,
                                domain: domain.as_ref(),
                            };
                            let mut rng =
                                rng_from_seed(derive_seed(rep_seed, &["method", m.label]));
                            let rep = alg
                                .fit(&problem, budget, &mut rng, &mut NoObserver)
                                .map_err(|e| e.to_string())?;
                            let ex = risk(&eval, &rep.weights) - r_star;
                            let l2 = crate::linalg::dist2(&rep.weights, &w_star);
                            Ok(((ex, l2), rep.hyperparameters))
                        })
                        .collect()
                });
                let secs = t0.elapsed().as_secs_f64();
                for (m, o) in ms.iter().zip(outs) {
                    let (em, es) = mean_sd(&o.values.iter().map(|v| v.0).collect::<Vec<_>>());
                    let (lm, ls) = mean_sd(&o.values.iter().map(|v| v.1).collect::<Vec<_>>());
                    rows.push(RateRow {
                        case: *case,
                        n,
                        epsilon: e,
                        n_epsilon: n as f64 * e,
                        method: m.label.into(),
                        reps: o.values.len(),
                        excess_mean: em,
                        excess_std: es,
                        l2_mean: lm,
                        l2_std: ls,
                        failure: o.failure,
                        hyperparameters: o.hyperparameters,
                        seconds: secs / ms.len() as f64,
                    });
                }
            }
        }
    }
    let mut slopes = Vec::new();
    for case in cases {
        for m in &ms {
            let pts: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.case == *case && r.method == m.label && r.reps > 0)
                .map(|r| (r.n_epsilon, r.excess_mean))
                .collect();
            let slope = loglog_slope(&pts);
            slopes.push(Slope {
                case: *case,
                method: m.label.into(),
                slope,
                theory: case.theory_slope(),
                within_tolerance: (slope - case.theory_slope()).abs() <= 0.15,
                points: pts.len(),
            });
        }
    }
    Ok(RateResults {
        run: RunInfo {
            base_seed,
            reps,
            quick,
        },
        eval_size,
        rows,
        slopes,
        total_seconds: start.elapsed().as_secs_f64(),
    })
}

/// `results.csv`: the varied parameters (theta, nu, d, n, epsilon, n_epsilon), `method`,
/// `metric` (`excess_risk`, `l2_error`), `mean`, `std`, `reps`.
pub fn rate_csv(r: &RateResults) -> String {
    let columns = "theta,nu,d,n,epsilon,n_epsilon,method,metric,mean,std,reps";
    metric_lines_csv(columns, &r.rows, |row| {
        let lead = format!(
            "{},{},{},{},{},{},{}",
            row.case.theta, row.case.nu, row.case.d, row.n, row.epsilon, row.n_epsilon, row.method
        );
        let metrics = vec![
            ("excess_risk", row.excess_mean, row.excess_std),
            ("l2_error", row.l2_mean, row.l2_std),
        ];
        (lead, row.reps, metrics)
    })
}

/// `summary.json`.
pub fn rate_summary(r: &RateResults, run: serde_json::Value) -> serde_json::Value {
    json!({
        "id": ID,
        "paper": format!("{WANGXU_PAPER} (project design, spec 'Experiments')"),
        "protocol": {
            "domain": "unit l2 ball; w* = (0.5, -0.3) (d = 2) or 0.5 (d = 1)",
            "cases": "theta = 2 with Student t (nu = 3) x and noise, tau = sqrt(3d); theta = 1.5 with Student t (nu = 1.8), tau = (4.626 d)^(1/1.5)",
            "l1-regression-expmech": "moment = theta, tau of the case, iota default (norm, eta = 0.05), grid net with max_candidates = 2^14",
            "comparison": "dp-iht-l1 (sparse domain s* = d, radius 1; delta = n^-1.1), ht-lasso (squared loss, unit l1 ball; delta = n^-1.1); evaluated on the absolute loss",
            "metric": "excess population risk on a common fresh sample, and ||w - w*||_2",
            "slope": "least-squares slope of log(mean excess risk) on log(n epsilon); theory -1/2 (theta = 2), -1/3 (theta = 1.5); tolerance 0.15",
        },
        "slopes": r.slopes,
        "results": r,
        "run": run,
        "heavydp_version": env!("CARGO_PKG_VERSION"),
    })
}
