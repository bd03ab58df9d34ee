//! `real-benchmark`: every applicable private algorithm of the library, `auto`, the
//! private intercept-only model, the constant predictor and non-private floors on the six
//! real heavy-tailed datasets of `../shared/data/real/` (issue 14, item 7). Every private
//! fit goes through the library's one fit pipeline ([`crate::pipeline::fit`], with its
//! defaults: private scales, private intercept, default preprocessing share, δ = n^−1.1
//! where the algorithm needs δ).
//!
//! # Protocol
//!
//! * **Data.** `flights_arr_delay`, `gss_wages_realrinc`, `cps1988_wage` (regression),
//!   `bladderbatch_krt19` (regression, d ≫ n), `cells_ps` and `pd_speech_pd` (binary,
//!   labels {0, 1}); raw columns, response `y`.
//! * **Splits.** 5 fixed 80/20 splits. Split k permutes the rows with the public seed
//!   `derive_seed(base_seed, ["real-benchmark", file, "split", k])`; the test part is the
//!   first ⌊0.2·n + ½⌋ rows of the permutation (binary sets: stratified — the same share
//!   of each label). The training rows stay in permuted order.
//! * **Budgets.** ε ∈ {0.5, 1, 2}; δ the pipeline's default n_train^−1.1 for (ε, δ) and
//!   zCDP algorithms.
//! * **Methods.** Every algorithm of [`crate::algorithms::catalogue`] with a privacy
//!   guarantee (non-private ones are skipped): for regression those whose default loss
//!   is squared, Huber or absolute (all of them), for classification those accepting the
//!   logistic loss (fitted with `--loss logistic`); each with its defaults, except the
//!   `sparse`-domain ones, which get the public sparsity s = min(10, ⌊d/2⌋). `adassp` is
//!   included when the catalogue has it. Plus `auto`, `intercept-only`, the constant
//!   predictor (training mean; training class frequency) and the floor.
//! * **Floors** (non-private, module `floors`, plain Rust, tested against closed
//!   forms): regression with d < n: ridge with λ = 10⁻⁶ (≈ OLS) with intercept on
//!   standardised columns (Cholesky); regression with d ≥ n: LassoCV (coordinate
//!   descent, 30-value λ path, 5-fold CV); binary: L2 logistic regression with intercept
//!   on standardised columns (Newton–IRLS), C ∈ {0.01, 0.1, 1, 10} by 5-fold CV log-loss.
//! * **Metrics** on the test part: MSE (regression), log-loss and AUC (binary);
//!   `ratio_to_floor` = error / floor error; `gain_kept` = (err_const − err) /
//!   (err_const − err_floor) (error = MSE or log-loss), per split, then mean ± sd over
//!   the splits; `auc_gap` = floor AUC − AUC; `seconds` per fit.
//! * **Time cap.** Each fit runs under a wall-clock cap (default 120 s; `--quick` 60 s;
//!   `--param time_cap=S`), enforced at the algorithm's next iteration callback after
//!   the cap (the fit is abandoned and recorded as timed out). Each method is first run
//!   on split 0 at the smallest ε (all methods in parallel); a method whose pilot times
//!   out is skipped on that dataset, the reason recorded. Fits that return an error are
//!   recorded with the error and left out of the means.
//! * `--quick`: 2 splits, ε = 1, `cps1988_wage` (a seeded subsample of 4000 rows),
//!   `cells_ps`, `pd_speech_pd`; methods `auto`, `intercept-only`, `ht-frank-wolfe`,
//!   `objective-perturbation`, `adassp` (when present) and the floors.

use super::floors::{self, Affine};
use super::{mean_sd, ExperimentError, ExperimentInfo, Summary};
use crate::algorithms::{self, Observer, ParamMap};
use crate::data::{read_csv, Dataset};
use crate::noise::{derive_seed, rng_from_seed};
use crate::pipeline::{self, FitOptions, INTERCEPT_ONLY};
use rand::seq::SliceRandom;
use rayon::prelude::*;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The experiment ID.
pub const ID: &str = "real-benchmark";
/// Share of each split held out for testing.
pub const TEST_SHARE: f64 = 0.2;
/// Ridge penalty of the d < n regression floor (mean-loss scale, standardised columns).
pub const FLOOR_RIDGE: f64 = 1e-6;
/// Folds of the floors' cross-validation.
pub const FLOOR_FOLDS: usize = 5;
/// Default per-fit wall-clock cap (seconds): full run, `--quick`.
pub const TIME_CAP: f64 = 120.0;
pub const TIME_CAP_QUICK: f64 = 60.0;
/// Rows of the `--quick` subsample of cps1988_wage.
pub const QUICK_CPS_ROWS: usize = 4000;

/// Regression or binary classification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Task {
    Regression,
    Binary,
}

/// One dataset of the benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SetSpec {
    pub name: &'static str,
    pub task: Task,
}

impl SetSpec {
    pub fn file(&self) -> String {
        format!("{}.csv", self.name)
    }
}

/// The six datasets of `../shared/data/real/`.
pub const SETS: [SetSpec; 6] = [
    SetSpec {
        name: "flights_arr_delay",
        task: Task::Regression,
    },
    SetSpec {
        name: "gss_wages_realrinc",
        task: Task::Regression,
    },
    SetSpec {
        name: "cps1988_wage",
        task: Task::Regression,
    },
    SetSpec {
        name: "bladderbatch_krt19",
        task: Task::Regression,
    },
    SetSpec {
        name: "cells_ps",
        task: Task::Binary,
    },
    SetSpec {
        name: "pd_speech_pd",
        task: Task::Binary,
    },
];

/// The `--list` row.
pub fn info() -> ExperimentInfo {
    ExperimentInfo::new(
        ID,
        "project benchmark (issue 14): private fits from raw columns on real heavy-tailed data",
        "real-data benchmark: every private algorithm with its defaults, auto, adassp, intercept-only, the constant and non-private floors on the six sets of ../shared/data/real (--data-dir; 5 splits 80/20, eps 0.5/1/2); MSE, log-loss, AUC, gain kept; writes results.csv, table.md, real-benchmark.png, summary.json",
    )
}

/// What to run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchOptions {
    pub quick: bool,
    pub splits: usize,
    pub epsilons: Vec<f64>,
    pub sets: Vec<SetSpec>,
    /// Per dataset: run on a seeded subsample of this many rows.
    pub subsample: BTreeMap<String, usize>,
    /// `None`: every applicable private algorithm (plus auto and intercept-only).
    pub methods: Option<Vec<String>>,
    /// Per-fit wall-clock cap in seconds.
    pub time_cap: f64,
    pub base_seed: u64,
}

impl BenchOptions {
    /// The full protocol or its `--quick` form.
    pub fn new(quick: bool, base_seed: u64) -> Self {
        if quick {
            let mut methods = vec![
                "auto",
                INTERCEPT_ONLY,
                "ht-frank-wolfe",
                "objective-perturbation",
            ];
            if algorithms::catalogue().iter().any(|a| a.name == "adassp") {
                methods.push("adassp");
            }
            BenchOptions {
                quick,
                splits: 2,
                epsilons: vec![1.0],
                sets: SETS
                    .iter()
                    .copied()
                    .filter(|s| matches!(s.name, "cps1988_wage" | "cells_ps" | "pd_speech_pd"))
                    .collect(),
                subsample: [("cps1988_wage".to_string(), QUICK_CPS_ROWS)]
                    .into_iter()
                    .collect(),
                methods: Some(methods.into_iter().map(String::from).collect()),
                time_cap: TIME_CAP_QUICK,
                base_seed,
            }
        } else {
            BenchOptions {
                quick,
                splits: 5,
                epsilons: vec![0.5, 1.0, 2.0],
                sets: SETS.to_vec(),
                subsample: BTreeMap::new(),
                methods: None,
                time_cap: TIME_CAP,
                base_seed,
            }
        }
    }

    /// Experiment options `--param KEY=VALUE`: `time_cap=SECONDS`, `sets=a,b,…` (dataset
    /// names), `methods=a,b,…` (algorithm names, `auto`, `intercept-only`),
    /// `epsilons=0.5,1,…`.
    pub fn apply_params(&mut self, params: &ParamMap) -> Result<(), ExperimentError> {
        for (k, v) in params {
            let bad = |reason: String| ExperimentError::BadOption {
                key: k.clone(),
                reason,
            };
            let list = || {
                v.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
            };
            match k.as_str() {
                "time_cap" => {
                    self.time_cap = v
                        .parse::<f64>()
                        .ok()
                        .filter(|t| *t > 0.0 && t.is_finite())
                        .ok_or_else(|| bad(format!("expected a positive number of seconds, got '{v}'")))?;
                }
                "sets" => {
                    let mut sets = Vec::new();
                    for name in list() {
                        let s = SETS.iter().find(|s| s.name == name).ok_or_else(|| {
                            bad(format!(
                                "unknown dataset '{name}' (known: {})",
                                SETS.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
                            ))
                        })?;
                        sets.push(*s);
                    }
                    if sets.is_empty() {
                        return Err(bad("no dataset given".into()));
                    }
                    self.sets = sets;
                }
                "methods" => {
                    let names: Vec<String> = list().collect();
                    let cat = algorithms::catalogue();
                    for n in &names {
                        if n != "auto" && n != INTERCEPT_ONLY && !cat.iter().any(|a| a.name == n) {
                            return Err(bad(format!("unknown algorithm '{n}'")));
                        }
                    }
                    if names.is_empty() {
                        return Err(bad("no method given".into()));
                    }
                    self.methods = Some(names);
                }
                "epsilons" => {
                    let mut e = Vec::new();
                    for s in list() {
                        e.push(
                            s.parse::<f64>()
                                .ok()
                                .filter(|x| *x > 0.0)
                                .ok_or_else(|| bad(format!("'{s}' is not a positive number")))?,
                        );
                    }
                    if e.is_empty() {
                        return Err(bad("no epsilon given".into()));
                    }
                    self.epsilons = e;
                }
                _ => {
                    return Err(bad(
                        "unknown option (accepted: time_cap=SECONDS, sets=a,b, methods=a,b, epsilons=e1,e2)".into(),
                    ))
                }
            }
        }
        Ok(())
    }
}

/// The folder of the real datasets: `explicit` (`--data-dir`), else
/// `$HEAVYDP_DATA_DIR`, else `../shared/data/real` relative to the current folder when
/// present, else the project's `data/real/` when it holds every dataset of `sets`.
pub fn data_dir(explicit: Option<&Path>, sets: &[SetSpec]) -> Result<PathBuf, ExperimentError> {
    let dir = if let Some(p) = explicit {
        p.to_path_buf()
    } else if let Some(p) = std::env::var_os(super::DATA_DIR_ENV).filter(|p| !p.is_empty()) {
        PathBuf::from(p)
    } else if Path::new("../shared/data/real").is_dir() {
        PathBuf::from("../shared/data/real")
    } else {
        let project = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/real"));
        if sets.iter().all(|s| project.join(s.file()).is_file()) {
            project
        } else {
            return Err(ExperimentError::RealData(format!(
                "{ID}: the real-data folder was not found: give --data-dir DIR (the folder holding {}), or run from a folder whose ../shared/data/real exists",
                sets.iter().map(|s| s.file()).collect::<Vec<_>>().join(", ")
            )));
        }
    };
    for s in sets {
        if !dir.join(s.file()).is_file() {
            return Err(ExperimentError::RealData(format!(
                "{ID}: {} not found in {} (give --data-dir DIR)",
                s.file(),
                dir.display()
            )));
        }
    }
    Ok(dir)
}

/// The private methods run on a dataset (names as given to the pipeline).
pub fn private_methods(task: Task, opts: &BenchOptions) -> Vec<String> {
    let mut v: Vec<String> = vec!["auto".into(), INTERCEPT_ONLY.into()];
    for a in algorithms::catalogue() {
        if a.privacy == "none" {
            continue;
        }
        let applicable = match task {
            Task::Regression => {
                matches!(
                    algorithms::default_loss_and_domain(a.name).0,
                    "squared" | "huber" | "absolute"
                )
            }
            Task::Binary => a.losses.contains(&"logistic"),
        };
        if applicable {
            v.push(a.name.to_string());
        }
    }
    if let Some(only) = &opts.methods {
        v.retain(|m| only.contains(m));
    }
    v
}

/// The public sparsity given to `sparse`-domain algorithms: min(10, ⌊d/2⌋), at least 1.
pub fn public_sparsity(d: usize) -> usize {
    (d / 2).clamp(1, 10)
}

/// The pipeline options of a method on a dataset of dimension d.
pub fn fit_options(method: &str, task: Task, d: usize, epsilon: f64, seed: u64) -> FitOptions {
    let mut o = FitOptions::new(method, epsilon);
    if task == Task::Binary {
        o.loss = Some("logistic".into());
    }
    if method != "auto"
        && method != INTERCEPT_ONLY
        && algorithms::default_loss_and_domain(method).1 == "sparse"
    {
        o.sparsity = Some(public_sparsity(d));
    }
    o.seed = Some(seed);
    o
}

/// Train/test row indices of split `k`: a seeded permutation; the first ⌊0.2·n + ½⌋
/// rows are the test part (binary: per label, so the test part keeps the label shares).
pub fn split_indices(y: &[f64], task: Task, seed: u64) -> (Vec<usize>, Vec<usize>) {
    let mut rng = rng_from_seed(seed);
    let groups: Vec<Vec<usize>> = match task {
        Task::Regression => vec![(0..y.len()).collect()],
        Task::Binary => vec![
            (0..y.len()).filter(|&i| y[i] <= 0.5).collect(),
            (0..y.len()).filter(|&i| y[i] > 0.5).collect(),
        ],
    };
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for mut g in groups {
        g.shuffle(&mut rng);
        let t = ((g.len() as f64) * TEST_SHARE).round() as usize;
        test.extend_from_slice(&g[..t]);
        train.extend_from_slice(&g[t..]);
    }
    if task == Task::Binary {
        // interleave the classes again (a seeded shuffle) so CV folds are mixed
        train.shuffle(&mut rng);
    }
    (train, test)
}

/// Errors of one method on one split's test part.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SplitScore {
    /// MSE (regression) or log-loss (binary).
    pub error: f64,
    /// AUC (binary).
    pub auc: Option<f64>,
    pub seconds: f64,
}

fn score(task: Task, pred: &[f64], y: &[f64], seconds: f64) -> SplitScore {
    match task {
        Task::Regression => SplitScore {
            error: crate::model::mse(pred, y),
            auc: None,
            seconds,
        },
        Task::Binary => SplitScore {
            error: floors::log_loss(pred, y),
            auc: Some(floors::auc(pred, y)),
            seconds,
        },
    }
}

/// How a fit ended.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    Ok(SplitScore, Option<String>),
    Failed(String),
    TimedOut,
}

/// The payload of the time-cap unwind.
struct TimeUp;

/// An observer that abandons the fit (by unwinding with [`TimeUp`], caught in
/// [`run_fit`]) at the first iteration after the deadline.
struct Deadline(Instant);

impl Observer for Deadline {
    fn on_iteration(&mut self, _iteration: usize) {
        if Instant::now() >= self.0 {
            std::panic::resume_unwind(Box::new(TimeUp));
        }
    }
}

/// One pipeline fit on `train`, scored on `test`.
fn run_fit(
    train: &Dataset,
    test: &Dataset,
    task: Task,
    opts: &FitOptions,
    seed: u64,
    cap: f64,
) -> Outcome {
    let t0 = Instant::now();
    let mut obs = Deadline(t0 + Duration::from_secs_f64(cap));
    let mut rng = rng_from_seed(seed);
    let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pipeline::fit(train.clone(), opts, &mut rng, &mut obs)
    }));
    let secs = t0.elapsed().as_secs_f64();
    match res {
        Err(payload) if payload.is::<TimeUp>() => Outcome::TimedOut,
        Err(payload) => std::panic::resume_unwind(payload),
        Ok(Err(e)) => Outcome::Failed(e),
        Ok(Ok(out)) => {
            if secs > cap {
                return Outcome::TimedOut;
            }
            let pred = out.model.predict(test);
            if pred.iter().any(|p| !p.is_finite()) {
                return Outcome::Failed("non-finite prediction".into());
            }
            let picked = out
                .model
                .selected
                .as_ref()
                .and_then(|s| s.get("algorithm"))
                .and_then(|a| a.as_str())
                .map(String::from);
            Outcome::Ok(score(task, &pred, test.y(), secs), picked)
        }
    }
}

/// The non-private floor of a dataset shape.
pub fn floor_kind(task: Task, n_train: usize, d: usize) -> &'static str {
    match task {
        Task::Regression if d >= n_train => "lasso-cv",
        Task::Regression => "ridge",
        Task::Binary => "logistic-cv",
    }
}

/// Fits the floor on `train` and returns the test predictions and its hyperparameter.
fn floor_predict(task: Task, train: &Dataset, test: &Dataset) -> (Vec<f64>, String, f64) {
    let d = train.d();
    let t0 = Instant::now();
    let (model, hyper): (Affine, String) = match floor_kind(task, train.n(), d) {
        "ridge" => {
            let m = floors::ridge(train.x(), train.y(), d, FLOOR_RIDGE)
                .or_else(|| floors::ridge(train.x(), train.y(), d, 1e-3))
                .expect("a ridge system with a positive penalty is positive definite");
            (m, format!("lambda={FLOOR_RIDGE}"))
        }
        "lasso-cv" => {
            let (m, l) = floors::lasso_cv(train.x(), train.y(), d, FLOOR_FOLDS);
            (m, format!("lambda={l:.4e}"))
        }
        _ => {
            let (m, c) = floors::logistic_cv(train.x(), train.y(), d, FLOOR_FOLDS);
            (m, format!("C={c}"))
        }
    };
    let mut pred = model.margins(test.x());
    if task == Task::Binary {
        pred.iter_mut().for_each(|m| *m = floors::probability(*m));
    }
    (pred, hyper, t0.elapsed().as_secs_f64())
}

/// One dataset's split: its training and test parts and the reference scores.
struct Split {
    train: Dataset,
    test: Dataset,
    constant: SplitScore,
    floor: SplitScore,
    floor_hyper: String,
}

/// One (dataset, ε, method, metric) summary row. Constant and floor rows have ε = ∞.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchRow {
    pub dataset: String,
    pub epsilon: f64,
    pub method: String,
    pub metric: String,
    /// The metric over the splits (split order; failed splits left out).
    #[serde(flatten)]
    pub summary: Summary,
}

/// A fit that did not produce a score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchFailure {
    pub dataset: String,
    pub epsilon: f64,
    pub method: String,
    pub split: usize,
    pub error: String,
}

/// A dataset as used.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetInfo {
    pub name: String,
    pub task: Task,
    pub path: String,
    pub n: usize,
    pub d: usize,
    pub n_train: usize,
    pub n_test: usize,
    pub subsample: Option<usize>,
    pub floor: String,
    pub floor_hyperparameters: Vec<String>,
    pub methods: Vec<String>,
    /// Methods skipped on the dataset and why.
    pub skipped: BTreeMap<String, String>,
    /// What `auto` picked, per ε.
    pub auto_choice: BTreeMap<String, String>,
    pub seconds: f64,
}

/// The whole benchmark.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchResults {
    pub options: BenchOptions,
    pub data_dir: String,
    pub sets: Vec<SetInfo>,
    pub rows: Vec<BenchRow>,
    pub failures: Vec<BenchFailure>,
    pub total_seconds: f64,
}

impl BenchResults {
    /// Appends another run's datasets (the CLI runs one dataset at a time).
    pub fn merge(&mut self, other: BenchResults) {
        self.sets.extend(other.sets);
        self.rows.extend(other.rows);
        self.failures.extend(other.failures);
        self.total_seconds += other.total_seconds;
    }

    /// The row of (dataset, ε, method, metric), if any (ε ignored for constant/floor).
    pub fn row(
        &self,
        dataset: &str,
        epsilon: f64,
        method: &str,
        metric: &str,
    ) -> Option<&BenchRow> {
        self.rows.iter().find(|r| {
            r.dataset == dataset
                && r.method == method
                && r.metric == metric
                && (r.epsilon == epsilon || (r.epsilon.is_infinite() && is_reference(method)))
        })
    }
}

fn is_reference(method: &str) -> bool {
    method == "constant" || method == "floor"
}

/// Runs the benchmark (on the current rayon pool). `progress` receives one-line status
/// messages (public: names, sizes, timings).
pub fn run_benchmark(
    opts: &BenchOptions,
    dir: &Path,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<BenchResults, ExperimentError> {
    if opts.splits == 0 {
        return Err(ExperimentError::Invalid {
            id: ID.into(),
            reason: "at least one split is needed".into(),
        });
    }
    let start = Instant::now();
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    let mut infos = Vec::new();
    for set in &opts.sets {
        let t_set = Instant::now();
        let path = dir.join(set.file());
        let path_s = path.to_string_lossy().to_string();
        let mut data = read_csv(&path_s, "y")?;
        let sub = opts.subsample.get(set.name).copied();
        if let Some(m) = sub.filter(|m| *m < data.n()) {
            let mut idx: Vec<usize> = (0..data.n()).collect();
            idx.shuffle(&mut rng_from_seed(derive_seed(
                opts.base_seed,
                &[ID, set.name, "subsample"],
            )));
            idx.truncate(m);
            idx.sort_unstable();
            data = data.select_rows(&idx);
        }
        let (n, d) = (data.n(), data.d());
        // splits, constant and floor
        let splits: Vec<Split> = (0..opts.splits)
            .into_par_iter()
            .map(|k| {
                let seed = derive_seed(opts.base_seed, &[ID, set.name, "split", &k.to_string()]);
                let (tr, te) = split_indices(data.y(), set.task, seed);
                let train = data.select_rows(&tr);
                let test = data.select_rows(&te);
                let t0 = Instant::now();
                let c = train.y().iter().sum::<f64>() / train.n() as f64;
                let constant = score(
                    set.task,
                    &vec![c; test.n()],
                    test.y(),
                    t0.elapsed().as_secs_f64(),
                );
                let (fp, floor_hyper, fs) = floor_predict(set.task, &train, &test);
                let floor = score(set.task, &fp, test.y(), fs);
                Split {
                    train,
                    test,
                    constant,
                    floor,
                    floor_hyper,
                }
            })
            .collect();
        let n_train = splits[0].train.n();
        let floor = floor_kind(set.task, n_train, d);
        progress(&format!(
            "{}: n = {n}, d = {d}, {} splits; floor ({floor}) and constant done in {:.1} s",
            set.name,
            opts.splits,
            t_set.elapsed().as_secs_f64()
        ));
        let methods = private_methods(set.task, opts);
        let eps0 = opts.epsilons[0];
        let method_seed = |m: &str, e: f64, k: usize| {
            derive_seed(
                opts.base_seed,
                &[
                    ID,
                    set.name,
                    "split",
                    &k.to_string(),
                    "method",
                    m,
                    &format!("{e}"),
                ],
            )
        };
        let job = |m: &str, e: f64, k: usize| -> Outcome {
            let fo = fit_options(m, set.task, d, e, method_seed(m, e, k));
            run_fit(
                &splits[k].train,
                &splits[k].test,
                set.task,
                &fo,
                fo.seed.unwrap_or(0),
                opts.time_cap,
            )
        };
        // pilot: split 0 at the smallest budget, every method in parallel
        let pilots: Vec<Outcome> = methods.par_iter().map(|m| job(m, eps0, 0)).collect();
        let mut skipped = BTreeMap::new();
        let mut outcomes: BTreeMap<(String, u64, usize), Outcome> = BTreeMap::new();
        for (m, o) in methods.iter().zip(pilots) {
            if o == Outcome::TimedOut {
                skipped.insert(
                    m.clone(),
                    format!(
                        "too slow: the first fit (split 0, epsilon = {eps0}) exceeded the {} s cap",
                        opts.time_cap
                    ),
                );
            }
            outcomes.insert((m.clone(), eps0.to_bits(), 0), o);
        }
        let jobs: Vec<(String, f64, usize)> = methods
            .iter()
            .filter(|m| !skipped.contains_key(*m))
            .flat_map(|m| {
                opts.epsilons.iter().flat_map(move |&e| {
                    (0..opts.splits)
                        .filter(move |&k| !(e == eps0 && k == 0))
                        .map(move |k| (m.clone(), e, k))
                })
            })
            .collect();
        let rest: Vec<Outcome> = jobs.par_iter().map(|(m, e, k)| job(m, *e, *k)).collect();
        for ((m, e, k), o) in jobs.into_iter().zip(rest) {
            outcomes.insert((m, e.to_bits(), k), o);
        }
        // rows
        let metrics_ref =
            |s: &[&SplitScore], label: &str, rows: &mut Vec<BenchRow>, eps: f64, idx: &[usize]| {
                let push = |rows: &mut Vec<BenchRow>, metric: &str, vals: Vec<f64>| {
                    rows.push(BenchRow {
                        dataset: set.name.into(),
                        epsilon: eps,
                        method: label.into(),
                        metric: metric.into(),
                        summary: Summary::of(vals),
                    });
                };
                let err_name = if set.task == Task::Regression {
                    "mse"
                } else {
                    "log_loss"
                };
                push(rows, err_name, s.iter().map(|v| v.error).collect());
                if set.task == Task::Binary {
                    push(
                        rows,
                        "auc",
                        s.iter().map(|v| v.auc.unwrap_or(f64::NAN)).collect(),
                    );
                    push(
                        rows,
                        "auc_gap",
                        s.iter()
                            .zip(idx)
                            .map(|(v, &k)| {
                                splits[k].floor.auc.unwrap_or(f64::NAN) - v.auc.unwrap_or(f64::NAN)
                            })
                            .collect(),
                    );
                }
                push(
                    rows,
                    "ratio_to_floor",
                    s.iter()
                        .zip(idx)
                        .map(|(v, &k)| v.error / splits[k].floor.error)
                        .collect(),
                );
                push(
                    rows,
                    "gain_kept",
                    s.iter()
                        .zip(idx)
                        .map(|(v, &k)| {
                            gain_kept(splits[k].constant.error, splits[k].floor.error, v.error)
                        })
                        .collect(),
                );
                push(rows, "seconds", s.iter().map(|v| v.seconds).collect());
            };
        let all: Vec<usize> = (0..opts.splits).collect();
        metrics_ref(
            &splits.iter().map(|s| &s.constant).collect::<Vec<_>>(),
            "constant",
            &mut rows,
            f64::INFINITY,
            &all,
        );
        metrics_ref(
            &splits.iter().map(|s| &s.floor).collect::<Vec<_>>(),
            "floor",
            &mut rows,
            f64::INFINITY,
            &all,
        );
        let mut auto_choice = BTreeMap::new();
        for m in methods.iter().filter(|m| !skipped.contains_key(*m)) {
            for &e in &opts.epsilons {
                let mut ok = Vec::new();
                let mut idx = Vec::new();
                for k in 0..opts.splits {
                    match outcomes.get(&(m.clone(), e.to_bits(), k)) {
                        Some(Outcome::Ok(s, picked)) => {
                            ok.push(*s);
                            idx.push(k);
                            if let (Some(p), true) = (picked, m == "auto") {
                                auto_choice
                                    .entry(format!("{e}"))
                                    .or_insert_with(|| p.clone());
                            }
                        }
                        Some(Outcome::Failed(err)) => failures.push(BenchFailure {
                            dataset: set.name.into(),
                            epsilon: e,
                            method: m.clone(),
                            split: k,
                            error: err.clone(),
                        }),
                        Some(Outcome::TimedOut) => failures.push(BenchFailure {
                            dataset: set.name.into(),
                            epsilon: e,
                            method: m.clone(),
                            split: k,
                            error: format!("timed out (cap {} s)", opts.time_cap),
                        }),
                        None => {}
                    }
                }
                if !ok.is_empty() {
                    metrics_ref(&ok.iter().collect::<Vec<_>>(), m, &mut rows, e, &idx);
                }
            }
        }
        let secs = t_set.elapsed().as_secs_f64();
        progress(&format!(
            "{}: {} methods x {} epsilon x {} splits in {secs:.1} s{}",
            set.name,
            methods.len(),
            opts.epsilons.len(),
            opts.splits,
            if skipped.is_empty() {
                String::new()
            } else {
                format!(
                    "; skipped (time cap): {}",
                    skipped.keys().cloned().collect::<Vec<_>>().join(", ")
                )
            }
        ));
        infos.push(SetInfo {
            name: set.name.into(),
            task: set.task,
            path: path_s,
            n,
            d,
            n_train,
            n_test: splits[0].test.n(),
            subsample: sub,
            floor: floor.into(),
            floor_hyperparameters: splits.iter().map(|s| s.floor_hyper.clone()).collect(),
            methods,
            skipped,
            auto_choice,
            seconds: secs,
        });
    }
    Ok(BenchResults {
        options: opts.clone(),
        data_dir: dir.to_string_lossy().to_string(),
        sets: infos,
        rows,
        failures,
        total_seconds: start.elapsed().as_secs_f64(),
    })
}

/// (err_const − err) / (err_const − err_floor); NaN when the floor does not beat the
/// constant.
pub fn gain_kept(err_const: f64, err_floor: f64, err: f64) -> f64 {
    let den = err_const - err_floor;
    if den > 0.0 {
        (err_const - err) / den
    } else {
        f64::NAN
    }
}

fn num(v: f64) -> String {
    if v.is_finite() {
        crate::data::format_float(v)
    } else if v.is_nan() {
        "NaN".into()
    } else if v > 0.0 {
        "inf".into()
    } else {
        "-inf".into()
    }
}

/// `results.csv`: `dataset,task,n,d,epsilon,method,metric,mean,std,reps` (constant and
/// floor rows: epsilon = inf).
pub fn results_csv(r: &BenchResults) -> String {
    let mut s = String::from("dataset,task,n,d,epsilon,method,metric,mean,std,reps\n");
    for row in &r.rows {
        let info = r.sets.iter().find(|i| i.name == row.dataset);
        let (task, n, d) = info
            .map(|i| {
                (
                    if i.task == Task::Regression {
                        "regression"
                    } else {
                        "binary"
                    },
                    i.n,
                    i.d,
                )
            })
            .unwrap_or(("", 0, 0));
        s.push_str(&format!(
            "{},{task},{n},{d},{},{},{},{},{},{}\n",
            row.dataset,
            num(row.epsilon),
            row.method,
            row.metric,
            num(row.summary.mean),
            num(row.summary.std),
            row.summary.reps
        ));
    }
    s
}

fn pm(row: Option<&BenchRow>, digits: usize) -> String {
    match row.map(|r| &r.summary) {
        Some(s) if s.reps > 0 && s.mean.is_finite() => {
            format!("{:.digits$} ± {:.digits$}", s.mean, s.std)
        }
        _ => "–".into(),
    }
}

fn err_fmt(v: f64) -> String {
    if !v.is_finite() {
        "–".into()
    } else if v != 0.0 && (v.abs() >= 1e4 || v.abs() < 1e-2) {
        format!("{v:.3e}")
    } else {
        format!("{v:.4}")
    }
}

/// The best private default of (dataset, ε): the catalogue algorithm (auto and
/// intercept-only excluded) with the largest mean gain kept. Chosen on the test results —
/// an oracle choice, optimistic by construction.
pub fn best_private<'a>(r: &'a BenchResults, dataset: &str, epsilon: f64) -> Option<&'a BenchRow> {
    r.rows
        .iter()
        .filter(|x| {
            x.dataset == dataset
                && x.epsilon == epsilon
                && x.metric == "gain_kept"
                && x.method != "auto"
                && x.method != INTERCEPT_ONLY
                && !is_reference(&x.method)
                && x.summary.mean.is_finite()
        })
        .max_by(|a, b| a.summary.mean.total_cmp(&b.summary.mean))
}

/// `table.md`: the summary table (per dataset × ε: floor, constant, best private
/// default, auto, adassp, intercept-only; gain kept mean ± sd over splits), AUC for the
/// binary sets, the goals of issue 14, every method's gain kept, timings, skips and
/// failures.
pub fn table_markdown(r: &BenchResults) -> String {
    let mut s = String::new();
    let o = &r.options;
    s.push_str(&format!(
        "# {ID}{}\n\n{} splits (80/20{}), epsilon in {{{}}}, delta = n_train^-1.1 where needed; private fits through the pipeline defaults (private scales and intercept). Gain kept = (err_const - err)/(err_const - err_floor), mean ± sd over splits; error = MSE (regression) or log-loss (binary). Per-fit time cap {} s.\n\n",
        if o.quick { " (--quick)" } else { "" },
        o.splits,
        ", stratified for the binary sets",
        o.epsilons.iter().map(|e| format!("{e}")).collect::<Vec<_>>().join(", "),
        o.time_cap
    ));
    s.push_str("## Summary\n\n| dataset (n, d) | ε | floor error | constant error | best private default: gain kept | auto: gain kept | adassp: gain kept | intercept-only: gain kept |\n|---|---|---|---|---|---|---|---|\n");
    for info in &r.sets {
        let err = if info.task == Task::Regression {
            "mse"
        } else {
            "log_loss"
        };
        for &e in &o.epsilons {
            let f = r.row(&info.name, e, "floor", err);
            let c = r.row(&info.name, e, "constant", err);
            let best = best_private(r, &info.name, e)
                .map(|b| format!("{}: {}", b.method, pm(Some(b), 3)))
                .unwrap_or_else(|| "–".into());
            let auto = format!(
                "{}{}",
                pm(r.row(&info.name, e, "auto", "gain_kept"), 3),
                info.auto_choice
                    .get(&format!("{e}"))
                    .map(|a| format!(" ({a})"))
                    .unwrap_or_default()
            );
            s.push_str(&format!(
                "| {} ({}, {}) | {e} | {} ({}) | {} | {best} | {auto} | {} | {} |\n",
                info.name,
                info.n,
                info.d,
                f.map(|x| err_fmt(x.summary.mean))
                    .unwrap_or_else(|| "–".into()),
                info.floor,
                c.map(|x| err_fmt(x.summary.mean))
                    .unwrap_or_else(|| "–".into()),
                pm(r.row(&info.name, e, "adassp", "gain_kept"), 3),
                pm(r.row(&info.name, e, INTERCEPT_ONLY, "gain_kept"), 3),
            ));
        }
    }
    if r.sets.iter().any(|i| i.task == Task::Binary) {
        s.push_str("\n## AUC (binary sets)\n\n| dataset | ε | floor | constant | best private default | auto | intercept-only |\n|---|---|---|---|---|---|---|\n");
        for info in r.sets.iter().filter(|i| i.task == Task::Binary) {
            for &e in &o.epsilons {
                let best = best_private(r, &info.name, e)
                    .map(|b| {
                        format!(
                            "{}: {}",
                            b.method,
                            pm(r.row(&info.name, e, &b.method, "auc"), 3)
                        )
                    })
                    .unwrap_or_else(|| "–".into());
                s.push_str(&format!(
                    "| {} | {e} | {} | {} | {best} | {} | {} |\n",
                    info.name,
                    pm(r.row(&info.name, e, "floor", "auc"), 3),
                    pm(r.row(&info.name, e, "constant", "auc"), 3),
                    pm(r.row(&info.name, e, "auto", "auc"), 3),
                    pm(r.row(&info.name, e, INTERCEPT_ONLY, "auc"), 3),
                ));
            }
        }
    }
    s.push_str(&goals_markdown(r));
    // every method
    s.push_str("\n## Every method: gain kept (mean ± sd over splits)\n\n");
    for info in &r.sets {
        s.push_str(&format!(
            "\n### {} ({}, n = {}, d = {}, n_train = {}{})\n\n| method | {} | mean seconds per fit |\n|---|{}---|\n",
            info.name,
            if info.task == Task::Regression { "regression" } else { "binary" },
            info.n,
            info.d,
            info.n_train,
            info.subsample.map(|m| format!(", subsample of {m} rows")).unwrap_or_default(),
            o.epsilons.iter().map(|e| format!("ε = {e}")).collect::<Vec<_>>().join(" | "),
            "---|".repeat(o.epsilons.len())
        ));
        for m in &info.methods {
            if let Some(why) = info.skipped.get(m) {
                s.push_str(&format!(
                    "| {m} | {} | – |\n",
                    vec![format!("skipped: {why}"); o.epsilons.len()].join(" | ")
                ));
                continue;
            }
            let cells: Vec<String> = o
                .epsilons
                .iter()
                .map(|&e| {
                    let row = r.row(&info.name, e, m, "gain_kept");
                    match row {
                        Some(x) if x.summary.reps > 0 => format!(
                            "{}{}",
                            pm(Some(x), 3),
                            if x.summary.reps < o.splits {
                                format!(" ({}/{} splits)", x.summary.reps, o.splits)
                            } else {
                                String::new()
                            }
                        ),
                        _ => {
                            let f = r.failures.iter().find(|f| {
                                f.dataset == info.name && f.method == *m && f.epsilon == e
                            });
                            format!(
                                "failed: {}",
                                f.map(|f| f.error.replace('|', "/")).unwrap_or_default()
                            )
                        }
                    }
                })
                .collect();
            let secs: Vec<f64> = o
                .epsilons
                .iter()
                .filter_map(|&e| r.row(&info.name, e, m, "seconds").map(|x| x.summary.mean))
                .collect();
            s.push_str(&format!(
                "| {m} | {} | {} |\n",
                cells.join(" | "),
                if secs.is_empty() {
                    "–".into()
                } else {
                    format!("{:.2}", mean_sd(&secs).0)
                }
            ));
        }
        s.push_str(&format!(
            "| floor ({}; {}) | 1 (by definition) | {:.2} |\n| constant | 0 (by definition) | – |\n",
            info.floor,
            info.floor_hyperparameters.join(", "),
            r.row(&info.name, 0.0, "floor", "seconds").map(|x| x.summary.mean).unwrap_or(f64::NAN)
        ));
    }
    s
}

/// The goals of issue 14 ("Done means") checked on `r` (missing data → "not run").
pub fn goals_markdown(r: &BenchResults) -> String {
    let mut s =
        String::from("\n## Goals of issue 14\n\n| goal | measured | met? |\n|---|---|---|\n");
    let has = |name: &str| r.sets.iter().any(|i| i.name == name);
    let has_eps = |e: f64| r.options.epsilons.contains(&e);
    for set in ["flights_arr_delay", "gss_wages_realrinc", "cps1988_wage"] {
        if !has(set) {
            continue;
        }
        for (e, target) in [(1.0, 0.7), (2.0, 0.9)] {
            if !has_eps(e) {
                continue;
            }
            for who in ["best private default", "auto"] {
                let row = if who == "auto" {
                    r.row(set, e, "auto", "gain_kept")
                } else {
                    best_private(r, set, e)
                };
                let (measured, met) = match row {
                    Some(x) if x.summary.reps > 0 && x.summary.mean.is_finite() => (
                        format!(
                            "{} {:.3}",
                            if who == "auto" {
                                "auto".to_string()
                            } else {
                                x.method.clone()
                            },
                            x.summary.mean
                        ),
                        if x.summary.mean >= target {
                            "yes".to_string()
                        } else {
                            format!("no (short by {:.3})", target - x.summary.mean)
                        },
                    ),
                    _ => ("not run".into(), "–".into()),
                };
                s.push_str(&format!(
                    "| {set}, ε = {e}: {who} keeps ≥ {target} of the gain | {measured} | {met} |\n"
                ));
            }
        }
    }
    if has("cells_ps") && has_eps(2.0) {
        let g = r
            .row("cells_ps", 2.0, "auto", "gain_kept")
            .map(|x| &x.summary);
        let a = r
            .row("cells_ps", 2.0, "auto", "auc_gap")
            .map(|x| &x.summary);
        let (measured, met) = match (g, a) {
            (Some(g), Some(a)) if g.reps > 0 => (
                format!("gain kept {:.3}, AUC gap {:.3}", g.mean, a.mean),
                match (g.mean >= 0.5, a.mean <= 0.05) {
                    (true, true) => "yes".to_string(),
                    (gm, am) => format!(
                        "no ({}{})",
                        if gm {
                            String::new()
                        } else {
                            format!("gain short by {:.3}", 0.5 - g.mean)
                        },
                        if am {
                            String::new()
                        } else {
                            format!(
                                "{}AUC gap over by {:.3}",
                                if gm { "" } else { "; " },
                                a.mean - 0.05
                            )
                        }
                    ),
                },
            ),
            _ => ("not run".into(), "–".into()),
        };
        s.push_str(&format!(
            "| cells_ps, ε = 2: auto keeps ≥ 0.5 of the log-loss gain with AUC within 0.05 of the floor | {measured} | {met} |\n"
        ));
    }
    for set in ["bladderbatch_krt19", "pd_speech_pd"] {
        if !has(set) {
            continue;
        }
        // worst ratio err_auto / err_const over every split and ε
        let mut worst = f64::NAN;
        let c = r.row(
            set,
            0.0,
            "constant",
            if set == "pd_speech_pd" {
                "log_loss"
            } else {
                "mse"
            },
        );
        let err = if set == "pd_speech_pd" {
            "log_loss"
        } else {
            "mse"
        };
        let mut n = 0;
        for &e in &r.options.epsilons {
            if let (Some(a), Some(c)) = (r.row(set, e, "auto", err), c) {
                // values are aligned by split only when auto succeeded on every split
                if a.summary.reps == c.summary.reps {
                    for (x, y) in a.summary.values.iter().zip(&c.summary.values) {
                        let q = x / y;
                        worst = if worst.is_nan() { q } else { worst.max(q) };
                        n += 1;
                    }
                }
            }
        }
        let (measured, met) = if n == 0 {
            ("not run".into(), "–".into())
        } else {
            (
                format!("worst err_auto / err_const over {n} (split, ε) = {worst:.4}"),
                if worst <= 1.05 {
                    "yes".to_string()
                } else {
                    format!("no (over by {:.1} %)", (worst - 1.05) * 100.0)
                },
            )
        };
        s.push_str(&format!(
            "| {set}: auto never worse than the constant by more than 5 % | {measured} | {met} |\n"
        ));
    }
    s
}

/// The figure's data: one group per (dataset, method) for the best private default,
/// auto, adassp and intercept-only; one bar per ε; value = mean gain kept ± sd, clamped
/// to [`FIGURE_FLOOR`, 1.5] (the table has the unclamped values).
pub fn figure_groups(r: &BenchResults) -> (Vec<String>, Vec<Vec<(f64, f64)>>) {
    let mut groups = Vec::new();
    let mut values = Vec::new();
    for info in &r.sets {
        let mut ms: Vec<String> = Vec::new();
        // the best private default at the largest ε names the group
        if let Some(b) = r
            .options
            .epsilons
            .last()
            .and_then(|&e| best_private(r, &info.name, e))
        {
            ms.push(b.method.clone());
        }
        for m in ["auto", "adassp", INTERCEPT_ONLY] {
            if info.methods.iter().any(|x| x == m) && !ms.iter().any(|x| x == m) {
                ms.push(m.into());
            }
        }
        for m in ms {
            groups.push(format!("{}: {m}", short_name(&info.name)));
            values.push(
                r.options
                    .epsilons
                    .iter()
                    .map(|&e| {
                        r.row(&info.name, e, &m, "gain_kept")
                            .map(|x| &x.summary)
                            .filter(|s| s.reps > 0)
                            .map(|s| {
                                let m = s.mean.clamp(FIGURE_FLOOR, 1.5);
                                // no whisker on a clamped bar
                                (m, if m == s.mean { s.std.min(1.0) } else { 0.0 })
                            })
                            .unwrap_or((f64::NAN, 0.0))
                    })
                    .collect(),
            );
        }
    }
    (groups, values)
}

/// Lower clamp of the figure's bars.
pub const FIGURE_FLOOR: f64 = -1.0;

fn short_name(s: &str) -> &str {
    s.split('_').next().unwrap_or(s)
}

/// `summary.json`.
pub fn summary(r: &BenchResults, run: Value) -> Value {
    json!({
        "format": "heavydp-experiment/1",
        "id": ID,
        "protocol": {
            "splits": format!("{} fixed 80/20 splits; split k permutes the rows with derive_seed(base_seed, ['{ID}', dataset, 'split', k]); binary sets stratified by label", r.options.splits),
            "budgets": "epsilon grid; delta = n_train^-1.1 for (epsilon, delta) and zCDP algorithms (the pipeline default)",
            "private_fits": "heavydp::pipeline::fit with FitOptions::new(method, epsilon): private scales, private intercept, default preprocessing share; --loss logistic for the binary sets; sparse-domain algorithms get the public sparsity min(10, floor(d/2))",
            "method_seed": "derive_seed(base_seed, ['real-benchmark', dataset, 'split', k, 'method', method, epsilon])",
            "floors": format!("non-private, plain Rust (experiments::floors): ridge lambda = {FLOOR_RIDGE} with intercept on standardised columns (d < n), LassoCV ({FLOOR_FOLDS}-fold, 30 lambdas) for d >= n, L2 logistic with intercept, C in {{0.01, 0.1, 1, 10}} by {FLOOR_FOLDS}-fold CV log-loss"),
            "constant": "training mean (regression), training class frequency (binary)",
            "metrics": "mse | log_loss, auc, auc_gap = floor AUC - AUC, ratio_to_floor = err / err_floor, gain_kept = (err_const - err)/(err_const - err_floor), seconds per fit",
            "time_cap": format!("{} s per fit, enforced at the next iteration callback; a method whose pilot (split 0, smallest epsilon) times out is skipped on the dataset", r.options.time_cap),
            "best_private_default": "the catalogue algorithm with the largest mean gain kept at (dataset, epsilon), chosen on the test results (oracle, optimistic)",
        },
        "results": r,
        "run": run,
        "heavydp_version": crate::VERSION,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_are_disjoint_complete_and_stratified() {
        let y: Vec<f64> = (0..103)
            .map(|i| if i % 4 == 0 { 0.0 } else { 1.0 })
            .collect();
        let (tr, te) = split_indices(&y, Task::Binary, 7);
        let mut all: Vec<usize> = tr.iter().chain(&te).copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..103).collect::<Vec<_>>());
        let zeros = y.iter().filter(|v| **v == 0.0).count();
        let te0 = te.iter().filter(|&&i| y[i] == 0.0).count();
        assert_eq!(te0, ((zeros as f64) * TEST_SHARE).round() as usize);
        assert_eq!(
            te.len() - te0,
            (((103 - zeros) as f64) * TEST_SHARE).round() as usize
        );
        // same seed, same split; another seed, another split
        assert_eq!(split_indices(&y, Task::Binary, 7), (tr.clone(), te.clone()));
        assert_ne!(split_indices(&y, Task::Binary, 8).1, te);
        let (tr, te) = split_indices(&y, Task::Regression, 1);
        assert_eq!(te.len(), 21);
        assert_eq!(tr.len(), 82);
    }

    #[test]
    fn gain_kept_is_the_share_of_the_floor_gain() {
        assert_eq!(gain_kept(10.0, 2.0, 2.0), 1.0);
        assert_eq!(gain_kept(10.0, 2.0, 10.0), 0.0);
        assert_eq!(gain_kept(10.0, 2.0, 6.0), 0.5);
        assert_eq!(gain_kept(10.0, 2.0, 18.0), -1.0);
        assert!(gain_kept(1.0, 1.0, 0.5).is_nan());
    }

    #[test]
    fn methods_follow_the_catalogue_and_the_task() {
        let o = BenchOptions::new(false, 1);
        let reg = private_methods(Task::Regression, &o);
        let bin = private_methods(Task::Binary, &o);
        assert_eq!(&reg[..2], ["auto", INTERCEPT_ONLY]);
        for m in [
            "clipped-gd",
            "ht-lasso",
            "dp-iht-huber",
            "dp-iht-l1",
            "ht-sparse-linreg",
        ] {
            assert!(reg.iter().any(|x| x == m), "{m}");
        }
        // non-private algorithms are floors only
        assert!(!reg.iter().any(|x| x == "frank-wolfe" || x == "adahuber"));
        // classification: logistic-capable only
        assert!(bin.iter().any(|x| x == "objective-perturbation"));
        assert!(!bin.iter().any(|x| x == "ht-lasso" || x == "dp-iht-l1"));
        let q = BenchOptions::new(true, 1);
        assert!(private_methods(Task::Binary, &q).len() <= 5);
        assert_eq!(public_sparsity(8), 4);
        assert_eq!(public_sparsity(751), 10);
        assert_eq!(public_sparsity(1), 1);
        let fo = fit_options("ht-sparse-linreg", Task::Regression, 30, 1.0, 3);
        assert_eq!(fo.sparsity, Some(10));
        assert_eq!(
            fit_options("auto", Task::Binary, 30, 1.0, 3)
                .loss
                .as_deref(),
            Some("logistic")
        );
    }

    #[test]
    fn options_parse_and_reject() {
        let mut o = BenchOptions::new(false, 1);
        let p: ParamMap = [
            ("time_cap".to_string(), "5".to_string()),
            ("sets".to_string(), "cells_ps,cps1988_wage".to_string()),
            ("methods".to_string(), "auto,clipped-gd".to_string()),
            ("epsilons".to_string(), "1,2".to_string()),
        ]
        .into_iter()
        .collect();
        o.apply_params(&p).unwrap();
        assert_eq!(o.time_cap, 5.0);
        assert_eq!(o.sets.len(), 2);
        assert_eq!(o.epsilons, vec![1.0, 2.0]);
        for (k, v) in [
            ("time_cap", "-1"),
            ("sets", "nope"),
            ("methods", "zzz"),
            ("colour", "red"),
        ] {
            let p: ParamMap = [(k.to_string(), v.to_string())].into_iter().collect();
            assert!(
                BenchOptions::new(false, 1).apply_params(&p).is_err(),
                "{k}={v}"
            );
        }
    }

    #[test]
    fn a_missing_folder_or_file_is_a_clear_error() {
        let e = data_dir(Some(Path::new("/nonexistent-dir")), &SETS).unwrap_err();
        assert!(e.to_string().contains("--data-dir"), "{e}");
    }

    #[test]
    fn the_deadline_observer_abandons_a_fit() {
        // a cap of 0 s: the first iteration callback unwinds, run_fit reports a timeout
        let mut rng = rng_from_seed(1);
        use rand::Rng;
        let (n, d) = (400, 3);
        let x: Vec<f64> = (0..n * d).map(|_| rng.random::<f64>()).collect();
        let y: Vec<f64> = x.chunks(d).map(|r| r[0] + rng.random::<f64>()).collect();
        let data = Dataset::from_rows(x, y, d).unwrap();
        let o = fit_options("ht-frank-wolfe", Task::Regression, d, 1.0, 1);
        assert_eq!(
            run_fit(&data, &data, Task::Regression, &o, 1, 0.0),
            Outcome::TimedOut
        );
        match run_fit(&data, &data, Task::Regression, &o, 1, 60.0) {
            Outcome::Ok(s, _) => assert!(s.error.is_finite()),
            other => panic!("{other:?}"),
        }
    }
}
