//! Private iterative hard thresholding with Peeling:
//!
//! | `--algorithm` | module | paper | data use |
//! |---|---|---|---|
//! | `ht-sparse-linreg` | `truncated` | Hu, Ni, Xiao & Wang Alg. 3 (shrinkage) | T disjoint chunks |
//! | `ht-sparse-opt` | `robust` | Hu et al. Alg. 5 (Catoni–Giulini robust gradient) | T disjoint chunks |
//! | `dp-iht-huber` | `huber` | Tian, Ding, Tao, Xiang & Wang Alg. 1 (Huber loss) | T disjoint chunks |
//! | `dp-iht-l1` | `absolute` | Tian et al. Alg. 3 (absolute loss) | T disjoint chunks |
//! | `dp-slr` | `least_squares` | Cai, Wang & Zhang (bounded data) | all data, T times |
//!
//! Each iteration takes a gradient step and keeps s coordinates through the one
//! [`Peeling`](crate::mechanisms::Peeling) mechanism of heavydp, which is (ε, δ)-DP for an
//! input of ℓ∞ sensitivity λ. The chunked algorithms read every chunk in one Peeling
//! call only, so the whole run is (ε, δ)-DP by parallel composition (replace-one
//! neighbours, n public); `dp-slr` composes T calls of (ε/T, δ/T). All share one
//! gradient kernel, [`clipped_weighted_sum`].
//!
//! One way to write each of them: an algorithm's file implements `IhtAlgorithm` (its
//! catalogue row `IhtInfo`, its plan from public quantities on the shared [`IhtSizes`],
//! the one loop `IhtLoop` that plan runs, any checks of its own, and its gradient step
//! handed to that loop); validation (Peeling's certification is checked on the loop
//! itself), the fit's prologue and the
//! [`PrivateAlgorithm`](crate::algorithms::PrivateAlgorithm) impl are shared.
//!
//! The sparse algorithms take the domain `sparse` (`--domain sparse --sparsity S`):
//! S is the target sparsity s*, the radius R bounds ‖w‖₂; the algorithms keep
//! s = c·s* ≥ s* coordinates, as the papers do.

pub(crate) mod absolute;
pub(crate) mod huber;
pub(crate) mod least_squares;
pub(crate) mod robust;
pub(crate) mod truncated;

pub use absolute::{absolute_step_sensitivity, DpIhtL1, DpIhtL1Plan, SignFeatures};
pub use huber::{huber_step_sensitivity, DpIhtHuber, DpIhtHuberPlan, TauRule};
pub use least_squares::{slr_step_sensitivity, DpSlr, DpSlrPlan};
pub use robust::{HtSparseOpt, HtSparseOptPlan, SparseOptPreset, SparseTask};
pub use truncated::{HtSparseLinreg, HtSparseLinregPlan};

use crate::linalg::block_rows;
#[cfg(doc)]
use crate::linalg::RawRows;
use crate::linalg::Rows;
use crate::params::key;
use rayon::prelude::*;

/// Σ_{i ∈ rows} g_i · x̃_i, where x̃_i is x_i clipped coordinate-wise at K
/// (sign(v)·min(|v|, K): spec Tian H1, Hu B.5) and the per-record weight is
/// g_i = `weight`(⟨x̃_i, w⟩, ⟨x_i, w⟩, y_i) — the margin on the clipped and on the raw
/// features. The clipping happens on the fly (no copy of the data); `support` lists
/// the non-zero (j, w_j) of the sparse iterate w, so a margin costs O(|support|).
///
/// The kernel of every IHT-style algorithm: Hu Alg. 3 (g = ⟨x̃, w⟩ − ỹ), DP-IHT-H
/// (g = ψ_τ(y − ⟨x̃, w⟩)), DP-IHT-L (g = sign(⟨x, w⟩ − y)), DP-SLR (g = ⟨x̃, w⟩ − Π_R(y)).
/// Parallel over fixed blocks of rows with one accumulator each; the partial sums are
/// added in block order, so the result is bit-identical for any number of threads.
/// A zero weight skips the row's d-vector update.
/// `x` is any [`Rows`]: a raw slice ([`RawRows`]) or a dataset, read through its lazy
/// standardisation when it has one (the same values as the standardised copy).
///
/// Within a block the rows are taken in groups of 8: the margins and weights of the
/// group first, then one pass over the d coordinates that adds the group's rows (register
/// blocking: the accumulator is read and written once per group, not once per row).
/// Each coordinate's sum still adds the rows one at a time in row order, so the result
/// is the same, bit for bit, as a row-at-a-time loop.
pub fn clipped_weighted_sum<R, F>(
    x: &R,
    y: &[f64],
    rows: &[usize],
    support: &[(usize, f64)],
    k: f64,
    weight: F,
    out: &mut [f64],
) where
    R: Rows + ?Sized,
    F: Fn(f64, f64, f64) -> f64 + Sync,
{
    let d = x.width();
    debug_assert_eq!(out.len(), d);
    out.iter_mut().for_each(|o| *o = 0.0);
    if d == 0 {
        return;
    }
    let partials: Vec<Vec<f64>> = rows
        .par_chunks(block_rows(d))
        .map(|blk| {
            let mut acc = vec![0.0; d];
            // One row buffer per member of a group (used when `x` maps its rows).
            let mut scratch = vec![0.0; ROW_GROUP.min(blk.len()) * d];
            for group in blk.chunks(ROW_GROUP) {
                let mut slots = scratch.chunks_exact_mut(d);
                let mut kept: [&[f64]; ROW_GROUP] = [&[]; ROW_GROUP];
                let mut g = [0.0; ROW_GROUP];
                let mut len = 0;
                for &i in group {
                    let slot = slots.next().expect("a buffer per row of the group");
                    let row = x.get(i, slot);
                    let (mut clipped, mut raw) = (0.0, 0.0);
                    for &(j, wj) in support {
                        clipped += row[j].clamp(-k, k) * wj;
                        raw += row[j] * wj;
                    }
                    let gi = weight(clipped, raw, y[i]);
                    if gi != 0.0 {
                        (kept[len], g[len]) = (row, gi);
                        len += 1;
                    }
                }
                add_clipped_rows(&mut acc, &kept[..len], &g[..len], k);
            }
            acc
        })
        .collect();
    for p in partials {
        for (o, v) in out.iter_mut().zip(p) {
            *o += v;
        }
    }
}

/// The rows whose updates [`clipped_weighted_sum`] makes in one pass over the
/// coordinates. At d = 800 the accumulator (6.4 kB) is read and written once per row
/// in a row-at-a-time loop — as many bytes as the row itself; a group of 8 divides that
/// traffic by 8 and keeps 8 independent streams of X in flight. The 8 weights, ±K and
/// the sum almost fit the 16 SSE2 registers of baseline x86-64 (the compiler reads two
/// weights from the stack, i.e. from L1). Measured at
/// 90 000 × 800 (`docs/performance.md`): 4 rows gained most of it, 8
/// a little more, 16 nothing beyond the noise.
const ROW_GROUP: usize = 8;

/// acc_j ← (((acc_j + g₀·clip(r₀ⱼ)) + g₁·clip(r₁ⱼ)) + …) for every coordinate j: the
/// rows added in order, each product rounded and added exactly as in a row-at-a-time
/// loop (same bits), with acc_j loaded and stored once per group of up to
/// [`ROW_GROUP`] rows. Groups of 8, then at most one each of 4, 2 and 1 rows.
fn add_clipped_rows(acc: &mut [f64], rows: &[&[f64]], g: &[f64], k: f64) {
    debug_assert_eq!(rows.len(), g.len());
    let mut q = 0;
    while rows.len() - q >= ROW_GROUP {
        add_clipped::<ROW_GROUP>(acc, &rows[q..], &g[q..], k);
        q += ROW_GROUP;
    }
    for len in [4, 2, 1] {
        if rows.len() - q >= len {
            match len {
                4 => add_clipped::<4>(acc, &rows[q..], &g[q..], k),
                2 => add_clipped::<2>(acc, &rows[q..], &g[q..], k),
                _ => add_clipped::<1>(acc, &rows[q..], &g[q..], k),
            }
            q += len;
        }
    }
}

/// [`add_clipped_rows`] for the first `N` rows (a fixed count, so the compiler keeps
/// the N weights in registers and vectorises over j).
#[inline]
fn add_clipped<const N: usize>(acc: &mut [f64], rows: &[&[f64]], g: &[f64], k: f64) {
    let d = acc.len();
    let rows: [&[f64]; N] = std::array::from_fn(|r| &rows[r][..d]);
    let g: [f64; N] = std::array::from_fn(|r| g[r]);
    for (j, a) in acc.iter_mut().enumerate() {
        let mut v = *a;
        for r in 0..N {
            v += g[r] * clip(rows[r][j], k);
        }
        *a = v;
    }
}

/// `v.clamp(−K, K)` for K ≥ 0 (the same value for every v, NaN and −0.0 included),
/// written as two compare-selects: they compile to `maxpd`/`minpd` and the loop of
/// [`add_clipped`] vectorises. `f64::clamp` kept a branch per element (67 % of a
/// DP-IHT-H fit stalled on one scalar `maxsd`), and `max`/`min` add a
/// NaN test of three instructions each.
#[inline]
fn clip(v: f64, k: f64) -> f64 {
    let v = if v < -k { -k } else { v };
    if v > k {
        k
    } else {
        v
    }
}

/// How an IHT run reads the data: the one thing that decides its composition.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Passes {
    /// T disjoint chunks of m = ⌊n/T⌋ records (drawn with this chunking); each chunk is
    /// read by one Peeling call only, so the run is (ε, δ)-DP by parallel composition.
    Chunked(crate::algorithms::Chunking),
    /// Every record at every iteration (`dp-slr`): T calls of the per-call (ε, δ),
    /// basic composition.
    FullData,
}

/// The one private IHT loop of heavydp, parameterised by the algorithm's gradient step
/// (the gradient estimator and the update it makes), the truncation (Peeling at the
/// proven or at a printed sensitivity) and the way the data are read ([`Passes`]):
///
/// ```text
/// w⁰ = 0;  rows_t = chunk t (Chunked: T disjoint chunks of m = ⌊n/T⌋, data-independent)
///                   or every record (FullData)
/// for t = 0..T−1:
///     w^{t+0.5} = step(t, rows_t, w^t)                  (the algorithm's gradient step)
///     w^{t+1}   = Peeling(w^{t+0.5}, s, ε_call, δ_call, λ_t)
///     w^{t+1}   = Π_R(w^{t+1})                          (each step, or once at the end)
/// ```
///
/// `steps[t]` = η_t (reported in the trace) and `lambdas[t]` = λ_t, the caller's proof of
/// the ℓ∞ sensitivity of its step on `rows_t`. Chunked runs charge each Peeling on its
/// chunk to a parallel-composition ledger (ε, δ overall); full-data runs charge T calls
/// of (ε_call, δ_call) to a basic-composition ledger.
///
/// `printed_lambdas`: when set, Peeling's *noise* is calibrated at
/// these smaller, printed sensitivities, while `lambdas` stays the proven one; each
/// Peeling is then charged the ε its noise certifies at the proven λ
/// ([`recertified_peeling`]), never the nominal budget.
pub(crate) struct IhtLoop<'a> {
    pub name: &'static str,
    /// s (coordinates kept) and R (the ℓ2 radius) are read from here.
    pub sizes: &'a IhtSizes,
    pub passes: Passes,
    pub calibration: crate::mechanisms::PeelingCalibration,
    /// The (ε, δ) of each Peeling call.
    pub call_budget: (f64, f64),
    pub steps: Vec<f64>,
    pub lambdas: Vec<f64>,
    pub printed_lambdas: Option<Vec<f64>>,
    /// Project on the ℓ2 ball after every Peeling (else once, after the last one).
    pub project_each_step: bool,
    /// The ledger label of each Peeling call.
    pub label: &'static str,
}

/// How a chunked IHT run reads the data and calibrates Peeling: the two parameters
/// (`chunking`, `calibration`) of `ht-sparse-linreg`, `ht-sparse-opt`, `dp-iht-huber` and
/// `dp-iht-l1`. Default: a shuffled partition and the exact calibration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChunkedPeeling {
    pub chunking: crate::algorithms::Chunking,
    /// Peeling's noise calibration.
    pub calibration: crate::mechanisms::PeelingCalibration,
}

impl Default for ChunkedPeeling {
    fn default() -> Self {
        ChunkedPeeling {
            chunking: crate::algorithms::Chunking::Shuffle,
            calibration: crate::mechanisms::PeelingCalibration::Exact,
        }
    }
}

impl ChunkedPeeling {
    /// The `chunking` and `calibration` parameters (absent: the default).
    pub fn parse(p: &crate::algorithms::Params) -> Result<Self, crate::algorithms::FitError> {
        Ok(ChunkedPeeling {
            chunking: crate::algorithms::Chunking::parse(p)?,
            calibration: crate::mechanisms::PeelingCalibration::parse(p)?,
        })
    }
}

/// What [`IhtLoop::run`] returns.
pub(crate) struct IhtRun {
    pub weights: Vec<f64>,
    pub ledger: crate::privacy::PrivacyLedger,
    pub trace: Vec<crate::algorithms::TraceRecord>,
    /// Peeling's Laplace scale at each iteration.
    pub scales: Vec<f64>,
    /// Records read per iteration (m for chunked runs, n for full-data runs).
    pub m: usize,
}

impl IhtRun {
    /// The fit report of a finished run (T fixed in advance: `MaxIterations`).
    pub fn report(
        self,
        hyperparameters: std::collections::BTreeMap<String, serde_json::Value>,
        notes: Vec<String>,
    ) -> crate::algorithms::FitReport {
        use crate::algorithms::FitReport;
        let privacy = self.ledger.summary(crate::privacy::PrivacyModel::Approx);
        FitReport::fixed_iterations(self.weights, privacy, hyperparameters, self.trace, notes)
    }
}

impl<'a> IhtLoop<'a> {
    /// A chunked loop with the budget's (ε, δ) per call, projection every step and the
    /// common ledger label, for the `(steps, lambdas)` schedule:
    /// `ht-sparse-linreg`, `ht-sparse-opt`, `dp-iht-huber`, `dp-iht-l1`.
    pub fn chunked(
        name: &'static str,
        sizes: &'a IhtSizes,
        peeling: ChunkedPeeling,
        budget: &crate::privacy::Budget,
        (steps, lambdas): (Vec<f64>, Vec<f64>),
    ) -> IhtLoop<'a> {
        IhtLoop {
            name,
            sizes,
            passes: Passes::Chunked(peeling.chunking),
            calibration: peeling.calibration,
            call_budget: (budget.epsilon, budget.delta),
            steps,
            lambdas,
            printed_lambdas: None,
            project_each_step: true,
            label: "peeling (top-s selection)",
        }
    }

    /// The Peeling of iteration t (see `printed_lambdas`); an error when it does not
    /// certify the per-call budget.
    pub fn peeling(
        &self,
        t: usize,
    ) -> Result<crate::mechanisms::Peeling, crate::privacy::PrivacyError> {
        use crate::mechanisms::Peeling;
        let (epsilon, delta) = self.call_budget;
        let noise_lambda = self.printed_lambdas.as_ref().unwrap_or(&self.lambdas)[t];
        let p = Peeling::calibrated(self.sizes.s, noise_lambda, epsilon, delta, self.calibration)?;
        Ok(match self.printed_lambdas {
            None => p,
            Some(_) => recertified_peeling(&p, self.lambdas[t]),
        })
    }

    /// Runs the loop; `step(t, rows, w)` makes the gradient step of iteration t in place.
    pub fn run<F>(
        &self,
        inputs: crate::algorithms::FitInputs,
        mut step: F,
    ) -> Result<IhtRun, crate::algorithms::FitError>
    where
        F: FnMut(usize, &[usize], &mut Vec<f64>),
    {
        use crate::algorithms::Selection;
        let (problem, budget, rng, observer) = inputs.parts();
        let data = problem.data;
        let all_rows: Vec<usize> = match self.passes {
            Passes::Chunked(_) => vec![],
            Passes::FullData => (0..data.n()).collect(),
        };
        let step = |t: usize, rows: Selection<'_>, w: &mut Vec<f64>| {
            match rows {
                Selection::All => step(t, &all_rows, w),
                Selection::Chunk { chunks, index } => step(t, chunks.chunk(index), w),
            }
            Ok(())
        };
        self.run_selected(data, budget, step, rng, observer)
    }

    /// [`IhtLoop::run`] with the rows of each step given as a
    /// [`Selection`](crate::algorithms::Selection) (the chunk, not its row
    /// list: what a distributed step needs); the step may fail.
    pub fn run_selected<F>(
        &self,
        data: &crate::data::Dataset,
        budget: crate::privacy::Budget,
        mut step: F,
        rng: &mut dyn rand::RngCore,
        observer: &mut dyn crate::algorithms::Observer,
    ) -> Result<IhtRun, crate::algorithms::FitError>
    where
        F: FnMut(
            usize,
            crate::algorithms::Selection<'_>,
            &mut Vec<f64>,
        ) -> Result<(), crate::algorithms::FitError>,
    {
        use crate::algorithms::Selection;
        use crate::mechanisms::{release, release_on_chunk};
        use crate::privacy::{Accountant, PrivacyLedger};
        let big_t = self.steps.len();
        debug_assert_eq!(self.lambdas.len(), big_t);
        let (chunks, accountant) = match self.passes {
            Passes::Chunked(chunking) => (
                Some(crate::algorithms::Chunks::new(
                    self.name,
                    data.n(),
                    big_t,
                    chunking,
                    rng,
                )?),
                Accountant::Parallel,
            ),
            Passes::FullData => (None, Accountant::Basic),
        };
        let mut ledger = PrivacyLedger::new(budget, accountant);
        let mut w = vec![0.0; data.d()];
        let mut trace = Vec::with_capacity(big_t);
        let mut scales = Vec::with_capacity(big_t);
        observer.on_start(big_t);
        for t in 0..big_t {
            let peeling = self.peeling(t)?;
            let rows = chunks
                .as_ref()
                .map_or(Selection::All, |c| Selection::Chunk {
                    chunks: c,
                    index: t,
                });
            step(t, rows, &mut w)?;
            w = match chunks {
                Some(_) => release_on_chunk(&mut ledger, self.label, t, &peeling, &w, rng)?,
                None => release(&mut ledger, self.label, &peeling, &w, rng)?,
            };
            if self.project_each_step {
                project_l2(&mut w, self.sizes.radius);
            }
            scales.push(peeling.scale);
            let (step, scale) = (self.steps[t], peeling.scale);
            crate::algorithms::TraceRecord::push(
                &mut trace,
                observer,
                &ledger,
                t + 1,
                (step, scale),
            );
        }
        observer.on_finish();
        // Post-processing (no privacy cost); keeps the support.
        if !self.project_each_step {
            project_l2(&mut w, self.sizes.radius);
        }
        Ok(IhtRun {
            weights: w,
            ledger,
            trace,
            scales,
            m: chunks.map_or(data.n(), |c| c.m()),
        })
    }

    /// [`IhtLoop::run`] with the clipped-gradient step of the Tian et al. and Hu et al.
    /// Alg. 3 algorithms: w ← w + (η_t/|rows|) Σ_{i ∈ rows} g_i · x̃_i
    /// ([`clipped_weighted_sum`], features clipped at `k`; `weight` gives g, the
    /// descent direction).
    pub fn run_clipped<F>(
        &self,
        inputs: crate::algorithms::FitInputs,
        k: f64,
        weight: F,
    ) -> Result<IhtRun, crate::algorithms::FitError>
    where
        F: Fn(f64, f64, f64) -> f64 + Sync,
    {
        let data = inputs.problem.data;
        let d = data.d();
        let mut sum = vec![0.0; d];
        let step = |t: usize, rows: &[usize], w: &mut Vec<f64>| {
            let support = support_of(w);
            clipped_weighted_sum(data, data.y(), rows, &support, k, &weight, &mut sum);
            let step = self.steps[t] / rows.len() as f64;
            for (wj, gj) in w.iter_mut().zip(&sum) {
                *wj += step * gj;
            }
        };
        self.run(inputs, step)
    }

    /// [`IhtLoop::run_clipped`] for least squares on the data shrunk at `c`, the features
    /// coordinate-wise and the response: g = −(⟨x̃, w⟩ − clip(y, ±c)). The step of Hu et
    /// al. Alg. 3 (c = K) and of DP-SLR (c = B).
    pub fn run_shrunk_least_squares(
        &self,
        inputs: crate::algorithms::FitInputs,
        c: f64,
    ) -> Result<IhtRun, crate::algorithms::FitError> {
        self.run_clipped(inputs, c, move |margin: f64, _, y: f64| {
            -(margin - y.clamp(-c, c))
        })
    }

    /// The hyperparameters every IHT fit reports: the preset, s*, s, T, η₀ (`eta`), the λ
    /// Peeling's noise is calibrated at (`lambda`), Peeling's first scale, the calibration,
    /// and for chunked runs m and the chunking.
    pub fn hyperparameters(
        &self,
        run: &IhtRun,
        preset: &'static str,
    ) -> std::collections::BTreeMap<String, serde_json::Value> {
        use crate::algorithms::hp;
        let mut h = std::collections::BTreeMap::new();
        hp(&mut h, "preset", preset);
        hp(&mut h, "s_star", self.sizes.s_star);
        hp(&mut h, "s", self.sizes.s);
        hp(&mut h, key::T, self.steps.len());
        hp(&mut h, "eta", self.steps[0]);
        let lambdas = self.printed_lambdas.as_ref().unwrap_or(&self.lambdas);
        hp(&mut h, "lambda", lambdas[0]);
        hp(&mut h, "peeling_scale", run.scales[0]);
        hp(&mut h, key::CALIBRATION, self.calibration.name());
        if let Passes::Chunked(chunking) = self.passes {
            hp(&mut h, "m", run.m);
            hp(&mut h, "chunking", chunking.name());
        }
        h
    }
}

/// The public sizes every IHT plan starts from: the `sparse` domain's s* and radius R,
/// the number s of coordinates Peeling keeps, the iteration count T and the records m
/// read per iteration (⌊n/T⌋ for the chunked algorithms, n for `dp-slr`).
#[derive(Debug, Clone, PartialEq)]
pub struct IhtSizes {
    pub s_star: usize,
    pub radius: f64,
    pub s: usize,
    pub big_t: usize,
    pub m: usize,
}

impl IhtSizes {
    /// The constant schedule: η and λ at each of the T iterations.
    pub fn constant(&self, eta: f64, lambda: f64) -> (Vec<f64>, Vec<f64>) {
        (vec![eta; self.big_t], vec![lambda; self.big_t])
    }
}

/// What an IHT algorithm's own file defines: its catalogue row ([`IhtInfo`]), its plan
/// (every constant, from public quantities only), the loop of that plan, any checks of its
/// own and the run itself (its gradient step in `IhtLoop`). Each such type is a
/// [`PrivateAlgorithm`](crate::algorithms::PrivateAlgorithm) through the one impl below:
/// `validate` = the common checks ([`approx_budget`](crate::algorithms::approx_budget),
/// domain `sparse`) + `plan` + the first Peeling of the loop + `check`; `fit` = the same
/// (once), then `run` on the budget with its defaulted δ.
pub(crate) trait IhtAlgorithm {
    /// The resolved, public plan of a fit.
    type Plan;
    /// The algorithm's row of the catalogue (`heavydp algorithms`).
    const INFO: IhtInfo;
    /// Resolves every parameter from public quantities (n, d, s*, ε, δ, the user's values).
    fn plan(
        &self,
        problem: &crate::algorithms::Problem,
        budget: &crate::privacy::Budget,
    ) -> Result<Self::Plan, crate::algorithms::FitError>;
    /// The loop a fit with this plan runs, on the budget with its defaulted δ: its
    /// schedule (η_t, λ_t), passes, Peeling calibration and per-call budget. `validate`
    /// checks the Peeling of its first iteration ([`IhtLoop::peeling`]), so the check and
    /// the run use the one Peeling (its certification depends on (s, ε, δ) only; λ_t
    /// scales the noise).
    fn iht_loop<'p>(&self, plan: &'p Self::Plan, budget: &crate::privacy::Budget) -> IhtLoop<'p>;
    /// The algorithm's own checks of its plan beyond Peeling's certification (none by
    /// default); errors depend only on public inputs.
    fn check(
        &self,
        _plan: &Self::Plan,
        _budget: &crate::privacy::Budget,
    ) -> Result<(), crate::algorithms::FitError> {
        Ok(())
    }
    /// The catalogue row: (ε, δ)-DP on the `sparse` domain, with [`IhtAlgorithm::INFO`],
    /// then the chunking (when chunked) and Peeling calibration rows.
    fn info() -> crate::algorithms::AlgorithmInfo {
        Self::INFO.catalogue_row()
    }
    /// Fits with a checked plan; `inputs.budget` has its δ defaulted.
    fn run(
        &self,
        plan: Self::Plan,
        inputs: crate::algorithms::FitInputs,
    ) -> Result<crate::algorithms::FitReport, crate::algorithms::FitError>;
    /// [`IhtAlgorithm::run`] with the per-iteration row sums taken from `sums`
    /// (`PrivateAlgorithm::fit_with_sums`); only `dp-iht-huber` implements it.
    fn run_with_sums(
        &self,
        _problem: &crate::algorithms::Problem,
        _budget: crate::privacy::Budget,
        _plan: Self::Plan,
        _sums: &mut dyn crate::algorithms::RowSums,
        _rng: &mut dyn rand::RngCore,
        _observer: &mut dyn crate::algorithms::Observer,
    ) -> Result<crate::algorithms::FitReport, crate::algorithms::FitError> {
        Err(crate::algorithms::FitError::Unsupported {
            algorithm: Self::INFO.name,
            reason: crate::algorithms::NOT_DISTRIBUTED.into(),
        })
    }

    /// The budget (δ defaulted) and the checked plan: what `validate` checks and `fit` runs.
    fn checked_plan(
        &self,
        problem: &crate::algorithms::Problem,
        budget: &crate::privacy::Budget,
    ) -> Result<(crate::privacy::Budget, Self::Plan), crate::algorithms::FitError> {
        let (name, losses) = (Self::INFO.name, Self::INFO.losses);
        let budget = crate::algorithms::approx_budget(name, problem, budget, losses, &["sparse"])?;
        let plan = self.plan(problem, &budget)?;
        self.iht_loop(&plan, &budget).peeling(0)?;
        self.check(&plan, &budget)?;
        Ok((budget, plan))
    }
}

impl<A: IhtAlgorithm> crate::algorithms::PrivateAlgorithm for A {
    /// The features are read only through [`clipped_weighted_sum`] (`IhtLoop::run_clipped`)
    /// or, in `ht-sparse-opt`, the robust estimator's `gradient_of` and `Dataset::read_row`.
    fn identity(&self) -> crate::algorithms::Identity {
        crate::algorithms::Identity::mapped(A::INFO.name, crate::privacy::PrivacyModel::Approx)
    }
    fn validate(
        &self,
        problem: &crate::algorithms::Problem,
        budget: &crate::privacy::Budget,
    ) -> Result<(), crate::algorithms::FitError> {
        self.checked_plan(problem, budget).map(|_| ())
    }
    /// `validate` and `fit_validated` in one: the plan is resolved and checked once.
    fn fit(
        &self,
        problem: &crate::algorithms::Problem,
        budget: crate::privacy::Budget,
        rng: &mut dyn rand::RngCore,
        observer: &mut dyn crate::algorithms::Observer,
    ) -> Result<crate::algorithms::FitReport, crate::algorithms::FitError> {
        let (budget, plan) = self.checked_plan(problem, &budget)?;
        let inputs = crate::algorithms::FitInputs {
            problem,
            budget,
            rng,
            observer,
        };
        self.run(plan, inputs)
    }
    fn fit_validated(
        &self,
        inputs: crate::algorithms::FitInputs,
    ) -> Result<crate::algorithms::FitReport, crate::algorithms::FitError> {
        let (budget, plan) = self.checked_plan(inputs.problem, &inputs.budget)?;
        self.run(plan, crate::algorithms::FitInputs { budget, ..inputs })
    }
    fn fit_with_sums(
        &self,
        problem: &crate::algorithms::Problem,
        sums: &mut dyn crate::algorithms::RowSums,
        budget: crate::privacy::Budget,
        rng: &mut dyn rand::RngCore,
        observer: &mut dyn crate::algorithms::Observer,
    ) -> Result<crate::algorithms::FitReport, crate::algorithms::FitError> {
        let (budget, plan) = self.checked_plan(problem, &budget)?;
        self.run_with_sums(problem, budget, plan, sums, rng, observer)
    }
}

/// What an IHT algorithm's row of the catalogue (`heavydp algorithms`) says of it: one
/// declaration per algorithm ([`IhtAlgorithm::INFO`]); the rest of the row is common to
/// the family ([`IhtInfo::catalogue_row`]).
pub(crate) struct IhtInfo {
    /// The CONTRACT name.
    pub name: &'static str,
    /// The losses the algorithm accepts.
    pub losses: &'static [&'static str],
    /// The "use when" column.
    pub use_when: &'static str,
    pub paper: &'static str,
    /// True when the iterations read disjoint chunks (the `chunking` parameter applies).
    pub chunked: bool,
    /// The algorithm's own rows of the parameter table.
    pub parameters: &'static [crate::algorithms::ParamInfo],
}

impl IhtInfo {
    /// The documentation row: (ε, δ)-DP on the `sparse` domain, the algorithm's own
    /// parameters, then those of the chunking (for the `chunked` ones) and of Peeling's
    /// calibration.
    pub fn catalogue_row(&self) -> crate::algorithms::AlgorithmInfo {
        let mut parameters = self.parameters.to_vec();
        if self.chunked {
            parameters.push(crate::algorithms::Chunking::param_info());
        }
        parameters.push(crate::mechanisms::PeelingCalibration::param_info());
        crate::algorithms::AlgorithmInfo {
            name: self.name,
            paper: self.paper,
            use_when: self.use_when,
            privacy: "approx",
            losses: self.losses.to_vec(),
            domains: vec!["sparse"],
            parameters,
        }
    }
}

/// The Peeling whose noise was calibrated for `printed` but whose true ℓ∞ sensitivity is
/// `lambda` (≥ printed): same Laplace scale, sensitivity `lambda`, and ε = what the 2s
/// composed steps certify at `lambda` and the budget's δ (Peeling's own composition
/// check, [`crate::mechanisms::Peeling::certified_epsilon`]), rounded up. Its cost is
/// that certified ε, which exceeds the nominal budget whenever the printed λ under-noises.
/// At ε = ∞ the scale is 0 and nothing changes.
pub(crate) fn recertified_peeling(
    printed: &crate::mechanisms::Peeling,
    lambda: f64,
) -> crate::mechanisms::Peeling {
    let mut p = crate::mechanisms::Peeling { lambda, ..*printed };
    if p.scale > 0.0 {
        p.epsilon = p.certified_epsilon();
    }
    p
}

/// The note of an IHT fit at ε = ∞ (none at finite ε): Peeling is then exact hard
/// thresholding; `defaults` names the defaults evaluated at ε = 1 instead (e.g.
/// "default K evaluated at epsilon = 1; "), empty when the plan has none.
pub(crate) fn exact_thresholding_note(
    budget: &crate::privacy::Budget,
    defaults: &str,
) -> Option<String> {
    budget
        .is_non_private()
        .then(|| format!("epsilon = inf: {defaults}Peeling is exact hard thresholding"))
}

/// The `K` row of DP-IHT-H and DP-IHT-L (the clipping level of [`SizeOverrides::tian`]).
pub(crate) const TIAN_K: crate::algorithms::ParamInfo = crate::algorithms::ParamInfo {
    name: "K",
    default: "max(1, ln d)",
    meaning: "feature clipping level",
    source: "Tian Sec. 6 (K = log d)",
};

/// The parameters shared by the two chunked Tian et al. algorithms, `dp-iht-huber`
/// (Alg. 1) and `dp-iht-l1` (Alg. 3): `preset`, `eta`, `s`, `T`, `K`, `chunking` and
/// `calibration`. Each algorithm's struct holds one of these and adds its own
/// parameters; [`TianParams::resolve`] evaluates them the same way for both (spec
/// `tian-dp-iht-heavy-tailed-response.md` §4, §6). Default: the `theory` preset and
/// every other parameter at its rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TianParams {
    /// Which step size η₀ applies when `eta` is not given ([`TianParams::preset_eta`]).
    pub preset: crate::algorithms::Preset,
    /// The user's (initial) step size η₀.
    pub eta: Option<f64>,
    /// The user's `s` and `T` ([`SizeOverrides::tian`] rules otherwise).
    pub sizes: SizeOverrides,
    /// The user's feature clipping level K (default max(1, ln d), Tian Sec. 6).
    pub k: Option<f64>,
    pub peeling: ChunkedPeeling,
}

impl Default for TianParams {
    fn default() -> Self {
        TianParams {
            preset: crate::algorithms::Preset::Theory,
            eta: None,
            sizes: SizeOverrides::default(),
            k: None,
            peeling: ChunkedPeeling::default(),
        }
    }
}

impl TianParams {
    /// Reads `preset`, `eta`, `s`, `T`, `K`, `chunking` and `calibration` (absent: the
    /// default).
    pub fn parse(p: &crate::algorithms::Params) -> Result<Self, crate::algorithms::FitError> {
        use crate::algorithms::Preset;
        Ok(TianParams {
            preset: Preset::parse(p, Preset::Theory)?,
            eta: p.positive("eta")?,
            sizes: SizeOverrides::parse(p)?,
            k: p.positive("K")?,
            peeling: ChunkedPeeling::parse(p)?,
        })
    }

    /// The (initial) step size of each preset: η₀ = 0.5 (`theory`, Thm 4.2/5.2:
    /// η = O(1)) or 0.01 (`paper`, Sec. 6).
    pub fn preset_eta(preset: crate::algorithms::Preset) -> f64 {
        use crate::algorithms::Preset;
        match preset {
            Preset::Theory => 0.5,
            Preset::Paper => 0.01,
        }
    }

    /// The sizes of a chunked fit, K and η₀: [`SizeOverrides::tian`] with the user's K,
    /// and the user's `eta` or the preset's.
    pub fn resolve(
        &self,
        algorithm: &'static str,
        problem: &crate::algorithms::Problem,
    ) -> Result<(IhtSizes, f64, f64), crate::algorithms::FitError> {
        let (sizes, k) = self.sizes.tian(algorithm, problem, self.k, true)?;
        let eta = self.eta.unwrap_or(Self::preset_eta(self.preset));
        Ok((sizes, k, eta))
    }
}

/// The parameters shared by the two Hu et al. algorithms, `ht-sparse-linreg` (Alg. 3)
/// and `ht-sparse-opt` (Alg. 5): `s`, `T`, `c` (s = c·s*), `eta`, the user-declared
/// `gamma` and `mu` of the theory preset (Theorems 7 and 8), `chunking` and
/// `calibration`. Each algorithm's struct holds one of these next to its own preset and
/// robust scale; [`HuParams::resolve`] evaluates them the same way for both. Default:
/// every rule, γ = μ = 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HuParams {
    /// The user's `s` and `T` ([`SizeOverrides::hu`] rules otherwise).
    pub sizes: SizeOverrides,
    /// The user's multiplier c (s = c·s*).
    pub c: Option<usize>,
    /// The user's step size η.
    pub eta: Option<f64>,
    /// Restricted smoothness γ (theory preset).
    pub gamma: f64,
    /// Restricted strong convexity μ (theory preset).
    pub mu: f64,
    pub peeling: ChunkedPeeling,
}

impl Default for HuParams {
    fn default() -> Self {
        HuParams {
            sizes: SizeOverrides::default(),
            c: None,
            eta: None,
            gamma: 1.0,
            mu: 1.0,
            peeling: ChunkedPeeling::default(),
        }
    }
}

impl HuParams {
    /// Reads `s`, `T`, `c`, `eta`, `gamma`, `mu`, `chunking` and `calibration` (absent:
    /// the default).
    pub fn parse(p: &crate::algorithms::Params) -> Result<Self, crate::algorithms::FitError> {
        Ok(HuParams {
            sizes: SizeOverrides::parse(p)?,
            c: p.integer("c", 1)?,
            eta: p.positive("eta")?,
            gamma: p.positive("gamma")?.unwrap_or(1.0),
            mu: p.positive("mu")?.unwrap_or(1.0),
            peeling: ChunkedPeeling::parse(p)?,
        })
    }

    /// The sizes ([`SizeOverrides::hu`] with γ/μ) and the step size: the user's η, else
    /// η = 2/(3γ) under the theory preset (`theory`: Thms 7, 8) and 0.5 otherwise (the
    /// experiments, Sec. 6).
    pub fn resolve(
        &self,
        algorithm: &'static str,
        problem: &crate::algorithms::Problem,
        theory: bool,
    ) -> Result<(IhtSizes, f64), crate::algorithms::FitError> {
        let ratio = self.gamma / self.mu;
        let sizes = self.sizes.hu(algorithm, problem, self.c, theory, ratio)?;
        let eta = self.eta.unwrap_or(if theory {
            2.0 / (3.0 * self.gamma)
        } else {
            0.5
        });
        Ok((sizes, eta))
    }

    /// Adds γ and μ to a fit's hyperparameters when the theory preset read them.
    pub(crate) fn record_declared(
        &self,
        h: &mut std::collections::BTreeMap<String, serde_json::Value>,
        theory: bool,
    ) {
        if theory {
            crate::algorithms::hp(h, "gamma", self.gamma);
            crate::algorithms::hp(h, "mu", self.mu);
        }
    }
}

/// The user's `s` (coordinates kept) and `T` (iterations) of an IHT algorithm
/// (`--param s`, `T`); `None` = the algorithm's default: the Tian et al. rule of
/// [`SizeOverrides::tian`] or the Hu et al. preset of [`SizeOverrides::hu`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SizeOverrides {
    pub s: Option<usize>,
    pub t: Option<usize>,
}

impl SizeOverrides {
    /// Reads `s` and `T`.
    pub fn parse(p: &crate::algorithms::Params) -> Result<Self, crate::algorithms::FitError> {
        Ok(SizeOverrides {
            s: p.integer("s", 1)?,
            t: p.integer(key::T, 1)?,
        })
    }

    /// The Tian et al. defaults shared by DP-IHT-H, DP-IHT-L and DP-SLR (spec §4, §6):
    /// s = s* (capped at d), K = ln d, T = ⌈ln n⌉, all overridable (`k` the user's K).
    /// `chunked`: T disjoint chunks of m = ⌊n/T⌋ records (T ≤ n checked); else every
    /// record at every iteration (m = n, T not limited by n). Returns the sizes and K.
    pub fn tian(
        self,
        algorithm: &'static str,
        problem: &crate::algorithms::Problem,
        k: Option<f64>,
        chunked: bool,
    ) -> Result<(IhtSizes, f64), crate::algorithms::FitError> {
        let SizeOverrides { s, t } = self;
        let (s_star, radius) = crate::algorithms::sparse_domain(algorithm, problem.domain)?;
        let (n, d) = (problem.data.n(), problem.data.d());
        let s = s.unwrap_or(s_star.min(d));
        check_kept(algorithm, s, d)?;
        // K = ln d (spec §4); at d ≤ 2, ln d ≤ 0.7 would clip N(0,1) features hard, so the
        // default never goes below 1.
        let k = k.unwrap_or(((d as f64).ln()).max(1.0));
        let big_t = t.unwrap_or((((n as f64).ln()).ceil() as usize).max(1));
        let m = if chunked {
            crate::algorithms::check_chunks(algorithm, n, big_t)?;
            n / big_t
        } else {
            n
        };
        let sizes = IhtSizes {
            s_star,
            radius,
            s,
            big_t,
            m,
        };
        Ok((sizes, k))
    }

    /// The sizes shared by the Hu et al. IHT algorithms (Algs. 3 and 5), with the chunk
    /// check; `c` is the user's multiplier (s = c·s*). `theory` selects Theorem 7/8
    /// (s = ⌈72(γ/μ)²s*⌉, T = ⌈(γ/μ) ln n⌉, `ratio` = γ/μ) over the experiments'
    /// s = c·s* (c = 2), T = max(1, ⌊ln n⌋). s is capped at d (unless given) and must be
    /// in 1..=d; T ≤ n; m = ⌊n/T⌋.
    pub fn hu(
        self,
        algorithm: &'static str,
        problem: &crate::algorithms::Problem,
        c: Option<usize>,
        theory: bool,
        ratio: f64,
    ) -> Result<IhtSizes, crate::algorithms::FitError> {
        let SizeOverrides { s, t } = self;
        let (s_star, radius) = crate::algorithms::sparse_domain(algorithm, problem.domain)?;
        let (n, d) = (problem.data.n(), problem.data.d());
        let s = match (s, c) {
            (Some(s), _) => s,
            (None, Some(c)) => (c * s_star).min(d),
            (None, None) if theory => {
                ((72.0 * ratio * ratio * s_star as f64).ceil() as usize).min(d)
            }
            (None, None) => (2 * s_star).min(d),
        };
        check_kept(algorithm, s, d)?;
        let ln_n = (n as f64).ln();
        let big_t = t.unwrap_or(if theory {
            ((ratio * ln_n).ceil() as usize).max(1)
        } else {
            crate::algorithms::floor_at_least_one(ln_n)
        });
        crate::algorithms::check_chunks(algorithm, n, big_t)?;
        Ok(IhtSizes {
            s_star,
            radius,
            s,
            big_t,
            m: n / big_t,
        })
    }
}

/// s ∈ 1..=d.
fn check_kept(
    algorithm: &'static str,
    s: usize,
    d: usize,
) -> Result<(), crate::algorithms::FitError> {
    if s == 0 || s > d {
        return Err(crate::algorithms::FitError::BadParameter {
            algorithm,
            param: "s".into(),
            reason: format!("the number of kept coordinates must be in 1..=d (d = {d}), got {s}"),
        });
    }
    Ok(())
}

/// The non-zero entries of w.
pub(crate) fn support_of(w: &[f64]) -> Vec<(usize, f64)> {
    w.iter()
        .enumerate()
        .filter(|(_, v)| **v != 0.0)
        .map(|(j, v)| (j, *v))
        .collect()
}

/// w ← w · min(1, R/‖w‖₂) (projection on the ℓ2 ball of radius R; keeps the support).
pub(crate) fn project_l2(w: &mut [f64], radius: f64) {
    let n = crate::linalg::norm2(w);
    if n > radius {
        w.iter_mut().for_each(|v| *v *= radius / n);
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tian_tests;

#[cfg(test)]
mod kernel_tests {
    use super::*;
    use crate::data::Dataset;
    use crate::noise::{gaussian, rng_from_seed};
    use crate::test_support::{bits, on_threads};

    /// The kernel written one row at a time (the form before rows were grouped): per
    /// block of `block_rows(d)` rows an accumulator, acc += g·clamp(x, −K, K) row after
    /// row, then the blocks' sums added in block order.
    fn row_at_a_time<F: Fn(f64, f64, f64) -> f64>(
        x: &Dataset,
        rows: &[usize],
        support: &[(usize, f64)],
        k: f64,
        weight: F,
    ) -> Vec<f64> {
        let d = x.d();
        let (mut out, mut row) = (vec![0.0; d], vec![0.0; d]);
        for blk in rows.chunks(block_rows(d)) {
            let mut acc = vec![0.0; d];
            for &i in blk {
                x.read_row(i, &mut row);
                let c: f64 = support
                    .iter()
                    .fold(0.0, |s, &(j, w)| s + row[j].clamp(-k, k) * w);
                let raw: f64 = support.iter().fold(0.0, |s, &(j, w)| s + row[j] * w);
                let g = weight(c, raw, x.y()[i]);
                if g != 0.0 {
                    for (a, v) in acc.iter_mut().zip(&row) {
                        *a += g * v.clamp(-k, k);
                    }
                }
            }
            for (o, a) in out.iter_mut().zip(&acc) {
                *o += a;
            }
        }
        out
    }

    /// The grouped kernel gives the row-at-a-time sums bit for bit: blocks of
    /// block_rows(1500) = 174 rows (21 groups of 8, then 4 + 2) and a last block of
    /// 73 (9 groups of 8, then 1), zero weights inside groups (groups of 1 to 7 updates),
    /// values beyond ±K and −0.0 features, a raw and a lazily clipped (mapped) dataset,
    /// 1 and 2 threads.
    #[test]
    fn grouped_rows_give_the_row_at_a_time_sum_bit_for_bit() {
        let (n, d) = (1100, 1500);
        let mut rng = rng_from_seed(7);
        let mut x: Vec<f64> = (0..n * d)
            .map(|_| gaussian(1.0, &mut rng).powi(3))
            .collect();
        x.iter_mut().step_by(97).for_each(|v| *v = -0.0);
        let y: Vec<f64> = (0..n).map(|_| gaussian(2.0, &mut rng)).collect();
        let data = Dataset::from_rows(x, y, d).unwrap();
        let rows: Vec<usize> = (0..n).rev().filter(|i| i % 7 != 3).collect();
        assert_eq!((rows.len(), block_rows(d)), (943, 174));
        let support = vec![(0usize, 0.4), (13, -1.1), (700, 0.25), (1499, 2.0)];
        let k = 1.5;
        // Zero for about a third of the rows (y > 1).
        let weight = |c: f64, raw: f64, y: f64| {
            if y > 1.0 {
                0.0
            } else {
                (y - c).clamp(-1.0, 1.0) + 0.1 * raw
            }
        };
        for x in [data.clone(), data.clipped_view(2.5, false)] {
            let expect = row_at_a_time(&x, &rows, &support, k, weight);
            for threads in [1, 2] {
                let mut out = vec![f64::NAN; d];
                on_threads(threads, || {
                    clipped_weighted_sum(&x, x.y(), &rows, &support, k, weight, &mut out)
                });
                assert_eq!(
                    bits(&out),
                    bits(&expect),
                    "{threads} threads, mapped: {}",
                    x.is_mapped()
                );
            }
        }
    }

    /// `clip` is `f64::clamp` for every value class, NaN and ±0.0 included.
    #[test]
    fn clip_is_clamp() {
        let values = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -1.5,
            -1.0,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            5e-324,
            1.0,
            1.5,
            2.5,
            1e300,
            f64::INFINITY,
            f64::NAN,
        ];
        for k in [0.0, 1.5, f64::INFINITY] {
            for v in values {
                assert_eq!(
                    clip(v, k).to_bits(),
                    v.clamp(-k, k).to_bits(),
                    "clip({v}, {k})"
                );
            }
        }
    }

    /// No rows, or rows that all weigh zero: the sum is +0.0 everywhere (`out` is
    /// overwritten).
    #[test]
    fn empty_and_all_zero_weights_give_zeros() {
        let data =
            Dataset::from_rows(vec![1.0, -2.0, 3.0, 4.0, 5.0, -6.0], vec![0.0; 3], 2).unwrap();
        for rows in [vec![], vec![0, 1, 2]] {
            let mut out = vec![f64::NAN; 2];
            clipped_weighted_sum(
                &data,
                data.y(),
                &rows,
                &[(0, 1.0)],
                1.0,
                |_, _, _| 0.0,
                &mut out,
            );
            assert_eq!(bits(&out), bits(&[0.0, 0.0]));
        }
    }
}
