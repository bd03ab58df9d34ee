//! The audit targets: every mechanism, the `catoni` mean estimator and every private
//! algorithm, each with its worst-case neighbouring pair, its statistic and the defect
//! of its broken twin.
//!
//! # Mechanisms and estimators
//!
//! | target | release | neighbours (replace one record) | statistic | twin's defect |
//! |---|---|---|---|---|
//! | `laplace` | q + Lap(Δ/ε), q = Σ x_i, x_i ∈ [0, 1], Δ₁ = 1 | 10 zeros; D′: x₁ = 1 (q: 0 → 1) | the released value | Δ halved |
//! | `gaussian` | q + N(0, σ²) per coordinate, q = Σ x_i, x_i ∈ [0, 1]², Δ₂ = √2, σ = Δ₂/√(2ρ), ρ = the largest zCDP ρ whose conversion is (ε, δ) | 10 zeros; D′: x₁ = (1, 1) | the last coordinate | its noise draw skipped |
//! | `exponential` | index r ∝ exp(ε u_r/(2Δ)), u = Σ x_i, x_i ∈ {0, 1}⁸, Δ = 1 | x₁ = e₁ (u = (1, 0, …)); D′: x₁ = (0, 1, …, 1) | the selected index | Δ halved |
//! | `report-noisy-min` | argmin_r (s_r + Lap(2Δ/ε)), s = Σ x_i, x_i ∈ {0, 1}⁸, Δ = 1 | x₁ = (0, 1, …, 1); D′: x₁ = e₁ | the selected index | Δ halved |
//! | `peeling` | Peeling (s = 1, λ = 1) of v = Σ x_i, x_i ∈ [0, 1]⁴ | x₁ = e₁ (v = (1, 0, 0, 0)); D′: x₁ = (0, 1, 1, 1) | released value of coordinate 1 (0 if not selected) | the values' Laplace draws skipped |
//! | `dp-quantile` | DP median of 10 records on the grid {−1, −½, 0, ½, 1} (exponential mechanism, Δ_u = 1; the scales and residual medians of `fit`) | four 0s and six 1s; D′: five and five | the released value | run at 16·ε |
//! | `atom-octave` | DP 0.9-quantile of the octaves of \|x − c₀\| (c₀ = 0) of 10 records on the octave grid (Δ_u = 1; the scale of a column with an atom at its centre, [`crate::preprocess::atom_levels`]) | nine 0s and one 1; D′: eight 0s and two 1s | the released value | run at 16·ε |
//! | `bounded-range-quantile` | the DP median of 10 records on the grid {−1, −½, 0, ½, 1} at the ε₀ that `fit`'s private scaling gives one release charged as ε₀-bounded-range in zCDP, ε₀ = √(8ρ), ρ the largest value whose conversion is (ε, δ) ([`crate::preprocess::bounded_range_epsilon`]; audited at that conversion) | three −1s, four 0s, three 1s; D′: one −1 replaced by 1 (u(−1) falls by 1 and u(1) rises by 1: the pair on which the mechanism uses its whole range ε₀) | the released value | run at 8·ε₀ (ρ understated 64-fold) |
//! | `target-moment` | the mean of min(1.5·o, K·M)² over the octaves o of \|y − c₀\| of 10 responses (c₀ = 0, M = 1, K = 16) + N(0, σ²), Δ = (K·M)²/n, σ = Δ/√(2ρ), ρ = ε₀²/8 (one bounded-range quantile release's charge), minus its 0.9-level noise bound ([`crate::preprocess::release_target_moment`]) | 10 zeros; D′: y₁ = 10⁶ | the released bound | run at 4·ε₀ |
//! | `intercept-mean` | clipped mean of 20 residuals at C + Lap(2C/(nε)) (`fit`'s intercept, squared loss) | 19 zeros and −C; D′: +C | the released value | Δ halved |
//! | `fit-check` | b₀ = clipped mean of 20 scaled responses + Lap at ε/2, then D = mean of min((y − b₀)², 9) − min((y − m − b)², 9) + Lap(18/(n·ε/2)) (`fit`'s fit check, [`crate::preprocess::fit_check`]) | 20 rows y = 0, m = 0; D′: the first row's margin 10⁶ | the released D | D's noise draw skipped |
//! | `fit-check-logistic` | b₀ = logit of (count of positives among 20 labels + Lap at ε/2)/n, then D = mean of min(ℓ(b₀; y), L) − min(ℓ(m + b; y), L) + Lap(2L/(n·ε/2)), L = 10·ln 2 (`fit`'s logistic fit check, [`crate::preprocess::fit_check::private_logistic_fit_check`]) | 20 rows, ten labelled 1, margins 0; D′: the first row's margin 10⁶ | the released D | D's noise draw skipped |
//! | `intercept-logistic` | exponential mechanism on −\|Σ(σ(b) − yᵢ)\| over b ∈ [−8, 8] step 1/32 (Δ_u = 2; `fit`'s logistic intercept) | labels 1×5, 0×5; D′: the first label 0 | the released value | run at 16·ε |
//! | `catoni` | Catoni–Giulini column means (k, β = 1, spec A.5) + Lap(d·4√2k/(3nε)), n = 20, d = 2, τ = 1 | 19 zeros and x₁ = −a*·(1, 1); D′: x₁ = +a*·(1, 1), a* = the value maximising a record's contribution Ψ (a huge outlier, ≈ 10¹⁵k) | the last coordinate | its noise draw skipped |
//!
//! # Algorithms
//!
//! Built by [`AlgorithmTarget`] from the registry name with pinned hyperparameters on
//! tiny data; see [`algorithm_targets`] for each one's pair, statistic and the factor c
//! of its twin (the twin runs the same fit at budget c·ε, i.e. every noise scale divided
//! by ≈ c; c = ∞ is the noise-free run). The factors are large because the composition
//! theorems these algorithms are calibrated with are far from tight on a tiny dataset:
//! the real algorithms spend far less than ε on any single statistic.
//!
//! Every algorithm target uses [`canary_pair`] with n = 20 (19 neutral records and one
//! record x = (1, …, 1), y = ±b) and the statistic ⟨(1, …, 1), w⟩:
//!
//! | target | loss, domain | pinned parameters | d | b | c |
//! |---|---|---|---|---|---|
//! | `dp-frank-wolfe` | squared, ℓ1 ball | bound = 1, T = 3 | 2 | 1 | 32 |
//! | `dp-frank-wolfe-gaussian` | squared, ℓ1 ball | bound = 1, T = 3 | 2 | 1 | 128 |
//! | `noisy-mirror-descent` | squared, ℓ2 ball | bound = 1, T = 3 | 2 | 1 | 128 |
//! | `objective-perturbation` | squared, ℓ2 ball | bound = 1 | 2 | 1 | 64 |
//! | `ht-frank-wolfe` | squared, ℓ1 ball | T = 2, s = 1.5 | 2 | 10³ | 16 |
//! | `ht-lasso` | squared, ℓ1 ball | T = 3, K = 2 | 2 | 10³ | 256 |
//! | `ht-sparse-linreg` | squared, sparse (s* = 1) | T = 2, K = 2, s = 1, η = 0.5 | 3 | 10³ | 128 |
//! | `ht-sparse-opt` | squared, sparse (s* = 1) | T = 2, k = 2, s = 1, η = 0.5 | 3 | 10³ | 64 |
//! | `dp-iht-huber` | Huber τ = 1, sparse (s* = 1) | T = 2, K = 1, s = 1, η = 0.5 | 3 | 10³ | 32 |
//! | `dp-iht-l1` | absolute, sparse (s* = 1) | T = 2, K = 1, s = 1, η = 0.5 | 3 | 10³ | 32 |
//! | `dp-slr` | squared, sparse (s* = 1) | bound = 1, T = 2, s = 1, η = 0.5 | 3 | 1 | 64 |
//!
//! `clipped-gd-intercept` audits the intercept `clipped-gd` fits jointly for the
//! logistic loss (`intercept=fit`; T = 2, R = 1, lr = 0.5, ℓ2 ball, d = 2, c = 32): the
//! pair is [`logistic_canary_pair`] (record 1's label flips) and the statistic the
//! fitted intercept.
//!
//! c is the smallest power of 2 for which the twin's bound is ≥ 1.8 at ε = 1 and the test
//! trial count (20 000); the ignored test `calibration_table` of `tests/audit.rs` prints
//! the sweep. All radii are 1; every other parameter takes its documented default.

use super::{AuditError, Neighbour, RunFn, TargetKind};
use crate::algorithms::{self, key, NoObserver, ParamMap, Problem};
use crate::constraints::DomainSpec;
use crate::data::Dataset;
use crate::estimators::catoni::{psi_gradient, CatoniGiulini};
use crate::loss::LossKind;
use crate::mechanisms::{
    ExponentialMechanism, GaussianMechanism, LaplaceMechanism, Mechanism, Peeling, ReportNoisyMin,
};
use crate::noise::HeavyRng;
use crate::privacy::{approx_to_zcdp_rho, calibration_target, Budget, PrivacyModel};
use std::sync::Arc;

use super::Target;

/// Trial counts (per dataset of the pair).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trials {
    /// Used by the default test suite (`tests/audit.rs`).
    pub test: usize,
    /// The default of `heavydp audit --trials`.
    pub cli: usize,
}

/// A family of audit targets: one real target and its broken twin. Implemented by the
/// three kinds of rows: [`Row`] (a mechanism, a preprocessing release or `catoni`, in
/// the table [`ROWS`]), [`MeanTarget`] (a mean estimator, [`mean_targets`]) and
/// [`AlgorithmTarget`] (a registered algorithm, [`algorithm_targets`]).
pub trait TargetSpec: Send + Sync {
    /// The base name (mechanism, estimator or `--algorithm` name).
    fn name(&self) -> &'static str;
    fn kind(&self) -> TargetKind;
    /// The privacy model of the guarantee audited.
    fn privacy(&self) -> PrivacyModel;
    /// What one run releases.
    fn release(&self) -> String;
    /// The neighbouring pair.
    fn neighbours(&self) -> String;
    /// The scalar statistic of a release.
    fn statistic(&self) -> String;
    /// The defect of the broken twin.
    fn defect(&self) -> String;
    fn trials(&self) -> Trials;
    /// The run function for a claimed budget, with or without the defect.
    fn prepare(&self, claim: &Budget, broken: bool) -> Result<RunFn, AuditError>;
}

fn setup_err(target: &str, e: impl std::fmt::Display) -> AuditError {
    AuditError::Setup {
        target: target.to_string(),
        reason: e.to_string(),
    }
}

/// Column sums of a row-major n × d matrix.
fn column_sums(x: &[f64], d: usize) -> Vec<f64> {
    let mut s = vec![0.0; d];
    for row in x.chunks_exact(d) {
        for (a, b) in s.iter_mut().zip(row) {
            *a += b;
        }
    }
    s
}

/// A record pair (D, D′) of row-major matrices differing in row 0.
fn replace_first(
    n: usize,
    d: usize,
    base: f64,
    first: &[f64],
    first_prime: &[f64],
) -> (Vec<f64>, Vec<f64>) {
    let mut a = vec![base; n * d];
    a[..d].copy_from_slice(first);
    let mut b = a.clone();
    b[..d].copy_from_slice(first_prime);
    (a, b)
}

/// What a mean-estimator target and an algorithm target pin: the `--estimator` /
/// `--algorithm` name, the `--param` values (anything that would otherwise depend on ε, so
/// that the twin changes only the noise), the twin's budget factor c (c = ∞: ε = ∞, the
/// noise-free run) and the trial counts.
#[derive(Debug, Clone)]
pub struct Pinned {
    pub name: &'static str,
    pub params: Vec<(&'static str, String)>,
    pub broken_factor: f64,
    pub trials: Trials,
}

impl Pinned {
    fn new(
        name: &'static str,
        params: &[(&'static str, &str)],
        broken_factor: f64,
        trials: Trials,
    ) -> Self {
        Pinned {
            name,
            params: params.iter().map(|(k, v)| (*k, v.to_string())).collect(),
            broken_factor,
            trials,
        }
    }

    /// The pinned parameters as `key=value` words joined by spaces (`defaults` when none
    /// is pinned).
    fn params_text(&self) -> String {
        if self.params.is_empty() {
            return "defaults".into();
        }
        let kv: Vec<String> = self
            .params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        kv.join(" ")
    }

    /// The parameter map handed to the estimator or to [`algorithms::build`].
    pub fn param_map(&self) -> ParamMap {
        self.params
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    /// The budget of a run: the claim, or for the twin c·ε at the claimed δ (c = ∞: the
    /// noise-free run, ε = ∞).
    fn budget(&self, claim: &Budget, broken: bool) -> Result<Budget, AuditError> {
        if !broken {
            Ok(*claim)
        } else if self.broken_factor.is_infinite() {
            Ok(Budget::non_private())
        } else {
            Budget::new(claim.epsilon * self.broken_factor, claim.delta).map_err(|e| self.err(e))
        }
    }

    /// A set-up error of this target.
    fn err(&self, e: impl std::fmt::Display) -> AuditError {
        setup_err(self.name, e)
    }
}

/// The twin's defect "runs at c·ε".
fn factor_defect(what: &str, factor: f64, divided: &str) -> String {
    format!(
        "{what} runs at {factor} x epsilon ({divided} divided by about {factor}) while claiming epsilon"
    )
}

/// The run function of a release computed from a fixed pair of inputs: `input` on D,
/// `input_prime` on D′.
fn on_pair<F>(input: Vec<f64>, input_prime: Vec<f64>, release: F) -> RunFn
where
    F: Fn(&[f64], &mut HeavyRng) -> Result<f64, AuditError> + Send + Sync + 'static,
{
    Box::new(move |side, rng| release(side.pick(&input[..], &input_prime[..]), rng))
}

/// A vector release whose statistic is its last coordinate; the twin's loop over the
/// coordinates stops one short (that coordinate is released without its noise draw).
fn last_coordinate<M>(
    mech: M,
    broken: bool,
) -> impl Fn(&[f64], &mut HeavyRng) -> Result<f64, AuditError> + Send + Sync + 'static
where
    M: Mechanism<Input = [f64], Output = Vec<f64>> + Send + Sync + 'static,
{
    move |input, rng| {
        let last = input.len() - 1;
        Ok(if broken {
            mech.run_uncharged(&input[..last], rng);
            input[last]
        } else {
            mech.run_uncharged(input, rng)[last]
        })
    }
}

/// The sensitivity a mechanism is built with: Δ, or Δ/2 for the twin.
fn halved(sensitivity: f64, broken: bool) -> f64 {
    if broken {
        sensitivity / 2.0
    } else {
        sensitivity
    }
}

// --------------------------------------------------- the mechanism and estimator table

/// One row of the table of mechanisms, preprocessing releases and `catoni`: what
/// `heavydp audit --list` says about the target (its claimed guarantee, release,
/// neighbouring pair, statistic and the twin's defect) and the constructor of its run
/// function, which builds the mechanism (with the defect for the twin) on the pair.
#[derive(Clone, Copy)]
pub struct Row {
    pub name: &'static str,
    pub kind: TargetKind,
    pub privacy: PrivacyModel,
    pub release: &'static str,
    pub neighbours: &'static str,
    pub statistic: &'static str,
    pub defect: &'static str,
    /// Builds the run function for a claimed budget, with or without the defect.
    pub prepare: fn(&Budget, bool) -> Result<RunFn, AuditError>,
}

/// The trial counts of every row of [`ROWS`].
const ROW_TRIALS: Trials = Trials {
    test: 20_000,
    cli: 200_000,
};

impl TargetSpec for Row {
    fn name(&self) -> &'static str {
        self.name
    }
    fn kind(&self) -> TargetKind {
        self.kind
    }
    fn privacy(&self) -> PrivacyModel {
        self.privacy
    }
    fn release(&self) -> String {
        self.release.into()
    }
    fn neighbours(&self) -> String {
        self.neighbours.into()
    }
    fn statistic(&self) -> String {
        self.statistic.into()
    }
    fn defect(&self) -> String {
        self.defect.into()
    }
    fn trials(&self) -> Trials {
        ROW_TRIALS
    }
    fn prepare(&self, claim: &Budget, broken: bool) -> Result<RunFn, AuditError> {
        (self.prepare)(claim, broken)
    }
}

/// The twin factor of the exponential-mechanism preprocessing targets: the twin runs at
/// 16·ε (the utilities of a quantile move in one direction between neighbours, so the
/// mechanism spends about half its ε on any pair and a twin at 2·ε would not be caught
/// at the test trial count; 16 is the documented rule for the algorithms' twins). The
/// defect strings of `dp-quantile` and `intercept-logistic` say 16.
const PREPROCESS_TWIN_FACTOR: f64 = 16.0;

/// Every mechanism, preprocessing release and `catoni`, in the order of
/// `heavydp audit --list`.
pub const ROWS: &[Row] = &[
    Row {
        name: "laplace",
        kind: TargetKind::Mechanism,
        privacy: PrivacyModel::Pure,
        release: "q + Lap(1/epsilon) with q = sum of 10 records in [0, 1] (l1 sensitivity 1)",
        neighbours: "D: ten records 0; D': the first record replaced by 1 (q = 0 vs 1)",
        statistic: "the released value",
        defect: "sensitivity halved: LaplaceMechanism::new(1/2, epsilon), noise Lap(1/(2 epsilon))",
        prepare: laplace,
    },
    Row {
        name: "gaussian",
        kind: TargetKind::Mechanism,
        privacy: PrivacyModel::Zcdp,
        release: "q + N(0, sigma^2 I), q = column sums of 10 records in [0, 1]^2 (l2 sensitivity sqrt 2), sigma = sqrt(2)/sqrt(2 rho), rho-zCDP with rho the largest value whose conversion rho + 2 sqrt(rho ln(1/delta)) is epsilon",
        neighbours: "D: ten records (0, 0); D': the first record replaced by (1, 1)",
        statistic: "the last coordinate of the release",
        defect: "one noise draw skipped: the last coordinate is released without its Gaussian draw",
        prepare: gaussian,
    },
    Row {
        name: "exponential",
        kind: TargetKind::Mechanism,
        privacy: PrivacyModel::Pure,
        release: "an index r of 8 with P(r) proportional to exp(epsilon u_r / 2), u = column sums of 4 records in {0, 1}^8 (sensitivity 1), Gumbel-max",
        neighbours: "D: first record e_1, others 0 (u = (1, 0, ..., 0)); D': first record (0, 1, ..., 1) (u = (0, 1, ..., 1))",
        statistic: "the selected index",
        defect: "sensitivity halved: ExponentialMechanism::new(1/2, epsilon)",
        prepare: exponential,
    },
    Row {
        name: "report-noisy-min",
        kind: TargetKind::Mechanism,
        privacy: PrivacyModel::Pure,
        release: "argmin_r (s_r + Lap(2/epsilon)) over 8 scores s = column sums of 4 records in {0, 1}^8 (sensitivity 1)",
        neighbours: "D: first record (0, 1, ..., 1) (s = (0, 1, ..., 1)); D': first record e_1 (s = (1, 0, ..., 0))",
        statistic: "the selected index",
        defect: "sensitivity halved: ReportNoisyMin::new(1/2, epsilon), noise Lap(1/epsilon)",
        prepare: report_noisy_min,
    },
    Row {
        name: "peeling",
        kind: TargetKind::Mechanism,
        privacy: PrivacyModel::Approx,
        release: "Peeling (s = 1, lambda = 1) of v = column sums of 4 records in [0, 1]^4: the noisy top coordinate and its noisy value",
        neighbours: "D: first record e_1, others 0 (v = (1, 0, 0, 0)); D': first record (0, 1, 1, 1) (v = (0, 1, 1, 1))",
        statistic: "the released value of coordinate 1 (0 when it is not selected)",
        defect: "noise draws skipped: the selected coordinates' values are released without their Laplace draws",
        prepare: peeling,
    },
    Row {
        name: "catoni",
        kind: TargetKind::MeanEstimator,
        privacy: PrivacyModel::Pure,
        release: "the catoni mean (spec Hu A.5): Catoni-Giulini column means of 20 records in R^2 (k = sqrt(3 n eps tau (1 + 1/beta)/(8 sqrt2 d)), beta = 1, tau = 1) + Lap(d 4 sqrt2 k/(3 n epsilon)) per coordinate",
        neighbours: "D: 19 records 0 and the first record -a*(1, 1); D': the first record +a*(1, 1), a* maximising one record's contribution",
        statistic: "the last coordinate of the mean",
        defect: "one noise draw skipped: the last coordinate is released without its Laplace draw",
        prepare: catoni,
    },
    Row {
        name: "dp-quantile",
        kind: TargetKind::Mechanism,
        privacy: PrivacyModel::Pure,
        release: "the DP median (exponential mechanism, utility sensitivity 1) of 10 records on the public grid {-1, -0.5, 0, 0.5, 1}",
        neighbours: "D: four 0s and six 1s; D': one 1 replaced by 0 (five and five)",
        statistic: "the released value",
        defect: "run at 16 x epsilon (every score scale divided by 16)",
        prepare: dp_quantile,
    },
    Row {
        name: "atom-octave",
        kind: TargetKind::Mechanism,
        privacy: PrivacyModel::Pure,
        release: "the DP 0.9-quantile (exponential mechanism, utility sensitivity 1) of the octaves 2^floor(log2|x - c0|) of 10 records, c0 = 0, on the octave grid {0, 2^-20, ..., 2^40} (preprocess::private_scales, the scale of a column with an atom at its centre)",
        neighbours: "D: nine 0s and one 1; D': one 0 replaced by 1 (eight 0s and two 1s)",
        statistic: "the released value",
        defect: "run at 16 x epsilon (every score scale divided by 16)",
        prepare: atom_octave,
    },
    Row {
        name: "bounded-range-quantile",
        kind: TargetKind::Mechanism,
        privacy: PrivacyModel::Zcdp,
        release: "the DP median (exponential mechanism, utility sensitivity 1) of 10 records on the public grid {-1, -0.5, 0, 0.5, 1} at epsilon_0 = sqrt(8 rho) (preprocess::bounded_range_epsilon: one release charged rho = epsilon_0^2/8 as epsilon_0-bounded-range, rho the largest value whose conversion rho + 2 sqrt(rho ln(1/delta)) is epsilon)",
        neighbours: "D: three -1s, four 0s, three 1s; D': one -1 replaced by 1 (the utility of -1 falls by 1, that of 1 rises by 1)",
        statistic: "the released value",
        defect: "run at 8 x epsilon_0 (rho understated 64-fold)",
        prepare: bounded_range_quantile,
    },
    Row {
        name: "binary-gate",
        kind: TargetKind::Mechanism,
        privacy: PrivacyModel::Zcdp,
        release: "the binary gate of the private scaling (preprocess::release_binary_gate): per column of 10 records in R^2, the count of values outside {0, 1} (StageMap::Binary) + N(0, sigma^2), l2 sensitivity sqrt(d) = sqrt 2, sigma = sqrt(2)/sqrt(2 rho), rho the largest value whose conversion rho + 2 sqrt(rho ln(1/delta)) is epsilon",
        neighbours: "D: ten records (0, 1); D': the first record replaced by (2, 0.5) (both counts move by 1)",
        statistic: "the last coordinate of the release (the second column's noisy count)",
        defect: "one noise draw skipped: the last count is released without its Gaussian draw",
        prepare: binary_gate,
    },
    Row {
        name: "target-moment",
        kind: TargetKind::Mechanism,
        privacy: PrivacyModel::Zcdp,
        release: "the target's winsorised second moment of the private scaling (preprocess::release_target_moment): the mean over 10 records of min(1.5 o, K M)^2, o the octave of |y - c0| (c0 = 0, spread octave M = 1, K = 16), + N(0, sigma^2), sensitivity (K M)^2/n = 25.6, sigma = sensitivity/sqrt(2 rho), rho = epsilon_0^2/8 the charge of one bounded-range quantile release at epsilon_0 = sqrt(8 rho), rho the largest value whose conversion rho + 2 sqrt(rho ln(1/delta)) is epsilon; released minus its 0.9-level noise bound",
        neighbours: "D: ten records y = 0; D': the first replaced by 10^6 (its clipped square (K M)^2)",
        statistic: "the released lower bound",
        defect: "run at 4 x epsilon_0 (rho understated 16-fold)",
        prepare: target_moment,
    },
    Row {
        name: "intercept-mean",
        kind: TargetKind::Mechanism,
        privacy: PrivacyModel::Pure,
        release: "the clipped mean of 20 residuals at C = 1 + Lap(2C/(n epsilon)) (preprocess::private_intercept, squared loss)",
        neighbours: "D: 19 residuals 0 and one -10^6 (clipped to -C); D': that one +10^6",
        statistic: "the released value",
        defect: "sensitivity halved: Laplace scale C/(n epsilon)",
        prepare: intercept_mean,
    },
    Row {
        name: "fit-check",
        kind: TargetKind::Mechanism,
        privacy: PrivacyModel::Pure,
        release: "the private fit check of 20 scaled responses (preprocess::fit_check): b0 = their clipped mean + Laplace at epsilon/2, then D = mean of min((y - b0)^2, 9) - min((y - m - b)^2, 9) over the rows + Lap(18/(n epsilon/2)), with b = 0",
        neighbours: "D: 20 rows y = 0, margin m = 0; D': the first row's features replaced so that its margin is 10^6 (its term moves from about 0 to -9; b0 is the same on both)",
        statistic: "the released D",
        defect: "D's noise draw skipped: D released exactly",
        prepare: fit_check,
    },
    Row {
        name: "fit-check-logistic",
        kind: TargetKind::Mechanism,
        privacy: PrivacyModel::Pure,
        release: "the private logistic fit check of 20 labels (preprocess::fit_check::private_logistic_fit_check): b0 = logit of the base rate, its count of positives + Laplace at epsilon/2, then D = mean of min(l(b0; y), L) - min(l(m + b; y), L) over the rows (l the log-loss, L = 10 ln 2) + Lap(2L/(n epsilon/2)), with b = 0",
        neighbours: "D: 20 rows, ten labelled 1, margin m = 0; D': the first row (labelled 0) with its features replaced so that its margin is 10^6 (its term moves from 0 to ln 2 - L; b0 is the same on both)",
        statistic: "the released D",
        defect: "D's noise draw skipped: D released exactly",
        prepare: fit_check_logistic,
    },
    Row {
        name: "intercept-mean-of-responses",
        kind: TargetKind::Mechanism,
        privacy: PrivacyModel::Pure,
        release: "the intercept-only regression's clipped mean of 20 responses (preprocess::private_mean_intercept_of): their median on the public grid, the octave of their median absolute deviation at the levels 0.5 and 0.9, then the mean of clamp(y - m, -c, c) + Lap(2c/(n eps)), four releases with the shares 0.4/0.25/0.1/0.25 of epsilon",
        neighbours: "D: ten -0.5, nine 0.5 and one -10^6; D': that one +10^6",
        statistic: "the released value",
        defect: "run at 16 x epsilon (every release's budget multiplied by 16)",
        prepare: intercept_mean_of_responses,
    },
    Row {
        name: "intercept-logistic",
        kind: TargetKind::Mechanism,
        privacy: PrivacyModel::Pure,
        release: "the logistic intercept of 10 labels with zero margins: the exponential mechanism on -|sum(sigmoid(b) - y)| over b in [-8, 8] step 1/32 (utility sensitivity 2)",
        neighbours: "D: labels 1,1,1,1,1,0,0,0,0,0; D': the first label 0",
        statistic: "the released value",
        defect: "run at 16 x epsilon (every score scale divided by 16)",
        prepare: intercept_logistic,
    },
];

// ------------------------------------------------------ the rows' run constructors

/// `laplace`: q + Lap(Δ/ε), Δ₁ = 1 (twin: Δ/2).
fn laplace(claim: &Budget, broken: bool) -> Result<RunFn, AuditError> {
    let mech = LaplaceMechanism::new(halved(1.0, broken), claim.epsilon)
        .map_err(|e| setup_err("laplace", e))?;
    let (d, dp) = replace_first(10, 1, 0.0, &[0.0], &[1.0]);
    Ok(on_pair(
        column_sums(&d, 1),
        column_sums(&dp, 1),
        move |q, rng| Ok(mech.run_uncharged(q, rng)[0]),
    ))
}

/// `gaussian`: q + N(0, σ²I), Δ₂ = √2, σ = Δ₂/√(2ρ) (twin: the last draw skipped).
fn gaussian(claim: &Budget, broken: bool) -> Result<RunFn, AuditError> {
    let rho = approx_to_zcdp_rho(calibration_target(claim.epsilon), claim.delta);
    let mech =
        GaussianMechanism::from_rho(2f64.sqrt(), rho).map_err(|e| setup_err("gaussian", e))?;
    let (d, dp) = replace_first(10, 2, 0.0, &[0.0, 0.0], &[1.0, 1.0]);
    let (q, qp) = (column_sums(&d, 2), column_sums(&dp, 2));
    Ok(on_pair(q, qp, last_coordinate(mech, broken)))
}

const RANGE: usize = 8;

/// u(D) = (1, 0, …, 0) and u(D′) = (0, 1, …, 1): column sums of 4 records in {0, 1}⁸
/// whose first record is e₁ in D and 1 − e₁ in D′ (every score moves by 1, in opposite
/// directions for the selected candidate and the rest).
fn opposed_scores() -> (Vec<f64>, Vec<f64>) {
    let mut e1 = vec![0.0; RANGE];
    e1[0] = 1.0;
    let ones_but_first: Vec<f64> = e1.iter().map(|v| 1.0 - v).collect();
    let (d, dp) = replace_first(4, RANGE, 0.0, &e1, &ones_but_first);
    (column_sums(&d, RANGE), column_sums(&dp, RANGE))
}

/// `exponential`: index r ∝ exp(ε u_r/(2Δ)), Δ = 1 (twin: Δ/2).
fn exponential(claim: &Budget, broken: bool) -> Result<RunFn, AuditError> {
    let mech = ExponentialMechanism::new(halved(1.0, broken), claim.epsilon)
        .map_err(|e| setup_err("exponential", e))?;
    let (u, up) = opposed_scores();
    Ok(on_pair(u, up, move |u, rng| {
        Ok(mech.run_uncharged(u, rng) as f64)
    }))
}

/// `report-noisy-min`: argmin_r (s_r + Lap(2Δ/ε)), Δ = 1 (twin: Δ/2). The scores are
/// the mirror image of the exponential mechanism's utilities.
fn report_noisy_min(claim: &Budget, broken: bool) -> Result<RunFn, AuditError> {
    let mech = ReportNoisyMin::new(halved(1.0, broken), claim.epsilon)
        .map_err(|e| setup_err("report-noisy-min", e))?;
    let (u, up) = opposed_scores();
    Ok(on_pair(up, u, move |s, rng| {
        Ok(mech.run_uncharged(s, rng) as f64)
    }))
}

const PEEL_D: usize = 4;

/// `peeling`: Peeling (s = 1, λ = 1) of column sums in [0, 1]⁴ (twin: the real
/// selection, the values' Laplace draws discarded).
fn peeling(claim: &Budget, broken: bool) -> Result<RunFn, AuditError> {
    let peel =
        Peeling::new(1, 1.0, claim.epsilon, claim.delta).map_err(|e| setup_err("peeling", e))?;
    let mut e1 = vec![0.0; PEEL_D];
    e1[0] = 1.0;
    let rest: Vec<f64> = e1.iter().map(|v| 1.0 - v).collect();
    let (d, dp) = replace_first(4, PEEL_D, 0.0, &e1, &rest);
    let (v, vp) = (column_sums(&d, PEEL_D), column_sums(&dp, PEEL_D));
    Ok(on_pair(v, vp, move |input, rng| {
        let out = if broken {
            let (set, _noisy) = peel.select(input, rng);
            let mut o = vec![0.0; input.len()];
            for j in set {
                o[j] = input[j];
            }
            o
        } else {
            peel.run_uncharged(input, rng)
        };
        Ok(out[0])
    }))
}

const CATONI_N: usize = 20;
const CATONI_D: usize = 2;

/// The `catoni` mean of spec A.5 built from its pieces: scale k, β and the Laplace
/// mechanism on the ℓ1 sensitivity d·4√2k/(3n).
struct CatoniMean {
    est: CatoniGiulini,
    lap: LaplaceMechanism,
}

impl CatoniMean {
    /// Spec A.5 defaults: β = 1, τ = 1, k = √(3nετ(1 + 1/β)/(8√2·d)).
    fn new(n: usize, d: usize, epsilon: f64) -> Result<Self, AuditError> {
        let (beta, tau) = (1.0, 1.0);
        let k = (3.0 * n as f64 * epsilon * tau * (1.0 + 1.0 / beta)
            / (8.0 * 2f64.sqrt() * d as f64))
            .sqrt();
        let est = CatoniGiulini::new(k, beta).map_err(|e| setup_err("catoni", e))?;
        let l1 = d as f64 * est.sensitivity_inf(n);
        let lap = LaplaceMechanism::new(l1, epsilon).map_err(|e| setup_err("catoni", e))?;
        Ok(CatoniMean { est, lap })
    }
    /// The value a of one record that maximises its contribution Ψ(a/k, |a|/(k√β)): a
    /// log-grid search over a/k ∈ [10⁻³, 10¹⁵]. Along the estimator's ray the
    /// contribution increases to its limit (2√2/3)(2Φ(√β) − 1) ≈ 0.6436 (β = 1), so the
    /// worst record is a huge outlier (a* ≈ 10¹⁵·k).
    fn worst_value(&self) -> f64 {
        let k = self.est.scale;
        let mut best = (0.0, f64::NEG_INFINITY);
        for i in -300..=1500 {
            let a = k * 10f64.powf(i as f64 / 100.0);
            let v = psi_gradient(a, k, self.est.beta);
            if v > best.1 {
                best = (a, v);
            }
        }
        best.0
    }
}

/// `catoni`: the Catoni–Giulini column means + Laplace (twin: the last draw skipped).
fn catoni(claim: &Budget, broken: bool) -> Result<RunFn, AuditError> {
    let m = CatoniMean::new(CATONI_N, CATONI_D, claim.epsilon)?;
    let a = m.worst_value();
    let (d, dp) = replace_first(CATONI_N, CATONI_D, 0.0, &[-a, -a], &[a, a]);
    let rows: Vec<usize> = (0..CATONI_N).collect();
    let mut mean = vec![0.0; CATONI_D];
    let mut mean_p = vec![0.0; CATONI_D];
    m.est.column_means(&d, CATONI_D, &rows, &mut mean);
    m.est.column_means(&dp, CATONI_D, &rows, &mut mean_p);
    Ok(on_pair(mean, mean_p, last_coordinate(m.lap, broken)))
}

/// ε, or [`PREPROCESS_TWIN_FACTOR`]·ε for the twin.
fn preprocess_epsilon(eps: f64, broken: bool) -> f64 {
    if broken {
        eps * PREPROCESS_TWIN_FACTOR
    } else {
        eps
    }
}

/// `dp-quantile`: the DP median of `fit`'s scales on a public grid (twin: 16·ε).
fn dp_quantile(claim: &Budget, broken: bool) -> Result<RunFn, AuditError> {
    use crate::preprocess::quantile::{LinearGrid, QuantileMechanism};
    let grid = LinearGrid {
        half_width: 1.0,
        steps: 2,
    };
    let e = preprocess_epsilon(claim.epsilon, broken);
    let mech = QuantileMechanism::on_grid(0.5, e, grid).map_err(|e| setup_err("dp-quantile", e))?;
    let d: Vec<f64> = [vec![0.0; 4], vec![1.0; 6]].concat();
    let dp: Vec<f64> = [vec![0.0; 5], vec![1.0; 5]].concat();
    Ok(on_pair(d, dp, move |v, rng| Ok(mech.run_uncharged(v, rng))))
}

/// The twin factor of `bounded-range-quantile`: its ε₀ times 8. A 2·ε₀ twin (a halved ε,
/// or the charge ε₀²/8 claimed for a mechanism that is ε₀-DP but not ε₀-bounded-range,
/// which costs ε₀²/2: both understate ρ 4-fold) is not a violation one release can show:
/// at the claim (1, 10⁻⁵) ε₀ = 0.41, so the twin is still 0.82-DP; composed over many
/// releases a 4-fold understatement breaks (1, 10⁻⁵) only on events of probability near
/// 10⁻⁵, beyond the test's 20 000 trials. At 8·ε₀ = 3.3 the released value ≤ −½ has
/// probability 0.066 on D and 0.011 on D′ (a log-ratio of 1.8), which the test sees.
/// Every quantity the twin gets wrong is the one [`crate::preprocess::bounded_range_epsilon`]
/// computes, and its formula is pinned by
/// `preprocess::tests::exponential_releases_compose_as_bounded_range_in_zcdp`.
const BOUNDED_RANGE_TWIN_FACTOR: f64 = 8.0;

/// `bounded-range-quantile`: one release of `fit`'s private scaling at the ε₀ of
/// [`crate::preprocess::bounded_range_epsilon`] for the claim (zCDP, ε₀²/8 per release;
/// twin: 8·ε₀), on a pair whose utilities move in opposite directions.
fn bounded_range_quantile(claim: &Budget, broken: bool) -> Result<RunFn, AuditError> {
    use crate::preprocess::bounded_range_epsilon;
    use crate::preprocess::quantile::{LinearGrid, QuantileMechanism};
    let name = "bounded-range-quantile";
    let eps0 = bounded_range_epsilon(*claim, 1);
    let e = if broken {
        eps0 * BOUNDED_RANGE_TWIN_FACTOR
    } else {
        eps0
    };
    let grid = LinearGrid {
        half_width: 1.0,
        steps: 2,
    };
    let mech = QuantileMechanism::on_grid(0.5, e, grid).map_err(|e| setup_err(name, e))?;
    let d: Vec<f64> = [vec![-1.0; 3], vec![0.0; 4], vec![1.0; 3]].concat();
    let dp: Vec<f64> = [vec![-1.0; 2], vec![0.0; 4], vec![1.0; 4]].concat();
    Ok(on_pair(d, dp, move |v, rng| Ok(mech.run_uncharged(v, rng))))
}

/// `binary-gate`: the noisy counts of values outside {0, 1} per column
/// ([`crate::preprocess::release_binary_gate`]'s release at the claim's ρ, ℓ2 sensitivity
/// √d; twin: the last draw skipped).
fn binary_gate(claim: &Budget, broken: bool) -> Result<RunFn, AuditError> {
    use crate::preprocess::StageMap;
    let rho = approx_to_zcdp_rho(calibration_target(claim.epsilon), claim.delta);
    let mech =
        GaussianMechanism::from_rho(2f64.sqrt(), rho).map_err(|e| setup_err("binary-gate", e))?;
    let (d, dp) = replace_first(10, 2, 0.0, &[0.0, 1.0], &[2.0, 0.5]);
    let counts = |x: &[f64]| -> Vec<f64> {
        column_sums(
            &x.iter()
                .map(|v| StageMap::Binary.apply(*v))
                .collect::<Vec<_>>(),
            2,
        )
    };
    Ok(on_pair(
        counts(&d),
        counts(&dp),
        last_coordinate(mech, broken),
    ))
}

/// `target-moment`: the target's winsorised-moment release
/// ([`crate::preprocess::release_target_moment`] on the octave counts of 10 responses,
/// c₀ = 0, M = 1, charged to a zCDP ledger of the claim; twin: 4·ε₀).
fn target_moment(claim: &Budget, broken: bool) -> Result<RunFn, AuditError> {
    use crate::preprocess::quantile::{octave_floor, SortedColumn};
    use crate::preprocess::{bounded_range_epsilon, release_target_moment};
    use crate::privacy::{Accountant, PrivacyLedger};
    let name = "target-moment";
    let eps0 = bounded_range_epsilon(*claim, 1) * if broken { 4.0 } else { 1.0 };
    let octaves = |y0: f64| -> Vec<f64> {
        let mut v: Vec<f64> = (0..10)
            .map(|i| octave_floor(if i == 0 { y0 } else { 0.0 }))
            .collect();
        v.sort_by(f64::total_cmp);
        v
    };
    let ledger_budget = if broken {
        Budget::non_private()
    } else {
        *claim
    };
    Ok(on_pair(octaves(0.0), octaves(1e6), move |v, rng| {
        let mut ledger = PrivacyLedger::new(ledger_budget, Accountant::Zcdp);
        release_target_moment(&mut ledger, &SortedColumn(v), 1.0, eps0, rng)
            .map_err(|e| setup_err(name, e))
    }))
}

/// `atom-octave`: the high-level octave release of a column with an atom at its centre
/// ([`crate::preprocess::atom_levels`]; twin: 16·ε), on the octaves of |x − 0|.
fn atom_octave(claim: &Budget, broken: bool) -> Result<RunFn, AuditError> {
    use crate::preprocess::quantile::{octave_floor, OctaveGrid, QuantileMechanism};
    let e = preprocess_epsilon(claim.epsilon, broken);
    let mech =
        QuantileMechanism::on_grid(0.9, e, OctaveGrid).map_err(|e| setup_err("atom-octave", e))?;
    let octaves = |ones: usize| -> Vec<f64> {
        let mut v: Vec<f64> = (0..10)
            .map(|i| octave_floor(if i < ones { 1.0 } else { 0.0 }))
            .collect();
        v.sort_by(f64::total_cmp);
        v
    };
    Ok(on_pair(octaves(1), octaves(2), move |v, rng| {
        Ok(mech.run_uncharged(v, rng))
    }))
}

/// `fit`'s private intercept of residuals `y` (zero margins) under `loss`.
fn intercept_of(
    name: &'static str,
    loss: LossKind,
    budget: Budget,
) -> impl Fn(&[f64], &mut HeavyRng) -> Result<f64, AuditError> + Send + Sync + 'static {
    move |y, rng| {
        crate::preprocess::private_intercept(&loss, &vec![0.0; y.len()], y, true, budget, rng)
            .map(|r| r.0)
            .map_err(|e| setup_err(name, e))
    }
}

/// `intercept-mean`: the clipped mean of residuals + Laplace (twin: half the scale).
fn intercept_mean(claim: &Budget, broken: bool) -> Result<RunFn, AuditError> {
    let name = "intercept-mean";
    let eps = claim.epsilon;
    let budget = Budget::pure(eps).map_err(|e| setup_err(name, e))?;
    let n = 20;
    // ±10⁶ is clipped to ±C: the clipped mean moves by exactly 2C/n
    let mut y: Vec<f64> = vec![0.0; n];
    y[0] = -1e6;
    let mut yp = y.clone();
    yp[0] = 1e6;
    if !broken {
        return Ok(on_pair(
            y,
            yp,
            intercept_of(name, LossKind::Squared, budget),
        ));
    }
    // the clipped mean with the Laplace scale of half the sensitivity
    let c = crate::preprocess::intercept_clip(n, calibration_target(eps));
    let lap = LaplaceMechanism::new(c / n as f64, calibration_target(eps))
        .map_err(|e| setup_err(name, e))?;
    Ok(on_pair(y, yp, move |v, rng| {
        let mean = v.iter().map(|r: &f64| r.clamp(-c, c)).sum::<f64>() / n as f64;
        Ok(lap.run_uncharged(&[mean], rng)[0])
    }))
}

/// `intercept-mean-of-responses`: the intercept-only regression's clipped mean of the
/// responses, all four releases (twin: 16·ε).
fn intercept_mean_of_responses(claim: &Budget, broken: bool) -> Result<RunFn, AuditError> {
    let name = "intercept-mean-of-responses";
    let budget =
        Budget::pure(preprocess_epsilon(claim.epsilon, broken)).map_err(|e| setup_err(name, e))?;
    let mut y: Vec<f64> = (0..20).map(|i| if i <= 10 { -0.5 } else { 0.5 }).collect();
    y[0] = -1e6;
    let mut yp = y.clone();
    yp[0] = 1e6;
    Ok(on_pair(y, yp, move |v, rng| {
        let zeros = vec![0.0; v.len()];
        crate::preprocess::private_mean_intercept_of(
            &mut crate::preprocess::Residuals::new(&zeros, v),
            budget,
            rng,
        )
        .map(|r| r.0)
        .map_err(|e| setup_err(name, e))
    }))
}

/// The fit checks' pair: n margins 0, and the same with the first row's margin 10⁶ (its
/// features replaced).
fn moved_margin_pair(n: usize) -> (Vec<f64>, Vec<f64>) {
    let m = vec![0.0; n];
    let mut mp = m.clone();
    mp[0] = 1e6;
    (m, mp)
}

/// `fit-check`: the private fit check's released D on a pair that moves one row's margin
/// (twin: D released without its Laplace draw).
fn fit_check(claim: &Budget, broken: bool) -> Result<RunFn, AuditError> {
    use crate::preprocess::fit_check::{self, LocalCheck};
    let name = "fit-check";
    let budget = Budget::pure(claim.epsilon).map_err(|e| setup_err(name, e))?;
    let n = 20;
    let y = vec![0.0; n];
    let (m, mp) = moved_margin_pair(n);
    Ok(on_pair(m, mp, move |margins, rng| {
        let mut src = LocalCheck { margins, y: &y };
        if !broken {
            return fit_check::private_fit_check(&mut src, 0.0, budget, rng)
                .map(|c| c.statistic)
                .map_err(|e| setup_err(name, e));
        }
        // b₀ released as in the check (half the budget), D exact
        let eps = calibration_target(budget.epsilon) / 2.0;
        let c = crate::preprocess::intercept_clip(n, eps);
        let lap = LaplaceMechanism::new(2.0 * c / n as f64, eps).map_err(|e| setup_err(name, e))?;
        let b0 = lap.run_uncharged(&[0.0], rng)[0];
        let d = fit_check::CheckReads::of(margins, &y, c).statistic_sum(b0, 0.0);
        Ok(d / n as f64)
    }))
}

/// `fit-check-logistic`: the logistic fit check's released D on a pair that moves one
/// row's margin (twin: D released without its Laplace draw).
fn fit_check_logistic(claim: &Budget, broken: bool) -> Result<RunFn, AuditError> {
    use crate::preprocess::fit_check::{self, LocalCheck};
    let name = "fit-check-logistic";
    let budget = Budget::pure(claim.epsilon).map_err(|e| setup_err(name, e))?;
    let n = 20;
    let y: Vec<f64> = (0..n).map(|i| f64::from(i >= n / 2)).collect();
    let (m, mp) = moved_margin_pair(n);
    Ok(on_pair(m, mp, move |margins, rng| {
        let mut src = LocalCheck { margins, y: &y };
        if !broken {
            return fit_check::private_logistic_fit_check(&mut src, 0.0, budget, rng)
                .map(|c| c.statistic)
                .map_err(|e| setup_err(name, e));
        }
        // b₀ released as in the check (half the budget), D exact
        let eps = calibration_target(budget.epsilon) / 2.0;
        let mut ledger = crate::privacy::PrivacyLedger::new(
            Budget::pure(eps).map_err(|e| setup_err(name, e))?,
            crate::privacy::Accountant::Basic,
        );
        let reads = fit_check::LogisticCheckReads::of(margins, &y);
        let b0 = crate::preprocess::release_base_rate(
            &mut ledger,
            "base rate",
            n as f64,
            reads.positives_count(),
            eps,
            rng,
        )
        .map_err(|e| setup_err(name, e))?;
        Ok(reads.statistic_sum(b0, 0.0) / n as f64)
    }))
}

/// `intercept-logistic`: `fit`'s logistic intercept (twin: 16·ε).
fn intercept_logistic(claim: &Budget, broken: bool) -> Result<RunFn, AuditError> {
    let name = "intercept-logistic";
    let budget =
        Budget::pure(preprocess_epsilon(claim.epsilon, broken)).map_err(|e| setup_err(name, e))?;
    let y: Vec<f64> = (0..10).map(|i| if i < 5 { 1.0 } else { -1.0 }).collect();
    let mut yp = y.clone();
    yp[0] = -1.0;
    Ok(on_pair(
        y,
        yp,
        intercept_of(name, LossKind::Logistic, budget),
    ))
}

// ------------------------------------------------------- clip, iterative-updating, sparse-peeling

/// A target for a mean estimator of [`crate::estimators::private_mean`] (everything but
/// `catoni`, which has its own row built from its pieces): n records in ℝ^d, n − 1 at
/// 0 and record 1 at −a·(1, …, 1) in D and +a·(1, …, 1) in D′ (a beyond every clipping
/// radius / robust scale), every ε-dependent hyperparameter pinned, the statistic one
/// coordinate of the released mean. The twin runs the estimator at c·ε while claiming ε.
pub struct MeanTarget {
    /// The `--estimator` name, its pinned parameters, the twin's factor c, the trials.
    pub pinned: Pinned,
    pub n: usize,
    pub d: usize,
    pub a: f64,
    /// The released coordinate.
    pub coordinate: usize,
    pub privacy: PrivacyModel,
}

impl TargetSpec for MeanTarget {
    fn name(&self) -> &'static str {
        self.pinned.name
    }
    fn kind(&self) -> TargetKind {
        TargetKind::MeanEstimator
    }
    fn privacy(&self) -> PrivacyModel {
        self.privacy
    }
    fn release(&self) -> String {
        format!(
            "heavydp mean --estimator {} (params {}) of {} records in R^{}",
            self.pinned.name,
            self.pinned.params_text(),
            self.n,
            self.d
        )
    }
    fn neighbours(&self) -> String {
        format!(
            "D: {} records 0 and record 1 = -{}·(1, ..., 1); D': record 1 = +{}·(1, ..., 1)",
            self.n - 1,
            self.a,
            self.a
        )
    }
    fn statistic(&self) -> String {
        format!("coordinate {} of the released mean", self.coordinate + 1)
    }
    fn defect(&self) -> String {
        factor_defect("the estimator", self.pinned.broken_factor, "noise scale")
    }
    fn trials(&self) -> Trials {
        self.pinned.trials
    }
    fn prepare(&self, claim: &Budget, broken: bool) -> Result<RunFn, AuditError> {
        use crate::estimators::private_mean::private_mean;
        let pinned = self.pinned.clone();
        let (budget, params) = (pinned.budget(claim, broken)?, pinned.param_map());
        let (d, n) = (self.d, self.n);
        let (x, xp) = replace_first(n, d, 0.0, &vec![-self.a; d], &vec![self.a; d]);
        // Validate once, before any trial (a seeded dry run on D).
        let mut dry_run = crate::noise::rng_from_seed(0);
        private_mean(pinned.name, &x, n, d, budget, &params, &mut dry_run)
            .map_err(|e| pinned.err(e))?;
        let j = self.coordinate;
        Ok(on_pair(x, xp, move |data, rng| {
            let r = private_mean(pinned.name, data, n, d, budget, &params, rng)
                .map_err(|e| pinned.err(e))?;
            Ok(r.mean[j])
        }))
    }
}

/// The mean-estimator targets other than `catoni`: n = 20 records in ℝ², coordinate 1
/// released. One row each: estimator, pinned parameters, the outlier a, the privacy
/// model and the twin's factor c.
pub fn mean_targets() -> Vec<MeanTarget> {
    fn row(
        estimator: &'static str,
        params: &[(&'static str, &str)],
        a: f64,
        privacy: PrivacyModel,
        broken_factor: f64,
    ) -> MeanTarget {
        MeanTarget {
            pinned: Pinned::new(estimator, params, broken_factor, ROW_TRIALS),
            n: 20,
            d: 2,
            a,
            coordinate: 0,
            privacy,
        }
    }
    use PrivacyModel::{Approx, Zcdp};
    vec![
        row("clip", &[("R", "1")], 1e3, Zcdp, 16.0),
        row(
            "iterative-updating",
            &[("R", "1"), ("k", "2"), ("t_c", "2")],
            1e3,
            Approx,
            16.0,
        ),
        row(
            "sparse-peeling",
            &[("s", "1"), ("k", "1")],
            1e15,
            Approx,
            64.0,
        ),
    ]
}

// ---------------------------------------------------------------------- algorithms

/// The scalar statistic of an algorithm's weights.
#[derive(Debug, Clone, PartialEq)]
pub enum WeightStatistic {
    /// w_j (0-based j).
    Coordinate(usize),
    /// ⟨u, w⟩.
    Projection(Vec<f64>),
    /// The intercept the algorithm fitted jointly ([`algorithms::FitReport::intercept`];
    /// 0 when none).
    Intercept,
}

impl WeightStatistic {
    fn eval(&self, report: &algorithms::FitReport) -> f64 {
        let w = &report.weights;
        match self {
            WeightStatistic::Coordinate(j) => w[*j],
            WeightStatistic::Projection(u) => u.iter().zip(w).map(|(a, b)| a * b).sum(),
            WeightStatistic::Intercept => report.intercept.unwrap_or(0.0),
        }
    }
    fn describe(&self) -> String {
        match self {
            WeightStatistic::Coordinate(j) => format!("weight coordinate w_{}", j + 1),
            WeightStatistic::Projection(u) => format!("projection <u, w> with u = {u:?}"),
            WeightStatistic::Intercept => "the jointly fitted intercept".into(),
        }
    }
}

/// A neighbouring pair of datasets with a description.
#[derive(Debug, Clone)]
pub struct NeighbourPair {
    pub d: Dataset,
    pub d_prime: Dataset,
    pub description: String,
}

/// n records: n − 1 neutral records (x = 0, y = 0: zero gradient for every loss in
/// residual form, so the released weights depend on the data only through record 1)
/// and record 1 = (x = (a, …, a), y = b) in D, (x = (a, …, a), y = −b) in D′: its
/// gradient changes sign at every w. For a bounded algorithm a = b = B (the response
/// moves to the opposite end of the clipping range); for a heavy-tailed one b is a huge
/// outlier of either sign, whose influence the robust estimator, the shrinkage or the
/// clipping must bound.
pub fn canary_pair(n: usize, d: usize, a: f64, b: f64) -> NeighbourPair {
    first_record_pair(n, d, a, 0.0, [b, -b])
}

/// n labelled records for the logistic loss: n − 1 records x = 0, y = −1 and record 1
/// with x = (1, …, 1), y = +1 in D and y = −1 in D′ (its loss derivative moves by 1 at
/// every margin).
pub fn logistic_canary_pair(n: usize, d: usize) -> NeighbourPair {
    first_record_pair(n, d, 1.0, -1.0, [1.0, -1.0])
}

/// n records: n − 1 records x = 0, y = `rest`, and record 1 with x = (a, …, a) and
/// y = `first[0]` in D, `first[1]` in D′.
fn first_record_pair(n: usize, d: usize, a: f64, rest: f64, first: [f64; 2]) -> NeighbourPair {
    let mut x = vec![0.0; n * d];
    x[..d].iter_mut().for_each(|v| *v = a);
    let side = |y1: f64| {
        let mut y = vec![rest; n];
        y[0] = y1;
        Dataset::from_rows(x.clone(), y, d).expect("finite")
    };
    NeighbourPair {
        d: side(first[0]),
        d_prime: side(first[1]),
        description: format!(
            "{n} records in R^{d}: {} records x = 0, y = {rest} and record 1 with x = ({a}, ..., {a}), y = {} in D and y = {} in D'",
            n - 1,
            first[0],
            first[1]
        ),
    }
}

/// A generic target for a registered private algorithm (see the module docs of
/// [`crate::audit`] for how to add one).
pub struct AlgorithmTarget {
    /// The target's name: the algorithm's, or a variant's (`clipped-gd-intercept`).
    pub name: &'static str,
    /// The `--algorithm` name ([`algorithms::build`]), its pinned parameters, the twin's
    /// factor c and the trials.
    pub pinned: Pinned,
    pub loss: LossKind,
    pub domain: DomainSpec,
    pub pair: NeighbourPair,
    pub statistic: WeightStatistic,
}

impl TargetSpec for AlgorithmTarget {
    fn name(&self) -> &'static str {
        self.name
    }
    fn kind(&self) -> TargetKind {
        TargetKind::Algorithm
    }
    fn privacy(&self) -> PrivacyModel {
        let info = algorithms::catalogue();
        match info
            .iter()
            .find(|a| a.name == self.pinned.name)
            .map(|a| a.privacy)
        {
            Some("pure") => PrivacyModel::Pure,
            Some("zcdp") => PrivacyModel::Zcdp,
            _ => PrivacyModel::Approx,
        }
    }
    fn release(&self) -> String {
        format!(
            "{} fit (loss {}, domain {}, params {}) on n = {}, d = {}",
            self.pinned.name,
            self.loss.name(),
            self.domain.name(),
            self.pinned.params_text(),
            self.pair.d.n(),
            self.pair.d.d()
        )
    }
    fn neighbours(&self) -> String {
        self.pair.description.clone()
    }
    fn statistic(&self) -> String {
        self.statistic.describe()
    }
    fn defect(&self) -> String {
        let c = self.pinned.broken_factor;
        if c.is_infinite() {
            "noise removed: the fit runs at epsilon = infinity (every noise draw skipped) while claiming epsilon".into()
        } else {
            factor_defect("the fit", c, "every noise scale")
        }
    }
    fn trials(&self) -> Trials {
        self.pinned.trials
    }
    fn prepare(&self, claim: &Budget, broken: bool) -> Result<RunFn, AuditError> {
        let pinned = self.pinned.clone();
        let (name, budget, params) = (
            pinned.name,
            pinned.budget(claim, broken)?,
            pinned.param_map(),
        );
        // Build and validate once, before any trial.
        let alg = algorithms::build(name, &params).map_err(|e| pinned.err(e))?;
        let domain = Arc::new(
            self.domain
                .build(self.pair.d.d())
                .map_err(|e| pinned.err(e))?,
        );
        let loss = self.loss;
        for data in [&self.pair.d, &self.pair.d_prime] {
            let problem = Problem {
                data,
                loss,
                domain: domain.as_ref().as_ref(),
            };
            alg.validate(&problem, &budget).map_err(|e| pinned.err(e))?;
        }
        let (d, dp) = (
            Arc::new(self.pair.d.clone()),
            Arc::new(self.pair.d_prime.clone()),
        );
        let statistic = self.statistic.clone();
        Ok(Box::new(move |side: Neighbour, rng: &mut HeavyRng| {
            let alg = algorithms::build(name, &params).map_err(|e| pinned.err(e))?;
            let problem = Problem {
                data: side.pick(d.as_ref(), dp.as_ref()),
                loss,
                domain: domain.as_ref().as_ref(),
            };
            let report = alg
                .fit(&problem, budget, rng, &mut NoObserver)
                .map_err(|e| pinned.err(e))?;
            Ok(statistic.eval(&report))
        }))
    }
}

/// The trial counts of every algorithm target.
const ALGORITHM_TRIALS: Trials = Trials {
    test: 20_000,
    cli: 100_000,
};

/// An algorithm target on [`canary_pair`]`(20, d, 1, b)` with the statistic ⟨(1, …, 1), w⟩.
fn algorithm_row(
    algorithm: &'static str,
    params: &[(&'static str, &str)],
    loss: LossKind,
    domain: &DomainSpec,
    d: usize,
    b: f64,
    broken_factor: f64,
) -> AlgorithmTarget {
    AlgorithmTarget {
        name: algorithm,
        pinned: Pinned::new(algorithm, params, broken_factor, ALGORITHM_TRIALS),
        loss,
        domain: domain.clone(),
        pair: canary_pair(20, d, 1.0, b),
        statistic: WeightStatistic::Projection(vec![1.0; d]),
    }
}

/// The algorithm targets: every algorithm of [`algorithms::catalogue`] whose privacy is
/// not `none`. One row each: name, pinned parameters, loss, domain, d, the canary's
/// response b and the twin's factor c (the table of the module docs).
pub fn algorithm_targets() -> Vec<AlgorithmTarget> {
    use LossKind::{Absolute, Squared};
    let huber = LossKind::Huber { tau: 1.0 };
    let sparse = DomainSpec::Sparse { s: 1, radius: 1.0 };
    let l1 = DomainSpec::L1Ball { radius: 1.0 };
    let l2 = DomainSpec::L2Ball { radius: 1.0 };
    let free = DomainSpec::Unconstrained;
    let (bound, t2, t3) = (("bound", "1"), (key::T, "2"), (key::T, "3"));
    let iht = |k: &'static str, v| [t2, (k, v), ("s", "1"), ("eta", "0.5")];
    let gd = [t2, ("R", "1"), ("lr", "0.5")];
    vec![
        algorithm_row("dp-frank-wolfe", &[bound, t3], Squared, &l1, 2, 1.0, 32.0),
        algorithm_row(
            "dp-frank-wolfe-gaussian",
            &[bound, t3],
            Squared,
            &l1,
            2,
            1.0,
            128.0,
        ),
        algorithm_row(
            "noisy-mirror-descent",
            &[bound, t3],
            Squared,
            &l2,
            2,
            1.0,
            128.0,
        ),
        algorithm_row(
            "objective-perturbation",
            &[bound],
            Squared,
            &l2,
            2,
            1.0,
            64.0,
        ),
        algorithm_row(
            "ht-frank-wolfe",
            &[t2, ("s", "1.5")],
            Squared,
            &l1,
            2,
            1e3,
            16.0,
        ),
        algorithm_row("ht-lasso", &[t3, ("K", "2")], Squared, &l1, 2, 1e3, 256.0),
        algorithm_row(
            "ht-sparse-linreg",
            &iht("K", "2"),
            Squared,
            &sparse,
            3,
            1e3,
            128.0,
        ),
        algorithm_row(
            "ht-sparse-opt",
            &iht("k", "2"),
            Squared,
            &sparse,
            3,
            1e3,
            64.0,
        ),
        algorithm_row("dp-iht-huber", &iht("K", "1"), huber, &sparse, 3, 1e3, 32.0),
        algorithm_row("dp-iht-l1", &iht("K", "1"), Absolute, &sparse, 3, 1e3, 32.0),
        algorithm_row("clipped-gd", &gd, Squared, &l2, 2, 1e3, 32.0),
        // the intercept clipped-gd fits jointly for the logistic loss (intercept=fit):
        // record 1's label flips, its intercept coordinate's gradient with it
        AlgorithmTarget {
            name: "clipped-gd-intercept",
            pair: logistic_canary_pair(20, 2),
            statistic: WeightStatistic::Intercept,
            ..algorithm_row(
                "clipped-gd",
                &[gd[0], gd[1], gd[2], ("intercept", "fit")],
                LossKind::Logistic,
                &l2,
                2,
                1.0,
                32.0,
            )
        },
        algorithm_row(
            "iterative-updating-gd",
            &[gd[0], gd[1], gd[2], ("k", "2"), ("t_c", "2")],
            Squared,
            &l2,
            2,
            1e3,
            32.0,
        ),
        AlgorithmTarget {
            statistic: WeightStatistic::Coordinate(0),
            ..algorithm_row(
                "l1-regression-expmech",
                &[("iota", "1"), ("max_candidates", "64")],
                Absolute,
                &l2,
                1,
                1.0,
                4.0,
            )
        },
        // Only the response of record 1 moves (+1 → −1): Xᵀy moves by its full
        // replace-one sensitivity 2·B_X·B_Y = 2√2; λ_min and XᵀX are equal on D and D′.
        algorithm_row("adassp", &[bound], Squared, &free, 2, 1.0, 16.0),
        algorithm_row(
            "dp-slr",
            &[bound, t2, ("s", "1"), ("eta", "0.5")],
            Squared,
            &sparse,
            3,
            1.0,
            64.0,
        ),
    ]
}

/// Every target's spec: the table [`ROWS`], the mean estimators, the algorithms.
pub fn specs() -> Vec<Arc<dyn TargetSpec>> {
    let rows = ROWS.iter().map(|r| Arc::new(*r) as Arc<dyn TargetSpec>);
    let means = mean_targets()
        .into_iter()
        .map(|m| Arc::new(m) as Arc<dyn TargetSpec>);
    let algs = algorithm_targets()
        .into_iter()
        .map(|a| Arc::new(a) as Arc<dyn TargetSpec>);
    rows.chain(means).chain(algs).collect()
}

/// Every target: each spec's real target followed by its broken twin.
pub fn targets() -> Vec<Target> {
    specs()
        .into_iter()
        .flat_map(|s| [Target::real(s.clone()), Target::broken(s)])
        .collect()
}

/// The target called `name` (`NAME` or `NAME-broken`).
pub fn target(name: &str) -> Result<Target, AuditError> {
    targets()
        .into_iter()
        .find(|t| t.name() == name)
        .ok_or_else(|| AuditError::UnknownTarget(name.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimators::catoni::PHI_BOUND;
    use crate::noise::rng_from_seed;

    fn claim(e: f64, d: f64) -> Budget {
        Budget::new(e, d).unwrap()
    }

    #[test]
    fn mechanism_pairs_attain_their_sensitivity_exactly() {
        // laplace: |q − q′| = Δ₁ = 1
        let (d, dp) = replace_first(10, 1, 0.0, &[0.0], &[1.0]);
        assert_eq!(column_sums(&dp, 1)[0] - column_sums(&d, 1)[0], 1.0);
        // gaussian: ‖q − q′‖₂ = √2 = Δ₂ of records in [0, 1]²
        let (d, dp) = replace_first(10, 2, 0.0, &[0.0, 0.0], &[1.0, 1.0]);
        let diff: f64 = column_sums(&dp, 2)
            .iter()
            .zip(column_sums(&d, 2))
            .map(|(a, b)| (a - b) * (a - b))
            .sum();
        assert_eq!(diff.sqrt(), 2f64.sqrt());
        // exponential / report-noisy-min: every score moves by exactly 1, in opposite
        // directions for candidate 1 and the rest
        let (u, up) = opposed_scores();
        assert_eq!(u[0] - up[0], 1.0);
        assert!(u[1..].iter().zip(&up[1..]).all(|(a, b)| b - a == 1.0));
    }

    #[test]
    fn laplace_twin_has_exactly_half_the_noise() {
        let real = laplace(&claim(0.7, 0.0), false).unwrap();
        let twin = laplace(&claim(0.7, 0.0), true).unwrap();
        for seed in 0..20 {
            let a = real(Neighbour::D, &mut rng_from_seed(seed)).unwrap();
            let b = twin(Neighbour::D, &mut rng_from_seed(seed)).unwrap();
            assert!((a - 2.0 * b).abs() < 1e-12, "{a} vs {b}");
            let a = real(Neighbour::DPrime, &mut rng_from_seed(seed)).unwrap();
            let b = twin(Neighbour::DPrime, &mut rng_from_seed(seed)).unwrap();
            assert!(((a - 1.0) - 2.0 * (b - 1.0)).abs() < 1e-12);
        }
    }

    #[test]
    fn skipped_draw_twins_release_the_exact_value() {
        let g = gaussian(&claim(1.0, 1e-5), true).unwrap();
        let c = catoni(&claim(1.0, 0.0), true).unwrap();
        let mut rng = rng_from_seed(3);
        assert_eq!(g(Neighbour::D, &mut rng).unwrap(), 0.0);
        assert_eq!(g(Neighbour::DPrime, &mut rng).unwrap(), 1.0);
        let (c0, c1) = (
            c(Neighbour::D, &mut rng).unwrap(),
            c(Neighbour::DPrime, &mut rng).unwrap(),
        );
        assert_eq!(c0, -c1, "the catoni pair is symmetric");
        assert!(c1 > 0.0);
        // Real: the Gaussian noise has σ = √2/√(2ρ), ρ from the (ε, δ) conversion.
        let real = gaussian(&claim(1.0, 1e-5), false).unwrap();
        let n = 20_000;
        let mut rng = rng_from_seed(4);
        let var = (0..n)
            .map(|_| real(Neighbour::D, &mut rng).unwrap().powi(2))
            .sum::<f64>()
            / n as f64;
        let rho = approx_to_zcdp_rho(calibration_target(1.0), 1e-5);
        let sigma2 = 2.0 / (2.0 * rho);
        assert!((var / sigma2 - 1.0).abs() < 0.05, "{var} vs {sigma2}");
        // Peeling twin: coordinate 1's value is exactly v₁ = 1 whenever it is selected.
        let p = peeling(&claim(1.0, 1e-5), true).unwrap();
        let mut rng = rng_from_seed(5);
        for _ in 0..200 {
            let t = p(Neighbour::D, &mut rng).unwrap();
            assert!(t == 0.0 || t == 1.0);
            assert_eq!(p(Neighbour::DPrime, &mut rng).unwrap(), 0.0);
        }
    }

    #[test]
    fn catoni_target_follows_spec_a5() {
        let (n, d, eps) = (CATONI_N, CATONI_D, 0.8);
        let m = CatoniMean::new(n, d, eps).unwrap();
        let k = (3.0 * n as f64 * eps * 2.0 / (8.0 * 2f64.sqrt() * d as f64)).sqrt();
        assert!((m.est.scale - k).abs() < 1e-12);
        let b = d as f64 * 4.0 * 2f64.sqrt() * k / (3.0 * n as f64 * eps);
        assert!((m.lap.scale - b).abs() < 1e-12 * b);
        // a* maximises one record's contribution: at least the |a| → ∞ limit, within the
        // bound 2√2/3 of the sensitivity proof.
        let a = m.worst_value();
        let best = psi_gradient(a, k, 1.0);
        assert!(best >= psi_gradient(1e12, k, 1.0) && best <= PHI_BOUND);
        for f in [0.5, 0.9, 1.1, 2.0] {
            assert!(psi_gradient(a * f, k, 1.0) <= best);
        }
        // The pair moves each coordinate by 2·(k/n)·Ψ(a*) ≤ the ℓ∞ sensitivity 4√2k/(3n).
        let move_per_coord = 2.0 * k / n as f64 * best;
        assert!(move_per_coord <= m.est.sensitivity_inf(n));
    }

    #[test]
    fn table_rows_state_their_twin_and_names_are_unique() {
        // The 16·ε twins' defect strings say the factor they run at.
        for name in ["dp-quantile", "intercept-logistic"] {
            let row = ROWS.iter().find(|r| r.name == name).unwrap();
            let said = format!("run at {PREPROCESS_TWIN_FACTOR} x epsilon");
            assert!(row.defect.contains(&said), "{name}: {}", row.defect);
        }
        let mut names: Vec<&str> = specs().iter().map(|s| s.name()).collect();
        let all = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all, "a target name appears twice");
    }

    #[test]
    fn canary_pair_differs_in_one_record() {
        let p = canary_pair(12, 3, 1.0, 5.0);
        assert_eq!((p.d.n(), p.d.d()), (12, 3));
        assert_eq!(p.d.x(), p.d_prime.x());
        let diff: Vec<usize> = (0..12)
            .filter(|&i| p.d.y()[i] != p.d_prime.y()[i])
            .collect();
        assert_eq!(diff, vec![0]);
        assert_eq!((p.d.y()[0], p.d_prime.y()[0]), (5.0, -5.0));
        assert!(p.d.row(0).iter().all(|&v| v == 1.0));
        assert!(p.d.x()[3..].iter().all(|&v| v == 0.0));
    }

    #[test]
    fn every_private_algorithm_has_a_target_and_the_privacy_model_is_the_catalogues() {
        let names: Vec<&str> = algorithm_targets().iter().map(|a| a.pinned.name).collect();
        for a in algorithms::catalogue() {
            assert_eq!(
                names.contains(&a.name),
                a.privacy != "none",
                "{} ({})",
                a.name,
                a.privacy
            );
        }
        for t in algorithm_targets() {
            assert_eq!(t.privacy().as_str(), {
                let c = algorithms::catalogue();
                c.iter().find(|a| a.name == t.pinned.name).unwrap().privacy
            });
            assert!(t.pinned.broken_factor > 1.0);
        }
    }

    #[test]
    fn algorithm_twin_runs_at_c_times_epsilon() {
        // The twin's weights equal a plain fit at c·ε with the same generator.
        let t = algorithm_targets()
            .into_iter()
            .find(|a| a.pinned.name == "dp-iht-huber")
            .unwrap();
        let c = t.pinned.broken_factor;
        let twin = t.prepare(&claim(0.5, 1e-5), true).unwrap();
        let alg = algorithms::build("dp-iht-huber", &t.pinned.param_map()).unwrap();
        let dom = t.domain.build(3).unwrap();
        let problem = Problem {
            data: &t.pair.d,
            loss: t.loss,
            domain: dom.as_ref(),
        };
        for seed in 0..5 {
            let w = alg
                .fit(
                    &problem,
                    Budget::new(0.5 * c, 1e-5).unwrap(),
                    &mut rng_from_seed(seed),
                    &mut NoObserver,
                )
                .unwrap()
                .weights;
            let stat = twin(Neighbour::D, &mut rng_from_seed(seed)).unwrap();
            assert_eq!(stat, w.iter().sum::<f64>());
        }
    }

    #[test]
    fn bad_algorithm_targets_fail_before_any_trial() {
        let mut t = algorithm_targets().remove(0);
        t.pinned.params.push(("no_such_parameter", "1".into()));
        let err = t.prepare(&claim(1.0, 1e-5), false).err().unwrap();
        assert!(err.to_string().contains("no_such_parameter"), "{err}");
        let mut t = algorithm_targets().remove(0);
        t.domain = DomainSpec::Sparse { s: 1, radius: 1.0 };
        let err = t.prepare(&claim(1.0, 1e-5), false).err().unwrap();
        assert!(err.to_string().contains("dp-frank-wolfe"), "{err}");
    }
}
