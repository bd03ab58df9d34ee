//! `adahuber`: the **non-private** baseline of Tian, Ding, Tao, Xiang & Wang — the
//! ℓ1-penalised adaptive Huber regression of Sun, Zhou & Fan (2020) with tuning-free τ,
//! fitted by LAMM and tuned by K-fold cross-validation, as in the R package `adaHuber`
//! (`adaHuber.cv.lasso`). Spec: `spec/tian-dp-iht-heavy-tailed-response.md` §7, §5.4,
//! ambiguities T14, T16.
//!
//! # Algorithm
//!
//! ```text
//! standardise (scale only): z_ij = x_ij / sd_j      (sd_j: sample sd of column j, all n rows;
//!                                                    constant columns get β_j = 0)
//! λ grid: λ_max = max_j |Z_jᵀ y| / n, λ_min = lambda_min_ratio·λ_max,
//!         num_lambda values log-spaced, descending
//! CV rows: all n rows, or a random subsample of cv_rows rows when n > cv_rows
//! folds: a random permutation of the CV rows, row k of it in fold k mod K
//! for each fold: fit HuberLasso(Z_train, y_train, λ) along the descending grid (warm
//!     starts) and add Σ_test (y_i − z_iᵀβ̂)² to the fold-summed error of λ
//! λ* ← the grid value with the smallest summed error (ties: the larger λ)
//! β̂ ← HuberLasso(Z, y, λ*) on all n rows (refit=cold: from β = 0;
//!      refit=path: along the grid from λ_max down to λ*, warm starts)
//! β_j ← β̂_j / sd_j                                   (unscale)
//! keep the s* largest |β_j| (unless truncate=false), then project on ‖β‖₂ ≤ R
//!
//! HuberLasso(Z, y, λ) = huber_lasso():               # LAMM with tuning-free τ
//!     β ← warm start or 0;  φ ← phi0;  τ ← 1.345·MAD(y),  MAD(u) = 1.482602·median|u − median u|
//!     repeat up to max_iter:
//!         g ← ∇(1/n)Σ ℓ_τ(y_i − z_iᵀβ)
//!         loop:                                       # majorisation
//!             β⁺ ← SoftThreshold(β − g/φ, λ/φ)
//!             if L_τ(β⁺) ≤ L_τ(β) + ⟨g, β⁺ − β⟩ + (φ/2)‖β⁺ − β‖²: break
//!             φ ← γ·φ
//!         φ ← max(phi0, φ/γ)
//!         if ‖β⁺ − β‖_∞ ≤ tol: return β⁺             # stop=step (package); stop=kkt:
//!                                                    #   φ‖β⁺ − β‖_∞ ≤ tol·λ
//!         β ← β⁺;  r ← y − Zβ
//!         τ ← √t*,  t* the root of (1/n)Σ min(r_i²/t, 1) = log(n·d)/n on [min r_i², Σ r_i²]
//! ```
//!
//! The τ-equation is solved by [`solve_tau`] (exactly, see its docs). `adahuber_tau=package`
//! uses y_i² instead of r_i² (what the package computes; spec §7 note), which makes τ
//! constant after the first step. The τ-equation makes only ≈ log(n·d) residuals exceed
//! τ, so τ grows like √(n/log(n·d)) times the noise scale (τ ≈ 40 at n = 2000, d = 50 with
//! Student-t ν = 1.75 noise): the fit is close to the least-squares lasso except for the
//! few largest residuals.
//!
//! **d ≫ n.** The package's stopping rule bounds the step ‖β⁺ − β‖_∞ = ‖gradient map‖/φ,
//! and φ ≈ λ_max(ZᵀZ/n) ≈ d/n for d ≫ n, so with tol = 10⁻³ LAMM stops after two or
//! three steps with thousands of tiny non-zeros (measured: n = 57, d = 22 282 → 17 000
//! non-zeros before truncation). Such a fit is noted in the report (more non-zeros than
//! rows). `--param stop=kkt` stops on the gradient map relative to λ instead (and then
//! refits along the path), which reaches the lasso solution (≤ n non-zeros) at a higher
//! cost; use it for wide real data.
//!
//! # Privacy
//!
//! **None.** This is a non-private reference method (spec §7: the "adaHuber" curve of
//! Fig. 1 and the first row of Tables 1–2). The budget is accepted and ignored (ε = ∞ too);
//! nothing is charged and the model file reports ε = ∞. The random generator is used
//! only for the CV subsample and the fold assignment.
//!
//! # Parameters
//!
//! | name | symbol | default | source |
//! |---|---|---|---|
//! | `folds` | kfolds | 5 | Sun, Zhou & Fan 2020; R adaHuber::adaHuber.cv.lasso; Tian spec §7 |
//! | `num_lambda` | numLambda | 50 | same |
//! | `lambda_min_ratio` | λ_min/λ_max | 0.01 | same |
//! | `phi0` | φ₀ | 0.01 | same |
//! | `gamma` | γ | 1.2 (must be > 1) | same |
//! | `tol` | ε | 10⁻³ (see `stop`) | same |
//! | `max_iter` | iteMax | 500 (per HuberLasso call) | same |
//! | `lambda` | λ | none: chosen by CV; given: fixed λ (standardised scale), no CV | same |
//! | `adahuber_tau` | — | `residual` (r² in the τ-equation); `package` (y²) | Tian spec §7 note |
//! | `truncate` | — | `true`: keep the s* largest \|β_j\| (s* = `--sparsity`) | Tian spec T16 |
//! | `cv_rows` | — | 10 000: CV on a random subsample of this many rows when n is larger | Tian spec §7 "Cost" |
//! | `stop` | — | `step`: ‖β⁺ − β‖_∞ ≤ tol (package); `kkt`: φ‖β⁺ − β‖_∞ ≤ tol·λ | package; `kkt`: heavydp |
//! | `refit` | — | `cold` (package); `path` when `stop=kkt` | package; `path`: heavydp |
//!
//! Recorded in the report's hyperparameters besides these: `lambda` (λ* used),
//! `lambda_max`, `lambda_source` (cv, fixed or degenerate), `tau` (the final τ of the
//! refit), `cv_rows` (rows used by CV, 0 without CV), `cv_error` (mean held-out squared
//! error at λ*), `size_untruncated` (non-zeros of the CV fit before truncation),
//! `iterations` (LAMM steps of the refit at λ*), `refit_iterations_total`,
//! `excluded_columns` (constant columns). Whether LAMM met its stopping rule is not
//! recorded, and the status is `completed` either way (no status bit computed from the
//! data outside the released values: docs/privacy.md §1).
//!
//! # Deviations from the package (documented choices)
//!
//! * **No intercept.** heavydp models hold only weights (prediction ⟨w, x⟩), so the fit is
//!   y ≈ xᵀβ: features are **scaled, not centred** (z_ij = x_ij/sd_j, sd_j about the column
//!   mean), y is **not centred**. The package fits an unpenalised intercept on centred
//!   data; the heavydp experiments centre y and X themselves (spec T14), where the two
//!   coincide up to the package's fitted intercept (≈ 0 on centred data). MAD(y) is
//!   shift-invariant, so the start τ is the package's; `adahuber_tau=package` uses the
//!   y² of the response as given (the package: of the centred response).
//! * **λ_max on the standardised Z** (the spec writes raw X, as the package does): the
//!   lasso on Z has the all-zero solution exactly at λ ≥ max_j |Z_jᵀy|/n, so the grid
//!   starts at the all-zero fit only when λ_max is computed on Z (on raw X the top of the
//!   grid is off by the factors sd_j). λ values (including `lambda`) are on the Z scale.
//! * **Warm starts** along the descending grid inside each CV fold: each λ starts from the
//!   previous solution and its last majorisation constant (φ ≥ φ₀; τ restarts from
//!   1.345·MAD(y)). This changes only LAMM's starting point; the fixed point is the same
//!   up to `tol`. The default refit starts from 0 (package).
//! * **The τ-equation is solved exactly** (closed form on the sorted r², see
//!   [`solve_tau`]) rather than by a bisection with tolerance 10⁻³; it is the same root.
//! * Floating-point details (same mathematics): the majorisation test is evaluated as
//!   (1/n)Σ_i D_τ(r_i, r⁺_i) ≤ (φ/2)‖β⁺ − β‖², where D_τ is the Bregman divergence of the
//!   Huber loss (this equals L_τ(β⁺) − L_τ(β) − ⟨g, β⁺ − β⟩ because r⁺ − r = −Z(β⁺ − β)),
//!   which avoids subtracting two nearly equal loss sums and lets LAMM reach tolerances far
//!   below 10⁻³; φ stops growing after 200 enlargements in one step (a guard that never
//!   binds on finite data with γ > 1). If MAD(y) = 0 the start τ is 1.345·√(mean y²) (0 only
//!   for y ≡ 0, whose fit is β = 0); when the τ-equation has no positive root the previous
//!   τ is kept.
//! * The loss `huber` and `squared` are both accepted (the CLI's `--loss`); its τ is
//!   ignored, adaHuber tunes τ itself.
//! * CV uses the standardisation and the λ grid of the full data (as the package does);
//!   for n > `cv_rows` it runs on a random subsample, and the refit uses all n rows.
//!
//! # Cost
//!
//! CV makes one column-major copy of its rows (≤ `cv_rows` × d values), used for the
//! products Zβ (|supp β| contiguous columns) and, with ≥ 512 rows, for the gradient (one
//! dot product per column); the refit reads the data in place. Every reduction has a
//! fixed order, so results are bit-identical for any number of threads.
//!
//! # Errors
//! A loss other than `huber`/`squared`; a domain other than `sparse`; fewer CV rows than
//! folds (`folds` > n); `gamma` ≤ 1, `lambda_min_ratio` > 1, `cv_rows` < `folds`, or a
//! fixed τ ≤ 0 (struct API only).
//!
//! # Example
//! ```
//! use heavydp::algorithms::{adaptive_huber::AdaHuber, NoObserver, PrivateAlgorithm, Problem};
//! use heavydp::constraints::SparseBall;
//! use heavydp::data::Dataset;
//! use heavydp::loss::LossKind;
//! use heavydp::noise::rng_from_seed;
//! use heavydp::privacy::Budget;
//! let x: Vec<f64> = (0..800).map(|i| ((i * 37 % 101) as f64 / 50.0 - 1.0)).collect();
//! let y: Vec<f64> = x.chunks(4).map(|r| 2.0 * r[0] - r[2]).collect();
//! let data = Dataset::from_rows(x, y, 4).unwrap();
//! let domain = SparseBall { d: 4, s: 2, radius: 10.0 };
//! let problem = Problem { data: &data, loss: LossKind::Huber { tau: 1.0 }, domain: &domain };
//! let report = AdaHuber::default()
//!     .fit(&problem, Budget::non_private(), &mut rng_from_seed(1), &mut NoObserver)
//!     .unwrap();
//! assert!(report.weights.iter().filter(|w| **w != 0.0).count() <= 2);
//! assert!((report.weights[0] - 2.0).abs() < 0.1);
//! assert!(report.privacy.epsilon.is_infinite());
//! ```

use super::*;
use crate::linalg::{axpy, block_rows, dot};
use crate::params::param_words;
use crate::privacy::{Accountant, PrivacyLedger};
use rayon::prelude::*;

const NAME: &str = "adahuber";

/// The registry entry of `adahuber` ([`crate::algorithms::REGISTRY`]).
pub const DESCRIPTOR: AlgorithmDescriptor = AlgorithmDescriptor::new(
    NAME,
    AdaHuber::info,
    |p| boxed(AdaHuber::from_params(p)),
    ("huber", "sparse"),
)
.materialised()
.cited(crate::algorithms::Citation {
    authors: "Sun, Zhou & Fan",
    title: "",
    item: "adaHuber, baseline of Tian et al. §6",
    summary: "adaptive Huber lasso, cross-validated, tuning-free τ (non-private)",
    rust: "adaptive_huber::AdaHuber",
    spec: "tian §7, T16",
});
const SOURCE: &str = "Sun, Zhou & Fan 2020; R adaHuber::adaHuber.cv.lasso; Tian spec §7";

/// The gradient uses the column-major sample copy (one dot product per column) when it
/// has at least this many rows; shorter, wide samples stream their rows instead.
const COLUMN_GRADIENT_MIN_ROWS: usize = 512;
/// Most φ enlargements in one LAMM step.
const MAX_TRIALS: usize = 200;
/// The normal-consistency constant of the MAD.
const MAD_SCALE: f64 = 1.482602;
/// τ₀ = 1.345·MAD(y) (the package's start value).
const TAU_START: f64 = 1.345;

// ------------------------------------------------------------------ LAMM solver

/// How LAMM sets the Huber parameter τ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TauRule {
    /// τ₀ = 1.345·MAD(y), then τ = √t* from the current residuals r² after every step
    /// (`adahuber_tau=residual`, the default; spec §7).
    Residual,
    /// τ₀ = 1.345·MAD(y), then τ = √t* from y² (what the package computes;
    /// `adahuber_tau=package`). τ is then constant after the first step.
    Package,
    /// τ frozen at this value (> 0) throughout: a plain Huber lasso (for comparisons and
    /// tests; not a `--param` value).
    Fixed(f64),
}

impl TauRule {
    /// The parameter value (`fixed` for [`TauRule::Fixed`]).
    pub fn name(self) -> &'static str {
        match self {
            TauRule::Residual => "residual",
            TauRule::Package => "package",
            TauRule::Fixed(_) => "fixed",
        }
    }
}

/// When LAMM stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopRule {
    /// ‖β⁺ − β‖_∞ ≤ tol: the package's rule (spec §7), `stop=step`, the default. The step
    /// is the gradient mapping divided by φ, so when φ is large (φ ≈ λ_max(ZᵀZ/n) ≈ d/n
    /// for d ≫ n) this stops long before the lasso solution is reached.
    Step,
    /// φ‖β⁺ − β‖_∞ ≤ tol·λ (tol·1 when λ = 0): the gradient mapping, i.e. the KKT
    /// residual up to the Lipschitz term of [`LammResult::phi`], is at most a fraction
    /// tol of λ — a scale-free rule that is meaningful for d ≫ n too (`stop=kkt`).
    Kkt,
}
param_words!(StopRule: "step" => Step, "kkt" => Kkt);

/// How `adahuber` refits on all rows at the chosen λ*.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refit {
    /// One LAMM run at λ* from β = 0 (the package; `refit=cold`).
    Cold,
    /// LAMM along the grid from λ_max down to λ*, each value warm-started from the
    /// previous solution (`refit=path`): the same fixed point, far fewer steps when d ≫ n.
    Path,
}
param_words!(Refit: "cold" => Cold, "path" => Path);

/// Options of [`huber_lasso`]. `Default` = the package's values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LammOptions {
    /// Initial (and minimal) majorisation constant φ₀ (0.01).
    pub phi0: f64,
    /// Factor γ > 1 by which φ grows in the majorisation search (1.2).
    pub gamma: f64,
    /// Tolerance of the stopping rule `stop` (10⁻³).
    pub tol: f64,
    /// At most this many LAMM steps (500).
    pub max_iter: usize,
    /// The τ rule ([`TauRule::Residual`]).
    pub tau: TauRule,
    /// The stopping rule ([`StopRule::Step`], the package's).
    pub stop: StopRule,
}

impl Default for LammOptions {
    fn default() -> Self {
        LammOptions {
            phi0: 0.01,
            gamma: 1.2,
            tol: 1e-3,
            max_iter: 500,
            tau: TauRule::Residual,
            stop: StopRule::Step,
        }
    }
}

/// The result of [`huber_lasso`].
#[derive(Debug, Clone, PartialEq)]
pub struct LammResult {
    /// β on the scale of the design passed in.
    pub beta: Vec<f64>,
    /// The τ of the last step (the fixed value for [`TauRule::Fixed`]).
    pub tau: f64,
    /// LAMM steps taken.
    pub iterations: usize,
    /// Whether the stopping rule (`opts.stop`) was met within `max_iter` steps.
    pub converged: bool,
    /// The majorisation constant φ of the last accepted step. With `last_step` it bounds
    /// the KKT residual of `beta`: for every j,
    /// |∇_j L_τ(β) + λ s_j| ≤ (φ + (1/n)Σ_i |z_ij|‖z_i‖₁)·last_step for some s ∈ ∂‖β‖₁.
    pub phi: f64,
    /// ‖β⁺ − β‖_∞ of the last step (∞ when no step was taken).
    pub last_step: f64,
}

/// A row subset of a row-major design with optional column multipliers: row k of the
/// design is `x[rows[k]]` with column j multiplied by `scale[j]`. Nothing is copied.
struct Design<'a> {
    x: &'a [f64],
    d: usize,
    y: &'a [f64],
    rows: Option<&'a [usize]>,
    scale: Option<&'a [f64]>,
    /// Optional column-major copy of a row sample holding every design row (used for
    /// the products Zβ with a sparse β, which then read |supp β| contiguous columns
    /// instead of scattered entries of every row).
    cols: Option<ColumnView<'a>>,
}

/// A column-major copy of m sampled rows (`data[j·m + p]` = x of sampled row p, column
/// j) and, for every design row k, its position `pos[k]` in the sample.
#[derive(Clone, Copy)]
struct ColumnView<'a> {
    data: &'a [f64],
    m: usize,
    pos: &'a [usize],
}

impl Design<'_> {
    fn n(&self) -> usize {
        self.rows.map_or(self.y.len(), |r| r.len())
    }
    #[inline]
    fn row_index(&self, k: usize) -> usize {
        match self.rows {
            Some(r) => r[k],
            None => k,
        }
    }
    #[inline]
    fn row(&self, k: usize) -> &[f64] {
        let i = self.row_index(k);
        &self.x[i * self.d..(i + 1) * self.d]
    }
    fn responses(&self) -> Vec<f64> {
        (0..self.n()).map(|k| self.y[self.row_index(k)]).collect()
    }
}

/// Reusable buffers of one solver thread.
#[derive(Default)]
struct Workspace {
    partials: Vec<f64>,
    dense: Vec<f64>,
    coef: Vec<(usize, f64)>,
    /// A vector over the column sample (margins, or ψ for the gradient).
    sample_margins: Vec<f64>,
}

/// Rows per partial sum of the gradient pass: a function of (n, d) only (so results do
/// not depend on the thread count), at most 256 partial vectors.
fn reduction_block(n: usize, d: usize) -> usize {
    block_rows(d).max(n.div_ceil(256)).max(1)
}

#[inline]
fn soft_threshold(v: f64, k: f64) -> f64 {
    if v > k {
        v - k
    } else if v < -k {
        v + k
    } else {
        0.0
    }
}

/// D_τ(a, b) = ℓ_τ(b) − ℓ_τ(a) − ψ_τ(a)(b − a) (the Bregman divergence of the Huber
/// loss), computed without cancellation: for b ≥ a it is ∫_a^b (ψ_τ(u) − ψ_τ(a)) du =
/// w²/2 + (b − q)·w with [p, q] = [a, b] ∩ [−τ, τ], w = q − p (0 if empty); b < a by symmetry.
#[inline]
fn huber_bregman(a: f64, b: f64, tau: f64) -> f64 {
    let (a, b) = if b < a { (-a, -b) } else { (a, b) };
    let p = a.max(-tau);
    let q = b.min(tau);
    if q <= p {
        0.0
    } else {
        let w = q - p;
        0.5 * w * w + (b - q) * w
    }
}

/// Σ_i D_τ(r_i, r⁺_i), in fixed blocks added in order.
fn bregman_sum(r: &[f64], r_new: &[f64], tau: f64) -> f64 {
    const B: usize = 8192;
    let block = |(a, b): (&[f64], &[f64])| -> f64 {
        a.iter()
            .zip(b)
            .map(|(x, y)| huber_bregman(*x, *y, tau))
            .sum::<f64>()
    };
    if r.len() <= B {
        return block((r, r_new));
    }
    let parts: Vec<f64> = r
        .par_chunks(B)
        .zip(r_new.par_chunks(B))
        .map(block)
        .collect();
    parts.iter().sum()
}

/// out_k = y_k − z_kᵀβ, via the non-zero β_j (dense dot products when β is dense).
fn residuals(design: &Design, yv: &[f64], beta: &[f64], out: &mut [f64], ws: &mut Workspace) {
    let d = design.d;
    ws.coef.clear();
    for (j, &b) in beta.iter().enumerate() {
        let c = match design.scale {
            Some(s) => b * s[j],
            None => b,
        };
        if c != 0.0 {
            ws.coef.push((j, c));
        }
    }
    if ws.coef.is_empty() {
        out.copy_from_slice(yv);
        return;
    }
    if let Some(cv) = design.cols {
        // margins of every sampled row: Σ_j c_j X_j over contiguous columns, summed in
        // coefficient order (the same arithmetic as the row-wise loop below)
        const B: usize = 2048;
        ws.sample_margins.clear();
        ws.sample_margins.resize(cv.m, 0.0);
        let coef = &ws.coef;
        ws.sample_margins
            .par_chunks_mut(B)
            .enumerate()
            .for_each(|(b, acc)| {
                let p0 = b * B;
                for &(j, c) in coef {
                    let col = &cv.data[j * cv.m + p0..j * cv.m + p0 + acc.len()];
                    for (a, v) in acc.iter_mut().zip(col) {
                        *a += v * c;
                    }
                }
            });
        let margins = &ws.sample_margins;
        for ((o, y), &p) in out.iter_mut().zip(yv).zip(cv.pos) {
            *o = y - margins[p];
        }
        return;
    }
    if ws.coef.len() * 4 >= d {
        ws.dense.clear();
        ws.dense.resize(d, 0.0);
        for &(j, c) in &ws.coef {
            ws.dense[j] = c;
        }
        let dense = &ws.dense;
        let br = block_rows(d);
        out.par_chunks_mut(br).enumerate().for_each(|(b, ob)| {
            for (o, v) in ob.iter_mut().enumerate() {
                let k = b * br + o;
                *v = yv[k] - dot(design.row(k), dense);
            }
        });
    } else {
        let coef = &ws.coef;
        let br = (65_536 / coef.len()).max(1);
        out.par_chunks_mut(br).enumerate().for_each(|(b, ob)| {
            for (o, v) in ob.iter_mut().enumerate() {
                let k = b * br + o;
                let row = design.row(k);
                let mut m = 0.0;
                for &(j, c) in coef {
                    m += row[j] * c;
                }
                *v = yv[k] - m;
            }
        });
    }
}

/// grad = ∇(1/n)Σ ℓ_τ(r_i) = −(1/n)Σ ψ_τ(r_i) z_i. Deterministic: fixed row blocks
/// (a function of n and d), partial sums added in block order.
fn gradient(design: &Design, r: &[f64], tau: f64, grad: &mut [f64], ws: &mut Workspace) {
    let n = r.len();
    let d = design.d;
    grad.iter_mut().for_each(|g| *g = 0.0);
    if n == 0 {
        return;
    }
    let inv = 1.0 / n as f64;
    if let Some(cv) = design.cols.filter(|cv| cv.m >= COLUMN_GRADIENT_MIN_ROWS) {
        // g_j = −(s_j/n)·⟨X_j, ψ̃⟩ over the sample, ψ̃ = ψ_τ(r) at the design rows'
        // positions and 0 elsewhere: one fixed-order dot product per column.
        ws.sample_margins.clear();
        ws.sample_margins.resize(cv.m, 0.0);
        for (&p, &ri) in cv.pos.iter().zip(r) {
            ws.sample_margins[p] = ri.max(-tau).min(tau);
        }
        let psi = &ws.sample_margins;
        grad.par_iter_mut()
            .enumerate()
            .with_min_len(64)
            .for_each(|(j, g)| {
                let sj = design.scale.map_or(1.0, |s| s[j]);
                *g = if sj == 0.0 {
                    0.0
                } else {
                    -inv * sj * dot(&cv.data[j * cv.m..(j + 1) * cv.m], psi)
                };
            });
        return;
    }
    let br = reduction_block(n, d);
    let nb = n.div_ceil(br);
    ws.partials.resize(nb * d, 0.0);
    ws.partials[..nb * d]
        .par_chunks_mut(d)
        .zip(r.par_chunks(br))
        .enumerate()
        .for_each(|(b, (acc, rb))| {
            acc.iter_mut().for_each(|a| *a = 0.0);
            for (o, &ri) in rb.iter().enumerate() {
                let p = ri.max(-tau).min(tau);
                if p != 0.0 {
                    axpy(p, design.row(b * br + o), acc);
                }
            }
        });
    for p in ws.partials[..nb * d].chunks_exact(d) {
        for (g, v) in grad.iter_mut().zip(p) {
            *g += v;
        }
    }
    match design.scale {
        Some(s) => grad.iter_mut().zip(s).for_each(|(g, sj)| *g *= -inv * sj),
        None => grad.iter_mut().for_each(|g| *g *= -inv),
    }
}

/// The median (mean of the two middle values for even length); 0 for an empty slice.
fn median(v: &mut [f64]) -> f64 {
    let n = v.len();
    if n == 0 {
        return 0.0;
    }
    let mid = n / 2;
    let (lo, hi, _) = v.select_nth_unstable_by(mid, f64::total_cmp);
    let hi = *hi;
    if n % 2 == 1 {
        hi
    } else {
        let lo = lo.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        0.5 * (lo + hi)
    }
}

/// MAD(u) = 1.482602 · median|u − median(u)|.
fn mad(u: &[f64]) -> f64 {
    let mut v = u.to_vec();
    let m = median(&mut v);
    v.iter_mut().zip(u).for_each(|(a, b)| *a = (b - m).abs());
    MAD_SCALE * median(&mut v)
}

/// τ₀ = 1.345·MAD(y); 1.345·√(mean y²) when MAD(y) = 0 (more than half the responses
/// equal); 0 only for y ≡ 0.
fn start_tau(y: &[f64]) -> f64 {
    let t = TAU_START * mad(y);
    if t > 0.0 && t.is_finite() {
        return t;
    }
    if y.is_empty() {
        return 0.0;
    }
    TAU_START * (y.iter().map(|v| v * v).sum::<f64>() / y.len() as f64).sqrt()
}

/// The root t* of the tuning-free τ-equation (spec §7)
///
/// (1/n) Σ_i min(r_i²/t, 1) = log(n·d)/n,
///
/// on the bracket [min r_i², Σ r_i²] (`residuals_sq` holds the r_i²; `n`, `d` enter only
/// through log(n·d)). τ = √t*. The left side is continuous and non-increasing in t
/// (strictly decreasing where it is below its maximum), so the root is unique; it is
/// computed exactly: with a_(1) ≤ … ≤ a_(m) the positive r_i² and S_k = a_(1) + … + a_(k),
/// the left side times n is (m − k) + S_k/t on [a_(k), a_(k+1)], so t* = S_k/(log(n·d) − m + k)
/// on the piece where it changes sign (the limit of the spec's bisection, to rounding).
///
/// Degenerate cases (deterministic; what the bisection converges to):
/// * every r_i = 0 (or no values): the left side is 0 for every t, no root → returns 0;
/// * log(n·d) ≥ m (n tiny; the left side never falls to the right side): returns the
///   lower end of the bracket, min r_i² (0 if some r_i = 0);
/// * log(n·d) < 1 (n·d ≤ 2; the root lies above Σ r_i²): returns the upper end Σ r_i².
///
/// A return value of 0 means "no usable τ": [`huber_lasso`] then keeps its previous τ.
/// Cost O(n log n) (a sort). Non-finite or negative entries are ignored.
pub fn solve_tau(residuals_sq: &[f64], n: usize, d: usize) -> f64 {
    let c = ((n as f64) * (d as f64)).ln();
    let mut a: Vec<f64> = residuals_sq
        .iter()
        .copied()
        .filter(|v| *v > 0.0 && v.is_finite())
        .collect();
    if a.is_empty() {
        return 0.0;
    }
    let has_zero = a.len()
        < residuals_sq
            .iter()
            .filter(|v| v.is_finite() && **v >= 0.0)
            .count();
    if a.len() > 50_000 {
        a.par_sort_unstable_by(f64::total_cmp);
    } else {
        a.sort_unstable_by(f64::total_cmp);
    }
    let m = a.len();
    let total: f64 = a.iter().sum();
    if c >= m as f64 {
        return if has_zero { 0.0 } else { a[0] };
    }
    if c < 1.0 {
        return total;
    }
    // Invariant: F(a_(k)) ≥ c, with F(t) = Σ min(a_i/t, 1) (1-based k; F(a_(1)) = m > c).
    let mut s_k = 0.0;
    for k in 1..=m {
        s_k += a[k - 1];
        let free = (m - k) as f64; // terms still equal to 1 on [a_(k), a_(k+1)]
        let right = if k < m {
            free + s_k / a[k]
        } else {
            f64::NEG_INFINITY
        };
        if right <= c {
            let t = s_k / (c - free);
            let hi = if k < m { a[k] } else { total };
            return t.clamp(a[k - 1], hi.max(a[k - 1]));
        }
    }
    total
}

/// LAMM on a (possibly row-subset, column-scaled) design. `phi_start` replaces φ₀ as
/// the first majorisation constant (warm starts along a path); φ never drops below φ₀.
fn lamm(
    design: &Design,
    lambda: f64,
    opts: &LammOptions,
    warm: Option<&[f64]>,
    phi_start: Option<f64>,
    ws: &mut Workspace,
) -> LammResult {
    let n = design.n();
    let d = design.d;
    let mut beta = match warm {
        Some(w) => w.to_vec(),
        None => vec![0.0; d],
    };
    let yv = design.responses();
    let mut tau = match opts.tau {
        TauRule::Fixed(t) => t,
        _ => start_tau(&yv),
    };
    if n == 0 {
        return LammResult {
            beta,
            tau,
            iterations: 0,
            converged: true,
            phi: opts.phi0,
            last_step: f64::INFINITY,
        };
    }
    let package_tau = match opts.tau {
        TauRule::Package => {
            let y2: Vec<f64> = yv.iter().map(|v| v * v).collect();
            let t = solve_tau(&y2, n, d);
            (t > 0.0).then(|| t.sqrt())
        }
        _ => None,
    };
    let mut r = vec![0.0; n];
    let mut r_new = vec![0.0; n];
    let mut beta_new = vec![0.0; d];
    let mut g = vec![0.0; d];
    residuals(design, &yv, &beta, &mut r, ws);
    gradient(design, &r, tau, &mut g, ws);
    let inv_n = 1.0 / n as f64;
    let mut phi = phi_start.map_or(opts.phi0, |p| p.max(opts.phi0));
    let mut last_phi = phi;
    let mut last_step = f64::INFINITY;
    let mut iterations = 0;
    let mut converged = false;
    while iterations < opts.max_iter {
        iterations += 1;
        let mut trials = 0;
        loop {
            let inv_phi = 1.0 / phi;
            let kappa = lambda * inv_phi;
            for ((bn, b), gj) in beta_new.iter_mut().zip(&beta).zip(&g) {
                *bn = soft_threshold(b - gj * inv_phi, kappa);
            }
            residuals(design, &yv, &beta_new, &mut r_new, ws);
            // L(β⁺) − L(β) − ⟨g, Δ⟩ = (1/n)Σ D_τ(r_i, r⁺_i) since r⁺ − r = −ZΔ: the
            // majorisation test without the cancellation of two loss sums.
            let excess = bregman_sum(&r, &r_new, tau) * inv_n;
            let dd: f64 = beta_new
                .iter()
                .zip(&beta)
                .map(|(a, b)| (a - b) * (a - b))
                .sum();
            if excess <= 0.5 * phi * dd || trials >= MAX_TRIALS {
                break;
            }
            phi *= opts.gamma;
            trials += 1;
        }
        last_phi = phi;
        phi = (phi / opts.gamma).max(opts.phi0);
        last_step = beta_new
            .iter()
            .zip(&beta)
            .fold(0.0, |m: f64, (a, b)| m.max((a - b).abs()));
        std::mem::swap(&mut beta, &mut beta_new);
        std::mem::swap(&mut r, &mut r_new);
        let done = match opts.stop {
            StopRule::Step => last_step <= opts.tol,
            StopRule::Kkt => {
                last_phi * last_step <= opts.tol * if lambda > 0.0 { lambda } else { 1.0 }
            }
        };
        if done {
            converged = true;
            break;
        }
        if iterations == opts.max_iter {
            break;
        }
        match opts.tau {
            TauRule::Residual => {
                let r2: Vec<f64> = r.iter().map(|v| v * v).collect();
                let t = solve_tau(&r2, n, d);
                if t > 0.0 && t.is_finite() {
                    tau = t.sqrt();
                }
            }
            TauRule::Package => {
                if let Some(t) = package_tau {
                    tau = t;
                }
            }
            TauRule::Fixed(_) => {}
        }
        gradient(design, &r, tau, &mut g, ws);
    }
    LammResult {
        beta,
        tau,
        iterations,
        converged,
        phi: last_phi,
        last_step,
    }
}

/// HuberLasso(Z, y, λ) of spec §7 by LAMM: minimises (1/n)Σ ℓ_τ(y_i − z_iᵀβ) + λ‖β‖₁ on an
/// **already standardised** design `z` (row-major n × d, n = `y.len()`), no intercept,
/// with τ set by `opts.tau` (tuning-free by default). `warm` is the starting β (0 when
/// `None`). Deterministic for any number of rayon threads.
///
/// # Panics
/// If `z.len() != y.len()·d`, `warm` has a length other than d, λ < 0, `opts.gamma` ≤ 1,
/// `opts.phi0` ≤ 0, or a [`TauRule::Fixed`] τ is not > 0.
pub fn huber_lasso(
    z: &[f64],
    y: &[f64],
    d: usize,
    lambda: f64,
    opts: &LammOptions,
    warm: Option<&[f64]>,
) -> LammResult {
    assert_eq!(z.len(), y.len() * d, "huber_lasso: z must be n x d");
    if let Some(w) = warm {
        assert_eq!(w.len(), d, "huber_lasso: warm start must have length d");
    }
    assert!(lambda >= 0.0, "huber_lasso: lambda must be >= 0");
    assert!(
        opts.gamma > 1.0 && opts.phi0 > 0.0,
        "huber_lasso: need gamma > 1, phi0 > 0"
    );
    if let TauRule::Fixed(t) = opts.tau {
        assert!(
            t > 0.0 && t.is_finite(),
            "huber_lasso: fixed tau must be > 0"
        );
    }
    let design = Design {
        x: z,
        d,
        y,
        rows: None,
        scale: None,
        cols: None,
    };
    lamm(&design, lambda, opts, warm, None, &mut Workspace::default())
}

// ------------------------------------------------------------------ data summaries

/// 1/sd_j for every column (sample sd about the column mean, all rows); 0 for constant
/// columns (and for every column when n < 2). Deterministic block sums.
fn column_scales(x: &[f64], n: usize, d: usize) -> Vec<f64> {
    if n < 2 {
        return vec![0.0; d];
    }
    let br = reduction_block(n, d);
    let parts: Vec<(Vec<f64>, Vec<f64>, Vec<f64>)> = x
        .par_chunks(br * d)
        .map(|blk| {
            let mut s = vec![0.0; d];
            let mut lo = vec![f64::INFINITY; d];
            let mut hi = vec![f64::NEG_INFINITY; d];
            for row in blk.chunks_exact(d) {
                for j in 0..d {
                    s[j] += row[j];
                    lo[j] = lo[j].min(row[j]);
                    hi[j] = hi[j].max(row[j]);
                }
            }
            (s, lo, hi)
        })
        .collect();
    let mut mean = vec![0.0; d];
    let mut lo = vec![f64::INFINITY; d];
    let mut hi = vec![f64::NEG_INFINITY; d];
    for (s, l, h) in &parts {
        for j in 0..d {
            mean[j] += s[j];
            lo[j] = lo[j].min(l[j]);
            hi[j] = hi[j].max(h[j]);
        }
    }
    mean.iter_mut().for_each(|m| *m /= n as f64);
    let parts: Vec<Vec<f64>> = x
        .par_chunks(br * d)
        .map(|blk| {
            let mut ss = vec![0.0; d];
            for row in blk.chunks_exact(d) {
                for j in 0..d {
                    let c = row[j] - mean[j];
                    ss[j] += c * c;
                }
            }
            ss
        })
        .collect();
    let mut ss = vec![0.0; d];
    for p in &parts {
        for (a, b) in ss.iter_mut().zip(p) {
            *a += b;
        }
    }
    (0..d)
        .map(|j| {
            let inv = 1.0 / (ss[j] / (n - 1) as f64).sqrt();
            if lo[j] < hi[j] && inv.is_finite() && inv > 0.0 {
                inv
            } else {
                0.0
            }
        })
        .collect()
}

/// λ_max = max_j |Z_jᵀ y| / n with Z_j = scale_j·X_j.
fn lambda_max(x: &[f64], y: &[f64], d: usize, scale: &[f64]) -> f64 {
    let n = y.len();
    let br = reduction_block(n, d);
    let parts: Vec<Vec<f64>> = x
        .par_chunks(br * d)
        .zip(y.par_chunks(br))
        .map(|(xb, yb)| {
            let mut acc = vec![0.0; d];
            for (row, &yi) in xb.chunks_exact(d).zip(yb) {
                axpy(yi, row, &mut acc);
            }
            acc
        })
        .collect();
    let mut s = vec![0.0; d];
    for p in &parts {
        for (a, b) in s.iter_mut().zip(p) {
            *a += b;
        }
    }
    s.iter()
        .zip(scale)
        .fold(0.0, |m: f64, (v, sj)| m.max((v * sj).abs()))
        / n as f64
}

/// The descending grid λ_max·ratio^{k/(K−1)}, k = 0 … K−1 (log-spaced).
fn lambda_grid(lambda_max: f64, ratio: f64, k: usize) -> Vec<f64> {
    if k <= 1 {
        return vec![lambda_max];
    }
    let (a, b) = (lambda_max.ln(), ratio.ln());
    (0..k)
        .map(|i| (a + b * i as f64 / (k - 1) as f64).exp())
        .collect()
}

// ------------------------------------------------------------------ the algorithm

/// `adahuber` (non-private adaptive Huber lasso with CV). See the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct AdaHuber {
    pub folds: usize,
    pub num_lambda: usize,
    pub lambda_min_ratio: f64,
    pub phi0: f64,
    pub gamma: f64,
    pub tol: f64,
    pub max_iter: usize,
    /// A fixed λ (standardised scale): no cross-validation.
    pub lambda: Option<f64>,
    pub tau: TauRule,
    /// LAMM's stopping rule (`stop`).
    pub stop: StopRule,
    /// The refit (`refit`); `None`: [`Refit::Path`] with [`StopRule::Kkt`], else
    /// [`Refit::Cold`].
    pub refit: Option<Refit>,
    /// Keep only the s* largest |β_j| (spec T16).
    pub truncate: bool,
    /// Cross-validate on a random subsample of this many rows when n is larger.
    pub cv_rows: usize,
}

impl Default for AdaHuber {
    /// The package defaults (5 folds, 50 λ, ratio 0.01, φ₀ = 0.01, γ = 1.2, tol = 10⁻³,
    /// 500 steps), residual τ rule, truncation on, CV on at most 10 000 rows.
    fn default() -> Self {
        AdaHuber {
            folds: 5,
            num_lambda: 50,
            lambda_min_ratio: 0.01,
            phi0: 0.01,
            gamma: 1.2,
            tol: 1e-3,
            max_iter: 500,
            lambda: None,
            tau: TauRule::Residual,
            stop: StopRule::Step,
            refit: None,
            truncate: true,
            cv_rows: 10_000,
        }
    }
}

/// The resolved, public plan of a fit.
#[derive(Debug, Clone, PartialEq)]
pub struct AdaHuberPlan {
    pub s_star: usize,
    pub radius: f64,
    /// Rows used by cross-validation (0 with a fixed λ).
    pub cv_rows: usize,
}

fn bad(param: &str, reason: impl Into<String>) -> FitError {
    FitError::BadParameter {
        algorithm: NAME,
        param: param.to_string(),
        reason: reason.into(),
    }
}

impl AdaHuber {
    pub fn from_params(params: &ParamMap) -> Result<Self, FitError> {
        let p = DESCRIPTOR.params(params)?;
        let def = AdaHuber::default();
        let a = AdaHuber {
            folds: p.integer("folds", 2)?.unwrap_or(def.folds),
            num_lambda: p.integer("num_lambda", 1)?.unwrap_or(def.num_lambda),
            lambda_min_ratio: p
                .positive("lambda_min_ratio")?
                .unwrap_or(def.lambda_min_ratio),
            phi0: p.positive("phi0")?.unwrap_or(def.phi0),
            gamma: p.positive("gamma")?.unwrap_or(def.gamma),
            tol: p.positive("tol")?.unwrap_or(def.tol),
            max_iter: p.integer("max_iter", 1)?.unwrap_or(def.max_iter),
            lambda: p.positive("lambda")?,
            tau: p.pick(
                "adahuber_tau",
                &[
                    ("residual", TauRule::Residual),
                    ("package", TauRule::Package),
                ],
            )?,
            stop: p.pick("stop", StopRule::WORDS)?,
            refit: {
                let words: Vec<_> = Refit::WORDS.iter().map(|&(w, r)| (w, Some(r))).collect();
                p.pick_or("refit", &words, None)?
            },
            truncate: p.choice("truncate", &["true", "false"])? != Some("false"),
            cv_rows: p.integer("cv_rows", 2)?.unwrap_or(def.cv_rows),
        };
        a.check()?;
        Ok(a)
    }

    /// Checks the parameter values (also for struct-built instances).
    fn check(&self) -> Result<(), FitError> {
        let positive = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(bad(name, format!("expected a number > 0, got {v}")))
            }
        };
        positive("phi0", self.phi0)?;
        positive("tol", self.tol)?;
        positive("lambda_min_ratio", self.lambda_min_ratio)?;
        if let Some(l) = self.lambda {
            positive("lambda", l)?;
        }
        if !(self.gamma.is_finite() && self.gamma > 1.0) {
            return Err(bad(
                "gamma",
                format!("expected a number > 1, got {}", self.gamma),
            ));
        }
        if self.lambda_min_ratio > 1.0 {
            return Err(bad(
                "lambda_min_ratio",
                format!("expected a ratio in (0, 1], got {}", self.lambda_min_ratio),
            ));
        }
        if self.folds < 2 {
            return Err(bad(
                "folds",
                format!("expected an integer >= 2, got {}", self.folds),
            ));
        }
        if self.num_lambda < 1 || self.max_iter < 1 {
            return Err(bad("num_lambda", "num_lambda and max_iter must be >= 1"));
        }
        if self.cv_rows < self.folds {
            return Err(bad(
                "cv_rows",
                format!(
                    "must be at least folds = {}, got {}",
                    self.folds, self.cv_rows
                ),
            ));
        }
        if let TauRule::Fixed(t) = self.tau {
            positive("adahuber_tau", t)?;
        }
        Ok(())
    }

    pub fn info() -> AlgorithmInfo {
        AlgorithmInfo {
            name: NAME,
            use_when: "non-private sparse robust reference (no privacy)",
            paper: "Sun, Zhou & Fan 2020 (adaptive Huber lasso; Tian et al. baseline)",
            privacy: "none",
            losses: vec!["huber", "squared"],
            domains: vec!["sparse"],
            parameters: vec![
                ParamInfo { name: "folds", default: "5", meaning: "number of cross-validation folds", source: SOURCE },
                ParamInfo { name: "num_lambda", default: "50", meaning: "number of lambda values (log-spaced, descending from lambda_max = max_j |Z_j^T y|/n on the standardised Z)", source: SOURCE },
                ParamInfo { name: "lambda_min_ratio", default: "0.01", meaning: "lambda_min / lambda_max, in (0, 1]", source: SOURCE },
                ParamInfo { name: "phi0", default: "0.01", meaning: "initial and minimal LAMM majorisation constant", source: SOURCE },
                ParamInfo { name: "gamma", default: "1.2", meaning: "LAMM majorisation growth factor (> 1)", source: SOURCE },
                ParamInfo { name: "tol", default: "0.001", meaning: "LAMM stops when the sup-norm step on the standardised scale is <= tol", source: SOURCE },
                ParamInfo { name: "max_iter", default: "500", meaning: "most LAMM steps per Huber-lasso fit", source: SOURCE },
                ParamInfo { name: "lambda", default: "none (cross-validated)", meaning: "fixed lambda on the standardised scale; skips cross-validation", source: SOURCE },
                ParamInfo { name: "adahuber_tau", default: "residual", meaning: "tau-equation from the residuals r^2 (residual) or from y^2 as the package computes (package)", source: "Tian spec §7 note" },
                ParamInfo { name: "truncate", default: "true", meaning: "keep the s* largest |beta_j| of the CV fit (s* = --sparsity)", source: "Tian spec T16" },
                ParamInfo { name: "stop", default: "step", meaning: "LAMM stopping rule: step = sup-norm step <= tol (package); kkt = phi * step <= tol * lambda (gradient mapping; use for d >> n)", source: "package rule; kkt: heavydp" },
                ParamInfo { name: "refit", default: "cold (path with stop=kkt)", meaning: "refit on all rows at lambda*: cold = from beta = 0 (package); path = along the grid from lambda_max with warm starts", source: "package rule; path: heavydp" },
                ParamInfo { name: "cv_rows", default: "10000", meaning: "cross-validate on a random subsample of this many rows when n is larger; the refit uses all rows", source: "Tian spec §7 (Cost)" },
            ],
        }
    }

    /// Resolves the public plan (s*, R, CV rows) and checks it.
    pub fn plan(&self, problem: &Problem) -> Result<AdaHuberPlan, FitError> {
        self.check()?;
        let (s_star, radius) = sparse_domain(NAME, problem.domain)?;
        let n = problem.data.n();
        let cv_rows = if self.lambda.is_some() {
            0
        } else {
            n.min(self.cv_rows)
        };
        if self.lambda.is_none() && cv_rows < self.folds {
            return Err(FitError::TooFewRecords {
                algorithm: NAME,
                n,
                needed: self.folds,
            });
        }
        Ok(AdaHuberPlan {
            s_star,
            radius,
            cv_rows,
        })
    }

    /// The refit rule in force (resolving the default).
    pub fn refit_rule(&self) -> Refit {
        self.refit.unwrap_or(match self.stop {
            StopRule::Kkt => Refit::Path,
            StopRule::Step => Refit::Cold,
        })
    }

    fn lamm_options(&self) -> LammOptions {
        LammOptions {
            phi0: self.phi0,
            gamma: self.gamma,
            tol: self.tol,
            max_iter: self.max_iter,
            tau: self.tau,
            stop: self.stop,
        }
    }

    /// Cross-validation: the fold-summed held-out squared error of every grid value and
    /// the number of fits that hit `max_iter`.
    fn cross_validate(
        &self,
        data: &Dataset,
        scale: &[f64],
        grid: &[f64],
        cv_rows: usize,
        rng: &mut dyn RngCore,
    ) -> Vec<f64> {
        let n = data.n();
        let d = data.d();
        // the CV sample (sorted row ids) and a column-major copy of it, made once
        let sample: Vec<usize> = if cv_rows < n {
            let mut r = rand::seq::index::sample(rng, n, cv_rows).into_vec();
            r.sort_unstable();
            r
        } else {
            (0..n).collect()
        };
        let m = sample.len();
        let mut cols = vec![0.0; m * d];
        cols.par_chunks_mut(m).enumerate().for_each(|(j, col)| {
            for (c, &i) in col.iter_mut().zip(&sample) {
                *c = data.x()[i * d + j];
            }
        });
        // Fisher–Yates over the sample positions with unbiased bounded draws; the
        // position at index k of the permutation goes to fold k mod K.
        let mut perm: Vec<usize> = (0..m).collect();
        for i in (1..m).rev() {
            let j = rand::Rng::random_range(rng, 0..=i);
            perm.swap(i, j);
        }
        let mut fold_of = vec![0; m];
        for (k, &p) in perm.iter().enumerate() {
            fold_of[p] = k % self.folds;
        }
        let k = self.folds;
        let opts = self.lamm_options();
        let per_fold: Vec<Vec<f64>> = (0..k)
            .into_par_iter()
            .map(|f| {
                // positions in the sample (ascending) and the matching row ids
                let (train_pos, test_pos): (Vec<usize>, Vec<usize>) =
                    (0..m).partition(|&p| fold_of[p] != f);
                let train: Vec<usize> = train_pos.iter().map(|&p| sample[p]).collect();
                let test: Vec<usize> = test_pos.iter().map(|&p| sample[p]).collect();
                let view = |pos| ColumnView {
                    data: &cols,
                    m,
                    pos,
                };
                let tr = Design {
                    x: data.x(),
                    d,
                    y: data.y(),
                    rows: Some(&train),
                    scale: Some(scale),
                    cols: Some(view(&train_pos)),
                };
                let te = Design {
                    rows: Some(&test),
                    cols: Some(view(&test_pos)),
                    ..tr
                };
                let yt = te.responses();
                let mut rt = vec![0.0; test.len()];
                let mut ws = Workspace::default();
                let mut errors = Vec::with_capacity(grid.len());
                let mut warm: Option<Vec<f64>> = None;
                let mut phi: Option<f64> = None;
                for &lam in grid {
                    let res = lamm(&tr, lam, &opts, warm.as_deref(), phi, &mut ws);
                    phi = Some(res.phi / opts.gamma);
                    residuals(&te, &yt, &res.beta, &mut rt, &mut ws);
                    errors.push(rt.iter().map(|v| v * v).sum::<f64>());
                    warm = Some(res.beta);
                }
                errors
            })
            .collect();
        let mut total = vec![0.0; grid.len()];
        for e in per_fold {
            for (t, v) in total.iter_mut().zip(e) {
                *t += v;
            }
        }
        total
    }
}

impl PrivateAlgorithm for AdaHuber {
    fn identity(&self) -> Identity {
        Identity::materialised(NAME, PrivacyModel::None)
    }
    fn validate(&self, problem: &Problem, budget: &Budget) -> Result<(), FitError> {
        check_problem(self, problem, budget, &["huber", "squared"], &["sparse"])?;
        self.plan(problem)?;
        Ok(())
    }
    fn fit_validated(&self, inputs: FitInputs) -> Result<FitReport, FitError> {
        let (problem, budget, rng, observer) = inputs.parts();
        let plan = self.plan(problem)?;
        let data = problem.data;
        let (n, d) = (data.n(), data.d());
        let ledger = PrivacyLedger::new(budget, Accountant::Basic);
        let opts = self.lamm_options();
        let mut notes = vec![
            "non-private baseline: the privacy budget is ignored (epsilon = inf)".to_string(),
            "no intercept: features scaled by 1/sd (not centred), y not centred".to_string(),
        ];
        if let LossKind::Huber { .. } = problem.loss {
            notes.push("the loss's tau is ignored: adaHuber tunes tau itself".to_string());
        }
        let total_steps = if self.lambda.is_some() {
            1
        } else {
            self.folds + 1
        };
        observer.on_start(total_steps);

        let scale = column_scales(data.x(), n, d);
        let excluded = scale.iter().filter(|s| **s == 0.0).count();
        if excluded > 0 {
            notes.push(format!(
                "{excluded} constant feature column(s) excluded (beta_j = 0)"
            ));
        }
        let lmax = lambda_max(data.x(), data.y(), d, &scale);
        let mut h = BTreeMap::new();
        hp(&mut h, "folds", self.folds);
        hp(&mut h, "num_lambda", self.num_lambda);
        hp(&mut h, "lambda_min_ratio", self.lambda_min_ratio);
        hp(&mut h, "phi0", self.phi0);
        hp(&mut h, "gamma", self.gamma);
        hp(&mut h, "tol", self.tol);
        hp(&mut h, "max_iter", self.max_iter);
        hp(&mut h, "adahuber_tau", self.tau.name());
        hp(&mut h, "stop", self.stop.name());
        let refit = self.refit_rule();
        hp(&mut h, "refit", refit.name());
        if let TauRule::Fixed(t) = self.tau {
            hp(&mut h, "tau_fixed", t);
        }
        hp(&mut h, "truncate", self.truncate);
        hp(&mut h, "cv_rows", plan.cv_rows);
        hp(&mut h, "s_star", plan.s_star);
        hp(&mut h, "lambda_max", lmax);
        hp(&mut h, "excluded_columns", excluded);
        hp(&mut h, "standardisation", "scale-only (no intercept)");

        // λ* and the λ sequence of the refit (ending at λ*)
        let lambda: Option<(f64, Vec<f64>)> = match self.lambda {
            Some(l) => {
                hp(&mut h, "lambda_source", "fixed");
                let path = if refit == Refit::Path && lmax.is_finite() && l < lmax {
                    let mut p = lambda_grid(lmax, l / lmax, self.num_lambda.max(2));
                    *p.last_mut().expect("non-empty grid") = l;
                    p
                } else {
                    vec![l]
                };
                Some((l, path))
            }
            None if lmax > 0.0 && lmax.is_finite() => {
                let grid = lambda_grid(lmax, self.lambda_min_ratio, self.num_lambda);
                let errors = self.cross_validate(data, &scale, &grid, plan.cv_rows, rng);
                let mut best = 0;
                for (i, e) in errors.iter().enumerate() {
                    if e.total_cmp(&errors[best]) == std::cmp::Ordering::Less {
                        best = i;
                    }
                }
                hp(&mut h, "lambda_source", "cv");
                hp(&mut h, "cv_error", errors[best] / plan.cv_rows as f64);
                if plan.cv_rows < n {
                    notes.push(format!(
                        "cross-validation on a random subsample of {} of the {n} rows; refit on all rows",
                        plan.cv_rows
                    ));
                }
                let path = match refit {
                    Refit::Path => grid[..=best].to_vec(),
                    Refit::Cold => vec![grid[best]],
                };
                Some((grid[best], path))
            }
            None => {
                notes.push(
                    "lambda_max = 0 (every feature is constant or orthogonal to y): the fit is beta = 0"
                        .to_string(),
                );
                hp(&mut h, "lambda_source", "degenerate");
                None
            }
        };
        for i in 1..total_steps {
            observer.on_iteration(i);
        }

        let mut w = match lambda {
            Some((lam, path)) => {
                let design = Design {
                    x: data.x(),
                    d,
                    y: data.y(),
                    rows: None,
                    scale: Some(&scale),
                    cols: None,
                };
                let mut ws = Workspace::default();
                let mut res: Option<LammResult> = None;
                let mut total_iterations = 0;
                for &l in &path {
                    let (warm, phi) = match &res {
                        Some(r) => (Some(r.beta.as_slice()), Some(r.phi / opts.gamma)),
                        None => (None, None),
                    };
                    let next = lamm(&design, l, &opts, warm, phi, &mut ws);
                    total_iterations += next.iterations;
                    res = Some(next);
                }
                let res = res.expect("the refit path is non-empty");
                hp(&mut h, "lambda", lam);
                hp(&mut h, "tau", res.tau);
                hp(&mut h, "iterations", res.iterations);
                hp(&mut h, "refit_path_length", path.len());
                hp(&mut h, "refit_iterations_total", total_iterations);
                let w: Vec<f64> = res.beta.iter().zip(&scale).map(|(b, s)| b * s).collect();
                w
            }
            None => {
                hp(&mut h, "lambda", 0.0);
                hp(&mut h, "tau", start_tau(data.y()));
                hp(&mut h, "iterations", 0);
                vec![0.0; d]
            }
        };
        observer.on_iteration(total_steps);
        observer.on_finish();

        let size = w.iter().filter(|v| **v != 0.0).count();
        hp(&mut h, "size_untruncated", size);
        if size > n && self.stop == StopRule::Step {
            notes.push(format!(
                "the fit has {size} non-zeros for n = {n} rows: a lasso solution has at most n, so LAMM's step rule (sup-norm step <= tol) stopped far from it, as it does when d >> n; use --param stop=kkt"
            ));
        }
        if self.truncate && size > plan.s_star {
            let keep = crate::constraints::top_s_indices(&w, plan.s_star);
            let mut t = vec![0.0; d];
            for j in keep {
                t[j] = w[j];
            }
            w = t;
            notes.push(format!(
                "kept the {} largest |beta_j| of {size} non-zeros (spec T16)",
                plan.s_star
            ));
        } else if !self.truncate && size > plan.s_star {
            notes.push(format!(
                "truncate=false: {size} non-zeros, more than s* = {}",
                plan.s_star
            ));
        }
        let norm = crate::linalg::norm2(&w);
        if norm > plan.radius {
            w.iter_mut().for_each(|v| *v *= plan.radius / norm);
            notes.push(format!(
                "projected onto the l2 ball of radius {} (the fit had norm {norm:.4}; post-processing)",
                plan.radius
            ));
        }
        Ok(FitReport {
            weights: w,
            privacy: ledger.summary(PrivacyModel::None),
            hyperparameters: h,
            trace: vec![],
            notes,
            released: None,
            intercept: None,
        })
    }
}

#[cfg(test)]
#[path = "adaptive_huber_tests.rs"]
mod tests;
