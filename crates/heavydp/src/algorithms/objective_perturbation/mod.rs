//! `objective-perturbation`: Talwar, Thakurta & Zhang, Algorithm 2 (after Kifer, Smith &
//! Thakurta 2012): minimise the empirical risk plus a random linear term and a small
//! quadratic regulariser, exactly.
//!
//! Spec: `spec/talwar-thakurta-zhang-geometry.md` §0 and §6 (with its "Reviewed"
//! paragraphs), ambiguities A13 and A14.
//!
//! # Algorithm
//!
//! ```text
//! clip every record: ‖x‖_∞ ≤ B, |y| ≤ B (labels ±1 for the logistic loss)
//! L  = sup|f'|·B·√d        (ℓ2 Lipschitz constant of every admissible record's loss)
//! λ  = sup f''·B²·d        (bound on f''·‖x‖₂², the rank-one data Hessian)
//! ζ  = max{2λ/(nε) − μ₀, 0} (μ₀: the data-independent ridge `mu0`, default 0)
//! b  ∼ N(0, σ²I_d)          (σ from `calibration`, below)
//! θ^priv = argmin_{θ∈C} L(θ; D) + (ζ/2)‖θ − θ₀‖² + (μ₀/2)‖θ‖² + ⟨b, θ⟩,   θ₀ = start(C)
//! ```
//!
//! The argmin is computed by accelerated projected gradient with backtracking and adaptive
//! restart ([`solver`]) until the gradient-mapping norm is at most 1e−10·L (spec §6, A13);
//! squared-loss problems use the Gram matrix XᵀX/n (formed once), logistic problems full
//! gradient passes. Explicit vertex polytopes are projected onto exactly by Wolfe's
//! minimum-norm-point algorithm ([`crate::constraints::hull`]). With ε = ∞, ζ = 0 and b = 0: the run is the
//! non-private (μ₀-regularised) ERM solved by the same solver.
//!
//! # Privacy (replace-one neighbours, n public)
//!
//! Covered losses are GLM-form and C²: ℓ(θ; (x, y)) = f(⟨x, θ⟩, y) (+ the ridge (μ₀/2)‖θ‖²),
//! here `squared` and `logistic`; `huber`, `absolute` and `biweight` are refused (not C²).
//! The output density ratio of neighbours is a Jacobian factor ≤ 1 + λ/(n(ζ + μ₀)) times a
//! Gaussian factor whose shift (the gradient difference of the replaced record, ≤ 2L/n)
//! stays in the fixed plane span{x_n, x′_n}. [`calibration`] turns this into the ε the run
//! certifies at the budget's δ (a hockey-stick bound with a χ²₂ radius); that **certified ε
//! is what the ledger is charged** (one `approx` charge, basic accountant) and what the
//! report states.
//!
//! | `calibration` | σ | certified ε at ε = 1, δ = 10⁻⁵ |
//! |---|---|---|
//! | `exact` (default) | smallest σ whose certificate is ε (bisection) | 1.00 |
//! | `replace-one` | 2L√(8 ln(2/δ) + 4ε)/(nε) | 0.80 |
//! | `tight` | 2L/(n(√(2 ln(1/δ) + ε) − √(2 ln(1/δ)))) | 0.82 |
//! | `kst12` (reproduction) | L√(8 ln(2/δ) + 4ε)/(nε) | 1.24 |
//! | `paper` (reproduction) | L√(2 ln(1/δ))/(nε) | 2.27 |
//!
//! The reproduction calibrations certify **more** than the ε they are given, so a fit with
//! them is refused, and the error states the ε they would certify: the ledger never spends
//! more than the user's budget. They remain selectable so that the certified value of the
//! printed formulas can be read off for any (n, ε, δ).
//!
//! The proof assumes the exact minimiser. The solver stops at its tolerance (a public
//! quantity) or at `max_iter`; whether it met the tolerance depends on the data and is
//! not covered by the guarantee, so it is not reported: the model file's status is always
//! `completed` and every fit carries the same note that the guarantee assumes the
//! minimiser was reached. The solver's iteration count and achieved
//! gradient-mapping norm are likewise never recorded or printed. The trace has a single record (the one release: `noise_scale` = σ,
//! `step_size` = 0), and the observer sees one iteration, so neither reveals the solver's
//! data-dependent iteration count.
//!
//! # Parameters
//!
//! | name | symbol | default | source |
//! |---|---|---|---|
//! | `bound` | B | required | CONTRACT; spec §0 (bounds must hold for every record) |
//! | `calibration` | σ | `exact` | spec §6 (Reviewed), A14 |
//! | `mu0` | μ₀ | 0 (no ridge) | spec §6 (Reviewed): data-independent strong convexity |
//! | `max_iter` | — | 20000 | inner-solver cap; tolerance fixed at 1e−10·L (spec §6, A13) |
//! | `suffstats` | — | `auto` (on when 8d ≤ n) | squared loss: the solver's gradients from X̃ᵀX̃/n and X̃ᵀỹ/n of the clipped data |
//!
//! **Sufficient statistics** (`suffstats`, [`SuffStats`]): for the squared loss the inner
//! solver's data gradient (2/n)Σ x̃_i(⟨x̃_i, θ⟩ − ỹ_i) equals 2(Gθ − c) with G = X̃ᵀX̃/n and
//! c = X̃ᵀỹ/n, built once in O(nd²) from the data clipped on the fly (no clipped copy), then
//! O(d²) per gradient instead of O(nd). It is the same function of the data, computed in
//! a different floating-point order, and the output is still post-processing of (clipped
//! data, b): the privacy analysis is unchanged. `auto` uses it when 8d ≤ n (G is then at most
//! an eighth of the data's size; the solver's iteration count is data-dependent and so not
//! part of the rule); `on`/`off` force either path. The two paths run the same iteration
//! (the quadratic's affine gradient is used on both), so they agree up to rounding, and to
//! the solver's tolerance where a rounding difference flips a backtracking or restart test.
//!
//! Constants: L = sup|f'|·B√d and λ = sup f''·B²d with sup|f'| over |⟨x, θ⟩| ≤ B‖C‖₁
//! ([`BoundedConstants::lipschitz_l2`], [`BoundedConstants::hessian_bound`]).
//!
//! # Errors
//! Unknown parameters, a missing `bound`, δ = 0 (the guarantee is (ε, δ)), losses that are
//! not C² GLM losses (`huber`, `absolute`, `biweight`), the non-convex `sparse` domain, a
//! domain whose dimension differs from the data's, logistic labels not in {−1, +1}.
//!
//! # Example
//! ```
//! use heavydp::algorithms::{objective_perturbation::ObjectivePerturbation, NoObserver, PrivateAlgorithm, Problem};
//! use heavydp::constraints::L2Ball;
//! use heavydp::data::Dataset;
//! use heavydp::loss::LossKind;
//! use heavydp::noise::rng_from_seed;
//! use heavydp::privacy::Budget;
//! let data = Dataset::from_rows(vec![0.5, -0.2, 0.1, 0.9, -0.4, 0.3], vec![0.2, 0.5, -0.1], 2).unwrap();
//! let domain = L2Ball { d: 2, radius: 1.0 };
//! let alg = ObjectivePerturbation { bound: 1.0, ..ObjectivePerturbation::default() };
//! let problem = Problem { data: &data, loss: LossKind::Squared, domain: &domain };
//! let report = alg.fit(&problem, Budget::new(1.0, 1e-5).unwrap(), &mut rng_from_seed(1), &mut NoObserver).unwrap();
//! assert_eq!(report.weights.len(), 2);
//! assert!(report.privacy.epsilon <= 1.0);
//! ```

pub mod calibration;

pub mod solver;

use super::*;
use crate::mechanisms::{release, Mechanism};
use crate::params::SuffStats;
use crate::privacy::{Accountant, Cost, PrivacyLedger};
pub use calibration::OpCalibration;
use solver::{PerturbedErm, SolverSettings};

const NAME: &str = "objective-perturbation";

/// The registry entry of `objective-perturbation` ([`crate::algorithms::REGISTRY`]).
pub const DESCRIPTOR: AlgorithmDescriptor = AlgorithmDescriptor::new(
    NAME,
    ObjectivePerturbation::info,
    |p| boxed(ObjectivePerturbation::from_params(p)),
    ("squared", "l2-ball"),
)
.cited(crate::algorithms::Citation {
    authors: "Talwar, Thakurta & Zhang",
    title: "*Private ERM beyond the worst case*",
    item: "Alg. 2",
    summary: "objective perturbation",
    rust: "objective_perturbation::ObjectivePerturbation",
    spec: "talwar §6, A13–A14",
});
const LOSSES: &[&str] = &["squared", "logistic"];
const DOMAINS: &[&str] = &["l2-ball", "l1-ball", "simplex", "polytope"];
const DEFAULT_MAX_ITER: usize = 20_000;
/// The inner solver's tolerance on the gradient-mapping norm, relative to L (spec §6).
pub const RELATIVE_TOLERANCE: f64 = 1e-10;

/// The perturbation b ∼ N(0, σ²I_d) of objective perturbation, as a mechanism. Its cost is
/// the (ε, δ) certified for the **whole output** θ^priv (the minimiser of the perturbed
/// objective); drawing b through [`release`] charges it before anything is computed from
/// the data. The input is the zero vector of length d.
///
/// b is the one continuous floating-point noise in heavydp's private paths, on purpose: it
/// is drawn from the public zero vector (never added to a private value), and the privacy
/// proof is a change-of-variables argument for a continuous Gaussian density, which a
/// snapped discrete Gaussian would not satisfy. What remains idealised is the proof's real
/// arithmetic (the exact minimiser, the continuous density), not a noise-addition step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PerturbationNoise {
    /// σ (0 for ε = ∞).
    pub sigma: f64,
    /// The certified ε of the resulting output.
    pub epsilon: f64,
    /// Its δ.
    pub delta: f64,
}

impl Mechanism for PerturbationNoise {
    type Input = [f64];
    type Output = Vec<f64>;
    fn cost(&self) -> Cost {
        Cost::Approx {
            epsilon: self.epsilon,
            delta: self.delta,
        }
    }
    fn run_uncharged<R: RngCore + ?Sized>(&self, input: &[f64], rng: &mut R) -> Vec<f64> {
        let mut out = input.to_vec();
        crate::noise::add_gaussian(&mut out, self.sigma, rng);
        out
    }
}

/// `objective-perturbation`: Talwar et al. Alg. 2. See the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectivePerturbation {
    /// Public clipping bound B (required).
    pub bound: f64,
    /// Noise calibration (default [`OpCalibration::Exact`]).
    pub calibration: OpCalibration,
    /// μ₀ ≥ 0: weight of the data-independent ridge (μ₀/2)‖θ‖² added to every record's loss.
    pub mu0: f64,
    /// Cap on the inner solver's accelerated iterations.
    pub max_iter: usize,
    /// Squared loss: the solver's gradients from the clipped data's second moments.
    pub suffstats: SuffStats,
}

impl Default for ObjectivePerturbation {
    fn default() -> Self {
        ObjectivePerturbation {
            bound: f64::NAN,
            calibration: OpCalibration::Exact,
            mu0: 0.0,
            max_iter: DEFAULT_MAX_ITER,
            suffstats: SuffStats::Auto,
        }
    }
}

/// The resolved public constants and noise of a fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpPlan {
    /// L: ℓ2 Lipschitz constant of every admissible record's loss.
    pub lipschitz: f64,
    /// λ: bound on f''·‖x‖₂² (spectral norm of a record's data Hessian).
    pub hessian_bound: f64,
    /// μ₀.
    pub mu0: f64,
    /// ζ = max{2λ/(nε) − μ₀, 0}.
    pub zeta: f64,
    /// σ of b.
    pub sigma: f64,
    /// ln(1 + λ/(n(ζ + μ₀))): the Jacobian part of the privacy loss.
    pub jacobian_epsilon: f64,
    /// u = 2L/(nσ): the gradient difference in units of σ.
    pub gaussian_shift: f64,
    /// The ε the run certifies at the budget's δ (∞ when non-private).
    pub certified_epsilon: f64,
    /// Inner-solver tolerance 1e−10·L on the gradient-mapping norm.
    pub tolerance: f64,
}

impl ObjectivePerturbation {
    pub fn from_params(params: &ParamMap) -> Result<Self, FitError> {
        let p = DESCRIPTOR.params(params)?;
        let calibration = match p.choice(key::CALIBRATION, &OpCalibration::NAMES)? {
            Some(c) => OpCalibration::from_name(c).expect("validated by choice"),
            None => OpCalibration::Exact,
        };
        Ok(ObjectivePerturbation {
            bound: required_bound(NAME, &p)?,
            calibration,
            mu0: p.non_negative("mu0")?.unwrap_or(0.0),
            max_iter: p.integer("max_iter", 1)?.unwrap_or(DEFAULT_MAX_ITER),
            suffstats: SuffStats::parse(&p)?,
        })
    }

    pub fn info() -> AlgorithmInfo {
        AlgorithmInfo {
            name: NAME,
            use_when: "bounded data, smooth loss, moderate d, large n",
            paper: "Talwar, Thakurta & Zhang, Alg. 2",
            privacy: "approx",
            losses: LOSSES.to_vec(),
            domains: DOMAINS.to_vec(),
            parameters: vec![
                TALWAR_BOUND,
                ParamInfo {
                    name: key::CALIBRATION,
                    default: "exact",
                    meaning: "noise sigma: exact = smallest sigma whose certificate (hockey-stick bound) is eps, spending the budget; replace-one = 2L sqrt(8 ln(2/delta) + 4 eps)/(n eps); tight = 2L/(n(sqrt(2 ln(1/delta) + eps) - sqrt(2 ln(1/delta)))); kst12, paper = printed formulas (they certify about 1.2 eps and 2.3 eps, more than the budget, so a fit with them is refused and the error states the certified eps)",
                    source: "spec Talwar §6 (Reviewed), A14",
                },
                ParamInfo {
                    name: "mu0",
                    default: "0",
                    meaning: "data-independent ridge (mu0/2)||theta||^2 added to the loss; zeta = max(2 lambda/(n eps) - mu0, 0)",
                    source: "spec Talwar §6 (Reviewed)",
                },
                ParamInfo {
                    name: "max_iter",
                    default: "20000",
                    meaning: "cap on the inner solver's iterations (tolerance: gradient-mapping norm <= 1e-10 L); whether it was hit depends on the data and is not reported",
                    source: "spec Talwar §6, A13",
                },
                SuffStats::param_info(),
            ],
        }
    }

    /// Resolves L, λ, ζ, σ and the certified ε from public quantities only.
    pub fn plan(&self, problem: &Problem, budget: &Budget) -> OpPlan {
        let c = BoundedConstants::new(&problem.loss, problem.domain, self.bound);
        let n = problem.data.n();
        let (lipschitz, lambda) = (c.lipschitz_l2, c.hessian_bound);
        let zeta = (2.0 * lambda / (n as f64 * budget.epsilon) - self.mu0).max(0.0);
        let tolerance = RELATIVE_TOLERANCE * lipschitz;
        if budget.is_non_private() {
            return OpPlan {
                lipschitz,
                hessian_bound: lambda,
                mu0: self.mu0,
                zeta: 0.0,
                sigma: 0.0,
                jacobian_epsilon: f64::INFINITY,
                gaussian_shift: f64::INFINITY,
                certified_epsilon: f64::INFINITY,
                tolerance,
            };
        }
        let jacobian_epsilon = calibration::jacobian_epsilon(lambda, n, zeta + self.mu0);
        let sigma = match self.calibration {
            OpCalibration::Exact => calibration::exact_sigma(
                lipschitz,
                n,
                jacobian_epsilon,
                budget.epsilon,
                budget.delta,
            ),
            c => c.sigma(lipschitz, n, budget.epsilon, budget.delta),
        };
        let gaussian_shift = calibration::gaussian_shift(lipschitz, n, sigma);
        OpPlan {
            lipschitz,
            hessian_bound: lambda,
            mu0: self.mu0,
            zeta,
            sigma,
            jacobian_epsilon,
            gaussian_shift,
            certified_epsilon: calibration::certified_epsilon(
                jacobian_epsilon,
                gaussian_shift,
                budget.delta,
            ),
            tolerance,
        }
    }
}

impl PrivateAlgorithm for ObjectivePerturbation {
    /// Reads the features only through the solver's mean_gradient_of / SecondMoments::of.
    fn identity(&self) -> Identity {
        Identity::mapped(NAME, PrivacyModel::Approx)
    }
    fn validate(&self, problem: &Problem, budget: &Budget) -> Result<(), FitError> {
        if !LOSSES.contains(&problem.loss.name()) || !crate::loss::Loss::is_c2(&problem.loss) {
            return Err(FitError::Unsupported {
                algorithm: NAME,
                reason: format!(
                    "loss '{}' is not supported: the guarantee covers only twice continuously differentiable GLM losses (supported: {}; spec Talwar §6)",
                    problem.loss.name(),
                    LOSSES.join(", ")
                ),
            });
        }
        check_bounded_problem(self, problem, budget, (LOSSES, DOMAINS), self.bound)?;
        if !(self.mu0.is_finite() && self.mu0 >= 0.0) {
            return Err(FitError::BadParameter {
                algorithm: NAME,
                param: "mu0".into(),
                reason: format!("expected a number >= 0, got {}", self.mu0),
            });
        }
        if self.max_iter == 0 {
            return Err(FitError::BadParameter {
                algorithm: NAME,
                param: "max_iter".into(),
                reason: "expected an integer >= 1, got 0".into(),
            });
        }
        if !budget.is_non_private() {
            let plan = self.plan(problem, budget);
            if plan.certified_epsilon > budget.epsilon {
                return Err(FitError::BadParameter {
                    algorithm: NAME,
                    param: key::CALIBRATION.into(),
                    reason: format!(
                        "calibration = {} certifies only epsilon = {:.4} at delta = {:e} under replace-one neighbours (spec Talwar §6, A14), above the budget {}; use calibration=replace-one or tight",
                        self.calibration.name(),
                        plan.certified_epsilon,
                        budget.delta,
                        budget.epsilon
                    ),
                });
            }
        }
        Ok(())
    }

    fn fit_validated(&self, inputs: FitInputs) -> Result<FitReport, FitError> {
        let (problem, budget, rng, observer) = inputs.parts();
        let plan = self.plan(problem, &budget);
        let private = !budget.is_non_private();
        let d = problem.data.d();
        let mut notes = Vec::new();

        // The ledger: `validate` has checked that the certified ε fits the budget.
        let mut ledger = PrivacyLedger::new(budget, Accountant::Basic);
        let mech = if private {
            PerturbationNoise {
                sigma: plan.sigma,
                epsilon: plan.certified_epsilon,
                delta: budget.delta,
            }
        } else {
            PerturbationNoise {
                sigma: 0.0,
                epsilon: f64::INFINITY,
                delta: 0.0,
            }
        };
        observer.on_start(1);
        let b = release(
            &mut ledger,
            "perturbed-objective minimiser (Alg. 2)",
            &mech,
            &vec![0.0; d],
            rng,
        )?;

        // Deterministic post-processing of (clipped data, b): the solver reads the records
        // clipped at B (into the second moments, or a clipped copy for the passes).
        let squared = matches!(problem.loss, LossKind::Squared);
        let suffstats = self.suffstats.resolve(squared, problem.data.n(), d, None);
        let theta0 = problem.domain.start();
        let erm = PerturbedErm {
            data: problem.data,
            bound: self.bound,
            suffstats,
            loss: problem.loss,
            domain: problem.domain,
            b: &b,
            zeta: plan.zeta,
            theta0: &theta0,
            mu0: self.mu0,
        };
        let out = erm.solve(&SolverSettings {
            tolerance: plan.tolerance,
            max_iter: self.max_iter,
        });
        observer.on_iteration(1);
        observer.on_finish();

        // Whether the solver met its tolerance is a data-dependent bit: not reported.
        let _ = out.converged;
        notes.push(format!(
            "the privacy proof assumes the exact minimiser (spec Talwar §6, A13): the inner solver stops at gradient-mapping norm <= 1e-10 L = {:e} or after max_iter = {} iterations, and whether it met the tolerance depends on the data, so it is not reported",
            plan.tolerance, self.max_iter
        ));

        let privacy = ledger.summary(PrivacyModel::Approx);

        let mut h = BTreeMap::new();
        hp(&mut h, "bound", self.bound);
        hp(&mut h, key::CALIBRATION, self.calibration.name());
        hp(&mut h, "mu0", self.mu0);
        hp(&mut h, "zeta", plan.zeta);
        hp(&mut h, "sigma", plan.sigma);
        hp(&mut h, "lipschitz", plan.lipschitz);
        hp(&mut h, "hessian_bound", plan.hessian_bound);
        hp(&mut h, "certified_epsilon", plan.certified_epsilon);
        hp(&mut h, "max_iter", self.max_iter);
        hp(&mut h, "suffstats", if suffstats { "on" } else { "off" });
        hp(
            &mut h,
            "solver",
            "accelerated projected gradient (FISTA, backtracking, adaptive restart)",
        );
        hp(&mut h, "solver_tolerance", plan.tolerance);
        Ok(FitReport {
            weights: out.theta,
            privacy,
            hyperparameters: h,
            trace: vec![TraceRecord {
                iteration: 1,
                step_size: 0.0,
                noise_scale: plan.sigma,
                epsilon_spent: ledger.spent().0,
            }],
            notes,
            released: None,
            intercept: None,
        })
    }
}

#[cfg(test)]
mod tests;
