//! `noisy-mirror-descent`: differentially private mirror descent of Talwar, Thakurta &
//! Zhang (Alg. 1, A_Noise-MD), with the strongly convex step sizes of their Appendix A.
//!
//! Spec: `spec/talwar-thakurta-zhang-geometry.md` §2 (algorithm, privacy, defaults),
//! §3.1–§3.4 and §3.8 (potentials and their constants), §5 (Appendix A), ambiguities
//! A1–A6, A12, A19.
//!
//! # Algorithm
//!
//! ```text
//! σ from (L, n, T, ε, δ)                         # spec §2; see Privacy
//! θ_1 = argmin_C Ψ                               # spec A4
//! for t = 1 … T−1:
//!     g_t = ∇L(θ_t; D) + λ θ_t                   # full mean gradient of the clipped data
//!     ĝ_t = g_t + N(0, σ² I)                      # the only release (through the ledger)
//!     z_t = ∇Ψ(θ_t) − η_{t+1} ĝ_t                 # spec A1 (η does not multiply ∇Ψ)
//!     θ_{t+1} = argmin_{θ∈C} Ψ(θ) − ⟨z_t, θ⟩       # Bregman projection (see [`potentials`])
//! output θ^priv = (1/T) Σ_{t=1}^{T} θ_t           # running sum; θ_{T+1} is not used
//! ```
//!
//! Alg. 1 as printed also computes θ_{T+1} from a T-th noisy gradient, but excludes it from
//! the output average; that release would be pure privacy cost, so it is not made: T
//! iterates use T − 1 gradient releases.
//!
//! | `--domain` | default `potential` | Ψ | mirror step | spec |
//! |---|---|---|---|---|
//! | `l2-ball` | `euclidean` | ½‖θ‖² | projected gradient step | §3.1 |
//! | `l1-ball` | `qnorm` | c‖θ‖²_q, q = ln(2p)/(ln(2p) − 1) (q = 2 if 2p < 8) | dual soft-threshold + root finding | §3.3, A5, A6 |
//! | `simplex` | `entropy` | Σ θᵢ ln θᵢ + ln p | exponentiated gradient (log space) | §3.4 (b) |
//! | `polytope` | `lifted-entropy` | entropy of vertex weights w, θ = Vw | exponentiated gradient on Vᵀĝ | §3.2 |
//!
//! `potential = euclidean` works on every domain (projection onto C, spec §3.1), and
//! `potential = lifted-entropy` on every polytope (ℓ1 ball: the classical EG± update).
//!
//! **Strongly convex case (Appendix A).** With `lambda` = λ > 0 the data-independent
//! regulariser (λ/2)‖θ‖² is added to the loss, which makes it λ-strongly convex w.r.t.
//! Ψ = ½‖θ‖². With the Euclidean potential the step at iteration t is then
//! η_{t+1} = 1/(λ(t + 1)) (the proof's η_t = 1/(λt) with the index shift of A19; A12), or
//! 2/(λ(t + 1)) with `sc_step = 2` (the printed η_t = 2/(Δt)), and T defaults to
//! Theorem A.1's (‖C‖₂ nε)²/(G_C² + ‖C‖₂²). With another potential the regulariser is not
//! strongly convex w.r.t. Ψ, so the convex schedule below is kept (a note says so).
//!
//! # Privacy (records clipped to ‖x‖_∞ ≤ B, |y| ≤ B; replace-one neighbours)
//!
//! Every per-sample loss is L-Lipschitz on C with L = sup|f'|·B·√d + λ‖C‖₂ (the first term is
//! [`BoundedConstants::lipschitz_l2`]; the second bounds the regulariser's gradient λθ,
//! which is data-independent and cancels in the sensitivity, so including it only adds
//! noise, as the spec's "L-Lipschitz loss" prescribes). The mean gradient then has ℓ2
//! sensitivity 2L/n, and each of the T − 1 releases is a [`GaussianMechanism`]
//! `{ sensitivity: 2L/n, sigma: σ }` charged to a zCDP [`PrivacyLedger`] *before* the noise
//! is drawn. σ comes from [`frank_wolfe::gaussian_gradient_sigma`]: by default
//! (`calibration = zcdp`) the σ whose T − 1 releases compose in zCDP to exactly the budget
//! (ε, δ); with `calibration = paper` the printed
//! σ² = 32 L² T ln²(T/δ)/(nε)² when its zCDP composition certifies (ε, δ) (spec §2 check;
//! it certifies only ≈ 0.09ε at ε = 1, n = 10⁴), else the zCDP σ. σ
//! is always computed from the T actually run (also when T is capped by `max_steps`). The
//! ε actually certified is what the ledger reports. Only the averaged iterate is output.
//!
//! ε = ∞ gives σ = 0 and reproduces noise-free mirror descent exactly (same T, steps,
//! clipping).
//!
//! [`frank_wolfe::gaussian_gradient_sigma`]: super::frank_wolfe::gaussian_gradient_sigma
//!
//! # Parameters
//!
//! | name | symbol | default | source |
//! |---|---|---|---|
//! | `bound` | B | required | CONTRACT; spec §0 (per-record bound enforced by clipping) |
//! | `T` | T | ⌈‖Q‖²ε²n²/(ln²(n/δ)(‖Q‖² + G_Q²))⌉ ≥ 1, capped at `max_steps`; with λ > 0 and the Euclidean potential ⌈(‖C‖₂nε)²/(G_C² + ‖C‖₂²)⌉ (capped); ε = ∞: `max_steps` | proof of Thm 3.2 (spec §2, A2); Thm A.1; spec §2 practical notes |
//! | `max_steps` | — | 2000 | project choice: T of the theorems grows like n² (≈ 3·10⁶ full passes at n = 10⁵, d = 5, ε = 1, δ = 10⁻⁶); 2000 full gradient passes take ≈ 3–4 s at n = 10⁵, d ≤ 10 on 2 cores; σ is recomputed for the capped T, and the price is an optimisation floor at large n (see `tests/mirror_descent.rs`) |
//! | `eta` | η | √ΔΨ/(L‖Q‖₂√T), constant; with λ > 0 and the Euclidean potential the schedule `sc_step`/(λ(t+1)); a given value is a constant step that overrides both | proof of Thm 3.2 (A2); Thm A.1 (A12, A19) |
//! | `lambda` | λ = Δ | 0 (no regulariser) | Appendix A (spec §5) |
//! | `sc_step` | — | `1`: step 1/(λ(t+1)); `2`: 2/(λ(t+1)) (needs λ > 0) | spec A12, A19 |
//! | `potential` | Ψ | `auto` (table above); `euclidean`, `qnorm`, `entropy`, `lifted-entropy` | spec §3 |
//! | `qnorm_scale` | c | `normalized`: c = e²2^{2/q−2}/(2(q−1)r²); `paper`: 2^{2/q−2}/(4(q−1)r²) | spec A5 |
//! | `calibration` | σ | `zcdp` (spends exactly the budget); `paper` (printed σ, zCDP fallback) | spec §2 check, A17 |
//! | `suffstats` | — | `auto`: on when 8d ≤ n and 2(T − 1) ≥ d (squared loss) | project design (`docs/performance.md`, "Sufficient statistics") |
//!
//! **Sufficient statistics** (`suffstats`, [`SuffStats`]): for the squared loss g_t =
//! 2(Gθ_t − c) + λθ_t with G = X̃ᵀX̃/n and c = X̃ᵀỹ/n of the clipped data, built once in
//! O(nd²) without a clipped copy; each iteration then costs O(d²) instead of O(nd). The
//! gradient is the same function of the data up to floating-point summation order, so the
//! sensitivity 2L/n, σ and the privacy analysis are unchanged, and the noise draws are the
//! same. `auto` decides from public n, d, T (see [`SuffStats::auto_rule`]).
//!
//! Public constants (spec §3.8): ‖Q‖₂ and G_Q are 1 and E‖g‖₂ (Euclidean), r and
//! r√(2 ln 2p) (q-norm), 1 and √(2 ln 2p) (entropy), ‖C‖₂ and ‖C‖₂√(2 ln 2k) (lifted
//! entropy); ΔΨ = ½max_C‖θ − θ₀‖², c r², ln p, ln k. Everything that sets T, η and σ is
//! public: n, d, ε, δ, B, λ and the geometry of C — never the data.
//!
//! # Errors
//! A missing or non-positive `bound`; unknown parameters or malformed values; `sc_step`
//! without `lambda`; a loss that is not convex and Lipschitz (biweight); a domain other
//! than `l1-ball`, `l2-ball`, `simplex`, `polytope`; a potential that does not fit the
//! domain; δ = 0 with a finite ε.
//!
//! # Example
//! ```
//! use heavydp::algorithms::{mirror_descent::NoisyMirrorDescent, NoObserver, PrivateAlgorithm, Problem};
//! use heavydp::constraints::L2Ball;
//! use heavydp::data::Dataset;
//! use heavydp::loss::LossKind;
//! use heavydp::noise::rng_from_seed;
//! use heavydp::privacy::Budget;
//! let data = Dataset::from_rows(vec![0.5, -0.2, 0.1, 0.9, -0.4, 0.3], vec![0.2, 0.5, -0.1], 2).unwrap();
//! let domain = L2Ball { d: 2, radius: 1.0 };
//! let alg = NoisyMirrorDescent { bound: 1.0, t: Some(20), ..NoisyMirrorDescent::default() };
//! let problem = Problem { data: &data, loss: LossKind::Squared, domain: &domain };
//! let report = alg.fit(&problem, Budget::new(1.0, 1e-5).unwrap(), &mut rng_from_seed(1), &mut NoObserver).unwrap();
//! assert_eq!(report.weights.len(), 2);
//! assert!(report.privacy.epsilon <= 1.0);
//! assert_eq!(report.privacy.releases, 19);
//! assert_eq!(report.hyperparameters["potential"], "euclidean");
//! ```

pub mod potentials;

use super::*;
use crate::linalg::{axpy, SecondMoments};
use crate::loss::{mean_gradient_of, GradientWorkspace};
use crate::mechanisms::{release, GaussianMechanism};
use crate::params::SuffStats;
use crate::privacy::{Accountant, PrivacyLedger};
use potentials::{
    EntropyPotential, EuclideanPotential, Geometry, LiftedEntropyPotential, MirrorMap,
    QNormPotential, QNormScale,
};

const NAME: &str = "noisy-mirror-descent";

/// The registry entry of `noisy-mirror-descent` ([`crate::algorithms::REGISTRY`]).
pub const DESCRIPTOR: AlgorithmDescriptor = AlgorithmDescriptor::new(
    NAME,
    NoisyMirrorDescent::info,
    |p| boxed(NoisyMirrorDescent::from_params(p)),
    ("squared", "l2-ball"),
)
.cited(crate::algorithms::Citation {
    authors: "Talwar, Thakurta & Zhang",
    title: "*Private ERM beyond the worst case*",
    item: "Alg. 1 + App. A",
    summary: "noisy mirror descent (l2 / l1 / simplex / polytope potentials)",
    rust: "mirror_descent::NoisyMirrorDescent",
    spec: "talwar §2–§5, A1–A6, A12",
});
const LOSSES: &[&str] = &["squared", "logistic", "huber", "absolute"];
const DOMAINS: &[&str] = &["l1-ball", "l2-ball", "simplex", "polytope"];

const POTENTIAL_DOMAINS: &str = "euclidean: any convex domain; qnorm: l1-ball; entropy: simplex; \
     lifted-entropy: l1-ball, simplex, polytope";

/// Default cap on the number of iterates (see the module docs).
pub const DEFAULT_MAX_STEPS: usize = 2000;

/// Which potential Ψ to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PotentialChoice {
    /// The domain's default (module docs table).
    Auto,
    /// ½‖θ − θ₀‖² (any domain).
    Euclidean,
    /// c‖θ‖²_q (ℓ1 ball).
    QNorm,
    /// Negative entropy (simplex).
    Entropy,
    /// Entropy of the vertex weights (any polytope: ℓ1 ball, simplex, polytope).
    LiftedEntropy,
}

impl PotentialChoice {
    const WORDS: &'static [&'static str] =
        &["auto", "euclidean", "qnorm", "entropy", "lifted-entropy"];

    /// The `--param potential` word.
    pub fn as_str(self) -> &'static str {
        match self {
            PotentialChoice::Auto => "auto",
            PotentialChoice::Euclidean => "euclidean",
            PotentialChoice::QNorm => "qnorm",
            PotentialChoice::Entropy => "entropy",
            PotentialChoice::LiftedEntropy => "lifted-entropy",
        }
    }

    fn parse(word: Option<&str>) -> Self {
        match word {
            Some("euclidean") => PotentialChoice::Euclidean,
            Some("qnorm") => PotentialChoice::QNorm,
            Some("entropy") => PotentialChoice::Entropy,
            Some("lifted-entropy") => PotentialChoice::LiftedEntropy,
            _ => PotentialChoice::Auto,
        }
    }
}

/// The strongly convex step rule of Appendix A (spec A12).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScStep {
    /// Step 1/(λ(t + 1)) at iteration t (the proof's η_t = 1/(λt), index shift A19). Default.
    Proof,
    /// Step 2/(λ(t + 1)) at iteration t (Theorem A.1 as printed, η_t = 2/(λt)).
    Printed,
}

impl ScStep {
    fn factor(self) -> f64 {
        match self {
            ScStep::Proof => 1.0,
            ScStep::Printed => 2.0,
        }
    }
}

/// The step sizes a fit uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StepSchedule {
    /// η at every iteration.
    Constant(f64),
    /// factor/(λ(t + 1)) at iteration t = 1, 2, …
    StronglyConvex { lambda: f64, factor: f64 },
}

impl StepSchedule {
    /// The step size used at iteration t (which is η_{t+1} in the paper's indexing).
    pub fn eta(&self, t: usize) -> f64 {
        match *self {
            StepSchedule::Constant(eta) => eta,
            StepSchedule::StronglyConvex { lambda, factor } => factor / (lambda * (t as f64 + 1.0)),
        }
    }
}

/// `noisy-mirror-descent`: Talwar et al. Alg. 1 (+ Appendix A). See the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct NoisyMirrorDescent {
    /// Public clipping bound B (required).
    pub bound: f64,
    /// Number of iterates T (T − 1 noisy gradients); `None` = the theorem's value, capped.
    pub t: Option<usize>,
    /// Cap on the default T (an explicit `t` is not capped).
    pub max_steps: usize,
    /// Constant step size; `None` = the theorem's schedule.
    pub eta: Option<f64>,
    /// Strength λ ≥ 0 of the regulariser (λ/2)‖θ‖².
    pub lambda: f64,
    /// The Appendix A step rule (used when λ > 0 with the Euclidean potential).
    pub sc_step: ScStep,
    pub potential: PotentialChoice,
    /// The constant of the q-norm potential (ℓ1 ball).
    pub qnorm_scale: QNormScale,
    /// `true` (default): the zCDP-calibrated σ that spends the budget; `false`: the printed
    /// σ when it certifies the budget.
    pub zcdp_calibration: bool,
    /// Squared loss: gradients from the clipped data's second moments (`suffstats`).
    pub suffstats: SuffStats,
}

impl Default for NoisyMirrorDescent {
    fn default() -> Self {
        NoisyMirrorDescent {
            bound: f64::NAN,
            t: None,
            max_steps: DEFAULT_MAX_STEPS,
            eta: None,
            lambda: 0.0,
            sc_step: ScStep::Proof,
            potential: PotentialChoice::Auto,
            qnorm_scale: QNormScale::Normalized,
            zcdp_calibration: true,
            suffstats: SuffStats::Auto,
        }
    }
}

/// Everything a fit resolves from public quantities before touching the data.
#[derive(Debug, Clone, PartialEq)]
pub struct MirrorPlan {
    /// The potential's model-file name (`euclidean`, `qnorm`, `entropy`, `lifted-entropy`).
    pub potential: &'static str,
    /// ‖Q‖₂, G_Q and ΔΨ of the potential.
    pub geometry: Geometry,
    /// The q of the q-norm potential.
    pub q: Option<f64>,
    /// L: per-sample ℓ2 Lipschitz constant on C, regulariser included.
    pub lipschitz: f64,
    /// T given by the theorem (∞ when ε = ∞); `None` when T was given.
    pub t_theorem: Option<f64>,
    /// The number of iterates actually run.
    pub big_t: usize,
    /// Whether the theorem's T was capped at `max_steps`.
    pub capped: bool,
    pub schedule: StepSchedule,
    /// ℓ2 sensitivity 2L/n of the mean gradient.
    pub sensitivity: f64,
    /// Gaussian noise standard deviation σ (0 when ε = ∞).
    pub sigma: f64,
    /// `paper`, `zcdp` or `none` (see [`frank_wolfe::gaussian_gradient_sigma`]).
    pub calibration: &'static str,
    /// Public remarks for the report.
    pub notes: Vec<String>,
}

impl NoisyMirrorDescent {
    pub fn from_params(params: &ParamMap) -> Result<Self, FitError> {
        let p = DESCRIPTOR.params(params)?;
        let lambda = p.non_negative("lambda")?.unwrap_or(0.0);
        let sc_step = match p.choice("sc_step", &["1", "2"])? {
            Some(_) if lambda == 0.0 => {
                return Err(FitError::BadParameter {
                    algorithm: NAME,
                    param: "sc_step".into(),
                    reason: "the strongly convex step rule needs --param lambda > 0".into(),
                })
            }
            Some("2") => ScStep::Printed,
            _ => ScStep::Proof,
        };
        Ok(NoisyMirrorDescent {
            bound: required_bound(NAME, &p)?,
            t: p.integer(key::T, 1)?,
            max_steps: p.integer("max_steps", 1)?.unwrap_or(DEFAULT_MAX_STEPS),
            eta: p.positive("eta")?,
            lambda,
            sc_step,
            potential: PotentialChoice::parse(p.choice("potential", PotentialChoice::WORDS)?),
            qnorm_scale: p.pick(
                "qnorm_scale",
                &[
                    ("normalized", QNormScale::Normalized),
                    ("paper", QNormScale::Paper),
                ],
            )?,
            zcdp_calibration: p.choice(key::CALIBRATION, &["paper", "zcdp"])? != Some("paper"),
            suffstats: SuffStats::parse(&p)?,
        })
    }

    pub fn info() -> AlgorithmInfo {
        AlgorithmInfo {
            name: NAME,
            use_when: "bounded data, l1/l2 ball or simplex, also the absolute loss",
            paper: "Talwar, Thakurta & Zhang, Alg. 1 (+ Appendix A)",
            privacy: "approx",
            losses: LOSSES.to_vec(),
            domains: DOMAINS.to_vec(),
            parameters: vec![
                TALWAR_BOUND,
                ParamInfo {
                    name: key::T,
                    default: "ceil(|Q|^2 eps^2 n^2 / (ln^2(n/delta) (|Q|^2 + G_Q^2))) >= 1, capped at max_steps; lambda > 0 with the Euclidean potential: ceil((|C|_2 n eps)^2 / (G_C^2 + |C|_2^2)), capped; eps = inf: max_steps",
                    meaning: "number of iterates averaged (T-1 noisy gradient releases)",
                    source: "proof of Talwar Thm 3.2 (spec §2, A2); Thm A.1 (spec §5)",
                },
                ParamInfo {
                    name: "max_steps",
                    default: "2000",
                    meaning: "cap on the default T (T grows like n^2); sigma is recomputed for the capped T; an explicit T is not capped",
                    source: "project choice allowed by spec Talwar §2 practical notes",
                },
                ParamInfo {
                    name: "eta",
                    default: "sqrt(DeltaPsi) / (L |Q|_2 sqrt(T)); lambda > 0 with the Euclidean potential: sc_step/(lambda (t+1)) at iteration t",
                    meaning: "step size; a given value is used at every iteration",
                    source: "proof of Talwar Thm 3.2 (spec A2); Thm A.1 (spec A12, A19)",
                },
                ParamInfo {
                    name: "lambda",
                    default: "0",
                    meaning: "data-independent regulariser (lambda/2)|theta|^2 added to the loss (strong convexity Delta = lambda); its gradient bound lambda |C|_2 is added to L",
                    source: "Talwar Appendix A (spec §5)",
                },
                ParamInfo {
                    name: "sc_step",
                    default: "1",
                    meaning: "strongly convex step rule (needs lambda > 0): 1 = 1/(lambda (t+1)) (proof), 2 = 2/(lambda (t+1)) (printed eta_t = 2/(Delta t))",
                    source: "spec Talwar A12, A19",
                },
                ParamInfo {
                    name: "potential",
                    default: "auto (l2-ball: euclidean, l1-ball: qnorm, simplex: entropy, polytope: lifted-entropy)",
                    meaning: "mirror map: euclidean (any domain), qnorm (l1-ball), entropy (simplex), lifted-entropy (l1-ball, simplex, polytope)",
                    source: "spec Talwar §3.1-§3.4",
                },
                ParamInfo {
                    name: "qnorm_scale",
                    default: "normalized",
                    meaning: "constant of the l1-ball q-norm potential c|theta|_q^2: normalized = e^2 2^(2/q-2)/(2(q-1) r^2) (1-strongly convex w.r.t. |.|_Q), paper = 2^(2/q-2)/(4(q-1) r^2)",
                    source: "spec Talwar A5",
                },
                ParamInfo {
                    name: key::CALIBRATION,
                    default: "zcdp",
                    meaning: "zcdp: sigma spending exactly the budget under zCDP; paper: sigma^2 = 32 L^2 T ln^2(T/delta)/(n eps)^2 when it certifies (eps, delta) under zCDP (about 0.1 eps at eps = 1), else zcdp",
                    source: "spec Talwar §2 privacy check",
                },
                SuffStats::param_info(),
            ],
        }
    }

    fn bad(param: &str, reason: impl Into<String>) -> FitError {
        FitError::BadParameter {
            algorithm: NAME,
            param: param.to_string(),
            reason: reason.into(),
        }
    }

    /// The mirror map for `domain` (checks that the potential fits the domain).
    pub fn mirror_map<'a>(
        &self,
        domain: &'a dyn ConstraintSet,
    ) -> Result<Box<dyn MirrorMap + 'a>, FitError> {
        let kind = domain.describe()["kind"].as_str().unwrap_or("").to_string();
        let choice = match (self.potential, kind.as_str()) {
            (PotentialChoice::Auto, "l2-ball") => PotentialChoice::Euclidean,
            (PotentialChoice::Auto, "l1-ball") => PotentialChoice::QNorm,
            (PotentialChoice::Auto, "simplex") => PotentialChoice::Entropy,
            (PotentialChoice::Auto, "polytope") => PotentialChoice::LiftedEntropy,
            (c, _) => c,
        };
        let scale = self.qnorm_scale;
        Ok(match (choice, kind.as_str(), domain.as_polytope()) {
            (PotentialChoice::Euclidean, _, _) if domain.is_convex() => {
                Box::new(EuclideanPotential::new(domain))
            }
            (PotentialChoice::QNorm, "l1-ball", _) => {
                Box::new(QNormPotential::new(domain.dim(), domain.l1_radius(), scale))
            }
            (PotentialChoice::Entropy, "simplex", _) => {
                Box::new(EntropyPotential::new(domain.dim()))
            }
            (PotentialChoice::LiftedEntropy, _, Some(p)) => {
                Box::new(LiftedEntropyPotential::new(p))
            }
            _ => {
                let reason = format!(
                    "'{}' does not fit the domain '{kind}' ({POTENTIAL_DOMAINS})",
                    choice.as_str()
                );
                return Err(Self::bad("potential", reason));
            }
        })
    }

    /// Resolves T, the step sizes, L, the sensitivity and σ from public quantities.
    pub fn plan(&self, problem: &Problem, budget: &Budget) -> Result<MirrorPlan, FitError> {
        let mirror = self.mirror_map(problem.domain)?;
        let geometry = mirror.geometry();
        let potential = mirror.name();
        let n = problem.data.n();
        let nf = n as f64;
        let c2 = problem.domain.l2_radius();
        let base = BoundedConstants::new(&problem.loss, problem.domain, self.bound);
        let lipschitz = base.lipschitz_l2 + self.lambda * c2;
        let euclidean = potential == "euclidean";
        let strongly_convex = self.lambda > 0.0 && euclidean;
        let mut notes = Vec::new();
        if self.lambda > 0.0 && !euclidean {
            notes.push(format!(
                "lambda > 0 with the {potential} potential: the regulariser is not strongly convex w.r.t. this potential, so the convex (Theorem 3.2) schedule is used"
            ));
        }
        let eps = budget.epsilon;
        let (big_t, t_theorem, capped) = match self.t {
            Some(t) => (t, None, false),
            None => {
                let raw = if budget.is_non_private() {
                    f64::INFINITY
                } else if strongly_convex {
                    // Theorem A.1: T = (‖C‖₂ n ε)² / (G_C² + ‖C‖₂²).
                    let g = problem.domain.gaussian_width();
                    (c2 * nf * eps).powi(2) / (g * g + c2 * c2)
                } else {
                    // Proof of Theorem 3.2: T = ‖Q‖² ε² n² / (ln²(n/δ) (‖Q‖² + G_Q²)).
                    let q2 = geometry.q_radius * geometry.q_radius;
                    let g2 = geometry.gaussian_width * geometry.gaussian_width;
                    let l = (nf / budget.delta).ln();
                    if q2 > 0.0 {
                        q2 * (eps * nf).powi(2) / (l * l * (q2 + g2))
                    } else {
                        1.0
                    }
                };
                let t = raw.ceil().max(1.0);
                if t > self.max_steps as f64 {
                    notes.push(format!(
                        "T capped at max_steps = {} (the theorem gives T = {}); sigma computed for T = {}",
                        self.max_steps,
                        if raw.is_finite() { format!("{t:.0}") } else { "infinity at epsilon = infinity".into() },
                        self.max_steps
                    ));
                    (self.max_steps, Some(raw), true)
                } else {
                    (t as usize, Some(raw), false)
                }
            }
        };
        let schedule = match self.eta {
            Some(e) => StepSchedule::Constant(e),
            None if strongly_convex => StepSchedule::StronglyConvex {
                lambda: self.lambda,
                factor: self.sc_step.factor(),
            },
            None => {
                let den = lipschitz * geometry.q_radius * (big_t as f64).sqrt();
                StepSchedule::Constant(if den > 0.0 {
                    geometry.delta_psi.sqrt() / den
                } else {
                    0.0
                })
            }
        };
        let (sigma, calibration) = frank_wolfe::gaussian_gradient_sigma(
            lipschitz,
            n,
            big_t,
            big_t - 1,
            budget,
            self.zcdp_calibration,
        );
        Ok(MirrorPlan {
            potential,
            geometry,
            q: (potential == "qnorm").then(|| QNormPotential::exponent(problem.domain.dim())),
            lipschitz,
            t_theorem,
            big_t,
            capped,
            schedule,
            sensitivity: 2.0 * lipschitz / nf,
            sigma,
            calibration,
            notes,
        })
    }
}

/// Where the full mean gradients ∇L(θ; D̃) of the clipped data D̃ come from.
enum Gradients {
    /// The clipped copy of the data, one pass per gradient (any loss).
    Passes(Dataset),
    /// Squared loss: 2(Gθ − c) from the clipped data's second moments, O(d²) per
    /// gradient, built without a clipped copy. The same function of the data as the pass
    /// (up to floating-point summation order), so the sensitivity 2L/n and every privacy
    /// statement of the module hold unchanged.
    Moments(SecondMoments),
}

/// The mirror-descent loop. Returns the average of θ₁ … θ_T and the trace.
#[allow(clippy::too_many_arguments)]
fn run(
    gradients: &Gradients,
    loss: &LossKind,
    lambda: f64,
    mirror: &mut dyn MirrorMap,
    plan: &MirrorPlan,
    ledger: &mut PrivacyLedger,
    rng: &mut dyn RngCore,
    observer: &mut dyn Observer,
) -> Result<(Vec<f64>, Vec<TraceRecord>), FitError> {
    let d = match gradients {
        Gradients::Passes(data) => data.d(),
        Gradients::Moments(m) => m.d,
    };
    let mech = GaussianMechanism {
        sensitivity: plan.sensitivity,
        sigma: plan.sigma,
    };
    let mut theta = vec![0.0; d];
    mirror.reset(&mut theta);
    let mut sum = theta.clone();
    let mut grad = vec![0.0; d];
    let mut gtheta = vec![0.0; d];
    let mut ws = GradientWorkspace::new();
    let updates = plan.big_t - 1;
    let mut trace = Vec::with_capacity(updates);
    observer.on_start(updates);
    for t in 1..plan.big_t {
        match gradients {
            Gradients::Passes(data) => {
                mean_gradient_of(loss, data, data.y(), &theta, &mut grad, &mut ws);
            }
            Gradients::Moments(m) => {
                m.gram_times(&theta, &mut gtheta);
                m.quadratic_gradient(&gtheta, &mut grad);
            }
        }
        if lambda > 0.0 {
            axpy(lambda, &theta, &mut grad);
        }
        let noisy = release(ledger, "noisy gradient (Alg. 1)", &mech, &grad, rng)?;
        let eta = plan.schedule.eta(t);
        mirror.step(&noisy, eta, &mut theta);
        for (s, x) in sum.iter_mut().zip(&theta) {
            *s += x;
        }
        TraceRecord::push(&mut trace, observer, ledger, t, (eta, plan.sigma));
    }
    observer.on_finish();
    let inv = 1.0 / plan.big_t as f64;
    sum.iter_mut().for_each(|s| *s *= inv);
    Ok((sum, trace))
}

impl PrivateAlgorithm for NoisyMirrorDescent {
    /// Reads the features only through mean_gradient_of / SecondMoments::of.
    fn identity(&self) -> Identity {
        Identity::mapped(NAME, PrivacyModel::Approx)
    }
    fn validate(&self, problem: &Problem, budget: &Budget) -> Result<(), FitError> {
        check_bounded_problem(self, problem, budget, (LOSSES, DOMAINS), self.bound)?;
        if !(self.lambda.is_finite() && self.lambda >= 0.0) {
            return Err(Self::bad("lambda", "expected a number >= 0"));
        }
        if self.eta.is_some_and(|e| !(e.is_finite() && e > 0.0)) {
            return Err(Self::bad("eta", "expected a number > 0"));
        }
        if self.t == Some(0) {
            return Err(Self::bad(key::T, "expected an integer >= 1"));
        }
        if self.max_steps == 0 {
            return Err(Self::bad("max_steps", "expected an integer >= 1"));
        }
        if self.sc_step == ScStep::Printed && self.lambda == 0.0 {
            return Err(Self::bad(
                "sc_step",
                "the strongly convex step rule needs lambda > 0",
            ));
        }
        self.mirror_map(problem.domain)?;
        Ok(())
    }
    fn fit_validated(&self, inputs: FitInputs) -> Result<FitReport, FitError> {
        let (problem, budget, rng, observer) = inputs.parts();
        let plan = self.plan(problem, &budget)?;
        let mut mirror = self.mirror_map(problem.domain)?;
        let (n, d) = (problem.data.n(), problem.data.d());
        let squared = matches!(problem.loss, LossKind::Squared);
        let gradients = if self.suffstats.resolve(squared, n, d, Some(plan.big_t - 1)) {
            let b = self.bound;
            Gradients::Moments(SecondMoments::of(problem.data, problem.data.y(), b, b))
        } else {
            Gradients::Passes(clip_for(problem.data, &problem.loss, self.bound))
        };
        let mut ledger = PrivacyLedger::new(budget, Accountant::Zcdp);
        let (w, trace) = run(
            &gradients,
            &problem.loss,
            self.lambda,
            mirror.as_mut(),
            &plan,
            &mut ledger,
            rng,
            observer,
        )?;
        let mut h = BTreeMap::new();
        hp(&mut h, "bound", self.bound);
        hp(&mut h, key::T, plan.big_t);
        if let Some(raw) = plan.t_theorem.filter(|r| r.is_finite()) {
            hp(&mut h, "T_theorem", raw.ceil().max(1.0));
        }
        hp(&mut h, "max_steps", self.max_steps);
        match plan.schedule {
            StepSchedule::Constant(eta) => {
                hp(&mut h, "eta", eta);
                hp(&mut h, "step_schedule", "constant");
            }
            StepSchedule::StronglyConvex { factor, .. } => {
                hp(
                    &mut h,
                    "step_schedule",
                    if factor == 1.0 {
                        "1/(lambda (t+1))"
                    } else {
                        "2/(lambda (t+1))"
                    },
                );
                hp(&mut h, "sc_step", factor as u64);
            }
        }
        hp(&mut h, "lambda", self.lambda);
        hp(&mut h, "potential", plan.potential);
        if let Some(q) = plan.q {
            hp(&mut h, "q", q);
            hp(&mut h, "qnorm_scale", self.qnorm_scale.as_str());
        }
        hp(&mut h, "q_radius", plan.geometry.q_radius);
        hp(&mut h, "gaussian_width", plan.geometry.gaussian_width);
        hp(&mut h, "delta_psi", plan.geometry.delta_psi);
        hp(&mut h, "lipschitz", plan.lipschitz);
        hp(&mut h, key::CALIBRATION, plan.calibration);
        hp(&mut h, "sigma", plan.sigma);
        hp(&mut h, "gradient_sensitivity", plan.sensitivity);
        let path = match gradients {
            Gradients::Moments(_) => "on",
            Gradients::Passes(_) => "off",
        };
        hp(&mut h, "suffstats", path);
        let privacy = ledger.summary(PrivacyModel::Approx);
        Ok(FitReport::fixed_iterations(
            w, privacy, h, trace, plan.notes,
        ))
    }
}

#[cfg(test)]
mod tests;
