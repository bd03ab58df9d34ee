//! `ht-lasso`: heavy-tailed private LASSO (Hu, Ni, Xiao & Wang, Alg. 2; Theorems 4–5).
//! Spec: `spec/hu2021-high-dim-heavy-tailed.md` §C, ambiguities H5, H10–H12.
//!
//! # Algorithm
//!
//! ```text
//! shrink every record: x̃_ij = sign(x_ij)·min(|x_ij|, K),  ỹ_i = sign(y_i)·min(|y_i|, K)
//! ε₀ = ε / (2·√(2T·ln(1/δ)))                              (per-iteration budget)
//! Δ = c_W · 4K²(1 + R)/n                                  (score sensitivity; 8‖W‖₁K²/n for R = 1)
//! w⁰ = 0
//! for t = 1..T:
//!     g̃ = (2/n) Σ_i x̃_i (⟨x̃_i, w^{t−1}⟩ − ỹ_i)            (whole shrunk data set)
//!     ṽ = exponential mechanism over the 2d vertices ±R e_j, utility −⟨v, g̃⟩, Δ, ε₀
//!     w^t = (1 − η_t) w^{t−1} + η_t ṽ,   η_t = 2/(t+2)
//! return w^T
//! ```
//!
//! # Privacy
//!
//! **(ε, δ)-DP** (Theorem 4, which names "Algorithm 1": H10). While ‖w‖₁ ≤ R (true for
//! every Frank–Wolfe iterate from w⁰ = 0), each coordinate of x̃(⟨x̃, w⟩ − ỹ) is at most
//! K(KR + K), so replacing one record moves g̃ by ≤ 4K²(1+R)/n in ℓ∞ and a score by
//! ≤ c_W·4K²(1+R)/n, c_W = 2R (`sensitivity=paper`, the ℓ1 diameter) or R (`tight`,
//! spec H8/H12). The T selections are pure ε₀-DP.
//!
//! * `calibration = exact` (default): ε₀ is the largest per-step ε whose
//!   T-fold composition certifies exactly ε — the better of basic composition (ε₀ = ε/T,
//!   basic accountant) and zCDP composition (ε₀ = √(2ρ*/T), ρ* the exact inversion of
//!   Lemma 1(4) of Zhao et al. at δ; each step ε₀²/2-zCDP; zCDP accountant). At n = 10⁴,
//!   ε = 1, δ = n^−1.1 (T = 39) this is ε₀ ≈ 0.0347, twice the printed value.
//! * `calibration = paper`: the printed ε₀ = ε/(2√(2T ln(1/δ))), composed by advanced
//!   composition with slack δ to ≈ ε/2 + ε²/(8 ln(1/δ)) ≤ ε (about 0.51ε at the setting
//!   above); the ledger (advanced accountant) charges that certified value, and the fit is
//!   refused before any work when it does not close (spec H11: roughly ε > 3.2 ln(1/δ)).
//!
//! ε = ∞ gives the exact argmax, i.e. non-private Frank–Wolfe on the shrunk data (defaults
//! evaluated at ε = 1).
//!
//! # Parameters
//!
//! | name | symbol | default | source |
//! |---|---|---|---|
//! | `preset` | — | `paper` | `paper`: §6.3 settings; `theory`: Theorem 5's T with the user-declared `gamma` |
//! | `T` | T | paper: ⌊(nε)^{2/5}⌋; theory: ⌈(√(nε)·γ / (√ln(1/δ)·ln(dT/ζ)))^{4/5}⌉ | §6.3; Thm 5 |
//! | `K` | K | (nε)^{1/4} / T^{1/8} | Thm 5 and §6.3 (the same formula) |
//! | `gamma` | λ_max(E xxᵀ) | 1 | user-declared, theory preset only |
//! | `fail_prob` | ζ | 0.05 | theory preset only |
//! | `sensitivity` | c_W | `paper` (= 2R) | spec H8, H12 |
//! | `steps` | η_t | `theorem` = 2/(t+2) | Thm 5 (H5); `jaggi` = 2/(t+1) |
//! | `calibration` | ε₀ | `exact` (spends ε); `paper` (printed ε₀) | §C, H11; `docs/privacy.md` |
//! | `suffstats` | — | `auto`: on when 8d ≤ n and 2T ≥ d | project design (`docs/performance.md`, "Sufficient statistics") |
//! | δ | δ | n^{−1.1} when the budget's δ is 0 | §6.3 |
//!
//! With `suffstats` on ([`SuffStats`]) g̃ = 2(Gw − c) comes from G = X̃ᵀX̃/n and c = X̃ᵀỹ/n
//! of the shrunk data, built once without a shrunk copy, with Gw updated in O(d) per
//! vertex step (see the `frank_wolfe` module docs): the same function of the data up to
//! summation order, so the privacy analysis above is unchanged and the weights equal the
//! passes' bit for bit unless a rounding-level near-tie flips a vertex choice.
//!
//! The default preset is `paper`: its T = ⌊(nε)^{2/5}⌋ is Theorem 5's rate with the
//! constants and logarithms dropped; the theory formula needs λ_max(E xxᵀ), which is
//! not public, and with the log factors gives fewer iterations (see
//! `docs/reproduction.md`, Fig. 5).
//!
//! # Errors
//! Loss other than squared; domain other than `l1-ball`; δ ∉ (0, 1) or a (ε, δ, T) whose
//! advanced composition does not certify ε (message shows the certified value).
//!
//! # Example
//! ```
//! use heavydp::algorithms::{frank_wolfe::HtLasso, NoObserver, PrivateAlgorithm, Problem};
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
//! let report = HtLasso::default()
//!     .fit(&problem, Budget::new(1.0, 1e-4).unwrap(), &mut rng_from_seed(1), &mut NoObserver)
//!     .unwrap();
//! assert!(report.privacy.epsilon <= 1.0 && report.privacy.delta <= 1e-4);
//! ```

use super::super::*;
use super::descent_utilities;
use super::heavy_tailed::{HtStep, ScoreSensitivity};
use crate::linalg::SecondMoments;
use crate::loss::{mean_gradient_of, GradientWorkspace};
use crate::mechanisms::{release, ExponentialMechanism};
use crate::params::SuffStats;
use crate::privacy::{
    advanced_composition, approx_to_zcdp_rho, calibration_target, mul_up, pure_to_zcdp,
    zcdp_to_approx, Accountant, PrivacyLedger,
};

const NAME: &str = "ht-lasso";

/// The registry entry of `ht-lasso` ([`crate::algorithms::REGISTRY`]).
pub const DESCRIPTOR: AlgorithmDescriptor = AlgorithmDescriptor::new(
    NAME,
    HtLasso::info,
    |p| boxed(HtLasso::from_params(p)),
    ("squared", "l1-ball"),
)
.cited(crate::algorithms::Citation {
    authors: "Hu, Ni, Xiao & Wang",
    title: "*High-dimensional DP stochastic optimisation with heavy-tailed data*",
    item: "Alg. 2",
    summary: "heavy-tailed private LASSO (shrinkage + DP Frank–Wolfe)",
    rust: "frank_wolfe::HtLasso",
    spec: "hu §C, H10–H12",
});

/// Where the shrunk-data gradients come from (see [`SuffStats`]).
enum Source {
    /// The shrunk copy of the data, one pass per gradient.
    Shrunk(Dataset),
    /// Its second moments, read from the data shrunk on the fly (no copy).
    Moments(SecondMoments),
}

/// `ht-lasso` (Hu et al. Alg. 2). See the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct HtLasso {
    pub preset: Preset,
    pub t: Option<usize>,
    pub k: Option<f64>,
    pub gamma: f64,
    pub fail_prob: f64,
    pub sensitivity: ScoreSensitivity,
    pub steps: HtStep,
    /// How ε₀ is chosen: `true` (default) the exact composition, `false` the printed ε₀.
    pub exact_calibration: bool,
    /// Gradients from the shrunk data's second moments (`suffstats`, see [`SuffStats`]).
    pub suffstats: SuffStats,
}

impl Default for HtLasso {
    fn default() -> Self {
        HtLasso {
            preset: Preset::Paper,
            t: None,
            k: None,
            gamma: 1.0,
            fail_prob: 0.05,
            sensitivity: ScoreSensitivity::Paper,
            steps: HtStep::Theorem,
            exact_calibration: true,
            suffstats: SuffStats::Auto,
        }
    }
}

/// The resolved, public plan of a fit.
#[derive(Debug, Clone, PartialEq)]
pub struct HtLassoPlan {
    pub big_t: usize,
    pub k: f64,
    /// Per-iteration ε₀ (∞ when non-private).
    pub eps0: f64,
    pub score_sensitivity: f64,
    /// ε certified for the T selections at the budget's δ.
    pub certified_epsilon: f64,
    pub delta: f64,
    /// The ledger's accountant for the T selections.
    pub accountant: Accountant,
}

/// Hu et al. Alg. 2's per-iteration budget ε₀ = ε / (2√(2T ln(1/δ))) (spec §C, H11).
pub fn lasso_step_epsilon(epsilon: f64, big_t: usize, delta: f64) -> f64 {
    epsilon / (2.0 * (2.0 * big_t as f64 * (-delta.ln())).sqrt())
}

/// The `calibration = exact` per-iteration ε₀ for T pure selections under the budget
/// (ε, δ): the larger of the basic split ε/T and the zCDP split √(2ρ*/T) (ρ* =
/// [`approx_to_zcdp_rho`] of the calibration target), with the ε the matching accountant
/// certifies and that accountant. Rounded so that the ledger never refuses.
pub fn lasso_exact_step_epsilon(epsilon: f64, big_t: usize, delta: f64) -> (f64, f64, Accountant) {
    let t = big_t as f64;
    let target = calibration_target(epsilon);
    let basic = target / t;
    let rho = approx_to_zcdp_rho(target, delta);
    let zcdp = (2.0 * rho / t).sqrt() * (1.0 - 1e-12);
    if basic >= zcdp {
        (basic, mul_up(t, basic), Accountant::Basic)
    } else {
        let certified = zcdp_to_approx(mul_up(t, pure_to_zcdp(zcdp)), delta);
        (zcdp, certified, Accountant::Zcdp)
    }
}

/// ℓ∞ sensitivity of the shrunk mean squared-loss gradient over ‖w‖₁ ≤ R: 4K²(1+R)/n.
pub fn shrunk_gradient_sensitivity(k: f64, radius: f64, n: usize) -> f64 {
    4.0 * k * k * (1.0 + radius) / n as f64
}

impl HtLasso {
    pub fn from_params(params: &ParamMap) -> Result<Self, FitError> {
        let p = DESCRIPTOR.params(params)?;
        let fail_prob = fail_prob_param(NAME, &p)?;
        Ok(HtLasso {
            preset: Preset::parse(&p, Preset::Paper)?,
            t: p.integer(key::T, 1)?,
            k: p.positive("K")?,
            gamma: p.positive("gamma")?.unwrap_or(1.0),
            fail_prob,
            sensitivity: ScoreSensitivity::parse(&p)?,
            steps: p.pick(
                "steps",
                &[("theorem", HtStep::Theorem), ("jaggi", HtStep::Jaggi)],
            )?,
            exact_calibration: p.choice(key::CALIBRATION, &["exact", "paper"])? != Some("paper"),
            suffstats: SuffStats::parse(&p)?,
        })
    }

    pub fn info() -> AlgorithmInfo {
        AlgorithmInfo {
            name: NAME,
            use_when: "high-d linear regression on an l1 ball, heavy-tailed features",
            paper: "Hu, Ni, Xiao & Wang, Alg. 2",
            privacy: "approx",
            losses: vec!["squared"],
            domains: vec!["l1-ball"],
            parameters: vec![
                ParamInfo { name: "preset", default: "paper", meaning: "paper: T = floor((n*eps)^(2/5)); theory: Theorem 5's T with gamma and fail_prob", source: "Hu Sec. 6.3; Thm 5" },
                ParamInfo { name: key::T, default: "floor((n*eps)^(2/5))", meaning: "iterations (each reads the whole shrunk data set)", source: "Hu Sec. 6.3; Thm 5" },
                ParamInfo { name: "K", default: "(n*eps)^(1/4) / T^(1/8)", meaning: "shrinkage threshold for every feature and the response", source: "Hu Thm 5, Sec. 6.3" },
                ParamInfo { name: "gamma", default: "1", meaning: "user-declared lambda_max(E x x^T) (theory preset only)", source: "Hu Thm 5" },
                ParamInfo { name: "fail_prob", default: "0.05", meaning: "failure probability zeta (theory preset only)", source: "Hu Thm 5" },
                ParamInfo { name: "sensitivity", default: "paper", meaning: "score sensitivity constant: paper = l1 diameter 2R, tight = R", source: "spec H8, H12" },
                ParamInfo { name: "steps", default: "theorem", meaning: "theorem = 2/(t+2), jaggi = 2/(t+1)", source: "Hu Thm 5 (H5)" },
                ParamInfo { name: key::CALIBRATION, default: "exact", meaning: "per-iteration eps0: exact = largest eps0 whose T-fold composition (best of basic and zCDP) certifies eps; paper = printed eps/(2 sqrt(2T ln(1/delta))) by advanced composition (certifies about eps/2)", source: "docs/privacy.md (exact calibration); Hu Sec. C (H11)" },
                SuffStats::param_info(),
            ],
        }
    }

    /// Resolves T, K, ε₀ and Δ from public quantities; refuses budgets whose advanced
    /// composition does not certify ε.
    pub fn plan(&self, problem: &Problem, budget: &Budget) -> Result<HtLassoPlan, FitError> {
        let n = problem.data.n();
        let d = problem.data.d() as f64;
        let eps = formula_epsilon(budget);
        let ne = n as f64 * eps;
        let delta = budget.delta;
        let big_t = match self.t {
            Some(t) => t,
            None => match self.preset {
                Preset::Paper => floor_at_least_one(ne.powf(0.4)),
                Preset::Theory => {
                    let l = if budget.is_non_private() {
                        (n.max(2) as f64).powf(1.1).ln()
                    } else {
                        -delta.ln()
                    };
                    // T appears inside its own log factor: a few fixed-point steps.
                    let mut t = 1.0f64;
                    for _ in 0..50 {
                        let next = (ne.sqrt() * self.gamma
                            / (l.sqrt() * (d * t / self.fail_prob).ln().max(1.0)))
                        .powf(0.8)
                        .ceil()
                        .max(1.0);
                        if next == t {
                            break;
                        }
                        t = next;
                    }
                    t as usize
                }
            },
        };
        let k = self
            .k
            .unwrap_or_else(|| ne.powf(0.25) / (big_t as f64).powf(0.125));
        let radius = problem.domain.l1_radius();
        let c_w = self.sensitivity.constant(problem.domain);
        let score_sensitivity = c_w * shrunk_gradient_sensitivity(k, radius, n);
        if budget.is_non_private() {
            return Ok(HtLassoPlan {
                big_t,
                k,
                eps0: f64::INFINITY,
                score_sensitivity,
                certified_epsilon: f64::INFINITY,
                delta: 0.0,
                accountant: Accountant::Basic,
            });
        }
        if !(delta > 0.0 && delta < 1.0) {
            return Err(PrivacyError::DeltaRequired {
                algorithm: NAME.to_string(),
            }
            .into());
        }
        if self.exact_calibration {
            let (eps0, certified_epsilon, accountant) =
                lasso_exact_step_epsilon(budget.epsilon, big_t, delta);
            return Ok(HtLassoPlan {
                big_t,
                k,
                eps0,
                score_sensitivity,
                certified_epsilon,
                delta,
                accountant,
            });
        }
        let eps0 = lasso_step_epsilon(budget.epsilon, big_t, delta);
        let adv = advanced_composition(big_t, eps0, 0.0, delta).0;
        let certified_epsilon = adv.min(mul_up(big_t as f64, eps0));
        if certified_epsilon > budget.epsilon {
            return Err(FitError::Unsupported {
                algorithm: NAME,
                reason: format!(
                    "the per-iteration budget eps0 = eps/(2*sqrt(2T ln(1/delta))) over T = {big_t} iterations certifies only epsilon = {certified_epsilon:.4} > {} by advanced composition (spec H11: needs roughly eps <= 3.2*ln(1/delta)); use a smaller delta",
                    budget.epsilon
                ),
            });
        }
        Ok(HtLassoPlan {
            big_t,
            k,
            eps0,
            score_sensitivity,
            certified_epsilon,
            delta,
            accountant: Accountant::Advanced { delta_slack: delta },
        })
    }
}

impl PrivateAlgorithm for HtLasso {
    /// Reads the features only through mean_gradient_of / SecondMoments::of.
    fn identity(&self) -> Identity {
        Identity::mapped(NAME, PrivacyModel::Approx)
    }
    fn validate(&self, problem: &Problem, budget: &Budget) -> Result<(), FitError> {
        let budget = approx_budget(NAME, problem, budget, &["squared"], &["l1-ball"])?;
        self.plan(problem, &budget).map(|_| ())
    }
    fn fit_validated(&self, inputs: FitInputs) -> Result<FitReport, FitError> {
        let (problem, budget, rng, observer) = inputs.parts();
        let budget = with_default_delta(budget, problem.data.n());
        let plan = self.plan(problem, &budget)?;
        // Shrinkage (spec B.5) is record by record, so it does not change the neighbouring
        // relation. The direct path shrinks a copy of the data once; the sufficient-statistics
        // path reads the data shrunk on the fly into G = X̃ᵀX̃/n and c = X̃ᵀỹ/n (no copy) and
        // computes g̃ = 2(Gw − c) — the same function of the data as the pass, up to
        // floating-point summation order, so the privacy analysis above is unchanged — with
        // Gw kept up to date in O(d) per vertex step: Gw ← (1 − η)Gw + η·(±R)·G[:, j].
        let (n, d) = (problem.data.n(), problem.data.d());
        let source = if self.suffstats.resolve(true, n, d, Some(plan.big_t)) {
            Source::Moments(SecondMoments::of(
                problem.data,
                problem.data.y(),
                plan.k,
                plan.k,
            ))
        } else {
            Source::Shrunk(problem.data.clipped_view(plan.k, true))
        };
        let mut gw = vec![0.0; d];
        let mut vertex = vec![0.0; d];
        let poly = problem.domain.as_polytope().expect("l1 ball");
        let mech = ExponentialMechanism::new(plan.score_sensitivity, plan.eps0)?;
        let mut ledger = PrivacyLedger::new(budget, plan.accountant);
        let mut w = problem.domain.start();
        let mut g = vec![0.0; d];
        let mut ws = GradientWorkspace::new();
        let mut utilities = vec![0.0; poly.num_vertices()];
        let mut trace = Vec::with_capacity(plan.big_t);
        let temperature = mech.temperature();
        observer.on_start(plan.big_t);
        if let Source::Moments(m) = &source {
            m.gram_times(&w, &mut gw);
        }
        for t in 1..=plan.big_t {
            // (1/n) Σ 2(⟨x̃, w⟩ − ỹ) x̃ = the printed (2/n) Σ x̃(⟨x̃, w⟩ − ỹ) = 2(Gw − c).
            match &source {
                Source::Moments(m) => m.quadratic_gradient(&gw, &mut g),
                Source::Shrunk(shrunk) => {
                    mean_gradient_of(&LossKind::Squared, shrunk, shrunk.y(), &w, &mut g, &mut ws);
                }
            }
            descent_utilities(poly, &g, &mut utilities);
            let v = release(
                &mut ledger,
                "vertex selection (exponential mechanism)",
                &mech,
                &utilities,
                rng,
            )?;
            let eta = match self.steps {
                HtStep::Jaggi => 2.0 / (t as f64 + 1.0),
                _ => 2.0 / (t as f64 + 2.0),
            };
            poly.move_toward_vertex(&mut w, v, eta);
            if let Source::Moments(m) = &source {
                poly.vertex(v, &mut vertex);
                m.mix_toward(&mut gw, &vertex, eta);
            }
            TraceRecord::push(&mut trace, observer, &ledger, t, (eta, temperature));
        }
        observer.on_finish();
        let mut h = BTreeMap::new();
        hp(&mut h, "preset", self.preset.name());
        hp(&mut h, key::T, plan.big_t);
        hp(&mut h, "K", plan.k);
        hp(
            &mut h,
            "eps0",
            if plan.eps0.is_finite() {
                serde_json::json!(plan.eps0)
            } else {
                serde_json::Value::Null
            },
        );
        hp(&mut h, "score_sensitivity", plan.score_sensitivity);
        hp(
            &mut h,
            "suffstats",
            match source {
                Source::Moments(_) => "on",
                Source::Shrunk(_) => "off",
            },
        );
        hp(&mut h, "sensitivity", self.sensitivity.name());
        hp(
            &mut h,
            key::CALIBRATION,
            if self.exact_calibration {
                "exact"
            } else {
                "paper"
            },
        );
        hp(
            &mut h,
            "steps",
            if self.steps == HtStep::Jaggi {
                "jaggi"
            } else {
                "theorem"
            },
        );
        if self.preset == Preset::Theory {
            hp(&mut h, "gamma", self.gamma);
            hp(&mut h, "fail_prob", self.fail_prob);
        }
        let mut notes = vec![];
        if budget.is_non_private() {
            notes.push("epsilon = inf: default T and K evaluated at epsilon = 1; exact argmax instead of the exponential mechanism".to_string());
        }
        let privacy = ledger.summary(PrivacyModel::Approx);
        Ok(FitReport::fixed_iterations(w, privacy, h, trace, notes))
    }
}
