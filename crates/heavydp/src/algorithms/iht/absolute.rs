//! `dp-iht-l1`: private sparse linear regression with heavy-tailed responses by
//! iterative hard thresholding on the absolute (ℓ1) loss — DP-IHT-L of Tian, Ding, Tao,
//! Xiang & Wang, Algorithm 3 (Theorems 5.1–5.3). Spec:
//! `spec/tian-dp-iht-heavy-tailed-response.md` §3, §4, ambiguities T4, T5, T7–T10, T18.
//!
//! # Algorithm
//!
//! ```text
//! x̃_i = sign(x_i)·min(|x_i|, K) coordinate-wise; responses untouched          (H1)
//! split into T disjoint chunks of m = ⌊n/T⌋ records                           (H2)
//! β⁰ = 0
//! for t = 0..T−1:
//!     η_t       = η₀·(1 − c)^{min(t, t_s)}                                    (T10)
//!     β^{t+0.5} = β^t − (η_t/m) Σ_{chunk t} sign(⟨x_i, β^t⟩ − y_i)·x̃_i      (raw x in sign: T4)
//!     β^{t+1}   = Π_L( Peeling(β^{t+0.5}, s, ε, δ, λ_t) ),  λ_t = 2η_tK/m     (T5)
//! return β^T
//! ```
//!
//! The step-size schedule of Theorem 5.2 depends on β*, γ and density constants that
//! must not be estimated from private data (T10): heavydp offers a constant step
//! (default) or a public geometric decay with a fixed switch iteration t_s after which
//! the step stays constant (phase two).
//!
//! # Privacy
//!
//! **(ε, δ)-DP** (Theorem 5.1). Each summand is σ_i·x̃_i with σ_i ∈ {−1, 0, 1} and
//! ‖x̃_i‖_∞ ≤ K whatever the raw x_i inside the sign, so replacing one record of chunk t
//! moves β^{t+0.5} by at most λ_t = 2η_tK/m in ℓ∞. Peeling with λ_t is (ε, δ)-DP and each
//! chunk is read by one Peeling call (parallel composition). ε = ∞ gives the
//! non-private IHT iterate (exact hard thresholding).
//!
//! # Parameters
//!
//! | name | symbol | default | source |
//! |---|---|---|---|
//! | `preset` | — | `theory` | `theory`: η₀ = 0.5 (Thm 5.2, η = O(1) after the averaging, spec T10); `paper`: η₀ = 0.01 (§6) |
//! | `eta` | η₀ | preset | see `preset` |
//! | `decay` | c | 0 (constant step) | public geometric phase one, η_t = η₀(1 − c)^t (Thm 5.2, T10) |
//! | `switch` | t_s | T | iteration after which the step stays constant (phase two, T10) |
//! | `s` | s | s* (`--sparsity`) | §6 (Thm 5.2's s = Ω(… s*) is impractical: T17) |
//! | `K` | K | max(1, ln d) | §6 "K = log d" |
//! | `T` | T | ⌈ln n⌉ | Thm 5.3 T = O(log n), spec T8 |
//! | `sign_features` | — | `raw` | `raw`: sign(⟨x, β⟩ − y) as printed; `clipped`: sign(⟨x̃, β⟩ − y) (T4; same privacy) |
//! | `chunking` | — | `shuffle` | data-independent partition (H2) |
//! | δ | δ | n^{−1.1} when the budget's δ is 0 | §6 |
//! | L | L | `--radius` | projection radius |
//!
//! The default is `theory` for the same reason as in `dp-iht-huber`: with η = 0.01 and
//! T = ⌈ln n⌉ the iterate barely leaves 0.
//!
//! # Errors
//! Loss other than `absolute`; a domain other than `sparse`; T > n; s > d; `decay`
//! outside [0, 1); δ ∉ (0, 1); an (ε, δ, s) for which Peeling's composition does not close.

use super::super::*;
use super::{
    exact_thresholding_note, IhtAlgorithm, IhtInfo, IhtLoop, IhtSizes, TianParams, TIAN_K,
};
use crate::params::param_words;

const NAME: &str = "dp-iht-l1";

/// The registry entry of `dp-iht-l1` ([`crate::algorithms::REGISTRY`]).
pub const DESCRIPTOR: AlgorithmDescriptor = AlgorithmDescriptor::new(
    NAME,
    <DpIhtL1 as IhtAlgorithm>::info,
    |p| boxed(DpIhtL1::from_params(p)),
    ("absolute", "sparse"),
)
.cited(crate::algorithms::Citation {
    authors: "Tian, Ding, Tao, Xiang & Wang",
    title: "*DP sparse linear regression with heavy-tailed responses*",
    item: "Alg. 3",
    summary: "DP-IHT-L: absolute-loss IHT with Peeling",
    rust: "iht::DpIhtL1",
    spec: "tian §3, T4, T5, T10",
});

/// Which features enter the sign of the residual (spec T4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignFeatures {
    /// sign(⟨x_i, β⟩ − y_i) with the raw features, as printed.
    Raw,
    /// sign(⟨x̃_i, β⟩ − y_i) with the clipped features (ℓ1 subgradient on clipped data).
    Clipped,
}
param_words!(SignFeatures: "raw" => Raw, "clipped" => Clipped);

/// `dp-iht-l1` (Tian et al. Alg. 3). See the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct DpIhtL1 {
    /// `preset`, `eta` (here η₀), `s`, `T`, `K`, `chunking`, `calibration`.
    pub tian: TianParams,
    pub decay: f64,
    pub switch: Option<usize>,
    pub sign_features: SignFeatures,
}

impl Default for DpIhtL1 {
    fn default() -> Self {
        DpIhtL1 {
            tian: TianParams::default(),
            decay: 0.0,
            switch: None,
            sign_features: SignFeatures::Raw,
        }
    }
}

/// The resolved, public plan of a fit.
#[derive(Debug, Clone, PartialEq)]
pub struct DpIhtL1Plan {
    pub sizes: IhtSizes,
    pub k: f64,
    /// η_t for t = 0..T−1.
    pub steps: Vec<f64>,
    /// λ_t = 2η_tK/m for t = 0..T−1.
    pub lambdas: Vec<f64>,
}

impl DpIhtL1 {
    pub fn from_params(params: &ParamMap) -> Result<Self, FitError> {
        let p = DESCRIPTOR.params(params)?;
        let decay = p.non_negative("decay")?.unwrap_or(0.0);
        if decay >= 1.0 {
            return Err(FitError::BadParameter {
                algorithm: NAME,
                param: "decay".into(),
                reason: format!("the geometric decay c must be in [0, 1), got {decay}"),
            });
        }
        Ok(DpIhtL1 {
            tian: TianParams::parse(&p)?,
            decay,
            switch: p.integer("switch", 0)?,
            sign_features: p.pick("sign_features", SignFeatures::WORDS)?,
        })
    }
}

/// λ_L = 2η_tK/m: the replace-one ℓ∞ change of β^{t+0.5} (spec §3, T5).
pub fn absolute_step_sensitivity(eta: f64, k: f64, m: usize) -> f64 {
    2.0 * eta * k / m as f64
}

impl IhtAlgorithm for DpIhtL1 {
    type Plan = DpIhtL1Plan;
    const INFO: IhtInfo = IhtInfo {
        name: NAME,
        losses: &["absolute"],
        use_when: "sparse median (l1) regression, very heavy tails or outliers",
        paper: "Tian, Ding, Tao, Xiang & Wang, Alg. 3 (DP-IHT-L)",
        chunked: true,
        parameters: &[
            ParamInfo {
                name: "preset",
                default: "theory",
                meaning: "theory: eta0 = 0.5; paper: eta0 = 0.01 (both T = ceil(ln n))",
                source: "Tian Thm 5.2 (spec T10); Sec. 6",
            },
            ParamInfo {
                name: "eta",
                default: "preset: 0.5 (theory) or 0.01 (paper)",
                meaning: "initial step size eta_0",
                source: "Tian Thm 5.2; Sec. 6",
            },
            ParamInfo {
                name: "decay",
                default: "0",
                meaning: "public geometric decay c: eta_t = eta_0 (1-c)^min(t, switch)",
                source: "Tian Thm 5.2 phase one (spec T10)",
            },
            ParamInfo {
                name: "switch",
                default: "T",
                meaning: "iteration after which the step stays constant (phase two)",
                source: "Tian Thm 5.2 phase two (spec T10)",
            },
            ParamInfo {
                name: "s",
                default: "s* (--sparsity)",
                meaning: "coordinates kept by Peeling",
                source: "Tian Sec. 6 (spec T17)",
            },
            TIAN_K,
            ParamInfo {
                name: key::T,
                default: "ceil(ln n)",
                meaning: "iterations = disjoint data chunks",
                source: "Tian Thm 5.3 (spec T8)",
            },
            ParamInfo {
                name: "sign_features",
                default: "raw",
                meaning: "features inside sign(.): raw (as printed) or clipped",
                source: "spec T4",
            },
        ],
    };

    fn plan(&self, problem: &Problem, _: &Budget) -> Result<DpIhtL1Plan, FitError> {
        let (sizes, k, eta0) = self.tian.resolve(NAME, problem)?;
        let switch = self.switch.unwrap_or(sizes.big_t);
        let steps: Vec<f64> = (0..sizes.big_t)
            .map(|t| eta0 * (1.0 - self.decay).powi(t.min(switch) as i32))
            .collect();
        let lambdas = steps
            .iter()
            .map(|eta| absolute_step_sensitivity(*eta, k, sizes.m))
            .collect();
        Ok(DpIhtL1Plan {
            sizes,
            k,
            steps,
            lambdas,
        })
    }

    fn iht_loop<'p>(&self, plan: &'p DpIhtL1Plan, budget: &Budget) -> IhtLoop<'p> {
        let schedule = (plan.steps.clone(), plan.lambdas.clone());
        IhtLoop::chunked(NAME, &plan.sizes, self.tian.peeling, budget, schedule)
    }

    fn check(&self, plan: &DpIhtL1Plan, _: &Budget) -> Result<(), FitError> {
        if plan.lambdas.iter().any(|l| !(l.is_finite() && *l > 0.0)) {
            return Err(FitError::BadParameter {
                algorithm: NAME,
                param: "decay".into(),
                reason: "the step size underflows to 0 before the last iteration".into(),
            });
        }
        Ok(())
    }

    fn run(&self, plan: DpIhtL1Plan, inputs: FitInputs) -> Result<FitReport, FitError> {
        let budget = inputs.budget;
        let iht = self.iht_loop(&plan, &budget);
        // Descent direction −sign(⟨x, β⟩ − y), sign(0) = 0.
        let sign = |r: f64| {
            if r > 0.0 {
                -1.0
            } else if r < 0.0 {
                1.0
            } else {
                0.0
            }
        };
        let k = plan.k;
        let run = match self.sign_features {
            SignFeatures::Raw => iht.run_clipped(inputs, k, move |_, raw, y| sign(raw - y))?,
            SignFeatures::Clipped => iht.run_clipped(inputs, k, move |c, _, y| sign(c - y))?,
        };
        let mut h = iht.hyperparameters(&run, self.tian.preset.name());
        hp(&mut h, "K", plan.k);
        hp(&mut h, "decay", self.decay);
        hp(&mut h, "switch", self.switch.unwrap_or(plan.sizes.big_t));
        hp(&mut h, "radius", plan.sizes.radius);
        hp(&mut h, "sign_features", self.sign_features.name());
        let notes = exact_thresholding_note(&budget, "").into_iter().collect();
        Ok(run.report(h, notes))
    }
}
