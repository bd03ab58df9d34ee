//! `ht-sparse-opt`: heavy-tailed private sparse optimisation (Hu, Ni, Xiao & Wang,
//! Alg. 5; Theorem 8). Spec: `spec/hu2021-high-dim-heavy-tailed.md` §F, §E, ambiguities
//! H16–H18, H21.
//!
//! # Algorithm
//!
//! ```text
//! split D into T disjoint chunks of m = ⌊n/T⌋ records
//! λ = 4√2·k·η / (3m)                     (proven ℓ∞ sensitivity; the paper prints 4√2kη/m: H17)
//! w¹ = 0
//! for t = 1..T:
//!     g̃ = RG(w^t, D_t; k, β) + λ_reg·w^t      (Catoni–Giulini robust gradient at w^t: H16)
//!     w^{t+1} = Peeling(w^t − η·g̃, s, ε, δ, λ)
//! return w^{T+1} · min(1, R/‖w^{T+1}‖₂)   (s-sparse; the paper returns the improper w^{T+1}:
//!                                           the projection on the domain's ℓ2 ball is post-processing)
//! ```
//!
//! Tasks: `task=loss` minimises the mean loss (squared, logistic — with the ℓ2 penalty
//! `lambda_reg` for the regularised logistic regression of Figs. 10–11 — or huber);
//! `task=mean` estimates an s*-sparse mean of the feature vectors (per-sample gradient
//! w − x_i of ½‖w − x_i‖², spec §F "sparse mean estimation"; the target column is ignored).
//!
//! # Privacy
//!
//! **(ε, δ)-DP** (Theorem 8). Each per-sample contribution to g̃ is clamped to
//! ±(2√2/3)k/m ([`crate::estimators::catoni`]), so replacing one record of the chunk
//! moves g̃ by ≤ 4√2k/(3m) and w^t − ηg̃ by ≤ λ in ℓ∞; λ_reg·w^t does not depend on the
//! chunk. Peeling with that λ is (ε, δ)-DP (Lemma 10 with the validity check of spec §E)
//! and each chunk is read once. ε = ∞ gives the non-private robust IHT iterate (exact
//! hard thresholding; defaults evaluated at ε = 1).
//!
//! # Parameters
//!
//! | name | symbol | `heavydp` (default) | `paper` | `theory` | source |
//! |---|---|---|---|---|---|
//! | `s` | s | c·s* | c·s* | ⌈72(γ/μ)²s*⌉ | §6.5; Thm 8 proof |
//! | `c` | — | 2 | 2 | — | §6.5 (s = 2s*) |
//! | `T` | T | max(1, ⌊ln n⌋) | max(1, ⌊ln n⌋) | ⌈(γ/μ) ln n⌉ | §6.5; Thm 8 |
//! | `eta` | η | 0.5 | 0.5 | 2/(3γ) | §6.5; Thm 8 |
//! | `k` | k | (n²ε²τ²/((sT)² ln(Ts/ζ)))^{1/4} | c₂·nε | as `heavydp` | Thm 8 proof (H18); §6.5 (H21) |
//! | `c2` | c₂ | — | 1 | — | §6.5 (unstated integer) |
//! | `peeling_lambda` | λ | `proven` = 4√2kη/(3m) | `paper` = 4√2kη/m | `proven` | H17 |
//! | `beta` | β | 1 | 1 | 1 | H19 |
//! | `tau` | τ | 1 | — | 1 | user-declared E(∇_jℓ)² ≤ τ (Assumption 4) |
//! | `fail_prob` | ζ | 0.05 | — | 0.05 | formulas |
//! | `gamma`, `mu` | γ_r, μ_r | — | — | 1, 1 | user-declared RSS/RSC constants |
//! | `lambda_reg` | λ_reg | 0 (squared), 0.01 (logistic) | same | same | H19 |
//! | `task` | — | `loss` | | | `mean` for sparse mean estimation |
//! | δ | δ | n^{−1.1} when the budget's δ is 0 | | | §6.5 |
//!
//! The default preset `heavydp` is the spec's "heavydp defaults" (§F): the experiments'
//! s, T, η with the proof's robust scale k. The printed k = c₂·nε gives a Peeling noise
//! scale in the thousands for a unit-norm w (H21) and the theory's s = 72s* keeps far too
//! many coordinates; `docs/reproduction.md` (Figs. 10–11) compares the three.
//!
//! # Errors
//! Losses other than squared, logistic, huber; a domain other than `sparse`; T > n;
//! s > d; δ ∉ (0, 1); an (ε, δ, s) for which Peeling's composition does not close.

use super::super::frank_wolfe::{robust_gradient_sensitivity, ScaleRule};
use super::super::*;
use super::{exact_thresholding_note, HuParams, IhtAlgorithm, IhtInfo, IhtLoop, IhtSizes};
use crate::estimators::catoni::RobustWorkspace;
use crate::params::param_words;

const NAME: &str = "ht-sparse-opt";

/// The registry entry of `ht-sparse-opt` ([`crate::algorithms::REGISTRY`]).
pub const DESCRIPTOR: AlgorithmDescriptor = AlgorithmDescriptor::new(
    NAME,
    <HtSparseOpt as IhtAlgorithm>::info,
    |p| boxed(HtSparseOpt::from_params(p)),
    ("squared", "sparse"),
)
.cited(crate::algorithms::Citation {
    authors: "Hu, Ni, Xiao & Wang",
    title: "*High-dimensional DP stochastic optimisation with heavy-tailed data*",
    item: "Alg. 5",
    summary: "robust-gradient IHT with Peeling (sparse regression / logistic / mean)",
    rust: "iht::HtSparseOpt",
    spec: "hu §F, H16–H18, H21",
});
const LOSSES: &[&str] = &["squared", "logistic", "huber"];

/// Parameter presets of `ht-sparse-opt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SparseOptPreset {
    /// The spec's heavydp defaults: experiment s, T, η with the proof's k.
    Heavydp,
    /// Every printed experiment setting (k = c₂nε, printed λ).
    Paper,
    /// Theorem 8 with user-declared γ, μ.
    Theory,
}
param_words!(SparseOptPreset: "heavydp" => Heavydp, "paper" => Paper, "theory" => Theory);

/// What is being estimated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SparseTask {
    /// Minimise the mean loss (+ ridge penalty).
    Loss,
    /// Sparse mean of the feature vectors.
    Mean,
}
param_words!(SparseTask: "loss" => Loss, "mean" => Mean);

/// `ht-sparse-opt` (Hu et al. Alg. 5). See the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct HtSparseOpt {
    pub preset: SparseOptPreset,
    pub task: SparseTask,
    /// `s`, `T`, `c`, `eta`, `gamma`, `mu`, `chunking`, `calibration`.
    pub hu: HuParams,
    /// The robust scale k: the preset's rule, the proof's formula (`Theory`), the
    /// printed c₂·nε (`Paper`) or a value.
    pub k: ScaleRule,
    pub c2: f64,
    pub beta: f64,
    pub tau: f64,
    pub fail_prob: f64,
    pub lambda_reg: Option<f64>,
    /// `None` = the preset's rule; `Some(true)` = printed 4√2kη/m.
    pub paper_lambda: Option<bool>,
}

impl Default for HtSparseOpt {
    fn default() -> Self {
        HtSparseOpt {
            preset: SparseOptPreset::Heavydp,
            task: SparseTask::Loss,
            hu: HuParams::default(),
            k: ScaleRule::Preset,
            c2: 1.0,
            beta: 1.0,
            tau: 1.0,
            fail_prob: 0.05,
            lambda_reg: None,
            paper_lambda: None,
        }
    }
}

/// The resolved, public plan of a fit.
#[derive(Debug, Clone, PartialEq)]
pub struct HtSparseOptPlan {
    /// (the output is projected on the domain's ℓ2 radius R once, at the end)
    pub sizes: IhtSizes,
    pub k: f64,
    pub eta: f64,
    pub lambda_reg: f64,
    /// ℓ∞ sensitivity λ passed to Peeling.
    pub lambda: f64,
}

impl HtSparseOpt {
    pub fn from_params(params: &ParamMap) -> Result<Self, FitError> {
        let p = DESCRIPTOR.params(params)?;
        let preset = p.pick("preset", SparseOptPreset::WORDS)?;
        let k = ScaleRule::parse(&p, NAME, "k")?;
        Ok(HtSparseOpt {
            preset,
            task: p.pick("task", SparseTask::WORDS)?,
            hu: HuParams::parse(&p)?,
            k,
            c2: p.positive("c2")?.unwrap_or(1.0),
            beta: p.positive("beta")?.unwrap_or(1.0),
            tau: p.positive("tau")?.unwrap_or(1.0),
            fail_prob: fail_prob_param(NAME, &p)?,
            lambda_reg: p.non_negative("lambda_reg")?,
            paper_lambda: p
                .choice("peeling_lambda", &["proven", "paper"])?
                .map(|v| v == "paper"),
        })
    }
}

impl IhtAlgorithm for HtSparseOpt {
    type Plan = HtSparseOptPlan;
    const INFO: IhtInfo = IhtInfo {
        name: NAME,
        losses: LOSSES,
        use_when: "sparse high-d linear/logistic/Huber fit, heavy-tailed gradients",
        paper: "Hu, Ni, Xiao & Wang, Alg. 5",
        chunked: true,
        parameters: &[
            ParamInfo { name: "preset", default: "heavydp", meaning: "heavydp: experiment s, T, eta with the proof's k; paper: all printed settings (k = c2*n*eps, lambda = 4*sqrt(2)*k*eta/m); theory: Theorem 8 with gamma, mu", source: "spec Hu F 'heavydp defaults'; Sec. 6.5; Thm 8" },
            ParamInfo { name: "task", default: "loss", meaning: "loss: minimise the mean loss; mean: s*-sparse mean of the feature vectors", source: "Hu Sec. 5.2" },
            ParamInfo { name: "c", default: "2", meaning: "s = c * s* (s* = --sparsity)", source: "Hu Sec. 6.5" },
            ParamInfo { name: "s", default: "2*s*; theory: ceil(72 (gamma/mu)^2 s*), at most d", meaning: "number of coordinates kept by Peeling", source: "Hu Sec. 6.5; Thm 8 proof" },
            ParamInfo { name: key::T, default: "max(1, floor(ln n)); theory: ceil((gamma/mu) ln n)", meaning: "iterations = disjoint chunks", source: "Hu Sec. 6.5; Thm 8" },
            ParamInfo { name: "k", default: "(n^2 eps^2 tau^2 / ((s T)^2 ln(T s/zeta)))^(1/4); paper: c2*n*eps", meaning: "scale of the robust gradient (number, 'theory' or 'paper')", source: "Hu Thm 8 proof (spec H18); Sec. 6.5 (H21)" },
            ParamInfo { name: "c2", default: "1", meaning: "multiplier of the printed k = c2*n*eps", source: "Hu Sec. 6.5 (unstated integer)" },
            ParamInfo { name: "eta", default: "0.5; theory: 2/(3*gamma)", meaning: "step size", source: "Hu Sec. 6.5; Thm 8" },
            ParamInfo { name: "beta", default: "1", meaning: "precision of the smoothing noise", source: "spec H19" },
            ParamInfo { name: "tau", default: "1", meaning: "user-declared bound on E(d_j loss)^2", source: "Hu Assumption 4" },
            ParamInfo { name: "fail_prob", default: "0.05", meaning: "failure probability zeta in k", source: "Hu Thm 8 proof" },
            ParamInfo { name: "gamma", default: "1", meaning: "user-declared restricted smoothness (theory preset)", source: "Hu Thm 8" },
            ParamInfo { name: "mu", default: "1", meaning: "user-declared restricted strong convexity (theory preset)", source: "Hu Thm 8" },
            ParamInfo { name: "lambda_reg", default: "0.01 for logistic, 0 otherwise", meaning: "l2 penalty (lambda_reg/2)||w||^2 added exactly to the robust gradient", source: "spec H19 (Figs. 10-11)" },
            ParamInfo { name: "peeling_lambda", default: "proven", meaning: "proven = 4*sqrt(2)*k*eta/(3m); paper = printed 4*sqrt(2)*k*eta/m", source: "spec H17" },
        ],
    };

    fn plan(&self, problem: &Problem, budget: &Budget) -> Result<HtSparseOptPlan, FitError> {
        let n = problem.data.n();
        let eps = formula_epsilon(budget);
        let theory = self.preset == SparseOptPreset::Theory;
        let (sizes, eta) = self.hu.resolve(NAME, problem, theory)?;
        let ne = n as f64 * eps;
        let paper_k = ne * self.c2;
        let k = match self.k {
            ScaleRule::Value(k) => k,
            ScaleRule::Paper => paper_k,
            ScaleRule::Preset if self.preset == SparseOptPreset::Paper => paper_k,
            ScaleRule::Preset | ScaleRule::Theory => {
                let st = sizes.s as f64 * sizes.big_t as f64;
                let l = (st / self.fail_prob).ln().max(1.0);
                (ne * ne * self.tau * self.tau / (st * st * l)).powf(0.25)
            }
        };
        let lambda_reg = self.lambda_reg.unwrap_or(match problem.loss {
            LossKind::Logistic if self.task == SparseTask::Loss => 0.01,
            _ => 0.0,
        });
        let paper_lambda = self
            .paper_lambda
            .unwrap_or(self.preset == SparseOptPreset::Paper);
        let proven = eta * robust_gradient_sensitivity(k, sizes.m);
        let lambda = if paper_lambda { 3.0 * proven } else { proven };
        Ok(HtSparseOptPlan {
            sizes,
            k,
            eta,
            lambda_reg,
            lambda,
        })
    }

    fn iht_loop<'p>(&self, plan: &'p HtSparseOptPlan, budget: &Budget) -> IhtLoop<'p> {
        let schedule = plan.sizes.constant(plan.eta, plan.lambda);
        let mut iht = IhtLoop::chunked(NAME, &plan.sizes, self.hu.peeling, budget, schedule);
        // The paper's output is improper; heavydp projects it on the domain's ℓ2 ball
        // once, after the last Peeling.
        iht.project_each_step = false;
        iht
    }

    fn run(&self, plan: HtSparseOptPlan, inputs: FitInputs) -> Result<FitReport, FitError> {
        let (problem, budget) = (inputs.problem, inputs.budget);
        let data = problem.data;
        let d = data.d();
        let estimator = catoni_giulini(NAME, "k", plan.k, self.beta)?;
        let iht = self.iht_loop(&plan, &budget);
        let mut g = vec![0.0; d];
        let mut ws = RobustWorkspace::new();
        // w ← w − η (robust gradient (or robust mean of w − x) + λ_reg w).
        let step = |_: usize, rows: &[usize], w: &mut Vec<f64>| {
            match self.task {
                SparseTask::Loss => {
                    estimator.gradient_of(&problem.loss, data, data.y(), rows, w, &mut g, &mut ws)
                }
                SparseTask::Mean => {
                    let wr = &*w;
                    estimator.mean_of_rows_with(
                        rows,
                        d,
                        |i, buf: &mut [f64]| {
                            data.read_row(i, buf);
                            for (b, wj) in buf.iter_mut().zip(wr) {
                                *b = wj - *b;
                            }
                        },
                        &mut g,
                        &mut ws,
                    )
                }
            }
            for (wj, gj) in w.iter_mut().zip(&g) {
                *wj -= plan.eta * (gj + plan.lambda_reg * *wj);
            }
        };
        let run = iht.run(inputs, step)?;
        let mut h = iht.hyperparameters(&run, self.preset.name());
        hp(&mut h, "task", self.task.name());
        hp(&mut h, "k", plan.k);
        hp(&mut h, "beta", self.beta);
        hp(&mut h, "tau", self.tau);
        hp(&mut h, "fail_prob", self.fail_prob);
        hp(&mut h, "lambda_reg", plan.lambda_reg);
        self.hu
            .record_declared(&mut h, self.preset == SparseOptPreset::Theory);
        let defaults = "default k evaluated at epsilon = 1; ";
        let mut notes: Vec<String> = exact_thresholding_note(&budget, defaults)
            .into_iter()
            .collect();
        if self.preset == SparseOptPreset::Paper {
            notes.push(
                "preset paper: k = c2*n*eps makes the Peeling noise very large (spec H21)"
                    .to_string(),
            );
        }
        Ok(run.report(h, notes))
    }
}
