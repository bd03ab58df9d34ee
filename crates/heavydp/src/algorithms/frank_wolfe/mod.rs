//! Frank–Wolfe (conditional gradient) methods of Talwar, Thakurta & Zhang:
//! `frank-wolfe` (Alg. 3, non-private), `dp-frank-wolfe` (Alg. 4, Laplace
//! report-noisy-min over the vertices of a polytope) and `dp-frank-wolfe-gaussian`
//! (Alg. 5, Gaussian-perturbed gradient and an exact linear minimisation oracle).
//!
//! Spec: `spec/talwar-thakurta-zhang-geometry.md` §7–§10, ambiguities A15–A18.
//!
//! # Algorithm
//!
//! ```text
//! θ_1 = start(C)                       # centre of C (0 for balls, uniform for the simplex)
//! for t = 1 … T−1:
//!     g_t = ∇L(θ_t; D)                 # full mean gradient on the clipped data
//!     s_t = LMO(g_t)                   # Alg. 3: exact
//!         | argmin_v ⟨v, g_t⟩ + Lap(b)  # Alg. 4: report-noisy-min over the vertices
//!         | LMO(g_t + N(0, σ²I))       # Alg. 5
//!     θ_{t+1} = (1 − μ_t) θ_t + μ_t s_t,  μ_t = 2/(t + 1)   (first step 1; spec §7, A15)
//! output θ_T
//! ```
//!
//! # Privacy (records clipped to ‖x‖_∞ ≤ B, |y| ≤ B; replace-one neighbours)
//!
//! * **Alg. 4**: each vertex score ⟨v, ∇L⟩ has sensitivity Δ_s = 2 L₁ ‖C‖₁ / n, and
//!   report-noisy-min with Lap(b) over scores that can move in opposite directions is
//!   (2Δ_s/b)-DP per step (spec §8, A16). Default `calibration = accountant`: the T − 1
//!   steps compose in zCDP (ρ = (T−1)ε_step²/2) to the budget (ε, δ) by Lemma 1(4) of
//!   Zhao et al. `calibration = paper` uses the printed b = L₁‖C‖₁√(8T ln(1/δ))/(nε), which
//!   certifies only ≈ 2ε: it is refused unless its certified ε fits the budget.
//! * **Alg. 5**: the mean gradient has ℓ2 sensitivity 2L/n; the T − 1 releases are
//!   Gaussian zCDP steps. Default `calibration = zcdp`: σ = (2L/n)/√(2ρ*/(T−1)) with ρ* the
//!   exact zCDP inversion of the budget, so the ledger certifies exactly (ε, δ).
//!   `calibration = paper` uses the printed σ² = 32 L² T ln²(T/δ)/(nε)² (spec §9,
//!   A17), which certifies only ≈ 0.1ε at ε = 1 (charged as certified); when that does not
//!   certify (ε, δ) (ε > 8 or δ > 1/e) the zCDP σ is used instead (recorded in the model file).
//! * ε = ∞ sets b = σ = 0 and reproduces `frank-wolfe` exactly (same T, steps, clipping).
//!
//! # Parameters
//!
//! | name | symbol | default | source |
//! |---|---|---|---|
//! | `bound` | B | required (private algorithms); optional for `frank-wolfe` | CONTRACT; spec §10 |
//! | `T` | T | Alg. 3: ⌈√n⌉ clamped to [2, 10⁴]; Alg. 4: ⌈(Γ nε)^{2/3}/(L₁‖C‖₁)^{2/3}⌉; Alg. 5: ⌈(Γ nε)^{2/3}/(L G_C)^{2/3}⌉ (≥ 2) | Thm 5.2 (error 2Γ/(T+1) below 1/√n); Thm 5.5; Thm B.2 |
//! | `fw_step` | μ_t | `default` = 2/(t+1); `paper` = 1/(T+2) | spec §7, A15 |
//! | `calibration` | b, σ | Alg. 4 `accountant`; Alg. 5 `zcdp` (`paper`: printed σ) | spec A16, A17 |
//! | `suffstats` | — | `auto`: on when 8d ≤ n and 2(T − 1) ≥ d (squared loss) | project design (`docs/performance.md`, "Sufficient statistics") |
//!
//! **Sufficient statistics** (`suffstats`, [`SuffStats`]; also `ht-lasso`). For the squared
//! loss the full mean gradient of the clipped data is g_t = (2/n)Σ x̃_i(⟨x̃_i, θ_t⟩ − ỹ_i) =
//! 2(Gθ_t − c) with G = X̃ᵀX̃/n and c = X̃ᵀỹ/n. With `suffstats` on, G and c are built once
//! ([`SecondMoments`], O(nd²), reading the data clipped on the fly — no clipped copy) and
//! Gθ is carried through the moves: a vertex step θ ← (1 − μ)θ + μ·s·e_j updates it as
//! Gθ ← (1 − μ)Gθ + μ·s·G[:, j] in O(d) (a dense LMO direction in O(d²)), so an iteration
//! costs O(d) instead of O(nd). The gradient is the same function of the data — only its
//! floating-point summation order changes — so the sensitivities above and the whole
//! privacy analysis are unchanged, and the noise draws are the same; on a polytope the
//! weights are bit-for-bit those of the passes unless a rounding-level near-tie flips a
//! vertex choice. `auto` decides from public n, d, T only: G's d² floats stay within an
//! eighth of the data (8d ≤ n), and its n·d²/2 build cost is repaid by the T − 1 passes of
//! 2nd each it replaces (2(T − 1) ≥ d, a factor 2 of margin); `on`/`off` force it. Losses
//! other than squared ignore it. The model file records the path taken (`suffstats` =
//! `on`/`off`).
//!
//! Constants: L₁ = sup|f'|·B, L = sup|f'|·B√d, Γ = sup f''·(B·diam₁ C)², with
//! sup|f'| over |⟨x, θ⟩| ≤ B‖C‖₁ (see [`BoundedConstants`]).
//!
//! # Errors
//! Unknown parameters, a missing `bound`, δ = 0 for the private variants, losses without
//! a Lipschitz gradient (absolute, biweight), non-polytope domains for Alg. 4.
//!
//! # Example
//! ```
//! use heavydp::algorithms::{frank_wolfe::DpFrankWolfe, NoObserver, PrivateAlgorithm, Problem};
//! use heavydp::constraints::L1Ball;
//! use heavydp::data::Dataset;
//! use heavydp::loss::LossKind;
//! use heavydp::noise::rng_from_seed;
//! use heavydp::privacy::Budget;
//! let data = Dataset::from_rows(vec![0.5, -0.2, 0.1, 0.9, -0.4, 0.3], vec![0.2, 0.5, -0.1], 2).unwrap();
//! let domain = L1Ball { d: 2, radius: 1.0 };
//! let alg = DpFrankWolfe { bound: 1.0, ..DpFrankWolfe::default() };
//! let problem = Problem { data: &data, loss: LossKind::Squared, domain: &domain };
//! let report = alg.fit(&problem, Budget::new(1.0, 1e-5).unwrap(), &mut rng_from_seed(1), &mut NoObserver).unwrap();
//! assert_eq!(report.weights.len(), 2);
//! assert!(report.privacy.epsilon <= 1.0);
//! ```

pub(crate) mod heavy_tailed;
pub(crate) mod lasso;
pub use heavy_tailed::{
    robust_gradient_sensitivity, HtFrankWolfe, HtFwPlan, HtStep, ScaleRule, ScoreSensitivity,
};
pub use lasso::{lasso_step_epsilon, shrunk_gradient_sensitivity, HtLasso, HtLassoPlan};

use super::*;
use crate::linalg::SecondMoments;
use crate::loss::{mean_gradient_of, GradientWorkspace};
use crate::mechanisms::{release, GaussianMechanism, ReportNoisyMin};
use crate::params::param_words;
use crate::params::SuffStats;
use crate::privacy::{
    approx_to_zcdp_rho, calibration_target, zcdp_to_approx, Accountant, PrivacyLedger,
};

/// The registry entry of `frank-wolfe` ([`crate::algorithms::REGISTRY`]).
pub const FRANK_WOLFE: AlgorithmDescriptor = AlgorithmDescriptor::new(
    "frank-wolfe",
    FrankWolfe::info,
    |p| boxed(FrankWolfe::from_params(p)),
    ("squared", "l1-ball"),
)
.declared_bound()
.cited(crate::algorithms::Citation {
    authors: "Talwar, Thakurta & Zhang",
    title: "*Private ERM beyond the worst case*",
    item: "Alg. 3",
    summary: "Frank–Wolfe (non-private)",
    rust: "frank_wolfe::FrankWolfe",
    spec: "talwar §7",
});

/// The registry entry of `dp-frank-wolfe` ([`crate::algorithms::REGISTRY`]).
pub const DP_FRANK_WOLFE: AlgorithmDescriptor = AlgorithmDescriptor::new(
    "dp-frank-wolfe",
    DpFrankWolfe::info,
    |p| boxed(DpFrankWolfe::from_params(p)),
    ("squared", "l1-ball"),
)
.cited(crate::algorithms::Citation {
    authors: "Talwar, Thakurta & Zhang",
    title: "*Private ERM beyond the worst case*",
    item: "Alg. 4",
    summary: "private Frank–Wolfe over a polytope (Laplace report-noisy-min)",
    rust: "frank_wolfe::DpFrankWolfe",
    spec: "talwar §8, A15–A16, A18",
});

/// The registry entry of `dp-frank-wolfe-gaussian` ([`crate::algorithms::REGISTRY`]).
pub const DP_FRANK_WOLFE_GAUSSIAN: AlgorithmDescriptor = AlgorithmDescriptor::new(
    "dp-frank-wolfe-gaussian",
    DpFrankWolfeGaussian::info,
    |p| boxed(DpFrankWolfeGaussian::from_params(p)),
    ("squared", "l1-ball"),
)
.cited(crate::algorithms::Citation {
    authors: "Talwar, Thakurta & Zhang",
    title: "*Private ERM beyond the worst case*",
    item: "Alg. 5",
    summary: "private Frank–Wolfe, Gaussian gradient noise",
    rust: "frank_wolfe::DpFrankWolfeGaussian",
    spec: "talwar §9, A17",
});

const LOSSES: &[&str] = &["squared", "logistic", "huber"];
const POLYTOPES: &[&str] = &["l1-ball", "simplex", "polytope"];
const CONVEX: &[&str] = &["l1-ball", "l2-ball", "simplex", "polytope"];

/// Step-size rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StepRule {
    /// μ_t = 2/(t + 1), t = 1, 2, … (first step 1); the default.
    #[default]
    Standard,
    /// μ = 1/(T + 2) for every step (as printed in Algs. 4–5).
    Paper,
}
param_words!(StepRule = "fw_step": "default" => Standard, "paper" => Paper);

impl StepRule {
    fn mu(self, t: usize, big_t: usize) -> f64 {
        match self {
            StepRule::Standard => 2.0 / (t as f64 + 1.0),
            StepRule::Paper => 1.0 / (big_t as f64 + 2.0),
        }
    }
}

/// How each iteration picks its direction.
enum Direction<'a> {
    Exact,
    NoisyMin(&'a ReportNoisyMin),
    NoisyGradient(&'a GaussianMechanism),
}

/// Where the loop's full mean gradients ∇L(θ; D̃) of the clipped data D̃ come from.
enum Gradients<'a> {
    /// One pass over the clipped data per gradient (any loss).
    Passes(std::borrow::Cow<'a, Dataset>),
    /// Squared loss: ∇L(θ) = 2(Gθ − c) from the clipped data's second moments, with
    /// Gθ kept up to date through each move in O(d·nnz(direction)) (O(d) at a vertex
    /// ±R e_j). The same function of the data as the passes (up to summation order), so
    /// every privacy statement of the module holds unchanged.
    Moments(SecondMoments),
}

impl<'a> Gradients<'a> {
    /// The gradient source of a fit: the moments when `suffstats` resolves to on for this
    /// loss, n, d and number of gradients (see [`SuffStats::resolve`]), else the
    /// (clipped, when `bound` is given) data. Neither path copies the data for the
    /// moments; the passes clip a copy once, as before.
    fn new(
        problem: &Problem<'a>,
        bound: Option<f64>,
        suffstats: SuffStats,
        gradients: usize,
    ) -> Self {
        let data = problem.data;
        let squared = matches!(problem.loss, LossKind::Squared);
        if suffstats.resolve(squared, data.n(), data.d(), Some(gradients)) {
            let b = bound.unwrap_or(f64::INFINITY);
            Gradients::Moments(SecondMoments::of(data, data.y(), b, b))
        } else {
            Gradients::Passes(prepare(problem, bound))
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Gradients::Passes(_) => "off",
            Gradients::Moments(_) => "on",
        }
    }
}

/// The shared Frank–Wolfe loop over (already clipped) data.
#[allow(clippy::too_many_arguments)]
fn run(
    gradients: &Gradients,
    loss: &LossKind,
    domain: &dyn ConstraintSet,
    big_t: usize,
    step: StepRule,
    direction: Direction,
    ledger: &mut PrivacyLedger,
    rng: &mut dyn RngCore,
    observer: &mut dyn Observer,
) -> Result<(Vec<f64>, Vec<TraceRecord>), FitError> {
    let d = domain.dim();
    let mut w = domain.start();
    let mut grad = vec![0.0; d];
    let mut s = vec![0.0; d];
    let mut ws = GradientWorkspace::new();
    // G·w for the moments path.
    let mut gw = vec![0.0; d];
    if let Gradients::Moments(m) = gradients {
        m.gram_times(&w, &mut gw);
    }
    let poly = domain.as_polytope();
    let mut scores = vec![0.0; poly.map_or(0, |p| p.num_vertices())];
    let mut trace = Vec::with_capacity(big_t.saturating_sub(1));
    observer.on_start(big_t.saturating_sub(1));
    for t in 1..big_t {
        match gradients {
            Gradients::Passes(data) => {
                mean_gradient_of(loss, &**data, data.y(), &w, &mut grad, &mut ws);
            }
            Gradients::Moments(m) => m.quadratic_gradient(&gw, &mut grad),
        }
        let noise_scale;
        match &direction {
            Direction::NoisyGradient(g) => {
                grad = release(ledger, "noisy gradient (Alg. 5)", *g, &grad, rng)?;
                noise_scale = g.sigma;
            }
            Direction::NoisyMin(m) => noise_scale = m.scale,
            Direction::Exact => noise_scale = 0.0,
        }
        let mu = step.mu(t, big_t);
        match poly {
            Some(p) => {
                p.vertex_scores(&grad, &mut scores);
                let i = match &direction {
                    Direction::NoisyMin(m) => {
                        release(ledger, "vertex selection (Alg. 4)", *m, &scores, rng)?
                    }
                    _ => crate::mechanisms::argmin(&scores).expect("vertices"),
                };
                p.move_toward_vertex(&mut w, i, mu);
                if let Gradients::Moments(m) = gradients {
                    p.vertex(i, &mut s);
                    m.mix_toward(&mut gw, &s, mu);
                }
            }
            None => {
                domain.lmo(&grad, &mut s);
                for (wi, si) in w.iter_mut().zip(&s) {
                    *wi = (1.0 - mu) * *wi + mu * si;
                }
                if let Gradients::Moments(m) = gradients {
                    m.mix_toward(&mut gw, &s, mu);
                }
            }
        }
        TraceRecord::push(&mut trace, observer, ledger, t, (mu, noise_scale));
    }
    observer.on_finish();
    Ok((w, trace))
}

/// The fit report of one Frank–Wolfe run of Algs. 3–5: [`run`] on `gradients` with
/// `direction`, charged to a fresh ledger (budget, accountant) and summarised under
/// `model`; the hyperparameters T, `fw_step` and `suffstats` (each variant adds its own).
#[allow(clippy::too_many_arguments)]
fn fit_report(
    problem: &Problem,
    gradients: &Gradients,
    big_t: usize,
    step: StepRule,
    direction: Direction,
    ledger: (Budget, Accountant, PrivacyModel),
    rng: &mut dyn RngCore,
    observer: &mut dyn Observer,
) -> Result<FitReport, FitError> {
    let (budget, accountant, model) = ledger;
    let mut ledger = PrivacyLedger::new(budget, accountant);
    let (loss, domain) = (&problem.loss, problem.domain);
    let (weights, trace) = run(
        gradients,
        loss,
        domain,
        big_t,
        step,
        direction,
        &mut ledger,
        rng,
        observer,
    )?;
    let mut h = BTreeMap::new();
    hp(&mut h, key::T, big_t);
    hp(&mut h, "fw_step", step.name());
    hp(&mut h, "suffstats", gradients.name());
    let privacy = ledger.summary(model);
    Ok(FitReport::fixed_iterations(
        weights,
        privacy,
        h,
        trace,
        vec![],
    ))
}

fn default_nonprivate_t(n: usize) -> usize {
    ((n as f64).sqrt().ceil() as usize).clamp(2, 10_000)
}

fn t_param(p: &Params) -> Result<Option<usize>, FitError> {
    p.integer(key::T, 2)
}

/// T of Talwar et al. Thm 5.5 (Alg. 4) and Thm B.2 (Alg. 5): the given `t`, else
/// ⌈(Γ·n·ε)^{2/3} / width^{2/3}⌉ ≥ 2 with width = L₁‖C‖₁ (Alg. 4) or L·G_C (Alg. 5); at
/// ε = ∞ the non-private default.
fn theorem_t(t: Option<usize>, n: usize, budget: &Budget, curvature: f64, width: f64) -> usize {
    match t {
        Some(t) => t,
        None if budget.is_non_private() => default_nonprivate_t(n),
        None => {
            let t = (curvature * n as f64 * budget.epsilon).powf(2.0 / 3.0) / width.powf(2.0 / 3.0);
            (t.ceil() as usize).max(2)
        }
    }
}

/// `from_params` of the two private Frank–Wolfe algorithms: reads what they share — B
/// (required), T, `fw_step`, `suffstats` — and their own `calibration` (`calibration`),
/// and builds the algorithm with `make(bound, t, step, calibration, suffstats)`.
fn private_fw_from_params<A, C>(
    descriptor: &AlgorithmDescriptor,
    params: &ParamMap,
    calibration: impl FnOnce(&Params) -> Result<C, FitError>,
    make: impl FnOnce(f64, Option<usize>, StepRule, C, SuffStats) -> A,
) -> Result<A, FitError> {
    let (name, p) = (descriptor.name, descriptor.params(params)?);
    let (bound, t, step) = (
        required_bound(name, &p)?,
        t_param(&p)?,
        StepRule::parse(&p)?,
    );
    let calibration = calibration(&p)?;
    Ok(make(bound, t, step, calibration, SuffStats::parse(&p)?))
}

fn common_params() -> Vec<ParamInfo> {
    vec![
        ParamInfo {
            name: "fw_step",
            default: "default",
            meaning: "step rule: default = 2/(t+1) (first step 1), paper = 1/(T+2)",
            source: "spec Talwar §7, A15",
        },
        SuffStats::param_info(),
    ]
}

/// The exponential mechanism's utilities of Hu et al.'s private vertex selection (Algs. 1
/// and 2): u(v) = −⟨v, g⟩ for every vertex v, so the likeliest vertex is the Frank–Wolfe
/// direction argmin_v ⟨v, g⟩.
fn descent_utilities(poly: &dyn crate::constraints::Polytope, g: &[f64], utilities: &mut [f64]) {
    poly.vertex_scores(g, utilities);
    utilities.iter_mut().for_each(|u| *u = -*u);
}

/// The data the passes read: clipped once when a bound is given.
fn prepare<'a>(problem: &Problem<'a>, bound: Option<f64>) -> std::borrow::Cow<'a, Dataset> {
    match bound {
        Some(b) => std::borrow::Cow::Owned(clip_for(problem.data, &problem.loss, b)),
        None => std::borrow::Cow::Borrowed(problem.data),
    }
}

// ------------------------------------------------------------------ Alg. 3

/// `frank-wolfe`: non-private Frank–Wolfe (Talwar et al. Alg. 3). See the module docs.
/// The default: no bound, the default T, the standard step and `suffstats=auto`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FrankWolfe {
    /// Optional public clipping bound B (so it can be compared with the private variants).
    pub bound: Option<f64>,
    /// Number of iterates T (T − 1 updates); `None` = ⌈√n⌉ clamped to [2, 10⁴].
    pub t: Option<usize>,
    pub step: StepRule,
    /// Squared loss: gradients from the second moments (`suffstats`, see [`SuffStats`]).
    pub suffstats: SuffStats,
}

impl FrankWolfe {
    pub fn from_params(params: &ParamMap) -> Result<Self, FitError> {
        let p = FRANK_WOLFE.params(params)?;
        Ok(FrankWolfe {
            bound: p.positive("bound")?,
            t: t_param(&p)?,
            step: StepRule::parse(&p)?,
            suffstats: SuffStats::parse(&p)?,
        })
    }

    pub fn info() -> AlgorithmInfo {
        let mut parameters = vec![
            ParamInfo {
                name: "bound",
                default: "none (no clipping)",
                meaning: "optional public bound B: features and target clipped to [-B, B]",
                source: "CONTRACT",
            },
            ParamInfo {
                name: key::T,
                default: "ceil(sqrt(n)) clamped to [2, 10000]",
                meaning: "number of iterates (T-1 updates)",
                source: "Talwar Thm 5.2: optimisation error 2*Gamma/(T+1) below the 1/sqrt(n) statistical error",
            },
        ];
        parameters.extend(common_params());
        AlgorithmInfo {
            name: "frank-wolfe",
            use_when: "non-private reference fit on an l1/l2 ball or polytope (no privacy)",
            paper: "Talwar, Thakurta & Zhang, Alg. 3",
            privacy: "none",
            losses: LOSSES.to_vec(),
            domains: CONVEX.to_vec(),
            parameters,
        }
    }

    fn big_t(&self, n: usize) -> usize {
        self.t.unwrap_or_else(|| default_nonprivate_t(n))
    }
}

impl PrivateAlgorithm for FrankWolfe {
    /// Reads the features only through mean_gradient_of / SecondMoments::of.
    fn identity(&self) -> Identity {
        Identity::mapped("frank-wolfe", PrivacyModel::None)
    }
    fn validate(&self, problem: &Problem, budget: &Budget) -> Result<(), FitError> {
        check_problem(self, problem, budget, LOSSES, CONVEX)
    }
    fn fit_validated(&self, inputs: FitInputs) -> Result<FitReport, FitError> {
        let (problem, _, rng, observer) = inputs.parts();
        let big_t = self.big_t(problem.data.n());
        let grads = Gradients::new(problem, self.bound, self.suffstats, big_t - 1);
        let ledger = (Budget::non_private(), Accountant::Basic, PrivacyModel::None);
        let exact = Direction::Exact;
        let mut report = fit_report(
            problem, &grads, big_t, self.step, exact, ledger, rng, observer,
        )?;
        if let Some(b) = self.bound {
            hp(&mut report.hyperparameters, "bound", b);
        }
        Ok(report)
    }
}

// ------------------------------------------------------------------ Alg. 4

/// Alg. 4 noise calibration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FwCalibration {
    /// Per-step ε from the zCDP accountant (default; spec §8).
    Accountant,
    /// The printed Laplace scale (certifies ≈ 2ε; refused when over budget).
    Paper,
}
param_words!(FwCalibration: "accountant" => Accountant, "paper" => Paper);

/// `dp-frank-wolfe`: Talwar et al. Alg. 4. See the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct DpFrankWolfe {
    /// Public clipping bound B (required).
    pub bound: f64,
    /// Number of iterates; `None` = Theorem 5.5.
    pub t: Option<usize>,
    pub step: StepRule,
    pub calibration: FwCalibration,
    /// Squared loss: gradients from the second moments (`suffstats`, see [`SuffStats`]).
    pub suffstats: SuffStats,
}

impl Default for DpFrankWolfe {
    fn default() -> Self {
        DpFrankWolfe {
            bound: f64::NAN,
            t: None,
            step: StepRule::Standard,
            calibration: FwCalibration::Accountant,
            suffstats: SuffStats::Auto,
        }
    }
}

/// Resolved noise plan for Alg. 4.
#[derive(Debug, Clone, Copy)]
struct Alg4Plan {
    big_t: usize,
    score_sensitivity: f64,
    scale: f64,
    certified_epsilon: f64,
}

impl DpFrankWolfe {
    pub fn from_params(params: &ParamMap) -> Result<Self, FitError> {
        let calibration = |p: &Params| p.pick(key::CALIBRATION, FwCalibration::WORDS);
        private_fw_from_params(
            &DP_FRANK_WOLFE,
            params,
            calibration,
            |bound, t, step, calibration, suffstats| DpFrankWolfe {
                bound,
                t,
                step,
                calibration,
                suffstats,
            },
        )
    }

    pub fn info() -> AlgorithmInfo {
        let mut parameters = vec![
            bound_param_info("CONTRACT; Talwar §5.3 (spec §10)"),
            ParamInfo {
                name: key::T,
                default: "ceil((Gamma*n*eps)^(2/3) / (L1*||C||_1)^(2/3)), >= 2",
                meaning: "number of iterates (T-1 private vertex selections)",
                source: "Talwar Thm 5.5",
            },
            ParamInfo {
                name: key::CALIBRATION,
                default: "accountant",
                meaning: "accountant: Laplace scale from zCDP composition of the T-1 report-noisy-min steps; paper: printed scale (certifies ~2 eps, refused if over budget)",
                source: "spec Talwar §8, A16",
            },
        ];
        parameters.extend(common_params());
        AlgorithmInfo {
            name: "dp-frank-wolfe",
            use_when: "bounded data, l1-ball/polytope domain, Lipschitz convex loss",
            paper: "Talwar, Thakurta & Zhang, Alg. 4",
            privacy: "approx",
            losses: LOSSES.to_vec(),
            domains: POLYTOPES.to_vec(),
            parameters,
        }
    }

    fn plan(&self, problem: &Problem, budget: &Budget) -> Alg4Plan {
        let n = problem.data.n() as f64;
        let c = BoundedConstants::new(&problem.loss, problem.domain, self.bound);
        let c1 = problem.domain.l1_radius();
        let eps = budget.epsilon;
        let width = c.lipschitz_inf * c1;
        let big_t = theorem_t(self.t, problem.data.n(), budget, c.curvature, width);
        let score_sensitivity = 2.0 * c.lipschitz_inf * c1 / n;
        if budget.is_non_private() {
            return Alg4Plan {
                big_t,
                score_sensitivity,
                scale: 0.0,
                certified_epsilon: f64::INFINITY,
            };
        }
        let steps = (big_t - 1) as f64;
        let scale = match self.calibration {
            FwCalibration::Accountant => {
                let rho = approx_to_zcdp_rho(calibration_target(eps), budget.delta);
                let eps_step = (2.0 * rho / steps).sqrt();
                2.0 * score_sensitivity / eps_step
            }
            FwCalibration::Paper => {
                c.lipschitz_inf * c1 * (8.0 * big_t as f64 * (-budget.delta.ln())).sqrt()
                    / (n * eps)
            }
        };
        let eps_step = 2.0 * score_sensitivity / scale;
        let certified_epsilon = zcdp_to_approx(steps * eps_step * eps_step / 2.0, budget.delta);
        Alg4Plan {
            big_t,
            score_sensitivity,
            scale,
            certified_epsilon,
        }
    }
}

impl PrivateAlgorithm for DpFrankWolfe {
    /// Reads the features only through mean_gradient_of / SecondMoments::of.
    fn identity(&self) -> Identity {
        Identity::mapped("dp-frank-wolfe", PrivacyModel::Approx)
    }
    fn validate(&self, problem: &Problem, budget: &Budget) -> Result<(), FitError> {
        check_bounded_problem(self, problem, budget, (LOSSES, POLYTOPES), self.bound)?;
        let plan = self.plan(problem, budget);
        if plan.certified_epsilon > budget.epsilon {
            return Err(FitError::BadParameter {
                algorithm: "dp-frank-wolfe",
                param: key::CALIBRATION.into(),
                reason: format!(
                    "the printed Laplace scale certifies only epsilon = {:.4} under replace-one neighbours (spec Talwar A16), above the budget {}; use calibration=accountant",
                    plan.certified_epsilon, budget.epsilon
                ),
            });
        }
        Ok(())
    }
    fn fit_validated(&self, inputs: FitInputs) -> Result<FitReport, FitError> {
        let (problem, budget, rng, observer) = inputs.parts();
        let plan = self.plan(problem, &budget);
        let grads = Gradients::new(problem, Some(self.bound), self.suffstats, plan.big_t - 1);
        let mech = if plan.scale == 0.0 {
            ReportNoisyMin {
                sensitivity: plan.score_sensitivity,
                scale: 0.0,
            }
        } else {
            ReportNoisyMin::with_scale(plan.score_sensitivity, plan.scale)?
        };
        let ledger = (budget, Accountant::Zcdp, PrivacyModel::Approx);
        let noisy_min = Direction::NoisyMin(&mech);
        let (step, big_t) = (self.step, plan.big_t);
        let mut report = fit_report(
            problem, &grads, big_t, step, noisy_min, ledger, rng, observer,
        )?;
        let h = &mut report.hyperparameters;
        hp(h, "bound", self.bound);
        hp(h, key::CALIBRATION, self.calibration.name());
        hp(h, "laplace_scale", plan.scale);
        hp(h, "score_sensitivity", plan.score_sensitivity);
        Ok(report)
    }
}

// ------------------------------------------------------------------ Alg. 5

/// `dp-frank-wolfe-gaussian`: Talwar et al. Alg. 5. See the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct DpFrankWolfeGaussian {
    /// Public clipping bound B (required).
    pub bound: f64,
    /// Number of iterates; `None` = Theorem B.2.
    pub t: Option<usize>,
    pub step: StepRule,
    /// `true` (default): the zCDP-calibrated σ that spends the budget; `false`: the printed
    /// σ when it certifies the budget (`calibration=paper`).
    pub zcdp_calibration: bool,
    /// Squared loss: gradients from the second moments (`suffstats`, see [`SuffStats`]).
    pub suffstats: SuffStats,
}

impl Default for DpFrankWolfeGaussian {
    fn default() -> Self {
        DpFrankWolfeGaussian {
            bound: f64::NAN,
            t: None,
            step: StepRule::Standard,
            zcdp_calibration: true,
            suffstats: SuffStats::Auto,
        }
    }
}

/// σ for T − 1 Gaussian gradient releases of ℓ2-sensitivity `sens` under budget (ε, δ):
/// the printed σ² = 32 L² T ln²(T/δ)/(nε)² when it certifies (ε, δ) through zCDP, else (or
/// when `force_zcdp`) σ = sens/√(2ρ*/(T−1)). Returns (σ, calibration name). Shared with
/// noisy mirror descent (same σ, spec §2).
pub fn gaussian_gradient_sigma(
    lipschitz: f64,
    n: usize,
    big_t: usize,
    steps: usize,
    budget: &Budget,
    force_zcdp: bool,
) -> (f64, &'static str) {
    if budget.is_non_private() || steps == 0 {
        return (0.0, "none");
    }
    let n = n as f64;
    let sens = 2.0 * lipschitz / n;
    let t = big_t as f64;
    let printed = (32.0 * lipschitz * lipschitz * t * (t / budget.delta).ln().powi(2)).sqrt()
        / (n * budget.epsilon);
    let certified = zcdp_to_approx(
        steps as f64 * crate::privacy::gaussian_zcdp_rho(sens, printed),
        budget.delta,
    );
    if !force_zcdp && certified <= calibration_target(budget.epsilon) {
        return (printed, "paper");
    }
    let rho = approx_to_zcdp_rho(calibration_target(budget.epsilon), budget.delta) / steps as f64;
    (sens / (2.0 * rho).sqrt() * (1.0 + 1e-12), "zcdp")
}

impl DpFrankWolfeGaussian {
    pub fn from_params(params: &ParamMap) -> Result<Self, FitError> {
        let zcdp =
            |p: &Params| Ok(p.choice(key::CALIBRATION, &["paper", "zcdp"])? != Some("paper"));
        private_fw_from_params(
            &DP_FRANK_WOLFE_GAUSSIAN,
            params,
            zcdp,
            |bound, t, step, zcdp_calibration, suffstats| DpFrankWolfeGaussian {
                bound,
                t,
                step,
                zcdp_calibration,
                suffstats,
            },
        )
    }

    pub fn info() -> AlgorithmInfo {
        let mut parameters = vec![
            bound_param_info("CONTRACT"),
            ParamInfo {
                name: key::T,
                default: "ceil((Gamma*n*eps)^(2/3) / (L*G_C)^(2/3)), >= 2",
                meaning: "number of iterates (T-1 noisy gradients)",
                source: "Talwar Thm B.2",
            },
            ParamInfo {
                name: key::CALIBRATION,
                default: "zcdp",
                meaning: "zcdp: sigma from exact zCDP composition (spends the budget); paper: sigma^2 = 32 L^2 T ln^2(T/delta)/(n eps)^2 (certifies about 0.1 eps at eps = 1; falls back to zcdp when it does not certify)",
                source: "spec Talwar §9, A17, §2 check",
            },
        ];
        parameters.extend(common_params());
        AlgorithmInfo {
            name: "dp-frank-wolfe-gaussian",
            use_when: "bounded data, polytope with many vertices, smooth loss",
            paper: "Talwar, Thakurta & Zhang, Alg. 5",
            privacy: "approx",
            losses: LOSSES.to_vec(),
            domains: CONVEX.to_vec(),
            parameters,
        }
    }

    fn big_t(&self, problem: &Problem, budget: &Budget) -> usize {
        let c = BoundedConstants::new(&problem.loss, problem.domain, self.bound);
        let width = c.lipschitz_l2 * problem.domain.gaussian_width();
        theorem_t(self.t, problem.data.n(), budget, c.curvature, width)
    }
}

impl PrivateAlgorithm for DpFrankWolfeGaussian {
    /// Reads the features only through mean_gradient_of / SecondMoments::of.
    fn identity(&self) -> Identity {
        Identity::mapped("dp-frank-wolfe-gaussian", PrivacyModel::Approx)
    }
    fn validate(&self, problem: &Problem, budget: &Budget) -> Result<(), FitError> {
        check_bounded_problem(self, problem, budget, (LOSSES, CONVEX), self.bound)?;
        Ok(())
    }
    fn fit_validated(&self, inputs: FitInputs) -> Result<FitReport, FitError> {
        let (problem, budget, rng, observer) = inputs.parts();
        let big_t = self.big_t(problem, &budget);
        let c = BoundedConstants::new(&problem.loss, problem.domain, self.bound);
        let n = problem.data.n();
        let (sigma, calib) = gaussian_gradient_sigma(
            c.lipschitz_l2,
            n,
            big_t,
            big_t - 1,
            &budget,
            self.zcdp_calibration,
        );
        let sens = 2.0 * c.lipschitz_l2 / n as f64;
        let mech = GaussianMechanism {
            sensitivity: sens,
            sigma,
        };
        let grads = Gradients::new(problem, Some(self.bound), self.suffstats, big_t - 1);
        let ledger = (budget, Accountant::Zcdp, PrivacyModel::Approx);
        let noisy_gradient = Direction::NoisyGradient(&mech);
        let mut report = fit_report(
            problem,
            &grads,
            big_t,
            self.step,
            noisy_gradient,
            ledger,
            rng,
            observer,
        )?;
        let h = &mut report.hyperparameters;
        hp(h, "bound", self.bound);
        hp(h, key::CALIBRATION, calib);
        hp(h, "sigma", sigma);
        hp(h, "gradient_sensitivity", sens);
        Ok(report)
    }
}

/// Charges-free helper used by tests: the per-step ε of Alg. 4 under the accountant.
pub fn accountant_step_epsilon(steps: usize, budget: &Budget) -> f64 {
    let rho = approx_to_zcdp_rho(calibration_target(budget.epsilon), budget.delta);
    (2.0 * rho / steps as f64).sqrt()
}

#[cfg(test)]
mod hu_tests;
#[cfg(test)]
pub(crate) mod suffstats_tests;
#[cfg(test)]
mod tests;
