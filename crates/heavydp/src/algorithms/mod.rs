//! Private algorithms: the common interface, fit reports, parameter handling and
//! the registry of CONTRACT names.
//!
//! Every algorithm, its paper and its Rust type: the paper → algorithm map of the crate
//! docs ([`crate`]), generated from [`REGISTRY`]; `heavydp algorithms` lists them with
//! their parameters.

pub mod entry;
pub mod registry;
pub mod row_sums;

/// Declares the module of each line of `with_algorithm_registry!`
/// marked `mod` (its own file or folder under `algorithms/`).
macro_rules! declare_modules {
    () => {};
    ($test:ident => mod $module:ident $(:: $path:ident)+, $($rest:tt)*) => {
        pub mod $module;
        declare_modules! { $($rest)* }
    };
    ($test:ident => $($path:ident)::+, $($rest:tt)*) => {
        declare_modules! { $($rest)* }
    };
}

crate::with_algorithm_registry!(declare_modules);

pub use entry::{boxed, AlgorithmDescriptor, AutoRadius, Citation, ScaledDefaults};
pub use registry::{build, catalogue, default_loss_and_domain, descriptor, REGISTRY};

pub use crate::params::{
    fail_prob_param, formula_epsilon, hp, key, with_default_delta, AlgorithmInfo, FitError,
    ParamInfo, ParamMap, Params,
};

use crate::constraints::ConstraintSet;
use crate::data::Dataset;
use crate::loss::{Loss, LossKind};
use crate::params::param_words;
use crate::privacy::{Budget, PrivacyError, PrivacyModel, PrivacySpent};
use rand::RngCore;
use serde::Serialize;
use std::collections::BTreeMap;

/// One line of a fit's trace. Only public quantities (iteration number, step size,
/// noise scale, privacy spent so far) — never a data-dependent value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceRecord {
    pub iteration: usize,
    pub step_size: f64,
    pub noise_scale: f64,
    pub epsilon_spent: f64,
}

/// The result of a fit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FitReport {
    pub weights: Vec<f64>,
    pub privacy: PrivacySpent,
    /// Every hyperparameter actually used (defaults resolved).
    pub hyperparameters: BTreeMap<String, serde_json::Value>,
    pub trace: Vec<TraceRecord>,
    /// Public remarks (e.g. "T capped at max_steps; sigma recomputed for T = 2000").
    pub notes: Vec<String>,
    /// The released sufficient statistics and their public noise plan, for algorithms
    /// whose intervals are computed from them (`adassp`; module `crate::inference`).
    /// Already released: keeping them is post-processing. Not written to the model file.
    #[serde(skip)]
    pub released: Option<Box<adassp::SspRelease>>,
    /// The intercept fitted jointly with the weights (`clipped-gd`'s `intercept=fit`;
    /// the margin of a constant feature, ⟨x, w⟩ + intercept), released with them.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub intercept: Option<f64>,
}

impl FitReport {
    /// The report of a run whose number of iterations T was fixed in advance from public
    /// quantities (no data-dependent stopping bit leaves the fit).
    pub fn fixed_iterations(
        weights: Vec<f64>,
        privacy: PrivacySpent,
        hyperparameters: BTreeMap<String, serde_json::Value>,
        trace: Vec<TraceRecord>,
        notes: Vec<String>,
    ) -> Self {
        FitReport {
            weights,
            privacy,
            hyperparameters,
            trace,
            notes,
            released: None,
            intercept: None,
        }
    }
}

impl TraceRecord {
    /// Appends iteration `iteration` (1-based) to `trace`, with the ε the ledger has spent
    /// so far, and tells the observer: the end of every iterative algorithm's step.
    pub fn push(
        trace: &mut Vec<TraceRecord>,
        observer: &mut dyn Observer,
        ledger: &crate::privacy::PrivacyLedger,
        iteration: usize,
        (step_size, noise_scale): (f64, f64),
    ) {
        trace.push(TraceRecord {
            iteration,
            step_size,
            noise_scale,
            epsilon_spent: ledger.spent().0,
        });
        observer.on_iteration(iteration);
    }
}

/// Receives progress callbacks (public quantities only); the CLI draws a progress bar.
pub trait Observer {
    fn on_start(&mut self, _total_iterations: usize) {}
    fn on_iteration(&mut self, _iteration: usize) {}
    fn on_finish(&mut self) {}
}

/// An observer that does nothing.
pub struct NoObserver;
impl Observer for NoObserver {}

/// What an algorithm is asked to fit: data, loss and constraint set.
pub struct Problem<'a> {
    pub data: &'a Dataset,
    pub loss: LossKind,
    pub domain: &'a dyn ConstraintSet,
}

/// The fixed facts of an algorithm: what [`PrivateAlgorithm::identity`] returns and
/// `name`, `privacy_model` and `reads_mapped_features` read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    /// The CONTRACT name.
    pub name: &'static str,
    /// The privacy model of the guarantee.
    pub model: PrivacyModel,
    /// See [`PrivateAlgorithm::reads_mapped_features`].
    pub reads_mapped_features: bool,
}

impl Identity {
    /// An algorithm whose `fit` reads the features only through `Dataset::read_row`,
    /// `Dataset::block` and `Dataset::margins` (it can run on lazily standardised data).
    pub const fn mapped(name: &'static str, model: PrivacyModel) -> Self {
        Identity {
            name,
            model,
            reads_mapped_features: true,
        }
    }
    /// An algorithm that needs the standardised features materialised.
    pub const fn materialised(name: &'static str, model: PrivacyModel) -> Self {
        Identity {
            name,
            model,
            reads_mapped_features: false,
        }
    }
}

/// The inputs of one fit, after `validate` accepted them: what
/// [`PrivateAlgorithm::fit_validated`] receives.
pub struct FitInputs<'a> {
    pub problem: &'a Problem<'a>,
    pub budget: Budget,
    pub rng: &'a mut dyn RngCore,
    pub observer: &'a mut dyn Observer,
}

impl<'a> FitInputs<'a> {
    /// The problem, the budget, the noise generator and the observer.
    #[allow(clippy::type_complexity)]
    pub fn parts(
        self,
    ) -> (
        &'a Problem<'a>,
        Budget,
        &'a mut dyn RngCore,
        &'a mut dyn Observer,
    ) {
        (self.problem, self.budget, self.rng, self.observer)
    }
}

/// The reason of `PrivateAlgorithm::fit_with_sums` for an algorithm without a row-sum
/// implementation.
pub const NOT_DISTRIBUTED: &str = "has no row-sum (distributed) implementation; the algorithms that run distributed have `distributed` true in heavydp algorithms --json";

/// A (possibly private) learning algorithm.
pub trait PrivateAlgorithm {
    /// The algorithm's name, privacy model and way of reading the features.
    fn identity(&self) -> Identity;
    /// The CONTRACT name.
    fn name(&self) -> &'static str {
        self.identity().name
    }
    /// The privacy model of the guarantee.
    fn privacy_model(&self) -> PrivacyModel {
        self.identity().model
    }
    /// Checks the problem and budget before any work; errors depend only on public inputs.
    fn validate(&self, problem: &Problem, budget: &Budget) -> Result<(), FitError>;
    /// Fits: [`validate`](Self::validate), then
    /// [`fit_validated`](Self::fit_validated).
    fn fit(
        &self,
        problem: &Problem,
        budget: Budget,
        rng: &mut dyn RngCore,
        observer: &mut dyn Observer,
    ) -> Result<FitReport, FitError> {
        self.validate(problem, &budget)?;
        let inputs = FitInputs {
            problem,
            budget,
            rng,
            observer,
        };
        self.fit_validated(inputs)
    }
    /// Fits a problem and budget that [`validate`](Self::validate) accepted; called
    /// only by `fit`.
    fn fit_validated(&self, inputs: FitInputs<'_>) -> Result<FitReport, FitError>;
    /// Fits with the per-iteration row sums taken from `sums` (`docs/distributed.md`:
    /// a distributed fit passes a [`Dataset::remote`] problem and
    /// an [`row_sums::ExternalRowSums`]). Implemented by the algorithms whose data
    /// passes are row sums — `clipped-gd`, `ht-frank-wolfe`, `dp-iht-huber` — whose
    /// `fit` is this method with [`row_sums::LocalRowSums`]; the others refuse.
    fn fit_with_sums(
        &self,
        _problem: &Problem,
        _sums: &mut dyn RowSums,
        _budget: Budget,
        _rng: &mut dyn RngCore,
        _observer: &mut dyn Observer,
    ) -> Result<FitReport, FitError> {
        Err(FitError::Unsupported {
            algorithm: self.name(),
            reason: NOT_DISTRIBUTED.into(),
        })
    }
    /// True when `fit` reads the features only through `Dataset::read_row`,
    /// `Dataset::block` and `Dataset::margins`, so it can run on a lazily standardised
    /// dataset (a read-only NumPy array fitted without a copy). False:
    /// the pipeline materialises the standardised features first (one copy of a
    /// read-only loan). Set by [`Identity::mapped`] or [`Identity::materialised`].
    fn reads_mapped_features(&self) -> bool {
        self.identity().reads_mapped_features
    }
}

/// Public constants of a problem whose records are clipped to ‖x‖_∞ ≤ B, |y| ≤ B
/// (|y| ≤ 1 for the logistic loss), over a constraint set C. Every bound holds for
/// **every** possible record, which is what the privacy proofs need.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BoundedConstants {
    /// B.
    pub bound: f64,
    /// sup |⟨x, w⟩| = B·‖C‖₁.
    pub margin_bound: f64,
    /// sup |y|.
    pub y_bound: f64,
    /// sup |f'(a, y)| over the admissible margins and responses.
    pub derivative_bound: f64,
    /// ℓ∞ Lipschitz constant L₁ of the per-sample loss: sup ‖∇ℓ‖_∞ = f'·B.
    pub lipschitz_inf: f64,
    /// ℓ2 Lipschitz constant L of the per-sample loss: sup ‖∇ℓ‖₂ = f'·B·√d.
    pub lipschitz_l2: f64,
    /// Curvature constant Γ_L ≤ sup f'' · (B · ℓ1-diameter of C)² (Talwar Def. 5.1, Remark 4);
    /// ∞ for losses without a Lipschitz derivative.
    pub curvature: f64,
    /// sup ‖∇²ℓ‖ = sup f'' · B²·d (for objective perturbation).
    pub hessian_bound: f64,
}

impl BoundedConstants {
    /// Computes the constants for `loss` on records clipped at `bound` over `domain`.
    pub fn new(loss: &LossKind, domain: &dyn ConstraintSet, bound: f64) -> Self {
        let d = domain.dim() as f64;
        let margin_bound = bound * domain.l1_radius();
        let y_bound = if matches!(loss, LossKind::Logistic) {
            1.0
        } else {
            bound
        };
        let fprime = loss.derivative_bound(margin_bound, y_bound);
        let curv = loss.curvature_bound();
        BoundedConstants {
            bound,
            margin_bound,
            y_bound,
            derivative_bound: fprime,
            lipschitz_inf: fprime * bound,
            lipschitz_l2: fprime * bound * d.sqrt(),
            curvature: curv.map_or(f64::INFINITY, |c| {
                c * (bound * domain.l1_diameter()).powi(2)
            }),
            hessian_bound: curv.map_or(f64::INFINITY, |c| c * bound * bound * d),
        }
    }
}

/// Reads the required `bound` parameter of a bounded-data algorithm.
pub fn required_bound(algorithm: &'static str, p: &Params) -> Result<f64, FitError> {
    p.positive("bound")?
        .ok_or(FitError::BoundRequired { algorithm })
}

/// Checks a bounded-data algorithm's public bound B (finite, > 0).
pub fn check_bound(algorithm: &'static str, bound: f64) -> Result<(), FitError> {
    if bound.is_finite() && bound > 0.0 {
        Ok(())
    } else {
        Err(FitError::BoundRequired { algorithm })
    }
}

/// The `bound` row of the two algorithms of Talwar, Thakurta & Zhang that take the
/// bound from the CONTRACT alone (`noisy-mirror-descent`, `objective-perturbation`).
pub(crate) const TALWAR_BOUND: ParamInfo = bound_param_info("CONTRACT; spec Talwar §0");

/// The `bound` row of a bounded-data algorithm's parameter table.
pub const fn bound_param_info(source: &'static str) -> ParamInfo {
    ParamInfo {
        name: "bound",
        default: "required",
        meaning: "public bound B: features and target clipped to [-B, B]",
        source,
    }
}

/// The data a bounded-data algorithm sees: features clipped to [−B, B], and the
/// response clipped too unless the loss is logistic (labels ±1). A view that clips as
/// it reads ([`Dataset::clipped_view`]: the features are not copied, only the response);
/// read it with `mean_gradient_of` and the other [`crate::linalg::Rows`] kernels.
pub fn clip_for(data: &Dataset, loss: &LossKind, bound: f64) -> Dataset {
    data.clipped_view(bound, !matches!(loss, LossKind::Logistic))
}

/// That the algorithm takes the loss `loss` and the domain of kind `domain` (its
/// `losses` and `domains`): the error names the supported ones.
pub fn check_loss_and_domain(
    algorithm: &'static str,
    loss: &str,
    domain: &str,
    losses: &[&str],
    domains: &[&str],
) -> Result<(), FitError> {
    if !losses.contains(&loss) {
        return Err(FitError::Unsupported {
            algorithm,
            reason: format!(
                "loss '{loss}' is not supported (supported: {})",
                losses.join(", ")
            ),
        });
    }
    if !domains.contains(&domain) {
        return Err(FitError::Unsupported {
            algorithm,
            reason: format!(
                "domain '{domain}' is not supported (supported: {})",
                domains.join(", ")
            ),
        });
    }
    Ok(())
}

/// Common checks: shapes, loss parameters and labels are validated by the caller; this
/// checks the budget's δ against the privacy model and that the loss/domain are accepted.
pub fn check_common(
    algorithm: &'static str,
    model: PrivacyModel,
    problem: &Problem,
    budget: &Budget,
    losses: &[&str],
    domains: &[&str],
) -> Result<(), FitError> {
    let kind = problem.domain.describe()["kind"]
        .as_str()
        .unwrap_or("")
        .to_string();
    check_loss_and_domain(algorithm, problem.loss.name(), &kind, losses, domains)?;
    if problem.domain.dim() != problem.data.d() {
        return Err(FitError::Unsupported {
            algorithm,
            reason: format!(
                "the domain has dimension {} but the data have d = {}",
                problem.domain.dim(),
                problem.data.d()
            ),
        });
    }
    if model == PrivacyModel::Approx && !budget.is_non_private() && budget.delta <= 0.0 {
        return Err(PrivacyError::DeltaRequired {
            algorithm: algorithm.to_string(),
        }
        .into());
    }
    if matches!(problem.loss, LossKind::Logistic)
        && problem.data.y().iter().any(|y| *y != 1.0 && *y != -1.0)
    {
        return Err(FitError::Unsupported {
            algorithm,
            reason: "logistic loss needs labels prepared as -1/+1 (LossKind::prepare_labels)"
                .into(),
        });
    }
    Ok(())
}

/// The Catoni–Giulini robust estimator (Hu et al. §A.5) at scale `k` and precision
/// `beta`, for `algorithm`; an invalid (k, β) is reported against the parameter `param`.
pub fn catoni_giulini(
    algorithm: &'static str,
    param: &str,
    k: f64,
    beta: f64,
) -> Result<crate::estimators::catoni::CatoniGiulini, FitError> {
    crate::estimators::catoni::CatoniGiulini::new(k, beta).map_err(|e| FitError::BadParameter {
        algorithm,
        param: param.into(),
        reason: e.to_string(),
    })
}

/// [`check_common`] under the algorithm's own name and privacy model.
pub fn check_problem(
    algorithm: &impl PrivateAlgorithm,
    problem: &Problem,
    budget: &Budget,
    losses: &[&str],
    domains: &[&str],
) -> Result<(), FitError> {
    let (name, model) = (algorithm.name(), algorithm.privacy_model());
    check_common(name, model, problem, budget, losses, domains)
}

/// [`check_problem`], then [`check_bound`] on the algorithm's public bound B: the start
/// of `validate` for the bounded-data algorithms.
pub fn check_bounded_problem(
    algorithm: &impl PrivateAlgorithm,
    problem: &Problem,
    budget: &Budget,
    (losses, domains): (&[&str], &[&str]),
    bound: f64,
) -> Result<(), FitError> {
    check_problem(algorithm, problem, budget, losses, domains)?;
    check_bound(algorithm.name(), bound)
}

/// The checks every algorithm that needs a δ starts with: δ defaulted to n^{−1.1} when 0
/// ([`with_default_delta`]), then [`check_common`] for an (ε, δ) guarantee (zCDP
/// algorithms report their guarantee in (ε, δ) too). Returns the budget the fit runs with.
pub fn approx_budget(
    algorithm: &'static str,
    problem: &Problem,
    budget: &Budget,
    losses: &[&str],
    domains: &[&str],
) -> Result<Budget, FitError> {
    let budget = with_default_delta(*budget, problem.data.n());
    check_common(
        algorithm,
        PrivacyModel::Approx,
        problem,
        &budget,
        losses,
        domains,
    )?;
    Ok(budget)
}

/// The start of an entry point that `fit` does not validate first (`fit_with_sums`) for
/// the algorithms of [`approx_budget`]: `validate`, then the budget with its defaulted δ.
pub fn validated_budget(
    algorithm: &impl PrivateAlgorithm,
    problem: &Problem,
    budget: Budget,
) -> Result<Budget, FitError> {
    algorithm.validate(problem, &budget)?;
    Ok(with_default_delta(budget, problem.data.n()))
}

/// Evaluates the mean loss of `w` on a dataset (a convenience for tests and reports).
pub fn empirical_risk(loss: &LossKind, data: &Dataset, w: &[f64]) -> f64 {
    crate::loss::mean_loss_of(loss, data, data.y(), w)
}

/// The loss trait object for a kind (handy for generic kernels).
pub fn as_loss(l: &LossKind) -> &dyn Loss {
    l
}

// ------------------------------------------------------------ shared by the Hu et al. family

/// How records are assigned to the disjoint chunks of the one-pass algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chunking {
    /// A uniformly random permutation drawn from the fit's generator (data-independent;
    /// default, so that sorted input files do not give unrepresentative chunks).
    Shuffle,
    /// Input order: chunk t holds records (t−1)m … tm − 1.
    Order,
    /// A keyed pseudorandom permutation π of the row ids 0..n−1 ([`KeyedPermutation`],
    /// key drawn from the fit's generator): record i is in chunk ⌊π(i)/m⌋ when
    /// π(i) < T·m, unused otherwise. Membership is a function of the row id and the key
    /// only, computable row by row without a shuffle, so a distributed fit
    /// (`docs/distributed.md`) assigns each row where it lives.
    Keyed,
}
param_words!(Chunking = "chunking": "shuffle" => Shuffle, "order" => Order, "keyed" => Keyed);

impl Chunking {
    /// The `chunking` row of a parameter table.
    pub fn param_info() -> ParamInfo {
        ParamInfo {
            name: "chunking",
            default: "shuffle",
            meaning: "assignment of records to the T disjoint chunks: shuffle (seeded random permutation), order (input order) or keyed (seeded keyed permutation of the row ids, computable per row: the chunking of Spark fits); data-independent either way",
            source: "spec Hu B.4",
        }
    }
}

/// A keyed pseudorandom permutation π of {0, …, n−1}, computable for one element at a
/// time: a balanced Feistel network on [0, 4^h) (4^h the smallest power of four ≥ n)
/// with SplitMix64 round functions keyed by `key`, restricted to [0, n) by cycle walking
/// (apply the network again until the value falls in [0, n); the restriction of a
/// bijection of a finite set to a subset by cycle walking is a bijection of the subset,
/// Black & Rogaway 2002). Each element needs fewer than 4 network evaluations on
/// average (4^h < 4n).
///
/// It is a bijection for every key (a Feistel network is invertible whatever its round
/// functions), which is all the privacy argument needs: chunk membership depends only on
/// the row id and the public key. Its pseudorandomness only matters for representative
/// chunks, as for the shuffle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyedPermutation {
    n: u64,
    key: u64,
    half_bits: u32,
}

/// The rounds of the Feistel network.
const FEISTEL_ROUNDS: u64 = 6;

/// SplitMix64's finaliser (Steele, Lea & Flood 2014): a bijective 64-bit mixer.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl KeyedPermutation {
    /// The permutation of {0, …, n−1} with this key.
    pub fn new(n: u64, key: u64) -> Self {
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        KeyedPermutation {
            n,
            key,
            half_bits: bits.div_ceil(2).max(1),
        }
    }
    /// The number of elements n.
    pub fn len(&self) -> u64 {
        self.n
    }
    /// True when n = 0.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
    /// The key.
    pub fn key(&self) -> u64 {
        self.key
    }
    fn network(&self, x: u64) -> u64 {
        let h = self.half_bits;
        let mask = (1u64 << h) - 1;
        let (mut l, mut r) = (x >> h, x & mask);
        for round in 0..FEISTEL_ROUNDS {
            let f =
                splitmix64(self.key ^ splitmix64(round.wrapping_mul(0xD1B5_4A32_D192_ED03) ^ r));
            (l, r) = (r, l ^ (f & mask));
        }
        (l << h) | r
    }
    /// π(i) for i < n.
    ///
    /// # Panics
    /// If i ≥ n.
    pub fn apply(&self, i: u64) -> u64 {
        assert!(i < self.n, "keyed permutation: element out of range");
        let mut x = self.network(i);
        while x >= self.n {
            x = self.network(x);
        }
        x
    }
}

/// A data-independent split of n records into T disjoint chunks of m = ⌊n/T⌋ records
/// (the remainder is unused), spec Hu B.4. Every chunk is read by one iteration only,
/// so the per-iteration guarantee is the whole algorithm's (parallel composition,
/// replace-one neighbours, n public).
#[derive(Debug, Clone, PartialEq)]
pub struct Chunks {
    /// The row indices in chunk order (chunk i = `order[i·m..(i + 1)·m]`); built on first
    /// use for the keyed chunking (a distributed fit never needs it).
    order: std::sync::OnceLock<Vec<usize>>,
    keyed: Option<KeyedPermutation>,
    n: usize,
    m: usize,
    t: usize,
}

impl Chunks {
    /// Splits `n` records into `t` chunks. Errors when t = 0 or t > n (m would be 0 and the
    /// sensitivities divide by m). The shuffle draws its permutation and the keyed
    /// chunking its key (one `u64`) from `rng`.
    pub fn new(
        algorithm: &'static str,
        n: usize,
        t: usize,
        chunking: Chunking,
        rng: &mut dyn RngCore,
    ) -> Result<Self, FitError> {
        if t == 0 || t > n {
            return Err(FitError::TooFewRecords {
                algorithm,
                n,
                needed: t.max(1),
            });
        }
        let order = std::sync::OnceLock::new();
        let mut keyed = None;
        match chunking {
            Chunking::Keyed => keyed = Some(KeyedPermutation::new(n as u64, rng.next_u64())),
            Chunking::Order | Chunking::Shuffle => {
                let mut o: Vec<usize> = (0..n).collect();
                if chunking == Chunking::Shuffle {
                    // Fisher–Yates with unbiased bounded draws from the fit's generator.
                    for i in (1..n).rev() {
                        let j = rand::Rng::random_range(rng, 0..=i);
                        o.swap(i, j);
                    }
                }
                let _ = order.set(o);
            }
        }
        Ok(Chunks {
            order,
            keyed,
            n,
            m: n / t,
            t,
        })
    }
    /// Records per chunk, m = ⌊n/T⌋.
    pub fn m(&self) -> usize {
        self.m
    }
    /// Number of chunks T.
    pub fn count(&self) -> usize {
        self.t
    }
    /// The keyed permutation of a `chunking=keyed` split (`None` otherwise).
    pub fn keyed(&self) -> Option<&KeyedPermutation> {
        self.keyed.as_ref()
    }
    /// The chunk of row `i` under a keyed permutation `perm` into `t` chunks of `m`
    /// rows: ⌊π(i)/m⌋, or `None` for the n − T·m unused rows. A function of the row id
    /// and the key only.
    pub fn keyed_chunk_of(perm: &KeyedPermutation, m: usize, t: usize, i: u64) -> Option<usize> {
        let p = perm.apply(i) as usize;
        (p < t * m).then(|| p / m)
    }
    /// The row indices of chunk `i` (0-based); for the keyed chunking, in the order of
    /// π (the permutation's inverse is built on the first call, O(n)).
    pub fn chunk(&self, i: usize) -> &[usize] {
        let order = self.order.get_or_init(|| {
            let perm = self.keyed.expect("an unkeyed split is built eagerly");
            let mut o = vec![0usize; self.n];
            for (i, slot) in (0..self.n).map(|i| (i, perm.apply(i as u64) as usize)) {
                o[slot] = i;
            }
            o
        });
        &order[i * self.m..(i + 1) * self.m]
    }
}

/// Which rows a sum reads: every record, or one chunk of a data-independent split.
#[derive(Debug, Clone, Copy)]
pub enum Selection<'a> {
    /// Every record (`clipped-gd`: all n records at every step).
    All,
    /// Chunk `index` of `chunks` (the one-pass algorithms).
    Chunk { chunks: &'a Chunks, index: usize },
}

/// The source of an algorithm's per-iteration row sums.
pub trait RowSums {
    /// Writes the sum of `kernel` at iterate `w` over the rows `rows` into `out`
    /// (length d).
    fn sum(
        &mut self,
        kernel: &row_sums::Kernel,
        rows: Selection<'_>,
        w: &[f64],
        out: &mut [f64],
    ) -> Result<(), FitError>;
    /// The in-memory dataset, when the rows are in this process (`None` for an external
    /// source: the algorithm then refuses the steps that are not row sums).
    fn local(&self) -> Option<&Dataset> {
        None
    }
}

/// Checks T ≤ n before any work (the "n smaller than the number of chunks" error).
pub fn check_chunks(algorithm: &'static str, n: usize, t: usize) -> Result<(), FitError> {
    if t == 0 || t > n {
        return Err(FitError::TooFewRecords {
            algorithm,
            n,
            needed: t.max(1),
        });
    }
    Ok(())
}

/// ⌊x⌋ with a guard against pow() landing just below an integer, and at least 1
/// (spec Hu C, "heavydp defaults").
pub fn floor_at_least_one(x: f64) -> usize {
    ((x + 1e-9).floor() as usize).max(1)
}

/// Theory vs paper-experiment defaults (`--param preset=theory|paper`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    /// The theorems' parameter formulas.
    Theory,
    /// The settings printed in the paper's experiment section.
    Paper,
}
param_words!(Preset: "theory" => Theory, "paper" => Paper);

impl Preset {
    /// Reads `preset`, with the algorithm's default.
    pub fn parse(p: &Params, default: Preset) -> Result<Self, FitError> {
        p.pick_or("preset", Self::WORDS, default)
    }
}

/// s* and the radius of a `sparse` domain ({‖w‖₀ ≤ s*, ‖w‖₂ ≤ R}).
pub fn sparse_domain(
    algorithm: &'static str,
    domain: &dyn ConstraintSet,
) -> Result<(usize, f64), FitError> {
    let desc = domain.describe();
    match (desc["kind"].as_str(), desc["s"].as_u64(), desc["radius"].as_f64()) {
        (Some("sparse"), Some(s), Some(r)) => Ok((s as usize, r)),
        _ => Err(FitError::Unsupported {
            algorithm,
            reason: "needs the domain 'sparse' (--domain sparse --sparsity S, S = the target sparsity s*)".into(),
        }),
    }
}
