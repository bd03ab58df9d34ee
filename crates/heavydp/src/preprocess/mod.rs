//! Private preprocessing: per-column centres and scales, the intercept, data-free bounds.
//!
//! The algorithms of the five papers are calibrated for centred, unit-scale data (their
//! clip bounds, radii, τ, K and step sizes are constants or functions of n, d, ε, δ).
//! Real columns come in public units — dollars, minutes, counts — that are off by orders
//! of magnitude, and reading a scale from the data voids the guarantee. This module
//! learns what the algorithms need **under DP, charged to the same budget**:
//!
//! | step | release | mechanism | privacy | source |
//! |---|---|---|---|---|
//! | scales, binary gate ([`release_binary_gate`]), first | per feature, the count of values outside {0, 1}; a feature whose noisy count is below n/4 is *binary*: fixed map 0/1 → 0/4 ([`BINARY_SCALE`]) and none of the releases below | Gaussian (zCDP ledger; ℓ2 sensitivity √d, σ = (n/4)/√(2 ln(1/β))) or Laplace (basic; ℓ1 sensitivity d), β = [`GATE_FAILURE`]; runs only when it costs ≤ [`GATE_MAX_SHARE`] of the scaling budget ([`binary_gate`]) | ρ = d/(2σ²) or ε = d/b, charged first; the rest is split over the other features' and the target's releases ([`ScalingPlan::epsilons`]) | Bun & Steinke 2016 Prop. 1.6; Dwork & Roth Thm 3.6 |
//! | scales ([`private_scales`]), stage 1 | the median's order of magnitude O: the median of the signed octaves sign(x)·2^⌊log₂\|x\|⌋ on the 123-point grid {0, ±2⁻²⁰, …, ±2⁴⁰} | [`quantile::QuantileMechanism`] (exponential mechanism, Δ_u = 1) | ε₀-DP | McSherry & Talwar 2007 |
//! | scales, stage 1b | a centre c₀: the median of x snapped down to the 4097-point grid over [−4\|O\|, 4\|O\|] (spacing \|O\|/512) | the same | ε₀-DP | the same |
//! | scales, stage 2 | the spread magnitude M: the median of the octaves ⌊\|x − c₀\|⌋₂ (rounded down to a power of two; the MAD's octave) on the octave grid {0, 2⁻²⁰, …, 2⁴⁰} | the same | ε₀-DP | the same |
//! | scales, stage 2b, the target of a regression of n ≥ [`TARGET_MOMENT_MIN_ROWS`] rows ([`release_target_moment`]) | its winsorised second moment m = mean of min(1.5·o, K·M)² over the octaves o = ⌊\|y − c₀\|⌋₂ of stage 2 (K = [`TARGET_MOMENT_WINSOR`] = 16), released minus its noise's 0.9-level bound; the target's scale becomes max(IQR/1.349, √m̃) | Gaussian (zCDP ledger; Δ = (K·M)²/n, ρ = ε₀²/8: one quantile release's charge) or Laplace (basic; ε₀) | one more target release: R_t = 6 | Bun & Steinke 2016 Prop. 1.6; Dwork & Roth Thm 3.6 |
//! | scales, stage 3 | q₀.₂₅ and q₀.₇₅ of x − c₀ on the linear grid of 4097 points over [−4M, 4M] | the same | ε₀-DP each; the 5·d + R_t releases (R_t = 5 or 6 of the target) compose by zCDP, each charged as ε₀-bounded-range (ρ = Σ ε₀²/8, [`exponential_cost`], converted once at the phase's δ) or by basic composition, whichever allows the larger ε₀; a target release gets twice a feature release's ε₀ ([`scaling_epsilons`]) | Cesar & Rogers 2021 Lemma 3.2; Zhao et al. Lemma 1(4) |
//! | intercept ([`private_intercept`]), squared / Huber / biweight loss, scales known | clipped mean of the residuals ỹ − x̃·w̃ at ±C | Laplace, Δ₁ = 2C/n | ε-DP | Dwork & Roth Thm 3.6 |
//! | intercept, absolute loss or no scales | median of the residuals | [`quantile::QuantileMechanism`] | ε-DP | as above |
//! | intercept of the intercept-only regression, n·ε ≥ 186.4 ([`private_mean_intercept_of`]) | the responses' median m, the octave s of their MAD (and its 0.9-level octave for an atom at m), then their mean clipped to [m − c, m + c], c = 2·C·s | quantile mechanism ×3, Laplace Δ₁ = 2c/n | ε-DP (basic composition) | McSherry & Talwar 2007; Dwork & Roth Thm 3.6 |
//! | fit check ([`fit_check::private_fit_check`]), a regression with a model | b₀, the clipped mean of the scaled responses, then D = mean of min((ỹ − b₀)², 9) − min((ỹ − m − b̃)², 9); the model becomes (0, b₀) when D̃ < −3 Laplace scales | Laplace, Δ₁ = 2C_b/n and 18/n | ε-DP (two releases at ε/2) | Dwork & Roth Thm 3.6 |
//! | fit check ([`fit_check::private_logistic_fit_check`]), a logistic model | b₀, the logit of the private base rate, then D = mean of min(ℓ(b₀; y), L) − min(ℓ(m + b̃; y), L), ℓ the log-loss, L = 10·ln 2; the model becomes (0, b₀) when D̃ < −3 Laplace scales | Laplace, Δ₁ = 1 and 2L/n | ε-DP (two releases at ε/2) | Dwork & Roth Thm 3.6 |
//! | intercept, logistic loss (not `clipped-gd`'s `intercept=fit`, which fits it with the weights: `crate::algorithms::private_gd::JOINT_INTERCEPT_UNIT`) | root of Σᵢ (σ(mᵢ + b) − 1{yᵢ = 1}) on the public grid b ∈ [−8, 8] step 1/32 | exponential mechanism, utility −\|S(b)\|, Δ_u = 2 | ε-DP | McSherry & Talwar 2007 |
//!
//! Why stages: a quantile on one grid wide enough for every unit (10⁻⁶ … 10¹²) puts 10⁵
//! candidate points in the tails, and at the ε₀ of a few dozen releases (ε₀·n of a few
//! dozen) the tails then win often — above all for the quartiles, whose rank distance to
//! empty grid points is only n/4. Each stage therefore uses a grid sized to what is known:
//! the median's signed octave (123 points, data snapped to octaves: a row-wise public map
//! that puts the quantile exactly on a grid point), the centre c₀ on a 4097-point grid
//! over [−4|O|, 4|O|] (spacing |O|/512, fine enough for offset columns such as calendar
//! years or 50 000 ± 1 000; the median's rank distance n/2 keeps its tails negligible),
//! the spread's octave M around c₀ (the median of ⌊|x − c₀|⌋₂: the MAD's octave), and
//! the quartiles on a linear grid [−4M, 4M] around c₀, a few spreads wide, so that few
//! grid points lie beyond the data. Measured failure modes of simpler designs (docs,
//! benchmark): one wide grid — one column in three wild at ε₀·n ≈ 36; a coarse centre
//! grid — the spread then measured the centre's error and one target scale in ten was
//! 5× too large.
//!
//! The centre of a column is the midpoint of its private q₀.₂₅ and q₀.₇₅ (a median would
//! be a fourth release per column; the intercept absorbs what the midpoint misses); its
//! scale is the private IQR / 1.349 (the normal's σ) — for the target of a regression of
//! at least [`TARGET_MOMENT_MIN_ROWS`] rows the larger of that and the root of its
//! released winsorised second moment (a heavy-tailed target whose largest values carry
//! the signal is then not squeezed into a few IQRs: its large responses stay within the
//! algorithm's clip bounds; `docs/benchmark.md`, "Signal in the tails") — or 1
//! when the private IQR is 0 (a column with an atom at its centre, e.g. a rare dummy:
//! such columns are left in their units). Features and the target are standardised in
//! place, x̃ = (x − c)/s, the algorithm fits w̃ on (x̃, ỹ), and the model maps back:
//!
//! ```text
//! wⱼ = s_y·w̃ⱼ / sⱼ,     intercept = c_y + s_y·(b̃ − Σⱼ w̃ⱼ·cⱼ/sⱼ)
//! ```
//!
//! so that `predict` takes raw columns. For the logistic loss the target is not scaled
//! (c_y = 0, s_y = 1). Scaled features are winsorised at ±[`WINSOR_BOUND`] = 10 robust
//! standard deviations, and the model file keeps the raw-unit bounds cⱼ ± 10·sⱼ, which
//! `predict` applies to raw columns (the same map). The clamp bounds the damage of a
//! scale that collapsed on a discrete column (a dummy whose quartile sits on its atom,
//! where the exponential mechanism may pick a point of the adjacent gap).
//!
//! # Privacy
//!
//! Standardising with released (hence public) centres and scales is a fixed row-wise map,
//! so replace-one neighbours stay replace-one neighbours and the algorithm's guarantee
//! holds conditionally on the releases; the phases compose sequentially (adaptive basic
//! composition, [`crate::privacy::PhasedLedger`]). Nothing here reads a data value
//! outside a mechanism: the grid, the clip bound C and the budget split are functions of
//! n, d, ε, δ and the user's flags only.
//!
//! # Parameters
//!
//! | name | symbol | default | source |
//! |---|---|---|---|
//! | `--preprocess-share` | f | 0.2 (of ε and of δ) | real-data benchmark (`docs/benchmark.md`) |
//! | share of f for the intercept | — | 1/4 when both steps run | benchmark; the intercept is one release, the scales 3(d+1) |
//! | intercept clip C | C | √(n·ε_b)/2 clamped to [1, 50] (scaled units) | balances the clipping bias ≤ E r²/C (unit second moment after scaling) and the noise 2C/(n·ε_b), whose product is minimised at C ≍ √(n·ε_b) — the order of Zhao et al.'s clip radius for p = 2 (Thm 2) |
//! | `bound=auto` | B | 3 (scaled units) | three robust standard deviations: a clip that keeps the bulk of a standardised column and bounds the sensitivity by public quantities only |

pub mod fit_check;
pub mod quantile;

use crate::data::{ColumnMap, Dataset};
use crate::loss::{sigmoid, LossKind};
use crate::mechanisms::{self, ExponentialMechanism, LaplaceMechanism};
use crate::privacy::{
    approx_to_zcdp_rho, bounded_range_to_zcdp, calibration_target, Accountant, Budget, Cost,
    PrivacyError, PrivacyLedger, PrivacyModel, PrivacySpent,
};
use quantile::{
    Grid1D, GridHistogram, LinearGrid, OctaveGrid, QuantileMechanism, RankCounts, SignedOctaveGrid,
    SortedColumn,
};
use rand::RngCore;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use thiserror::Error;

/// The default share of ε (and δ) spent on preprocessing.
pub const DEFAULT_PREPROCESS_SHARE: f64 = 0.2;
/// The default clip bound B of `bound=auto`, in scaled units.
pub const AUTO_BOUND: f64 = 3.0;
/// Scaled features are winsorised at ±W (robust standard deviations; public constant).
pub const WINSOR_BOUND: f64 = 10.0;
/// Predictions of a regression on a privately scaled target are clamped to
/// c_y ± B·s_y (robust standard deviations of the target; public constant).
pub const TARGET_BOUND: f64 = 10.0;
/// The normal distribution's IQR / σ.
const IQR_PER_SIGMA: f64 = 1.348_979_500_392_163_5;

/// Errors of preprocessing. Messages name flags, files and columns (public schema), never
/// data values.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum PreprocessError {
    #[error(transparent)]
    Privacy(#[from] PrivacyError),
    #[error("{path}: {reason}")]
    PublicScales { path: String, reason: String },
    #[error("--preprocess-share must be in (0, 1); got {0}")]
    BadShare(f64),
    /// A data pass of a distributed fit failed (its message names no data value).
    #[error("{0}")]
    Pass(String),
    /// A scaling plan used for other columns than its own (a programming error; shapes
    /// only).
    #[error("internal: a scaling plan for (n, d, target) = {plan:?} used on {columns:?}")]
    PlanMismatch {
        plan: (usize, usize, bool),
        columns: (usize, usize, bool),
    },
}

/// `--scale`.
#[derive(Debug, Clone, PartialEq)]
pub enum ScaleMode {
    /// No standardisation (the algorithm sees raw columns).
    None,
    /// Centres and scales learned under DP.
    Private,
    /// Centres and scales declared by the user from public knowledge (no privacy cost).
    Public(PublicScales),
}

impl ScaleMode {
    /// Parses `--scale private|none|public:FILE.json` (the CLI's and Python's `scale`),
    /// reading and checking the file of `public:`.
    pub fn parse(v: &str) -> Result<Self, String> {
        Ok(match v {
            "private" => ScaleMode::Private,
            "none" => ScaleMode::None,
            other => match other.strip_prefix("public:") {
                Some(path) if !path.is_empty() => {
                    ScaleMode::Public(PublicScales::read(path).map_err(|e| e.to_string())?)
                }
                _ => {
                    return Err(format!(
                        "--scale must be 'private', 'none' or 'public:FILE.json'; got '{other}'"
                    ))
                }
            },
        })
    }

    /// The flag value's name (`none`, `private`, `public`).
    pub fn name(&self) -> &'static str {
        match self {
            ScaleMode::None => "none",
            ScaleMode::Private => "private",
            ScaleMode::Public(_) => "public",
        }
    }
}

/// `--intercept`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InterceptMode {
    None,
    Private,
}

/// A column's centre c and scale s (x̃ = (x − c)/s).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ColumnScale {
    pub centre: f64,
    pub scale: f64,
}

impl ColumnScale {
    /// The identity map.
    pub const IDENTITY: ColumnScale = ColumnScale {
        centre: 0.0,
        scale: 1.0,
    };
}

/// User-declared centres and scales, read from `public:FILE.json`:
/// `{"columns": {"NAME": {"centre": c, "scale": s} | {"min": a, "max": b}, ...}}`
/// (a range [a, b] means centre (a + b)/2 and scale (b − a)/4). Every feature and the
/// target (regression) must be listed. The output of `heavydp mean --scale private`
/// (its `"scales"` object) is accepted too, so that released scales can be reused by a
/// fit at no further privacy cost (post-processing).
#[derive(Debug, Clone, PartialEq)]
pub struct PublicScales {
    pub path: String,
    pub columns: BTreeMap<String, ColumnScale>,
    /// The columns declared by a range {"min": a, "max": b}: `heavydp mean` clamps them
    /// to it (a declared range is a bound).
    pub ranges: BTreeMap<String, [f64; 2]>,
}

impl PublicScales {
    /// Reads and checks the file (finite centres, positive finite scales).
    pub fn read(path: &str) -> Result<Self, PreprocessError> {
        let err = |reason: String| PreprocessError::PublicScales {
            path: path.to_string(),
            reason,
        };
        let text = std::fs::read_to_string(path).map_err(|e| err(format!("cannot read: {e}")))?;
        let v: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| err(format!("not a JSON file: {e}")))?;
        let cols = v
            .get("columns")
            .and_then(|c| c.as_object())
            .or_else(|| v.get("scales").and_then(|c| c.as_object()))
            .ok_or_else(|| {
                err("expected an object {\"columns\": {NAME: {...}}} (or the \"scales\" of `heavydp mean --scale private`)".into())
            })?;
        let mut columns = BTreeMap::new();
        let mut ranges = BTreeMap::new();
        for (name, spec) in cols {
            let num = |k: &str| spec.get(k).and_then(|x| x.as_f64());
            let cs = match (num("centre"), num("scale"), num("min"), num("max")) {
                (Some(c), Some(s), None, None) => ColumnScale {
                    centre: c,
                    scale: s,
                },
                (None, None, Some(a), Some(b)) if b > a => {
                    ranges.insert(name.clone(), [a, b]);
                    ColumnScale {
                        centre: 0.5 * (a + b),
                        scale: (b - a) / 4.0,
                    }
                }
                _ => {
                    return Err(err(format!(
                    "column '{name}': give either \"centre\" and \"scale\", or \"min\" < \"max\""
                )))
                }
            };
            if !(cs.centre.is_finite() && cs.scale.is_finite() && cs.scale > 0.0) {
                return Err(err(format!(
                    "column '{name}': the centre must be finite and the scale finite and > 0"
                )));
            }
            columns.insert(name.clone(), cs);
        }
        Ok(PublicScales {
            path: path.to_string(),
            columns,
            ranges,
        })
    }

    /// The declared scales of `names`, in order; an error lists the missing names.
    pub fn lookup(&self, names: &[String]) -> Result<Vec<ColumnScale>, PreprocessError> {
        let missing: Vec<&str> = names
            .iter()
            .filter(|n| !self.columns.contains_key(*n))
            .map(|s| s.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(PreprocessError::PublicScales {
                path: self.path.clone(),
                reason: format!("no centre/scale for column(s) {}", missing.join(", ")),
            });
        }
        Ok(names.iter().map(|n| self.columns[n]).collect())
    }
}

/// Centres and scales of the features and (for regression) the target, and the
/// winsorisation bound of the scaled features.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Standardization {
    pub features: Vec<ColumnScale>,
    pub target: ColumnScale,
    /// Scaled features are clamped to [−W, W] (None: no clamp).
    pub winsor: Option<f64>,
}

impl Standardization {
    /// The identity (no scaling).
    pub fn identity(d: usize) -> Self {
        Standardization {
            features: vec![ColumnScale::IDENTITY; d],
            target: ColumnScale::IDENTITY,
            winsor: None,
        }
    }

    /// The raw-unit bounds [cⱼ − W·sⱼ, cⱼ + W·sⱼ] of the winsorisation (None without one):
    /// `predict` clamps raw columns to them, which is the same map as clamping the scaled
    /// columns to [−W, W].
    pub fn raw_bounds(&self) -> Option<Vec<[f64; 2]>> {
        self.winsor.map(|w| {
            self.features
                .iter()
                .map(|c| [c.centre - w * c.scale, c.centre + w * c.scale])
                .collect()
        })
    }

    /// The raw-unit range of a regression's predictions, [c_y − B·s_y, c_y + B·s_y] with
    /// the public B = [`TARGET_BOUND`]: the model file's `target_bounds`, which `predict`
    /// clamps every prediction to (post-processing of the released target centre and
    /// scale).
    pub fn target_bounds(&self) -> [f64; 2] {
        let t = self.target;
        [
            t.centre - TARGET_BOUND * t.scale,
            t.centre + TARGET_BOUND * t.scale,
        ]
    }

    /// Standardises `data`: the response in place; the features in place when they are
    /// writable (owned, or a loan given up with `copy_X=False`), otherwise lazily through
    /// a [`crate::data::ColumnMap`] (a read-only NumPy array: no copy). Both use
    /// [`crate::data::standardise`], so the fit sees the same bits either way.
    pub fn apply(&self, data: &mut Dataset) {
        let t = self.target;
        if t != ColumnScale::IDENTITY {
            data.y_mut()
                .par_iter_mut()
                .for_each(|v| *v = (*v - t.centre) / t.scale);
        }
        if self.winsor.is_none() && self.features.iter().all(|c| *c == ColumnScale::IDENTITY) {
            return; // the identity: no pass over the features
        }
        let map = ColumnMap {
            centre: self.features.iter().map(|c| c.centre).collect(),
            scale: self.features.iter().map(|c| c.scale).collect(),
            bound: self.winsor.unwrap_or(f64::INFINITY),
        };
        data.map_lazily(map);
        if data.features_writable() {
            data.materialise();
        }
    }

    /// Raw-unit weights and intercept of the scaled-unit model (w̃, b̃):
    /// wⱼ = s_y·w̃ⱼ/sⱼ, intercept = c_y + s_y·(b̃ − Σⱼ w̃ⱼ·cⱼ/sⱼ).
    pub fn unscale(&self, w: &[f64], b: f64) -> (Vec<f64>, f64) {
        let t = self.target;
        let mut shift = 0.0;
        let raw = w
            .iter()
            .zip(&self.features)
            .map(|(wj, c)| {
                shift += wj * c.centre / c.scale;
                t.scale * wj / c.scale
            })
            .collect();
        (raw, t.centre + t.scale * (b - shift))
    }
}

/// The ε₀ of each of `k` exponential-mechanism releases so that their composition spends
/// at most `budget`: zCDP when δ > 0, each release charged as ε₀-bounded-range, ε₀²/8
/// ([`bounded_range_to_zcdp`]; Σ ε₀²/8 ≤ ρ(ε, δ), exact inversion), or basic (ε/k),
/// whichever allows the larger ε₀; basic when δ = 0. Returns (ε₀, accountant). The
/// releases must then be charged with [`exponential_cost`] (the bounded-range charge
/// under zCDP).
pub fn per_release_epsilon(budget: Budget, k: usize) -> (f64, Accountant) {
    let k = k.max(1) as f64;
    if budget.is_non_private() {
        return (f64::INFINITY, Accountant::Basic);
    }
    let target = calibration_target(budget.epsilon);
    let basic = (target / k).next_down();
    if budget.delta > 0.0 {
        let zcdp = bounded_range_epsilon(budget, k as usize);
        if zcdp > basic {
            return (zcdp, Accountant::Zcdp);
        }
    }
    (basic, Accountant::Basic)
}

/// The ε₀ of each of `k` exponential-mechanism releases charged as ε₀-bounded-range
/// ([`exponential_cost`]) to a zCDP ledger of `budget` (δ > 0): √(8ρ/k), ρ the largest
/// value whose conversion is (ε, δ), rounded down. The zCDP branch of
/// [`per_release_epsilon`].
pub fn bounded_range_epsilon(budget: Budget, k: usize) -> f64 {
    let rho = approx_to_zcdp_rho(calibration_target(budget.epsilon), budget.delta);
    ((BOUNDED_RANGE_FACTOR * rho / k.max(1) as f64).sqrt()).next_down()
}

/// ρ = ε₀²/[`BOUNDED_RANGE_FACTOR`]: the zCDP cost of one ε₀-DP exponential-mechanism
/// release ([`bounded_range_to_zcdp`]).
pub const BOUNDED_RANGE_FACTOR: f64 = 8.0;

/// The cost a ledger with `accountant` is charged for an ε-DP exponential-mechanism
/// release: ρ = ε²/8 under zCDP (the mechanism is ε-bounded-range,
/// [`bounded_range_to_zcdp`]), pure ε otherwise.
pub fn exponential_cost(epsilon: f64, accountant: Accountant) -> Cost {
    match accountant {
        Accountant::Zcdp => Cost::Zcdp {
            rho: bounded_range_to_zcdp(epsilon),
        },
        _ => Cost::Pure { epsilon },
    }
}

/// Steps per side of the second-stage linear grid (2·2048 + 1 points).
pub const LINEAR_STEPS: usize = 2048;
/// Steps per side of the centre grid (2·2048 + 1 points; the median's rank distance to
/// empty grid points is n/2, so a fine grid costs little).
pub const COARSE_STEPS: usize = 2048;
/// Releases per scaled column.
pub const RELEASES_PER_COLUMN: usize = 5;
/// The level of the spread-magnitude quantile (of |x − c₀|).
pub const MAGNITUDE_LEVEL: f64 = 0.5;

/// The per-release ε₀ of the private scaling: (features, target, accountant), spending
/// at most `budget` over 5·d feature releases and `target_releases` target releases R_t
/// (0 without a target; 5, or 6 with the winsorised moment, [`ScalingPlan::target_releases`]).
///
/// Each target release gets **twice** a feature release's ε₀ (four times its ρ under
/// zCDP); without a target, or without features, every release gets the same ε₀
/// ([`per_release_epsilon`]). The target is the one column whose misplacement the
/// winsorisation cannot bound: a feature released wild is clamped to [−W, W] (the column
/// is then of little use, but predictions stay in range), while a target scale off by
/// orders of magnitude multiplies every prediction's error by it (measured: cps1988,
/// n = 3 200, ε = 1, equal shares: target scales of 10¹² and MSEs of 10²⁴ in 6 fits of
/// 9). Giving the target half of the budget instead cost the features too much where d
/// is large (gss_wages, d = 30, ε = 1: gain kept 0.874 → 0.787). The accountant is the one
/// [`per_release_epsilon`] picks for the 5·d + R_t releases.
pub fn scaling_epsilons(
    budget: Budget,
    d: usize,
    target_releases: usize,
) -> (f64, f64, Accountant) {
    let releases = RELEASES_PER_COLUMN * d + target_releases;
    let (eps0, accountant) = per_release_epsilon(budget, releases);
    if target_releases == 0 || d == 0 || eps0.is_infinite() {
        return (eps0, eps0, accountant);
    }
    let (r, d, t) = (RELEASES_PER_COLUMN as f64, d as f64, TARGET_EPSILON_RATIO);
    let rt = target_releases as f64;
    let target = calibration_target(budget.epsilon);
    let feature = match accountant {
        // R_t·(t·ε_f)²/8 + 5d·ε_f²/8 = ρ (bounded-range charges)
        Accountant::Zcdp => {
            let rho = approx_to_zcdp_rho(target, budget.delta);
            (BOUNDED_RANGE_FACTOR * rho / (r * d + rt * t * t)).sqrt()
        }
        // R_t·t·ε_f + 5d·ε_f = ε
        _ => target / (r * d + rt * t),
    };
    (feature.next_down(), (t * feature).next_down(), accountant)
}

/// A target release's ε₀ over a feature release's ([`scaling_epsilons`]). Not 3: on the
/// design half of the suite (`docs/benchmark.md`) a ratio of 3 let ggplot2_txhousing
/// (d = 50) pass the target check at ε = 1 with its features at n·ε₀ ≈ 20, and `auto`
/// was 2.5 times worse than the mean there.
pub const TARGET_EPSILON_RATIO: f64 = 2.0;

/// The failure probability β of a release that [`atom_levels`] allows (and of the
/// intercept-only model's grid median, `pipeline`).
pub const SCALING_FAILURE: f64 = 0.1;

/// The grid points of a column's median releases that can lie outside its data (the
/// signed-octave grid, the centre's grid and the spread's octave grid: 123 + 4 097 + 62),
/// the |G| of [`target_scaling_check`]'s bound.
const MEDIAN_FAR_POINTS: f64 = 4_282.0;

/// The failure probability β that [`target_scaling_check`] allows for the target's
/// releases together: 1 %. Chosen on the design half of the suite (`docs/benchmark.md`):
/// at β = 0.1 (n·ε₀ ≥ 42.6) ggplot2_txhousing at ε = 1 passed the check at n·ε₀ = 43.4
/// and `auto` was 5 times worse than the mean (one split over 10×), while
/// sampleSelection_RandHIE at ε = 0.5 (n·ε₀ = 75) kept 0.57 of the gain; β = 0.01 puts
/// the bound at 51.8, between them.
pub const TARGET_SCALING_FAILURE: f64 = 0.01;

/// Whether [`private_scales`] can locate the target of n records with the scaling budget
/// `budget` (d features scaled alongside): a public computation (n, d, ε, δ), never of
/// the data.
///
/// The target's first release is the median's signed octave on a 123-point grid, the
/// next ones medians and quartiles on grids of 4 097 points built around it. A median
/// released on a point outside the data's range has utility ≤ −n/2, so its probability is
/// at most G·exp(−ε₀·n/4) (each far point's weight over the weight ≥ 1 of the best point;
/// McSherry & Talwar 2007). The union bound over the target's median releases
/// (G = 123 + 4 097 + 62) keeps the chance of a target located outside its data ≤ β =
/// [`TARGET_SCALING_FAILURE`] when
///
/// ```text
/// n·ε₀ ≥ 4·ln(4 282/β) ≈ 51.8.
/// ```
///
/// (The quartile releases, at levels 1/4 and 3/4, have a looser bound; their grid is
/// built around the released centre, so most of its points lie inside the data and the
/// far points' share is small.) Measured on cps1988 (n = 3 200, ε = 1) with equal shares
/// (n·ε₀ ≈ 17): 6 fits of 9 had target scales of 10⁹–10¹²; on gss_wages at ε = 0.5
/// (n·ε₀ ≈ 35 with equal shares, ≈ 67 with the target's double ε₀) none in 5 splits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScalingCheck {
    /// n·ε₀ of the target's releases.
    pub n_eps0: f64,
    /// The n·ε₀ the bound above asks for.
    pub needed: f64,
}

impl ScalingCheck {
    /// Whether n·ε₀ reaches the bound (always, without privacy).
    pub fn reliable(&self) -> bool {
        self.n_eps0 >= self.needed
    }
}

/// The [`ScalingCheck`] of the target when d features and the target of `n` records are
/// scaled with `budget` (d = 0: the target alone) and no feature is released binary:
/// [`ScalingPlan::target_check`] with all d features scaled (the check before the gate's
/// release, a function of n, d and the budget).
pub fn target_scaling_check(n: usize, d: usize, budget: Budget) -> ScalingCheck {
    ScalingPlan::new(n, d, budget, true).target_check(d)
}

/// The failure probability β of each column's binary gate decision
/// ([`release_binary_gate`]): a 0/1 column is released binary, and a column with at
/// least n/2 values outside {0, 1} is released not binary, each with probability at
/// least 1 − β.
pub const GATE_FAILURE: f64 = 0.05;

/// A feature is released binary when its noisy count of values outside {0, 1} is below
/// this fraction of n ([`binary_gate`]).
pub const GATE_THRESHOLD: f64 = 0.25;

/// The largest share of the scaling budget (of ρ under zCDP, of ε under basic
/// composition) the binary gate may take; where a gate of the stated accuracy would cost
/// more, it does not run and every feature is scaled by quantiles (a public rule of n,
/// d, ε, δ).
pub const GATE_MAX_SHARE: f64 = 0.25;

/// The centre and scale of a feature the binary gate released binary: 0 stays 0 and 1
/// maps to [`ATOM_FEATURE_SPREAD`] = 4, what the atom rule gives a dummy whose atom is
/// 0 (a public transform; values outside {0, 1} are winsorised at ±W, i.e. to
/// [−2.5, 2.5] in raw units). Measured on the design half of the suite
/// (`docs/benchmark.md`): centre 0.5 and scale 0.5 (0/1 to −1/+1) kept 0.43 of the gain
/// on mosaicData_Birthdays (51 state dummies of frequency 0.02) against 0.94 with this
/// map; the fit has no intercept of its own, so a rare dummy centred at 0.5 acts as one.
pub const BINARY_SCALE: ColumnScale = ColumnScale {
    centre: 0.0,
    scale: 1.0 / ATOM_FEATURE_SPREAD,
};

/// Whether x is 0 or 1 (the binary gate's row-wise predicate).
#[inline]
pub fn is_binary_value(x: f64) -> bool {
    x == 0.0 || x == 1.0
}

/// The noise of the private scaling's numeric releases (the binary gate's counts, the
/// target's winsorised moment): Gaussian on a zCDP ledger, Laplace under basic
/// composition, none at ε = ∞.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScalingNoise {
    /// zCDP ledgers: Gaussian noise.
    Gaussian(mechanisms::GaussianMechanism),
    /// Basic composition: Laplace noise.
    Laplace(LaplaceMechanism),
    /// ε = ∞: the exact values.
    Exact,
}

impl ScalingNoise {
    /// The mechanism for a statistic of sensitivity `sensitivity` charged as much as one
    /// ε₀-DP quantile release ([`exponential_cost`]): Gaussian with ρ = ε₀²/8 under zCDP,
    /// Laplace with ε = ε₀ under basic composition, exact at ε₀ = ∞.
    pub fn bounded_range(
        sensitivity: f64,
        eps0: f64,
        accountant: Accountant,
    ) -> Result<Self, PrivacyError> {
        if eps0.is_infinite() {
            return Ok(ScalingNoise::Exact);
        }
        Ok(match exponential_cost(eps0, accountant) {
            Cost::Zcdp { rho } => {
                ScalingNoise::Gaussian(mechanisms::GaussianMechanism::from_rho(sensitivity, rho)?)
            }
            _ => ScalingNoise::Laplace(LaplaceMechanism::new(sensitivity, eps0)?),
        })
    }

    /// A bound the noise exceeds with probability at most β: σ·√(2 ln(1/β)) (Gaussian),
    /// b·ln(1/(2β)) (Laplace), 0 (exact).
    pub fn upper_bound(&self, beta: f64) -> f64 {
        match self {
            ScalingNoise::Gaussian(m) => m.sigma * (2.0 * (1.0 / beta).ln()).sqrt(),
            ScalingNoise::Laplace(m) => m.scale * (1.0 / (2.0 * beta)).ln(),
            ScalingNoise::Exact => 0.0,
        }
    }

    /// The charge of one release (none at ε = ∞).
    pub fn cost(&self) -> Option<Cost> {
        match self {
            ScalingNoise::Gaussian(m) => Some(mechanisms::Mechanism::cost(m)),
            ScalingNoise::Laplace(m) => Some(mechanisms::Mechanism::cost(m)),
            ScalingNoise::Exact => None,
        }
    }

    /// Charges `ledger` under `label` and releases `values` with this noise
    /// ([`mechanisms::release`]); at ε = ∞ the values themselves, uncharged.
    pub fn release<R: RngCore + ?Sized>(
        &self,
        ledger: &mut PrivacyLedger,
        label: &str,
        values: Vec<f64>,
        rng: &mut R,
    ) -> Result<Vec<f64>, PrivacyError> {
        match self {
            ScalingNoise::Gaussian(m) => mechanisms::release(ledger, label, m, &values[..], rng),
            ScalingNoise::Laplace(m) => mechanisms::release(ledger, label, m, &values[..], rng),
            ScalingNoise::Exact => Ok(values),
        }
    }
}

/// The public plan of the binary gate: its mechanism and threshold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BinaryGate {
    pub noise: ScalingNoise,
    /// A feature is binary when its released count is below this (n·[`GATE_THRESHOLD`]).
    pub threshold: f64,
}

impl BinaryGate {
    /// The gate's charge to a ledger (zero at ε = ∞).
    pub fn cost(&self) -> Option<Cost> {
        self.noise.cost()
    }
}

/// The binary gate of d features of n rows at the scaling budget `budget` (whose
/// releases compose with `accountant`), or `None` when it does not run: a function of
/// n, d, ε, δ only.
///
/// The gate releases, for every feature, the count of rows whose value is not 0 or 1.
/// Under replacement one row changes each count by at most 1, so the vector of d counts
/// has ℓ2 sensitivity √d and ℓ1 sensitivity d. Its noise is sized so that the
/// threshold T = n·[`GATE_THRESHOLD`] = n/4 is a (1 − β)-bound of it (β =
/// [`GATE_FAILURE`]): Gaussian σ = T/√(2·ln(1/β)) (P(N(0, σ²) > T) ≤ exp(−T²/(2σ²)) = β),
/// ρ = d/(2σ²) (Bun & Steinke 2016 Prop. 1.6); Laplace b = T/ln(1/(2β)) (P(Lap(b) > T) =
/// e^{−T/b}/2 = β), ε = d/b (Dwork & Roth Thm 3.6). A 0/1 column (count 0) is then
/// released binary, and a column with ≥ n/2 values outside {0, 1} released not binary,
/// each with probability ≥ 1 − β. The gate runs when its cost is at most
/// [`GATE_MAX_SHARE`] of the budget (ρ of the zCDP conversion, or ε), d ≥ 1 and n ≥ 1;
/// at ε = ∞ it reads the exact counts.
pub fn binary_gate(
    n: usize,
    d: usize,
    budget: Budget,
    accountant: Accountant,
) -> Option<BinaryGate> {
    if d == 0 || n == 0 {
        return None;
    }
    let threshold = n as f64 * GATE_THRESHOLD;
    if budget.is_non_private() || budget.epsilon.is_infinite() {
        return Some(BinaryGate {
            noise: ScalingNoise::Exact,
            threshold,
        });
    }
    let target = calibration_target(budget.epsilon);
    let (noise, within) = match accountant {
        Accountant::Zcdp => {
            let sigma = threshold / (2.0 * (1.0 / GATE_FAILURE).ln()).sqrt();
            let m = mechanisms::GaussianMechanism::with_sigma((d as f64).sqrt(), sigma).ok()?;
            let rho = match mechanisms::Mechanism::cost(&m) {
                Cost::Zcdp { rho } => rho,
                _ => return None,
            };
            let total = approx_to_zcdp_rho(target, budget.delta);
            (ScalingNoise::Gaussian(m), rho <= GATE_MAX_SHARE * total)
        }
        _ => {
            let scale = threshold / (1.0 / (2.0 * GATE_FAILURE)).ln();
            let m = LaplaceMechanism {
                sensitivity: d as f64,
                scale,
            };
            let eps = match mechanisms::Mechanism::cost(&m) {
                Cost::Pure { epsilon } => epsilon,
                _ => return None,
            };
            (ScalingNoise::Laplace(m), eps <= GATE_MAX_SHARE * target)
        }
    };
    within.then_some(BinaryGate { noise, threshold })
}

/// The public plan of the private scaling of d features (and the target, when
/// `scale_target`) of n rows at the scaling budget `budget`: the accountant of its
/// releases and its binary gate, computed once from (n, d, ε, δ) — never from the data —
/// and read by every later decision of the scaling (the gate's release, the per-release
/// ε₀, the reliability check of the target).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScalingPlan {
    /// Rows n.
    pub n: usize,
    /// Features d.
    pub d: usize,
    /// The scaling phase's budget.
    pub budget: Budget,
    /// Whether the target is scaled (a regression).
    pub scale_target: bool,
    /// The accountant [`scaling_epsilons`] picks for the 5·d + R_t releases; the
    /// gate does not change it (so the fit's δ never depends on the gate).
    pub accountant: Accountant,
    /// The binary gate ([`binary_gate`] at n, d, budget), `None` when it does not run.
    pub gate: Option<BinaryGate>,
    /// Whether the target's scale may be widened by its winsorised second moment (one
    /// more target release, [`release_target_moment`]): a scaled target and n ≥
    /// [`TARGET_MOMENT_MIN_ROWS`].
    pub target_moment: bool,
}

impl ScalingPlan {
    /// The plan at (n, d, budget, scale_target).
    pub fn new(n: usize, d: usize, budget: Budget, scale_target: bool) -> Self {
        let target_moment = scale_target && n >= TARGET_MOMENT_MIN_ROWS;
        let target_releases = if scale_target {
            RELEASES_PER_COLUMN + usize::from(target_moment)
        } else {
            0
        };
        let (_, _, accountant) = scaling_epsilons(budget, d, target_releases);
        ScalingPlan {
            n,
            d,
            budget,
            scale_target,
            accountant,
            gate: binary_gate(n, d, budget, accountant),
            target_moment,
        }
    }

    /// The target's releases R_t: 0 without a target, else the five quantile releases
    /// and, when [`ScalingPlan::target_moment`], the winsorised moment (charged as much
    /// as one of them).
    pub fn target_releases(&self) -> usize {
        if self.scale_target {
            RELEASES_PER_COLUMN + usize::from(self.target_moment)
        } else {
            0
        }
    }

    /// [`scaling_epsilons`] after the binary gate: the per-release ε₀ of features and
    /// target when `scaled` of the d features are scaled by quantiles and the gate has
    /// been charged first. Without a gate it is `scaling_epsilons(budget, d,
    /// target_releases)`. With one, what is left after the gate's cost (ρ − ρ_gate under
    /// zCDP, ε − ε_gate under basic composition) is split over the 5·`scaled` feature
    /// releases and the target's R_t ([`ScalingPlan::target_releases`]), a target release again getting
    /// [`TARGET_EPSILON_RATIO`] times a feature release's ε₀.
    pub fn epsilons(&self, scaled: usize) -> (f64, f64) {
        let (budget, accountant) = (self.budget, self.accountant);
        let cost = match self.gate.and_then(|g| g.cost()) {
            Some(c) => c,
            None => {
                let (f, t, _) = scaling_epsilons(budget, self.d, self.target_releases());
                return (f, t);
            }
        };
        let (r, t) = (RELEASES_PER_COLUMN as f64, TARGET_EPSILON_RATIO);
        let (s, rt) = (scaled as f64, self.target_releases() as f64);
        if s + rt == 0.0 {
            return (f64::INFINITY, f64::INFINITY);
        }
        let target = calibration_target(budget.epsilon);
        let feature = match (accountant, cost) {
            // R_t·(t·ε_f)²/8 + 5·scaled·ε_f²/8 = ρ − ρ_gate
            (Accountant::Zcdp, Cost::Zcdp { rho: gate_rho }) => {
                let rho = approx_to_zcdp_rho(target, budget.delta) - gate_rho;
                (BOUNDED_RANGE_FACTOR * rho.max(0.0) / (r * s + rt * t * t)).sqrt()
            }
            // R_t·t·ε_f + 5·scaled·ε_f = ε − ε_gate
            (_, Cost::Pure { epsilon }) => (target - epsilon).max(0.0) / (r * s + rt * t),
            _ => unreachable!("the gate's noise follows the accountant"),
        };
        (feature.next_down(), (t * feature).next_down())
    }

    /// The [`ScalingCheck`] of the target (of a plan with `scale_target`) when `scaled` of
    /// the d features are scaled by quantiles (the others released binary by the gate):
    /// the target's ε₀ of [`ScalingPlan::epsilons`]. `scaled` is public once the gate has
    /// released it.
    pub fn target_check(&self, scaled: usize) -> ScalingCheck {
        let (_, eps_target) = self.epsilons(scaled);
        ScalingCheck {
            n_eps0: self.n as f64 * eps_target,
            needed: 4.0 * (MEDIAN_FAR_POINTS / TARGET_SCALING_FAILURE).ln(),
        }
    }

    /// The [`ScalingCheck`] of one feature scaled by quantiles when `scaled` of the d
    /// features are (`None` when none is): the bound of [`target_scaling_check`] for a
    /// single column's median releases at a feature release's ε₀ ([`ScalingPlan::epsilons`])
    /// and β = [`SCALING_FAILURE`]: n·ε₀ ≥ 4·ln(4 282/β) ≈ 42.6. Below it a feature's
    /// released scale is not certified: it may be off by orders of magnitude, and nothing
    /// released tells which column. The winsorisation keeps the predictions of such a fit
    /// in range, but its raw coefficients are not bounded by the released values, so
    /// confidence intervals are unbounded there (`crate::inference::uncertified_scales`).
    /// Measured (`inference_coverage::tests::clipped_gd_sampling_probe`, N(0, 1)
    /// features, 200 fits): n = 10⁴, d = 20, ε = 0.5 (n·ε₀ = 26.3) — 6.3 % of the
    /// released feature scales off by more than 10×, 15 % by more than 2×; d = 5, ε = 0.5
    /// (43.2) — 0.1 % and 1.1 %; d = 20, ε = 1 (54.2) — none and 0.4 %.
    pub fn feature_check(&self, scaled: usize) -> Option<ScalingCheck> {
        (scaled > 0).then(|| ScalingCheck {
            n_eps0: self.n as f64 * self.epsilons(scaled).0,
            needed: 4.0 * (MEDIAN_FAR_POINTS / SCALING_FAILURE).ln(),
        })
    }

    /// The most favourable [`ScalingCheck`] the binary gate can lead to: every feature
    /// released binary when the gate runs, else all d scaled. `auto` picks a
    /// d-dimensional fit by it before the gate runs, and the fit then falls back to the
    /// intercept alone when the check at the released count fails.
    pub fn best_target_check(&self) -> ScalingCheck {
        self.target_check(if self.gate.is_some() { 0 } else { self.d })
    }
}

/// The target's scale is widened by its winsorised second moment only from this many
/// rows on ([`ScalingPlan::target_moment`]; a public rule of n). Chosen on the design half
/// of the suite with a non-private yardstick (`docs/benchmark.md`, "Signal in the
/// tails"): a target scale wider than the IQR's lost gain on every design table below
/// 1 400 rows (Prestige, fishing, Hitters, CreditCard: training n ≤ 1 055) and kept or
/// gained it on every one from 5 000 (txhousing, RandHIE, ratdat, Birthdays: training n ≥
/// 5 700); 2 500 is about the geometric middle of the gap.
pub const TARGET_MOMENT_MIN_ROWS: usize = 2_500;

/// The winsorisation point of the target's second moment, in spread octaves M
/// ([`release_target_moment`]): K = 16. Chosen with the same yardstick on the design
/// half: K = 16 kept the IQR scale's gain on every table of n ≥ 5 000, K = 64 lost 0.09
/// on txhousing at ε = 1.
pub const TARGET_MOMENT_WINSOR: f64 = 16.0;

/// Each octave o of |y − c₀| stands for the value 1.5·o in the winsorised moment (the
/// middle of [o, 2o); a log-uniform value in the octave has E v² = 2.16·o², 1.47² o²).
pub const OCTAVE_MIDPOINT: f64 = 1.5;

/// The winsorised second moment of a column around c₀ from the counts of its octaves
/// o = ⌊|y − c₀|⌋₂ (the counts of the spread octave's stage, on [`OctaveGrid`]): the mean
/// over rows of min([`OCTAVE_MIDPOINT`]·o, `clip`)². Each row adds a value in [0, clip²],
/// so under replacement of one row it moves by at most clip²/n.
pub fn winsorised_octave_moment(counts: &dyn RankCounts, clip: f64) -> f64 {
    let n = counts.len();
    if n == 0 {
        return 0.0;
    }
    let mut sum = 0.0;
    for i in 0..OctaveGrid.len() {
        let g = OctaveGrid.value(i);
        let (below, at_most) = counts.ranks(i, g);
        let v = (OCTAVE_MIDPOINT * g).min(clip);
        sum += (at_most - below) as f64 * v * v;
    }
    sum / n as f64
}

/// The winsorised-moment release that widens a regression's target scale: given the
/// target's released spread octave M, the moment m = [`winsorised_octave_moment`] at the
/// clip K·M (K = [`TARGET_MOMENT_WINSOR`]), of sensitivity (K·M)²/n, released with
/// [`ScalingNoise`] at the target's ε₀ and charged to `ledger` first; returns the lower
/// confidence bound m̃ − (the noise's (1 − β)-bound, β = [`SCALING_FAILURE`]), which is
/// below the true m with probability ≥ 1 − β, so a wider scale comes from the data's
/// tails and not from the noise. When M = 0 (an atom at the centre) or is not finite,
/// nothing is read and the release is charged alone, so the ledger never depends on the
/// data; the result is then 0. Post-processing: the caller takes the target scale
/// max(IQR scale, √max(bound, 0)).
pub fn release_target_moment<R: RngCore + ?Sized>(
    ledger: &mut PrivacyLedger,
    counts: &dyn RankCounts,
    m: f64,
    eps0: f64,
    rng: &mut R,
) -> Result<f64, PreprocessError> {
    const LABEL: &str = "target winsorised moment";
    let n = counts.len().max(1) as f64;
    let clip = TARGET_MOMENT_WINSOR * m;
    let sensitivity = clip * clip / n;
    let usable = sensitivity > 0.0 && sensitivity.is_finite();
    // the charge of a unit-sensitivity twin when the statistic is not usable: the same
    // cost whatever M is
    let noise = ScalingNoise::bounded_range(
        if usable { sensitivity } else { 1.0 },
        eps0,
        ledger.accountant(),
    )?;
    let moment = if usable {
        winsorised_octave_moment(counts, clip)
    } else {
        0.0
    };
    let released = noise.release(ledger, LABEL, vec![moment], rng)?[0];
    Ok(if usable {
        released - noise.upper_bound(SCALING_FAILURE)
    } else {
        0.0
    })
}

/// The released binary gate ([`release_binary_gate`]): which features are binary, and
/// the scaling phase's ledger with the gate's charge, which the quantile releases
/// continue ([`private_scales_after_gate`]).
#[derive(Debug)]
pub struct GateRelease {
    /// Per feature (in the order given): released binary.
    pub binary: Vec<bool>,
    /// The scaling's public plan (its budget opened the ledger).
    pub plan: ScalingPlan,
    ledger: PrivacyLedger,
}

impl GateRelease {
    /// The number of features scaled by quantiles (not released binary): public.
    pub fn scaled(&self) -> usize {
        self.binary.iter().filter(|b| !**b).count()
    }

    /// What the gate's ledger has spent (the gate's release alone).
    pub fn spent(&self) -> PrivacySpent {
        self.ledger
            .summary(if self.ledger.accountant() == Accountant::Zcdp {
                PrivacyModel::Approx
            } else {
                PrivacyModel::Pure
            })
    }
}

/// The binary gate of the features `features` of `src` (the first release of the private
/// scaling, charged to a ledger of the scaling plan's budget; `target`: the target
/// column, scaled after it). When the plan has no gate nothing is read or charged and no
/// feature is binary. A source whose passes are expensive
/// ([`ScalingSource::reads_in_passes`]) also counts the scaling's first stage of every
/// column in the gate's pass (not released here; the first stage then needs no pass of
/// its own), so the gate adds no pass over the rows. `plan` must be the plan of these
/// columns (n rows, `features.len()` features, a target exactly when `target` is given):
/// an error otherwise (shapes only).
pub fn release_binary_gate<R: RngCore + ?Sized>(
    src: &mut dyn ScalingSource,
    features: &[usize],
    target: Option<usize>,
    plan: ScalingPlan,
    rng: &mut R,
) -> Result<GateRelease, PreprocessError> {
    let (n, d) = (src.rows(), features.len());
    if (plan.n, plan.d, plan.scale_target) != (n, d, target.is_some()) {
        return Err(PreprocessError::PlanMismatch {
            plan: (plan.n, plan.d, plan.scale_target),
            columns: (n, d, target.is_some()),
        });
    }
    let mut ledger = PrivacyLedger::new(plan.budget, plan.accountant);
    let mut binary = vec![false; d];
    if let Some(gate) = plan.gate {
        let mut stage: Vec<(usize, StageMap)> =
            features.iter().map(|&j| (j, StageMap::Binary)).collect();
        if src.reads_in_passes() {
            let first = features.iter().chain(&target);
            stage.extend(first.map(|&j| (j, StageMap::SignedOctave)));
        }
        src.prefetch(&stage)?;
        let mut counts = Vec::with_capacity(d);
        for &j in features {
            let c = src.counts(j, StageMap::Binary)?;
            // grid point 1 of {−1, 0, 1} is 0: #{mapped ≤ 0} are the 0/1 values
            counts.push((c.len() - c.ranks(1, 0.0).1) as f64);
        }
        let released = gate
            .noise
            .release(&mut ledger, "binary gate", counts, rng)?;
        binary = released.iter().map(|c| *c < gate.threshold).collect();
    }
    Ok(GateRelease {
        binary,
        plan,
        ledger,
    })
}

/// The private centres and scales of the features (and of the target when
/// `scale_target`), spending at most `budget`: per column, five ε₀-DP releases (see the
/// module documentation): the median's signed octave O, a coarse centre c₀ (the median
/// of the data snapped to a 4097-point grid over [−4|O|, 4|O|]), the spread magnitude M = the private median of the octaves ⌊|x − c₀|⌋₂ (rounded down to a
/// power of two, a row-wise public map given c₀, so every value is a grid point), then
/// q₀.₂₅ and q₀.₇₅ of x − c₀ on the linear grid of half-width 4M.
pub fn private_scales<R: RngCore + ?Sized>(
    data: &Dataset,
    scale_target: bool,
    budget: Budget,
    rng: &mut R,
) -> Result<(Standardization, PrivacySpent), PreprocessError> {
    let d = data.d();
    let features: Vec<usize> = (0..d).collect();
    let mut src = LocalColumns::new(data);
    private_scales_of(&mut src, &features, scale_target.then_some(d), budget, rng)
}

/// [`private_scales`] of the columns of any [`ScalingSource`]: `features` (source
/// columns) and the `target` column (none: the target is not scaled).
pub fn private_scales_of<R: RngCore + ?Sized>(
    src: &mut dyn ScalingSource,
    features: &[usize],
    target: Option<usize>,
    budget: Budget,
    rng: &mut R,
) -> Result<(Standardization, PrivacySpent), PreprocessError> {
    let plan = ScalingPlan::new(src.rows(), features.len(), budget, target.is_some());
    let gate = release_binary_gate(src, features, target, plan, rng)?;
    private_scales_after_gate(src, features, target, gate, rng)
}

/// [`private_scales_of`] after its binary gate `gate` ([`release_binary_gate`] of the same
/// `features`): the features released binary get [`BINARY_SCALE`], the others and the
/// target the quantile releases of [`private_quartiles_after_gate`].
pub fn private_scales_after_gate<R: RngCore + ?Sized>(
    src: &mut dyn ScalingSource,
    features: &[usize],
    target: Option<usize>,
    gate: GateRelease,
    rng: &mut R,
) -> Result<(Standardization, PrivacySpent), PreprocessError> {
    let binary = gate.binary.clone();
    let (mut quartiles, spent) = private_quartiles_after_gate(src, features, target, gate, rng)?;
    let target = if target.is_some() {
        scale_from_quantiles(quartiles.pop().expect("target column"))
    } else {
        ColumnScale::IDENTITY
    };
    Ok((
        Standardization {
            features: quartiles
                .into_iter()
                .zip(binary)
                .map(|(q, b)| {
                    if b {
                        BINARY_SCALE
                    } else {
                        scale_from_quantiles(q)
                    }
                })
                .collect(),
            target,
            winsor: Some(WINSOR_BOUND),
        },
        spent,
    ))
}

/// The private quartiles [q₀.₂₅, q₀.₇₅] of every feature (and, last, of the target when
/// `scale_target`): the five releases per column that [`private_scales`] documents, before
/// they are turned into a centre and a scale. `heavydp mean --scale private` reports them.
pub fn private_quartiles<R: RngCore + ?Sized>(
    data: &Dataset,
    scale_target: bool,
    budget: Budget,
    rng: &mut R,
) -> Result<(Vec<[f64; 2]>, PrivacySpent), PreprocessError> {
    let d = data.d();
    let features: Vec<usize> = (0..d).collect();
    let mut src = LocalColumns::new(data);
    private_quartiles_of(&mut src, &features, scale_target.then_some(d), budget, rng)
}

/// The row-wise public map a scaling stage applies to a column before its quantile,
/// and the public grid the stage releases on ([`private_scales`], module table). Given
/// the earlier releases of the column it is a fixed function of one value, so rank counts
/// of the mapped column are summed over rows as histograms of the grid's cells
/// ([`StageMap::cell`], [`add_stage_cells`]: in memory and on a distributed fit's
/// executors alike), or read off the sorted column (a column asked for outside a
/// prefetched stage, [`LocalColumns`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "stage", rename_all = "snake_case")]
pub enum StageMap {
    /// Stage 1: sign(x)·2^⌊log₂|x|⌋ on the [`SignedOctaveGrid`].
    SignedOctave,
    /// Stage 2: x snapped down to the centre grid of half-width `half_width` (2·2048 + 1
    /// points), on that grid.
    Snap { half_width: f64 },
    /// Stage 3: 2^⌊log₂|x − c₀|⌋ on the [`OctaveGrid`].
    SpreadOctave { c0: f64 },
    /// Stages 4–5: x − c₀ on the linear grid of half-width `half_width` (2·2048 + 1 points).
    Shift { c0: f64, half_width: f64 },
    /// The binary gate ([`release_binary_gate`]): 0 when x ∈ {0, 1}, else 1, on the grid
    /// {−1, 0, 1}; the count of values outside {0, 1} is n − #{mapped ≤ 0}.
    Binary,
}

impl StageMap {
    fn coarse(half_width: f64) -> LinearGrid {
        LinearGrid {
            half_width,
            steps: COARSE_STEPS,
        }
    }
    fn linear(half_width: f64) -> LinearGrid {
        LinearGrid {
            half_width,
            steps: LINEAR_STEPS,
        }
    }
    const BINARY_GRID: LinearGrid = LinearGrid {
        half_width: 1.0,
        steps: 1,
    };

    /// The mapped value of x.
    #[inline]
    pub fn apply(&self, x: f64) -> f64 {
        match *self {
            StageMap::SignedOctave => quantile::signed_octave_floor(x),
            StageMap::Snap { half_width } => quantile::snap_down(&Self::coarse(half_width), x),
            StageMap::SpreadOctave { c0 } => quantile::octave_floor(x - c0),
            StageMap::Shift { c0, .. } => x - c0,
            StageMap::Binary => f64::from(u8::from(!is_binary_value(x))),
        }
    }

    /// The number of histogram cells of the stage's grid ([`quantile::histogram_cells`]).
    pub fn cells(&self) -> usize {
        quantile::histogram_cells(match *self {
            StageMap::SignedOctave => SignedOctaveGrid.len(),
            StageMap::SpreadOctave { .. } => OctaveGrid.len(),
            StageMap::Snap { half_width } => Self::coarse(half_width).len(),
            StageMap::Shift { half_width, .. } => Self::linear(half_width).len(),
            StageMap::Binary => Self::BINARY_GRID.len(),
        })
    }

    /// The map with its grid's constants computed once, for counting many values
    /// ([`PreparedCell`]).
    pub fn prepared(&self) -> PreparedCell {
        match *self {
            StageMap::SignedOctave => PreparedCell::SignedOctave,
            StageMap::SpreadOctave { c0 } => PreparedCell::SpreadOctave { c0 },
            StageMap::Snap { half_width } => {
                PreparedCell::Snap(quantile::PreparedLinear::new(Self::coarse(half_width)))
            }
            StageMap::Shift { c0, half_width } => PreparedCell::Shift {
                c0,
                grid: quantile::PreparedLinear::new(Self::linear(half_width)),
            },
            StageMap::Binary => PreparedCell::Binary,
        }
    }

    /// The histogram cell of the mapped value of x on the stage's grid
    /// ([`quantile::histogram_cell`]): the definition, which [`PreparedCell::cell`]
    /// computes faster. `x` must not be NaN.
    pub fn cell(&self, x: f64) -> usize {
        let v = self.apply(x);
        match *self {
            StageMap::SignedOctave => quantile::histogram_cell(&SignedOctaveGrid, v),
            StageMap::SpreadOctave { .. } => quantile::histogram_cell(&OctaveGrid, v),
            StageMap::Snap { half_width } => quantile::histogram_cell(&Self::coarse(half_width), v),
            StageMap::Shift { half_width, .. } => {
                quantile::histogram_cell(&Self::linear(half_width), v)
            }
            StageMap::Binary => quantile::histogram_cell(&Self::BINARY_GRID, v),
        }
    }
}

/// A stage's map with its grid's constants computed once ([`StageMap::prepared`]): the
/// same cell as [`StageMap::cell`] for every value (test
/// `prepared_cells_are_the_maps_cells`): an octave map's value is a grid point (cell
/// 2i + 1, no comparison with the point), a linear grid's floor index takes one
/// multiplication and the exact correction, with the grid's spacing computed once. The per-value step
/// of the scaling's histogram passes, in memory and on the executors.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PreparedCell {
    SignedOctave,
    SpreadOctave {
        c0: f64,
    },
    Snap(quantile::PreparedLinear),
    Shift {
        c0: f64,
        grid: quantile::PreparedLinear,
    },
    Binary,
}

impl PreparedCell {
    /// [`StageMap::cell`] of x (not NaN).
    #[inline(always)]
    pub fn cell(&self, x: f64) -> usize {
        match *self {
            // the mapped values are grid points: cell 2i + 1
            PreparedCell::SignedOctave => {
                let v = quantile::signed_octave_floor(x);
                2 * SignedOctaveGrid.floor_index(v).unwrap_or(0) + 1
            }
            PreparedCell::SpreadOctave { c0 } => {
                let v = quantile::octave_floor(x - c0);
                2 * OctaveGrid.floor_index(v).unwrap_or(0) + 1
            }
            // snapped down to point i (point 0 below the grid): cell 2i + 1
            PreparedCell::Snap(g) => 2 * g.floor_index(x).unwrap_or(0) + 1,
            PreparedCell::Shift { c0, grid } => {
                let v = x - c0;
                match grid.floor_index(v) {
                    None => 0,
                    Some(i) if grid.point(i) == v => 2 * i + 1,
                    Some(i) => 2 * i + 2,
                }
            }
            // 0 (x ∈ {0, 1}) is point 1 of {−1, 0, 1}, 1 is point 2
            PreparedCell::Binary => {
                if is_binary_value(x) {
                    3
                } else {
                    5
                }
            }
        }
    }
}

/// The columns the private scaling reads, as rank counts of a stage's map
/// ([`StageMap`]): an in-memory dataset ([`LocalColumns`]: grid histograms of all the
/// stage's columns from one pass over the rows) or the rows of a distributed fit (the
/// same histograms summed over the executors).
pub trait ScalingSource {
    /// The number of rows n (public: the shape of the data).
    fn rows(&self) -> usize;
    /// Whether every [`ScalingSource::prefetch`] is a pass over rows that are expensive to
    /// read (a distributed source): the binary gate's pass then also counts the first
    /// stage. The default: no (in memory, a stage's histograms are cheap to recount).
    fn reads_in_passes(&self) -> bool {
        false
    }
    /// Announces that [`ScalingSource::counts`] will be asked for each (column, map) of
    /// `stage`: one stage of the scaling, every column with its own map (a source reads
    /// them all in one pass over the rows). The default does nothing.
    fn prefetch(&mut self, _stage: &[(usize, StageMap)]) -> Result<(), PreprocessError> {
        Ok(())
    }
    /// The rank counts of `map` applied to column `column` (0..d: a feature; d: the
    /// target).
    fn counts(
        &mut self,
        column: usize,
        map: StageMap,
    ) -> Result<Box<dyn RankCounts + '_>, PreprocessError>;
}

/// The offsets of each (column, map) of `stage` in the flat cell counts of
/// [`add_stage_cells`] (length: the stage's columns + 1; the last is the total).
pub fn stage_offsets(stage: &[(usize, StageMap)]) -> Vec<usize> {
    let mut at = 0;
    let mut out = Vec::with_capacity(stage.len() + 1);
    out.push(0);
    for (_, map) in stage {
        at += map.cells();
        out.push(at);
    }
    out
}

/// A stage's (column, map) pairs with each map prepared ([`StageMap::prepared`]): what
/// [`add_stage_cells`] reads, made once per pass (or batch).
pub fn prepare_stage(stage: &[(usize, StageMap)]) -> Vec<(usize, PreparedCell)> {
    stage.iter().map(|(j, map)| (*j, map.prepared())).collect()
}

/// Adds the grid-cell counts of one row to the flat counts `cells` of a stage
/// ([`stage_offsets`]): cell [`StageMap::cell`] of `value(j)` for each (j, map) of the
/// stage, `stage` prepared by [`prepare_stage`]. The one per-row function of the
/// scaling's histograms, in memory and on the executors. No value may be NaN.
#[inline]
pub fn add_stage_cells<C: std::ops::AddAssign + From<u8>>(
    cells: &mut [C],
    stage: &[(usize, PreparedCell)],
    offsets: &[usize],
    value: impl Fn(usize) -> f64,
) {
    for (k, (j, map)) in stage.iter().enumerate() {
        cells[offsets[k] + map.cell(value(*j))] += C::from(1);
    }
}

/// The rank counts of each (column, map) of a stage from its flat cell counts.
pub fn stage_histograms<C: Copy + Into<u64>>(
    stage: &[(usize, StageMap)],
    cells: &[C],
) -> Vec<GridHistogram> {
    let offsets = stage_offsets(stage);
    offsets
        .windows(2)
        .map(|w| {
            let c: Vec<u64> = cells[w[0]..w[1]].iter().map(|v| (*v).into()).collect();
            GridHistogram::from_cells(&c)
        })
        .collect()
}

/// The flat cell counts of `stage` over the rows of the row-major n × d matrix `x`
/// and the response `y` (column d): one contiguous range of rows per thread, each
/// counted into its own cells, then added.
fn count_stage<C>(x: &[f64], y: &[f64], d: usize, stage: &[(usize, StageMap)]) -> Vec<C>
where
    C: Copy + Send + std::ops::AddAssign + From<u8>,
{
    let n = y.len();
    let offsets = stage_offsets(stage);
    let prepared = prepare_stage(stage);
    let total = *offsets.last().expect("non-empty");
    let parts = rayon::current_num_threads().clamp(1, n.max(1));
    let per = n.div_ceil(parts).max(1);
    let zero = || vec![C::from(0); total];
    (0..parts)
        .into_par_iter()
        .map(|p| {
            let mut cells = zero();
            for i in (p * per).min(n)..((p + 1) * per).min(n) {
                let row = &x[i * d..(i + 1) * d];
                add_stage_cells(&mut cells, &prepared, &offsets, |j| {
                    if j < d {
                        row[j]
                    } else {
                        y[i]
                    }
                });
            }
            cells
        })
        .reduce_with(|mut a, b| {
            a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
            a
        })
        .unwrap_or_else(zero)
}

/// The columns of an in-memory dataset. A prefetched stage is counted into grid
/// histograms in one parallel pass over the rows (no copy, no sort; the ranks at the
/// grid points are those of the sorted column, [`GridHistogram`]); a column asked for
/// outside a prefetched stage is copied, sorted and mapped (the maps are monotone, or
/// counted into sorted order), so its ranks are binary searches of a sorted array.
pub struct LocalColumns<'a> {
    data: &'a Dataset,
    col: Vec<f64>,
    work: Vec<f64>,
    group: Option<ColumnGroup>,
    loaded: Option<usize>,
    /// The prefetched stage and its histograms.
    stage: Vec<(usize, StageMap)>,
    histograms: Vec<GridHistogram>,
}

impl<'a> LocalColumns<'a> {
    /// The columns of `data` (column d: the target).
    pub fn new(data: &'a Dataset) -> Self {
        LocalColumns {
            data,
            col: Vec::new(),
            work: Vec::new(),
            group: None,
            loaded: None,
            stage: Vec::new(),
            histograms: Vec::new(),
        }
    }
}

impl ScalingSource for LocalColumns<'_> {
    /// The stage's histograms from one pass over the rows (`count_stage`: at most
    /// (d + 1)·(2·4097 + 1) counts per thread, 32-bit when n < 2³²; the previous stage's
    /// histograms are dropped first, so the scratch stays a few percent of the matrix).
    fn prefetch(&mut self, stage: &[(usize, StageMap)]) -> Result<(), PreprocessError> {
        self.histograms = Vec::new();
        self.stage.clear();
        let (d, x, y) = (self.data.d(), self.data.x(), self.data.y());
        self.histograms = if u32::try_from(y.len()).is_ok() {
            stage_histograms(stage, &count_stage::<u32>(x, y, d, stage))
        } else {
            stage_histograms(stage, &count_stage::<u64>(x, y, d, stage))
        };
        self.stage = stage.to_vec();
        Ok(())
    }

    fn rows(&self) -> usize {
        self.data.n()
    }

    fn counts(
        &mut self,
        column: usize,
        map: StageMap,
    ) -> Result<Box<dyn RankCounts + '_>, PreprocessError> {
        if let Some(k) = self.stage.iter().position(|s| *s == (column, map)) {
            return Ok(Box::new(self.histograms[k].clone()));
        }
        let (n, d) = (self.data.n(), self.data.d());
        if self.col.len() != n {
            self.col = vec![0.0; n];
            self.work = vec![0.0; n];
        }
        let (col, work) = (&mut self.col, &mut self.work);
        if map == StageMap::Binary {
            // a count needs no sort: the column is gathered, counted, and left unsorted
            if column < d {
                self.group
                    .get_or_insert_with(|| ColumnGroup::new(n, d))
                    .column(self.data.x(), column, col);
            } else {
                col.copy_from_slice(self.data.y());
            }
            self.loaded = None;
            let ones = col.par_iter().filter(|v| !is_binary_value(**v)).count();
            let zeros = col.len() - ones;
            work[..zeros].fill(0.0);
            work[zeros..].fill(1.0);
            return Ok(Box::new(SortedColumn(&self.work)));
        }
        if self.loaded != Some(column) {
            if column < d {
                self.group
                    .get_or_insert_with(|| ColumnGroup::new(n, d))
                    .column(self.data.x(), column, col);
            } else {
                col.copy_from_slice(self.data.y());
            }
            col.par_sort_unstable_by(f64::total_cmp);
            self.loaded = Some(column);
        }
        match map {
            StageMap::SpreadOctave { .. } => {
                // |x − c0| is not monotone in x; its 62 possible octaves are sorted by
                // counting (the same array a sort gives)
                let octaves = OctaveGrid.len();
                let counts = col
                    .par_chunks(1 << 14)
                    .fold(
                        || vec![0usize; octaves],
                        |mut c, chunk| {
                            for v in chunk {
                                let o = map.apply(*v);
                                c[OctaveGrid
                                    .floor_index(o)
                                    .expect("an octave is a grid point")] += 1;
                            }
                            c
                        },
                    )
                    .reduce(
                        || vec![0usize; octaves],
                        |mut a, b| {
                            a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                            a
                        },
                    );
                let mut at = 0;
                for (i, c) in counts.into_iter().enumerate() {
                    work[at..at + c].fill(OctaveGrid.value(i));
                    at += c;
                }
            }
            // monotone maps: the sorted order is kept
            _ => work
                .par_iter_mut()
                .zip(&col[..])
                .for_each(|(a, v)| *a = map.apply(*v)),
        }
        Ok(Box::new(SortedColumn(&self.work)))
    }
}

/// Charges `mech` to `ledger` ([`exponential_cost`]: the bounded-range ρ = ε²/8 under a
/// zCDP ledger, pure ε otherwise) and releases it on `counts`
/// ([`QuantileMechanism::run_on_counts`]; [`mechanisms::release`] for rank counts).
fn release_quantile<G: Grid1D, R: RngCore + ?Sized>(
    ledger: &mut PrivacyLedger,
    label: &str,
    mech: &QuantileMechanism<G>,
    counts: &dyn RankCounts,
    rng: &mut R,
) -> Result<f64, PreprocessError> {
    ledger.charge(label, exponential_cost(mech.epsilon, ledger.accountant()))?;
    Ok(mech.run_on_counts(counts, rng))
}

/// [`private_quartiles`] of the columns `features` and (last) `target` of any
/// [`ScalingSource`]. The releases come stage by stage (the module table's rows), each
/// stage over every column still to be scaled, in column order: a stage's maps depend
/// on each column's own earlier releases only, so a source reads one stage of all the
/// columns in one pass ([`ScalingSource::prefetch`]: four passes in all). Whatever the
/// source, the same counts give the same draws.
pub fn private_quartiles_of<R: RngCore + ?Sized>(
    src: &mut dyn ScalingSource,
    features: &[usize],
    target: Option<usize>,
    budget: Budget,
    rng: &mut R,
) -> Result<(Vec<[f64; 2]>, PrivacySpent), PreprocessError> {
    let plan = ScalingPlan::new(src.rows(), features.len(), budget, target.is_some());
    let gate = release_binary_gate(src, features, target, plan, rng)?;
    private_quartiles_after_gate(src, features, target, gate, rng)
}

/// [`private_quartiles_of`] after its binary gate `gate`: the five releases of every
/// feature the gate did not release binary and of the target, stage by stage, at the ε₀
/// of [`ScalingPlan::epsilons`], charged to the gate's ledger. A binary feature gets the
/// pair whose midpoint and IQR/1.349 are [`BINARY_SCALE`] (no release).
pub fn private_quartiles_after_gate<R: RngCore + ?Sized>(
    src: &mut dyn ScalingSource,
    features: &[usize],
    target: Option<usize>,
    gate: GateRelease,
    rng: &mut R,
) -> Result<(Vec<[f64; 2]>, PrivacySpent), PreprocessError> {
    /// One column's releases so far.
    struct Column {
        j: usize,
        is_target: bool,
        eps0: f64,
        /// Stage 2's grid half-width (from O), then stage 3's c₀ and M.
        half_width: f64,
        c0: f64,
        m: f64,
        /// The target's released winsorised moment (its lower bound), when the plan
        /// has one.
        moment: Option<f64>,
    }
    impl Column {
        fn what(&self) -> &'static str {
            if self.is_target {
                "target"
            } else {
                "column"
            }
        }
    }
    let scaled = gate.scaled();
    let GateRelease {
        binary,
        plan,
        mut ledger,
    } = gate;
    let (eps_feature, eps_target) = plan.epsilons(scaled);
    let mut columns: Vec<Column> = features
        .iter()
        .zip(&binary)
        .filter(|(_, &is_binary)| !is_binary)
        .map(|(&j, _)| (j, false))
        .chain(target.map(|j| (j, true)))
        .map(|(j, is_target)| Column {
            j,
            is_target,
            eps0: if is_target { eps_target } else { eps_feature },
            half_width: 0.0,
            c0: 0.0,
            m: 0.0,
            moment: None,
        })
        .collect();
    let floor = libm::ldexp(1.0, -18);
    // 1. the median's signed octave O (123-point grid; data snapped to octaves)
    let stage: Vec<(usize, StageMap)> = columns
        .iter()
        .map(|c| (c.j, StageMap::SignedOctave))
        .collect();
    src.prefetch(&stage)?;
    for c in columns.iter_mut() {
        let mech = QuantileMechanism::on_grid(0.5, c.eps0, SignedOctaveGrid)?;
        let o = release_quantile(
            &mut ledger,
            &format!("{} median octave", c.what()),
            &mech,
            &*src.counts(c.j, StageMap::SignedOctave)?,
            rng,
        )?;
        c.half_width = (4.0 * o.abs()).max(floor);
    }
    // 2. a centre c0: the median on the 4097-point grid over [−4|O|, 4|O|] (spacing
    //    |O|/512), data snapped down to it
    let stage: Vec<(usize, StageMap)> = columns
        .iter()
        .map(|c| {
            (
                c.j,
                StageMap::Snap {
                    half_width: c.half_width,
                },
            )
        })
        .collect();
    src.prefetch(&stage)?;
    for (c, &(_, map)) in columns.iter_mut().zip(&stage) {
        let mech = QuantileMechanism::on_grid(0.5, c.eps0, StageMap::coarse(c.half_width))?;
        c.c0 = release_quantile(
            &mut ledger,
            &format!("{} coarse centre", c.what()),
            &mech,
            &*src.counts(c.j, map)?,
            rng,
        )?;
    }
    // 3. spread magnitude M: the median of the octaves of |x − c0| (the MAD's octave; a
    //    median, because its rank distance to the 61 empty octaves is n/2)
    let stage: Vec<(usize, StageMap)> = columns
        .iter()
        .map(|c| (c.j, StageMap::SpreadOctave { c0: c.c0 }))
        .collect();
    src.prefetch(&stage)?;
    for (c, &(_, map)) in columns.iter_mut().zip(&stage) {
        let mech = QuantileMechanism::on_grid(MAGNITUDE_LEVEL, c.eps0, OctaveGrid)?;
        let counts = src.counts(c.j, map)?;
        c.m = release_quantile(
            &mut ledger,
            &format!("{} spread octave", c.what()),
            &mech,
            &*counts,
            rng,
        )?;
        // 3b. the target's winsorised second moment, from the same octave counts
        if c.is_target && plan.target_moment {
            c.moment = Some(release_target_moment(
                &mut ledger,
                &*counts,
                c.m,
                c.eps0,
                rng,
            )?);
        }
    }
    // 4–5. quartiles of x − c0 on the linear grid [−4M, 4M]; or, when M = 0 (an atom at
    //    c0 holds about half the column or more: its quartiles would coincide), the
    //    octaves of |x − c0| at higher levels (stage 3's counts again; none used when
    //    n·ε₀ cannot make them reliable), and the column's centre is c0. Always two
    //    releases labelled alike, so the ledger does not depend on which branch a
    //    column takes.
    let stage: Vec<(usize, StageMap)> = columns
        .iter()
        .map(|c| {
            let map = if c.m == 0.0 {
                StageMap::SpreadOctave { c0: c.c0 }
            } else {
                StageMap::Shift {
                    c0: c.c0,
                    half_width: (4.0 * c.m).max(floor),
                }
            };
            (c.j, map)
        })
        .collect();
    src.prefetch(&stage)?;
    let mut scales = Vec::with_capacity(columns.len());
    for (c, &(_, map)) in columns.iter().zip(&stage) {
        let label = format!("{} scale quantile", c.what());
        let counts = src.counts(c.j, map)?;
        match map {
            StageMap::Shift { c0, half_width } => {
                let grid = StageMap::linear(half_width);
                let mut q = [0.0; 2];
                for (k, level) in [0.25, 0.75].into_iter().enumerate() {
                    let mech = QuantileMechanism::on_grid(level, c.eps0, grid)?;
                    q[k] = c0 + release_quantile(&mut ledger, &label, &mech, &*counts, rng)?;
                }
                let q = if q[0] <= q[1] { q } else { [q[1], q[0]] };
                scales.push(match c.moment {
                    Some(bound) => widened_by_moment(q, bound),
                    None => q,
                });
            }
            _ => {
                let (levels, reliable) = atom_levels(counts.len(), c.eps0);
                let mut octave = 0.0;
                for level in levels {
                    let mech = QuantileMechanism::on_grid(level, c.eps0, OctaveGrid)?;
                    let o = release_quantile(&mut ledger, &label, &mech, &*counts, rng)?;
                    if reliable && octave == 0.0 {
                        octave = o;
                    }
                }
                scales.push(atom_quartiles(c.c0, atom_scale(octave, c.is_target)));
            }
        }
    }
    // every column in the caller's order: a binary feature's fixed pair, the others' releases
    let mut released = scales.into_iter();
    let mut quartiles: Vec<[f64; 2]> = binary
        .iter()
        .map(|&is_binary| {
            if is_binary {
                atom_quartiles(BINARY_SCALE.centre, BINARY_SCALE.scale)
            } else {
                released.next().expect("a released feature")
            }
        })
        .collect();
    quartiles.extend(released);
    Ok((
        quartiles,
        ledger.summary(if plan.accountant == Accountant::Zcdp {
            PrivacyModel::Approx
        } else {
            PrivacyModel::Pure
        }),
    ))
}

/// The quartile pair `q` of a target whose scale is widened to √`bound` when that is
/// larger than its IQR scale (the pair [`atom_quartiles`] gives for the same centre and
/// the wider scale; `bound`: [`release_target_moment`]'s lower bound of the winsorised
/// second moment). Post-processing of released values.
fn widened_by_moment(q: [f64; 2], bound: f64) -> [f64; 2] {
    let s = scale_from_quantiles(q);
    let wide = bound.max(0.0).sqrt();
    if wide > s.scale && wide.is_finite() {
        atom_quartiles(s.centre, wide)
    } else {
        q
    }
}

/// The two levels of the octaves of |x − c₀| that scale a column with an atom at its
/// centre (the spread octave's median released 0), and whether their releases are
/// reliable enough to use: q₁ = min(0.9, q_max) and q₂ = min(0.99, q_max), with q_max =
/// 1 − 2·ln(62/β)/(n·ε₀) (β = [`SCALING_FAILURE`]), both at least
/// [`ATOM_MIN_LEVEL`]; reliable when q_max ≥ [`ATOM_MIN_LEVEL`]. A level q has rank
/// distance (1 − q)·n to the empty octaves above the column, so an octave beyond the
/// data has probability ≤ 62·exp(−(1 − q)·n·ε₀/2) ≤ β once q ≤ q_max. With an atom of
/// mass p₀ ≥ 1/2, the level q is the non-atom values' (q − p₀)/(1 − p₀)-quantile: q₁ =
/// 0.9 scales columns with p₀ up to 0.9 (a zero-inflated count, a dummy), q₂ = 0.99
/// those with p₀ up to 0.99; the scale is the first release that is not the atom. (An
/// atom of mass within about 1/(n·ε₀) of a level ties the octaves between the atom and
/// the smallest other value, and that release may land on any of them.) A function of n
/// and ε₀ only.
pub fn atom_levels(n: usize, eps0: f64) -> ([f64; 2], bool) {
    let q_max = if eps0.is_finite() {
        let slack = 2.0 * (OctaveGrid.len() as f64 / SCALING_FAILURE).ln() / (n as f64 * eps0);
        1.0 - slack
    } else {
        1.0
    };
    let level = |q: f64| q_max.min(q).max(ATOM_MIN_LEVEL);
    ([level(0.9), level(0.99)], q_max >= ATOM_MIN_LEVEL)
}

/// The lowest level [`atom_levels`] releases at: below it the atom (mass ≥ 1/2, up to
/// the release's error) may hold the quantile whatever the other values are.
pub const ATOM_MIN_LEVEL: f64 = 0.75;

/// A feature with an atom at its centre is scaled so that the octave of its spread
/// (or 1 when none was released: a dummy) sits at this many scaled units (public
/// constant). The ones of a 0/1 dummy then become 4, the standardised value
/// √((1 − p)/p) of a dummy of frequency p ≈ 0.06 (3–10 for p = 0.01–0.1).
/// Measured on the design tables (k401ksubs, VietNamI, ratdat, Birthdays; auto, ε = 1,
/// three splits; `docs/benchmark.md`): ratdat keeps 0.73 of the gain with 1 and 0.98
/// with 4 (its 28 species dummies carry the signal).
pub const ATOM_FEATURE_SPREAD: f64 = 4.0;

/// The scale of a column with an atom at its centre from the released octave of its
/// spread (0: none released, or every release on the atom): the octave for the target
/// (1 without one: the target left in its units), the octave (or 1) divided by
/// [`ATOM_FEATURE_SPREAD`] for a feature.
fn atom_scale(octave: f64, is_target: bool) -> f64 {
    let o = if octave > 0.0 { octave } else { 1.0 };
    if is_target {
        o
    } else {
        o / ATOM_FEATURE_SPREAD
    }
}

/// The pair standing in for the quartiles of a column with an atom at c₀ and scale s:
/// c₀ ± s·IQR/(2σ) of the normal, so that [`scale_from_quantiles`] gives the centre c₀
/// and the scale s. Post-processing of released values.
fn atom_quartiles(c0: f64, s: f64) -> [f64; 2] {
    let h = 0.5 * IQR_PER_SIGMA * s;
    [c0 - h, c0 + h]
}

/// Columns of a row-major matrix read a group at a time: one pass over the
/// rows copies a group of adjacent columns (one cache line per row) into blocks of
/// [`ColumnGroup::ROWS`] rows, from which each column is then gathered contiguously. A
/// column read alone strides d·8 bytes per value, a cache miss per row (measured: the
/// largest single cost of the private scaling at n = 9·10⁴, d = 200). A group is
/// ⌊d/32⌋ columns, between 1 and 8: the scratch, group·n values, stays within 1/32 of the
/// matrix (the Python package's memory goal: a fit adds ≤ 10 % of X).
struct ColumnGroup {
    n: usize,
    d: usize,
    /// First column of the group held in `block` (usize::MAX: none yet).
    first: usize,
    width: usize,
    block: Vec<f64>,
}

impl ColumnGroup {
    const MAX_WIDTH: usize = 8;
    const ROWS: usize = 4096;

    /// Columns per group: ⌊d/32⌋ in [1, 8].
    fn group_width(d: usize) -> usize {
        (d / 32).clamp(1, Self::MAX_WIDTH)
    }

    fn new(n: usize, d: usize) -> Self {
        ColumnGroup {
            n,
            d,
            first: usize::MAX,
            width: 0,
            block: vec![0.0; Self::group_width(d) * n],
        }
    }

    /// Copies column `j` of the row-major n × d matrix `x` into `out`.
    fn column(&mut self, x: &[f64], j: usize, out: &mut [f64]) {
        let (n, d) = (self.n, self.d);
        if !(self.first..self.first.saturating_add(self.width)).contains(&j) {
            let group = Self::group_width(d);
            self.first = j - j % group;
            let (first, width) = (self.first, group.min(d - self.first));
            self.width = width;
            // block c holds rows cR..cR + len of the group, column-major: [k·len + i]
            self.block[..width * n]
                .par_chunks_mut(Self::ROWS * width)
                .enumerate()
                .for_each(|(c, out)| {
                    let len = out.len() / width;
                    for i in 0..len {
                        let row = &x[(c * Self::ROWS + i) * d + first..][..width];
                        for (k, v) in row.iter().enumerate() {
                            out[k * len + i] = *v;
                        }
                    }
                });
        }
        let (k, width) = (j - self.first, self.width);
        out.par_chunks_mut(Self::ROWS)
            .zip(self.block[..width * n].par_chunks(Self::ROWS * width))
            .for_each(|(o, b)| o.copy_from_slice(&b[k * o.len()..][..o.len()]));
    }
}

/// Centre = the midpoint (q₂₅ + q₇₅)/2; scale = (q₇₅ − q₂₅)/1.349, or 1 when that is 0
/// or not finite. Post-processing of released values only.
pub fn scale_from_quantiles(q: [f64; 2]) -> ColumnScale {
    let (lo, hi) = if q[0] <= q[1] {
        (q[0], q[1])
    } else {
        (q[1], q[0])
    };
    let centre = 0.5 * lo + 0.5 * hi;
    let iqr = hi - lo;
    let scale = if iqr > 0.0 && iqr.is_finite() {
        iqr / IQR_PER_SIGMA
    } else {
        1.0
    };
    ColumnScale { centre, scale }
}

/// The clip bound C of the private intercept (scaled units): √(n·ε)/2 in [1, 50].
pub fn intercept_clip(n: usize, epsilon: f64) -> f64 {
    if epsilon.is_infinite() {
        return 50.0;
    }
    ((n as f64 * epsilon).sqrt() / 2.0).clamp(1.0, 50.0)
}

/// The logistic intercept grid: b ∈ [−8, 8] in steps of 1/32 (513 points).
pub fn logistic_grid() -> impl Iterator<Item = f64> {
    (0..=512).map(|k| -8.0 + k as f64 / 32.0)
}

/// The per-row quantities the private intercept reads, all sums over rows of a fixed
/// function of (margin mᵢ = x̃ᵢ·w̃, response yᵢ), or rank counts of the residuals: the
/// in-memory margins ([`Residuals`]) or the rows of a distributed fit (one pass each).
pub trait InterceptSource {
    /// The number of rows n (public).
    fn rows(&self) -> usize;
    /// Σᵢ clamp(yᵢ − mᵢ, −c, c).
    fn clipped_residual_sum(&mut self, c: f64) -> Result<f64, PreprocessError>;
    /// S(b) = Σᵢ (σ(mᵢ + b) − 1{yᵢ > 0}) for every b of [`logistic_grid`].
    fn logistic_scores(&mut self) -> Result<Vec<f64>, PreprocessError>;
    /// The rank counts of the residuals yᵢ − mᵢ on the [`quantile::PublicGrid`].
    fn residual_counts(&mut self) -> Result<Box<dyn RankCounts + '_>, PreprocessError>;
    /// #{i: yᵢ > 0}.
    fn positives(&mut self) -> Result<f64, PreprocessError>;
    /// Σᵢ clamp(yᵢ − mᵢ − `shift`, −c, c) (the mean intercept's clipped sum around its
    /// released median).
    fn shifted_clipped_sum(&mut self, shift: f64, c: f64) -> Result<f64, PreprocessError>;
    /// The rank counts of the octaves ⌊|yᵢ − mᵢ − `centre`|⌋₂ ([`quantile::octave_floor`])
    /// on the [`OctaveGrid`]. Defined for the intercept-only model (all mᵢ = 0, the target
    /// in its units), the one model [`private_mean_intercept_of`] serves.
    fn spread_octave_counts(
        &mut self,
        centre: f64,
    ) -> Result<Box<dyn RankCounts + '_>, PreprocessError>;
}

/// A row's term of the intercept's clipped sum: clamp(y − m, −c, c).
#[inline]
pub fn clipped_residual(margin: f64, y: f64, c: f64) -> f64 {
    (y - margin).clamp(-c, c)
}

/// A row's term of the logistic intercept's score S(b): σ(m + b) − 1{y > 0}.
#[inline]
pub fn logistic_score_term(margin: f64, b: f64, y: f64) -> f64 {
    sigmoid(margin + b) - if y > 0.0 { 1.0 } else { 0.0 }
}

/// The in-memory [`InterceptSource`]: margins and responses.
pub struct Residuals<'a> {
    margins: &'a [f64],
    y: &'a [f64],
    sorted: Vec<f64>,
    octaves: Vec<f64>,
}

impl<'a> Residuals<'a> {
    /// Margins mᵢ and responses yᵢ (the same length).
    pub fn new(margins: &'a [f64], y: &'a [f64]) -> Self {
        Residuals {
            margins,
            y,
            sorted: Vec::new(),
            octaves: Vec::new(),
        }
    }
}

impl InterceptSource for Residuals<'_> {
    fn rows(&self) -> usize {
        self.margins.len()
    }
    fn clipped_residual_sum(&mut self, c: f64) -> Result<f64, PreprocessError> {
        Ok(self
            .margins
            .iter()
            .zip(self.y)
            .map(|(m, yi)| clipped_residual(*m, *yi, c))
            .sum::<f64>())
    }
    fn logistic_scores(&mut self) -> Result<Vec<f64>, PreprocessError> {
        let grid: Vec<f64> = logistic_grid().collect();
        let (margins, y) = (self.margins, self.y);
        Ok(grid
            .par_iter()
            .map(|&b| {
                margins
                    .iter()
                    .zip(y)
                    .map(|(m, yi)| logistic_score_term(*m, b, *yi))
                    .sum()
            })
            .collect())
    }
    fn residual_counts(&mut self) -> Result<Box<dyn RankCounts + '_>, PreprocessError> {
        self.sorted = self
            .margins
            .iter()
            .zip(self.y)
            .map(|(m, yi)| yi - m)
            .collect();
        self.sorted.sort_unstable_by(f64::total_cmp);
        Ok(Box::new(SortedColumn(&self.sorted)))
    }
    fn positives(&mut self) -> Result<f64, PreprocessError> {
        Ok(self.y.iter().filter(|v| **v > 0.0).count() as f64)
    }
    fn shifted_clipped_sum(&mut self, shift: f64, c: f64) -> Result<f64, PreprocessError> {
        Ok(self
            .margins
            .iter()
            .zip(self.y)
            .map(|(m, yi)| clipped_residual(*m + shift, *yi, c))
            .sum::<f64>())
    }
    fn spread_octave_counts(
        &mut self,
        centre: f64,
    ) -> Result<Box<dyn RankCounts + '_>, PreprocessError> {
        self.octaves = self
            .margins
            .iter()
            .zip(self.y)
            .map(|(m, yi)| quantile::octave_floor(yi - m - centre))
            .collect();
        self.octaves.sort_unstable_by(f64::total_cmp);
        Ok(Box::new(SortedColumn(&self.octaves)))
    }
}

/// The private intercept b̃ of the (scaled) model: margins `m` = x̃·w̃ and responses
/// `y` (±1 labels for logistic). `scaled` says whether the data were standardised (a
/// clip bound in scaled units is then meaningful). Returns (b̃, what was spent).
pub fn private_intercept<R: RngCore + ?Sized>(
    loss: &LossKind,
    margins: &[f64],
    y: &[f64],
    scaled: bool,
    budget: Budget,
    rng: &mut R,
) -> Result<(f64, PrivacySpent, String), PreprocessError> {
    private_intercept_of(loss, &mut Residuals::new(margins, y), scaled, budget, rng)
}

/// [`private_intercept`] on any [`InterceptSource`] (the module table's mechanisms).
pub fn private_intercept_of<R: RngCore + ?Sized>(
    loss: &LossKind,
    src: &mut dyn InterceptSource,
    scaled: bool,
    budget: Budget,
    rng: &mut R,
) -> Result<(f64, PrivacySpent, String), PreprocessError> {
    let n = src.rows();
    let mut ledger = PrivacyLedger::new(budget, Accountant::Basic);
    let eps = if budget.is_non_private() {
        f64::INFINITY
    } else {
        calibration_target(budget.epsilon)
    };
    let (b, how) = match loss {
        LossKind::Logistic => {
            let grid: Vec<f64> = logistic_grid().collect();
            let utilities: Vec<f64> = src.logistic_scores()?.iter().map(|s| -s.abs()).collect();
            let em = ExponentialMechanism::new(2.0, eps)?;
            let k = mechanisms::release(&mut ledger, "intercept", &em, &utilities, rng)?;
            (
                grid[k],
                "logistic score root on the public grid [-8, 8] step 1/32 (exponential mechanism, sensitivity 2)".to_string(),
            )
        }
        LossKind::Absolute => median_intercept(src, eps, &mut ledger, rng)?,
        _ if !scaled => median_intercept(src, eps, &mut ledger, rng)?,
        _ => {
            let (v, c) = release_clipped_mean(&mut ledger, "intercept", n, eps, rng, |c| {
                src.clipped_residual_sum(c)
            })?;
            (
                v,
                format!("clipped mean of the residuals at C = {c:.4} (scaled units; Laplace, sensitivity 2C/n)"),
            )
        }
    };
    Ok((b, ledger.summary(PrivacyModel::Pure), how))
}

/// The clipped mean of n terms at the intercept's clip C = [`intercept_clip`](n, ε),
/// released as (1/n)·`clipped_sum`(C) + Lap(2C/(n·ε)) through `ledger` (charged first):
/// `clipped_sum(c)` must be a sum of n terms each in [−c, c], so replacing one row moves
/// the mean by at most 2C/n. Returns (the released mean, C). The squared-loss intercept
/// and the fit check's intercept alone ([`fit_check`]) are this release.
pub fn release_clipped_mean<R: RngCore + ?Sized>(
    ledger: &mut PrivacyLedger,
    label: &str,
    n: usize,
    eps: f64,
    rng: &mut R,
    clipped_sum: impl FnOnce(f64) -> Result<f64, PreprocessError>,
) -> Result<(f64, f64), PreprocessError> {
    let c = intercept_clip(n, eps);
    let mean = clipped_sum(c)? / n as f64;
    let lap = LaplaceMechanism::new(2.0 * c / n as f64, eps)?;
    let v = mechanisms::release(ledger, label, &lap, &[mean], rng)?;
    Ok((v[0], c))
}

/// The logistic intercept of a model whose weights are all zero (the margins are then
/// all 0, a public fact): b = logit(p̂), p̂ = (#{yᵢ = 1} + Lap(1/ε))/n clamped to
/// [1/(n + 2), 1 − 1/(n + 2)]. The count has sensitivity 1 (replace one record), so the
/// release is ε-DP (the Laplace mechanism, audited by the `laplace` target); it is the
/// exact root of Σᵢ (σ(b) − 1{yᵢ = 1}) = 0 with noise of ±1/ε counts, where the
/// exponential mechanism on the score root errs by O(ln(513)/ε) counts — at n = 200 and
/// ε = 0.5 the difference between 12 % and < 1 % above the constant's log-loss.
pub fn private_base_rate_intercept<R: RngCore + ?Sized>(
    y: &[f64],
    budget: Budget,
    rng: &mut R,
) -> Result<(f64, PrivacySpent, String), PreprocessError> {
    let zeros = vec![0.0; y.len()];
    private_base_rate_intercept_of(&mut Residuals::new(&zeros, y), budget, rng)
}

/// [`private_base_rate_intercept`] on any [`InterceptSource`] (its count of positives).
pub fn private_base_rate_intercept_of<R: RngCore + ?Sized>(
    src: &mut dyn InterceptSource,
    budget: Budget,
    rng: &mut R,
) -> Result<(f64, PrivacySpent, String), PreprocessError> {
    let n = src.rows() as f64;
    let mut ledger = PrivacyLedger::new(budget, Accountant::Basic);
    let eps = if budget.is_non_private() {
        f64::INFINITY
    } else {
        calibration_target(budget.epsilon)
    };
    let count = src.positives()?;
    let b = release_base_rate(&mut ledger, "intercept (base rate)", n, count, eps, rng)?;
    Ok((
        b,
        ledger.summary(PrivacyModel::Pure),
        "logit of the private base rate (Laplace on the count of positives, sensitivity 1; the weights are all zero)".into(),
    ))
}

/// The logit of the private base rate of `n` rows with `positives` positive labels:
/// p̂ = (positives + Lap(1/ε))/n clamped to [1/(n + 2), 1 − 1/(n + 2)], released through
/// `ledger` (charged first; the count has sensitivity 1). The intercept of a logistic
/// model with zero weights ([`private_base_rate_intercept_of`]) and the logistic fit
/// check's base rate ([`fit_check::private_logistic_fit_check`]) are this release.
pub fn release_base_rate<R: RngCore + ?Sized>(
    ledger: &mut PrivacyLedger,
    label: &str,
    n: f64,
    positives: f64,
    eps: f64,
    rng: &mut R,
) -> Result<f64, PreprocessError> {
    let lap = LaplaceMechanism::new(1.0, eps)?;
    let c = mechanisms::release(ledger, label, &lap, &[positives], rng)?[0];
    let lo = 1.0 / (n + 2.0);
    let p = (c / n).clamp(lo, 1.0 - lo);
    Ok((p / (1.0 - p)).ln())
}

fn median_intercept<R: RngCore + ?Sized>(
    src: &mut dyn InterceptSource,
    eps: f64,
    ledger: &mut PrivacyLedger,
    rng: &mut R,
) -> Result<(f64, String), PreprocessError> {
    let qm = QuantileMechanism::new(0.5, eps)?;
    let v = release_quantile(ledger, "intercept", &qm, &*src.residual_counts()?, rng)?;
    Ok((
        v,
        "median of the residuals on the public grid (exponential mechanism, sensitivity 1)"
            .to_string(),
    ))
}

/// Shares of the budget of [`private_mean_intercept_of`]'s four releases: the median m,
/// the spread octave s, the spread octave at [`MEAN_INTERCEPT_ATOM_LEVEL`] (used when an
/// atom at m holds half the responses), and the clipped mean. The median gets the most
/// (its grid has 124 929 points), the spread octave enough that both certify at the
/// same n·ε ([`mean_intercept_min_n_eps`]); the mean keeps a quarter.
pub const MEAN_INTERCEPT_SHARES: [f64; 4] = [0.4, 0.25, 0.1, 0.25];
/// The failure probability β each locating release of [`private_mean_intercept_of`] is
/// certified at: a median or a spread octave released outside the responses (the event
/// that makes a clipped mean miss by orders of magnitude) has probability ≤ β.
pub const MEAN_INTERCEPT_FAILURE: f64 = 1e-3;
/// The level of the second spread release: for a response with an atom of mass p₀ ≥ 1/2
/// at the released median, the non-atom values' (0.9 − p₀)/(1 − p₀)-quantile of |y − m|.
pub const MEAN_INTERCEPT_ATOM_LEVEL: f64 = 0.9;
/// The clip half-width of the mean intercept is C·[`MEAN_INTERCEPT_UNIT`]·s, with s the
/// released octave of the median absolute deviation (s ≤ MAD < 2s) and C =
/// [`intercept_clip`]: 2s lies between 1.35σ and 2.7σ of a normal response, the robust
/// standard deviation that C counts in the scaled-data intercept.
pub const MEAN_INTERCEPT_UNIT: f64 = 2.0;

/// n·ε below which a grid release of level q ∈ (0, 1) may land outside the data with
/// probability above β: a grid point beyond the data has utility −min(q, 1 − q)·n
/// against the best point's 0, so the exponential mechanism picks one of the `points`
/// far points with probability ≤ points·exp(−ε·min(q, 1 − q)·n/2) (McSherry & Talwar
/// 2007), ≤ β when n·ε ≥ 2·ln(points/β)/min(q, 1 − q).
fn certified_n_eps(points: usize, q: f64, beta: f64) -> f64 {
    2.0 * (points as f64 / beta).ln() / q.min(1.0 - q)
}

/// The n·ε from which [`private_mean_intercept_of`] runs: both its locating releases
/// (the median on the [`quantile::PublicGrid`] at the share 0.4, the spread octave on the
/// [`OctaveGrid`] at 0.25) certified at β = [`MEAN_INTERCEPT_FAILURE`]:
/// max(4·ln(124 929/β)/0.4, 4·ln(62/β)/0.25) ≈ 186.4. A function of nothing but
/// public constants.
pub fn mean_intercept_min_n_eps() -> f64 {
    let [f_m, f_s, _, _] = MEAN_INTERCEPT_SHARES;
    let b = MEAN_INTERCEPT_FAILURE;
    (certified_n_eps(quantile::PublicGrid::LEN, 0.5, b) / f_m)
        .max(certified_n_eps(OctaveGrid.len(), 0.5, b) / f_s)
}

/// Whether the intercept-only regression of n rows at ε is the private clipped mean
/// ([`private_mean_intercept_of`]) rather than the private median of the responses:
/// n·ε ≥ [`mean_intercept_min_n_eps`] (always without privacy). Public: n and ε only.
pub fn mean_intercept_applies(n: usize, epsilon: f64) -> bool {
    epsilon.is_infinite() || n as f64 * epsilon >= mean_intercept_min_n_eps()
}

/// The intercept of the intercept-only regression when it can be located
/// ([`mean_intercept_applies`]): a private estimate of the **mean** of the responses
/// (what the squared error needs; the median of a skewed or zero-inflated response is
/// far from it), pure ε-DP by basic composition of four releases with the shares
/// [`MEAN_INTERCEPT_SHARES`]:
///
/// 1. m, the median of y on the [`quantile::PublicGrid`] (exponential mechanism, Δ_u = 1);
/// 2. s, the median of the octaves ⌊|y − m|⌋₂ on the [`OctaveGrid`] (the MAD's octave;
///    the same mechanism, a row-wise public map given m);
/// 3. s₉, the same octaves' quantile at [`MEAN_INTERCEPT_ATOM_LEVEL`], used when s = 0
///    (an atom at m holds half the responses) and n·ε·0.1 certifies that level at β
///    (else the intercept is m);
/// 4. the mean of clamp(y − m, −c, c) with c = [`MEAN_INTERCEPT_UNIT`]·C·s, C =
///    [`intercept_clip`](n, ε₄), plus Laplace noise of sensitivity 2c/n (Dwork & Roth
///    Thm 3.6), clamped to [−c, c] (post-processing): b = m + that.
///
/// The intercept never leaves the released range [m − c, m + c], returned with it (the
/// model's `target_bounds`). Returns (b, range, what was spent, description).
pub fn private_mean_intercept_of<R: RngCore + ?Sized>(
    src: &mut dyn InterceptSource,
    budget: Budget,
    rng: &mut R,
) -> Result<(f64, [f64; 2], PrivacySpent, String), PreprocessError> {
    let n = src.rows();
    let mut ledger = PrivacyLedger::new(budget, Accountant::Basic);
    let eps = if budget.is_non_private() {
        f64::INFINITY
    } else {
        calibration_target(budget.epsilon)
    };
    let [e_m, e_s, e_a, e_c] = MEAN_INTERCEPT_SHARES.map(|f| eps * f);
    let qm = QuantileMechanism::new(0.5, e_m)?;
    let m = release_quantile(
        &mut ledger,
        "intercept median",
        &qm,
        &*src.residual_counts()?,
        rng,
    )?;
    let (s_half, s_atom) = {
        let counts = src.spread_octave_counts(m)?;
        let half = QuantileMechanism::on_grid(0.5, e_s, OctaveGrid)?;
        let atom = QuantileMechanism::on_grid(MEAN_INTERCEPT_ATOM_LEVEL, e_a, OctaveGrid)?;
        (
            release_quantile(&mut ledger, "intercept spread octave", &half, &*counts, rng)?,
            release_quantile(&mut ledger, "intercept spread octave", &atom, &*counts, rng)?,
        )
    };
    let atom_certified = n as f64 * e_a
        >= certified_n_eps(
            OctaveGrid.len(),
            MEAN_INTERCEPT_ATOM_LEVEL,
            MEAN_INTERCEPT_FAILURE,
        );
    let s = if s_half > 0.0 {
        s_half
    } else if atom_certified {
        s_atom
    } else {
        0.0
    };
    let c = MEAN_INTERCEPT_UNIT * intercept_clip(n, e_c) * s;
    let b = if c > 0.0 {
        let mean = src.shifted_clipped_sum(m, c)? / n as f64;
        let lap = LaplaceMechanism::new(2.0 * c / n as f64, e_c)?;
        let v = mechanisms::release(&mut ledger, "intercept clipped mean", &lap, &[mean], rng)?;
        m + v[0].clamp(-c, c)
    } else {
        // nothing to average: the release is m; the mean's share is charged all the
        // same (the ledger does not depend on the branch)
        let lap = LaplaceMechanism::new(1.0, e_c)?;
        ledger.charge(
            "intercept clipped mean",
            crate::mechanisms::Mechanism::cost(&lap),
        )?;
        m
    };
    Ok((
        b,
        [m - c, m + c],
        ledger.summary(PrivacyModel::Pure),
        format!(
            "clipped mean of the responses in [m - c, m + c] (the model's target_bounds), c = 2·C·s, C = {:.4}: m their private median, s the private octave of their median absolute deviation (Laplace, sensitivity 2c/n; shares 0.4/0.25/0.1/0.25)",
            intercept_clip(n, e_c)
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::rng_from_seed;
    use crate::privacy::add_up;

    fn lognormal_data(n: usize, seed: u64) -> Dataset {
        use rand_distr::{Distribution, Normal};
        let mut rng = rng_from_seed(seed);
        let nd = Normal::new(0.0, 1.0).unwrap();
        let mut x = Vec::with_capacity(n * 2);
        let mut y = Vec::with_capacity(n);
        for _ in 0..n {
            let a: f64 = nd.sample(&mut rng);
            let b: f64 = nd.sample(&mut rng);
            // column 1: wages-like lognormal in the thousands; column 2: a year
            x.push(1000.0 * (0.6 * a).exp());
            x.push(1990.0 + (10.0 * b).round());
            y.push(3.0 * x[x.len() - 2] / 1000.0 + 0.1 * x[x.len() - 1] + nd.sample(&mut rng));
        }
        Dataset::from_rows(x, y, 2).unwrap()
    }

    /// n rows of `binary` 0/1 columns (frequency 0.1), then `continuous` lognormal ones.
    fn mixed_data(n: usize, binary: usize, continuous: usize, seed: u64) -> Dataset {
        use rand::Rng;
        let mut rng = rng_from_seed(seed);
        let d = binary + continuous;
        let mut x = Vec::with_capacity(n * d);
        let mut y = Vec::with_capacity(n);
        for _ in 0..n {
            for _ in 0..binary {
                x.push(f64::from(u8::from(rng.random::<f64>() < 0.1)));
            }
            for _ in 0..continuous {
                x.push(100.0 * (rng.random::<f64>() + 0.5));
            }
            y.push(rng.random::<f64>());
        }
        Dataset::from_rows(x, y, d).unwrap()
    }

    #[test]
    fn target_moment_noise_matches_its_formula() {
        // zCDP: Gaussian at ρ = ε₀²/8 (one bounded-range quantile release's charge), σ =
        // Δ/√(2ρ) = 2Δ/ε₀; basic: Laplace b = Δ/ε₀; the (1 − β)-bounds of the noise
        let (delta, eps0) = (25.6, 0.04);
        let sigma = 2.0 * delta / eps0;
        let beta = SCALING_FAILURE;
        match ScalingNoise::bounded_range(delta, eps0, Accountant::Zcdp).unwrap() {
            n @ ScalingNoise::Gaussian(m) => {
                assert!(
                    (m.sigma / sigma - 1.0).abs() < 1e-12,
                    "{} vs {sigma}",
                    m.sigma
                );
                let rho = match n.cost().unwrap() {
                    Cost::Zcdp { rho } => rho,
                    c => panic!("{c:?}"),
                };
                assert!((rho / (eps0 * eps0 / 8.0) - 1.0).abs() < 1e-12);
                let bound = sigma * (2.0 * (1.0 / beta).ln()).sqrt();
                assert!((n.upper_bound(beta) / bound - 1.0).abs() < 1e-12);
            }
            other => panic!("expected Gaussian noise, got {other:?}"),
        }
        match ScalingNoise::bounded_range(delta, eps0, Accountant::Basic).unwrap() {
            n @ ScalingNoise::Laplace(m) => {
                assert!((m.scale / (delta / eps0) - 1.0).abs() < 1e-12);
                assert_eq!(n.cost(), Some(Cost::Pure { epsilon: eps0 }));
                let bound = delta / eps0 * (1.0 / (2.0 * beta)).ln();
                assert!((n.upper_bound(beta) / bound - 1.0).abs() < 1e-12);
            }
            other => panic!("expected Laplace noise, got {other:?}"),
        }
        let exact = ScalingNoise::bounded_range(delta, f64::INFINITY, Accountant::Zcdp).unwrap();
        assert_eq!(
            (exact, exact.cost(), exact.upper_bound(beta)),
            (ScalingNoise::Exact, None, 0.0)
        );
        // the release's sensitivity is (K·M)²/n: at ε₀ and M = 2, n = 1 000, the ledger's
        // one charge is ε₀²/8 and the released bound's spread is that Gaussian's
        let counts: Vec<f64> = vec![0.0; 1_000];
        let mut draws = Vec::new();
        let mut rng = rng_from_seed(4);
        for _ in 0..2_000 {
            let mut ledger = PrivacyLedger::new(Budget::new(1.0, 1e-6).unwrap(), Accountant::Zcdp);
            draws.push(
                release_target_moment(&mut ledger, &SortedColumn(&counts), 2.0, eps0, &mut rng)
                    .unwrap(),
            );
            assert_eq!(ledger.releases(), 1);
        }
        let sens = (TARGET_MOMENT_WINSOR * 2.0).powi(2) / 1_000.0;
        let sd_want = 2.0 * sens / eps0;
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        let sd =
            (draws.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / draws.len() as f64).sqrt();
        assert!((sd / sd_want - 1.0).abs() < 0.06, "{sd} vs {sd_want}");
        let shift = sd_want * (2.0 * (1.0 / beta).ln()).sqrt();
        assert!((mean + shift).abs() < 0.1 * sd_want, "{mean} vs {}", -shift);
    }

    #[test]
    fn the_winsorised_octave_moment_is_its_formula_on_both_count_sources() {
        use quantile::{octave_floor, GridHistogram};
        let values = [0.0, 0.3, -0.7, 1.0, 2.5, -6.0, 40.0, -1e9, 3.0, 0.001];
        let clip = 16.0;
        let want: f64 = values
            .iter()
            .map(|v| {
                let o = octave_floor(f64::abs(*v));
                (1.5 * o).min(clip).powi(2)
            })
            .sum::<f64>()
            / values.len() as f64;
        let mut octaves: Vec<f64> = values.iter().map(|v| octave_floor(v.abs())).collect();
        octaves.sort_by(f64::total_cmp);
        let sorted = winsorised_octave_moment(&SortedColumn(&octaves), clip);
        assert!((sorted / want - 1.0).abs() < 1e-12, "{sorted} vs {want}");
        let map = StageMap::SpreadOctave { c0: 0.0 };
        let mut hist = vec![0u64; map.cells()];
        for v in values {
            hist[map.cell(v)] += 1;
        }
        let from_hist = winsorised_octave_moment(&GridHistogram::from_cells(&hist), clip);
        assert_eq!(from_hist, sorted);
        // every row adds at most clip²: one row replaced moves it by ≤ clip²/n
        let mut other = octaves.clone();
        other[0] = octave_floor(1e300);
        other.sort_by(f64::total_cmp);
        let moved = winsorised_octave_moment(&SortedColumn(&other), clip) - sorted;
        let bound = clip * clip / values.len() as f64;
        assert!(
            moved > 0.0 && moved <= bound * (1.0 + 1e-12),
            "{moved} vs {bound}"
        );
    }

    #[test]
    fn plans_widen_the_target_from_the_public_row_count() {
        let b = Budget::new(0.2, 1e-6).unwrap();
        let below = ScalingPlan::new(TARGET_MOMENT_MIN_ROWS - 1, 4, b, true);
        let at = ScalingPlan::new(TARGET_MOMENT_MIN_ROWS, 4, b, true);
        let logistic = ScalingPlan::new(TARGET_MOMENT_MIN_ROWS, 4, b, false);
        assert_eq!(
            (
                below.target_releases(),
                at.target_releases(),
                logistic.target_releases()
            ),
            (RELEASES_PER_COLUMN, RELEASES_PER_COLUMN + 1, 0)
        );
        assert!(!below.target_moment && at.target_moment && !logistic.target_moment);
        // the sixth release is charged like a target quantile release: R_t·(t·ε_f)²/8 +
        // 5·d·ε_f²/8 = ρ
        let (ef, et) = at.epsilons(4);
        let rho = approx_to_zcdp_rho(calibration_target(b.epsilon), b.delta);
        let gate = match at.gate.and_then(|g| g.cost()) {
            Some(Cost::Zcdp { rho }) => rho,
            _ => 0.0,
        };
        let spent = gate + 6.0 * et * et / 8.0 + 20.0 * ef * ef / 8.0;
        assert!(
            spent <= rho && spent > rho * (1.0 - 1e-9),
            "{spent} vs {rho}"
        );
    }

    /// n rows of one normal feature and the target `target(z, u)` (z normal, u uniform).
    fn target_data(n: usize, seed: u64, target: impl Fn(f64, f64) -> f64) -> Dataset {
        use rand::Rng;
        use rand_distr::{Distribution, Normal};
        let mut rng = rng_from_seed(seed);
        let nd = Normal::new(0.0, 1.0).unwrap();
        let mut x = Vec::with_capacity(n);
        let mut y = Vec::with_capacity(n);
        for _ in 0..n {
            let z: f64 = nd.sample(&mut rng);
            let u: f64 = rng.random_range(0.0..1.0);
            x.push(nd.sample(&mut rng));
            y.push(target(z, u));
        }
        Dataset::from_rows(x, y, 1).unwrap()
    }

    #[test]
    fn heavy_tailed_targets_get_a_wider_scale_light_tailed_ones_keep_the_iqr() {
        let n = 20_000;
        // y = 100 + 5·z: σ = 5 (the IQR scale), the octave moment ≈ 1.1·σ²
        let normal = target_data(n, 1, |z, _| 100.0 + 5.0 * z);
        // y = 10·exp(1.5·z): IQR/1.349 ≈ 17.5, the winsorised octave moment's root ≈ 1.4×
        // that
        let heavy = target_data(n, 2, |z, _| 10.0 * (1.5 * z).exp());
        let budget = Budget::new(0.2, 1e-6).unwrap();
        let iqr_scale = |ds: &Dataset| {
            let mut y = ds.y().to_vec();
            y.sort_by(f64::total_cmp);
            let m = y.len();
            (y[3 * m / 4] - y[m / 4]) / IQR_PER_SIGMA
        };
        for seed in 0..4 {
            let (st, spent) =
                private_scales(&normal, true, budget, &mut rng_from_seed(seed)).unwrap();
            assert!(spent.epsilon <= 0.2);
            assert!((st.target.scale / 5.0 - 1.0).abs() < 0.1, "{:?}", st.target);
            let (st, _) = private_scales(&heavy, true, budget, &mut rng_from_seed(seed)).unwrap();
            let s = iqr_scale(&heavy);
            assert!(
                st.target.scale > 1.25 * s,
                "{:?} vs IQR scale {s}",
                st.target
            );
        }
        // ε = ∞: the scale is the square root of the exact octave moment around c₀
        let (st, _) =
            private_scales(&heavy, true, Budget::non_private(), &mut rng_from_seed(0)).unwrap();
        assert!(
            st.target.scale > 1.25 * iqr_scale(&heavy),
            "{:?}",
            st.target
        );
        // below TARGET_MOMENT_MIN_ROWS the target keeps its IQR scale (and five releases)
        let small = heavy.select_rows(&(0..TARGET_MOMENT_MIN_ROWS - 1).collect::<Vec<_>>());
        let (st, spent) =
            private_scales(&small, true, Budget::non_private(), &mut rng_from_seed(0)).unwrap();
        assert!(st.target.scale < 1.2 * iqr_scale(&small), "{:?}", st.target);
        assert_eq!(spent.releases, 10);
    }

    #[test]
    fn binary_gate_noise_matches_its_formula() {
        // σ = (n/4)/√(2 ln(1/β)), ℓ2 sensitivity √d, ρ = d/(2σ²) (widened); a halved σ
        // or sensitivity fails
        let (n, d) = (20_000, 16);
        let b = Budget::new(1.0, 1e-6).unwrap();
        let gate = binary_gate(n, d, b, Accountant::Zcdp).expect("the gate runs");
        let sigma = (n as f64 / 4.0) / (2.0 * (1.0 / GATE_FAILURE).ln()).sqrt();
        match gate.noise {
            ScalingNoise::Gaussian(m) => {
                assert!(
                    (m.sigma / sigma - 1.0).abs() < 1e-12,
                    "{} vs {sigma}",
                    m.sigma
                );
                assert!((m.sensitivity - (d as f64).sqrt()).abs() < 1e-12);
            }
            other => panic!("expected Gaussian noise, got {other:?}"),
        }
        assert_eq!(gate.threshold, n as f64 / 4.0);
        let rho = match gate.cost().unwrap() {
            Cost::Zcdp { rho } => rho,
            c => panic!("{c:?}"),
        };
        assert!((rho / (d as f64 / (2.0 * sigma * sigma)) - 1.0).abs() < 1e-9);
        // Laplace under basic composition: b = (n/4)/ln(1/(2β)), ε = d/b
        let gate = binary_gate(n, d, b, Accountant::Basic).expect("the gate runs");
        match gate.noise {
            ScalingNoise::Laplace(m) => {
                let scale = (n as f64 / 4.0) / (1.0 / (2.0 * GATE_FAILURE)).ln();
                assert!((m.scale / scale - 1.0).abs() < 1e-12);
                assert_eq!(m.sensitivity, d as f64);
            }
            other => panic!("expected Laplace noise, got {other:?}"),
        }
        // too costly a gate does not run: n small against d/ρ
        assert!(binary_gate(50, d, Budget::new(0.1, 1e-6).unwrap(), Accountant::Zcdp).is_none());
        // ε = ∞: exact counts
        assert_eq!(
            binary_gate(n, d, Budget::non_private(), Accountant::Basic).map(|g| g.noise),
            Some(ScalingNoise::Exact)
        );
    }

    #[test]
    fn binary_gate_and_releases_compose_to_the_budget() {
        let (n, d) = (20_000, 16);
        let b = Budget::new(0.15, 1e-6).unwrap();
        let plan = ScalingPlan::new(n, d, b, true);
        // n ≥ TARGET_MOMENT_MIN_ROWS: the target's six releases
        assert_eq!(plan.target_releases(), RELEASES_PER_COLUMN + 1);
        let acc = scaling_epsilons(b, d, plan.target_releases()).2;
        let gate = binary_gate(n, d, b, acc).unwrap();
        assert_eq!((plan.accountant, plan.gate), (acc, Some(gate)));
        for scaled in [0, 3, d] {
            let (ef, et) = plan.epsilons(scaled);
            let mut l = PrivacyLedger::new(b, acc);
            l.charge("gate", gate.cost().unwrap()).unwrap();
            for _ in 0..RELEASES_PER_COLUMN * scaled {
                l.charge("f", exponential_cost(ef, acc)).unwrap();
            }
            for _ in 0..plan.target_releases() {
                l.charge("t", exponential_cost(et, acc)).unwrap();
            }
            assert!(
                l.spent().0 <= 0.15 && l.spent().0 > 0.1499,
                "{:?}",
                l.spent()
            );
        }
        // fewer scaled features: a larger target ε₀
        let few = plan.epsilons(2).1;
        let all = plan.epsilons(d).1;
        assert!(few > 1.5 * all, "{few} vs {all}");
    }

    #[test]
    fn prepared_cells_are_the_maps_cells() {
        use rand::Rng;
        let mut rng = rng_from_seed(11);
        let mut xs: Vec<f64> = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            3.0,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE / 4.0,
            1e-300,
            2f64.powi(-20),
            2f64.powi(-20).next_down(),
            -(2f64.powi(-20).next_down()),
            2f64.powi(40),
            2f64.powi(41),
            -2f64.powi(45),
            1e300,
            -1e300,
        ];
        for _ in 0..20_000 {
            let scale = 2f64.powf(rng.random_range(-25.0..45.0));
            xs.push(rng.random_range(-1.0..1.0) * scale);
        }
        let mut maps = vec![StageMap::SignedOctave, StageMap::Binary];
        for &(c0, hw) in &[
            (0.0, 8.0),
            (0.75, 2.0),
            (-3.0, 0.25),
            (1e6, 2f64.powi(-18)),
            (12.5, 3.0),
            (0.1, 1e-3),
        ] {
            maps.push(StageMap::SpreadOctave { c0 });
            maps.push(StageMap::Snap { half_width: hw });
            maps.push(StageMap::Shift { c0, half_width: hw });
        }
        for map in maps {
            let p = map.prepared();
            // the linear grids' points and their neighbours, as well
            let mut values = xs.clone();
            if let StageMap::Snap { half_width } | StageMap::Shift { half_width, .. } = map {
                let g = StageMap::linear(half_width);
                let c0 = match map {
                    StageMap::Shift { c0, .. } => c0,
                    _ => 0.0,
                };
                for i in (0..g.len()).step_by(7) {
                    let v = g.value(i) + c0;
                    values.extend([v, v.next_up(), v.next_down(), g.value(i)]);
                }
                values.extend([-half_width - 1.0, half_width * 2.0, c0 - half_width]);
            }
            for &x in &values {
                assert_eq!(p.cell(x), map.cell(x), "{map:?} at {x:e}");
            }
        }
    }

    #[test]
    fn a_scaling_plan_of_other_columns_is_refused() {
        let data = mixed_data(500, 2, 2, 3);
        let b = Budget::new(1.0, 1e-6).unwrap();
        let features: Vec<usize> = (0..4).collect();
        // the plan's n, d or target differ from the columns': an error, nothing released
        for plan in [
            ScalingPlan::new(499, 4, b, true),
            ScalingPlan::new(500, 3, b, true),
            ScalingPlan::new(500, 4, b, false),
        ] {
            let mut src = LocalColumns::new(&data);
            let e = release_binary_gate(&mut src, &features, Some(4), plan, &mut rng_from_seed(1));
            assert!(
                matches!(e, Err(PreprocessError::PlanMismatch { .. })),
                "{e:?}"
            );
        }
        let mut src = LocalColumns::new(&data);
        let plan = ScalingPlan::new(500, 4, b, true);
        assert!(
            release_binary_gate(&mut src, &features, Some(4), plan, &mut rng_from_seed(1)).is_ok()
        );
    }

    #[test]
    fn binary_gate_classifies_zero_one_columns() {
        // 8 dummies and 4 continuous columns, n = 5000, ε = 1 (β = 0.05 per column; the
        // continuous columns are never close to the threshold)
        let data = mixed_data(5_000, 8, 4, 7);
        let b = Budget::new(1.0, 1e-6).unwrap();
        let mut wrong = 0;
        for seed in 0..20 {
            let mut src = LocalColumns::new(&data);
            let features: Vec<usize> = (0..12).collect();
            let plan = ScalingPlan::new(5_000, 12, b, true);
            let g = release_binary_gate(
                &mut src,
                &features,
                Some(12),
                plan,
                &mut rng_from_seed(seed),
            )
            .unwrap();
            assert!(
                g.binary[8..].iter().all(|b| !b),
                "a continuous column called binary"
            );
            wrong += g.binary[..8].iter().filter(|b| !**b).count();
            let (st, spent) = private_scales_after_gate(
                &mut src,
                &features,
                Some(12),
                g,
                &mut rng_from_seed(seed),
            )
            .unwrap();
            assert!(spent.epsilon <= 1.0);
            for (j, c) in st.features.iter().enumerate() {
                if j < 8 && *c == BINARY_SCALE {
                    continue;
                }
                assert!(c.scale > 0.0 && c.scale.is_finite());
            }
        }
        // 160 binary decisions at β = 0.05: expected ≤ 8 misses
        assert!(wrong <= 20, "{wrong} of 160 dummies not released binary");
        // ε = ∞: exact, every dummy binary, the continuous columns scaled as without a gate
        let mut src = LocalColumns::new(&data);
        let features: Vec<usize> = (0..12).collect();
        let (st, spent) = private_scales_of(
            &mut src,
            &features,
            Some(12),
            Budget::non_private(),
            &mut rng_from_seed(1),
        )
        .unwrap();
        assert_eq!(spent.releases, 5 * 5);
        assert!(st.features[..8].iter().all(|c| *c == BINARY_SCALE));
    }

    #[test]
    fn per_release_epsilon_composes_to_the_budget() {
        let b = Budget::new(0.1, 1e-7).unwrap();
        for k in [1, 3, 93, 1000] {
            let (e0, acc) = per_release_epsilon(b, k);
            let mut l = PrivacyLedger::new(b, acc);
            for _ in 0..k {
                l.charge("q", exponential_cost(e0, acc)).unwrap();
            }
            let (e, d) = l.spent();
            assert!(e <= 0.1 && e > 0.0999, "k = {k}: spent {e}");
            assert!(d <= 1e-7);
        }
        // δ = 0: basic
        let (e0, acc) = per_release_epsilon(Budget::pure(0.3).unwrap(), 3);
        assert_eq!(acc, Accountant::Basic);
        assert!(add_up(add_up(e0, e0), e0) <= 0.3);
    }

    #[test]
    fn exponential_releases_compose_as_bounded_range_in_zcdp() {
        // the formula: k releases of ε₀ with k·ε₀²/8 = ρ(ε, δ), i.e. ε₀ = √(8ρ/k): twice
        // the ε₀ of the pure-DP conversion ε₀²/2 (a halved ε₀ or the pure charge fails)
        let b = Budget::new(0.15, 1e-6).unwrap();
        let rho = approx_to_zcdp_rho(calibration_target(0.15), 1e-6);
        // (few releases compose better by basic composition: k = 5 here)
        assert_eq!(per_release_epsilon(b, 5).1, Accountant::Basic);
        for k in [45, 255] {
            let (e0, acc) = per_release_epsilon(b, k);
            assert_eq!(acc, Accountant::Zcdp);
            let want = (8.0 * rho / k as f64).sqrt();
            assert!((e0 / want - 1.0).abs() < 1e-12, "k = {k}: {e0} vs {want}");
            // the charge is ε₀²/8 per release, so the k releases spend the budget
            assert_eq!(
                exponential_cost(e0, acc),
                Cost::Zcdp {
                    rho: bounded_range_to_zcdp(e0)
                }
            );
            let mut l = PrivacyLedger::new(b, acc);
            for _ in 0..k {
                l.charge("q", exponential_cost(e0, acc)).unwrap();
            }
            assert!(l.spent().0 <= 0.15 && l.spent().0 > 0.1499);
            // one more release of the same ε₀ is refused
            assert!(l.charge("q", exponential_cost(e0, acc)).is_err());
            // charged as pure ε₀-DP (ε₀²/2 each), the same releases overspend
            let mut pure = PrivacyLedger::new(b, acc);
            let over = (0..k).any(|_| pure.charge("q", Cost::Pure { epsilon: e0 }).is_err());
            assert!(over, "k = {k}");
        }
        // basic composition keeps pure charges
        assert_eq!(
            exponential_cost(0.3, Accountant::Basic),
            Cost::Pure { epsilon: 0.3 }
        );
        // the scaling's feature and target ε₀ under zCDP: 5(2ε_f)²/8 + 5d·ε_f²/8 = ρ
        let (ef, et, acc) = scaling_epsilons(b, 10, RELEASES_PER_COLUMN);
        assert_eq!(acc, Accountant::Zcdp);
        let want = (8.0 * rho / (5.0 * 14.0)).sqrt();
        assert!((ef / want - 1.0).abs() < 1e-12 && (et / (2.0 * want) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn private_scales_record_bounded_range_charges() {
        let data = lognormal_data(2_000, 3);
        let budget = Budget::new(0.2, 1e-6).unwrap();
        let plan = ScalingPlan::new(2_000, 2, budget, true);
        let ((ef, et), acc) = (plan.epsilons(2), plan.accountant);
        assert_eq!(acc, Accountant::Zcdp);
        let gate_rho = match binary_gate(2_000, 2, budget, acc).unwrap().cost() {
            Some(Cost::Zcdp { rho }) => rho,
            c => panic!("{c:?}"),
        };
        let (_, spent) = private_scales(&data, true, budget, &mut rng_from_seed(4)).unwrap();
        // the binary gate (no column binary), then 5 releases for each of the 3 columns
        assert_eq!(spent.releases, 16);
        assert!(spent.epsilon <= 0.2 && spent.epsilon > 0.199);
        let rho: f64 = spent
            .ledger
            .iter()
            .map(|e| match e.cost {
                Cost::Zcdp { rho } => rho * e.count as f64,
                c => panic!("a scaling release charged {c:?} under zCDP"),
            })
            .sum();
        let want = gate_rho + 10.0 * bounded_range_to_zcdp(ef) + 5.0 * bounded_range_to_zcdp(et);
        assert!((rho / want - 1.0).abs() < 1e-12, "{rho} vs {want}");
        assert_eq!(
            spent.rho.map(|r| (r / want - 1.0).abs() < 1e-12),
            Some(true)
        );
    }

    #[test]
    fn the_target_gets_twice_a_features_epsilon_and_the_releases_compose_to_it() {
        for (b, d) in [
            (Budget::new(0.15, 1e-5).unwrap(), 8),
            (Budget::new(2.0, 1e-7).unwrap(), 35),
            (Budget::pure(0.3).unwrap(), 4),
        ] {
            let (ef, et, acc) = scaling_epsilons(b, d, RELEASES_PER_COLUMN);
            let mut l = PrivacyLedger::new(b, acc);
            let releases = std::iter::repeat_n(et, RELEASES_PER_COLUMN)
                .chain(std::iter::repeat_n(ef, RELEASES_PER_COLUMN * d));
            for e in releases {
                l.charge("q", exponential_cost(e, acc)).unwrap();
            }
            let (spent, _) = l.spent();
            assert!(
                spent <= b.epsilon && spent > 0.999 * b.epsilon,
                "{b:?}: {spent}"
            );
            // the target's ε₀ is twice a feature's
            assert!((et / ef - 2.0).abs() < 1e-12, "{acc:?}: {et} / {ef}");
        }
        // without a target (or without features) every release gets the same ε₀
        let b = Budget::new(0.15, 1e-5).unwrap();
        assert_eq!(scaling_epsilons(b, 8, 0).0, per_release_epsilon(b, 40).0);
        assert_eq!(
            scaling_epsilons(b, 0, RELEASES_PER_COLUMN).1,
            per_release_epsilon(b, 5).0
        );
    }

    #[test]
    fn column_groups_gather_every_column_exactly() {
        for (n, d) in [
            (1, 1),
            (5, 3),
            (4096, 8),
            (9_001, 19),
            (4_097, 70),
            (300, 333),
        ] {
            let x: Vec<f64> = (0..n * d).map(|v| v as f64 * 0.5 - 7.0).collect();
            let mut g = ColumnGroup::new(n, d);
            let mut out = vec![0.0; n];
            // in order, then out of order (a group re-read)
            for j in (0..d).chain((0..d).rev()) {
                g.column(&x, j, &mut out);
                let want: Vec<f64> = (0..n).map(|i| x[i * d + j]).collect();
                assert_eq!(out, want, "n = {n}, d = {d}, column {j}");
            }
        }
    }

    #[test]
    fn target_scaling_check_is_the_documented_bound() {
        // 4·ln((123 + 4097 + 62)/0.01)
        let needed = 4.0 * (4282.0f64 / 0.01).ln();
        let c = target_scaling_check(3_200, 8, Budget::new(0.15, 1e-5).unwrap());
        assert!((c.needed - needed).abs() < 1e-12);
        // (the gate runs at this n, d and budget: its cost comes first)
        let (_, et) =
            ScalingPlan::new(3_200, 8, Budget::new(0.15, 1e-5).unwrap(), true).epsilons(8);
        assert_eq!(c.n_eps0, 3_200.0 * et);
        // d = 8 at n = 1 600: unreliable at ε = 1 (scale share 0.15), reliable at ε = 2
        let delta = 1_600f64.powf(-1.1) * 0.15;
        assert!(!target_scaling_check(1_600, 8, Budget::new(0.15, delta).unwrap()).reliable());
        assert!(target_scaling_check(1_600, 8, Budget::new(0.30, delta).unwrap()).reliable());
        assert!(target_scaling_check(10, 8, Budget::non_private()).reliable());
    }

    #[test]
    fn feature_check_is_the_documented_bound_at_a_feature_release() {
        assert_eq!(
            MEDIAN_FAR_POINTS,
            (SignedOctaveGrid.len() + 2 * COARSE_STEPS + 1 + OctaveGrid.len()) as f64
        );
        // the pipeline's scaling budget of ε: 3/4 of the preprocessing share 0.2, δ = n^-1.1
        let plan = |n: usize, d: usize, eps: f64| {
            let frac = 0.75 * DEFAULT_PREPROCESS_SHARE;
            let budget = Budget::new(eps * frac, (n as f64).powf(-1.1) * frac).unwrap();
            ScalingPlan::new(n, d, budget, true)
        };
        let p = plan(10_000, 20, 0.5);
        let c = p.feature_check(20).unwrap();
        assert!((c.needed - 4.0 * (4282.0f64 / 0.1).ln()).abs() < 1e-12);
        assert_eq!(c.n_eps0, 10_000.0 * p.epsilons(20).0);
        // the coverage study's cells: d = 20 at ε = 0.5 is below (n·ε₀ ≈ 26.3), d = 5 at
        // ε = 0.5 (≈ 43.2) and d = 20 at ε = 1 (≈ 54.2) above
        assert!(!c.reliable() && (c.n_eps0 - 26.3).abs() < 0.1);
        assert!(plan(10_000, 5, 0.5).feature_check(5).unwrap().reliable());
        assert!(plan(10_000, 20, 1.0).feature_check(20).unwrap().reliable());
        // a feature's ε₀ is half the target's, and no feature scaled: no check
        assert_eq!(p.feature_check(0), None);
        let t = p.target_check(20);
        assert!((t.n_eps0 - 2.0 * c.n_eps0).abs() < 1e-6 * t.n_eps0);
        let free = ScalingPlan::new(10, 20, Budget::non_private(), true);
        assert!(free.feature_check(20).unwrap().reliable());
    }

    #[test]
    fn private_scales_are_close_to_the_truth_and_spend_the_budget() {
        let data = lognormal_data(20_000, 5);
        let budget = Budget::new(0.1, 1e-6).unwrap();
        let mut rng = rng_from_seed(9);
        let (st, spent) = private_scales(&data, true, budget, &mut rng).unwrap();
        assert!(spent.epsilon <= 0.1 && spent.epsilon > 0.099);
        // the binary gate, then 5 releases for each of the 3 columns and the target's
        // winsorised moment (n ≥ TARGET_MOMENT_MIN_ROWS)
        assert_eq!(spent.releases, 17);
        // lognormal(0, 0.6)·1000: quartiles 1000·e^{∓0.6·0.6745}; the centre is their
        // midpoint 1000·cosh(0.405) ≈ 1083
        let iqr = 1000.0 * ((0.6f64 * 0.6745).exp() - (-0.6f64 * 0.6745).exp());
        let mid = 1000.0 * (0.6f64 * 0.6745).cosh();
        let c = st.features[0];
        // (ε₀ ≈ 0.005 per release: the rank error is a few per cent, and the uniform grid
        // favours the sparser side of a skewed quartile)
        assert!((c.centre / mid - 1.0).abs() < 0.12, "{c:?}");
        assert!((c.scale * IQR_PER_SIGMA / iqr - 1.0).abs() < 0.3, "{c:?}");
        let yr = st.features[1];
        assert!((yr.centre - 1990.0).abs() <= 2.0, "{yr:?}");
        assert!((yr.scale - 10.0).abs() < 2.5, "{yr:?}");
    }

    #[test]
    fn infinite_epsilon_scales_are_the_grid_quantiles_and_draw_nothing() {
        let data = lognormal_data(1001, 2);
        let mut rng = rng_from_seed(1);
        let before = rng.clone();
        let (st, _) = private_scales(&data, false, Budget::non_private(), &mut rng).unwrap();
        assert_eq!(rng, before);
        assert_eq!(st.target, ColumnScale::IDENTITY);
        assert!(st.features[1].centre == 1990.0 || (st.features[1].centre - 1990.0).abs() <= 1.0);
    }

    #[test]
    fn apply_then_unscale_predicts_the_same() {
        let mut data = lognormal_data(50, 3);
        let raw = data.clone();
        let st = Standardization {
            features: vec![
                ColumnScale {
                    centre: 900.0,
                    scale: 400.0,
                },
                ColumnScale {
                    centre: 1990.0,
                    scale: 10.0,
                },
            ],
            target: ColumnScale {
                centre: 5.0,
                scale: 2.0,
            },
            winsor: None,
        };
        st.apply(&mut data);
        let (w_s, b_s) = ([0.7, -0.2], 0.3);
        let (w, b) = st.unscale(&w_s, b_s);
        for i in 0..raw.n() {
            let scaled_pred = st.target.centre
                + st.target.scale * (data.row(i)[0] * w_s[0] + data.row(i)[1] * w_s[1] + b_s);
            let raw_pred = raw.row(i)[0] * w[0] + raw.row(i)[1] * w[1] + b;
            assert!((scaled_pred - raw_pred).abs() < 1e-9 * (1.0 + raw_pred.abs()));
            // the target is standardised too
            assert!((data.y()[i] - (raw.y()[i] - 5.0) / 2.0).abs() < 1e-12);
        }
    }

    #[test]
    fn atom_levels_follow_the_public_rule() {
        // q_max = 1 − 2·ln(620)/(n·ε₀) = 1 − 12.859/(n·ε₀)
        let slack = 2.0 * (62.0f64 / SCALING_FAILURE).ln();
        assert_eq!(atom_levels(1_000_000, 1.0), ([0.9, 0.99], true));
        assert_eq!(atom_levels(10, f64::INFINITY), ([0.9, 0.99], true));
        let ([q1, q2], ok) = atom_levels(100, 0.6); // n·ε₀ = 60
        assert!(ok);
        assert!((q1 - (1.0 - slack / 60.0)).abs() < 1e-12);
        assert_eq!(q1, q2);
        let ([q1, q2], ok) = atom_levels(1000, 0.5); // n·ε₀ = 500: q_max = 0.974
        assert!(ok);
        assert_eq!(q1, 0.9);
        assert!((q2 - (1.0 - slack / 500.0)).abs() < 1e-12);
        // below the level 0.75 the atom could hold the quantile: released (the ledger
        // is the same) but not used
        assert_eq!(atom_levels(100, 0.5), ([0.75, 0.75], false));
        // the guarantee: an octave beyond the data has weight ≤ β at q_max
        let (n, e0) = (400usize, 0.2);
        let q = atom_levels(n, e0).0[0];
        let far = 62.0 * (-(1.0 - q) * n as f64 * e0 / 2.0).exp();
        assert!(far <= SCALING_FAILURE * (1.0 + 1e-9), "{far}");
    }

    /// A zero-inflated target (70 % zeros, the rest ≈ lognormal in the hundreds) and a
    /// dummy of frequency 1/8: their spread octave's median is 0, so the atom releases
    /// scale them — the target by the octave of its 0.9-quantile (not an IQR of
    /// 10⁻⁶), the dummy at 1/[`ATOM_FEATURE_SPREAD`]; both centred on their atom 0.
    #[test]
    fn atom_columns_are_scaled_by_their_high_octave_and_centred_on_the_atom() {
        use rand_distr::{Distribution, Normal};
        let n = 20_000;
        let mut rng = rng_from_seed(12);
        let nd = Normal::new(0.0, 1.0).unwrap();
        let mut x = Vec::with_capacity(2 * n);
        let mut y = Vec::with_capacity(n);
        for i in 0..n {
            let z: f64 = nd.sample(&mut rng);
            x.push(if i % 8 == 0 { 1.0 } else { 0.0 });
            x.push(z);
            y.push(if i % 10 < 7 {
                0.0
            } else {
                300.0 * (0.5 * z).exp()
            });
        }
        let data = Dataset::from_rows(x, y.clone(), 2).unwrap();
        // the true 0.9-quantile of y and its octave
        let mut sorted = y.clone();
        sorted.sort_by(f64::total_cmp);
        let q90 = sorted[(0.9 * n as f64) as usize];
        let octave = quantile::octave_floor(q90);
        for seed in 0..5 {
            let budget = Budget::new(0.5, 1e-6).unwrap();
            let (st, spent) =
                private_scales(&data, true, budget, &mut rng_from_seed(seed)).unwrap();
            assert!(spent.epsilon <= 0.5);
            // the binary gate releases the dummy binary (0/1 to 0/4, no quantile release);
            // 5 releases for the target (3 + two atom octaves) and the Gaussian column,
            // and the target's winsorised moment (charged; M = 0, so nothing read)
            assert_eq!(spent.releases, 12);
            assert_eq!(st.features[0].centre, 0.0);
            assert_eq!(st.features[0].scale, 1.0 / ATOM_FEATURE_SPREAD);
            assert_eq!(st.target.centre, 0.0);
            assert!(
                [octave / 2.0, octave, 2.0 * octave].contains(&st.target.scale),
                "seed {seed}: {:?} vs octave {octave}",
                st.target
            );
            // the Gaussian column keeps its quartile scale
            assert!(
                (st.features[1].scale - 1.0).abs() < 0.1,
                "{:?}",
                st.features[1]
            );
        }
        // ε = ∞: the exact octave, no draw
        let mut r = rng_from_seed(1);
        let before = r.clone();
        let (st, _) = private_scales(&data, true, Budget::non_private(), &mut r).unwrap();
        assert_eq!(r, before);
        assert_eq!(st.target.scale, octave);
        // a tiny budget: the atom releases are not reliable and not used (the ledger
        // still lists 5 per column, whichever branch a column takes)
        let small = data.select_rows(&(0..200).collect::<Vec<_>>());
        let budget = Budget::new(0.1, 1e-6).unwrap();
        let (_, e_target, _) = scaling_epsilons(budget, 2, RELEASES_PER_COLUMN);
        assert!(!atom_levels(200, e_target).1);
        let (_, spent) = private_scales(&small, true, budget, &mut rng_from_seed(3)).unwrap();
        assert_eq!(spent.releases, 15);
    }

    #[test]
    fn scale_fallbacks() {
        let s = scale_from_quantiles([0.0, 0.0]);
        assert_eq!(
            s,
            ColumnScale {
                centre: 0.0,
                scale: 1.0
            }
        );
        let s = scale_from_quantiles([3.0, 1.0]);
        assert_eq!(s.centre, 2.0);
        assert!((s.scale - 2.0 / IQR_PER_SIGMA).abs() < 1e-15);
    }

    #[test]
    fn intercept_noise_scale_matches_the_formula_and_halving_it_breaks_the_budget() {
        // Laplace scale = 2C/(n ε): its cost at the calibrated ε is the budget; at half the
        // sensitivity (a broken twin) the same noise would certify only ε/2, i.e. the real
        // cost of the true sensitivity is twice what the twin claims.
        let n = 10_000;
        let eps = 0.05;
        let c = intercept_clip(n, eps);
        assert!((c - (n as f64 * eps).sqrt() / 2.0).abs() < 1e-12);
        let lap = LaplaceMechanism::new(2.0 * c / n as f64, eps).unwrap();
        let twin = LaplaceMechanism::new(c / n as f64, eps).unwrap();
        assert!((lap.scale / twin.scale - 2.0).abs() < 1e-9);
        assert!((lap.scale - 2.0 * c / (n as f64 * eps)).abs() / lap.scale < 1e-9);
    }

    #[test]
    fn mean_intercept_noise_scale_is_2c_over_n_eps() {
        // y uniform on [−1.5, 1.5] (n = 4000): the MAD's octave is 0.5 with margin n/6,
        // so c = 2·C·0.5 = C = √(n·ε/4)/2 at ε = 1 (15.8) and nothing is clipped: b is
        // then mean(y) + Lap(2c/(n·ε/4)) exactly, whatever m is. Over 400 seeds the sd of
        // b − mean(y) is √2·2c/(n·ε/4) = 0.0447 (a halved sensitivity: 0.0224).
        let n = 4000;
        let y: Vec<f64> = (0..n)
            .map(|i| -1.5 + 3.0 * (i as f64 + 0.5) / n as f64)
            .collect();
        let mean = y.iter().sum::<f64>() / n as f64;
        let zeros = vec![0.0; n];
        let e_c = MEAN_INTERCEPT_SHARES[3] * calibration_target(1.0);
        let c = MEAN_INTERCEPT_UNIT * intercept_clip(n, e_c) * 0.5;
        let want = std::f64::consts::SQRT_2 * 2.0 * c / (n as f64 * e_c);
        let devs: Vec<f64> = (0..400)
            .map(|seed| {
                let mut r = rng_from_seed(7000 + seed);
                let (b, range, spent, _) = private_mean_intercept_of(
                    &mut Residuals::new(&zeros, &y),
                    Budget::pure(1.0).unwrap(),
                    &mut r,
                )
                .unwrap();
                assert!(spent.epsilon <= 1.0 && spent.releases == 4);
                assert!(range[0] <= b && b <= range[1]);
                assert!((range[1] - range[0] - 2.0 * c).abs() < 1e-9, "{range:?}");
                b - mean
            })
            .collect();
        let sd = (devs.iter().map(|v| v * v).sum::<f64>() / 400.0).sqrt();
        assert!(sd > 0.85 * want && sd < 1.15 * want, "sd {sd} vs {want}");
    }

    #[test]
    fn mean_intercept_estimates_the_mean_of_a_skewed_zero_inflated_target() {
        // 40 % zeros, the rest lognormal(5, 1) (mean e^5.5 = 244.7): the mean of the
        // whole target is 0.6·244.7 = 146.8, its median ≈ 117 (a median intercept
        // would miss by 30); at n = 20 000, ε = 1 the clipped mean is within 5 % of the
        // sample mean and inside its released range
        use rand_distr::{Distribution, LogNormal};
        let mut rng = rng_from_seed(11);
        let ln = LogNormal::new(5.0, 1.0).unwrap();
        let n = 20_000;
        let y: Vec<f64> = (0..n)
            .map(|i| if i % 5 < 2 { 0.0 } else { ln.sample(&mut rng) })
            .collect();
        let mean = y.iter().sum::<f64>() / n as f64;
        let zeros = vec![0.0; n];
        for seed in 0..5 {
            let mut r = rng_from_seed(50 + seed);
            let (b, range, _, how) = private_mean_intercept_of(
                &mut Residuals::new(&zeros, &y),
                Budget::pure(1.0).unwrap(),
                &mut r,
            )
            .unwrap();
            assert!((b - mean).abs() < 0.05 * mean, "b = {b}, mean {mean}");
            assert!(range[0] <= b && b <= range[1]);
            assert!(how.contains("clipped mean"));
        }
        // an atom at the median (70 % zeros): the spread comes from the 0.9 level
        let y: Vec<f64> = (0..n)
            .map(|i| {
                if i % 10 < 7 {
                    0.0
                } else {
                    10.0 + (i % 7) as f64
                }
            })
            .collect();
        let mean = y.iter().sum::<f64>() / n as f64;
        let (b, _, _, _) = private_mean_intercept_of(
            &mut Residuals::new(&zeros, &y),
            Budget::pure(1.0).unwrap(),
            &mut rng_from_seed(3),
        )
        .unwrap();
        assert!((b - mean).abs() < 0.05 * mean, "b = {b}, mean {mean}");
        // the public rule: certified n·ε ≈ 186.4
        let t = mean_intercept_min_n_eps();
        assert!((t - 186.43).abs() < 0.01, "{t}");
        assert!(mean_intercept_applies(187, 1.0) && !mean_intercept_applies(186, 1.0));
        assert!(mean_intercept_applies(2, f64::INFINITY));
    }

    /// [`private_intercept`] of scaled data under pure ε, which must succeed: the release
    /// the accuracy test checks for each loss.
    fn pure_intercept(
        loss: LossKind,
        margins: &[f64],
        y: &[f64],
        eps: f64,
        rng: &mut crate::noise::HeavyRng,
    ) -> (f64, PrivacySpent, String) {
        private_intercept(&loss, margins, y, true, Budget::pure(eps).unwrap(), rng).unwrap()
    }

    #[test]
    fn private_intercept_accuracy() {
        // residuals ~ 0.4 + N(0,1): clipped-mean intercept within 0.05 at n = 20 000, ε = 0.1
        use rand_distr::{Distribution, Normal};
        let mut rng = rng_from_seed(4);
        let nd = Normal::new(0.4, 1.0).unwrap();
        let y: Vec<f64> = (0..20_000).map(|_| nd.sample(&mut rng)).collect();
        let m = vec![0.0; y.len()];
        let (b, spent, _) = pure_intercept(LossKind::Squared, &m, &y, 0.1, &mut rng);
        assert!((b - 0.4).abs() < 0.05, "b = {b}");
        assert!(spent.epsilon <= 0.1);
        // the base-rate release: logit(0.7) within 0.05 at n = 5000, ε = 0.5
        let lab7: Vec<f64> = (0..5000)
            .map(|i| if i % 10 < 7 { 1.0 } else { -1.0 })
            .collect();
        let (b7, spent7, _) =
            private_base_rate_intercept(&lab7, Budget::pure(0.5).unwrap(), &mut rng).unwrap();
        assert!((b7 - 0.847).abs() < 0.05, "b = {b7}");
        assert!(spent7.epsilon <= 0.5);
        // its noise is Laplace(1/ε) on the count (sensitivity 1): over 400 seeds at
        // n = 1000, ε = 0.5 the count recovered from b has sd ≈ √2/ε = 2.83 (a halved
        // sensitivity would give 1.41, a doubled one 5.66)
        let lab4: Vec<f64> = (0..1000)
            .map(|i| if i % 10 < 4 { 1.0 } else { -1.0 })
            .collect();
        let counts: Vec<f64> = (0..400)
            .map(|seed| {
                let mut r = rng_from_seed(1000 + seed);
                let (b, _, _) =
                    private_base_rate_intercept(&lab4, Budget::pure(0.5).unwrap(), &mut r).unwrap();
                1000.0 * sigmoid(b)
            })
            .collect();
        let mean = counts.iter().sum::<f64>() / 400.0;
        let sd = (counts.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / 399.0).sqrt();
        assert!((mean - 400.0).abs() < 0.6, "mean count {mean}");
        assert!(sd > 2.4 && sd < 3.3, "sd {sd} vs 2.83");
        // logistic: 70 % positives, zero margins: b ≈ logit(0.7) = 0.847
        let lab: Vec<f64> = (0..5000)
            .map(|i| if i % 10 < 7 { 1.0 } else { -1.0 })
            .collect();
        let (b, _, _) = pure_intercept(LossKind::Logistic, &vec![0.0; 5000], &lab, 0.5, &mut rng);
        assert!((b - 0.847).abs() < 0.1, "b = {b}");
        // absolute loss: median of residuals
        let (b, _, how) = pure_intercept(LossKind::Absolute, &m, &y, 0.5, &mut rng);
        assert!((b - 0.4).abs() < 0.05, "b = {b}");
        assert!(how.contains("median"));
    }
}
