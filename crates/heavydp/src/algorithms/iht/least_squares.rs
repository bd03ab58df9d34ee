//! `dp-slr`: private sparse least squares by noisy iterative hard thresholding on the
//! full data — the DP-SLR baseline of Cai, Wang & Zhang (2021, "The cost of privacy"),
//! as used by Tian et al. §6. Spec: `spec/tian-dp-iht-heavy-tailed-response.md` §6, §9,
//! ambiguity T15. A light-tailed method: it needs a public bound on the data.
//!
//! # Algorithm
//!
//! ```text
//! x̃ = x clipped to [−B, B] coordinate-wise;  Π_R(y) = y clipped to [−B, B]   (CONTRACT bound, R = K = B)
//! β⁰ = 0
//! for t = 0..T−1:                                                           (every record, every step)
//!     β^{t+0.5} = β^t − (η/n) Σ_i (⟨x̃_i, β^t⟩ − Π_R(y_i))·x̃_i
//!     β^{t+1}   = Π_C( Peeling(β^{t+0.5}, s, ε/T, δ/T, λ) ),  λ = 2ηB(B + B√s·C)/n
//! return β^T
//! ```
//!
//! # Privacy
//!
//! **(ε, δ)-DP** by basic composition of T Peeling calls of (ε/T, δ/T) each (Cai et al.;
//! spec §6). β^t is s-sparse with ‖β^t‖₂ ≤ C, so |⟨x̃, β^t⟩| ≤ B√s·C and each summand has
//! ℓ∞ norm ≤ B(B + B√s·C): replacing one record moves β^{t+0.5} by at most λ (spec §9;
//! heavydp's B = 2K(R + K√s C) with K = R = B). The per-call budget is aimed a relative
//! 10⁻⁹ below ε/T and δ/T so that the ledger's upward rounding closes exactly.
//! ε = ∞ gives the non-private IHT iterate on the clipped data.
//!
//! # Parameters
//!
//! | name | symbol | default | source |
//! |---|---|---|---|
//! | `bound` | K = R = B | required | CONTRACT (bounded-data algorithm); Tian §6 used R = K = log d (T15) |
//! | `preset` | — | `theory` | `theory`: η = 0.5 (Cai et al. η ≍ 1/λ_max(Σ)); `paper`: η = 0.01 (Tian §6) |
//! | `eta` | η⁰ | preset | see `preset` |
//! | `s` | s | s* (`--sparsity`) | Tian §6 (s = s* = 5) |
//! | `T` | T | ⌈ln n⌉ | Cai et al. T ≍ log n (T15) |
//! | δ | δ | n^{−1.1} when the budget's δ is 0 | Tian §6 |
//! | C | C | `--radius` | feasibility radius (T15: C = L) |
//!
//! # Errors
//! No `bound`; loss other than `squared`; a domain other than `sparse`; s > d; δ ∉ (0, 1);
//! an (ε/T, δ/T, s) for which Peeling's composition does not close.

use super::super::*;
use super::{
    exact_thresholding_note, IhtAlgorithm, IhtInfo, IhtLoop, IhtSizes, Passes, SizeOverrides,
};
use crate::mechanisms::PeelingCalibration;
use crate::privacy::calibration_target;

const NAME: &str = "dp-slr";

/// The registry entry of `dp-slr` ([`crate::algorithms::REGISTRY`]).
pub const DESCRIPTOR: AlgorithmDescriptor = AlgorithmDescriptor::new(
    NAME,
    <DpSlr as IhtAlgorithm>::info,
    |p| boxed(DpSlr::from_params(p)),
    ("squared", "sparse"),
)
.cited(crate::algorithms::Citation {
    authors: "Cai, Wang & Zhang",
    title: "",
    item: "DP-SLR, baseline of Tian et al. §6",
    summary: "private sparse least squares (bounded data)",
    rust: "iht::DpSlr",
    spec: "tian §6, T15",
});

/// `dp-slr` (Cai, Wang & Zhang's private sparse linear regression). See the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct DpSlr {
    pub bound: f64,
    pub preset: Preset,
    pub eta: Option<f64>,
    pub sizes: SizeOverrides,
    /// Peeling's noise calibration (default exact).
    pub calibration: PeelingCalibration,
}

impl DpSlr {
    /// DP-SLR with the public data bound B and the default preset.
    pub fn with_bound(bound: f64) -> Self {
        DpSlr {
            bound,
            preset: Preset::Theory,
            eta: None,
            sizes: SizeOverrides::default(),
            calibration: PeelingCalibration::Exact,
        }
    }
}

/// The resolved, public plan of a fit.
#[derive(Debug, Clone, PartialEq)]
pub struct DpSlrPlan {
    /// m = n: every iteration reads every record.
    pub sizes: IhtSizes,
    pub eta: f64,
    /// ℓ∞ sensitivity λ of one full-data gradient step.
    pub lambda: f64,
    /// The (ε, δ) of each Peeling call.
    pub step_epsilon: f64,
    pub step_delta: f64,
}

/// λ = 2ηB(B + B√s·C)/n (spec §6 and §9 with K = R = B).
pub fn slr_step_sensitivity(eta: f64, bound: f64, s: usize, radius: f64, n: usize) -> f64 {
    2.0 * eta * bound * (bound + bound * (s as f64).sqrt() * radius) / n as f64
}

impl DpSlr {
    pub fn from_params(params: &ParamMap) -> Result<Self, FitError> {
        let p = DESCRIPTOR.params(params)?;
        Ok(DpSlr {
            bound: required_bound(NAME, &p)?,
            preset: Preset::parse(&p, Preset::Theory)?,
            eta: p.positive("eta")?,
            sizes: SizeOverrides::parse(&p)?,
            calibration: PeelingCalibration::parse(&p)?,
        })
    }
}

impl IhtAlgorithm for DpSlr {
    type Plan = DpSlrPlan;
    const INFO: IhtInfo = IhtInfo {
        name: NAME,
        losses: &["squared"],
        use_when: "sparse linear regression with light tails (baseline)",
        paper: "Cai, Wang & Zhang 2021 (DP-SLR), baseline of Tian et al. Sec. 6",
        chunked: false,
        parameters: &[
            bound_param_info("CONTRACT; Tian Sec. 6 used R = K = log d (spec T15)"),
            ParamInfo {
                name: "preset",
                default: "theory",
                meaning: "theory: eta = 0.5; paper: eta = 0.01 (both T = ceil(ln n))",
                source: "Cai et al. (eta ~ 1/lambda_max); Tian Sec. 6",
            },
            ParamInfo {
                name: "eta",
                default: "preset: 0.5 (theory) or 0.01 (paper)",
                meaning: "step size eta_0",
                source: "Cai et al.; Tian Sec. 6",
            },
            ParamInfo {
                name: "s",
                default: "s* (--sparsity)",
                meaning: "coordinates kept by Peeling",
                source: "Tian Sec. 6",
            },
            ParamInfo {
                name: key::T,
                default: "ceil(ln n)",
                meaning: "full-data iterations, each (eps/T, delta/T)-DP",
                source: "Cai et al. T ~ log n (spec T15)",
            },
        ],
    };

    fn plan(&self, problem: &Problem, budget: &Budget) -> Result<DpSlrPlan, FitError> {
        check_bound(NAME, self.bound)?;
        // T full-data passes: no chunks, so T is not limited by n.
        let (sizes, _) = self.sizes.tian(NAME, problem, Some(self.bound), false)?;
        let eta = self.eta.unwrap_or(match self.preset {
            Preset::Theory => 0.5,
            Preset::Paper => 0.01,
        });
        let lambda = slr_step_sensitivity(eta, self.bound, sizes.s, sizes.radius, sizes.m);
        let (step_epsilon, step_delta) = if budget.is_non_private() {
            (f64::INFINITY, 0.0)
        } else {
            (
                calibration_target(budget.epsilon) / sizes.big_t as f64,
                calibration_target(budget.delta) / sizes.big_t as f64,
            )
        };
        Ok(DpSlrPlan {
            sizes,
            eta,
            lambda,
            step_epsilon,
            step_delta,
        })
    }

    /// T full-data passes, each Peeling at (ε/T, δ/T).
    fn iht_loop<'p>(&self, plan: &'p DpSlrPlan, _: &Budget) -> IhtLoop<'p> {
        let (steps, lambdas) = plan.sizes.constant(plan.eta, plan.lambda);
        IhtLoop {
            name: NAME,
            sizes: &plan.sizes,
            passes: Passes::FullData,
            calibration: self.calibration,
            call_budget: (plan.step_epsilon, plan.step_delta),
            steps,
            lambdas,
            printed_lambdas: None,
            project_each_step: true,
            label: "peeling (top-s selection, eps/T)",
        }
    }

    fn run(&self, plan: DpSlrPlan, inputs: FitInputs) -> Result<FitReport, FitError> {
        let budget = inputs.budget;
        let iht = self.iht_loop(&plan, &budget);
        // Descent direction −(⟨x̃, β⟩ − Π_R(y)) over every record (x̃ clipped at B).
        let b = self.bound;
        let run = iht.run_shrunk_least_squares(inputs, b)?;
        let mut h = iht.hyperparameters(&run, self.preset.name());
        hp(&mut h, "bound", b);
        hp(&mut h, "step_epsilon", plan.step_epsilon);
        hp(&mut h, "step_delta", plan.step_delta);
        hp(&mut h, "radius", plan.sizes.radius);
        let notes = exact_thresholding_note(&budget, "").into_iter().collect();
        Ok(run.report(h, notes))
    }
}
