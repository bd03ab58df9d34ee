//! Paper experiments (`heavydp experiment ID`): a registry of figure panels, each a
//! [`Plan`] (a grid of settings × a list of methods), and a deterministic parallel
//! runner that turns a plan into tidy [`Results`] (one row per setting × method ×
//! metric: mean, standard deviation and number of repetitions).
//!
//! # Protocol
//!
//! The experiments of Hu, Ni, Xiao & Wang (2021), Section 6, as settled in
//! `spec/hu2021-high-dim-heavy-tailed.md` §X.1–X.4 and H19–H27. One ID per figure panel:
//! `hu-fig1a` … `hu-fig11c` ([`list`]).
//!
//! * **What varies.** Panels (a): ε ∈ {0.5, 1, 1.5, 2, 2.5, 3} (x-axis), one curve per d.
//!   Panels (b): the sample size n (x-axis), ε = 1, one curve per d. Panels (c): n (or the
//!   sparsity s\* for Figs. 7–11) with the other quantities fixed; Figs. 1, 2, 5 and 6 (c)
//!   compare the private run with the non-private Frank–Wolfe baseline. Real-data panels
//!   (Figs. 3–4): subsample share of the data (x-axis) × ε (one curve per ε). The grids
//!   are the project defaults of spec §X.3 ("Grids not given in the text"); the paper
//!   does not print them.
//! * **What is fixed.** The scenario (feature and noise laws of spec §X.1), the loss, the
//!   constraint set (unit ℓ1 ball for Algorithms 1–2; {‖w‖₀ ≤ s\*, ‖w‖₂ ≤ 1} for
//!   Algorithms 3 and 5, whose sparsity the algorithms read from the domain), δ = n^{−1.1}
//!   for (ε, δ) methods (0 for pure-DP methods), and every hyperparameter at the
//!   algorithm's documented default preset, unless the experiment option
//!   `preset=theory|paper|heavydp|both` asks for another one (`both`: theory and paper
//!   presets as two methods).
//! * **Metrics.** `excess_risk` = L(w) − L(w\*), and for the sparse panels also `l2_error`
//!   = ‖w − w\*‖₂. How L is evaluated (spec H26):
//!   - linear synthetic scenarios (noise independent of x): the **population** excess risk
//!     in closed form, (w − w\*)ᵀ E\[xxᵀ\] (w − w\*), from the known feature law —
//!     lognormal(σ² = 0.6): E\[xxᵀ\] = Var·I + μ²11ᵀ with μ = e^{0.3}, Var = (e^{0.6} − 1)e^{0.6};
//!     Student t₁₀: 1.25·I; N(0, 5): 5·I. This is exactly the quantity the spec's fresh
//!     10⁵-record evaluation sample estimates, without its Monte Carlo error. It is exact
//!     even for the non-centred noises of Figs. 7–9 because E x = 0 there (the cross term
//!     2E\[ι\]E\[x\]ᵀ(w − w\*) vanishes; for Fig. 8, whose noise has no mean, it is the excess
//!     of the noise-free part, E_x⟨w − w\*, x⟩², the only finite version — spec §X.1);
//!   - logistic synthetic scenarios: the empirical risk on a **fresh sample of 10⁵
//!     records** from the same generator with the same w\*
//!     ([`crate::data::scenarios::generate_records`]), generated and consumed in blocks
//!     of at most 10⁴ rows (and about 32 MB) so memory stays bounded; for Figs. 10–11 L includes the ℓ2 penalty
//!     (λ_reg/2)‖w‖₂², λ_reg = 0.01 (spec H19). Labels are deterministic given the
//!     margin (spec H25), so the excess risk over w\* may be negative;
//!   - option `eval=train`: the empirical excess risk on the training sample instead;
//!   - real data: the excess empirical risk on the **full** (standardised) dataset over
//!     w\* = non-private Frank–Wolfe on the full data (T = 2000; 500 with `--quick`).
//! * **Real data** (Figs. 3–4). The paper's UCI datasets are not shipped; the project's
//!   heavy-tailed datasets replace them (see [`list`]): `hu-fig3a` → `flights_arr_delay`,
//!   `hu-fig3b` → `gss_wages_realrinc` (linear), `hu-fig4a` → `cells_ps`, `hu-fig4b` →
//!   `pd_speech_pd` (logistic, labels {0, 1} → {−1, +1}). As in the paper, features (and
//!   the response of the linear models) are standardised to mean 0 / variance 1 on the
//!   full data — a **non-private preprocessing step**, flagged in the summary. Subsamples
//!   of {20, 40, 60, 80, 100} % are drawn without replacement by a seeded,
//!   data-independent index draw. The folder is `$HEAVYDP_DATA_DIR`, else the project's
//!   `data/real/`.
//! * **Repetitions and seeds.** Each point is the mean over `reps` independent
//!   repetitions (default 20, spec §X.1). Repetition r of setting k uses
//!   `rep_seed = derive_seed(base_seed, [id, setting_key, r])`
//!   ([`crate::noise::derive_seed`]); within a repetition every method sees the same
//!   training data (paired comparison), drawn from `derive_seed(rep_seed, ["data"])`
//!   (real data: the subsample from `["subsample"]`); method `label` draws its noise from
//!   `derive_seed(rep_seed, ["method", label])`, the evaluation sample comes from
//!   `["eval"]`. Repetitions run in parallel (rayon); each is self-contained and every
//!   reduction is in a fixed order, so results do not depend on the number of threads.
//!   Any single cell can be re-run from the seeds recorded in the summary.
//! * **Project choices** (labelled in [`Plan::choices`] and the summary): the grids, the
//!   quick grids, the initial vectors and β = 1, c = 2, λ_reg = 0.01 (H19, inside the
//!   algorithms' defaults), the theory scale s of Algorithm 1 instead of the printed
//!   s = ⌊nε⌋ (H20; `preset=paper` uses the printed one and the summary flags it), the
//!   proof's k for Algorithm 5 (H21), the closed-form population evaluation (H26), the
//!   non-private baseline (H19: Frank–Wolfe with exact linear minimisation on the full
//!   empirical gradient, T = the private run's T) and the real-data substitutions (H27).
//!
//! `--quick` (spec §X.3): 3 grid points per axis (first, middle, last), d ≤ 400
//! (d ∈ {100, 200, 400}), 5 repetitions, and the fixed n of Fig. 6(a) reduced so that
//! every panel finishes within two minutes on two cores.

pub mod benchmark;
mod floors;
pub mod genomics;
pub mod inference_coverage;
mod output;
mod real;
mod registry;
mod runner;
mod tian;
pub mod wangxu;
pub mod zhao;

pub use output::{results_csv, summary_json};
pub use registry::{ids, is_table, list, plan};
pub use runner::run;
pub use tian::TIAN_PAPER;

use crate::algorithms::{FitError, ParamMap};
use crate::data::DataError;
use crate::loss::LossKind;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use thiserror::Error;

/// First, middle and last grid point (the `--quick` grid).
fn thin(v: &[f64]) -> Vec<f64> {
    if v.len() <= 3 {
        return v.to_vec();
    }
    vec![v[0], v[(v.len() - 1) / 2], v[v.len() - 1]]
}

/// The paper of every `hu-*` experiment.
pub const HU_PAPER: &str =
    "Hu, Ni, Xiao & Wang (2021), High Dimensional Differentially Private Stochastic Optimization with Heavy-tailed Data";

/// Size of the fresh evaluation sample of the logistic scenarios (spec H26).
pub const EVAL_SAMPLE: usize = 100_000;
/// Largest number of rows generated at a time for the evaluation sample (bounds memory;
/// fewer when d > 400).
pub const EVAL_BLOCK: usize = 10_000;
/// The environment variable naming the folder of the real datasets.
pub const DATA_DIR_ENV: &str = "HEAVYDP_DATA_DIR";

/// Errors of planning and running an experiment.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ExperimentError {
    #[error("unknown experiment '{0}' (run `heavydp experiment --list` for the list)")]
    UnknownId(String),
    #[error("experiment option {key}: {reason}")]
    BadOption { key: String, reason: String },
    #[error("{0}")]
    RealData(String),
    #[error("experiment {id}: {reason}")]
    Invalid { id: String, reason: String },
    #[error(transparent)]
    Data(#[from] DataError),
    #[error(transparent)]
    Fit(#[from] FitError),
}

/// Which hyperparameter preset the `ht-*` methods use (experiment option `preset=…`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Preset {
    /// Each algorithm's documented default preset (one method, labelled by the
    /// algorithm's name): `theory` for ht-frank-wolfe, `paper` for ht-lasso and
    /// ht-sparse-linreg, `heavydp` for ht-sparse-opt.
    #[default]
    Default,
    /// `--param preset=NAME` for every `ht-*` method (labelled `ALG (preset=NAME)`).
    Named(String),
    /// Two methods per algorithm: `preset=theory` and `preset=paper`.
    Both,
}

impl Preset {
    /// The option's value: `default`, the preset name, or `both`.
    pub fn as_str(&self) -> &str {
        match self {
            Preset::Default => "default",
            Preset::Named(s) => s,
            Preset::Both => "both",
        }
    }
}

impl Serialize for Preset {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// On which sample the risk is evaluated (spec H26).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EvalSample {
    /// Population (closed form) for linear scenarios, a fresh 10⁵-record sample for the
    /// logistic ones, the full dataset for real data.
    #[default]
    Fresh,
    /// The training sample itself.
    Train,
}

/// Options of a plan: `--quick` and the experiment's `--param KEY=VALUE` words.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlanOptions {
    /// The reduced grid.
    pub quick: bool,
    /// `preset=default|theory|paper|heavydp|both`.
    pub preset: Preset,
    /// `eval=fresh|train`.
    pub eval: EvalSample,
    /// The folder of the real datasets (default: `$HEAVYDP_DATA_DIR`, else `data/real`).
    pub data_dir: Option<PathBuf>,
}

impl PlanOptions {
    /// Options from `--quick` and `--param KEY=VALUE` pairs (keys `preset`, `eval`).
    pub fn from_params(quick: bool, params: &ParamMap) -> Result<Self, ExperimentError> {
        let mut o = PlanOptions {
            quick,
            ..Default::default()
        };
        for (k, v) in params {
            let bad = |allowed: &str| ExperimentError::BadOption {
                key: k.clone(),
                reason: format!("expected one of {allowed}, got '{v}'"),
            };
            match k.as_str() {
                "preset" => {
                    o.preset = match v.as_str() {
                        "default" => Preset::Default,
                        "both" => Preset::Both,
                        "theory" | "paper" | "heavydp" => Preset::Named(v.clone()),
                        _ => return Err(bad("default, theory, paper, heavydp, both")),
                    }
                }
                "eval" => {
                    o.eval = match v.as_str() {
                        "fresh" => EvalSample::Fresh,
                        "train" => EvalSample::Train,
                        _ => return Err(bad("fresh, train")),
                    }
                }
                _ => {
                    return Err(ExperimentError::BadOption {
                        key: k.clone(),
                        reason: "unknown option (accepted: preset=default|theory|paper|heavydp|both, eval=fresh|train)"
                            .into(),
                    })
                }
            }
        }
        Ok(o)
    }
}

/// An experiment's row in `heavydp experiment --list`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExperimentInfo {
    pub id: String,
    pub paper: String,
    pub description: String,
    /// Set when a shipped real dataset replaces the paper's (and what preprocessing it gets).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_note: Option<String>,
}

impl ExperimentInfo {
    /// A row without a data note.
    pub fn new(id: &str, paper: impl Into<String>, description: &str) -> Self {
        ExperimentInfo {
            id: id.into(),
            paper: paper.into(),
            description: description.into(),
            data_note: None,
        }
    }

    /// The row of an experiment the paper does not have (the project's design around it):
    /// `paper` is cited with "(project design; the paper has no experiments)".
    pub fn project_design(id: &str, paper: &str, description: &str) -> Self {
        Self::new(
            id,
            format!("{paper} (project design; the paper has no experiments)"),
            description,
        )
    }
}

/// One varied parameter and its grid values (in plotting order).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Axis {
    /// Column name in `results.csv`: `epsilon`, `n`, `d`, `s_star` or `subsample_pct`.
    pub name: &'static str,
    pub values: Vec<f64>,
}

/// One grid point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Setting {
    /// The varied parameters' values, in [`Plan::axes`] order.
    pub values: Vec<(&'static str, f64)>,
    pub epsilon: f64,
    /// Training sample size (synthetic data; real data: resolved from `fraction`).
    pub n: Option<usize>,
    /// Dimension (synthetic data; real data: the dataset's).
    pub d: Option<usize>,
    /// s\* of the sparse scenarios.
    pub sparsity: Option<usize>,
    /// Subsample share of a real dataset.
    pub fraction: Option<f64>,
    /// The scenario's `--param` values (e.g. `zeta` of `tian-sparse-student`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub scenario_params: BTreeMap<String, f64>,
}

impl Setting {
    /// A setting on simulated data: n records of dimension d (s* = `sparsity`), no
    /// subsample and no scenario parameters; `values` is left to the grid.
    pub fn synthetic(epsilon: f64, n: usize, d: usize, sparsity: Option<usize>) -> Setting {
        Setting {
            values: vec![],
            epsilon,
            n: Some(n),
            d: Some(d),
            sparsity,
            fraction: None,
            scenario_params: BTreeMap::new(),
        }
    }

    /// `name=value` pairs joined by `,` — the label used in seeds and the summary.
    pub fn key(&self) -> String {
        self.values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// The constraint set of a method; the sparse set takes s\* from the setting.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum DomainKind {
    L1Ball { radius: f64 },
    Sparse { radius: f64 },
}

/// One method (a curve): an algorithm with its loss, domain and parameters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodSpec {
    /// Unique label (legend, `results.csv` `method` column, seed label).
    pub label: String,
    /// The `--algorithm` name.
    pub algorithm: String,
    pub loss: LossKind,
    pub domain: DomainKind,
    /// `--param` values given to the algorithm (the rest are its defaults).
    pub params: ParamMap,
    /// Copy `T` from this earlier method's fit report in the same repetition (the
    /// non-private baselines of the (c) panels run as many iterations as the private run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t_from: Option<String>,
    /// Parameters set to ln d of the setting at fit time (e.g. DP-SLR's public bound
    /// B = ln d, Tian et al. §6 / spec T15).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ln_d_params: Vec<&'static str>,
}

impl MethodSpec {
    /// `algorithm` with `loss`, `domain` and `params`, labelled `label`, running its own
    /// T (`t_from` none) with no ln d parameters.
    pub fn new(
        label: impl Into<String>,
        algorithm: &str,
        loss: LossKind,
        domain: DomainKind,
        params: ParamMap,
    ) -> MethodSpec {
        MethodSpec {
            label: label.into(),
            algorithm: algorithm.to_string(),
            loss,
            domain,
            params,
            t_from: None,
            ln_d_params: vec![],
        }
    }
}

/// Where the data come from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Source {
    /// A `heavydp simulate` scenario.
    Synthetic { scenario: &'static str },
    /// A shipped real dataset (CSV with response `y`) replacing the paper's.
    Real {
        /// File name in the data folder.
        file: &'static str,
        /// The paper's dataset it replaces.
        replaces: &'static str,
    },
}

/// A hyperparameter or protocol decision, and whether the project (rather than the
/// paper) made it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Choice {
    pub name: String,
    pub value: String,
    pub project_choice: bool,
    /// Where it comes from (paper section, spec item).
    pub source: String,
}

impl Choice {
    /// A recorded choice: `name` = `value`, whether the project (not the paper) made it,
    /// and its source.
    pub fn new(name: &str, value: impl Into<String>, project: bool, source: &str) -> Choice {
        Choice {
            name: name.to_string(),
            value: value.into(),
            project_choice: project,
            source: source.to_string(),
        }
    }
}

/// A runnable experiment: the grid, the methods and everything fixed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    pub id: String,
    pub paper: String,
    pub description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_note: Option<String>,
    #[serde(skip)]
    pub options: PlanOptions,
    /// The varied parameters (columns of `results.csv`, in order).
    pub axes: Vec<Axis>,
    /// The axis on the figure's x-axis.
    pub x_axis: &'static str,
    /// The axis with one curve per value (None: one curve per method).
    pub series_axis: Option<&'static str>,
    pub settings: Vec<Setting>,
    pub methods: Vec<MethodSpec>,
    /// Metric names, in plotting order.
    pub metrics: Vec<&'static str>,
    pub source: Source,
    /// The loss all methods are evaluated with.
    pub loss: LossKind,
    /// ℓ2 penalty weight λ_reg included in the evaluated risk ((λ_reg/2)‖w‖₂²).
    pub eval_l2_penalty: f64,
    /// Fixed quantities (n, d, ε, s\*, δ rule, …).
    pub fixed: BTreeMap<String, serde_json::Value>,
    pub choices: Vec<Choice>,
    /// Iterations of the non-private Frank–Wolfe reference w\* of real-data panels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference_t: Option<usize>,
}

impl Plan {
    /// Whether a method is asked for the paper's printed settings of Algorithm 1
    /// (s = ⌊nε⌋, spec H20) or Algorithm 5 (k = c₂nε, spec H21) through its parameters.
    /// (The summary also checks the presets the fits report.)
    pub fn uses_printed_settings(&self) -> bool {
        self.methods.iter().any(|m| {
            matches!(m.algorithm.as_str(), "ht-frank-wolfe" | "ht-sparse-opt")
                && (m.params.get("preset").map(String::as_str) == Some("paper")
                    || m.params.get("s").map(String::as_str) == Some("paper")
                    || m.params.get("k").map(String::as_str) == Some("paper"))
        })
    }
}

/// Mean and sample standard deviation (n − 1 denominator) of repeated measurements:
/// sd 0 for one value, both NaN for none. Every summary row of the experiments
/// (`results.csv`, the benchmark, the genomics and rate tables) uses it.
pub fn mean_sd(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    if v.len() == 1 {
        return (m, 0.0);
    }
    let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    (m, var.sqrt())
}

/// One metric of one method summarised over its repetitions (the paper experiments) or
/// splits (the real-data benchmark): the values and their [`mean_sd`]. Both [`ResultRow`]
/// and [`benchmark::BenchRow`] hold one, serialised inline (`mean`, `std`, `reps`,
/// `values` after the row's own fields).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Mean over the successful repetitions (NaN when none succeeded).
    pub mean: f64,
    /// Sample standard deviation (n − 1 denominator; 0 for one repetition).
    pub std: f64,
    /// Number of successful repetitions.
    pub reps: usize,
    /// The per-repetition values, in repetition order (failed ones left out).
    pub values: Vec<f64>,
}

impl Summary {
    /// The summary of `values` (in repetition order).
    pub fn of(values: Vec<f64>) -> Self {
        let (mean, std) = mean_sd(&values);
        Summary {
            mean,
            std,
            reps: values.len(),
            values,
        }
    }

    /// Standard error of the mean, std/√reps (NaN for no repetition).
    pub fn std_error(&self) -> f64 {
        if self.reps == 0 {
            f64::NAN
        } else {
            self.std / (self.reps as f64).sqrt()
        }
    }
}

/// One row of `results.csv`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResultRow {
    pub setting: Vec<(&'static str, f64)>,
    pub setting_key: String,
    pub method: String,
    pub metric: String,
    /// The metric over the setting's successful repetitions.
    #[serde(flatten)]
    pub summary: Summary,
}

/// The hyperparameters a method actually used in a setting (from the first successful
/// repetition's fit report; they depend only on public quantities, so they are the same
/// in every repetition).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResolvedHyperparameters {
    pub setting: String,
    pub method: String,
    pub hyperparameters: BTreeMap<String, serde_json::Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// A fit that failed (the repetition is left out of that method's mean).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    pub setting: String,
    pub method: String,
    pub rep: usize,
    pub error: String,
}

/// Seeds of one setting.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SettingSeeds {
    pub setting: String,
    /// `derive_seed(base_seed, [id, setting, r])` for r = 0, 1, …
    pub rep_seeds: Vec<u64>,
}

/// Wall-clock timings (seconds).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timings {
    pub total_seconds: f64,
    /// Loading / standardising the real dataset and fitting its reference w\*.
    pub reference_seconds: f64,
    /// Per setting: summed repetition times (work, not wall-clock, when parallel).
    pub per_setting_seconds: Vec<(String, f64)>,
    /// Per method: summed fit times.
    pub per_method_seconds: BTreeMap<String, f64>,
}

/// The real dataset as used (after preprocessing).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RealDataInfo {
    pub file: String,
    pub path: String,
    pub n: usize,
    pub d: usize,
    /// Features with zero variance (set to 0 after standardisation).
    pub constant_features: Vec<String>,
    pub preprocessing: Vec<String>,
    pub reference_t: usize,
    /// L̂(w\*) on the full standardised data.
    pub reference_risk: f64,
}

/// The run header of the hand-written experiments' results (`wangxu-rate`,
/// `zhao-mean-tails`): the base seed every repetition's seed derives from, the number of
/// repetitions per setting and whether the `--quick` grid was used. Serialised inline
/// (`base_seed`, `reps`, `quick` at the top of the results JSON).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RunInfo {
    pub base_seed: u64,
    pub reps: usize,
    pub quick: bool,
}

/// The outcome of [`run`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Results {
    pub base_seed: u64,
    pub reps: usize,
    pub rows: Vec<ResultRow>,
    pub seeds: Vec<SettingSeeds>,
    pub resolved: Vec<ResolvedHyperparameters>,
    pub failures: Vec<Failure>,
    pub timings: Timings,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub real_data: Option<RealDataInfo>,
}
