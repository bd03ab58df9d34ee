//! Row sums: the per-iteration data pass of the algorithms that can run on data that
//! does not live in this process (`docs/distributed.md`).
//!
//! The heavy part of `clipped-gd`, `ht-frank-wolfe` and `dp-iht-huber` is one sum over
//! rows per iteration ([`Kernel`]):
//!
//! | kernel | algorithm | sum over the selected rows i |
//! |---|---|---|
//! | [`Kernel::ClippedGradient`] | `clipped-gd` (Zhao Alg. 2) | Clip(f'(⟨x_i, w⟩, y_i)·x_i, R) |
//! | [`Kernel::CatoniPsi`] | `ht-frank-wolfe` (Hu Alg. 1, §A.4) | Ψ(v_ij/s, \|v_ij\|/(s√β)), v_ij = f'(⟨x_i, w⟩, y_i)·x_ij |
//! | [`Kernel::ClippedHuber`] | `dp-iht-huber` (Tian Alg. 1) | ψ_τ(clip(y_i) − ⟨x̃_i, w⟩)·x̃_i, x̃ = x clipped at K |
//!
//! An algorithm asks a [`RowSums`] for the sum and does everything else itself: the
//! scaling (1/n, s/m, η/m), the mechanism, the ledger. [`LocalRowSums`] computes the sum
//! on an in-memory [`Dataset`] with the kernels the algorithms always used
//! ([`clipped_row_sum`], [`CatoniGiulini::psi_sum_of`], [`clipped_weighted_sum`]), so
//! local fits are bit-identical to what they were. [`ExternalRowSums`] sends a
//! [`SumRequest`] (kernel, iterate, public row selection, public standardisation) to a
//! caller-supplied pass — a Spark job whose executors run [`batch_sum`], the same
//! kernels on one batch — and adds the returned partial sums in the order given.
//!
//! Only d-vectors and row counts come back; the noise, the mechanisms and the ledger
//! stay with the algorithm, in this process.

use super::{Chunks, FitError, KeyedPermutation};
pub use super::{RowSums, Selection};
use crate::algorithms::iht::{clipped_weighted_sum, support_of};
use crate::data::{standardise, ColumnMap, Dataset};
use crate::estimators::catoni::{CatoniGiulini, RobustWorkspace};
use crate::estimators::clip::{add_in_block_order, clip_l2, clipped_row_sum};
use crate::linalg::{block_rows, dot, Rows};
use crate::loss::{Loss, LossKind};
use crate::preprocess::fit_check::CheckSource;
use crate::preprocess::{
    self,
    quantile::{self, GridHistogram, PublicGrid, RankCounts},
    InterceptSource, PreprocessError, ScalingSource, StageMap,
};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The name external-pass errors are reported under.
const EXTERNAL: &str = "distributed fit";

/// A per-row sum an algorithm needs at one iteration. See the module table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kernel", rename_all = "snake_case")]
pub enum Kernel {
    /// Σ Clip(f'(⟨x_i, w⟩, y_i)·x_i, R) (ℓ2 clipping, [`crate::estimators::clip`]). With
    /// `intercept` = Some(u), w has d + 1 values, the last the weight b of a constant
    /// feature u: Σ Clip(f'(⟨x_i, w_{1..d}⟩ + u·b, y_i)·(x_i, u), R), d + 1 values.
    ClippedGradient {
        loss: LossKind,
        radius: f64,
        #[serde(default)]
        intercept: Option<f64>,
    },
    /// Σ_i Ψ(v_ij/s, |v_ij|/(s√β)) per coordinate j, unscaled (the Catoni–Giulini robust
    /// gradient is s/m times it, [`CatoniGiulini::gradient_of`]).
    CatoniPsi {
        loss: LossKind,
        scale: f64,
        beta: f64,
    },
    /// Σ ψ_τ(clip_R(y_i) − ⟨x̃_i, w⟩)·x̃_i with x̃ the features clipped at K
    /// coordinate-wise and R = `y_clip` (none: no response clipping).
    ClippedHuber {
        k: f64,
        tau: f64,
        y_clip: Option<f64>,
    },
    /// Σ clamp(yᵢ − ⟨x̃ᵢ, w⟩, ±c) (one value): the private intercept's clipped sum of
    /// residuals ([`preprocess::private_intercept_of`]).
    ClippedResidual { c: f64 },
    /// The private fit check's reads ([`preprocess::fit_check::CheckReads`], flat: Σ
    /// clamp(yᵢ, ±c), then the counts of yᵢ and of yᵢ − ⟨x̃ᵢ, w⟩ in the cells of the
    /// check's grid; 1 + 2·[`CHECK_CELLS`](preprocess::fit_check::CHECK_CELLS) values).
    FitCheckReads { c: f64 },
    /// [`Kernel::ClippedResidual`] at `c`, then [`Kernel::FitCheckReads`] at
    /// `c_responses`, in one pass (each part summed exactly as its own kernel sums it):
    /// the private intercept's pass also reads all the fit check needs, so the check
    /// makes no pass of its own ([`ExternalRowSums::prefetch_check_reads`]).
    ClippedResidualAndCheckReads { c: f64, c_responses: f64 },
    /// The logistic fit check's reads ([`preprocess::fit_check::LogisticCheckReads`],
    /// flat: the counts of ⟨x̃ᵢ, w⟩ of the rows with yᵢ > 0, then of the others, in the
    /// cells of the check's grid; 2·[`CHECK_CELLS`](preprocess::fit_check::CHECK_CELLS)
    /// values).
    LogisticCheckReads,
    /// S(b) = Σ σ(⟨x̃ᵢ, w⟩ + b) − 1{yᵢ > 0} for the 513 points b of
    /// [`preprocess::logistic_grid`]: the logistic intercept's scores.
    LogisticScores,
    /// #{i: yᵢ > 0} (one value): the logistic base rate's count.
    Positives,
    /// The histogram of the residuals yᵢ − ⟨x̃ᵢ, w⟩ over the cells of the
    /// [`PublicGrid`] ([`quantile::histogram_cell`]): the private median intercept.
    ResidualHistogram,
    /// The histograms of each (column, map) of a stage of the private scaling
    /// ([`preprocess::private_quartiles_of`]) over the **raw** columns (column d: the
    /// response), on each map's grid cells, one after the other
    /// ([`preprocess::add_stage_cells`]).
    StageHistograms { columns: Vec<(usize, StageMap)> },
}

impl Kernel {
    /// The length of the reduced result for d features.
    pub fn out_len(&self, d: usize) -> usize {
        match *self {
            Kernel::ClippedResidual { .. } | Kernel::Positives => 1,
            Kernel::FitCheckReads { .. } => 1 + 2 * preprocess::fit_check::CHECK_CELLS,
            Kernel::ClippedResidualAndCheckReads { .. } => {
                2 + 2 * preprocess::fit_check::CHECK_CELLS
            }
            Kernel::LogisticCheckReads => 2 * preprocess::fit_check::CHECK_CELLS,
            Kernel::LogisticScores => LOGISTIC_GRID_LEN,
            Kernel::ResidualHistogram => quantile::histogram_cells(PublicGrid::LEN),
            Kernel::StageHistograms { ref columns } => *preprocess::stage_offsets(columns)
                .last()
                .expect("non-empty"),
            Kernel::ClippedGradient { .. } => self.iterate_len(d),
            _ => d,
        }
    }
    /// The length of the iterate w it reads for d features: d + 1 for
    /// [`Kernel::ClippedGradient`] with an intercept, else d.
    pub fn iterate_len(&self, d: usize) -> usize {
        match self {
            Kernel::ClippedGradient {
                intercept: Some(_), ..
            } => d + 1,
            _ => d,
        }
    }
    /// Whether the kernel is a preprocessing pass (the intercept, the scaling) rather
    /// than an algorithm's per-iteration sum.
    pub fn preprocessing(&self) -> bool {
        !matches!(
            self,
            Kernel::ClippedGradient { .. } | Kernel::CatoniPsi { .. } | Kernel::ClippedHuber { .. }
        )
    }
    /// Whether a partial result is sparse: (cell, count) pairs rather than a dense
    /// vector (the histograms: a batch fills few of their cells).
    pub fn sparse(&self) -> bool {
        matches!(
            self,
            Kernel::ResidualHistogram | Kernel::StageHistograms { .. }
        )
    }
}

/// The grid histograms of a stage of the private scaling: its (column, map) pairs and
/// one histogram each.
type Histograms = (Vec<(usize, StageMap)>, Vec<GridHistogram>);

/// The number of points of [`preprocess::logistic_grid`].
const LOGISTIC_GRID_LEN: usize = 513;

/// The per-record weight g = ψ_τ(clip_R(y) − ⟨x̃, w⟩) of DP-IHT-H (Tian Alg. 1), in the
/// argument order of [`clipped_weighted_sum`] (clipped margin, raw margin, y).
pub fn huber_weight(tau: f64, y_clip: Option<f64>) -> impl Fn(f64, f64, f64) -> f64 + Sync {
    let y_clip = y_clip.unwrap_or(f64::INFINITY);
    move |margin: f64, _, y: f64| (y.clamp(-y_clip, y_clip) - margin).clamp(-tau, tau)
}

/// Row access for the kernels: a [`Rows`] that can also write a row into a buffer.
pub trait RowSource: Rows {
    /// Row `i` as the fit sees it, written into `out` (length d).
    fn read_into(&self, i: usize, out: &mut [f64]);

    /// Rows `start..end` as the fit sees them, row-major (d ≥ 1 columns), each as
    /// [`RowSource::read_into`] writes it: in `scratch` (resized as needed; keep one per
    /// thread and reuse it), or the stored rows themselves where no copy is needed.
    fn read_block<'a>(&'a self, start: usize, end: usize, scratch: &'a mut Vec<f64>) -> &'a [f64] {
        let d = self.width();
        scratch.clear();
        scratch.resize((end - start) * d, 0.0);
        for (i, row) in (start..end).zip(scratch.chunks_exact_mut(d)) {
            self.read_into(i, row);
        }
        scratch
    }
}

impl RowSource for Dataset {
    #[inline]
    fn read_into(&self, i: usize, out: &mut [f64]) {
        self.read_row(i, out)
    }
    #[inline]
    fn read_block<'a>(&'a self, start: usize, end: usize, scratch: &'a mut Vec<f64>) -> &'a [f64] {
        self.block(start, end, scratch)
    }
}

/// Rows a block of [`clipped_gradient_sum`] reads at a time (a few kB per thread).
const GRADIENT_SPAN: usize = 256;

/// Σ_{i<n} Clip(f'(⟨x̃ᵢ, w_{1..d}⟩ + u·b, yᵢ)·(x̃ᵢ, u), R) into `out` (d + 1 values with
/// `intercept` = Some(u), else d and no u·b term): [`clipped_row_sum`] of the per-sample
/// gradients, with the same blocks of rows, the same operations in the same order and so
/// the same bits, but rows read [`GRADIENT_SPAN`] at a time ([`RowSource::read_block`])
/// instead of one call per row. Needs d ≥ 1.
#[allow(clippy::too_many_arguments)]
fn clipped_gradient_sum<X: RowSource + ?Sized>(
    x: &X,
    y: &[f64],
    n: usize,
    w: &[f64],
    loss: &LossKind,
    intercept: Option<f64>,
    radius: f64,
    out: &mut [f64],
) {
    let d = x.width();
    let width = d + usize::from(intercept.is_some());
    assert!(d >= 1 && out.len() == width && w.len() >= width);
    let br = block_rows(width);
    let nb = n.div_ceil(br);
    let partials: Vec<Vec<f64>> = (0..nb)
        .into_par_iter()
        .map(|b| {
            let mut acc = vec![0.0; width];
            let mut g = vec![0.0; width];
            let mut scratch = Vec::new();
            let (first, last) = (b * br, ((b + 1) * br).min(n));
            for s0 in (first..last).step_by(GRADIENT_SPAN) {
                let s1 = (s0 + GRADIENT_SPAN).min(last);
                let rows = x.read_block(s0, s1, &mut scratch);
                for (xi, &yi) in rows.chunks_exact(d).zip(&y[s0..s1]) {
                    let mut margin = dot(xi, &w[..d]);
                    if let Some(u) = intercept {
                        margin += u * w[d];
                    }
                    let r = loss.derivative(margin, yi);
                    for (gj, v) in g.iter_mut().zip(xi) {
                        *gj = v * r;
                    }
                    if let Some(u) = intercept {
                        g[d] = u * r;
                    }
                    clip_l2(&mut g, radius);
                    for (a, v) in acc.iter_mut().zip(&g) {
                        *a += v;
                    }
                }
            }
            acc
        })
        .collect();
    add_in_block_order(partials, out);
}

/// The sum of `kernel` over `rows` (`None`: rows 0..`n`) of `x`, `y`, into `out`.
/// The one implementation of the kernels: the local fits and the executors of a
/// distributed fit both call it.
#[allow(clippy::too_many_arguments)]
fn kernel_sum<X: RowSource + ?Sized>(
    kernel: &Kernel,
    x: &X,
    y: &[f64],
    n: usize,
    rows: Option<&[usize]>,
    w: &[f64],
    out: &mut [f64],
    ws: &mut RobustWorkspace,
) -> Result<(), FitError> {
    let d = x.width();
    let all: Vec<usize>;
    match *kernel {
        Kernel::ClippedGradient {
            loss,
            radius,
            intercept,
        } => {
            if rows.is_none() && d >= 1 {
                clipped_gradient_sum(x, y, n, w, &loss, intercept, radius, out);
                return Ok(());
            }
            let count = rows.map_or(n, |r| r.len());
            let width = d + usize::from(intercept.is_some());
            // the per-sample gradient r·x̃ᵢ (and r·u for the intercept's constant feature),
            // built in `buf` from the row as the fit sees it (through the lazy
            // standardisation when there is one)
            let grad = |t: usize, buf: &mut [f64]| {
                let i = rows.map_or(t, |r| r[t]);
                x.read_into(i, &mut buf[..d]);
                let mut margin = dot(&buf[..d], &w[..d]);
                if let Some(u) = intercept {
                    buf[d] = u;
                    margin += u * w[d];
                }
                let r = loss.derivative(margin, y[i]);
                for o in buf.iter_mut() {
                    *o *= r;
                }
            };
            clipped_row_sum(count, width, radius, grad, out);
        }
        Kernel::CatoniPsi { loss, scale, beta } => {
            let est = CatoniGiulini::new(scale, beta).map_err(|e| FitError::Unsupported {
                algorithm: EXTERNAL,
                reason: e.to_string(),
            })?;
            let rows = match rows {
                Some(r) => r,
                None => {
                    all = (0..n).collect();
                    &all
                }
            };
            est.psi_sum_of(&loss, x, y, rows, w, out, ws);
        }
        Kernel::ClippedHuber { k, tau, y_clip } => {
            let rows = match rows {
                Some(r) => r,
                None => {
                    all = (0..n).collect();
                    &all
                }
            };
            let support = support_of(w);
            clipped_weighted_sum(x, y, rows, &support, k, huber_weight(tau, y_clip), out);
        }
        _ => {
            return Err(FitError::Unsupported {
                algorithm: EXTERNAL,
                reason: "not an algorithm's row sum".into(),
            })
        }
    }
    Ok(())
}

/// The preprocessing kernels of one batch (all rows; see [`Kernel`]): dense results
/// into `out` (length [`Kernel::out_len`]), histograms as sparse (cell, count) pairs.
/// The per-row functions are the in-memory path's ([`preprocess::clipped_residual`],
/// [`preprocess::logistic_score_term`], [`StageMap::cell`], [`quantile::histogram_cell`]).
fn preprocess_sum<X: RowSource + ?Sized>(
    kernel: &Kernel,
    x: &X,
    raw: &[&[f64]],
    y: &[f64],
    raw_y: &[f64],
    w: &[f64],
) -> Vec<f64> {
    let (len, d) = (y.len(), x.width());
    let mut buf = vec![0.0; d];
    let mut margin = |i: usize| {
        x.read_into(i, &mut buf);
        dot(&buf, w)
    };
    let sparse = |cells: Vec<u64>| -> Vec<f64> {
        cells
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .flat_map(|(k, c)| [k as f64, *c as f64])
            .collect()
    };
    match *kernel {
        Kernel::ClippedResidual { c } => {
            vec![(0..len)
                .map(|i| preprocess::clipped_residual(margin(i), y[i], c))
                .sum::<f64>()]
        }
        Kernel::FitCheckReads { c } => {
            let margins: Vec<f64> = (0..len).map(margin).collect();
            preprocess::fit_check::CheckReads::of(&margins, y, c).to_flat()
        }
        Kernel::ClippedResidualAndCheckReads { c, c_responses } => {
            let mut out = preprocess_sum(&Kernel::ClippedResidual { c }, x, raw, y, raw_y, w);
            out.extend(preprocess_sum(
                &Kernel::FitCheckReads { c: c_responses },
                x,
                raw,
                y,
                raw_y,
                w,
            ));
            out
        }
        Kernel::LogisticCheckReads => {
            let margins: Vec<f64> = (0..len).map(margin).collect();
            preprocess::fit_check::LogisticCheckReads::of(&margins, y).to_flat()
        }
        Kernel::LogisticScores => {
            let margins: Vec<f64> = (0..len).map(margin).collect();
            preprocess::logistic_grid()
                .map(|b| {
                    margins
                        .iter()
                        .zip(y)
                        .map(|(m, yi)| preprocess::logistic_score_term(*m, b, *yi))
                        .sum()
                })
                .collect()
        }
        Kernel::Positives => vec![y.iter().filter(|v| **v > 0.0).count() as f64],
        Kernel::ResidualHistogram => {
            let mut cells = vec![0u64; kernel.out_len(d)];
            for (i, yi) in y.iter().enumerate() {
                let r = yi - margin(i);
                cells[quantile::histogram_cell(&PublicGrid, r)] += 1;
            }
            sparse(cells)
        }
        Kernel::StageHistograms { ref columns } => {
            let offsets = preprocess::stage_offsets(columns);
            let prepared = preprocess::prepare_stage(columns);
            let mut cells = vec![0u64; *offsets.last().expect("non-empty")];
            for i in 0..len {
                preprocess::add_stage_cells(&mut cells, &prepared, &offsets, |j| {
                    if j < d {
                        raw[j][i]
                    } else {
                        raw_y[i]
                    }
                });
            }
            sparse(cells)
        }
        _ => unreachable!("an algorithm kernel"),
    }
}

/// Row sums of an in-memory dataset: the kernels the algorithms used before this seam,
/// called exactly as before (bit-identical fits).
pub struct LocalRowSums<'a> {
    data: &'a Dataset,
    ws: RobustWorkspace,
}

impl<'a> LocalRowSums<'a> {
    /// Sums over `data` (read through its lazy standardisation when it has one).
    pub fn new(data: &'a Dataset) -> Self {
        LocalRowSums {
            data,
            ws: RobustWorkspace::new(),
        }
    }
}

/// `fit_validated` of an algorithm whose data passes are row sums (`clipped-gd`,
/// `ht-frank-wolfe`): its [`fit_with_sums`](super::PrivateAlgorithm::fit_with_sums)
/// over [`LocalRowSums`] of the problem's own data, so the in-memory and the
/// distributed fit are one code path.
pub(crate) fn fit_locally<A: super::PrivateAlgorithm + ?Sized>(
    alg: &A,
    inputs: super::FitInputs<'_>,
) -> Result<super::FitReport, FitError> {
    let (problem, budget, rng, observer) = inputs.parts();
    let mut sums = LocalRowSums::new(problem.data);
    alg.fit_with_sums(problem, &mut sums, budget, rng, observer)
}

impl RowSums for LocalRowSums<'_> {
    fn sum(
        &mut self,
        kernel: &Kernel,
        rows: Selection<'_>,
        w: &[f64],
        out: &mut [f64],
    ) -> Result<(), FitError> {
        let list = match rows {
            Selection::All => None,
            Selection::Chunk { chunks, index } => Some(chunks.chunk(index)),
        };
        let data = self.data;
        kernel_sum(kernel, data, data.y(), data.n(), list, w, out, &mut self.ws)
    }
    fn local(&self) -> Option<&Dataset> {
        Some(self.data)
    }
}

// ------------------------------------------------------------ the distributed pass

/// The public standardisation the executors apply to every row before the kernel:
/// features x̃ᵢⱼ = [`standardise`](xᵢⱼ, cⱼ, sⱼ, W) and response (y − c_y)/s_y, the
/// formulas of [`crate::preprocess::Standardization::apply`] (same bits).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowTransform {
    pub centre: Vec<f64>,
    pub scale: Vec<f64>,
    /// W (`None`: no winsorisation).
    pub bound: Option<f64>,
    pub target_centre: f64,
    pub target_scale: f64,
}

impl RowTransform {
    /// The transform of a standardisation (`None` for the identity).
    pub fn of(st: &crate::preprocess::Standardization) -> Option<Self> {
        use crate::preprocess::ColumnScale;
        let identity = st.winsor.is_none()
            && st.target == ColumnScale::IDENTITY
            && st.features.iter().all(|c| *c == ColumnScale::IDENTITY);
        (!identity).then(|| RowTransform {
            centre: st.features.iter().map(|c| c.centre).collect(),
            scale: st.features.iter().map(|c| c.scale).collect(),
            bound: st.winsor,
            target_centre: st.target.centre,
            target_scale: st.target.scale,
        })
    }
}

/// The rows of one pass, as the executors see them: all rows, or the rows i with
/// ⌊π(i)/m⌋ = `index` for the keyed permutation π of 0..n−1 with `key`
/// ([`Chunks::keyed_chunk_of`]; public: the key and the row ids only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rows", rename_all = "snake_case")]
pub enum WireSelection {
    All,
    Chunk {
        key: u64,
        n: u64,
        m: usize,
        chunks: usize,
        index: usize,
    },
}

/// What a distributed fit asks of its executors for one iteration (serialised to JSON
/// and sent with the iterate w): everything in it is public.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SumRequest {
    pub kernel: Kernel,
    pub rows: WireSelection,
    /// The number of features d.
    pub d: usize,
    pub transform: Option<RowTransform>,
    /// Logistic labels: each response must be 0, 1 or ±1 and 0 is read as −1
    /// ([`LossKind::prepare_labels`], per row on the executors).
    #[serde(default)]
    pub labels: bool,
}

/// Column-major rows (one slice per feature, as Arrow stores a batch), read through an
/// optional [`ColumnMap`].
struct ColumnRows<'a> {
    cols: &'a [&'a [f64]],
    map: Option<&'a ColumnMap>,
}

impl Rows for ColumnRows<'_> {
    fn width(&self) -> usize {
        self.cols.len()
    }
    #[inline]
    fn get<'b>(&'b self, i: usize, scratch: &'b mut [f64]) -> &'b [f64] {
        self.read_into(i, scratch);
        scratch
    }
    #[inline]
    fn get_span<'b>(&'b self, i: usize, j0: usize, j1: usize, scratch: &'b mut [f64]) -> &'b [f64] {
        for (j, o) in (j0..j1).zip(scratch.iter_mut()) {
            let v = self.cols[j][i];
            *o = match self.map {
                None => v,
                Some(m) => standardise(v, m.centre[j], m.scale[j], m.bound),
            };
        }
        &scratch[..j1 - j0]
    }
}

impl RowSource for ColumnRows<'_> {
    #[inline]
    fn read_into(&self, i: usize, out: &mut [f64]) {
        match self.map {
            None => out.iter_mut().zip(self.cols).for_each(|(o, c)| *o = c[i]),
            Some(m) => out
                .iter_mut()
                .zip(self.cols)
                .enumerate()
                .for_each(|(j, (o, c))| *o = standardise(c[i], m.centre[j], m.scale[j], m.bound)),
        }
    }
}

/// The executor kernel: the partial sum of `req`'s kernel at iterate `w` over one batch
/// of rows — feature columns `columns` (each of the batch's length), response `y` and
/// row ids `ids` — and the number of rows it selected. Runs the same kernels as
/// [`LocalRowSums`]. Errors name no data value.
pub fn batch_sum(
    req: &SumRequest,
    w: &[f64],
    columns: &[&[f64]],
    raw_y: &[f64],
    ids: &[i64],
) -> Result<(Vec<f64>, u64), String> {
    let d = req.d;
    let len = raw_y.len();
    if columns.len() != d || w.len() != req.kernel.iterate_len(d) {
        return Err(format!(
            "the batch has {} feature columns and the iterate {} values, expected d = {d} (and {} values)",
            columns.len(),
            w.len(),
            req.kernel.iterate_len(d)
        ));
    }
    if columns.iter().any(|c| c.len() != len) || ids.len() != len {
        return Err("the batch's columns have different lengths".into());
    }
    let map = req.transform.as_ref().map(|t| ColumnMap {
        centre: t.centre.clone(),
        scale: t.scale.clone(),
        bound: t.bound.unwrap_or(f64::INFINITY),
    });
    let labels: Vec<f64>;
    let y = if req.labels {
        let mut l = raw_y.to_vec();
        LossKind::Logistic
            .prepare_labels(&mut l)
            .map_err(|e| e.to_string())?;
        labels = l;
        &labels[..]
    } else {
        raw_y
    };
    let y_scaled: Vec<f64>;
    let y = match &req.transform {
        Some(t) if (t.target_centre, t.target_scale) != (0.0, 1.0) => {
            y_scaled = y
                .iter()
                .map(|v| (v - t.target_centre) / t.target_scale)
                .collect();
            &y_scaled[..]
        }
        _ => y,
    };
    let x = ColumnRows {
        cols: columns,
        map: map.as_ref(),
    };
    let selected: Option<Vec<usize>> = match req.rows {
        WireSelection::All => None,
        WireSelection::Chunk {
            key,
            n,
            m,
            chunks,
            index,
        } => {
            let perm = KeyedPermutation::new(n, key);
            let mut rows = Vec::new();
            for (t, &id) in ids.iter().enumerate() {
                if id < 0 || id as u64 >= n {
                    return Err(format!(
                        "the id column must hold each of 0..n-1 exactly once (n = {n}); a row id is out of range"
                    ));
                }
                if Chunks::keyed_chunk_of(&perm, m, chunks, id as u64) == Some(index) {
                    rows.push(t);
                }
            }
            Some(rows)
        }
    };
    let count = selected.as_ref().map_or(len, |r| r.len()) as u64;
    if req.kernel.preprocessing() {
        if selected.is_some() {
            return Err("a preprocessing pass reads all rows".into());
        }
        return Ok((preprocess_sum(&req.kernel, &x, columns, y, raw_y, w), count));
    }
    let mut out = vec![0.0; req.kernel.out_len(d)];
    if count > 0 {
        kernel_sum(
            &req.kernel,
            &x,
            y,
            len,
            selected.as_deref(),
            w,
            &mut out,
            &mut RobustWorkspace::new(),
        )
        .map_err(|e| e.to_string())?;
    }
    Ok((out, count))
}

/// The fingerprint of a batch of rows: the wrapping sum over its rows of a 64-bit mix
/// of the row id and the bits of every value (features, then the response). A sum, so
/// the batches of a pass add up (mod 2⁶⁴) to the same total however the rows are
/// split into partitions and batches; a row whose id or values change changes it (up
/// to a collision of the mix). Never released: [`ExternalRowSums`] only compares the
/// totals of two passes for equality, which holds whenever every pass reads the same
/// (id, row) pairs — whatever the data are.
pub fn batch_fingerprint(columns: &[&[f64]], y: &[f64], ids: &[i64]) -> u64 {
    // the finaliser of SplitMix64 (a bijection of u64 with full avalanche)
    fn mix(mut z: u64) -> u64 {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    let mut total = 0u64;
    for (t, &id) in ids.iter().enumerate() {
        let mut h = mix((id as u64).wrapping_add(0x9e37_79b9_7f4a_7c15));
        for c in columns {
            h = mix(h ^ c.get(t).map_or(0, |v| v.to_bits()));
        }
        h = mix(h ^ y.get(t).map_or(0, |v| v.to_bits()));
        total = total.wrapping_add(h);
    }
    total
}

/// The partial sums of one distributed pass, in the fixed order they are added:
/// `partials` holds k d-vectors back to back; `rows` is the number of rows they cover;
/// `fingerprint` the wrapping sum of the batches' [`batch_fingerprint`]s over **all**
/// their rows (selected or not), when the pass reports one.
#[derive(Debug, Clone, PartialEq)]
pub struct Partials {
    pub partials: Vec<f64>,
    pub rows: u64,
    pub fingerprint: Option<u64>,
}

/// A pass over the external rows: given the request and the iterate, the partial sums
/// of the batches in a fixed order (e.g. sorted by partition and batch index), or an
/// error message.
pub type Pass<'a> = dyn FnMut(&SumRequest, &[f64]) -> Result<Partials, String> + 'a;

/// Row sums of rows that live elsewhere: each sum is one call of the `pass` (one Spark
/// job), whose partial sums are added here in the order returned (a fixed order:
/// the result does not depend on task scheduling). Checks that the pass covered exactly
/// the rows the public selection has (n, or m for a chunk), which fails when the row
/// ids are not 0..n−1 once each, and that every pass read the same (id, row) pairs as
/// the first ([`Partials::fingerprint`]), which fails when the ids were reassigned
/// between passes (Spark's `zipWithIndex` after a recomputation): a chunk could then
/// hold rows of another chunk, and parallel composition would not hold. Either check
/// refuses the fit before anything is released.
pub struct ExternalRowSums<'a> {
    pass: Box<Pass<'a>>,
    n: usize,
    d: usize,
    transform: Option<RowTransform>,
    labels: bool,
    /// Histograms of the private scaling: [the prefetched stage, the last
    /// single-column pass].
    histograms: [Option<Histograms>; 2],
    /// The passes made so far, by kind: [the scaling's, the algorithm's row sums, the
    /// intercept's, the fit check's].
    passes: [usize; 4],
    /// The first pass's fingerprint of the (id, row) pairs.
    fingerprint: Option<u64>,
    /// The fit check's clip of the responses, read in the intercept's pass
    /// ([`ExternalRowSums::prefetch_check_reads`]), and then what was read there.
    check_clip: Option<f64>,
    check_reads: Option<(f64, preprocess::fit_check::CheckReads)>,
}

impl<'a> ExternalRowSums<'a> {
    /// Sums over n external rows of d features, one `pass` per sum.
    pub fn new(n: usize, d: usize, pass: Box<Pass<'a>>) -> Self {
        ExternalRowSums {
            pass,
            n,
            d,
            transform: None,
            labels: false,
            histograms: [None, None],
            passes: [0; 4],
            fingerprint: None,
            check_clip: None,
            check_reads: None,
        }
    }
    /// The fit check's reads ([`Kernel::FitCheckReads`]: Σ clamp(yᵢ, ±`c`) and the two
    /// histograms) are read in the private intercept's pass
    /// ([`Kernel::ClippedResidualAndCheckReads`]) and kept for the check
    /// ([`ExternalCheck`]), which then makes no pass of its own. `c` is public (the
    /// check's clip, [`preprocess::fit_check::response_clip`]); the reads are released
    /// only through the check's own mechanisms, with the same values as in a pass of
    /// their own (each part of the combined kernel is added exactly as its own kernel
    /// adds it), so the model is bit for bit the same.
    pub fn prefetch_check_reads(&mut self, c: f64) {
        self.check_clip = Some(c);
    }
    /// Whether the executors read the response as logistic labels (0 → −1, checked).
    pub fn set_labels(&mut self, labels: bool) {
        self.labels = labels;
    }
    /// The reduced result of `kernel` over all n rows at iterate `w` (one pass).
    fn reduce_all(
        &mut self,
        kernel: Kernel,
        transform: Option<RowTransform>,
        w: &[f64],
    ) -> Result<Vec<f64>, String> {
        self.reduce(kernel, WireSelection::All, self.n, transform, w)
    }
    /// The reduced result of `kernel` over the rows of `rows` at iterate `w` (one pass):
    /// the dense partials added in the order the pass returns them, or the sparse (cell,
    /// count) pairs added into the kernel's cells. Checks that the pass read the
    /// `expected` rows the public selection has.
    fn reduce(
        &mut self,
        kernel: Kernel,
        rows: WireSelection,
        expected: usize,
        transform: Option<RowTransform>,
        w: &[f64],
    ) -> Result<Vec<f64>, String> {
        self.passes[match kernel {
            Kernel::StageHistograms { .. } => 0,
            ref k if !k.preprocessing() => 1,
            Kernel::FitCheckReads { .. } | Kernel::LogisticCheckReads => 3,
            _ => 2,
        }] += 1;
        let req = SumRequest {
            kernel,
            rows,
            d: self.d,
            transform,
            labels: self.labels,
        };
        let got = (self.pass)(&req, w)?;
        if got.rows != expected as u64 {
            return Err(format!(
                "the pass read {} rows where the public selection has {expected}: the id column must hold each of 0..n-1 exactly once (n = {})",
                got.rows, self.n
            ));
        }
        match (self.fingerprint, got.fingerprint) {
            (None, f) => self.fingerprint = f,
            (Some(first), Some(f)) if f != first => {
                return Err(format!(
                    "the rows read by this pass are not those of the first pass (the fingerprint of the (row id, values) pairs differs): the row ids changed between passes, so chunk membership is not stable; refused before any release. Give stable ids 0..n-1 that do not depend on the values (heavydp.spark.fit's id_col), read from stored data (n = {})",
                    self.n
                ));
            }
            _ => {}
        }
        let len = req.kernel.out_len(self.d);
        let mut out = vec![0.0; len];
        if req.kernel.sparse() {
            if got.partials.len() % 2 != 0 {
                return Err("a histogram's partials are not (cell, count) pairs".into());
            }
            for p in got.partials.chunks_exact(2) {
                let cell = p[0] as usize;
                if cell as f64 != p[0] || cell >= len {
                    return Err("a histogram cell is out of range".into());
                }
                out[cell] += p[1];
            }
        } else {
            if got.partials.len() % len.max(1) != 0 {
                return Err("a partial result does not have the kernel's length".into());
            }
            for p in got.partials.chunks_exact(len.max(1)) {
                for (o, v) in out.iter_mut().zip(p) {
                    *o += v;
                }
            }
        }
        Ok(out)
    }
    /// The histograms of the (column, map) pairs of `stage` (one pass, raw rows), kept
    /// in slot `slot` of `histograms`.
    fn fetch_histograms(
        &mut self,
        slot: usize,
        stage: &[(usize, StageMap)],
    ) -> Result<(), PreprocessError> {
        let kernel = Kernel::StageHistograms {
            columns: stage.to_vec(),
        };
        let w = vec![0.0; self.d];
        let cells = self
            .reduce_all(kernel, None, &w)
            .map_err(PreprocessError::Pass)?;
        let cells: Vec<u64> = cells.iter().map(|v| *v as u64).collect();
        self.histograms[slot] = Some((stage.to_vec(), preprocess::stage_histograms(stage, &cells)));
        Ok(())
    }
    /// The passes over the rows made so far: (the private scaling's, the algorithm's
    /// row sums, the intercept's, the fit check's). Public: their number depends on n, d
    /// and the options only.
    pub fn passes(&self) -> (usize, usize, usize, usize) {
        (
            self.passes[0],
            self.passes[1],
            self.passes[2],
            self.passes[3],
        )
    }
    /// The private intercept's source: the rows at the scaled-model weights `w` (read
    /// through the public standardisation, as the fit saw them).
    pub fn intercept_source<'s>(&'s mut self, w: &[f64]) -> ExternalIntercept<'s, 'a> {
        ExternalIntercept {
            sums: self,
            w: w.to_vec(),
        }
    }
    /// The public standardisation the executors apply before the kernels.
    pub fn set_transform(&mut self, transform: Option<RowTransform>) {
        self.transform = transform;
    }
}

impl RowSums for ExternalRowSums<'_> {
    fn sum(
        &mut self,
        kernel: &Kernel,
        rows: Selection<'_>,
        w: &[f64],
        out: &mut [f64],
    ) -> Result<(), FitError> {
        let fail = |reason: String| FitError::Unsupported {
            algorithm: EXTERNAL,
            reason,
        };
        let (selection, expected) = match rows {
            Selection::All => (WireSelection::All, self.n),
            Selection::Chunk { chunks, index } => {
                let perm = chunks.keyed().ok_or_else(|| {
                    fail("a distributed fit needs the keyed chunking (--param chunking=keyed): chunk membership must be computable per row".into())
                })?;
                (
                    WireSelection::Chunk {
                        key: perm.key(),
                        n: perm.len(),
                        m: chunks.m(),
                        chunks: chunks.count(),
                        index,
                    },
                    chunks.m(),
                )
            }
        };
        let reduced = self
            .reduce(
                kernel.clone(),
                selection,
                expected,
                self.transform.clone(),
                w,
            )
            .map_err(fail)?;
        if out.len() != reduced.len() {
            return Err(fail("a partial sum does not have d values".into()));
        }
        out.copy_from_slice(&reduced);
        Ok(())
    }
}

impl ScalingSource for ExternalRowSums<'_> {
    fn rows(&self) -> usize {
        self.n
    }
    fn reads_in_passes(&self) -> bool {
        true
    }
    /// One pass for the whole stage, unless the last pass already counted every (column,
    /// map) of it (the binary gate's pass counts the first stage too).
    fn prefetch(&mut self, stage: &[(usize, StageMap)]) -> Result<(), PreprocessError> {
        let cached = |s: &(usize, StageMap)| {
            self.histograms[0]
                .as_ref()
                .is_some_and(|(done, _)| done.contains(s))
        };
        if stage.iter().all(cached) {
            return Ok(());
        }
        self.fetch_histograms(0, stage)
    }
    /// The cached histogram when a pass covered (column, map); else one pass for this
    /// column.
    fn counts(
        &mut self,
        column: usize,
        map: StageMap,
    ) -> Result<Box<dyn RankCounts + '_>, PreprocessError> {
        let find = |h: &Option<Histograms>| {
            h.as_ref()
                .and_then(|(stage, _)| stage.iter().position(|s| *s == (column, map)))
        };
        let (slot, k) = match self
            .histograms
            .iter()
            .enumerate()
            .find_map(|(slot, h)| find(h).map(|k| (slot, k)))
        {
            Some(found) => found,
            None => {
                self.fetch_histograms(1, &[(column, map)])?;
                (1, 0)
            }
        };
        let (_, hists) = self.histograms[slot].as_ref().expect("fetched");
        Ok(Box::new(hists[k].clone()))
    }
}

/// The private intercept's [`InterceptSource`] on external rows: each quantity is one
/// pass ([`Kernel::ClippedResidual`], [`Kernel::LogisticScores`], [`Kernel::Positives`],
/// [`Kernel::ResidualHistogram`]) at the weights w, through the public standardisation.
pub struct ExternalIntercept<'s, 'a> {
    sums: &'s mut ExternalRowSums<'a>,
    w: Vec<f64>,
}

impl ExternalIntercept<'_, '_> {
    fn get(&mut self, kernel: Kernel) -> Result<Vec<f64>, PreprocessError> {
        let t = self.sums.transform.clone();
        self.sums
            .reduce_all(kernel, t, &self.w)
            .map_err(PreprocessError::Pass)
    }
}

impl InterceptSource for ExternalIntercept<'_, '_> {
    fn rows(&self) -> usize {
        self.sums.n
    }
    fn clipped_residual_sum(&mut self, c: f64) -> Result<f64, PreprocessError> {
        match self.sums.check_clip.take() {
            Some(c_responses) => {
                let v = self.get(Kernel::ClippedResidualAndCheckReads { c, c_responses })?;
                let reads =
                    preprocess::fit_check::CheckReads::from_flat(&v[1..]).ok_or_else(|| {
                        PreprocessError::Pass(
                            "the pass returned a result of the wrong length".into(),
                        )
                    })?;
                self.sums.check_reads = Some((c_responses, reads));
                Ok(v[0])
            }
            None => Ok(self.get(Kernel::ClippedResidual { c })?[0]),
        }
    }
    fn logistic_scores(&mut self) -> Result<Vec<f64>, PreprocessError> {
        self.get(Kernel::LogisticScores)
    }
    fn residual_counts(&mut self) -> Result<Box<dyn RankCounts + '_>, PreprocessError> {
        let cells = self.get(Kernel::ResidualHistogram)?;
        let cells: Vec<u64> = cells.iter().map(|v| *v as u64).collect();
        Ok(Box::new(GridHistogram::from_cells(&cells)))
    }
    fn positives(&mut self) -> Result<f64, PreprocessError> {
        Ok(self.get(Kernel::Positives)?[0])
    }
    /// [`Kernel::ClippedResidual`] through the standardisation with the target centre
    /// moved by `shift` (y − m − shift = ((y − c_y − shift·s_y)/s_y)·s_y, so in target
    /// units of 1, the only case its caller has, the residual of the moved centre).
    fn shifted_clipped_sum(&mut self, shift: f64, c: f64) -> Result<f64, PreprocessError> {
        let d = self.sums.d;
        let mut t = self.sums.transform.clone().unwrap_or_else(|| RowTransform {
            centre: vec![0.0; d],
            scale: vec![1.0; d],
            bound: None,
            target_centre: 0.0,
            target_scale: 1.0,
        });
        t.target_centre += shift * t.target_scale;
        self.sums
            .reduce_all(Kernel::ClippedResidual { c }, Some(t), &self.w)
            .map(|v| v[0])
            .map_err(PreprocessError::Pass)
    }
    /// The target column's octaves around `centre` (the scaling's
    /// [`StageMap::SpreadOctave`] histogram of column d): the intercept-only model's
    /// residuals are the raw responses (weights 0, no standardisation).
    fn spread_octave_counts(
        &mut self,
        centre: f64,
    ) -> Result<Box<dyn RankCounts + '_>, PreprocessError> {
        if self.w.iter().any(|w| *w != 0.0) || self.sums.transform.is_some() {
            return Err(PreprocessError::Pass(
                "the spread of the residuals is defined for the intercept-only model on raw responses".into(),
            ));
        }
        let d = self.sums.d;
        self.sums.counts(d, StageMap::SpreadOctave { c0: centre })
    }
}

/// The private fit check's [`CheckSource`] on external rows: its reads
/// ([`Kernel::FitCheckReads`] at w, through the public standardisation) in one pass, or
/// none when the intercept's pass read them ([`ExternalRowSums::prefetch_check_reads`]);
/// the logistic check's ([`Kernel::LogisticCheckReads`]) in a pass of their own.
pub struct ExternalCheck<'s, 'a> {
    sums: &'s mut ExternalRowSums<'a>,
    w: Vec<f64>,
}

impl<'a> ExternalRowSums<'a> {
    /// The fit check's source at the fitted weights `w`.
    pub fn check_source<'s>(&'s mut self, w: &[f64]) -> ExternalCheck<'s, 'a> {
        ExternalCheck {
            sums: self,
            w: w.to_vec(),
        }
    }
}

impl CheckSource for ExternalCheck<'_, '_> {
    fn rows(&self) -> usize {
        self.sums.n
    }
    fn check_reads(
        &mut self,
        c: f64,
    ) -> Result<preprocess::fit_check::CheckReads, PreprocessError> {
        // read in the intercept's pass at this clip (prefetch_check_reads)
        if let Some((clip, reads)) = self.sums.check_reads.take() {
            if clip.to_bits() == c.to_bits() {
                return Ok(reads);
            }
        }
        let t = self.sums.transform.clone();
        let v = self
            .sums
            .reduce_all(Kernel::FitCheckReads { c }, t, &self.w)
            .map_err(PreprocessError::Pass)?;
        preprocess::fit_check::CheckReads::from_flat(&v).ok_or_else(|| {
            PreprocessError::Pass("the pass returned a result of the wrong length".into())
        })
    }
    fn logistic_check_reads(
        &mut self,
    ) -> Result<preprocess::fit_check::LogisticCheckReads, PreprocessError> {
        let t = self.sums.transform.clone();
        let v = self
            .sums
            .reduce_all(Kernel::LogisticCheckReads, t, &self.w)
            .map_err(PreprocessError::Pass)?;
        preprocess::fit_check::LogisticCheckReads::from_flat(&v).ok_or_else(|| {
            PreprocessError::Pass("the pass returned a result of the wrong length".into())
        })
    }
}

#[cfg(test)]
#[path = "row_sums_tests.rs"]
mod tests;
