//! `ht-frank-wolfe`: heavy-tailed DP Frank–Wolfe (Hu, Ni, Xiao & Wang, Alg. 1;
//! Theorems 1–3). Spec: `spec/hu2021-high-dim-heavy-tailed.md` §B, ambiguities H5–H9, H20.
//!
//! # Algorithm
//!
//! ```text
//! split D into T disjoint chunks of m = ⌊n/T⌋ records           (data-independent, B.4)
//! Δ = c_W · 4√2·s/(3m)                                         (score sensitivity)
//! w⁰ = 0 (balls) or the average vertex (simplex, polytope)
//! for t = 1..T:
//!     g̃ = RG(w^{t−1}, D_t; s, β)      Catoni–Giulini robust gradient, coordinate-wise (§A.4)
//!     ṽ = exponential mechanism over the vertices V, utility u(v) = −⟨v, g̃⟩, sensitivity Δ, ε
//!     w^t = (1 − η_t) w^{t−1} + η_t ṽ
//! return w^T
//! ```
//!
//! # Privacy
//!
//! **Pure ε-DP** (Theorem 1). Every coordinate of the robust gradient moves by at most
//! 4√2s/(3m) when one record of the chunk is replaced, because each record's
//! contribution Ψ is clamped to ±2√2/3 ([`crate::estimators::catoni`]). A score
//! −⟨v, g̃⟩ therefore moves by at most c_W·4√2s/(3m), with c_W the ℓ1 diameter of W
//! (`sensitivity=paper`, the paper's constant) or max_v ‖v − v̄‖₁ for the average vertex
//! v̄ ∈ W (`sensitivity=tight`, spec H8: shifting all scores by ⟨v̄, g̃⟩ does not change
//! the mechanism). Each chunk is read by one ε-DP selection only: the ledger uses
//! parallel composition. ε = ∞ replaces the mechanism by the exact argmax and
//! reproduces the non-private iteration exactly (the default T and s are then evaluated
//! at ε = 1, see [`formula_epsilon`]).
//!
//! # Parameters
//!
//! | name | symbol | default | source |
//! |---|---|---|---|
//! | `preset` | — | `theory` | `theory`: Theorem 2/3 formulas below; `paper`: §6.2 settings (s = ⌊nε⌋) |
//! | `T` | T | convex losses: ⌊(nε)^{1/3}⌋ (both presets); biweight (theory): ⌊√(nε / ln(d/ζ))⌋ | §6.2; Thm 2; Thm 3 |
//! | `s` | s | theory: √(nετ / (T ln(\|V\| d T/ζ))); biweight: √(nετ / (T ln(dT/ζ))); paper: ⌊nε⌋ | Thm 2, Thm 3 (spec B "heavydp defaults"); §6.2 (H20) |
//! | `beta` | β | 1 | Thm 2 (β = O(1)); spec H19 |
//! | `tau` | τ | 1 | user-declared bound E(∇_jℓ)² ≤ τ (Assumption 1) |
//! | `fail_prob` | ζ | 0.05 | failure probability in the formulas |
//! | `steps` | η_t | convex: `theorem` = 2/(t+2); biweight (theory): `constant` = 1/√T; `jaggi` = 2/(t+1) | Thm 2 (H5); Thm 3 |
//! | `sensitivity` | c_W | `paper` (ℓ1 diameter) | spec H8 (`tight` halves it on the ℓ1 ball) |
//! | `chunking` | — | `shuffle` | spec B.4 |
//!
//! The default preset is `theory`: with the paper's s = ⌊nε⌋ the score sensitivity is
//! so large that the vertex choice is within a fraction of a percent of uniform (spec
//! H20), and in our runs (`docs/reproduction.md`, Fig. 1) its error does not fall with n.
//!
//! # Errors
//! Losses other than squared, logistic, huber and biweight; domains other than
//! `l1-ball`, `simplex`, `polytope`; T > n (fewer records than chunks); nε < 1 with
//! `s=paper` (s = ⌊nε⌋ = 0); non-positive β, τ; ζ ∉ (0, 1).
//!
//! # Example
//! ```
//! use heavydp::algorithms::{frank_wolfe::HtFrankWolfe, NoObserver, PrivateAlgorithm, Problem};
//! use heavydp::constraints::L1Ball;
//! use heavydp::data::Dataset;
//! use heavydp::loss::LossKind;
//! use heavydp::noise::rng_from_seed;
//! use heavydp::privacy::Budget;
//! let x: Vec<f64> = (0..400).map(|i| ((i * 37 % 101) as f64 / 50.0 - 1.0).powi(3)).collect();
//! let y: Vec<f64> = x.chunks(2).map(|r| 0.7 * r[0] - 0.3 * r[1]).collect();
//! let data = Dataset::from_rows(x, y, 2).unwrap();
//! let domain = L1Ball { d: 2, radius: 1.0 };
//! let problem = Problem { data: &data, loss: LossKind::Squared, domain: &domain };
//! let report = HtFrankWolfe::default()
//!     .fit(&problem, Budget::pure(1.0).unwrap(), &mut rng_from_seed(1), &mut NoObserver)
//!     .unwrap();
//! assert_eq!(report.privacy.epsilon, 1.0);
//! assert!(report.weights.iter().map(|w| w.abs()).sum::<f64>() <= 1.0 + 1e-12);
//! ```

use super::super::row_sums::{fit_locally, Kernel, RowSums, Selection};
use super::super::*;
use super::descent_utilities;
use crate::mechanisms::{release_on_chunk, ExponentialMechanism};
use crate::params::param_words;
use crate::privacy::{Accountant, PrivacyLedger};

const NAME: &str = "ht-frank-wolfe";

/// The registry entry of `ht-frank-wolfe` ([`crate::algorithms::REGISTRY`]).
pub const DESCRIPTOR: AlgorithmDescriptor = AlgorithmDescriptor::new(
    NAME,
    HtFrankWolfe::info,
    |p| boxed(HtFrankWolfe::from_params(p)),
    ("squared", "l1-ball"),
)
.distributed()
.chunked()
.cited(crate::algorithms::Citation {
    authors: "Hu, Ni, Xiao & Wang",
    title: "*High-dimensional DP stochastic optimisation with heavy-tailed data*",
    item: "Alg. 1",
    summary: "heavy-tailed DP Frank–Wolfe (Catoni–Giulini robust gradient + exponential mechanism), pure ε-DP",
    rust: "frank_wolfe::HtFrankWolfe",
    spec: "hu §B, H5–H9, H20",
});
const LOSSES: &[&str] = &["squared", "logistic", "huber", "biweight"];
const DOMAINS: &[&str] = &["l1-ball", "simplex", "polytope"];

/// How the robust scale s is chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScaleRule {
    /// The preset's rule.
    Preset,
    /// Theorem 2 / 3 formula.
    Theory,
    /// ⌊nε⌋ (§6.2).
    Paper,
    /// A given value.
    Value(f64),
}

impl ScaleRule {
    /// Reads a robust-scale parameter: a number > 0, `theory` or `paper` (absent: the
    /// preset's rule).
    pub fn parse(p: &Params, algorithm: &'static str, key: &str) -> Result<Self, FitError> {
        Ok(match p.string(key) {
            None => ScaleRule::Preset,
            Some("theory") => ScaleRule::Theory,
            Some("paper") => ScaleRule::Paper,
            Some(_) => ScaleRule::Value(
                p.positive(key)
                    .map_err(|_| FitError::BadParameter {
                        algorithm,
                        param: key.into(),
                        reason: "expected a number > 0, 'theory' or 'paper'".into(),
                    })?
                    .expect("present"),
            ),
        })
    }
}

/// Frank–Wolfe step schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HtStep {
    /// The preset's rule (theorem for convex losses, constant for biweight under theory).
    Preset,
    /// η_t = 2/(t+2) for the t-th update, t = 1..T (Theorems 2, 5).
    Theorem,
    /// η_t = 2/(t+1) (Jaggi's schedule, first step 1).
    Jaggi,
    /// η = 1/√T (Theorem 3, non-convex robust regression).
    Constant,
}

impl HtStep {
    fn name(self) -> &'static str {
        match self {
            HtStep::Preset => "preset",
            HtStep::Theorem => "theorem",
            HtStep::Jaggi => "jaggi",
            HtStep::Constant => "constant",
        }
    }
    fn eta(self, t: usize, big_t: usize) -> f64 {
        match self {
            HtStep::Jaggi => 2.0 / (t as f64 + 1.0),
            HtStep::Constant => 1.0 / (big_t as f64).sqrt(),
            _ => 2.0 / (t as f64 + 2.0),
        }
    }
}

/// Which constant multiplies the ℓ∞ sensitivity of g̃ in the score sensitivity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoreSensitivity {
    /// The ℓ1 diameter of W (Alg. 1 as printed).
    Paper,
    /// max_v ‖v − v̄‖₁ with v̄ the average vertex (spec H8).
    Tight,
}
param_words!(ScoreSensitivity = "sensitivity": "paper" => Paper, "tight" => Tight);

impl ScoreSensitivity {
    /// The constant c_W for a polytope domain.
    pub(crate) fn constant(self, domain: &dyn ConstraintSet) -> f64 {
        match self {
            ScoreSensitivity::Paper => domain.l1_diameter(),
            ScoreSensitivity::Tight => {
                let kind = domain.describe()["kind"].as_str().unwrap_or("").to_string();
                match kind.as_str() {
                    // v̄ = 0, ‖±R e_j‖₁ = R.
                    "l1-ball" => domain.l1_radius(),
                    // v̄ = (1/d)1, ‖e_j − v̄‖₁ = 2(1 − 1/d).
                    "simplex" => 2.0 * (1.0 - 1.0 / domain.dim() as f64),
                    _ => {
                        let p = domain.as_polytope().expect("polytope domain");
                        let d = domain.dim();
                        let k = p.num_vertices();
                        let mut bar = vec![0.0; d];
                        let mut v = vec![0.0; d];
                        for i in 0..k {
                            p.vertex(i, &mut v);
                            crate::linalg::axpy(1.0 / k as f64, &v, &mut bar);
                        }
                        let mut worst: f64 = 0.0;
                        for i in 0..k {
                            p.vertex(i, &mut v);
                            let dist: f64 = v.iter().zip(&bar).map(|(a, b)| (a - b).abs()).sum();
                            worst = worst.max(dist);
                        }
                        // Never more than the diameter (rounding in the average).
                        worst.min(domain.l1_diameter())
                    }
                }
            }
        }
    }
}

/// `ht-frank-wolfe` (Hu et al. Alg. 1). See the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct HtFrankWolfe {
    pub preset: Preset,
    /// Number of iterations (= chunks); `None` = the preset's formula.
    pub t: Option<usize>,
    pub scale: ScaleRule,
    pub beta: f64,
    pub tau: f64,
    pub fail_prob: f64,
    pub steps: HtStep,
    pub sensitivity: ScoreSensitivity,
    pub chunking: Chunking,
}

impl Default for HtFrankWolfe {
    fn default() -> Self {
        HtFrankWolfe {
            preset: Preset::Theory,
            t: None,
            scale: ScaleRule::Preset,
            beta: 1.0,
            tau: 1.0,
            fail_prob: 0.05,
            steps: HtStep::Preset,
            sensitivity: ScoreSensitivity::Paper,
            chunking: Chunking::Shuffle,
        }
    }
}

/// The resolved, public plan of a fit.
#[derive(Debug, Clone, PartialEq)]
pub struct HtFwPlan {
    pub big_t: usize,
    pub m: usize,
    pub scale: f64,
    pub steps: HtStep,
    /// Score sensitivity Δ = c_W·4√2 s/(3m).
    pub score_sensitivity: f64,
    pub vertices: usize,
}

/// The ℓ∞ sensitivity of the Catoni–Giulini estimate from m records at scale s: 4√2s/(3m).
pub fn robust_gradient_sensitivity(scale: f64, m: usize) -> f64 {
    4.0 * std::f64::consts::SQRT_2 * scale / (3.0 * m as f64)
}

fn positive_or(p: &Params, key: &str, default: f64) -> Result<f64, FitError> {
    Ok(p.positive(key)?.unwrap_or(default))
}

impl HtFrankWolfe {
    pub fn from_params(params: &ParamMap) -> Result<Self, FitError> {
        let p = DESCRIPTOR.params(params)?;
        let scale = ScaleRule::parse(&p, NAME, "s")?;
        Ok(HtFrankWolfe {
            preset: Preset::parse(&p, Preset::Theory)?,
            t: p.integer(key::T, 1)?,
            scale,
            beta: positive_or(&p, "beta", 1.0)?,
            tau: positive_or(&p, "tau", 1.0)?,
            fail_prob: fail_prob_param(NAME, &p)?,
            steps: match p.choice("steps", &["theorem", "jaggi", "constant"])? {
                Some("theorem") => HtStep::Theorem,
                Some("jaggi") => HtStep::Jaggi,
                Some("constant") => HtStep::Constant,
                _ => HtStep::Preset,
            },
            sensitivity: ScoreSensitivity::parse(&p)?,
            chunking: Chunking::parse(&p)?,
        })
    }

    pub fn info() -> AlgorithmInfo {
        AlgorithmInfo {
            name: NAME,
            use_when: "l1-ball fit with heavy-tailed features, pure DP; needs standardised data",
            paper: "Hu, Ni, Xiao & Wang, Alg. 1",
            privacy: "pure",
            losses: LOSSES.to_vec(),
            domains: DOMAINS.to_vec(),
            parameters: vec![
                ParamInfo { name: "preset", default: "theory", meaning: "theory: theorem formulas for s (and T, steps for biweight); paper: the experiments' s = floor(n*eps)", source: "Hu Thm 2, Thm 3, Sec. 6.2; spec H20" },
                ParamInfo { name: key::T, default: "floor((n*eps)^(1/3)); biweight+theory: floor(sqrt(n*eps/ln(d/zeta)))", meaning: "iterations = disjoint data chunks", source: "Hu Sec. 6.2, Thm 2; Thm 3" },
                ParamInfo { name: "s", default: "theory: sqrt(n*eps*tau/(T*ln(|V|*d*T/zeta))); paper: floor(n*eps)", meaning: "scale of the Catoni-Giulini robust gradient (number, 'theory' or 'paper')", source: "Hu Thm 2 (spec B), Sec. 6.2" },
                ParamInfo { name: "beta", default: "1", meaning: "precision of the multiplicative smoothing noise", source: "Hu Thm 2 (beta = O(1)); spec H19" },
                ParamInfo { name: "tau", default: "1", meaning: "user-declared bound on E(d_j loss)^2 (Assumption 1)", source: "Hu Assumption 1" },
                ParamInfo { name: "fail_prob", default: "0.05", meaning: "failure probability zeta in the formulas", source: "spec B heavydp defaults" },
                ParamInfo { name: "steps", default: "theorem = 2/(t+2); biweight+theory: constant = 1/sqrt(T)", meaning: "step schedule: theorem, jaggi = 2/(t+1), constant = 1/sqrt(T)", source: "Hu Thm 2 (H5), Thm 3" },
                ParamInfo { name: "sensitivity", default: "paper", meaning: "score sensitivity constant: paper = l1 diameter of W, tight = max_v ||v - mean vertex||_1", source: "spec H8" },
                Chunking::param_info(),
            ],
        }
    }

    fn nonconvex(problem: &Problem) -> bool {
        matches!(problem.loss, LossKind::Biweight { .. })
    }

    /// Resolves T, s, steps and the score sensitivity from public quantities only.
    pub fn plan(&self, problem: &Problem, budget: &Budget) -> Result<HtFwPlan, FitError> {
        let n = problem.data.n();
        let d = problem.data.d() as f64;
        let eps = formula_epsilon(budget);
        let ne = n as f64 * eps;
        let zeta = self.fail_prob;
        let vertices = problem.domain.as_polytope().map_or(0, |p| p.num_vertices());
        let theory_nonconvex = Self::nonconvex(problem) && self.preset == Preset::Theory;
        let big_t = match self.t {
            Some(t) => t,
            None if theory_nonconvex => floor_at_least_one((ne / (d / zeta).ln().max(1.0)).sqrt()),
            None => floor_at_least_one(ne.cbrt()),
        };
        check_chunks(NAME, n, big_t)?;
        let m = n / big_t;
        let t = big_t as f64;
        let rule = match self.scale {
            ScaleRule::Preset => match self.preset {
                Preset::Theory => ScaleRule::Theory,
                Preset::Paper => ScaleRule::Paper,
            },
            r => r,
        };
        let scale = match rule {
            ScaleRule::Value(v) => v,
            ScaleRule::Paper => {
                let s = ne.floor();
                if s < 1.0 {
                    return Err(FitError::BadParameter {
                        algorithm: NAME,
                        param: "s".into(),
                        reason: format!(
                            "s = floor(n*eps) = 0 for n*eps = {ne} < 1; give s explicitly"
                        ),
                    });
                }
                s
            }
            _ => {
                let log_term = if Self::nonconvex(problem) {
                    (d * t / zeta).ln()
                } else {
                    (vertices as f64 * d * t / zeta).ln()
                };
                (ne * self.tau / (t * log_term.max(1.0))).sqrt()
            }
        };
        let steps = match self.steps {
            HtStep::Preset if theory_nonconvex => HtStep::Constant,
            HtStep::Preset => HtStep::Theorem,
            s => s,
        };
        let score_sensitivity =
            self.sensitivity.constant(problem.domain) * robust_gradient_sensitivity(scale, m);
        Ok(HtFwPlan {
            big_t,
            m,
            scale,
            steps,
            score_sensitivity,
            vertices,
        })
    }
}

impl PrivateAlgorithm for HtFrankWolfe {
    /// Reads the features only through CatoniGiulini::gradient_of.
    fn identity(&self) -> Identity {
        Identity::mapped(NAME, PrivacyModel::Pure)
    }
    fn validate(&self, problem: &Problem, budget: &Budget) -> Result<(), FitError> {
        check_problem(self, problem, budget, LOSSES, DOMAINS)?;
        self.plan(problem, budget).map(|_| ())
    }
    fn fit_validated(&self, inputs: FitInputs) -> Result<FitReport, FitError> {
        fit_locally(self, inputs)
    }
    fn fit_with_sums(
        &self,
        problem: &Problem,
        sums: &mut dyn RowSums,
        budget: Budget,
        rng: &mut dyn RngCore,
        observer: &mut dyn Observer,
    ) -> Result<FitReport, FitError> {
        self.validate(problem, &budget)?;
        let plan = self.plan(problem, &budget)?;
        let data = problem.data;
        let d = data.d();
        let poly = problem.domain.as_polytope().expect("validated polytope");
        let estimator = catoni_giulini(NAME, "s", plan.scale, self.beta)?;
        let mech = ExponentialMechanism::new(plan.score_sensitivity, budget.epsilon)?;
        let mut ledger = PrivacyLedger::new(
            Budget {
                epsilon: budget.epsilon,
                delta: 0.0,
            },
            Accountant::Parallel,
        );
        let chunks = Chunks::new(NAME, data.n(), plan.big_t, self.chunking, rng)?;
        let mut w = problem.domain.start();
        let mut g = vec![0.0; d];
        let kernel = Kernel::CatoniPsi {
            loss: problem.loss,
            scale: estimator.scale,
            beta: estimator.beta,
        };
        let mut utilities = vec![0.0; plan.vertices];
        let mut trace = Vec::with_capacity(plan.big_t);
        let temperature = mech.temperature();
        observer.on_start(plan.big_t);
        for t in 1..=plan.big_t {
            // RG(w, chunk t) = (s/m)·Σ_{chunk t} Ψ(…) (Hu §A.4)
            let rows = Selection::Chunk {
                chunks: &chunks,
                index: t - 1,
            };
            sums.sum(&kernel, rows, &w, &mut g)?;
            estimator.scale_by_s_over_m(chunks.m(), &mut g);
            descent_utilities(poly, &g, &mut utilities);
            let v = release_on_chunk(
                &mut ledger,
                "vertex selection (exponential mechanism)",
                t - 1,
                &mech,
                &utilities,
                rng,
            )?;
            let eta = plan.steps.eta(t, plan.big_t);
            poly.move_toward_vertex(&mut w, v, eta);
            TraceRecord::push(&mut trace, observer, &ledger, t, (eta, temperature));
        }
        observer.on_finish();
        let mut h = BTreeMap::new();
        hp(&mut h, "preset", self.preset.name());
        hp(&mut h, key::T, plan.big_t);
        hp(&mut h, "m", plan.m);
        hp(&mut h, "s", plan.scale);
        hp(&mut h, "beta", self.beta);
        hp(&mut h, "tau", self.tau);
        hp(&mut h, "fail_prob", self.fail_prob);
        hp(&mut h, "steps", plan.steps.name());
        hp(&mut h, "sensitivity", self.sensitivity.name());
        hp(&mut h, "score_sensitivity", plan.score_sensitivity);
        hp(&mut h, "chunking", self.chunking.name());
        let mut notes = vec![];
        if budget.is_non_private() {
            notes.push("epsilon = inf: default T and s evaluated at epsilon = 1; exact argmax instead of the exponential mechanism".to_string());
        }
        if matches!(self.scale, ScaleRule::Paper)
            || (self.scale == ScaleRule::Preset && self.preset == Preset::Paper)
        {
            notes.push("s = floor(n*eps), the paper's printed setting: the vertex selection is close to uniform (spec H20)".to_string());
        }
        if data.n() > plan.big_t * plan.m {
            notes.push(format!(
                "{} records (n - T*m) unused by the chunking",
                data.n() - plan.big_t * plan.m
            ));
        }
        let privacy = ledger.summary(PrivacyModel::Pure);
        Ok(FitReport::fixed_iterations(w, privacy, h, trace, notes))
    }
}
