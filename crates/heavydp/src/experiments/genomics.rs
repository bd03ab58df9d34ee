//! `tian-table-genomics`: the protocol of Tian et al.'s real-data tables (§6.3, NCI-60 /
//! METABRIC, which cannot be shipped) on the shipped bladder-cancer microarray
//! `bladderbatch_krt19.csv` (n = 57, d = 22 282, response the KRT19 probe). Spec
//! `tian-dp-iht-heavy-tailed-response.md` §5.4, T13, T14, T16.
//!
//! # Protocol (fixed; every step recorded in `summary.json`)
//!
//! 1. Preprocessing (**not private**, as in the paper): y centred at its mean, every
//!    feature standardised to mean 0 / sample sd 1 with full-data statistics (constant
//!    columns set to 0).
//! 2. Methods, as in the paper's tables: `adahuber` (non-private; CV fit, top s* = 5
//!    coefficients, T16), `dp-slr` (bound R = K = ln d, T15), `dp-iht-huber` (τ = 1),
//!    `dp-iht-l1`; s* = 5, ε = 0.5, δ = n^{−1.1}, L = C = 10, K = ln d, T = ⌈ln n⌉ = 5
//!    (the figure panels' T = 1000 needs n ≥ 1000); profile `paper` (η = 0.01, the
//!    default) or `theory` (η = 0.5). Plus the reference row "no features" (predict the
//!    mean: β = 0).
//! 3. Metrics (T14): in-sample MAE (1/n)Σ|y_i − x_iᵀβ| of the fit on all rows, and
//!    leave-one-out MAE (each row predicted by a fit on the other n − 1 rows; the private
//!    methods refit with fresh noise; adaHuber refits at the λ its full-data CV chose —
//!    a nested CV would cost n times more); model size; selected features (for the
//!    private methods: the features selected most often over the repetitions, with
//!    their counts). adaHuber runs with `stop=kkt` (with d ≫ n the package's step-size
//!    stop ends after 2–3 LAMM steps with thousands of non-zeros) and one repetition
//!    (it is not private; its only randomness is the CV folds).
//! 4. `--quick` skips adaHuber's leave-one-out pass (n KKT-path refits take minutes;
//!    reported as NaN).
//! 5. Every private fit runs `reps` times (seeds derived from (seed, method, rep)); the
//!    table reports means and standard deviations over repetitions.

use super::output::metric_lines_csv;
use super::{mean_sd, real, ExperimentError, ExperimentInfo, PlanOptions, Preset, TIAN_PAPER};
use crate::algorithms::{self, NoObserver, ParamMap, Problem};
use crate::constraints::SparseBall;
use crate::data::{read_csv, Dataset};
use crate::loss::LossKind;
use crate::noise::{derive_seed, rng_from_seed};
use crate::privacy::{Budget, PrivacyModel};
use rayon::prelude::*;
use serde::Serialize;
use serde_json::json;
use std::time::Instant;

/// The experiment ID.
pub const ID: &str = "tian-table-genomics";
/// The shipped dataset.
pub const FILE: &str = "bladderbatch_krt19.csv";
const S_STAR: usize = 5;
const EPSILON: f64 = 0.5;
const RADIUS: f64 = 10.0;

/// The `--list` row.
pub fn info() -> ExperimentInfo {
    ExperimentInfo {
        data_note: Some(format!("real data: {FILE} (bladder cancer microarray, n = 57, d = 22 282, y = KRT19 probe 201650_at) replaces the paper's NCI-60 / METABRIC; y centred and features standardised with full-data statistics (non-private preprocessing)")),
        ..ExperimentInfo::new(
            ID,
            format!("{TIAN_PAPER}, Tables 1-2 (protocol)"),
            "Tables 1-2 protocol: MAE (in-sample and leave-one-out), model size and selected genes of adaHuber, DP-SLR, DP-IHT-H, DP-IHT-L (s* = 5, epsilon = 0.5)",
        )
    }
}

/// One method's row of the table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableRow {
    pub method: String,
    pub algorithm: String,
    pub privacy: String,
    pub mae_mean: f64,
    pub mae_std: f64,
    pub loocv_mae_mean: f64,
    pub loocv_mae_std: f64,
    /// Mean number of non-zero coefficients.
    pub size: f64,
    /// (feature, number of repetitions that selected it), most frequent first.
    pub selected: Vec<(String, usize)>,
    pub reps: usize,
    pub seconds: f64,
}

/// The whole result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableResults {
    pub n: usize,
    pub d: usize,
    pub reps: usize,
    pub base_seed: u64,
    pub profile: String,
    pub delta: f64,
    pub rows: Vec<TableRow>,
    pub total_seconds: f64,
}

/// One repetition of one method: in-sample MAE, leave-one-out MAE, selected columns.
type RepOutcome = (f64, f64, Vec<usize>);

struct MethodDef {
    label: &'static str,
    algorithm: &'static str,
    loss: LossKind,
    params: Vec<(&'static str, String)>,
}

fn methods(profile: &str, d: usize) -> Vec<MethodDef> {
    let p = |extra: Vec<(&'static str, String)>| {
        let mut v = vec![("preset", profile.to_string())];
        v.extend(extra);
        v
    };
    vec![
        MethodDef {
            label: "adaHuber (non-private)",
            algorithm: "adahuber",
            loss: LossKind::Huber { tau: 1.0 },
            // d ≫ n: the package's step-size stop ends LAMM after 2-3 steps with
            // thousands of non-zeros; the KKT stop reaches the lasso solution.
            params: vec![("stop", "kkt".to_string())],
        },
        MethodDef {
            label: "DP-SLR",
            algorithm: "dp-slr",
            loss: LossKind::Squared,
            params: p(vec![("bound", format!("{}", (d as f64).ln()))]),
        },
        MethodDef {
            label: "DP-IHT-H",
            algorithm: "dp-iht-huber",
            loss: LossKind::Huber { tau: 1.0 },
            params: p(vec![]),
        },
        MethodDef {
            label: "DP-IHT-L",
            algorithm: "dp-iht-l1",
            loss: LossKind::Absolute,
            params: p(vec![]),
        },
    ]
}

/// Centres y and standardises every column with full-data statistics (constant
/// columns become 0). Not private: the paper's preprocessing.
pub fn preprocess(raw: &Dataset) -> Dataset {
    let (n, d) = (raw.n(), raw.d());
    let x = raw.x();
    let mut mean = vec![0.0; d];
    for row in x.chunks_exact(d) {
        for (m, v) in mean.iter_mut().zip(row) {
            *m += v;
        }
    }
    mean.iter_mut().for_each(|m| *m /= n as f64);
    let mut var = vec![0.0; d];
    for row in x.chunks_exact(d) {
        for ((s, v), m) in var.iter_mut().zip(row).zip(&mean) {
            *s += (v - m) * (v - m);
        }
    }
    let sd: Vec<f64> = var
        .iter()
        .map(|s| (s / (n.max(2) - 1) as f64).sqrt())
        .collect();
    let z: Vec<f64> = x
        .chunks_exact(d)
        .flat_map(|row| {
            row.iter()
                .zip(&mean)
                .zip(&sd)
                .map(|((v, m), s)| if *s > 0.0 { (v - m) / s } else { 0.0 })
                .collect::<Vec<_>>()
        })
        .collect();
    let ybar = raw.y().iter().sum::<f64>() / n as f64;
    let y: Vec<f64> = raw.y().iter().map(|v| v - ybar).collect();
    Dataset::new(
        z,
        y,
        d,
        raw.feature_names().to_vec(),
        raw.target_name().to_string(),
    )
    .expect("standardised data keep the shape")
}

fn mae(data: &Dataset, rows: &[usize], w: &[f64]) -> f64 {
    rows.iter()
        .map(|&i| (data.y()[i] - crate::linalg::dot(data.row(i), w)).abs())
        .sum::<f64>()
        / rows.len() as f64
}

fn fit(
    def: &MethodDef,
    params: &ParamMap,
    data: &Dataset,
    seed: u64,
) -> Result<algorithms::FitReport, ExperimentError> {
    let alg = algorithms::build(def.algorithm, params)?;
    let budget = match alg.privacy_model() {
        PrivacyModel::None => Budget::non_private(),
        _ => Budget::new(EPSILON, (data.n() as f64).powf(-1.1))
            .map_err(crate::algorithms::FitError::from)?,
    };
    let domain = SparseBall {
        d: data.d(),
        s: S_STAR,
        radius: RADIUS,
    };
    let problem = Problem {
        data,
        loss: def.loss,
        domain: &domain,
    };
    Ok(alg.fit(&problem, budget, &mut rng_from_seed(seed), &mut NoObserver)?)
}

/// Runs the table: `reps` repetitions of every method (in parallel on the current rayon
/// pool; results do not depend on the thread count).
pub fn run_table(
    opts: &PlanOptions,
    reps: usize,
    base_seed: u64,
) -> Result<TableResults, ExperimentError> {
    let start = Instant::now();
    let profile = match &opts.preset {
        Preset::Default => "paper".to_string(),
        Preset::Named(x) if x == "paper" || x == "theory" => x.clone(),
        other => {
            return Err(ExperimentError::BadOption {
                key: "preset".into(),
                reason: format!(
                    "{ID} has the profiles paper (default) and theory, got '{}'",
                    other.as_str()
                ),
            })
        }
    };
    if reps == 0 {
        return Err(ExperimentError::Invalid {
            id: ID.into(),
            reason: "--reps must be at least 1".into(),
        });
    }
    let dir = real::data_dir(opts.data_dir.as_deref())?;
    let path = dir.join(FILE);
    let raw = read_csv(&path.to_string_lossy(), "y")?;
    let data = preprocess(&raw);
    let (n, d) = (data.n(), data.d());
    let all: Vec<usize> = (0..n).collect();
    let defs = methods(&profile, d);
    let mut rows = vec![];
    // Reference: no features (β = 0 predicts the mean).
    let zero = vec![0.0; d];
    let m0 = mae(&data, &all, &zero);
    rows.push(TableRow {
        method: "no features (predict the mean)".into(),
        algorithm: "-".into(),
        privacy: "-".into(),
        mae_mean: m0,
        mae_std: 0.0,
        // leave-one-out mean of the other n − 1 centred responses: ȳ_{−i} = −y_i/(n − 1)
        loocv_mae_mean: all
            .iter()
            .map(|&i| (data.y()[i] * n as f64 / (n - 1) as f64).abs())
            .sum::<f64>()
            / n as f64,
        loocv_mae_std: 0.0,
        size: 0.0,
        selected: vec![],
        reps: 1,
        seconds: 0.0,
    });
    for def in &defs {
        let t0 = Instant::now();
        let params: ParamMap = def
            .params
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        // adaHuber is not private: its only randomness is the CV fold assignment, so one
        // repetition (with its leave-one-out pass) stands for it.
        let method_reps = if def.algorithm == "adahuber" { 1 } else { reps };
        let per_rep: Vec<Result<RepOutcome, ExperimentError>> = (0..method_reps)
            .into_par_iter()
            .map(|r| {
                let seed = derive_seed(base_seed, &[ID, def.label, &r.to_string()]);
                let rep = fit(def, &params, &data, seed)?;
                let in_sample = mae(&data, &all, &rep.weights);
                let support: Vec<usize> = (0..d).filter(|j| rep.weights[*j] != 0.0).collect();
                // Leave-one-out: adaHuber refits at its full-data λ (no nested CV).
                let mut loo_params = params.clone();
                if def.algorithm == "adahuber" {
                    if let Some(l) = rep.hyperparameters.get("lambda").and_then(|v| v.as_f64()) {
                        loo_params.insert("lambda".into(), format!("{l}"));
                    }
                }
                // --quick: adaHuber's leave-one-out pass (n CV-free KKT path fits, minutes)
                // is skipped and reported as NaN.
                if opts.quick && def.algorithm == "adahuber" {
                    return Ok((in_sample, f64::NAN, support));
                }
                let mut loo = 0.0;
                for i in 0..n {
                    let keep: Vec<usize> = (0..n).filter(|k| *k != i).collect();
                    let train = data.select_rows(&keep);
                    let w = fit(
                        def,
                        &loo_params,
                        &train,
                        derive_seed(seed, &["loo", &i.to_string()]),
                    )?
                    .weights;
                    loo += (data.y()[i] - crate::linalg::dot(data.row(i), &w)).abs();
                }
                Ok((in_sample, loo / n as f64, support))
            })
            .collect();
        let per_rep = per_rep.into_iter().collect::<Result<Vec<_>, _>>()?;
        let (mae_mean, mae_std) = mean_sd(&per_rep.iter().map(|r| r.0).collect::<Vec<_>>());
        let (loocv_mae_mean, loocv_mae_std) =
            mean_sd(&per_rep.iter().map(|r| r.1).collect::<Vec<_>>());
        let size = per_rep.iter().map(|r| r.2.len() as f64).sum::<f64>() / method_reps as f64;
        let mut counts = vec![0usize; d];
        for r in &per_rep {
            for &j in &r.2 {
                counts[j] += 1;
            }
        }
        let mut order: Vec<usize> = (0..d).filter(|j| counts[*j] > 0).collect();
        order.sort_by(|a, b| counts[*b].cmp(&counts[*a]).then(a.cmp(b)));
        let selected = order
            .iter()
            .take(S_STAR)
            .map(|&j| (data.feature_names()[j].clone(), counts[j]))
            .collect();
        rows.push(TableRow {
            method: def.label.into(),
            algorithm: def.algorithm.into(),
            privacy: if def.algorithm == "adahuber" {
                "none".into()
            } else {
                format!("({EPSILON}, n^-1.1)-DP")
            },
            mae_mean,
            mae_std,
            loocv_mae_mean,
            loocv_mae_std,
            size,
            selected,
            reps: method_reps,
            seconds: t0.elapsed().as_secs_f64(),
        });
    }
    Ok(TableResults {
        n,
        d,
        reps,
        base_seed,
        profile,
        delta: (n as f64).powf(-1.1),
        rows,
        total_seconds: start.elapsed().as_secs_f64(),
    })
}

/// `results.csv`: one row per (method, metric) with mean, std and reps.
pub fn table_csv(r: &TableResults) -> String {
    metric_lines_csv("method,metric,mean,std,reps", &r.rows, |row| {
        let metrics = vec![
            ("mae", row.mae_mean, row.mae_std),
            ("loocv_mae", row.loocv_mae_mean, row.loocv_mae_std),
            ("size", row.size, 0.0),
        ];
        (format!("\"{}\"", row.method), row.reps, metrics)
    })
}

/// `results.md`: the paper-style table.
pub fn table_markdown(r: &TableResults) -> String {
    let mut s = format!(
        "# {ID}\n\nProtocol of {TIAN_PAPER}, Tables 1-2, on `{FILE}` (n = {}, d = {}); s* = 5, epsilon = {EPSILON}, delta = n^-1.1 = {:.3e}; profile `{}`; {} repetitions (mean ± sd). y centred and features standardised with full-data statistics (non-private preprocessing).\n\n",
        r.n, r.d, r.delta, r.profile, r.reps
    );
    s.push_str("| Method | MAE (in-sample) | MAE (leave-one-out) | Size | Selected features (times selected / repetitions) |\n|---|---|---|---|---|\n");
    for row in &r.rows {
        let sel = if row.selected.is_empty() {
            "–".to_string()
        } else {
            row.selected
                .iter()
                .map(|(f, c)| format!("{f} ({c}/{})", row.reps))
                .collect::<Vec<_>>()
                .join(", ")
        };
        s.push_str(&format!(
            "| {} | {:.3} ± {:.3} | {:.3} ± {:.3} | {:.1} | {} |\n",
            row.method,
            row.mae_mean,
            row.mae_std,
            row.loocv_mae_mean,
            row.loocv_mae_std,
            row.size,
            sel
        ));
    }
    s.push_str("\nThe paper's reference values (NCI-60, Table 1): adaHuber 2.07, DP-SLR 2.72, DP-IHT-H 2.40, DP-IHT-L 2.34 (MAE, size 5). They are on other data and are not expected to match.\n");
    s
}

/// `summary.json`.
pub fn table_summary(r: &TableResults, run: serde_json::Value) -> serde_json::Value {
    json!({
        "id": ID,
        "paper": format!("{TIAN_PAPER}, Tables 1-2"),
        "dataset": FILE,
        "replaces": "NCI-60 (Table 1) and METABRIC (Table 2)",
        "protocol": {
            "preprocessing": "y centred at its mean; features standardised (mean 0, sample sd 1; constant columns 0) with full-data statistics — NOT private (paper protocol, spec T14)",
            "s_star": S_STAR, "epsilon": EPSILON, "delta": "n^-1.1", "radius": RADIUS,
            "K": "ln d", "T": "ceil(ln n) (the algorithms' default)", "dp-slr bound": "ln d (spec T15)",
            "adahuber": "5-fold CV over 50 lambdas, stop=kkt (the package's step-size stop ends after 2-3 LAMM steps when d >> n), top 5 coefficients (spec T16); one repetition (non-private; only the CV folds are random); leave-one-out refits at the full-data lambda",
            "loocv": "each row predicted by a fit on the other n - 1 rows (fresh noise for private methods)",
            "profile": r.profile,
        },
        "results": r,
        "run": run,
        "heavydp_version": env!("CARGO_PKG_VERSION"),
    })
}
