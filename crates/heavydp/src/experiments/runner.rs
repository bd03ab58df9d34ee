//! The deterministic parallel runner: (setting, repetition) jobs on rayon, paired
//! methods within a repetition, and the aggregation into [`Results`].

use super::real::{self, RealData};
use super::{
    DomainKind, EvalSample, ExperimentError, Failure, Plan, ResolvedHyperparameters, ResultRow,
    Results, SettingSeeds, Source, Summary, Timings, EVAL_BLOCK, EVAL_SAMPLE,
};
use crate::algorithms::{self, key, FitReport, NoObserver, ParamMap, Problem};
use crate::constraints::{ConstraintSet, L1Ball, SparseBall};
use crate::data::scenarios::{generate_records, simulate};
use crate::data::Dataset;
use crate::linalg::norm2;
use crate::loss::mean_loss;
use crate::loss::LossKind;
use crate::noise::{derive_seed, rng_from_seed};
use crate::privacy::{Budget, PrivacyModel};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// `derive_seed(base_seed, [id, setting_key, rep])`: the seed of one repetition.
pub fn rep_seed(base_seed: u64, id: &str, setting_key: &str, rep: usize) -> u64 {
    derive_seed(base_seed, &[id, setting_key, &rep.to_string()])
}

/// One method's outcome in one repetition: its value and the hyperparameters it resolved,
/// or the error message of a fit that failed.
pub(crate) type RepOutcome<T> = Result<(T, BTreeMap<String, serde_json::Value>), String>;

/// What one method gave over the repetitions of a setting.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MethodReps<T> {
    /// The values of the repetitions that succeeded, in repetition order.
    pub values: Vec<T>,
    /// The first error message, kept only when no repetition succeeded.
    pub failure: Option<String>,
    /// The hyperparameters resolved in repetition 0 (empty when it failed). They depend
    /// only on public quantities, so they are the same in every repetition.
    pub hyperparameters: BTreeMap<String, serde_json::Value>,
}

/// The repetition loop of the hand-written experiments (`wangxu-rate`, `zhao-mean-tails`):
/// repetition r of setting `key` of experiment `id` is `rep(rep_seed(base_seed, id, key,
/// r))`, which returns every method's outcome in method order. The repetitions run in
/// parallel on the current rayon pool and are regrouped by method in repetition order,
/// so the result does not depend on the thread count.
pub(crate) fn per_method_reps<T: Send>(
    (base_seed, id, key): (u64, &str, &str),
    reps: usize,
    methods: usize,
    rep: impl Fn(u64) -> Vec<RepOutcome<T>> + Sync + Send,
) -> Vec<MethodReps<T>> {
    let outs: Vec<Vec<RepOutcome<T>>> = (0..reps)
        .into_par_iter()
        .map(|r| rep(rep_seed(base_seed, id, key, r)))
        .collect();
    let mut per: Vec<MethodReps<T>> = (0..methods)
        .map(|_| MethodReps {
            values: Vec::new(),
            failure: None,
            hyperparameters: BTreeMap::new(),
        })
        .collect();
    for (r, out) in outs.into_iter().enumerate() {
        for (m, o) in per.iter_mut().zip(out) {
            match o {
                Ok((v, h)) => {
                    if r == 0 {
                        m.hyperparameters = h;
                    }
                    m.values.push(v);
                }
                Err(e) => {
                    m.failure.get_or_insert(e);
                }
            }
        }
    }
    for m in &mut per {
        if !m.values.is_empty() {
            m.failure = None;
        }
    }
    per
}

/// E\[xxᵀ\] = var·I + mean²·11ᵀ of the linear scenarios' i.i.d. features (spec §X.1).
fn second_moment(scenario: &str) -> Option<(f64, f64)> {
    match scenario {
        // Lognormal(0, σ² = 0.6): mean e^{0.3}, variance (e^{0.6} − 1) e^{0.6}
        "hu-linear-lognormal" => Some(((0.6f64.exp() - 1.0) * 0.6f64.exp(), 0.3f64.exp())),
        // Student t, 10 d.o.f.: variance 10/8
        "hu-linear-student" => Some((1.25, 0.0)),
        // N(0, variance 5)
        "hu-sparse-lognormal-noise"
        | "hu-sparse-loglogistic-noise"
        | "hu-sparse-loggamma-noise" => Some((5.0, 0.0)),
        _ => None,
    }
}

/// (w − w\*)ᵀ (var·I + μ²11ᵀ) (w − w\*): the population excess squared-loss risk of a
/// linear model with noise independent of x (and E ι = 0 or E x = 0).
fn population_excess(w: &[f64], w_star: &[f64], var: f64, mean: f64) -> f64 {
    let mut ss = 0.0;
    let mut s = 0.0;
    for (a, b) in w.iter().zip(w_star) {
        let t = a - b;
        ss += t * t;
        s += t;
    }
    var * ss + mean * mean * s * s
}

/// A fit's resolved hyperparameters and notes.
type Resolved = (BTreeMap<String, serde_json::Value>, Vec<String>);

/// What one (setting, repetition) job produces.
struct JobOut {
    /// Per method: the metric values (None when the fit failed).
    values: Vec<Option<Vec<f64>>>,
    failures: Vec<(usize, String)>,
    /// Per method: resolved hyperparameters and notes (the summary keeps the first
    /// successful repetition's).
    hyper: Vec<Option<Resolved>>,
    seconds: f64,
    method_seconds: Vec<f64>,
}

/// Checks the plan before any work: unique labels, buildable methods, `t_from` pointing
/// to an earlier method, a known evaluation for the source.
fn validate(plan: &Plan, reps: usize) -> Result<(), ExperimentError> {
    let invalid = |reason: String| ExperimentError::Invalid {
        id: plan.id.clone(),
        reason,
    };
    if reps == 0 {
        return Err(invalid("--reps must be at least 1".into()));
    }
    if plan.settings.is_empty() || plan.methods.is_empty() {
        return Err(invalid("the plan has no settings or no methods".into()));
    }
    for (i, m) in plan.methods.iter().enumerate() {
        if plan.methods[..i].iter().any(|o| o.label == m.label) {
            return Err(invalid(format!("method label '{}' is used twice", m.label)));
        }
        let mut p = m.params.clone();
        if let Some(src) = &m.t_from {
            if !plan.methods[..i].iter().any(|o| &o.label == src) {
                return Err(invalid(format!(
                    "method '{}' takes T from '{src}', which is not an earlier method",
                    m.label
                )));
            }
            p.insert(key::T.into(), "2".into());
        }
        for key in &m.ln_d_params {
            p.insert(key.to_string(), "1".into());
        }
        algorithms::build(&m.algorithm, &p)?;
        if matches!(m.domain, DomainKind::Sparse { .. })
            && plan.settings.iter().any(|s| s.sparsity.is_none())
        {
            return Err(invalid(format!(
                "method '{}' uses the sparse domain but a setting has no s*",
                m.label
            )));
        }
    }
    if let Source::Synthetic { scenario } = plan.source {
        let fresh = plan.options.eval == EvalSample::Fresh && plan.metrics.contains(&"excess_risk");
        let closed = matches!(plan.loss, LossKind::Squared) && second_moment(scenario).is_some();
        let stream = matches!(plan.loss, LossKind::Logistic);
        if fresh && !closed && !stream {
            return Err(invalid(format!(
                "no evaluation rule for loss '{}' on scenario {scenario} (use eval=train)",
                plan.loss.name()
            )));
        }
        for s in &plan.settings {
            if s.n.is_none() || s.d.is_none() {
                return Err(invalid(format!("setting {} has no n or d", s.key())));
            }
        }
    }
    Ok(())
}

/// Runs every (setting, repetition) of `plan` — in parallel on the current rayon pool —
/// and aggregates the metrics. `progress(done, total)` is called after each repetition
/// (from worker threads). Results are identical for any number of threads.
///
/// A fit that fails (e.g. too few records for an algorithm's data splitting) is
/// recorded in [`Results::failures`] and left out of that method's mean; errors of the
/// plan itself, the data generator or the real dataset abort the run.
pub fn run(
    plan: &Plan,
    reps: usize,
    base_seed: u64,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Results, ExperimentError> {
    validate(plan, reps)?;
    let start = Instant::now();
    let real_data = match &plan.source {
        Source::Real { file, .. } => {
            let dir = real::data_dir(plan.options.data_dir.as_deref())?;
            Some(real::load(
                file,
                &dir,
                plan.loss,
                plan.reference_t.unwrap_or(2000),
                derive_seed(base_seed, &[&plan.id, "reference"]),
            )?)
        }
        Source::Synthetic { .. } => None,
    };
    let reference_seconds = start.elapsed().as_secs_f64();

    let keys: Vec<String> = plan.settings.iter().map(|s| s.key()).collect();
    let seeds: Vec<SettingSeeds> = keys
        .iter()
        .map(|k| SettingSeeds {
            setting: k.clone(),
            rep_seeds: (0..reps)
                .map(|r| rep_seed(base_seed, &plan.id, k, r))
                .collect(),
        })
        .collect();
    let jobs: Vec<(usize, usize)> = (0..plan.settings.len())
        .flat_map(|s| (0..reps).map(move |r| (s, r)))
        .collect();
    let total = jobs.len();
    let done = AtomicUsize::new(0);
    progress(0, total);
    let outs: Vec<JobOut> = jobs
        .par_iter()
        .map(|&(s, r)| {
            let out = job(plan, real_data.as_ref(), s, seeds[s].rep_seeds[r]);
            let k = done.fetch_add(1, Ordering::SeqCst) + 1;
            progress(k, total);
            out
        })
        .collect::<Result<Vec<_>, _>>()?;

    // Aggregate in (setting, method, metric) order; repetitions in order.
    let mut rows = Vec::new();
    let mut resolved = Vec::new();
    let mut failures = Vec::new();
    let mut per_setting_seconds = Vec::new();
    let mut per_method_seconds: BTreeMap<String, f64> = BTreeMap::new();
    for (s, setting) in plan.settings.iter().enumerate() {
        let outs_s = &outs[s * reps..(s + 1) * reps];
        per_setting_seconds.push((keys[s].clone(), outs_s.iter().map(|o| o.seconds).sum()));
        for (mi, m) in plan.methods.iter().enumerate() {
            *per_method_seconds.entry(m.label.clone()).or_default() +=
                outs_s.iter().map(|o| o.method_seconds[mi]).sum::<f64>();
            if let Some((h, notes)) = outs_s.iter().find_map(|o| o.hyper[mi].clone()) {
                resolved.push(ResolvedHyperparameters {
                    setting: keys[s].clone(),
                    method: m.label.clone(),
                    hyperparameters: h,
                    notes,
                });
            }
            for (metric_i, metric) in plan.metrics.iter().enumerate() {
                let values: Vec<f64> = outs_s
                    .iter()
                    .filter_map(|o| o.values[mi].as_ref().map(|v| v[metric_i]))
                    .collect();
                rows.push(ResultRow {
                    setting: setting.values.clone(),
                    setting_key: keys[s].clone(),
                    method: m.label.clone(),
                    metric: metric.to_string(),
                    summary: Summary::of(values),
                });
            }
        }
        for (r, o) in outs_s.iter().enumerate() {
            for (mi, e) in &o.failures {
                failures.push(Failure {
                    setting: keys[s].clone(),
                    method: plan.methods[*mi].label.clone(),
                    rep: r,
                    error: e.clone(),
                });
            }
        }
    }
    Ok(Results {
        base_seed,
        reps,
        rows,
        seeds,
        resolved,
        failures,
        timings: Timings {
            total_seconds: start.elapsed().as_secs_f64(),
            reference_seconds,
            per_setting_seconds,
            per_method_seconds,
        },
        real_data: real_data.map(|r| r.info),
    })
}

/// Reads `T` from a fit report's hyperparameters.
fn report_t(r: &FitReport) -> Option<usize> {
    let v = r.hyperparameters.get(key::T)?;
    v.as_u64()
        .map(|t| t as usize)
        .or_else(|| v.as_f64().filter(|t| *t >= 1.0).map(|t| t as usize))
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
}

/// One repetition of one setting: data, every method's fit, the metrics.
fn job(
    plan: &Plan,
    real: Option<&RealData>,
    s: usize,
    rep_seed: u64,
) -> Result<JobOut, ExperimentError> {
    let t_job = Instant::now();
    let st = &plan.settings[s];
    // Training data (shared by every method: a paired comparison) and the truth.
    let (train, w_star): (Dataset, Vec<f64>) = match (&plan.source, real) {
        (Source::Real { .. }, Some(rd)) => {
            let m = real::subsample_size(rd.data.n(), st.fraction.unwrap_or(1.0));
            let mut rng = rng_from_seed(derive_seed(rep_seed, &["subsample"]));
            (real::subsample(&rd.data, m, &mut rng), rd.w_star.clone())
        }
        (Source::Synthetic { scenario }, _) => {
            let mut rng = rng_from_seed(derive_seed(rep_seed, &["data"]));
            let (ds, truth) = simulate(
                scenario,
                st.n.unwrap_or(0),
                st.d.unwrap_or(0),
                st.sparsity,
                &st.scenario_params,
                &mut rng,
            )?;
            (ds, truth.w_star)
        }
        (Source::Real { .. }, None) => unreachable!("real data are loaded before the jobs"),
    };
    let (n, d) = (train.n(), train.d());
    let delta = (n as f64).powf(-1.1);
    let k = plan.methods.len();
    let mut weights: Vec<Option<Vec<f64>>> = vec![None; k];
    let mut reports: Vec<Option<FitReport>> = vec![None; k];
    let mut failures = Vec::new();
    let mut hyper = vec![None; k];
    let mut method_seconds = vec![0.0; k];
    for (mi, m) in plan.methods.iter().enumerate() {
        let t0 = Instant::now();
        let res = (|| -> Result<FitReport, String> {
            let mut params: ParamMap = m.params.clone();
            if let Some(src) = &m.t_from {
                let si = plan
                    .methods
                    .iter()
                    .position(|o| &o.label == src)
                    .expect("validated");
                let rep = reports[si]
                    .as_ref()
                    .ok_or_else(|| format!("'{src}' failed, so its T is unknown"))?;
                let t =
                    report_t(rep).ok_or_else(|| format!("'{src}' reported no hyperparameter T"))?;
                params.insert(key::T.into(), t.to_string());
            }
            for key in &m.ln_d_params {
                params.insert(key.to_string(), format!("{}", (d as f64).ln()));
            }
            let alg = algorithms::build(&m.algorithm, &params).map_err(|e| e.to_string())?;
            let budget = match alg.privacy_model() {
                PrivacyModel::None => Ok(Budget::non_private()),
                PrivacyModel::Pure => Budget::new(st.epsilon, 0.0),
                PrivacyModel::Approx | PrivacyModel::Zcdp => Budget::new(st.epsilon, delta),
            }
            .map_err(|e| e.to_string())?;
            let domain: Box<dyn ConstraintSet> = match m.domain {
                DomainKind::L1Ball { radius } => Box::new(L1Ball { d, radius }),
                DomainKind::Sparse { radius } => Box::new(SparseBall {
                    d,
                    s: st.sparsity.unwrap_or(d),
                    radius,
                }),
            };
            let problem = Problem {
                data: &train,
                loss: m.loss,
                domain: domain.as_ref(),
            };
            let mut rng = rng_from_seed(derive_seed(rep_seed, &["method", &m.label]));
            alg.fit(&problem, budget, &mut rng, &mut NoObserver)
                .map_err(|e| e.to_string())
        })();
        method_seconds[mi] = t0.elapsed().as_secs_f64();
        match res {
            Ok(rep) => {
                hyper[mi] = Some((rep.hyperparameters.clone(), rep.notes.clone()));
                weights[mi] = Some(rep.weights.clone());
                reports[mi] = Some(rep);
            }
            Err(e) => failures.push((mi, e)),
        }
    }
    drop(reports);

    // Metrics.
    let penalty = |w: &[f64]| 0.5 * plan.eval_l2_penalty * norm2(w).powi(2);
    let needs_risk = plan.metrics.contains(&"excess_risk");
    let excess: Vec<Option<f64>> = match (&plan.source, real, plan.options.eval) {
        // ℓ2-error-only panels (Tian et al.): no risk evaluation.
        _ if !needs_risk => weights
            .iter()
            .map(|w| w.as_ref().map(|_| f64::NAN))
            .collect(),
        (Source::Real { .. }, Some(rd), _) => {
            let full = &rd.data;
            weights
                .iter()
                .map(|w| {
                    w.as_ref().map(|w| {
                        algorithms::empirical_risk(&plan.loss, full, w) - rd.info.reference_risk
                    })
                })
                .collect()
        }
        (_, _, EvalSample::Train) => {
            let r_star = algorithms::empirical_risk(&plan.loss, &train, &w_star) + penalty(&w_star);
            weights
                .iter()
                .map(|w| {
                    w.as_ref().map(|w| {
                        algorithms::empirical_risk(&plan.loss, &train, w) + penalty(w) - r_star
                    })
                })
                .collect()
        }
        (Source::Synthetic { scenario }, _, EvalSample::Fresh) => {
            match (plan.loss, second_moment(scenario)) {
                (LossKind::Squared, Some((var, mean))) => weights
                    .iter()
                    .map(|w| w.as_ref().map(|w| population_excess(w, &w_star, var, mean)))
                    .collect(),
                _ => {
                    drop(train);
                    let risks = fresh_sample_risks(
                        scenario,
                        &plan.loss,
                        &w_star,
                        &weights,
                        derive_seed(rep_seed, &["eval"]),
                    )?;
                    let r_star = risks[k] + penalty(&w_star);
                    (0..k)
                        .map(|mi| {
                            weights[mi]
                                .as_ref()
                                .map(|w| risks[mi] + penalty(w) - r_star)
                        })
                        .collect()
                }
            }
        }
        (Source::Real { .. }, None, _) => unreachable!(),
    };
    let values = (0..k)
        .map(|mi| {
            let w = weights[mi].as_ref()?;
            let e = excess[mi]?;
            Some(
                plan.metrics
                    .iter()
                    .map(|m| match *m {
                        "l2_error" => {
                            let diff: Vec<f64> =
                                w.iter().zip(&w_star).map(|(a, b)| a - b).collect();
                            norm2(&diff)
                        }
                        _ => e,
                    })
                    .collect(),
            )
        })
        .collect();
    Ok(JobOut {
        values,
        failures,
        hyper,
        seconds: t_job.elapsed().as_secs_f64(),
        method_seconds,
    })
}

/// Mean loss of every fitted weight vector (NaN for failed fits) and, last, of w\*, on a
/// fresh sample of [`EVAL_SAMPLE`] records of `scenario` with truth `w_star`, generated
/// at most [`EVAL_BLOCK`] rows (and about 32 MB) at a time from one generator seeded
/// with `seed` (the block size depends only on d, so the sample is reproducible).
fn fresh_sample_risks(
    scenario: &str,
    loss: &LossKind,
    w_star: &[f64],
    weights: &[Option<Vec<f64>>],
    seed: u64,
) -> Result<Vec<f64>, ExperimentError> {
    let d = w_star.len();
    let mut rng = rng_from_seed(seed);
    let mut sums = vec![0.0; weights.len() + 1];
    let mut left = EVAL_SAMPLE;
    let params = BTreeMap::new();
    // at most EVAL_BLOCK rows and about 32 MB of features per block
    let block = EVAL_BLOCK.min((4_000_000 / d.max(1)).max(500));
    while left > 0 {
        let b = left.min(block);
        let block = generate_records(scenario, b, w_star, &params, &mut rng)?;
        for (mi, w) in weights.iter().enumerate() {
            if let Some(w) = w {
                sums[mi] += mean_loss(loss, block.x(), block.y(), d, w) * b as f64;
            }
        }
        sums[weights.len()] += mean_loss(loss, block.x(), block.y(), d, w_star) * b as f64;
        left -= b;
    }
    Ok(sums
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if i < weights.len() && weights[i].is_none() {
                f64::NAN
            } else {
                s / EVAL_SAMPLE as f64
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn population_excess_matches_a_large_sample() {
        // lognormal features: compare the closed form with a 2e5-record sample.
        let d = 5;
        let w_star = vec![0.4, -0.3, 0.1, 0.1, -0.1];
        let w = vec![0.0, 0.2, 0.1, -0.3, 0.1];
        let (var, mean) = second_moment("hu-linear-lognormal").unwrap();
        let exact = population_excess(&w, &w_star, var, mean);
        let data = generate_records(
            "hu-linear-lognormal",
            200_000,
            &w_star,
            &BTreeMap::new(),
            &mut rng_from_seed(5),
        )
        .unwrap();
        let l = LossKind::Squared;
        let emp = mean_loss(&l, data.x(), data.y(), d, &w)
            - mean_loss(&l, data.x(), data.y(), d, &w_star);
        assert!((emp - exact).abs() < 0.03 * exact, "{emp} vs {exact}");
    }

    #[test]
    fn summary_by_hand() {
        let two = Summary::of(vec![1.0, 3.0]);
        assert_eq!((two.mean, two.std, two.reps), (2.0, 2f64.sqrt(), 2));
        assert_eq!(two.values, [1.0, 3.0]);
        assert_eq!(two.std_error(), 1.0);
        let one = Summary::of(vec![4.0]);
        assert_eq!((one.mean, one.std, one.reps), (4.0, 0.0, 1));
        assert_eq!(one.std_error(), 0.0);
        let none = Summary::of(Vec::new());
        assert!(none.mean.is_nan() && none.std.is_nan() && none.std_error().is_nan());
        assert_eq!(none.reps, 0);
    }

    /// Both kinds of row serialise their summary inline, after their own fields, as the
    /// fields they held before `Summary` (the experiment and benchmark JSON keep their shape).
    #[test]
    fn rows_serialise_the_summary_inline() {
        let row = ResultRow {
            setting: vec![("n", 100.0)],
            setting_key: "n=100".into(),
            method: "fw".into(),
            metric: "excess_risk".into(),
            summary: Summary::of(vec![1.0, 3.0]),
        };
        assert_eq!(
            serde_json::to_string(&row).unwrap(),
            r#"{"setting":[["n",100.0]],"setting_key":"n=100","method":"fw","metric":"excess_risk","mean":2.0,"std":1.4142135623730951,"reps":2,"values":[1.0,3.0]}"#
        );
        let bench = crate::experiments::benchmark::BenchRow {
            dataset: "cells_ps".into(),
            epsilon: 1.0,
            method: "auto".into(),
            metric: "auc".into(),
            summary: Summary::of(Vec::new()),
        };
        assert_eq!(
            serde_json::to_string(&bench).unwrap(),
            r#"{"dataset":"cells_ps","epsilon":1.0,"method":"auto","metric":"auc","mean":null,"std":null,"reps":0,"values":[]}"#
        );
    }
}
