//! `inference-coverage`: coverage and width of the confidence intervals of `adassp` and
//! `clipped-gd` ([`crate::inference`]) on simulated heavy-tailed data with a known truth,
//! against the non-private OLS interval.
//!
//! # Protocol
//!
//! * Data: the `tian-sparse-student` scenario's law (`heavydp simulate`; x ~ N(0, I_d),
//!   Student-t noise with ν = 3, `zeta = 1`) for the fixed truth β_j = (1, −0.5, 0.25, 0)
//!   repeated over j (a quarter of the coefficients are 0), plus an intercept α = 1.
//! * Fit: the whole pipeline as `heavydp fit --algorithm A --epsilon ε --intervals 0.95`
//!   for A in [`ALGORITHMS`] (private scales and intercept, default share and
//!   parameters, δ = n^−1.1).
//! * Reference: OLS with an intercept on the same sample, interval est ± z_{0.975}·se
//!   with se from s²(X₁ᵀX₁)⁻¹.
//! * Grid: A × n ∈ {10³, 10⁴, 10⁵} × d ∈ {5, 20} × ε ∈ {0.5, 1, 2}, 200 repetitions a
//!   cell; `--quick`: n ∈ {10³, 10⁴}, d = 5, 40 repetitions.
//! * Per cell: the share of repetitions with bounded intervals (AdaSSP's ridge off), the
//!   share of (repetition, slope) pairs whose interval covers β_j, the
//!   smallest such share over the d slopes, the intercept's coverage, the median widths
//!   of the private and the OLS intervals and their ratio, and the same for OLS coverage.

use super::runner::per_method_reps;
use super::{ExperimentError, ExperimentInfo, PlanOptions, RunInfo};
use crate::algorithms::NoObserver;
use crate::data::scenarios::generate_records;
use crate::linalg::{cholesky_in_place, cholesky_solve};
use crate::noise::rng_from_seed;
use crate::pipeline::{self, FitOptions};
use serde::Serialize;
use serde_json::json;
use std::collections::BTreeMap;

/// The algorithms whose intervals are measured.
pub const ALGORITHMS: [&str; 2] = ["adassp", "clipped-gd"];
/// The experiment ID.
pub const ID: &str = "inference-coverage";
/// Repetitions a cell of the full and of the `--quick` run.
pub const FULL_REPS: usize = 200;
pub const QUICK_REPS: usize = 40;
/// The intervals' level.
pub const LEVEL: f64 = 0.95;
/// The intercept of the truth.
pub const ALPHA: f64 = 1.0;
const Z975: f64 = 1.959_963_984_540_054;

/// The `--list` row.
pub fn info() -> ExperimentInfo {
    ExperimentInfo::project_design(
        ID,
        "Ferrando, Wang & Sheldon, Parametric bootstrap for differentially private confidence intervals (AISTATS 2022)",
        "coverage and median width of the 95% intervals of adassp (parametric bootstrap of the released sufficient statistics) and clipped-gd (parametric bootstrap by refitting) on Student-t(3) data with a known truth, n = 1e3..1e5, d = 5, 20, epsilon = 0.5, 1, 2; against the non-private OLS interval",
    )
}

/// The truth β of dimension d.
pub fn truth(d: usize) -> Vec<f64> {
    (0..d).map(|j| [1.0, -0.5, 0.25, 0.0][j % 4]).collect()
}

/// The grid (algorithm, n, d, ε) of a run.
pub fn grid(quick: bool) -> Vec<(&'static str, usize, usize, f64)> {
    let (ns, ds): (&[usize], &[usize]) = if quick {
        (&[1_000, 10_000], &[5])
    } else {
        (&[1_000, 10_000, 100_000], &[5, 20])
    };
    let mut g = Vec::new();
    for alg in ALGORITHMS {
        for &d in ds {
            for &n in ns {
                for eps in [0.5, 1.0, 2.0] {
                    g.push((alg, n, d, eps));
                }
            }
        }
    }
    g
}

/// One repetition: per coefficient (slopes, then the intercept) whether each interval
/// covers the truth and its width.
#[derive(Debug, Clone, PartialEq)]
pub struct RepValue {
    pub private_covers: Vec<bool>,
    pub private_width: Vec<f64>,
    pub ols_covers: Vec<bool>,
    pub ols_width: Vec<f64>,
}

/// One cell's summary.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellRow {
    pub algorithm: String,
    pub n: usize,
    pub d: usize,
    pub epsilon: f64,
    pub reps: usize,
    /// The share of repetitions whose intervals are bounded (AdaSSP's ridge off).
    pub bounded: f64,
    /// Coverage over every (repetition, slope) pair.
    pub coverage_slopes: f64,
    /// The smallest per-slope coverage.
    pub coverage_min_slope: f64,
    pub coverage_intercept: f64,
    pub ols_coverage_slopes: f64,
    pub ols_coverage_intercept: f64,
    /// Median widths over (repetition, slope) pairs.
    pub median_width_slopes: f64,
    pub ols_median_width_slopes: f64,
    pub width_ratio_slopes: f64,
    pub median_width_intercept: f64,
    pub ols_median_width_intercept: f64,
    pub width_ratio_intercept: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

/// The results of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CoverageResults {
    #[serde(flatten)]
    pub run: RunInfo,
    pub level: f64,
    pub rows: Vec<CellRow>,
}

/// A sample of n records of dimension d with the truth [`truth`] and intercept [`ALPHA`].
pub fn sample(n: usize, d: usize, seed: u64) -> Result<crate::data::Dataset, String> {
    let mut rng = rng_from_seed(seed);
    let params = BTreeMap::from([("zeta".to_string(), 1.0)]);
    let mut data = generate_records("tian-sparse-student", n, &truth(d), &params, &mut rng)
        .map_err(|e| e.to_string())?;
    data.y_mut().iter_mut().for_each(|v| *v += ALPHA);
    Ok(data)
}

/// OLS with an intercept: (estimates, standard errors), slopes then the intercept.
pub fn ols_with_se(data: &crate::data::Dataset) -> Option<(Vec<f64>, Vec<f64>)> {
    let (n, d) = (data.n(), data.d());
    let k = d + 1;
    let mut g = vec![0.0; k * k];
    let mut xy = vec![0.0; k];
    let mut row = vec![0.0; k];
    let y = data.y();
    for (i, &yi) in y.iter().enumerate() {
        row[..d].copy_from_slice(data.row(i));
        row[d] = 1.0;
        for a in 0..k {
            xy[a] += row[a] * yi;
            for b in 0..k {
                g[a * k + b] += row[a] * row[b];
            }
        }
    }
    cholesky_in_place(&mut g, k).ok()?;
    let mut beta = xy;
    cholesky_solve(&g, k, &mut beta);
    let rss: f64 = y
        .iter()
        .enumerate()
        .map(|(i, &yi)| {
            let r = data.row(i);
            let m: f64 = (0..d).map(|j| r[j] * beta[j]).sum::<f64>() + beta[d];
            (yi - m).powi(2)
        })
        .sum();
    let s2 = rss / (n - k) as f64;
    let se = (0..k)
        .map(|j| {
            let mut e = vec![0.0; k];
            e[j] = 1.0;
            cholesky_solve(&g, k, &mut e);
            (s2 * e[j]).sqrt()
        })
        .collect();
    Some((beta, se))
}

/// One repetition of cell (`algorithm`, n, d, ε) with seed `seed`.
pub fn repetition(
    algorithm: &str,
    n: usize,
    d: usize,
    epsilon: f64,
    seed: u64,
) -> Result<RepValue, String> {
    let data = sample(n, d, seed)?;
    let (ols, se) = ols_with_se(&data).ok_or("OLS: singular X^T X")?;
    let mut opts = FitOptions::new(algorithm, epsilon);
    opts.intervals = Some(LEVEL);
    let mut rng = rng_from_seed(seed ^ 0x5EED);
    let model = pipeline::fit(data, &opts, &mut rng, &mut NoObserver)?.model;
    let iv = model.intervals.ok_or("no intervals")?;
    let b = iv.intercept.ok_or("no intercept interval")?;
    let mut truth_all = truth(d);
    truth_all.push(ALPHA);
    let terms: Vec<_> = iv.coefficients.iter().chain([&b]).collect();
    Ok(RepValue {
        private_covers: terms
            .iter()
            .zip(&truth_all)
            .map(|(t, v)| t.lower <= *v && *v <= t.upper)
            .collect(),
        private_width: terms.iter().map(|t| t.upper - t.lower).collect(),
        ols_covers: (0..=d)
            .map(|j| (ols[j] - truth_all[j]).abs() <= Z975 * se[j])
            .collect(),
        ols_width: se.iter().map(|s| 2.0 * Z975 * s).collect(),
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len();
    if m % 2 == 1 {
        v[m / 2]
    } else {
        0.5 * (v[m / 2 - 1] + v[m / 2])
    }
}

/// Summarises a cell's repetitions.
pub fn cell_row(algorithm: &str, n: usize, d: usize, epsilon: f64, values: &[RepValue]) -> CellRow {
    let reps = values.len();
    let share = |f: &dyn Fn(&RepValue) -> usize, per: usize| {
        values.iter().map(f).sum::<usize>() as f64 / (reps * per).max(1) as f64
    };
    let cov = |c: &[bool]| c[..d].iter().filter(|b| **b).count();
    let min_slope = (0..d)
        .map(|j| values.iter().filter(|v| v.private_covers[j]).count() as f64 / reps.max(1) as f64)
        .fold(f64::INFINITY, f64::min);
    let slopes = |f: &dyn Fn(&RepValue) -> &Vec<f64>| {
        median(values.iter().flat_map(|v| f(v)[..d].to_vec()).collect())
    };
    let icpt =
        |f: &dyn Fn(&RepValue) -> &Vec<f64>| median(values.iter().map(|v| f(v)[d]).collect());
    let (pw, ow) = (slopes(&|v| &v.private_width), slopes(&|v| &v.ols_width));
    let (pi, oi) = (icpt(&|v| &v.private_width), icpt(&|v| &v.ols_width));
    CellRow {
        algorithm: algorithm.to_string(),
        n,
        d,
        epsilon,
        reps,
        bounded: values
            .iter()
            .filter(|v| v.private_width[0].is_finite())
            .count() as f64
            / reps.max(1) as f64,
        coverage_slopes: share(&|v| cov(&v.private_covers), d),
        coverage_min_slope: min_slope,
        coverage_intercept: share(&|v| usize::from(v.private_covers[d]), 1),
        ols_coverage_slopes: share(&|v| cov(&v.ols_covers), d),
        ols_coverage_intercept: share(&|v| usize::from(v.ols_covers[d]), 1),
        median_width_slopes: pw,
        ols_median_width_slopes: ow,
        width_ratio_slopes: pw / ow,
        median_width_intercept: pi,
        ols_median_width_intercept: oi,
        width_ratio_intercept: pi / oi,
        failure: None,
    }
}

/// Runs the grid ([`grid`]) with `reps` repetitions a cell; repetition r of a cell has
/// the seed `rep_seed(base_seed, ID, "n=…,d=…,eps=…", r)` for `adassp` and
/// `rep_seed(base_seed, ID, "algorithm=…,n=…,d=…,eps=…", r)` for the others (data and
/// fit).
pub fn run_coverage(
    opts: &PlanOptions,
    reps: usize,
    base_seed: u64,
) -> Result<CoverageResults, ExperimentError> {
    run_coverage_of(opts, reps, base_seed, None)
}

/// [`run_coverage`] over the cells of one algorithm (`only`; all with `None`), each cell
/// with the seeds the whole grid gives it.
pub fn run_coverage_of(
    opts: &PlanOptions,
    reps: usize,
    base_seed: u64,
    only: Option<&str>,
) -> Result<CoverageResults, ExperimentError> {
    let mut rows = Vec::new();
    let cells = grid(opts.quick)
        .into_iter()
        .filter(|c| only.is_none_or(|a| a == c.0));
    for (alg, n, d, eps) in cells {
        let key = if alg == "adassp" {
            format!("n={n},d={d},eps={eps}")
        } else {
            format!("algorithm={alg},n={n},d={d},eps={eps}")
        };
        let per = per_method_reps((base_seed, ID, &key), reps, 1, |seed| {
            vec![repetition(alg, n, d, eps, seed).map(|v| (v, BTreeMap::new()))]
        });
        let m = &per[0];
        let mut row = cell_row(alg, n, d, eps, &m.values);
        row.failure = m.failure.clone();
        rows.push(row);
    }
    Ok(CoverageResults {
        run: RunInfo {
            base_seed,
            reps,
            quick: opts.quick,
        },
        level: LEVEL,
        rows,
    })
}

const COLUMNS: [&str; 18] = [
    "algorithm",
    "n",
    "d",
    "epsilon",
    "reps",
    "bounded",
    "coverage_slopes",
    "coverage_min_slope",
    "coverage_intercept",
    "ols_coverage_slopes",
    "ols_coverage_intercept",
    "median_width_slopes",
    "ols_median_width_slopes",
    "width_ratio_slopes",
    "median_width_intercept",
    "ols_median_width_intercept",
    "width_ratio_intercept",
    "failure",
];

/// `results.csv`: one row per cell.
pub fn coverage_csv(r: &CoverageResults) -> String {
    let mut s = COLUMNS.join(",");
    s.push('\n');
    for c in &r.rows {
        s.push_str(&format!(
            "{},{},{},{},{},{:.3},{:.4},{:.4},{:.4},{:.4},{:.4},{:.6},{:.6},{:.3},{:.6},{:.6},{:.3},{}\n",
            c.algorithm,
            c.n,
            c.d,
            c.epsilon,
            c.reps,
            c.bounded,
            c.coverage_slopes,
            c.coverage_min_slope,
            c.coverage_intercept,
            c.ols_coverage_slopes,
            c.ols_coverage_intercept,
            c.median_width_slopes,
            c.ols_median_width_slopes,
            c.width_ratio_slopes,
            c.median_width_intercept,
            c.ols_median_width_intercept,
            c.width_ratio_intercept,
            c.failure.as_deref().unwrap_or("").replace(',', ";"),
        ));
    }
    s
}

/// `results.md`: the table of `docs/inference.md`.
pub fn coverage_markdown(r: &CoverageResults) -> String {
    let mut s = format!(
        "{ID}: {}% intervals, {} repetitions a cell (base seed {}{})\n\n",
        r.level * 100.0,
        r.run.reps,
        r.run.base_seed,
        if r.run.quick { ", --quick" } else { "" }
    );
    s.push_str("| algorithm | n | d | ε | bounded | coverage (slopes) | min over slopes | intercept | OLS coverage (slopes) | median width / OLS (slopes) | median width / OLS (intercept) |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    for c in &r.rows {
        if let Some(f) = &c.failure {
            s.push_str(&format!(
                "| {} | {} | {} | {} | failed: {f} | | | | | | |\n",
                c.algorithm, c.n, c.d, c.epsilon
            ));
            continue;
        }
        s.push_str(&format!(
            "| {} | {} | {} | {} | {:.2} | {:.3} | {:.3} | {:.3} | {:.3} | {:.4} / {:.4} = {:.1} | {:.4} / {:.4} = {:.1} |\n",
            c.algorithm,
            c.n,
            c.d,
            c.epsilon,
            c.bounded,
            c.coverage_slopes,
            c.coverage_min_slope,
            c.coverage_intercept,
            c.ols_coverage_slopes,
            c.median_width_slopes,
            c.ols_median_width_slopes,
            c.width_ratio_slopes,
            c.median_width_intercept,
            c.ols_median_width_intercept,
            c.width_ratio_intercept,
        ));
    }
    s
}

/// `summary.json`.
pub fn coverage_summary(r: &CoverageResults, run: serde_json::Value) -> serde_json::Value {
    let worst = r
        .rows
        .iter()
        .map(|c| c.coverage_min_slope.min(c.coverage_intercept))
        .fold(f64::INFINITY, f64::min);
    json!({
        "id": ID,
        "results": r,
        "worst_coverage": worst,
        "goal": 0.93,
        "run": run,
    })
}

/// Private (`algorithm`, ε, `--intervals 0.95`, seed `seed`) and non-private OLS intervals
/// of every coefficient and the intercept of a CSV table: rows (name, private estimate,
/// lower, upper, OLS estimate, lower, upper).
pub type SideBySide = Vec<(String, [f64; 3], [f64; 3])>;

/// [`SideBySide`] of the table at `path` with response `target`.
pub fn side_by_side(
    algorithm: &str,
    path: &str,
    target: &str,
    epsilon: f64,
    seed: u64,
) -> Result<SideBySide, String> {
    let data = crate::io::read_dataset(path, Some(target), None).map_err(|e| e.to_string())?;
    let (ols, se) = ols_with_se(&data).ok_or("OLS: singular X^T X")?;
    let names = data.feature_names().to_vec();
    let mut opts = FitOptions::new(algorithm, epsilon);
    opts.intervals = Some(LEVEL);
    opts.seed = Some(seed);
    let mut rng = rng_from_seed(seed);
    let model = pipeline::fit(data, &opts, &mut rng, &mut NoObserver)?.model;
    let iv = model.intervals.ok_or("no intervals")?;
    let mut terms: Vec<_> = iv.coefficients.clone();
    terms.extend(iv.intercept.clone());
    let d = names.len();
    Ok(terms
        .iter()
        .enumerate()
        .map(|(j, t)| {
            let k = j.min(d);
            (
                t.name.clone(),
                [t.estimate, t.lower, t.upper],
                [ols[k], ols[k] - Z975 * se[k], ols[k] + Z975 * se[k]],
            )
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truth_grid_and_ols_reference() {
        assert_eq!(truth(5), vec![1.0, -0.5, 0.25, 0.0, 1.0]);
        assert_eq!(grid(true).len(), 12);
        assert_eq!(grid(false).len(), 36);
        let data = sample(20_000, 3, 1).unwrap();
        let (b, se) = ols_with_se(&data).unwrap();
        for (j, t) in truth(3).iter().chain([&ALPHA]).enumerate() {
            assert!((b[j] - t).abs() < 5.0 * se[j], "{j}: {} vs {t}", b[j]);
        }
    }

    /// The experiment itself (`heavydp experiment inference-coverage`, base seed 1 as the CLI's default), from
    /// the optimised test binary: `HEAVYDP_COVERAGE=quick|full cargo test -p heavydp
    /// --lib inference_coverage::tests::run -- --ignored --nocapture`
    /// (`HEAVYDP_COVERAGE_ALGORITHM=adassp`: that algorithm's cells alone;
    /// `HEAVYDP_COVERAGE_CELL=n,d,eps` with it: that cell alone, with the full run's seeds).
    #[test]
    #[ignore]
    fn run() {
        if let (Ok(alg), Ok(cell)) = (
            std::env::var("HEAVYDP_COVERAGE_ALGORITHM"),
            std::env::var("HEAVYDP_COVERAGE_CELL"),
        ) {
            let v: Vec<f64> = cell.split(',').map(|x| x.parse().unwrap()).collect();
            let (n, d, eps) = (v[0] as usize, v[1] as usize, v[2]);
            let key = if alg == "adassp" {
                format!("n={n},d={d},eps={eps}")
            } else {
                format!("algorithm={alg},n={n},d={d},eps={eps}")
            };
            let per = per_method_reps((1, ID, &key), FULL_REPS, 1, |seed| {
                vec![repetition(&alg, n, d, eps, seed).map(|v| (v, BTreeMap::new()))]
            });
            let mut row = cell_row(&alg, n, d, eps, &per[0].values);
            row.failure = per[0].failure.clone();
            let r = CoverageResults {
                run: RunInfo {
                    base_seed: 1,
                    reps: FULL_REPS,
                    quick: false,
                },
                level: LEVEL,
                rows: vec![row],
            };
            println!("{}", coverage_markdown(&r));
            return;
        }
        let quick = std::env::var("HEAVYDP_COVERAGE").as_deref() != Ok("full");
        let opts = PlanOptions {
            quick,
            ..PlanOptions::default()
        };
        let reps = if quick { QUICK_REPS } else { FULL_REPS };
        let only = std::env::var("HEAVYDP_COVERAGE_ALGORITHM").ok();
        let r = run_coverage_of(&opts, reps, 1, only.as_deref()).unwrap();
        println!("{}", coverage_markdown(&r));
    }

    /// Where the `clipped-gd` intervals miss (one cell, `HEAVYDP_PROBE=n,d,eps,reps`):
    /// per coefficient the estimate's error, the bootstrap's bias correction (estimate −
    /// interval centre), the bootstrap sd against the estimates' sd over repetitions.
    /// `cargo test --workspace --lib inference_coverage::tests::clipped_gd_probe --
    /// --ignored --nocapture`.
    #[test]
    #[ignore]
    fn clipped_gd_probe() {
        let spec = std::env::var("HEAVYDP_PROBE").unwrap_or("10000,5,1,20".into());
        let v: Vec<f64> = spec.split(',').map(|x| x.parse().unwrap()).collect();
        let (n, d, eps, reps) = (v[0] as usize, v[1] as usize, v[2], v[3] as usize);
        let beta = truth(d);
        let mut err = vec![Vec::new(); d];
        let mut se = vec![Vec::new(); d];
        for r in 0..reps as u64 {
            let data = sample(n, d, 900 + r).unwrap();
            let mut opts = FitOptions::new("clipped-gd", eps);
            opts.intervals = Some(LEVEL);
            let m = pipeline::fit(data, &opts, &mut rng_from_seed(r), &mut NoObserver)
                .unwrap()
                .model;
            let iv = m.intervals.unwrap();
            let sw = m.preprocessing.as_ref().unwrap()["scaled_weights"].clone();
            let line: Vec<String> = iv
                .coefficients
                .iter()
                .enumerate()
                .map(|(j, t)| {
                    let c = 0.5 * (t.lower + t.upper);
                    err[j].push(t.estimate - beta[j]);
                    se[j].push(t.std_error);
                    format!(
                        "{:+.3}/{:+.3}/{:.3}/{:.3}",
                        t.estimate - beta[j],
                        t.estimate - c,
                        0.5 * (t.upper - t.lower),
                        t.std_error
                    )
                })
                .collect();
            println!(
                "rep {r}: err/biascorr/halfwidth/se {} scaled {sw} hyper T={} halvings={}",
                line.join(" "),
                m.hyperparameters
                    .get("T")
                    .map(|v| v.to_string())
                    .unwrap_or_default(),
                m.hyperparameters
                    .get("lr_halvings")
                    .map(|v| v.to_string())
                    .unwrap_or_default()
            );
        }
        for j in 0..d {
            let k = err[j].len() as f64;
            let mean = err[j].iter().sum::<f64>() / k;
            let sd = (err[j].iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (k - 1.0)).sqrt();
            let se_m = se[j].iter().sum::<f64>() / k;
            println!("coef {j}: mean error {mean:+.4}, sd of estimates {sd:.4}, mean bootstrap se {se_m:.4}");
        }
    }

    /// The sampling law of `clipped-gd`'s raw estimates at the truth, without intervals
    /// (design seeds: data 900 + r, fit r), over `HEAVYDP_SAMPLING=n,d,eps,reps` fits
    /// (default 10000,20,0.5,200): a feature release's n·ε₀, how far the released
    /// feature scales are from the truth 1 (within 2×, 2–10×, 10–100×, beyond), and per
    /// term the median error, the robust sd (IQR / 1.349), their ratio and the 2.5 % and
    /// 97.5 % errors — what an interval must cover (`docs/inference.md`, "Unbounded where
    /// the features' private scales are not certified").
    /// `cargo test --workspace --lib inference_coverage::tests::clipped_gd_sampling_probe
    /// -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn clipped_gd_sampling_probe() {
        let spec = std::env::var("HEAVYDP_SAMPLING").unwrap_or("10000,20,0.5,200".into());
        let v: Vec<f64> = spec.split(',').map(|x| x.parse().unwrap()).collect();
        let (n, d, eps, reps) = (v[0] as usize, v[1] as usize, v[2], v[3] as usize);
        let mut truth_all = truth(d);
        truth_all.push(ALPHA);
        let opts = FitOptions::new("clipped-gd", eps);
        let mut err = vec![Vec::new(); d + 1];
        let (mut fell_back, mut scale_off) = (0, [0usize; 4]);
        for r in 0..reps as u64 {
            let data = sample(n, d, 900 + r).unwrap();
            let m = pipeline::fit(data, &opts, &mut rng_from_seed(r), &mut NoObserver)
                .unwrap()
                .model;
            for (j, e) in m.weights.iter().chain([&m.intercept]).enumerate() {
                err[j].push(e - truth_all[j]);
            }
            if m.weights.iter().all(|w| *w == 0.0) {
                fell_back += 1;
                continue;
            }
            // the features are N(0, 1): their robust sd is 1
            for c in &standardization_of(&m).features {
                let k = [0.5, 0.1, 0.01]
                    .iter()
                    .take_while(|f| c.scale < **f || c.scale > 1.0 / **f)
                    .count();
                scale_off[k] += 1;
            }
        }
        // the scaling phase's budget of a fit with a private intercept (pipeline::scaling_fraction)
        let frac = 0.75 * crate::preprocess::DEFAULT_PREPROCESS_SHARE;
        let budget = crate::privacy::Budget {
            epsilon: eps * frac,
            delta: (n as f64).powf(-1.1) * frac,
        };
        let (e_f, e_t) = crate::preprocess::ScalingPlan::new(n, d, budget, true).epsilons(d);
        println!(
            "n·eps0 of a feature release {:.1}, of a target release {:.1}",
            n as f64 * e_f,
            n as f64 * e_t
        );
        println!(
            "{n} x {d}, eps {eps}: {fell_back} of {reps} fits the intercept alone; released feature scales (truth 1) within [1/2, 2]: {}, off by 2-10x: {}, 10-100x: {}, > 100x: {}",
            scale_off[0], scale_off[1], scale_off[2], scale_off[3]
        );
        for (j, e) in err.iter().enumerate() {
            let mut s = e.clone();
            s.sort_by(f64::total_cmp);
            let q = |p: f64| s[((p * (s.len() - 1) as f64).round() as usize).min(s.len() - 1)];
            let sd = (q(0.75) - q(0.25)) / 1.348_979_5;
            println!(
                "term {j} truth {:+.2}: median error {:+.4}, robust sd {sd:.4}, bias/sd {:+.2}, 2.5%/97.5% errors {:+.4}/{:+.4}",
                truth_all[j],
                q(0.5),
                q(0.5) / sd,
                q(0.025),
                q(0.975)
            );
        }
    }

    /// The released standardisation of a pipeline model (from its `preprocessing`).
    fn standardization_of(m: &crate::model::ModelFile) -> crate::preprocess::Standardization {
        use crate::preprocess::{ColumnScale, Standardization, WINSOR_BOUND};
        let p = m.preprocessing.as_ref().unwrap();
        let f = |k: &str| -> Vec<f64> { serde_json::from_value(p[k].clone()).unwrap() };
        let (c, sc) = (f("centres"), f("scales"));
        Standardization {
            features: c
                .iter()
                .zip(&sc)
                .map(|(&centre, &scale)| ColumnScale { centre, scale })
                .collect(),
            target: ColumnScale {
                centre: p["target_centre"].as_f64().unwrap(),
                scale: p["target_scale"].as_f64().unwrap(),
            },
            winsor: Some(WINSOR_BOUND),
        }
    }

    /// The bias correction of the `clipped-gd` intervals, designed on seeds of its own
    /// (data 900 + r, fit r; the coverage study's are `rep_seed(1, …)`): per variant
    /// (1 batch: the basic interval; 2 batches with unit slope; 2 and 3 batches with the
    /// secant slope) the coverage of the slopes and the intercept and the median slope
    /// width, over the repetitions of one cell (`HEAVYDP_PROBE=n,d,eps,reps`, default
    /// 10000,5,0.5,20; `HEAVYDP_PROBE_B` refits a batch, default 200; `HEAVYDP_PROBE_FIRST`
    /// the first repetition, default 0): `cargo test
    /// --workspace --lib inference_coverage::tests::clipped_gd_recentre_probe --
    /// --ignored --nocapture`.
    #[test]
    #[ignore]
    fn clipped_gd_recentre_probe() {
        use crate::inference::{
            recentred_bounds, refit_batches, slopes, Bootstrap, Recentre, SEED,
        };
        let spec = std::env::var("HEAVYDP_PROBE").unwrap_or("10000,5,0.5,20".into());
        let v: Vec<f64> = spec.split(',').map(|x| x.parse().unwrap()).collect();
        let (n, d, eps, reps) = (v[0] as usize, v[1] as usize, v[2], v[3] as usize);
        let env = |k: &str, default: usize| -> usize {
            std::env::var(k)
                .map(|v| v.parse().unwrap())
                .unwrap_or(default)
        };
        let (b, nb) = (env("HEAVYDP_PROBE_B", 200), env("HEAVYDP_PROBE_BATCHES", 3));
        // the first repetition (`HEAVYDP_PROBE_FIRST`, default 0): a cell can be run in parts
        let first = env("HEAVYDP_PROBE_FIRST", 0) as u64;
        // the coverage study's seeds (for its report), or the design seeds
        let study = std::env::var("HEAVYDP_PROBE_SEEDS").as_deref() == Ok("study");
        let key = format!("algorithm=clipped-gd,n={n},d={d},eps={eps}");
        let seeds = |r: u64| {
            if study {
                let s = super::super::runner::rep_seed(1, ID, &key, r as usize);
                (s, s ^ 0x5EED)
            } else {
                (900 + r, r)
            }
        };
        let mut ols_widths = Vec::new();
        let mut truth_all = truth(d);
        truth_all.push(ALPHA);
        let variants: [(&str, usize, bool); 4] = [
            ("basic (1 batch)", 1, false),
            ("2 batches, unit slope", 2, false),
            ("2 batches, secant", 2, true),
            ("3 batches, secant", 3, true),
        ];
        // per variant: covers per (rep, term), widths of slopes
        let mut cov = vec![vec![vec![0usize; d + 1]; 4]; 1];
        let mut widths = vec![Vec::new(); 4];
        let start = std::time::Instant::now();
        for r in first..first + reps as u64 {
            let (data_seed, fit_seed) = seeds(r);
            let data = sample(n, d, data_seed).unwrap();
            let (_, se) = ols_with_se(&data).unwrap();
            let ols_rep: Vec<f64> = se[..d].iter().map(|s| 2.0 * Z975 * s).collect();
            ols_widths.extend(&ols_rep);
            let opts = FitOptions::new("clipped-gd", eps);
            let m = pipeline::fit(data, &opts, &mut rng_from_seed(fit_seed), &mut NoObserver)
                .unwrap()
                .model;
            let st = standardization_of(&m);
            let mut refit = |sim: crate::data::Dataset, rng: &mut dyn rand::RngCore| {
                pipeline::fit(sim, &opts, rng, &mut NoObserver)
                    .map(|o| (o.model.weights, o.model.intercept))
                    .map_err(String::from)
            };
            let boot = Bootstrap {
                level: LEVEL,
                replicates: b,
                seed: SEED,
            };
            let est: Vec<f64> = m.weights.iter().copied().chain([m.intercept]).collect();
            let batches = refit_batches(
                (&m.weights, m.intercept),
                &st,
                &m.features,
                n,
                boot,
                Recentre {
                    batches: nb,
                    secant: true,
                },
                &mut refit,
            )
            .unwrap();
            let mut line = String::new();
            for (vi, (_, k, secant)) in variants.iter().enumerate().filter(|(_, v)| v.1 <= nb) {
                let bounds = recentred_bounds(&est, &batches[..*k], *secant, 1.0 - LEVEL);
                let mut rep_widths = Vec::with_capacity(d);
                for (j, (lo, hi, _)) in bounds.iter().enumerate() {
                    cov[0][vi][j] += usize::from(*lo <= truth_all[j] && truth_all[j] <= *hi);
                    if j < d {
                        widths[vi].push(hi - lo);
                        rep_widths.push(format!("{:.4e}", hi - lo));
                    }
                }
                // the terms (slopes 0..d, then the intercept) whose interval missed
                let missed: Vec<usize> = bounds
                    .iter()
                    .zip(&truth_all)
                    .enumerate()
                    .filter(|(_, ((lo, hi, _), t))| !(lo <= *t && *t <= hi))
                    .map(|(j, _)| j)
                    .collect();
                line.push_str(&format!(" v{vi}missed={missed:?}"));
                // this repetition's slope widths, so that a cell run in parts
                // (`HEAVYDP_PROBE_FIRST`) can be summed up with its widths
                // (`scripts/coverage-parts.py`)
                line.push_str(&format!(" v{vi}width=[{}]", rep_widths.join(",")));
            }
            let c = |k: usize| {
                batches
                    .get(k)
                    .map(|b| slopes(Some(&batches[k - 1]), b, true))
                    .unwrap_or_default()
            };
            let (c1, c2) = (c(1), c(2));
            // the columns whose released scale is off by more than 2× (the truth is 1)
            let off: Vec<usize> = (0..d)
                .filter(|&j| !(0.5..=2.0).contains(&st.features[j].scale))
                .collect();
            line.push_str(&format!(" scales_off={off:?}"));
            let ols: Vec<String> = ols_rep.iter().map(|w| format!("{w:.4e}")).collect();
            line.push_str(&format!(" olswidth=[{}]", ols.join(",")));
            println!(
                "rep {r}: err {:?}{line}\n   world1-est {:?}\n   c1 {:?}\n   c2 {:?}",
                est.iter()
                    .zip(&truth_all)
                    .map(|(e, t)| format!("{:+.3}", e - t))
                    .collect::<Vec<_>>(),
                batches[nb.min(2) - 1]
                    .world
                    .iter()
                    .zip(&est)
                    .map(|(w, e)| format!("{:+.3}", w - e))
                    .collect::<Vec<_>>(),
                c1.iter().map(|c| format!("{c:.2}")).collect::<Vec<_>>(),
                c2.iter().map(|c| format!("{c:.2}")).collect::<Vec<_>>(),
            );
        }
        println!(
            "clipped-gd n={n} d={d} eps={eps} reps={reps} B={b} ({:.0} s)",
            start.elapsed().as_secs_f64()
        );
        println!("median OLS slope width {:.4}", median(ols_widths));
        for (vi, (name, _, _)) in variants.iter().enumerate().filter(|(_, v)| v.1 <= nb) {
            let c = &cov[0][vi];
            let slopes_cov = c[..d].iter().sum::<usize>() as f64 / (reps * d) as f64;
            let min_slope = c[..d].iter().min().copied().unwrap_or(0) as f64 / reps as f64;
            println!(
                "{name}: slopes {slopes_cov:.3} (min {min_slope:.3}), intercept {:.3}, median slope width {:.4}, per slope {:?}",
                c[d] as f64 / reps as f64,
                median(widths[vi].clone()),
                &c[..d]
            );
        }
    }

    /// The cost of `clipped-gd`'s intervals (`HEAVYDP_COST=n,d`, default 10000,5; ε = 1):
    /// seconds of the fit alone, of the fit with `--intervals 0.95` ([`crate::inference::RECENTRE`])
    /// and of one batch of refits: `cargo test --workspace --lib
    /// inference_coverage::tests::clipped_gd_interval_cost -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn clipped_gd_interval_cost() {
        use crate::inference::{refit_batches, Bootstrap, Recentre, REFIT_REPLICATES, SEED};
        use std::time::Instant;
        let spec = std::env::var("HEAVYDP_COST").unwrap_or("10000,5".into());
        let v: Vec<usize> = spec.split(',').map(|x| x.parse().unwrap()).collect();
        let (n, d) = (v[0], v[1]);
        let data = sample(n, d, 1).unwrap();
        let mut opts = FitOptions::new("clipped-gd", 1.0);
        let t = Instant::now();
        let m = pipeline::fit(data.clone(), &opts, &mut rng_from_seed(1), &mut NoObserver)
            .unwrap()
            .model;
        let t_fit = t.elapsed().as_secs_f64();
        opts.intervals = Some(LEVEL);
        let t = Instant::now();
        pipeline::fit(data, &opts, &mut rng_from_seed(1), &mut NoObserver).unwrap();
        let t_iv = t.elapsed().as_secs_f64();
        opts.intervals = None;
        let mut refit = |sim: crate::data::Dataset, rng: &mut dyn rand::RngCore| {
            pipeline::fit(sim, &opts, rng, &mut NoObserver)
                .map(|o| (o.model.weights, o.model.intercept))
                .map_err(String::from)
        };
        let boot = Bootstrap {
            level: LEVEL,
            replicates: REFIT_REPLICATES,
            seed: SEED,
        };
        let t = Instant::now();
        refit_batches(
            (&m.weights, m.intercept),
            &standardization_of(&m),
            &m.features,
            n,
            boot,
            Recentre {
                batches: 1,
                secant: false,
            },
            &mut refit,
        )
        .unwrap();
        let t_batch = t.elapsed().as_secs_f64();
        println!(
            "n={n} d={d}: fit {t_fit:.2} s, fit with intervals {t_iv:.1} s, one batch of {REFIT_REPLICATES} refits {t_batch:.1} s (one batch, the basic interval: fit + batch = {:.1} s; ratio {:.2})",
            t_fit + t_batch,
            t_iv / (t_fit + t_batch)
        );
    }

    /// `adassp` where its ridge is on: would the refitting bootstrap through the ridge
    /// (the whole private fit re-run on data simulated from the released, shrunk model)
    /// give honest finite intervals? Coverage and widths over repetitions of one cell
    /// (`HEAVYDP_PROBE=n,d,eps,reps`, default 10000,5,0.5,20):
    /// `cargo test --workspace --lib inference_coverage::tests::adassp_ridge_probe --
    /// --ignored --nocapture`.
    #[test]
    #[ignore]
    fn adassp_ridge_probe() {
        use crate::inference::{
            refit_intervals, Bootstrap, InterceptInput, Recentre, REFIT_REPLICATES, SEED,
        };
        let spec = std::env::var("HEAVYDP_PROBE").unwrap_or("10000,5,0.5,20".into());
        let v: Vec<f64> = spec.split(',').map(|x| x.parse().unwrap()).collect();
        let (n, d, eps, reps) = (v[0] as usize, v[1] as usize, v[2], v[3] as usize);
        let beta = truth(d);
        let (mut cov, mut total, mut ridged) = (0usize, 0usize, 0usize);
        let mut widths = Vec::new();
        for r in 0..reps as u64 {
            let data = sample(n, d, 700 + r).unwrap();
            let opts = FitOptions::new("adassp", eps);
            let m = pipeline::fit(data, &opts, &mut rng_from_seed(r), &mut NoObserver)
                .unwrap()
                .model;
            let ridge = m
                .hyperparameters
                .get("ridge_used")
                .and_then(|v| v.as_f64())
                .unwrap_or(0.0);
            ridged += usize::from(ridge > 0.0);
            let st = standardization_of(&m);
            let mut refit = |sim: crate::data::Dataset, rng: &mut dyn rand::RngCore| {
                pipeline::fit(sim, &opts, rng, &mut NoObserver)
                    .map(|o| (o.model.weights, o.model.intercept))
                    .map_err(String::from)
            };
            let boot = Bootstrap {
                level: LEVEL,
                replicates: REFIT_REPLICATES,
                seed: SEED,
            };
            let iv = refit_intervals(
                (&m.weights, m.intercept),
                &InterceptInput::None,
                &st,
                &m.features,
                n,
                boot,
                Recentre {
                    batches: 1,
                    secant: false,
                },
                &mut refit,
            )
            .unwrap();
            for (t, b) in iv.coefficients.iter().zip(&beta) {
                cov += usize::from(t.lower <= *b && *b <= t.upper);
                total += 1;
                widths.push(t.upper - t.lower);
            }
            println!(
                "rep {r}: ridge {ridge:e}; {}",
                iv.coefficients
                    .iter()
                    .zip(&beta)
                    .map(|(t, b)| format!(
                        "{b}: {:.3} [{:.3}, {:.3}]",
                        t.estimate, t.lower, t.upper
                    ))
                    .collect::<Vec<_>>()
                    .join("; ")
            );
        }
        println!(
            "adassp n={n} d={d} eps={eps}: ridge on in {ridged}/{reps}; bootstrap through the ridge covers {:.3} of the slopes; median width {:.4}",
            cov as f64 / total as f64,
            median(widths)
        );
    }

    /// The tables of `docs/inference.md` at ε = 1 beside OLS (the CPS wages and two
    /// suite tables, `adassp` and `clipped-gd`, seed 1; `HEAVYDP_SBS_SEEDS=1,2,3` for
    /// more): `cargo test --workspace --lib inference_coverage::tests::side_by_side_tables
    /// -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn side_by_side_tables() {
        let tables = [
            "/work/shared/data/real/cps1988_wage.csv",
            "/work/shared/data/suite/wooldridge_k401ksubs.csv",
            "/work/shared/data/suite/ggplot2_diamonds.csv",
        ];
        let seeds: Vec<u64> = std::env::var("HEAVYDP_SBS_SEEDS")
            .unwrap_or("1".into())
            .split(',')
            .map(|v| v.parse().unwrap())
            .collect();
        let mut runs = Vec::new();
        for path in tables {
            for alg in ALGORITHMS {
                for &seed in &seeds {
                    runs.push((path, alg, seed));
                }
            }
        }
        for (path, alg, seed) in runs {
            let rows = match side_by_side(alg, path, "y", 1.0, seed) {
                Ok(r) => r,
                Err(e) => {
                    println!("{path} {alg} seed {seed}: {e}\n");
                    continue;
                }
            };
            println!("{path} {alg} seed {seed}\n| term | private (ε = 1) | 95% interval | OLS | 95% interval | signs agree |\n|---|---|---|---|---|---|");
            for (name, p, o) in rows {
                let sign = |v: f64| {
                    if v > 0.0 {
                        1
                    } else if v < 0.0 {
                        -1
                    } else {
                        0
                    }
                };
                let p_sign = if p[1] > 0.0 {
                    1
                } else if p[2] < 0.0 {
                    -1
                } else {
                    0
                };
                let o_sign = if o[1] > 0.0 {
                    1
                } else if o[2] < 0.0 {
                    -1
                } else {
                    0
                };
                println!(
                    "| {name} | {:.3} | [{:.3}, {:.3}] | {:.3} | [{:.3}, {:.3}] | {} |",
                    p[0],
                    p[1],
                    p[2],
                    o[0],
                    o[1],
                    o[2],
                    if sign(p[0]) == sign(o[0]) {
                        if p_sign == o_sign {
                            "yes"
                        } else {
                            "estimate yes, significance differs"
                        }
                    } else {
                        "no"
                    }
                );
            }
            println!();
        }
    }
}
