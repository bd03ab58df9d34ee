//! `real-benchmark`: every applicable private algorithm of the library, `auto`, the
//! private intercept-only model, the constant predictor and non-private floors on a
//! folder of real tables — the six heavy-tailed datasets of `../shared/data/real/` or any
//! folder in the same format, such as the 24 tables of `../shared/data/suite/`. Every
//! private fit goes through the library's one fit pipeline ([`crate::pipeline::fit`],
//! with its defaults: private scales, private intercept, default preprocessing share,
//! δ = n^−1.1 where the algorithm needs δ).
//!
//! # Protocol
//!
//! * **Data.** A folder of tables: CSV with a header, numeric only, the response in the
//!   column `y` (the first column in the suite format). When every `*.csv` of the folder
//!   is one of the six sets of `../shared/data/real/` ([`SETS`]), the run uses those sets
//!   by name and in their fixed order: `flights_arr_delay`, `gss_wages_realrinc`,
//!   `cps1988_wage` (regression), `bladderbatch_krt19` (regression, d ≫ n), `cells_ps`
//!   and `pd_speech_pd` (binary, labels {0, 1}). Any other folder is read generically:
//!   every `*.csv` in it, sorted by file name, named by the file stem; the task is
//!   binary when `y` takes only the values 0 and 1, else regression ([`task_of`]).
//! * **Design and confirm halves** ([`halves`]): within each task the folder's tables are
//!   ranked by (n, file name); ranks 0, 2, 4, … form the *design* half, ranks 1, 3, 5, …
//!   the *confirm* half. The rule uses only the file names, the number of rows and the
//!   task, is computed over every table of the folder (a `tables=` selection does not
//!   move a table to the other half), and pairs tables of neighbouring n, so both halves
//!   span the same range of n. Defaults are to be chosen on the design half and
//!   confirmed on the other; the summary over tables reports each half separately.
//! * **Splits.** 5 fixed 80/20 splits. Split k permutes the rows with the public seed
//!   `derive_seed(base_seed, ["real-benchmark", table, "split", k])`; the test part is the
//!   first ⌊0.2·n + ½⌋ rows of the permutation (binary sets: stratified — the same share
//!   of each label). The training rows stay in permuted order. Tables with more than
//!   `large_n` rows (default 50 000) can be given fewer splits (`large_splits=K`: splits
//!   0..K, the same as the first K of the full protocol).
//! * **Budgets.** ε ∈ {0.5, 1, 2}; δ the pipeline's default n_train^−1.1 for (ε, δ) and
//!   zCDP algorithms.
//! * **Methods.** Every algorithm of [`crate::algorithms::catalogue`] with a privacy
//!   guarantee (non-private ones are skipped): for regression those whose default loss
//!   is squared, Huber or absolute (all of them), for classification those accepting the
//!   logistic loss (fitted with `--loss logistic`); each with its defaults, except the
//!   `sparse`-domain ones, which get the public sparsity s = min(10, ⌊d/2⌋). `adassp` is
//!   included when the catalogue has it. Plus `auto`, `intercept-only`, the constant
//!   predictor (training mean; training class frequency) and the floor. `methods=a,b`
//!   restricts the private methods (the constant and the floor always run).
//! * **Floors** (non-private, module `floors`, plain Rust, tested against closed
//!   forms): regression with d < n: ridge with λ = 10⁻⁶ (≈ OLS) with intercept on
//!   standardised columns (Cholesky); regression with d ≥ n: LassoCV (coordinate
//!   descent, 30-value λ path, 5-fold CV); binary: L2 logistic regression with intercept
//!   on standardised columns (Newton–IRLS), C ∈ {0.01, 0.1, 1, 10} by 5-fold CV log-loss.
//! * **Metrics** on the test part: MSE (regression), log-loss and AUC (binary);
//!   `ratio_to_floor` = error / floor error; `ratio_to_constant` = error / error of the
//!   constant; `gain_kept` = (err_const − err) / (err_const − err_floor) (error = MSE or
//!   log-loss), per split, then mean ± sd over the splits; `auc_gap` = floor AUC − AUC;
//!   `seconds` per fit.
//! * **Summary over tables** ([`over_tables`]): per (half, task, method, ε), from each
//!   table's mean over splits — regression: median gain kept, tables with gain ≥ 0.5,
//!   tables worse than the training mean (gain < 0), the worst table, tables whose mean
//!   over splits of MSE / MSE_const exceeds 1.02 (n ≥ 500) or 1.05 (n < 500), tables with
//!   a split whose MSE exceeds 10× the constant's; binary: median AUC gap to the floor,
//!   the worst table, and the tables with n·ε ≥ 2000 whose AUC is within 0.05 of the
//!   floor's.
//! * **Time cap.** Each fit runs under a wall-clock cap (default 120 s; `--quick` 60 s;
//!   `--param time_cap=S`), enforced at the algorithm's next iteration callback after
//!   the cap (the fit is abandoned and recorded as timed out). Each method is first run
//!   on split 0 at the smallest ε (all methods in parallel); a method whose pilot times
//!   out is skipped on that dataset, the reason recorded. Fits that return an error are
//!   recorded with the error and left out of the means.
//! * `--quick`: 2 splits, ε = 1; methods `auto`, `intercept-only`, `ht-frank-wolfe`,
//!   `objective-perturbation`, `adassp` (when present) and the floors; on the real
//!   folder `cps1988_wage` (a seeded subsample of 4000 rows), `cells_ps`, `pd_speech_pd`;
//!   on any other folder every table, each a seeded subsample of at most 4000 rows.

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
use std::io::BufRead;
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
/// Rows of the `--quick` subsample of cps1988_wage (real folder) and of every table
/// (any other folder).
pub const QUICK_CPS_ROWS: usize = 4000;
/// The file of the figure of gain kept against n.
pub const GAIN_VS_N_FIGURE: &str = "gain-vs-n.png";
/// Default `large_n`: tables with more rows may get fewer splits (`large_splits`).
pub const LARGE_N: usize = 50_000;

/// Regression or binary classification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Task {
    Regression,
    Binary,
}

impl Task {
    /// `regression` or `binary`.
    pub fn as_str(self) -> &'static str {
        match self {
            Task::Regression => "regression",
            Task::Binary => "binary",
        }
    }
}

/// The half of a folder's tables a table belongs to ([`halves`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Half {
    Design,
    Confirm,
}

impl Half {
    /// `design` or `confirm`.
    pub fn as_str(self) -> &'static str {
        match self {
            Half::Design => "design",
            Half::Confirm => "confirm",
        }
    }
}

/// One dataset (table) of the benchmark: its name (the file stem) and task.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetSpec {
    pub name: String,
    pub task: Task,
}

impl SetSpec {
    pub fn new(name: &str, task: Task) -> Self {
        SetSpec {
            name: name.to_string(),
            task,
        }
    }

    pub fn file(&self) -> String {
        format!("{}.csv", self.name)
    }
}

/// The six datasets of `../shared/data/real/` (name, task), in the benchmark's order.
pub const SETS: [(&str, Task); 6] = [
    ("flights_arr_delay", Task::Regression),
    ("gss_wages_realrinc", Task::Regression),
    ("cps1988_wage", Task::Regression),
    ("bladderbatch_krt19", Task::Regression),
    ("cells_ps", Task::Binary),
    ("pd_speech_pd", Task::Binary),
];

/// The six datasets of `../shared/data/real/` as [`SetSpec`]s.
pub fn real_sets() -> Vec<SetSpec> {
    SETS.iter().map(|(n, t)| SetSpec::new(n, *t)).collect()
}

/// The real datasets of `--quick`.
const QUICK_SETS: [&str; 3] = ["cps1988_wage", "cells_ps", "pd_speech_pd"];

/// The `--list` row.
pub fn info() -> ExperimentInfo {
    ExperimentInfo::new(
        ID,
        "project benchmark: private fits from raw columns on real heavy-tailed data",
        "real-data benchmark: every private algorithm with its defaults, auto, adassp, intercept-only, the constant and non-private floors on a folder of tables (--data-dir; default the six sets of ../shared/data/real; any folder of CSV tables with response y, e.g. ../shared/data/suite; 5 splits 80/20, eps 0.5/1/2); MSE, log-loss, AUC, gain kept, a summary over tables (design/confirm halves); writes results.csv, table.md, real-benchmark.png, gain-vs-n.png, summary.json",
    )
}

/// What to run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchOptions {
    pub quick: bool,
    pub splits: usize,
    pub epsilons: Vec<f64>,
    /// The tables to run (set by [`BenchOptions::resolve`] from the folder; before
    /// that, the default real sets).
    pub sets: Vec<SetSpec>,
    /// `tables=a,b,…` (or `sets=`): the tables asked for, checked against the folder by
    /// [`BenchOptions::resolve`]. `None`: the folder's default list.
    pub tables: Option<Vec<String>>,
    /// Whether the folder was read generically (not the six real sets).
    pub generic: bool,
    /// Design/confirm half of every table of the folder ([`halves`]).
    pub halves: BTreeMap<String, Half>,
    /// Per dataset: run on a seeded subsample of this many rows.
    pub subsample: BTreeMap<String, usize>,
    /// `None`: every applicable private algorithm (plus auto and intercept-only).
    pub methods: Option<Vec<String>>,
    /// Per-fit wall-clock cap in seconds.
    pub time_cap: f64,
    /// Tables with more rows than this get `large_splits` splits (when set).
    pub large_n: usize,
    /// Splits of the tables with more than `large_n` rows (`None`: `splits`).
    pub large_splits: Option<usize>,
    pub base_seed: u64,
}

impl BenchOptions {
    /// The full protocol or its `--quick` form (on the real sets until
    /// [`BenchOptions::resolve`] reads the folder).
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
                sets: real_sets()
                    .into_iter()
                    .filter(|s| QUICK_SETS.contains(&s.name.as_str()))
                    .collect(),
                tables: None,
                generic: false,
                halves: BTreeMap::new(),
                subsample: [("cps1988_wage".to_string(), QUICK_CPS_ROWS)]
                    .into_iter()
                    .collect(),
                methods: Some(methods.into_iter().map(String::from).collect()),
                time_cap: TIME_CAP_QUICK,
                large_n: LARGE_N,
                large_splits: None,
                base_seed,
            }
        } else {
            BenchOptions {
                quick,
                splits: 5,
                epsilons: vec![0.5, 1.0, 2.0],
                sets: real_sets(),
                tables: None,
                generic: false,
                halves: BTreeMap::new(),
                subsample: BTreeMap::new(),
                methods: None,
                time_cap: TIME_CAP,
                large_n: LARGE_N,
                large_splits: None,
                base_seed,
            }
        }
    }

    /// Experiment options `--param KEY=VALUE`: `time_cap=SECONDS`, `tables=a,b,…` (or
    /// `sets=`; table names = file stems, checked against the folder by
    /// [`BenchOptions::resolve`]), `methods=a,b,…` (algorithm names, `auto`,
    /// `intercept-only`), `epsilons=0.5,1,…`, `large_n=N`, `large_splits=K`.
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
            let count = || {
                v.trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|c| *c > 0)
                    .ok_or_else(|| bad(format!("expected a positive whole number, got '{v}'")))
            };
            match k.as_str() {
                "time_cap" => {
                    self.time_cap = v
                        .parse::<f64>()
                        .ok()
                        .filter(|t| *t > 0.0 && t.is_finite())
                        .ok_or_else(|| bad(format!("expected a positive number of seconds, got '{v}'")))?;
                }
                "sets" | "tables" => {
                    let names: Vec<String> = list().collect();
                    if names.is_empty() {
                        return Err(bad("no dataset given".into()));
                    }
                    self.tables = Some(names);
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
                "large_n" => self.large_n = count()?,
                "large_splits" => self.large_splits = Some(count()?),
                _ => {
                    return Err(bad(
                        "unknown option (accepted: time_cap=SECONDS, tables=a,b (or sets=), methods=a,b, epsilons=e1,e2, large_n=N, large_splits=K)".into(),
                    ))
                }
            }
        }
        Ok(())
    }

    /// Reads the folder `dir` ([`folder_tables`]) and sets the tables to run, their
    /// design/confirm halves and (generic `--quick`) their subsamples. The six real
    /// sets keep their names, order and tasks; any other folder runs every table (or the
    /// `tables=` selection, in the order given).
    pub fn resolve(&mut self, dir: &Path) -> Result<(), ExperimentError> {
        let scans = folder_tables(dir)?;
        let real = scans.iter().all(|t| SETS.iter().any(|(n, _)| *n == t.name));
        self.generic = !real;
        self.halves = halves(&scans);
        let task_of_name = |name: &str| -> Task {
            SETS.iter()
                .find(|(n, _)| *n == name)
                .filter(|_| real)
                .map(|(_, t)| *t)
                .or_else(|| scans.iter().find(|t| t.name == name).map(|t| t.task))
                .unwrap_or(Task::Regression)
        };
        let wanted: Vec<String> = match &self.tables {
            Some(names) => {
                for name in names {
                    if !scans.iter().any(|t| t.name == *name) {
                        return Err(ExperimentError::BadOption {
                            key: "tables".into(),
                            reason: format!(
                                "unknown dataset '{name}' (tables in {}: {})",
                                dir.display(),
                                scans
                                    .iter()
                                    .map(|t| t.name.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        });
                    }
                }
                names.clone()
            }
            None if real => {
                let names: Vec<String> = SETS
                    .iter()
                    .map(|(n, _)| n.to_string())
                    .filter(|n| !self.quick || QUICK_SETS.contains(&n.as_str()))
                    .collect();
                for n in &names {
                    if !scans.iter().any(|t| t.name == *n) {
                        return Err(ExperimentError::RealData(format!(
                            "{ID}: {n}.csv not found in {} (give --data-dir DIR)",
                            dir.display()
                        )));
                    }
                }
                names
            }
            None => scans.iter().map(|t| t.name.clone()).collect(),
        };
        self.sets = wanted
            .iter()
            .map(|n| SetSpec::new(n, task_of_name(n)))
            .collect();
        if self.generic && self.quick {
            self.subsample = self
                .sets
                .iter()
                .map(|s| (s.name.clone(), QUICK_CPS_ROWS))
                .collect();
        }
        Ok(())
    }

    /// The splits of a table of `n` rows (`large_splits` above `large_n`).
    pub fn splits_for(&self, n: usize) -> usize {
        match self.large_splits {
            Some(k) if n > self.large_n => k.min(self.splits),
            _ => self.splits,
        }
    }
}

/// The folder of the tables: `explicit` (`--data-dir`), else `$HEAVYDP_DATA_DIR`, else
/// `../shared/data/real` relative to the current folder when present, else the
/// project's `data/real/` when present.
pub fn data_dir(explicit: Option<&Path>) -> Result<PathBuf, ExperimentError> {
    let dir = if let Some(p) = explicit {
        p.to_path_buf()
    } else if let Some(p) = std::env::var_os(super::DATA_DIR_ENV).filter(|p| !p.is_empty()) {
        PathBuf::from(p)
    } else if Path::new("../shared/data/real").is_dir() {
        PathBuf::from("../shared/data/real")
    } else {
        let project = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/real"));
        if project.is_dir() {
            project
        } else {
            return Err(ExperimentError::RealData(format!(
                "{ID}: the real-data folder was not found: give --data-dir DIR (a folder of CSV tables with a response column y), or run from a folder whose ../shared/data/real exists"
            )));
        }
    };
    if !dir.is_dir() {
        return Err(ExperimentError::RealData(format!(
            "{ID}: {}: folder not found (give --data-dir DIR, a folder of CSV tables with a response column y)",
            dir.display()
        )));
    }
    Ok(dir)
}

/// One table of a folder as scanned by [`scan_table`]: name (file stem), task, rows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableScan {
    pub name: String,
    pub task: Task,
    pub n: usize,
}

/// The task of a response: binary when every value is 0 or 1, else regression.
pub fn task_of(y: impl IntoIterator<Item = f64>) -> Task {
    let mut any = false;
    for v in y {
        any = true;
        if v != 0.0 && v != 1.0 {
            return Task::Regression;
        }
    }
    if any {
        Task::Binary
    } else {
        Task::Regression
    }
}

/// Scans one CSV table: the header must name a column `y`; returns the number of data
/// rows and the task of `y` ([`task_of`]). Only the response column is parsed (the full
/// reader checks the rest when the table is run).
pub fn scan_table(path: &Path) -> Result<TableScan, ExperimentError> {
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let fail = |what: String| ExperimentError::RealData(format!("{}: {what}", path.display()));
    let f = std::fs::File::open(path).map_err(|e| fail(format!("cannot open: {e}")))?;
    let mut lines = std::io::BufReader::with_capacity(1 << 20, f).lines();
    let header = match lines.next() {
        Some(l) => l.map_err(|e| fail(format!("cannot read: {e}")))?,
        None => return Err(fail("empty file (expected a header row)".into())),
    };
    let unquote = |s: &str| s.trim().trim_matches('"').to_string();
    let col = header
        .split(',')
        .position(|h| unquote(h) == "y")
        .ok_or_else(|| fail("no column named y in the header (the response must be y)".into()))?;
    let mut ys = Vec::new();
    for (i, l) in lines.enumerate() {
        let l = l.map_err(|e| fail(format!("cannot read: {e}")))?;
        if l.trim().is_empty() {
            continue;
        }
        let v = l
            .split(',')
            .nth(col)
            .map(unquote)
            .and_then(|s| s.parse::<f64>().ok())
            .filter(|v| v.is_finite())
            .ok_or_else(|| fail(format!("line {}: y is not a finite number", i + 2)))?;
        ys.push(v);
    }
    if ys.is_empty() {
        return Err(fail("no data rows".into()));
    }
    Ok(TableScan {
        name,
        task: task_of(ys.iter().copied()),
        n: ys.len(),
    })
}

/// Every `*.csv` table of `dir`, sorted by file name, scanned ([`scan_table`]).
pub fn folder_tables(dir: &Path) -> Result<Vec<TableScan>, ExperimentError> {
    let rd = std::fs::read_dir(dir).map_err(|e| {
        ExperimentError::RealData(format!(
            "{ID}: {}: cannot read the folder: {e} (give --data-dir DIR)",
            dir.display()
        ))
    })?;
    let mut files: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "csv"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(ExperimentError::RealData(format!(
            "{ID}: no *.csv table in {} (give --data-dir DIR, a folder of CSV tables with a response column y)",
            dir.display()
        )));
    }
    files.iter().map(|p| scan_table(p)).collect()
}

/// The design/confirm halves of a folder's tables: within each task, the tables ranked
/// by (n, name); even ranks (0, 2, …) are the design half, odd ranks the confirm half.
pub fn halves(tables: &[TableScan]) -> BTreeMap<String, Half> {
    let mut out = BTreeMap::new();
    for task in [Task::Regression, Task::Binary] {
        let mut t: Vec<&TableScan> = tables.iter().filter(|t| t.task == task).collect();
        t.sort_by(|a, b| a.n.cmp(&b.n).then_with(|| a.name.cmp(&b.name)));
        for (i, t) in t.iter().enumerate() {
            out.insert(
                t.name.clone(),
                if i % 2 == 0 {
                    Half::Design
                } else {
                    Half::Confirm
                },
            );
        }
    }
    out
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
        Ok(Err(e)) => Outcome::Failed(e.to_string()),
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
    /// Splits run on this table ([`BenchOptions::splits_for`]).
    pub splits: usize,
    /// The table's half of the folder ([`halves`]).
    pub half: Option<Half>,
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
        let sub = opts.subsample.get(&set.name).copied();
        if let Some(m) = sub.filter(|m| *m < data.n()) {
            let mut idx: Vec<usize> = (0..data.n()).collect();
            idx.shuffle(&mut rng_from_seed(derive_seed(
                opts.base_seed,
                &[ID, &set.name, "subsample"],
            )));
            idx.truncate(m);
            idx.sort_unstable();
            data = data.select_rows(&idx);
        }
        let (n, d) = (data.n(), data.d());
        let n_splits = opts.splits_for(n);
        // splits, constant and floor
        let splits: Vec<Split> = (0..n_splits)
            .into_par_iter()
            .map(|k| {
                let seed = derive_seed(opts.base_seed, &[ID, &set.name, "split", &k.to_string()]);
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
            "{}: n = {n}, d = {d}, {n_splits} splits; floor ({floor}) and constant done in {:.1} s",
            set.name,
            t_set.elapsed().as_secs_f64()
        ));
        let methods = private_methods(set.task, opts);
        let eps0 = opts.epsilons[0];
        let method_seed = |m: &str, e: f64, k: usize| {
            derive_seed(
                opts.base_seed,
                &[
                    ID,
                    &set.name,
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
                    (0..n_splits)
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
                        dataset: set.name.clone(),
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
                    "ratio_to_constant",
                    s.iter()
                        .zip(idx)
                        .map(|(v, &k)| v.error / splits[k].constant.error)
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
        let all: Vec<usize> = (0..n_splits).collect();
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
                for k in 0..n_splits {
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
                            dataset: set.name.clone(),
                            epsilon: e,
                            method: m.clone(),
                            split: k,
                            error: err.clone(),
                        }),
                        Some(Outcome::TimedOut) => failures.push(BenchFailure {
                            dataset: set.name.clone(),
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
            "{}: {} methods x {} epsilon x {n_splits} splits in {secs:.1} s{}",
            set.name,
            methods.len(),
            opts.epsilons.len(),
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
            name: set.name.clone(),
            task: set.task,
            path: path_s,
            n,
            d,
            n_train,
            n_test: splits[0].test.n(),
            subsample: sub,
            splits: n_splits,
            half: opts.halves.get(&set.name).copied(),
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
        Some(s) if s.reps > 0 && s.mean.is_finite() && s.mean.abs() >= 1e4 => {
            format!("{:.2e} ± {:.2e}", s.mean, s.std)
        }
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
/// binary sets, the goals on the six real sets, every method's gain kept, timings, skips and
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
    if let Some(k) = o.large_splits.filter(|k| *k < o.splits) {
        s.push_str(&format!(
            "Tables with more than {} rows: {k} split(s) (splits 0..{k} of the protocol).\n\n",
            o.large_n
        ));
    }
    s.push_str(&over_tables_markdown(r));
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
            "\n### {} ({}, n = {}, d = {}, n_train = {}{}{}{})\n\n| method | {} | mean seconds per fit |\n|---|{}---|\n",
            info.name,
            if info.task == Task::Regression { "regression" } else { "binary" },
            info.n,
            info.d,
            info.n_train,
            info.subsample.map(|m| format!(", subsample of {m} rows")).unwrap_or_default(),
            if info.splits < o.splits { format!(", {} splits", info.splits) } else { String::new() },
            info.half.map(|h| format!(", {} half", h.as_str())).unwrap_or_default(),
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
                            if x.summary.reps < info.splits {
                                format!(" ({}/{} splits)", x.summary.reps, info.splits)
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

/// The goals on the six real sets checked on `r` (missing data → "not run").
pub fn goals_markdown(r: &BenchResults) -> String {
    let has = |name: &str| r.sets.iter().any(|i| i.name == name);
    if !SETS.iter().any(|(n, _)| has(n)) {
        return String::new();
    }
    let mut s = String::from(
        "\n## Goals on the six real sets\n\n| goal | measured | met? |\n|---|---|---|\n",
    );
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

/// The Done-means tolerance of "worse than the training mean": the mean over splits of
/// err / err_const may exceed 1 by at most this share on tables with at least
/// [`SMALL_N`] rows …
pub const MEAN_TOLERANCE: f64 = 0.02;
/// … and by at most this share below.
pub const MEAN_TOLERANCE_SMALL: f64 = 0.05;
/// Row count from which [`MEAN_TOLERANCE`] applies.
pub const SMALL_N: usize = 500;
/// A split whose error exceeds this multiple of the constant's is an explosion.
pub const EXPLOSION_RATIO: f64 = 10.0;
/// Binary tables with n·ε at least this are expected to reach an AUC within
/// [`AUC_MARGIN`] of the floor's.
pub const AUC_N_EPS: f64 = 2000.0;
pub const AUC_MARGIN: f64 = 0.05;

/// One row of the summary over tables ([`over_tables`]): a method at one ε over the
/// tables of one task in one group (`all`, `design` or `confirm`), each table entering
/// with its mean over splits. Gain kept is on MSE (regression) or log-loss (binary).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OverTables {
    pub group: String,
    pub task: Task,
    pub method: String,
    pub epsilon: f64,
    /// Tables where the method was run (applicable to the task).
    pub tables: usize,
    /// Tables without any result (skipped by the time cap or failed on every split).
    pub missing: Vec<String>,
    /// Tables with a result whose gain kept is undefined (the floor does not beat the
    /// constant on some split).
    pub gain_undefined: Vec<String>,
    /// Median over tables of the gain kept (NaN when no table has one).
    pub median_gain_kept: f64,
    /// Tables with gain kept ≥ 0.5.
    pub gain_at_least_half: usize,
    /// Tables with gain kept < 0 (worse than the training mean / class frequency).
    pub worse_than_mean: Vec<String>,
    /// The table with the smallest gain kept, and that gain.
    pub worst_table: Option<String>,
    pub worst_gain_kept: f64,
    /// Tables whose mean over splits of err / err_const exceeds 1 + [`MEAN_TOLERANCE`]
    /// (n ≥ [`SMALL_N`]) or 1 + [`MEAN_TOLERANCE_SMALL`] (n < [`SMALL_N`]).
    pub over_mean_tolerance: Vec<String>,
    /// Tables with a split whose error exceeds [`EXPLOSION_RATIO`] × the constant's.
    pub over_10x_constant: Vec<String>,
    /// Binary: median over tables of the AUC gap to the floor (NaN for regression).
    pub median_auc_gap: f64,
    /// Binary: the table with the largest AUC gap, and that gap.
    pub worst_auc_table: Option<String>,
    pub worst_auc_gap: f64,
    /// Binary: tables with n·ε ≥ [`AUC_N_EPS`] …
    pub auc_tables: usize,
    /// … and those among them whose AUC gap exceeds [`AUC_MARGIN`].
    pub auc_missed: Vec<String>,
}

/// The median of the finite values of `v` (mean of the middle two for an even count;
/// NaN when there is none).
pub fn median(v: &[f64]) -> f64 {
    let mut w: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if w.is_empty() {
        return f64::NAN;
    }
    w.sort_by(f64::total_cmp);
    let m = w.len() / 2;
    if w.len() % 2 == 1 {
        w[m]
    } else {
        0.5 * (w[m - 1] + w[m])
    }
}

/// The summary over tables: per group (`all`; `design` and `confirm` when the tables
/// have halves), task, ε and private method (in the order of the tables' method lists).
pub fn over_tables(r: &BenchResults) -> Vec<OverTables> {
    let mut out = Vec::new();
    let mut groups: Vec<(&str, Option<Half>)> = vec![("all", None)];
    if r.sets.iter().any(|i| i.half.is_some()) {
        groups.push(("design", Some(Half::Design)));
        groups.push(("confirm", Some(Half::Confirm)));
    }
    for (group, half) in groups {
        for task in [Task::Regression, Task::Binary] {
            let sets: Vec<&SetInfo> = r
                .sets
                .iter()
                .filter(|i| i.task == task && (half.is_none() || i.half == half))
                .collect();
            let mut methods: Vec<&str> = Vec::new();
            for i in &sets {
                for m in &i.methods {
                    if !methods.contains(&m.as_str()) {
                        methods.push(m);
                    }
                }
            }
            for &e in &r.options.epsilons {
                for m in &methods {
                    out.push(summarise_tables(r, &sets, group, task, m, e));
                }
            }
        }
    }
    out
}

fn summarise_tables(
    r: &BenchResults,
    sets: &[&SetInfo],
    group: &str,
    task: Task,
    method: &str,
    e: f64,
) -> OverTables {
    let err = if task == Task::Regression {
        "mse"
    } else {
        "log_loss"
    };
    let mut o = OverTables {
        group: group.into(),
        task,
        method: method.into(),
        epsilon: e,
        tables: 0,
        missing: Vec::new(),
        gain_undefined: Vec::new(),
        median_gain_kept: f64::NAN,
        gain_at_least_half: 0,
        worse_than_mean: Vec::new(),
        worst_table: None,
        worst_gain_kept: f64::NAN,
        over_mean_tolerance: Vec::new(),
        over_10x_constant: Vec::new(),
        median_auc_gap: f64::NAN,
        worst_auc_table: None,
        worst_auc_gap: f64::NAN,
        auc_tables: 0,
        auc_missed: Vec::new(),
    };
    let mean_of = |name: &str, metric: &str| {
        r.row(name, e, method, metric)
            .filter(|x| x.summary.reps > 0)
            .map(|x| x.summary.mean)
    };
    let mut gains = Vec::new();
    let mut gaps = Vec::new();
    for i in sets
        .iter()
        .filter(|i| i.methods.iter().any(|m| m == method))
    {
        o.tables += 1;
        let name = i.name.clone();
        if mean_of(&name, err).is_none() {
            o.missing.push(name);
            continue;
        }
        match mean_of(&name, "gain_kept").filter(|g| g.is_finite()) {
            Some(g) => {
                gains.push(g);
                if g >= 0.5 {
                    o.gain_at_least_half += 1;
                }
                if g < 0.0 {
                    o.worse_than_mean.push(name.clone());
                }
                if o.worst_table.is_none() || g < o.worst_gain_kept {
                    o.worst_table = Some(name.clone());
                    o.worst_gain_kept = g;
                }
            }
            None => o.gain_undefined.push(name.clone()),
        }
        if let Some(rc) = r.row(&name, e, method, "ratio_to_constant") {
            let tol = if i.n >= SMALL_N {
                MEAN_TOLERANCE
            } else {
                MEAN_TOLERANCE_SMALL
            };
            if rc.summary.reps > 0 && rc.summary.mean > 1.0 + tol {
                o.over_mean_tolerance.push(name.clone());
            }
            if rc.summary.values.iter().any(|v| *v > EXPLOSION_RATIO) {
                o.over_10x_constant.push(name.clone());
            }
        }
        if task == Task::Binary {
            if let Some(gap) = mean_of(&name, "auc_gap").filter(|g| g.is_finite()) {
                gaps.push(gap);
                if o.worst_auc_table.is_none() || gap > o.worst_auc_gap {
                    o.worst_auc_table = Some(name.clone());
                    o.worst_auc_gap = gap;
                }
                if i.n as f64 * e >= AUC_N_EPS {
                    o.auc_tables += 1;
                    if gap > AUC_MARGIN {
                        o.auc_missed.push(name.clone());
                    }
                }
            }
        }
    }
    o.median_gain_kept = median(&gains);
    o.median_auc_gap = median(&gaps);
    o
}

/// `n (a, b)`: a count and the names (at most `max`, then "…"; none when `max` is 0).
fn count_names(v: &[String], max: usize) -> String {
    if v.is_empty() || max == 0 {
        v.len().to_string()
    } else if v.len() <= max {
        format!("{} ({})", v.len(), v.join(", "))
    } else {
        format!("{} ({}, …)", v.len(), v[..max].join(", "))
    }
}

fn fmt3(v: f64) -> String {
    if v.is_finite() {
        if v.abs() >= 1e4 {
            format!("{v:.2e}")
        } else {
            format!("{v:.3}")
        }
    } else {
        "–".into()
    }
}

/// The `## Over tables` section of `table.md` ([`over_tables`]).
pub fn over_tables_markdown(r: &BenchResults) -> String {
    let rows = over_tables(r);
    let mut s = String::from("## Over tables\n\n");
    s.push_str(&format!(
        "Per method and ε, each table entering with its mean over splits. Gain kept on MSE (regression) or log-loss (binary). Tolerances: mean over splits of MSE / MSE_const above {} (n ≥ {SMALL_N}) or {} (n < {SMALL_N}); explosion: a split with error above {EXPLOSION_RATIO}× the constant's; AUC goal: gap to the floor ≤ {AUC_MARGIN} on tables with n·ε ≥ {AUC_N_EPS}.\n\n",
        1.0 + MEAN_TOLERANCE,
        1.0 + MEAN_TOLERANCE_SMALL
    ));
    if r.sets.iter().any(|i| i.half.is_some()) {
        let of = |h: Half| {
            let v: Vec<&str> = r
                .sets
                .iter()
                .filter(|i| i.half == Some(h))
                .map(|i| i.name.as_str())
                .collect();
            if v.is_empty() {
                "none".to_string()
            } else {
                v.join(", ")
            }
        };
        s.push_str(&format!(
            "Halves (within each task, tables ranked by (n, name) over the whole folder; even ranks design, odd ranks confirm). Design: {}. Confirm: {}.\n\n",
            of(Half::Design),
            of(Half::Confirm)
        ));
    }
    let reg: Vec<&OverTables> = rows.iter().filter(|x| x.task == Task::Regression).collect();
    if !reg.is_empty() {
        s.push_str("### Regression tables\n\n| half | method | ε | tables | median gain kept | gain ≥ 0.5 | worse than the mean (gain < 0) | worst table (gain kept) | mean MSE over the 2 % / 5 % tolerance | a split with MSE > 10× the mean's | no result |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
        for x in reg {
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                x.group,
                x.method,
                x.epsilon,
                x.tables,
                fmt3(x.median_gain_kept),
                x.gain_at_least_half,
                count_names(&x.worse_than_mean, 0),
                x.worst_table
                    .as_ref()
                    .map(|t| format!("{t} ({})", fmt3(x.worst_gain_kept)))
                    .unwrap_or_else(|| "–".into()),
                count_names(&x.over_mean_tolerance, 4),
                count_names(&x.over_10x_constant, 4),
                count_names(&x.missing, 4),
            ));
        }
        s.push('\n');
    }
    let bin: Vec<&OverTables> = rows.iter().filter(|x| x.task == Task::Binary).collect();
    if !bin.is_empty() {
        s.push_str("### Binary tables\n\n| half | method | ε | tables | median AUC gap to the floor | worst table (AUC gap) | n·ε ≥ 2000: AUC within 0.05 of the floor | median gain kept (log-loss) | a split with log-loss > 10× the constant's | no result |\n|---|---|---|---|---|---|---|---|---|---|\n");
        for x in bin {
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} of {}{} | {} | {} | {} |\n",
                x.group,
                x.method,
                x.epsilon,
                x.tables,
                fmt3(x.median_auc_gap),
                x.worst_auc_table
                    .as_ref()
                    .map(|t| format!("{t} ({})", fmt3(x.worst_auc_gap)))
                    .unwrap_or_else(|| "–".into()),
                x.auc_tables - x.auc_missed.len(),
                x.auc_tables,
                if x.auc_missed.is_empty() {
                    String::new()
                } else {
                    format!("; missed: {}", x.auc_missed.join(", "))
                },
                fmt3(x.median_gain_kept),
                count_names(&x.over_10x_constant, 4),
                count_names(&x.missing, 4),
            ));
        }
        s.push('\n');
    }
    s
}

/// One curve of [`gain_vs_n`]: the method and its (n, gain kept, sd) points.
pub type GainCurve = (String, Vec<(f64, f64, f64)>);

/// The data of the figure `gain-vs-n.png`: the ε shown (1 when run, else the middle
/// of the grid) and, per private method, its mean gain kept on each regression table
/// against the table's n — (n, gain clamped to [[`FIGURE_FLOOR`], 1.5], sd; 0 when
/// clamped), sorted by n.
pub fn gain_vs_n(r: &BenchResults) -> (f64, Vec<GainCurve>) {
    let eps = &r.options.epsilons;
    let e = if eps.contains(&1.0) {
        1.0
    } else {
        eps.get(eps.len() / 2).copied().unwrap_or(1.0)
    };
    let mut curves: Vec<GainCurve> = Vec::new();
    for info in r.sets.iter().filter(|i| i.task == Task::Regression) {
        for m in &info.methods {
            let Some(s) = r
                .row(&info.name, e, m, "gain_kept")
                .map(|x| &x.summary)
                .filter(|s| s.reps > 0 && s.mean.is_finite())
            else {
                continue;
            };
            let g = s.mean.clamp(FIGURE_FLOOR, 1.5);
            let sd = if g == s.mean { s.std.min(1.0) } else { 0.0 };
            let pt = (info.n as f64, g, sd);
            match curves.iter_mut().find(|(name, _)| name == m) {
                Some((_, pts)) => pts.push(pt),
                None => curves.push((m.clone(), vec![pt])),
            }
        }
    }
    for (_, pts) in &mut curves {
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    (e, curves)
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
            "tables": "every *.csv of the folder sorted by name (the six real sets by name and in their fixed order); task binary when y takes only the values 0 and 1",
            "halves": "within each task the folder's tables ranked by (n, file name): even ranks design, odd ranks confirm (options.halves)",
            "large_tables": format!("tables with more than {} rows: {} split(s)", r.options.large_n, r.options.large_splits.map_or(r.options.splits, |k| k.min(r.options.splits))),
            "over_tables": format!("per (group, task, method, epsilon) over tables, each table entering with its mean over splits: median gain kept, tables with gain >= 0.5, gain < 0 (worse than the mean), the worst table; mean over splits of err/err_const above {} (n >= {SMALL_N}) or {} (n < {SMALL_N}); a split with err > {EXPLOSION_RATIO} x err_const; binary: median AUC gap, tables with n*epsilon >= {AUC_N_EPS} and their AUC gap > {AUC_MARGIN}", 1.0 + MEAN_TOLERANCE, 1.0 + MEAN_TOLERANCE_SMALL),
        },
        "over_tables": over_tables(r),
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
        assert_eq!(
            o.tables.as_deref(),
            Some(&["cells_ps".to_string(), "cps1988_wage".to_string()][..])
        );
        assert_eq!(o.epsilons, vec![1.0, 2.0]);
        let p: ParamMap = [
            ("tables".to_string(), "a".to_string()),
            ("large_n".to_string(), "1000".to_string()),
            ("large_splits".to_string(), "2".to_string()),
        ]
        .into_iter()
        .collect();
        o.apply_params(&p).unwrap();
        assert_eq!(o.tables, Some(vec!["a".to_string()]));
        assert_eq!((o.splits_for(1000), o.splits_for(1001)), (5, 2));
        for (k, v) in [
            ("time_cap", "-1"),
            ("sets", ","),
            ("methods", "zzz"),
            ("large_splits", "0"),
            ("large_n", "x"),
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
        let e = data_dir(Some(Path::new("/nonexistent-dir"))).unwrap_err();
        assert!(e.to_string().contains("--data-dir"), "{e}");
        let dir = TmpDir::new();
        let e = folder_tables(dir.path()).unwrap_err();
        assert!(e.to_string().contains("no *.csv table"), "{e}");
        std::fs::write(dir.path().join("a.csv"), "x,z\n1,2\n").unwrap();
        let e = folder_tables(dir.path()).unwrap_err();
        assert!(e.to_string().contains("no column named y"), "{e}");
        std::fs::write(dir.path().join("a.csv"), "y,z\n1,2\nabc,3\n").unwrap();
        let e = folder_tables(dir.path()).unwrap_err();
        assert!(e.to_string().contains("line 3"), "{e}");
        // a folder holding only some of the six real sets: the default list needs them all
        let dir = TmpDir::new();
        std::fs::write(dir.path().join("cells_ps.csv"), "y,z\n1,2\n0,3\n").unwrap();
        let e = BenchOptions::new(false, 1).resolve(dir.path()).unwrap_err();
        assert!(
            e.to_string().contains("flights_arr_delay.csv not found"),
            "{e}"
        );
    }

    /// A fresh folder under the system's temporary folder, removed on drop.
    struct TmpDir(PathBuf);

    impl TmpDir {
        fn new() -> Self {
            static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let k = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let p = std::env::temp_dir()
                .join(format!("heavydp-benchmark-test-{}-{k}", std::process::id()));
            let _ = std::fs::remove_dir_all(&p);
            std::fs::create_dir_all(&p).unwrap();
            TmpDir(p)
        }

        fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for TmpDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Writes a suite-format table with the response `y` (first column) and one feature.
    fn table(dir: &Path, name: &str, y: &[f64]) {
        let mut s = String::from("y,x1\n");
        for (i, v) in y.iter().enumerate() {
            s.push_str(&format!("{v},{i}\n"));
        }
        std::fs::write(dir.join(format!("{name}.csv")), s).unwrap();
    }

    #[test]
    fn a_generic_folder_is_read_sorted_with_detected_tasks_and_halves() {
        assert_eq!(task_of([0.0, 1.0, 1.0]), Task::Binary);
        assert_eq!(task_of([0.0, 0.0]), Task::Binary);
        assert_eq!(task_of([0.0, 1.0, 2.0]), Task::Regression);
        assert_eq!(task_of([0.0, 0.5]), Task::Regression);
        assert_eq!(task_of(Vec::<f64>::new()), Task::Regression);
        let dir = TmpDir::new();
        let d = dir.path();
        let reg = |n: usize| (0..n).map(|i| i as f64 * 0.5).collect::<Vec<_>>();
        let bin = |n: usize| (0..n).map(|i| (i % 2) as f64).collect::<Vec<_>>();
        table(d, "zeta", &reg(30));
        table(d, "alpha", &reg(10));
        table(d, "Beta", &bin(12));
        table(d, "gamma", &reg(20));
        table(d, "delta", &bin(8));
        table(d, "eps", &reg(20));
        std::fs::write(d.join("notes.txt"), "not a table").unwrap();
        std::fs::write(d.join("README.md"), "# suite").unwrap();
        let scans = folder_tables(d).unwrap();
        let names: Vec<&str> = scans.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["Beta", "alpha", "delta", "eps", "gamma", "zeta"]);
        let tasks: Vec<Task> = scans.iter().map(|t| t.task).collect();
        use Task::{Binary as B, Regression as R};
        assert_eq!(tasks, [B, R, B, R, R, R]);
        assert_eq!(scans[1].n, 10);
        // halves: per task by (n, name): regression alpha 10, eps 20, gamma 20, zeta 30;
        // binary delta 8, Beta 12
        let h = halves(&scans);
        use Half::{Confirm as C, Design as D};
        let got: Vec<(&str, Half)> = h.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(
            got,
            [
                ("Beta", C),
                ("alpha", D),
                ("delta", D),
                ("eps", C),
                ("gamma", D),
                ("zeta", C)
            ]
        );
        // deterministic, and independent of the listing order
        let mut rev = scans.clone();
        rev.reverse();
        assert_eq!(halves(&rev), h);
        // resolve: every table, sorted; a selection keeps its order and the halves
        let mut o = BenchOptions::new(false, 1);
        o.resolve(d).unwrap();
        assert!(o.generic);
        let sets: Vec<(&str, Task)> = o.sets.iter().map(|s| (s.name.as_str(), s.task)).collect();
        assert_eq!(
            sets,
            [
                ("Beta", B),
                ("alpha", R),
                ("delta", B),
                ("eps", R),
                ("gamma", R),
                ("zeta", R)
            ]
        );
        assert_eq!(o.halves, h);
        assert!(o.subsample.is_empty());
        let mut o = BenchOptions::new(true, 1);
        o.tables = Some(vec!["zeta".into(), "delta".into()]);
        o.resolve(d).unwrap();
        let names: Vec<&str> = o.sets.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["zeta", "delta"]);
        assert_eq!(o.halves, h);
        assert_eq!(o.subsample.get("zeta"), Some(&QUICK_CPS_ROWS));
        o.tables = Some(vec!["nope".into()]);
        let e = o.resolve(d).unwrap_err().to_string();
        assert!(
            e.contains("unknown dataset 'nope'") && e.contains("alpha"),
            "{e}"
        );
    }

    #[test]
    fn the_real_folder_keeps_its_sets_order_and_quick_subset() {
        let dir = TmpDir::new();
        for (name, task) in SETS {
            let y: Vec<f64> = (0..10)
                .map(|i| match task {
                    Task::Binary => (i % 2) as f64,
                    Task::Regression => i as f64 * 1.5,
                })
                .collect();
            table(dir.path(), name, &y);
        }
        let mut o = BenchOptions::new(false, 1);
        o.resolve(dir.path()).unwrap();
        assert!(!o.generic);
        assert_eq!(o.sets, real_sets());
        assert_eq!(o.halves.len(), 6);
        let mut q = BenchOptions::new(true, 1);
        let before = q.clone();
        q.resolve(dir.path()).unwrap();
        assert_eq!(q.sets, before.sets);
        assert_eq!(q.subsample, before.subsample);
    }

    /// A hand-made result set: per table (name, task, n, half, per-split gain kept,
    /// per-split err / err_const, mean AUC gap) for the method `m` at ε = 1.
    #[allow(clippy::type_complexity)]
    fn hand_made(tables: &[(&str, Task, usize, Half, Vec<f64>, Vec<f64>, f64)]) -> BenchResults {
        let mut o = BenchOptions::new(false, 1);
        o.epsilons = vec![1.0];
        let mut sets = Vec::new();
        let mut rows = Vec::new();
        for (name, task, n, half, gains, ratios, gap) in tables {
            sets.push(SetInfo {
                name: name.to_string(),
                task: *task,
                path: String::new(),
                n: *n,
                d: 2,
                n_train: n * 4 / 5,
                n_test: n - n * 4 / 5,
                subsample: None,
                splits: 5,
                half: Some(*half),
                floor: "ridge".into(),
                floor_hyperparameters: vec![],
                methods: vec!["m".into()],
                skipped: BTreeMap::new(),
                auto_choice: BTreeMap::new(),
                seconds: 0.0,
            });
            let mut push = |metric: &str, v: Vec<f64>| {
                rows.push(BenchRow {
                    dataset: name.to_string(),
                    epsilon: 1.0,
                    method: "m".into(),
                    metric: metric.into(),
                    summary: Summary::of(v),
                })
            };
            if gains.is_empty() {
                continue; // no result: failed on every split
            }
            let err = if *task == Task::Regression {
                "mse"
            } else {
                "log_loss"
            };
            push(err, ratios.clone());
            push("gain_kept", gains.clone());
            push("ratio_to_constant", ratios.clone());
            if *task == Task::Binary {
                push("auc_gap", vec![*gap; gains.len()]);
            }
        }
        BenchResults {
            options: o,
            data_dir: String::new(),
            sets,
            rows,
            failures: vec![],
            total_seconds: 0.0,
        }
    }

    #[test]
    fn the_summary_over_tables_counts_and_finds_the_worst() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[f64::NAN, 1.0]), 1.0);
        assert!(median(&[]).is_nan());
        use Half::{Confirm as C, Design as D};
        use Task::{Binary as B, Regression as R};
        let r = hand_made(&[
            // mean gain 0.7; ratios mean 0.5
            ("a", R, 1000, D, vec![0.6, 0.8], vec![0.5, 0.5], 0.0),
            // mean gain 0.2
            ("b", R, 200, C, vec![0.2, 0.2], vec![0.9, 0.9], 0.0),
            // mean gain -0.5; mean ratio 1.04: over 2 % (n >= 500)
            ("c", R, 500, D, vec![-0.4, -0.6], vec![1.03, 1.05], 0.0),
            // mean gain -2; n < 500: mean ratio 1.04 within 5 %, but one split > 10x
            ("d", R, 100, C, vec![1.0, -5.0], vec![0.5, 11.0], 0.0),
            // no result
            ("e", R, 300, D, vec![], vec![], 0.0),
            // gain undefined
            ("f", R, 300, C, vec![f64::NAN, 0.5], vec![0.9, 0.9], 0.0),
            // binary: n·ε = 2000 with gap 0.06 (missed); 1999 with gap 0.2 (not held);
            // 5000 with gap 0.01 (met)
            ("p", B, 2000, D, vec![0.5], vec![0.9], 0.06),
            ("q", B, 1999, C, vec![0.1], vec![0.95], 0.2),
            ("s", B, 5000, C, vec![0.9], vec![0.7], 0.01),
        ]);
        let rows = over_tables(&r);
        let get = |g: &str, t: Task| {
            rows.iter()
                .find(|x| x.group == g && x.task == t && x.method == "m" && x.epsilon == 1.0)
                .unwrap()
        };
        let all = get("all", R);
        assert_eq!(all.tables, 6);
        assert_eq!(all.missing, ["e"]);
        assert_eq!(all.gain_undefined, ["f"]);
        // gains 0.7, 0.2, -0.5, -2 -> median (0.2 - 0.5)/2
        assert!((all.median_gain_kept - (-0.15)).abs() < 1e-12);
        assert_eq!(all.gain_at_least_half, 1);
        assert_eq!(all.worse_than_mean, ["c", "d"]);
        assert_eq!(all.worst_table.as_deref(), Some("d"));
        assert!((all.worst_gain_kept + 2.0).abs() < 1e-12);
        assert_eq!(all.over_mean_tolerance, ["c", "d"]);
        assert_eq!(all.over_10x_constant, ["d"]);
        assert!(all.median_auc_gap.is_nan());
        let design = get("design", R);
        assert_eq!(design.tables, 3);
        assert!((design.median_gain_kept - 0.1).abs() < 1e-12);
        assert_eq!(design.worst_table.as_deref(), Some("c"));
        let confirm = get("confirm", R);
        assert_eq!(confirm.worse_than_mean, ["d"]);
        assert!((confirm.median_gain_kept - (-0.9)).abs() < 1e-12);
        let b = get("all", B);
        assert_eq!(b.tables, 3);
        assert!((b.median_auc_gap - 0.06).abs() < 1e-12);
        assert_eq!(b.worst_auc_table.as_deref(), Some("q"));
        assert_eq!(b.auc_tables, 2);
        assert_eq!(b.auc_missed, ["p"]);
        assert!((b.median_gain_kept - 0.5).abs() < 1e-12);
        // the markdown carries the figures
        let md = over_tables_markdown(&r);
        assert!(
            md.contains(
                "| all | m | 1 | 6 | -0.150 | 1 | 2 | d (-2.000) | 2 (c, d) | 1 (d) | 1 (e) |"
            ),
            "{md}"
        );
        assert!(
            md.contains("| all | m | 1 | 3 | 0.060 | q (0.200) | 1 of 2; missed: p |"),
            "{md}"
        );
        assert!(md.contains("Design: a, c, e, p."), "{md}");
        // the figure: the regression tables with a gain, by n, clamped below at -1
        let (e, curves) = gain_vs_n(&r);
        assert_eq!(e, 1.0);
        assert_eq!(curves.len(), 1);
        let xs: Vec<(f64, f64)> = curves[0].1.iter().map(|p| (p.0, p.1)).collect();
        assert_eq!(
            xs,
            [(100.0, -1.0), (200.0, 0.2), (500.0, -0.5), (1000.0, 0.7)]
        );
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
