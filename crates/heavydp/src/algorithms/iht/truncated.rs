//! `ht-sparse-linreg`: heavy-tailed private sparse linear regression (Hu, Ni, Xiao &
//! Wang, Alg. 3; Theorems 6–7). Spec: `spec/hu2021-high-dim-heavy-tailed.md` §D, §E,
//! ambiguities H14, H15.
//!
//! # Algorithm
//!
//! ```text
//! shrink every record at K                                   (x̃, ỹ; spec B.5, on the fly)
//! split into T disjoint chunks of m = ⌊n/T⌋ records
//! λ = 2·K²·η₀·(R√s + 1) / m                                  (ℓ∞ sensitivity; R = 1 as printed)
//! w¹ = 0
//! for t = 1..T:
//!     w^{t+0.5}  = w^t − (η₀/m) Σ_{chunk t} x̃ (⟨x̃, w^t⟩ − ỹ)     (no factor 2: H14)
//!     w^{t+0.75} = Peeling(w^{t+0.5}, s, ε, δ, λ)
//!     w^{t+1}    = w^{t+0.75} · min(1, R/‖w^{t+0.75}‖₂)
//! return w^{T+1}
//! ```
//!
//! # Privacy
//!
//! **(ε, δ)-DP** (Theorem 6). w^t is s-sparse with ‖w^t‖₂ ≤ R, so ‖w^t‖₁ ≤ R√s and each
//! coordinate of x̃(⟨x̃, w^t⟩ − ỹ) is at most K(KR√s + K): replacing one record of the
//! chunk moves w^{t+0.5} by ≤ λ in ℓ∞. Peeling with that λ is (ε, δ)-DP (Lemma 10; the
//! validity check of spec §E is enforced), and each chunk is read once (parallel
//! composition). ε = ∞ makes Peeling exact hard thresholding: the non-private IHT
//! iterate (defaults evaluated at ε = 1).
//!
//! # Parameters
//!
//! | name | symbol | default | source |
//! |---|---|---|---|
//! | `preset` | — | `paper` | `paper`: §6.5 settings; `theory`: Theorem 7 with user-declared `gamma`, `mu` |
//! | `c` | c | 2 | s = c·s* (§6.5 "s = c·s*", c unstated: spec H19) |
//! | `s` | s | paper: c·s*; theory: ⌈72(γ/μ)²s*⌉ (capped at d) | §6.5; Thm 7 |
//! | `T` | T | paper: max(1, ⌊ln n⌋); theory: ⌈(γ/μ) ln n⌉ | §6.5; Thm 7 |
//! | `K` | K | (nε/(sT))^{1/4} | Thm 7, §6.5 |
//! | `eta` | η₀ | paper: 0.5; theory: 2/(3γ) | §6.5; Thm 7 (H14) |
//! | `gamma`, `mu` | γ, μ | 1, 1 | user-declared bounds on the eigenvalues of E xxᵀ (theory preset) |
//! | `chunking` | — | `shuffle` | spec B.4 |
//! | δ | δ | n^{−1.1} when the budget's δ is 0 | §6.5 |
//!
//! The default preset is `paper`: the theory's s = 72(γ/μ)²s* keeps dozens of times
//! more coordinates than the truth has, and each extra coordinate costs Peeling noise
//! (see `docs/reproduction.md`, Figs. 7–9).
//!
//! # Errors
//! Loss other than squared; a domain other than `sparse`; T > n; s > d; δ ∉ (0, 1);
//! an (ε, δ, s) for which Peeling's composition does not close.
//!
//! # Example
//! ```
//! use heavydp::algorithms::{iht::HtSparseLinreg, NoObserver, PrivateAlgorithm, Problem};
//! use heavydp::constraints::SparseBall;
//! use heavydp::data::Dataset;
//! use heavydp::loss::LossKind;
//! use heavydp::noise::rng_from_seed;
//! use heavydp::privacy::Budget;
//! let x: Vec<f64> = (0..4000).map(|i| ((i * 37 % 101) as f64 / 50.0 - 1.0)).collect();
//! let y: Vec<f64> = x.chunks(4).map(|r| 0.8 * r[0]).collect();
//! let data = Dataset::from_rows(x, y, 4).unwrap();
//! let domain = SparseBall { d: 4, s: 1, radius: 1.0 };
//! let problem = Problem { data: &data, loss: LossKind::Squared, domain: &domain };
//! let report = HtSparseLinreg::default()
//!     .fit(&problem, Budget::new(1.0, 1e-4).unwrap(), &mut rng_from_seed(1), &mut NoObserver)
//!     .unwrap();
//! assert!(report.weights.iter().filter(|w| **w != 0.0).count() <= 2);
//! ```

use super::super::*;
use super::{exact_thresholding_note, HuParams, IhtAlgorithm, IhtInfo, IhtLoop, IhtSizes};

const NAME: &str = "ht-sparse-linreg";

/// The registry entry of `ht-sparse-linreg` ([`crate::algorithms::REGISTRY`]).
pub const DESCRIPTOR: AlgorithmDescriptor = AlgorithmDescriptor::new(
    NAME,
    <HtSparseLinreg as IhtAlgorithm>::info,
    |p| boxed(HtSparseLinreg::from_params(p)),
    ("squared", "sparse"),
)
.cited(crate::algorithms::Citation {
    authors: "Hu, Ni, Xiao & Wang",
    title: "*High-dimensional DP stochastic optimisation with heavy-tailed data*",
    item: "Alg. 3",
    summary: "truncated DP-IHT with Peeling",
    rust: "iht::HtSparseLinreg",
    spec: "hu §D, H14–H15",
});

/// `ht-sparse-linreg` (Hu et al. Alg. 3). See the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct HtSparseLinreg {
    pub preset: Preset,
    /// `s`, `T`, `c`, `eta`, `gamma`, `mu`, `chunking`, `calibration`.
    pub hu: HuParams,
    pub k: Option<f64>,
}

impl Default for HtSparseLinreg {
    fn default() -> Self {
        HtSparseLinreg {
            preset: Preset::Paper,
            hu: HuParams::default(),
            k: None,
        }
    }
}

/// The resolved, public plan of a fit.
#[derive(Debug, Clone, PartialEq)]
pub struct HtSparseLinregPlan {
    pub sizes: IhtSizes,
    pub k: f64,
    pub eta: f64,
    /// ℓ∞ sensitivity λ of the gradient step.
    pub lambda: f64,
}

/// λ = 2K²η₀(R√s + 1)/m (Alg. 3 step 3 with a general radius R).
pub fn truncated_step_sensitivity(k: f64, eta: f64, radius: f64, s: usize, m: usize) -> f64 {
    2.0 * k * k * eta * (radius * (s as f64).sqrt() + 1.0) / m as f64
}

impl HtSparseLinreg {
    pub fn from_params(params: &ParamMap) -> Result<Self, FitError> {
        let p = DESCRIPTOR.params(params)?;
        Ok(HtSparseLinreg {
            preset: Preset::parse(&p, Preset::Paper)?,
            hu: HuParams::parse(&p)?,
            k: p.positive("K")?,
        })
    }
}

impl IhtAlgorithm for HtSparseLinreg {
    type Plan = HtSparseLinregPlan;
    const INFO: IhtInfo = IhtInfo {
        name: NAME,
        losses: &["squared"],
        use_when: "sparse high-d linear regression, heavy-tailed x and y",
        paper: "Hu, Ni, Xiao & Wang, Alg. 3",
        chunked: true,
        parameters: &[
            ParamInfo {
                name: "preset",
                default: "paper",
                meaning:
                    "paper: s = c*s*, T = floor(ln n), eta = 0.5; theory: Theorem 7 with gamma, mu",
                source: "Hu Sec. 6.5; Thm 7",
            },
            ParamInfo {
                name: "c",
                default: "2",
                meaning: "sparsity multiplier: s = c * s* (s* = --sparsity)",
                source: "Hu Sec. 6.5; spec H19",
            },
            ParamInfo {
                name: "s",
                default: "paper: c*s*; theory: ceil(72 (gamma/mu)^2 s*), at most d",
                meaning: "number of coordinates kept by Peeling",
                source: "Hu Sec. 6.5; Thm 7",
            },
            ParamInfo {
                name: key::T,
                default: "paper: max(1, floor(ln n)); theory: ceil((gamma/mu) ln n)",
                meaning: "iterations = disjoint data chunks",
                source: "Hu Sec. 6.5; Thm 7",
            },
            ParamInfo {
                name: "K",
                default: "(n*eps/(s*T))^(1/4)",
                meaning: "shrinkage threshold for features and response",
                source: "Hu Thm 7, Sec. 6.5",
            },
            ParamInfo {
                name: "eta",
                default: "paper: 0.5; theory: 2/(3*gamma)",
                meaning: "step size eta_0",
                source: "Hu Sec. 6.5; Thm 7 (spec H14)",
            },
            ParamInfo {
                name: "gamma",
                default: "1",
                meaning: "user-declared largest eigenvalue of E x x^T (theory preset)",
                source: "Hu Thm 7",
            },
            ParamInfo {
                name: "mu",
                default: "1",
                meaning: "user-declared smallest eigenvalue of E x x^T (theory preset)",
                source: "Hu Thm 7",
            },
        ],
    };

    fn plan(&self, problem: &Problem, budget: &Budget) -> Result<HtSparseLinregPlan, FitError> {
        let eps = formula_epsilon(budget);
        let theory = self.preset == Preset::Theory;
        let (sizes, eta) = self.hu.resolve(NAME, problem, theory)?;
        let (n, s, big_t) = (problem.data.n(), sizes.s, sizes.big_t);
        let k = self
            .k
            .unwrap_or_else(|| (n as f64 * eps / (s as f64 * big_t as f64)).powf(0.25));
        let lambda = truncated_step_sensitivity(k, eta, sizes.radius, s, sizes.m);
        Ok(HtSparseLinregPlan {
            sizes,
            k,
            eta,
            lambda,
        })
    }

    fn iht_loop<'p>(&self, plan: &'p HtSparseLinregPlan, budget: &Budget) -> IhtLoop<'p> {
        let schedule = plan.sizes.constant(plan.eta, plan.lambda);
        IhtLoop::chunked(NAME, &plan.sizes, self.hu.peeling, budget, schedule)
    }

    fn run(&self, plan: HtSparseLinregPlan, inputs: FitInputs) -> Result<FitReport, FitError> {
        let budget = inputs.budget;
        let iht = self.iht_loop(&plan, &budget);
        // Descent direction −(⟨x̃, w⟩ − ỹ) with x̃, ỹ the data shrunk at K.
        let run = iht.run_shrunk_least_squares(inputs, plan.k)?;
        let mut h = iht.hyperparameters(&run, self.preset.name());
        hp(&mut h, "K", plan.k);
        self.hu
            .record_declared(&mut h, self.preset == Preset::Theory);
        let defaults = "default K evaluated at epsilon = 1; ";
        let notes = exact_thresholding_note(&budget, defaults)
            .into_iter()
            .collect();
        Ok(run.report(h, notes))
    }
}
