//! Empirical privacy audits: a statistical *lower bound* on the ε a mechanism or
//! algorithm really spends, from many seeded runs on a fixed pair of neighbouring
//! datasets (`heavydp audit`).
//!
//! # What an audit does
//!
//! A [`Target`] fixes
//!
//! 1. a **neighbouring pair** D, D′ that differ in one record replaced (n public), chosen
//!    to be a worst case for the target: the record moves to the opposite corner of the
//!    clipping range, or becomes the outlier that maximises the robust estimator's
//!    influence;
//! 2. a **run function**: a seeded ChaCha20 generator → one private release on D or D′ →
//!    one real-valued **statistic** of it, chosen per target to separate D from D′ (the
//!    released value, a coordinate, the selected index, a projection of the weights);
//! 3. the **claimed** budget (ε, δ) from the user's `--epsilon` / `--delta` (pure targets:
//!    δ = 0 unless given; (ε, δ) targets: δ = [`DEFAULT_DELTA`] unless given; the zCDP
//!    Gaussian mechanism is calibrated to, and audited at, its (ε, δ) conversion).
//!
//! [`run_audit`] runs the target `trials` times on D and `trials` times on D′ (in
//! parallel with rayon; trial i on side s uses the generator seeded with
//! [`derive_seed`]`(seed, [name, "D" | "D'", i])`, so the result does not depend on the
//! number of threads), and applies the split-sample threshold test of [`stats`]:
//! the first 30 % ([`SELECTION_FRACTION`]) of the trials of each side choose one event
//! S = {T > t} or {T ≤ t} (over every threshold t, both directions and both orderings of
//! D and D′), the other 70 % give one-sided Clopper–Pearson bounds p_lo(S|P) and
//! p_hi(S|Q) at α/2 = 2.5 % each, and
//!
//! ```text
//! epsilon_lower_bound = ln((p_lo(S|P) − δ) / p_hi(S|Q))     (≥ 0)
//! hockey_stick_lower_bound = max(0, p_lo(S|P) − e^ε · p_hi(S|Q))
//! passed = epsilon_lower_bound ≤ ε claimed      (equivalently: hockey-stick bound ≤ δ)
//! ```
//!
//! With probability at least 95 % over the trials, a target that is (ε, δ)-DP passes.
//! The threshold is chosen on trials that the bound never sees, which is what makes the
//! data-driven choice sound (no Bonferroni correction is needed).
//!
//! **What a result means.** The bound is a *lower* bound: a failure is statistical
//! evidence (at 95 %) that the implementation does not meet its claim on this pair of
//! datasets — a bug. A pass is not a proof of privacy: the statistic, the pair and the
//! number of trials limit what can be detected, and the algorithms' composition
//! theorems are far from tight on tiny data, so the real algorithms' bounds are
//! usually much smaller than ε.
//!
//! # Broken twins
//!
//! Every target `NAME` has a twin `NAME-broken`, built by the same code with one defect
//! injected **here in the audit module** (the mechanisms and algorithms are not
//! modified) while still claiming the user's (ε, δ). The audit must flag every twin:
//!
//! | defect | used for |
//! |---|---|
//! | sensitivity halved (the mechanism is built with Δ/2: half the noise) | `laplace`, `exponential`, `report-noisy-min` |
//! | one noise draw skipped (the audited coordinate / the released values are exact) | `gaussian`, `peeling`, `catoni` |
//! | algorithm run at c·ε (every noise scale divided by ≈ c; c = ∞ removes the noise) with all hyperparameters pinned | every algorithm (c per target in [`targets::algorithm_targets`]) |
//!
//! # Adding a target for a new algorithm
//!
//! An algorithm registered in [`crate::algorithms::build`] gets a target from one row of
//! the table in [`targets::algorithm_targets`]: its name, the pinned `--param` values (T
//! and every scale that would otherwise depend on ε, so that the twin changes only the
//! noise), loss, domain, the dimension d and the response b of the neighbouring pair
//! [`targets::canary_pair`]`(20, d, 1, b)` (n − 1 neutral records x = 0, y = 0 and one
//! record whose response is +b in D and −b in D′, with b = B for a bounded algorithm and
//! a huge outlier for a heavy-tailed one), and the broken factor c; the statistic is the
//! projection ⟨(1, …, 1), w⟩ (a row overrides it, or the pair, with struct-update syntax
//! as `l1-regression-expmech` does). For example, the row of `clipped-gd` (zCDP, audited
//! at its (ε, δ) conversion) is
//!
//! ```text
//! algorithm_row("clipped-gd", &[("T", "2"), ("R", "1"), ("lr", "0.5")], Squared, &l2, 2, 1e3, 32.0),
//! ```
//!
//! The privacy model is read from [`crate::algorithms::catalogue`]. Then `cargo test
//! --test integration audit::` checks that the real target passes and the twin is caught (the test
//! covers every target of [`targets()`]); if the twin is not caught, raise c (up to
//! `f64::INFINITY`, the noise-free run), or use a pair / statistic that the algorithm's
//! noise protects less well (fewer iterations, T = 2). The ignored test
//! `calibration_table` of `tests/audit.rs` prints the bound of the twin for several c.
//! A new estimator of [`crate::estimators::private_mean`] is one row of
//! [`targets::mean_targets`] (estimator, pinned parameters, outlier, privacy model, c).
//! A mechanism or a release built from its own pieces (like `catoni`) is one row of the
//! table [`targets::ROWS`]: its `--list` strings and a constructor that builds the
//! mechanism on a fixed pair and injects the twin's defect (a halved sensitivity, a
//! skipped noise draw or a larger ε). `docs/privacy.md` lists every target with its
//! theorem.

pub mod stats;
pub mod targets;

use crate::noise::{derive_seed, rng_from_seed, HeavyRng};
use crate::privacy::{Budget, PrivacyModel};
use rayon::prelude::*;
use serde::Serialize;
use std::sync::Arc;
use thiserror::Error;

pub use stats::{Event, ThresholdTest};
pub use targets::{target, targets, AlgorithmTarget, Pinned, TargetSpec, Trials, WeightStatistic};

/// Confidence of the lower bound.
pub const CONFIDENCE: f64 = 0.95;

/// δ claimed for (ε, δ) and zCDP targets when `--delta` is not given.
pub const DEFAULT_DELTA: f64 = 1e-5;

/// Fraction of the trials (of each side) used to choose the event; the rest bound it.
pub const SELECTION_FRACTION: f64 = 0.3;

/// Errors of the audit. Messages name targets and flags (the audit data are public,
/// built-in synthetic pairs).
#[derive(Debug, Error, Clone, PartialEq)]
pub enum AuditError {
    #[error("unknown audit target '{0}' (run `heavydp audit --list` for the list)")]
    UnknownTarget(String),
    #[error("--epsilon must be a finite number > 0 for an audit; got {0}")]
    InvalidEpsilon(f64),
    #[error("--delta must be in [0, 1); got {0}")]
    InvalidDelta(f64),
    #[error("target '{target}' is {model}: it needs --delta > 0 (the default is {default:e})")]
    DeltaRequired {
        target: String,
        model: &'static str,
        default: f64,
    },
    #[error("--trials must be at least 2 (a part of the trials chooses the event, the rest bounds it); got {0}")]
    TooFewTrials(usize),
    #[error("target '{target}': {reason}")]
    Setup { target: String, reason: String },
}

/// Which dataset of the neighbouring pair a trial runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Neighbour {
    /// The first dataset, D.
    #[serde(rename = "D")]
    D,
    /// Its neighbour D′ (one record replaced).
    #[serde(rename = "D'")]
    DPrime,
}

impl Neighbour {
    /// The label used in seeds and reports: `D` or `D'`.
    pub fn label(self) -> &'static str {
        match self {
            Neighbour::D => "D",
            Neighbour::DPrime => "D'",
        }
    }
    /// `d` on the side D, `d_prime` on the side D′.
    pub fn pick<'a, T: ?Sized>(self, d: &'a T, d_prime: &'a T) -> &'a T {
        match self {
            Neighbour::D => d,
            Neighbour::DPrime => d_prime,
        }
    }
}

/// One trial: a seeded generator and a side of the pair → the statistic of one release.
pub type RunFn = Box<dyn Fn(Neighbour, &mut HeavyRng) -> Result<f64, AuditError> + Send + Sync>;

/// What kind of thing a target audits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TargetKind {
    Mechanism,
    MeanEstimator,
    Algorithm,
}

/// An audit target: a [`TargetSpec`] and whether the defect is injected (`NAME-broken`).
#[derive(Clone)]
pub struct Target {
    spec: Arc<dyn TargetSpec>,
    broken: bool,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target")
            .field("name", &self.name())
            .finish()
    }
}

impl Target {
    /// The real target of a spec.
    pub fn real(spec: Arc<dyn TargetSpec>) -> Self {
        Target {
            spec,
            broken: false,
        }
    }
    /// The broken twin of a spec.
    pub fn broken(spec: Arc<dyn TargetSpec>) -> Self {
        Target { spec, broken: true }
    }
    /// `NAME` or `NAME-broken`.
    pub fn name(&self) -> String {
        if self.broken {
            format!("{}-broken", self.spec.name())
        } else {
            self.spec.name().to_string()
        }
    }
    /// The spec's base name (the mechanism / algorithm name).
    pub fn base_name(&self) -> &'static str {
        self.spec.name()
    }
    /// Whether this is the broken twin.
    pub fn is_broken(&self) -> bool {
        self.broken
    }
    /// The spec.
    pub fn spec(&self) -> &dyn TargetSpec {
        self.spec.as_ref()
    }
    /// The claimed budget from the user's flags: ε finite > 0; δ ∈ [0, 1), defaulting to
    /// 0 for pure targets and [`DEFAULT_DELTA`] otherwise; (ε, δ) and zCDP targets need
    /// δ > 0.
    pub fn claim(&self, epsilon: f64, delta: Option<f64>) -> Result<Budget, AuditError> {
        if !(epsilon.is_finite() && epsilon > 0.0) {
            return Err(AuditError::InvalidEpsilon(epsilon));
        }
        let model = self.spec.privacy();
        let delta = match delta {
            Some(d) => d,
            None if model == PrivacyModel::Pure => 0.0,
            None => DEFAULT_DELTA,
        };
        if !(delta.is_finite() && (0.0..1.0).contains(&delta)) {
            return Err(AuditError::InvalidDelta(delta));
        }
        if model != PrivacyModel::Pure && delta == 0.0 {
            return Err(AuditError::DeltaRequired {
                target: self.name(),
                model: if model == PrivacyModel::Zcdp {
                    "zCDP, audited at its (epsilon, delta) conversion"
                } else {
                    "(epsilon, delta)-DP"
                },
                default: DEFAULT_DELTA,
            });
        }
        Budget::new(epsilon, delta).map_err(|e| AuditError::Setup {
            target: self.name(),
            reason: e.to_string(),
        })
    }
    /// The trial count `heavydp audit` uses when `--trials` is not given.
    pub fn default_trials(&self) -> usize {
        self.spec.trials().cli
    }
    /// The trial count of the default test suite.
    pub fn test_trials(&self) -> usize {
        self.spec.trials().test
    }
    /// The defect of the twin (`None` for the real target).
    pub fn defect(&self) -> Option<String> {
        self.broken.then(|| self.spec.defect())
    }
    /// A row of `heavydp audit --list`.
    pub fn listing(&self) -> TargetListing {
        TargetListing {
            name: self.name(),
            kind: self.spec.kind(),
            privacy: self.spec.privacy().as_str(),
            release: self.spec.release(),
            neighbours: self.spec.neighbours(),
            statistic: self.spec.statistic(),
            defect: self.defect(),
            default_trials: self.default_trials(),
        }
    }
}

/// A row of `heavydp audit --list`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetListing {
    pub name: String,
    pub kind: TargetKind,
    pub privacy: &'static str,
    pub release: String,
    pub neighbours: String,
    pub statistic: String,
    pub defect: Option<String>,
    pub default_trials: usize,
}

/// The result of an audit (the JSON of `heavydp audit`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditReport {
    pub target: String,
    pub epsilon_claimed: f64,
    pub delta_claimed: f64,
    /// One-sided 95 % Clopper–Pearson lower bound on the ε the target spends.
    pub epsilon_lower_bound: f64,
    /// Lower bound on the hockey-stick divergence H_{e^ε}(P‖Q) at the claimed ε (to
    /// compare with δ).
    pub hockey_stick_lower_bound: f64,
    /// Trials per dataset (the target ran `2 · trials` times).
    pub trials: usize,
    /// `epsilon_lower_bound <= epsilon_claimed`.
    pub passed: bool,
    pub confidence: f64,
    pub seed: u64,
    pub privacy: &'static str,
    pub kind: TargetKind,
    pub defect: Option<String>,
    pub neighbours: String,
    pub statistic: String,
    pub method: &'static str,
    /// The chosen event and its counts.
    pub test: ThresholdTest,
}

const METHOD: &str = "split-sample threshold test: the event {statistic > t} or {statistic <= t} (both orderings of D, D') is chosen on the first 30% of the trials of each side by a Wilson score (z = 4); one-sided Clopper-Pearson bounds at 2.5% each on the other 70%";

/// Runs `trials` seeded runs of `target` on each of D and D′ and bounds ε from below.
/// Errors: invalid ε / δ / trials, or a target that cannot be built at this budget.
pub fn run_audit(
    target: &Target,
    epsilon: f64,
    delta: Option<f64>,
    trials: usize,
    seed: u64,
) -> Result<AuditReport, AuditError> {
    let claim = target.claim(epsilon, delta)?;
    if trials < 2 {
        return Err(AuditError::TooFewTrials(trials));
    }
    let run = target.spec.prepare(&claim, target.broken)?;
    let name = target.name();
    let sample = |side: Neighbour| -> Result<Vec<f64>, AuditError> {
        (0..trials)
            .into_par_iter()
            .map(|i| {
                let s = derive_seed(seed, &[&name, side.label(), &i.to_string()]);
                let mut rng = rng_from_seed(s);
                let t = run(side, &mut rng)?;
                if t.is_finite() {
                    Ok(t)
                } else {
                    Err(AuditError::Setup {
                        target: name.clone(),
                        reason: "the statistic of a run is not finite".into(),
                    })
                }
            })
            .collect()
    };
    let d = sample(Neighbour::D)?;
    let dp = sample(Neighbour::DPrime)?;
    let test = stats::threshold_test(
        &d,
        &dp,
        claim.epsilon,
        claim.delta,
        1.0 - CONFIDENCE,
        SELECTION_FRACTION,
    );
    Ok(AuditReport {
        target: name,
        epsilon_claimed: claim.epsilon,
        delta_claimed: claim.delta,
        epsilon_lower_bound: test.epsilon_lower_bound,
        hockey_stick_lower_bound: test.hockey_stick_lower_bound,
        trials,
        passed: test.epsilon_lower_bound <= claim.epsilon,
        confidence: CONFIDENCE,
        seed,
        privacy: target.spec.privacy().as_str(),
        kind: target.spec.kind(),
        defect: target.defect(),
        neighbours: target.spec.neighbours(),
        statistic: target.spec.statistic(),
        method: METHOD,
        test,
    })
}
