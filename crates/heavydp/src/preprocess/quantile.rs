//! DP quantiles: the exponential mechanism over a data-free grid of the real line.
//!
//! # Algorithm
//!
//! The output range is the public grid 𝒢 of [`PublicGrid`]: 0 and ±(1 + m/2¹⁰)·2ᵉ for
//! e ∈ [−20, 40], m ∈ [0, 2¹⁰) — 124 929 points with relative spacing ≤ 2⁻¹⁰ over
//! |v| ∈ [10⁻⁶, 4·10¹²] (every integer up to 2048 is a grid point, so count and dummy
//! columns have their atoms on the grid). The grid is a function of nothing: no column's
//! range is read from the data (Smith 2011 and diffprivlib ask the user for a range; here
//! the geometric grid plays its part at a cost of ln|𝒢| ≈ 11.7 in the error bound).
//!
//! For a level q ∈ (0, 1) and a column x₁..xₙ, a grid point g is a q-quantile when
//! #{xᵢ < g} ≤ q·n ≤ #{xᵢ ≤ g}. The utility is minus the distance to that condition,
//!
//! ```text
//! u(g) = −max(0, #{xᵢ < g} − q·n, q·n − #{xᵢ ≤ g}),
//! ```
//!
//! and the release is g with probability ∝ exp(ε·u(g)/2) ([`crate::mechanisms::ExponentialMechanism`]
//! with Δ_u = 1).
//!
//! # Privacy
//!
//! Replacing one record changes #{xᵢ < g} and #{xᵢ ≤ g} by at most 1 each, so u has
//! sensitivity 1 and one release is ε-DP (McSherry & Talwar 2007; Hu et al. Def. 3 with
//! Δ_u = 1). The sampler is the exact one of [`crate::mechanisms::ExponentialMechanism`]
//! (scores rounded to its public grid, exact Bernoulli acceptances), run lazily: a grid
//! index is proposed uniformly and its utility computed by two binary searches on the
//! sorted column, then accepted with probability exp(−λ·(ũ_max − ũ)). ũ_max is the exact
//! maximum of the rounded scores over 𝒢 (u is unimodal in g, so its maximum is found by
//! binary searches, [`QuantileMechanism::best`]), so the accepted index has exactly the distribution of the exponential
//! mechanism over all of 𝒢 — the laziness changes the running time, not the output law.
//!
//! With ε = ∞ the release is the first grid point of maximal utility (no random draw).
//!
//! # Parameters
//!
//! | name | symbol | meaning |
//! |---|---|---|
//! | `q` | q | quantile level in (0, 1) |
//! | `epsilon` | ε | the budget of this release (pure ε-DP) |

use crate::mechanisms::{ExponentialMechanism, Mechanism};
use crate::noise::exact::ExactRng;
use crate::privacy::{Cost, PrivacyError};
use rand::RngCore;

/// Mantissa bits of the grid: 2¹⁰ points per octave.
const MANTISSA_BITS: u32 = 10;
/// Smallest exponent of a positive grid point (2⁻²⁰ ≈ 9.5·10⁻⁷).
const E_MIN: i32 = -20;
/// Largest exponent of a positive grid point (values up to 2⁴¹ ≈ 2.2·10¹²).
const E_MAX: i32 = 40;
/// Number of positive grid points K.
const K: usize = ((E_MAX - E_MIN + 1) as usize) << MANTISSA_BITS;

/// A finite, public, increasing grid of real values: the output range of
/// [`QuantileMechanism`]. Implementations are exact (no rounding in `value` or
/// `floor_index`).
pub trait Grid1D {
    /// Number of points.
    fn len(&self) -> usize;
    /// Whether the grid is empty (never, for the grids here).
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The value of point `i` (increasing in i).
    fn value(&self, i: usize) -> f64;
    /// The largest index i with value(i) ≤ x (None when x is below every point).
    fn floor_index(&self, x: f64) -> Option<usize>;
}

impl Grid1D for PublicGrid {
    fn len(&self) -> usize {
        Self::LEN
    }
    fn value(&self, i: usize) -> f64 {
        PublicGrid::value(i)
    }
    fn floor_index(&self, x: f64) -> Option<usize> {
        PublicGrid::floor_index(x)
    }
}

/// 2ᵉ for e in the normal range [−1022, 1023], exactly: `libm::ldexp(1.0, e)` without
/// the call (the scaling's histogram passes evaluate it for every value).
#[inline(always)]
fn pow2(e: i32) -> f64 {
    debug_assert!((-1022..=1023).contains(&e));
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// The exponent e of `libm::frexp(x)` (x = f·2ᵉ, f ∈ [0.5, 1)), read off the bits of a
/// normal x; libm for zero, subnormal and non-finite x.
#[inline(always)]
fn frexp_exponent(x: f64) -> i32 {
    if x.is_normal() {
        ((x.to_bits() >> 52) & 0x7ff) as i32 - 1022
    } else {
        libm::frexp(x).1
    }
}

/// Powers of two 2ᵉ, e ∈ [−20, 40], and 0: the magnitude grid of the first stage of
/// private scaling (62 points).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OctaveGrid;

impl Grid1D for OctaveGrid {
    #[inline]
    fn len(&self) -> usize {
        (E_MAX - E_MIN + 2) as usize
    }
    #[inline]
    fn value(&self, i: usize) -> f64 {
        if i == 0 {
            0.0
        } else {
            pow2(E_MIN + i as i32 - 1)
        }
    }
    #[inline]
    fn floor_index(&self, x: f64) -> Option<usize> {
        if x < 0.0 {
            return None;
        }
        if x < pow2(E_MIN) {
            return Some(0);
        }
        let e = frexp_exponent(x); // x = f·2^e, f ∈ [0.5, 1): 2^(e−1) ≤ x
        Some(((e - 1 - E_MIN + 1) as usize).min(self.len() - 1))
    }
}

/// |v| rounded down to its power of two 2^⌊log₂|v|⌋ (0 below 2⁻²⁰, 2⁴⁰ above): the
/// row-wise public map that puts every magnitude on the [`OctaveGrid`], so the magnitude
/// quantile's utility is 0 exactly at the octave that holds the quantile (without it, a
/// column whose values all lie inside one octave — calendar years in [1024, 2048) — has
/// no grid point of utility 0 and every octave above ties).
#[inline(always)]
pub fn octave_floor(v: f64) -> f64 {
    let v = v.abs();
    if v < pow2(E_MIN) {
        return 0.0;
    }
    pow2((frexp_exponent(v) - 1).min(E_MAX))
}

/// Signed powers of two ±2ᵉ, e ∈ [−20, 40], and 0 (123 points): the grid of the
/// order-of-magnitude median, on data mapped by [`signed_octave_floor`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignedOctaveGrid;

impl Grid1D for SignedOctaveGrid {
    #[inline]
    fn len(&self) -> usize {
        2 * OctaveGrid.len() - 1
    }
    #[inline]
    fn value(&self, i: usize) -> f64 {
        let h = OctaveGrid.len() - 1; // index of 0
        match i.cmp(&h) {
            std::cmp::Ordering::Equal => 0.0,
            std::cmp::Ordering::Greater => OctaveGrid.value(i - h),
            std::cmp::Ordering::Less => -OctaveGrid.value(h - i),
        }
    }
    #[inline]
    fn floor_index(&self, x: f64) -> Option<usize> {
        let h = OctaveGrid.len() - 1;
        if x >= 0.0 {
            OctaveGrid.floor_index(x).map(|k| h + k)
        } else {
            // largest i with value(i) ≤ x < 0: the smallest octave ≥ |x|
            let a = -x;
            let k = OctaveGrid.floor_index(a).expect("a > 0");
            let k = if OctaveGrid.value(k) == a { k } else { k + 1 };
            if k > h {
                None
            } else {
                Some(h - k)
            }
        }
    }
}

/// x rounded down to the grid (the largest grid point ≤ x; the smallest grid point when
/// x is below the grid). A row-wise public map: quantiles of snapped data have their
/// utility 0 at a grid point, however coarse the grid is relative to the data.
#[inline]
pub fn snap_down<G: Grid1D>(grid: &G, x: f64) -> f64 {
    match grid.floor_index(x) {
        Some(i) => grid.value(i),
        None => grid.value(0),
    }
}

/// sign(v)·2^⌊log₂|v|⌋ (0 when |v| < 2⁻²⁰, ±2⁴⁰ beyond): [`octave_floor`] keeping the sign.
#[inline(always)]
pub fn signed_octave_floor(v: f64) -> f64 {
    let o = octave_floor(v);
    if v < 0.0 {
        -o
    } else {
        o
    }
}

/// 2S + 1 equally spaced points −R, −R + R/S, …, R with R and S powers of two (so every
/// point is exact): the fine grid of the second stage of private scaling.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearGrid {
    /// Half-width R (a power of two).
    pub half_width: f64,
    /// Steps per side S (a power of two).
    pub steps: usize,
}

impl LinearGrid {
    /// Point i at spacing h = half_width/steps: the expression of [`Grid1D::value`], bit
    /// for bit, without its bounds check and division (the caller keeps i in range).
    #[inline]
    fn point(&self, i: usize, h: f64) -> f64 {
        (i as f64 - self.steps as f64) * h
    }
}

/// A [`LinearGrid`] with its spacing h and 1/h computed once: the floor index and the
/// points of [`Grid1D`] without a division per value (the scaling's histogram passes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PreparedLinear {
    grid: LinearGrid,
    h: f64,
    inv_h: f64,
    last: usize,
}

impl PreparedLinear {
    /// The grid prepared (half-width > 0).
    pub fn new(grid: LinearGrid) -> Self {
        let h = grid.half_width / grid.steps as f64;
        PreparedLinear {
            grid,
            h,
            inv_h: 1.0 / h,
            last: grid.len() - 1,
        }
    }

    /// The largest i with point i ≤ x (`None` below the grid; [`Grid1D::floor_index`] of
    /// the grid): the start is x·(1/h) truncated (within one point of the floor, exact when
    /// h is a power of two as on the scaling's grids), then an exact correction against
    /// the points as [`Grid1D::value`] computes them.
    #[inline(always)]
    pub fn floor_index(&self, x: f64) -> Option<usize> {
        if x < -self.grid.half_width {
            return None;
        }
        let t = x * self.inv_h + self.grid.steps as f64;
        let mut i = if t >= self.last as f64 {
            self.last
        } else if t > 0.0 {
            t as usize
        } else {
            0
        };
        while i < self.last && self.point(i + 1) <= x {
            i += 1;
        }
        while i > 0 && self.point(i) > x {
            i -= 1;
        }
        Some(i)
    }

    /// Grid point i (i ≤ the last point): [`Grid1D::value`] bit for bit.
    #[inline(always)]
    pub fn point(&self, i: usize) -> f64 {
        self.grid.point(i, self.h)
    }
}

impl Grid1D for LinearGrid {
    #[inline]
    fn len(&self) -> usize {
        2 * self.steps + 1
    }
    #[inline]
    fn value(&self, i: usize) -> f64 {
        assert!(i < self.len(), "grid index out of range");
        self.point(i, self.half_width / self.steps as f64)
    }
    #[inline]
    fn floor_index(&self, x: f64) -> Option<usize> {
        PreparedLinear::new(*self).floor_index(x)
    }
}

/// The public grid of the quantile mechanism: index 0..G, increasing values,
/// v_K = 0, v_{K+1+j} = pos(j), v_{K−1−j} = −pos(j).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PublicGrid;

impl PublicGrid {
    /// Number of grid points G = 2K + 1.
    pub const LEN: usize = 2 * K + 1;

    fn pos(j: usize) -> f64 {
        debug_assert!(j < K);
        let e = (E_MIN + 1023) as u64 + (j >> MANTISSA_BITS) as u64;
        let m = (j as u64) & ((1 << MANTISSA_BITS) - 1);
        f64::from_bits((e << 52) | (m << (52 - MANTISSA_BITS)))
    }

    /// The value of grid point `i` (exact: a double with a 10-bit mantissa).
    pub fn value(i: usize) -> f64 {
        assert!(i < Self::LEN, "grid index out of range");
        match i.cmp(&K) {
            std::cmp::Ordering::Equal => 0.0,
            std::cmp::Ordering::Greater => Self::pos(i - K - 1),
            std::cmp::Ordering::Less => -Self::pos(K - 1 - i),
        }
    }

    /// Largest j with pos(j) ≤ y, for y > 0 (None when y < pos(0)).
    fn pos_floor(y: f64) -> Option<usize> {
        debug_assert!(y > 0.0);
        let base = Self::pos(0).to_bits();
        let b = y.to_bits();
        if b < base {
            return None;
        }
        Some((((b - base) >> (52 - MANTISSA_BITS)) as usize).min(K - 1))
    }

    /// The largest grid index i with v_i ≤ x (None when x is below every grid point).
    /// `x` must not be NaN.
    pub fn floor_index(x: f64) -> Option<usize> {
        if x > 0.0 {
            Some(match Self::pos_floor(x) {
                None => K,
                Some(j) => K + 1 + j,
            })
        } else if x == 0.0 {
            Some(K)
        } else {
            // v_i ≤ x  ⟺  v_{G−1−i} ≥ −x: i ≤ G − 1 − ceil_index(−x).
            Self::ceil_index(-x).map(|c| Self::LEN - 1 - c)
        }
    }

    /// The smallest grid index i with v_i ≥ x (None when x is above every grid point).
    pub fn ceil_index(x: f64) -> Option<usize> {
        if x <= 0.0 {
            // mirror of floor_index
            return Self::floor_index(-x).map(|f| Self::LEN - 1 - f);
        }
        let f = Self::floor_index(x).expect("x > 0 has a grid point below");
        if Self::value(f) == x {
            Some(f)
        } else if f + 1 < Self::LEN {
            Some(f + 1)
        } else {
            None
        }
    }
}

/// The DP quantile of level `q` (pure ε-DP) over the public grid `G`. Input: the column
/// **sorted ascending** (no NaN). Output: a grid value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuantileMechanism<G: Grid1D = PublicGrid> {
    /// The level q ∈ (0, 1).
    pub q: f64,
    /// ε of this release.
    pub epsilon: f64,
    /// The output range.
    pub grid: G,
}

impl QuantileMechanism<PublicGrid> {
    /// Checks q ∈ (0, 1) and ε > 0 (ε = ∞ allowed: the exact grid quantile); the output
    /// range is [`PublicGrid`].
    pub fn new(q: f64, epsilon: f64) -> Result<Self, PrivacyError> {
        Self::on_grid(q, epsilon, PublicGrid)
    }
}

impl<G: Grid1D> QuantileMechanism<G> {
    /// As [`QuantileMechanism::new`], over the public grid `grid`.
    pub fn on_grid(q: f64, epsilon: f64, grid: G) -> Result<Self, PrivacyError> {
        if !(q > 0.0 && q < 1.0) {
            return Err(PrivacyError::InvalidMechanism(format!(
                "quantile level must be in (0, 1), got {q}"
            )));
        }
        ExponentialMechanism::new(1.0, epsilon)?;
        Ok(QuantileMechanism { q, epsilon, grid })
    }

    /// The utility u(g) of grid value g on the sorted column.
    pub fn utility(&self, sorted: &[f64], g: f64) -> f64 {
        let below = sorted.partition_point(|&x| x < g) as f64;
        let at_most = sorted.partition_point(|&x| x <= g) as f64;
        Self::utility_from_counts(self.q * sorted.len() as f64, below, at_most)
    }

    fn utility_from_counts(target: f64, below: f64, at_most: f64) -> f64 {
        -(0.0f64).max(below - target).max(target - at_most)
    }

    /// (first grid index of maximal utility, that utility), by binary searches: with
    /// A(g) = #{xᵢ < g} and B(g) = #{xᵢ ≤ g} (both non-decreasing in g) and t = q·n,
    /// u(g) = −max(0, A − t, t − B). Let i₀ be the first grid index with A − t ≥ t − B.
    /// Below i₀, u = −max(0, t − B) is non-decreasing; from i₀ on, u = −max(0, A − t) is
    /// non-increasing. So the maximum is u(i₀ − 1) or u(i₀), and its first index is the
    /// first i < i₀ with u(i) ≥ u(i₀ − 1) when the left side wins, else i₀. Each u costs
    /// two binary searches of the sorted column: O(log|𝒢|·log n) in all, and the values
    /// are those of [`QuantileMechanism::utility`] to the bit (same formula on the same
    /// counts).
    pub fn best(&self, sorted: &[f64]) -> (usize, f64) {
        self.best_of(&SortedColumn(sorted))
    }

    /// [`QuantileMechanism::best`] on any [`RankCounts`] of the column (the same
    /// utilities, to the bit, for the same counts).
    pub fn best_of<C: RankCounts + ?Sized>(&self, counts: &C) -> (usize, f64) {
        let target = self.q * counts.len() as f64;
        let g = &self.grid;
        let counts = |i: usize| {
            let (a, b) = counts.ranks(i, g.value(i));
            (a as f64, b as f64)
        };
        let u = |i: usize| {
            let (a, b) = counts(i);
            Self::utility_from_counts(target, a, b)
        };
        let i0 = partition_point(g.len(), |i| {
            let (a, b) = counts(i);
            a - target < target - b
        });
        let right = (i0 < g.len()).then(|| u(i0));
        match (i0.checked_sub(1).map(u), right) {
            (Some(left), r) if r.is_none_or(|r| left >= r) => {
                (partition_point(i0 - 1, |i| u(i) < left), left)
            }
            (_, Some(r)) => (i0, r),
            (_, None) => unreachable!("the grid is not empty"),
        }
    }

    /// The release on rank counts of the column: the mechanism of the module
    /// documentation, whose utility reads only #{xᵢ < g} and #{xᵢ ≤ g} at grid points.
    /// [`Mechanism::run_uncharged`] is this on the sorted column; a distributed fit
    /// passes a [`GridHistogram`] (the same counts, hence the same draws and output).
    /// Uncharged: the caller charges [`Mechanism::cost`] first.
    pub fn run_on_counts<C: RankCounts + ?Sized, R: RngCore + ?Sized>(
        &self,
        counts: &C,
        rng: &mut R,
    ) -> f64 {
        let (best_idx, best_u) = self.best_of(counts);
        let grid = &self.grid;
        if self.epsilon.is_infinite() {
            return grid.value(best_idx);
        }
        let em = ExponentialMechanism {
            sensitivity: 1.0,
            epsilon: self.epsilon,
        };
        let lambda = em.lambda();
        let max_score = em.scores(&[best_u])[0];
        let target = self.q * counts.len() as f64;
        let mut exact = ExactRng::new(rng);
        loop {
            let i = exact.uniform_below(grid.len() as u128) as usize;
            let g = grid.value(i);
            let (a, b) = counts.ranks(i, g);
            let s = em.scores(&[Self::utility_from_counts(target, a as f64, b as f64)])[0];
            debug_assert!(s <= max_score);
            let w = (max_score - s) as u128;
            if exact.bernoulli_exp_neg_dyadic(lambda.mantissa as u128 * w, lambda.exponent) {
                return g;
            }
        }
    }
}

/// What the quantile utility reads of a column: its length n and, at grid point i of
/// value g, the ranks (#{xᵢ < g}, #{xᵢ ≤ g}).
pub trait RankCounts {
    /// The number of values n.
    fn len(&self) -> usize;
    /// Whether the column is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// (#{x < g}, #{x ≤ g}) at grid point `i`, whose value is `g`.
    fn ranks(&self, i: usize, g: f64) -> (usize, usize);
}

/// A column sorted ascending (no NaN): ranks by binary search.
pub struct SortedColumn<'a>(pub &'a [f64]);

impl RankCounts for SortedColumn<'_> {
    fn len(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn ranks(&self, _i: usize, g: f64) -> (usize, usize) {
        (
            self.0.partition_point(|&x| x < g),
            self.0.partition_point(|&x| x <= g),
        )
    }
}

/// The cell of value `x` in the histogram of a grid of L points: 2i + 1 when x is grid
/// point i, 2i + 2 when it lies strictly between points i and i + 1 (or above the last,
/// cell 2L), 0 below the first point. `x` must not be NaN. The cells of a public grid
/// are public, so a histogram over them is a sum over rows of one-hot vectors.
#[inline]
pub fn histogram_cell<G: Grid1D>(grid: &G, x: f64) -> usize {
    match grid.floor_index(x) {
        None => 0,
        Some(i) if grid.value(i) == x => 2 * i + 1,
        Some(i) => 2 * i + 2,
    }
}

/// The number of cells of the histogram of a grid of `points` points (2L + 1).
pub fn histogram_cells(points: usize) -> usize {
    2 * points + 1
}

/// Rank counts from a histogram over a grid's cells ([`histogram_cell`]): A(gᵢ) is the
/// count of cells 0..=2i, B(gᵢ) of cells 0..=2i+1 (prefix sums, exact in integers).
/// The ranks are those a sorted column would give, so [`QuantileMechanism::run_on_counts`]
/// releases the same value with the same draws.
#[derive(Debug, Clone, PartialEq)]
pub struct GridHistogram {
    /// prefix[k] = the count of cells 0..k (length 2L + 2).
    prefix: Vec<u64>,
}

impl GridHistogram {
    /// From per-cell counts (length 2L + 1).
    pub fn from_cells(cells: &[u64]) -> Self {
        let mut prefix = Vec::with_capacity(cells.len() + 1);
        let mut acc = 0u64;
        prefix.push(0);
        for c in cells {
            acc += c;
            prefix.push(acc);
        }
        GridHistogram { prefix }
    }

    /// The histogram of `values` (no NaN) over `grid`.
    pub fn of<G: Grid1D>(grid: &G, values: &[f64]) -> Self {
        let mut cells = vec![0u64; histogram_cells(grid.len())];
        for &v in values {
            cells[histogram_cell(grid, v)] += 1;
        }
        Self::from_cells(&cells)
    }
}

impl RankCounts for GridHistogram {
    fn len(&self) -> usize {
        *self.prefix.last().expect("non-empty") as usize
    }
    #[inline]
    fn ranks(&self, i: usize, _g: f64) -> (usize, usize) {
        (
            self.prefix[2 * i + 1] as usize,
            self.prefix[2 * i + 2] as usize,
        )
    }
}

/// The first index i in 0..len at which `pred` turns false (`pred` true then false).
fn partition_point(len: usize, mut pred: impl FnMut(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, len);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

impl<G: Grid1D> Mechanism for QuantileMechanism<G> {
    type Input = [f64];
    type Output = f64;

    fn cost(&self) -> Cost {
        Cost::Pure {
            epsilon: self.epsilon,
        }
    }

    fn run_uncharged<R: RngCore + ?Sized>(&self, sorted: &[f64], rng: &mut R) -> f64 {
        self.run_on_counts(&SortedColumn(sorted), rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::rng_from_seed;

    #[test]
    fn grid_is_increasing_symmetric_and_indexable() {
        let g = PublicGrid::LEN;
        assert_eq!(g, 2 * 61 * 1024 + 1);
        assert_eq!(PublicGrid::value(K), 0.0);
        for i in (1..g).step_by(97) {
            assert!(PublicGrid::value(i - 1) < PublicGrid::value(i));
            assert_eq!(PublicGrid::value(i), -PublicGrid::value(g - 1 - i));
            assert_eq!(PublicGrid::floor_index(PublicGrid::value(i)), Some(i));
            assert_eq!(PublicGrid::ceil_index(PublicGrid::value(i)), Some(i));
        }
        // integers up to 2048 are grid points
        for k in 1..=2048 {
            let f = PublicGrid::floor_index(k as f64).unwrap();
            assert_eq!(PublicGrid::value(f), k as f64);
        }
        // between points
        let v = PublicGrid::value(K + 500);
        let w = PublicGrid::value(K + 501);
        let mid = 0.5 * (v + w);
        assert_eq!(PublicGrid::floor_index(mid), Some(K + 500));
        assert_eq!(PublicGrid::ceil_index(mid), Some(K + 501));
        assert_eq!(PublicGrid::floor_index(-1e300), None);
        assert_eq!(PublicGrid::ceil_index(1e300), None);
        assert_eq!(PublicGrid::floor_index(1e300), Some(g - 1));
        assert_eq!(PublicGrid::floor_index(1e-300), Some(K));
        assert_eq!(PublicGrid::floor_index(-1e-300), Some(K - 1));
    }

    #[test]
    fn pow2_and_frexp_exponent_are_libms_bit_for_bit() {
        for e in -1022..=1023 {
            assert_eq!(pow2(e).to_bits(), libm::ldexp(1.0, e).to_bits(), "{e}");
        }
        let mut xs = vec![
            0.0,
            -0.0,
            f64::MIN_POSITIVE,
            f64::MIN_POSITIVE / 3.0,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1.0,
            0.75,
            -3.5,
            1e-300,
            2f64.powi(-20),
            2f64.powi(-20).next_down(),
            2f64.powi(40),
        ];
        let mut v: f64 = 1.234e-12;
        while v < 1e15 {
            xs.extend([v, -v, v.next_up(), v.next_down()]);
            v *= 1.37;
        }
        for x in xs {
            assert_eq!(frexp_exponent(x), libm::frexp(x).1, "{x}");
        }
    }

    #[test]
    fn octave_floor_lands_on_the_octave_grid() {
        for (v, want) in [
            (1990.0, 1024.0),
            (2048.0, 2048.0),
            (0.3, 0.25),
            (-5.0, 4.0),
            (0.0, 0.0),
            (1e-9, 0.0),
            (1e300, 1099511627776.0),
        ] {
            assert_eq!(octave_floor(v), want, "{v}");
            let g = OctaveGrid;
            assert_eq!(g.value(g.floor_index(want).unwrap()), want);
        }
    }

    #[test]
    fn signed_octave_grid_and_snapping() {
        let g = SignedOctaveGrid;
        assert_eq!(g.len(), 123);
        for i in 1..g.len() {
            assert!(g.value(i - 1) < g.value(i));
            assert_eq!(g.floor_index(g.value(i)), Some(i));
        }
        assert_eq!(g.value(g.floor_index(-3.0).unwrap()), -4.0);
        assert_eq!(g.value(g.floor_index(3.0).unwrap()), 2.0);
        assert_eq!(g.floor_index(-1e300), None);
        assert_eq!(signed_octave_floor(-3.0), -2.0);
        let lin = LinearGrid {
            half_width: 4.0,
            steps: 4,
        };
        assert_eq!(snap_down(&lin, 2.7), 2.0);
        assert_eq!(snap_down(&lin, -9.0), -4.0);
        assert_eq!(snap_down(&lin, 99.0), 4.0);
        // the median of data packed between two points of a coarse grid is found once
        // the data are snapped (without snapping every grid point ties at −n/2)
        let data: Vec<f64> = (0..101).map(|i| 300.0 + 0.01 * i as f64).collect();
        let coarse = LinearGrid {
            half_width: 1024.0,
            steps: 16,
        };
        let mut snapped: Vec<f64> = data.iter().map(|&x| snap_down(&coarse, x)).collect();
        snapped.sort_by(f64::total_cmp);
        let m = QuantileMechanism::on_grid(0.5, f64::INFINITY, coarse).unwrap();
        assert_eq!(m.best(&snapped).1, 0.0);
        assert_eq!(m.best(&data).1, -50.5);
    }

    #[test]
    fn best_matches_brute_force_on_a_subgrid_of_blocks() {
        // the utility of the reported best index equals its recomputed utility, and no
        // grid point has a larger utility (checked on every grid point for a small column)
        let cols: Vec<Vec<f64>> = vec![
            vec![0.0, 0.0, 0.0, 1.0, 1.0],
            vec![-3.5, -1.0, 2.0, 2.0, 7.25, 1e6],
            vec![1990.0, 1991.0, 1995.0, 2003.0],
            vec![5.0],
        ];
        for col in cols {
            for &q in &[0.1, 0.25, 0.5, 0.75, 0.9] {
                let m = QuantileMechanism::new(q, 1.0).unwrap();
                let (bi, bu) = m.best(&col);
                assert_eq!(m.utility(&col, PublicGrid::value(bi)), bu);
                let mut brute = f64::NEG_INFINITY;
                let mut first = 0;
                for i in 0..PublicGrid::LEN {
                    let u = m.utility(&col, PublicGrid::value(i));
                    if u > brute {
                        brute = u;
                        first = i;
                    }
                }
                assert_eq!(bu, brute, "q = {q}, col = {col:?}");
                assert_eq!(bi, first);
            }
        }
    }

    #[test]
    fn best_matches_brute_force_on_random_columns_with_ties_and_linear_grids() {
        use rand::Rng;
        let mut rng = rng_from_seed(11);
        for case in 0..200 {
            let n = rng.random_range(0..40);
            let atoms = rng.random_range(1..6);
            let mut col: Vec<f64> = (0..n)
                .map(|_| {
                    (rng.random_range(0..atoms) as f64 - 2.0) * 0.37
                        + rng.random_range(0..2) as f64 * rng.random::<f64>()
                })
                .collect();
            col.sort_by(f64::total_cmp);
            let grid = LinearGrid {
                half_width: [0.5, 2.0, 32.0][case % 3],
                steps: 16,
            };
            for &q in &[0.1, 0.25, 0.5, 0.75, 0.9] {
                let m = QuantileMechanism::on_grid(q, 1.0, grid).unwrap();
                let (bi, bu) = m.best(&col);
                let (mut first, mut brute) = (0, f64::NEG_INFINITY);
                for i in 0..grid.len() {
                    let u = m.utility(&col, grid.value(i));
                    if u > brute {
                        (first, brute) = (i, u);
                    }
                }
                assert_eq!(
                    (bi, bu.to_bits()),
                    (first, brute.to_bits()),
                    "{col:?}, q = {q}"
                );
            }
        }
    }

    /// The count-based path (a histogram over the grid's cells, as a distributed fit
    /// builds it) gives the sorted path's best index and utility to the bit and the same
    /// release with the same draws, on random columns with ties, on every grid kind.
    #[test]
    fn histogram_counts_match_the_sorted_column_bit_for_bit() {
        use rand::Rng;
        fn check<G: Grid1D + Copy + std::fmt::Debug>(grid: G, col: &[f64], seed: u64) {
            let mut sorted = col.to_vec();
            sorted.sort_by(f64::total_cmp);
            // the histogram summed over three "partitions" in a fixed order
            let mut cells = vec![0u64; histogram_cells(grid.len())];
            for part in col.chunks(col.len().div_ceil(3).max(1)) {
                for &v in part {
                    cells[histogram_cell(&grid, v)] += 1;
                }
            }
            let hist = GridHistogram::from_cells(&cells);
            assert_eq!(hist, GridHistogram::of(&grid, col));
            assert_eq!(hist.len(), col.len());
            for i in (0..grid.len()).step_by(grid.len() / 97 + 1) {
                let g = grid.value(i);
                assert_eq!(hist.ranks(i, g), SortedColumn(&sorted).ranks(i, g));
            }
            for &q in &[0.1, 0.25, 0.5, 0.75, 0.9] {
                for eps in [0.3, 2.0, f64::INFINITY] {
                    let m = QuantileMechanism::on_grid(q, eps, grid).unwrap();
                    let (bi, bu) = m.best(&sorted);
                    let (hi, hu) = m.best_of(&hist);
                    assert_eq!((bi, bu.to_bits()), (hi, hu.to_bits()), "{grid:?} q = {q}");
                    let (mut r1, mut r2) = (rng_from_seed(seed), rng_from_seed(seed));
                    let a = m.run_uncharged(&sorted, &mut r1);
                    let b = m.run_on_counts(&hist, &mut r2);
                    assert_eq!(a.to_bits(), b.to_bits());
                    assert_eq!(r1, r2, "the same draws");
                }
            }
        }
        let mut rng = rng_from_seed(23);
        for case in 0..60u64 {
            let n = rng.random_range(1..60);
            let atoms = rng.random_range(1..6);
            let scale = [0.37, 1.0, 300.0, 1e-7][case as usize % 4];
            let col: Vec<f64> = (0..n)
                .map(|_| {
                    let a = (rng.random_range(0..atoms) as f64 - 2.0) * scale;
                    match rng.random_range(0..3) {
                        0 => a,
                        1 => a + scale * rng.random::<f64>(),
                        _ => -0.0 * a, // signed zeros
                    }
                })
                .collect();
            check(
                LinearGrid {
                    half_width: [0.5, 2.0, 1024.0][case as usize % 3],
                    steps: 16,
                },
                &col,
                case,
            );
            check(
                OctaveGrid,
                &col.iter().map(|v| octave_floor(*v)).collect::<Vec<_>>(),
                case,
            );
            check(SignedOctaveGrid, &col, case);
            check(PublicGrid, &col, case);
        }
    }

    #[test]
    fn sensitivity_of_the_utility_is_one() {
        // replace one record by an extreme value: every grid point's utility moves by ≤ 1
        let base: Vec<f64> = (0..40).map(|i| (i as f64 - 20.0) * 0.75).collect();
        for repl in [-1e9, -3.0, 0.0, 2.2, 1e9] {
            let mut other = base.clone();
            other[7] = repl;
            other.sort_by(f64::total_cmp);
            for &q in &[0.25, 0.5, 0.75] {
                let m = QuantileMechanism::new(q, 1.0).unwrap();
                for i in (0..PublicGrid::LEN).step_by(13) {
                    let g = PublicGrid::value(i);
                    let du = (m.utility(&base, g) - m.utility(&other, g)).abs();
                    assert!(du <= 1.0, "du = {du}");
                }
            }
        }
    }

    #[test]
    fn infinite_epsilon_returns_the_exact_quantile_without_randomness() {
        let col: Vec<f64> = (1..=101).map(|i| i as f64).collect();
        let m = QuantileMechanism::new(0.5, f64::INFINITY).unwrap();
        let mut rng = rng_from_seed(1);
        let before = rng.clone();
        assert_eq!(m.run_uncharged(&col, &mut rng), 51.0);
        assert_eq!(rng, before);
        // dummies: the atoms are grid points
        let d: Vec<f64> = [vec![0.0; 60], vec![1.0; 40]].concat();
        assert_eq!(
            QuantileMechanism::new(0.25, f64::INFINITY)
                .unwrap()
                .run_uncharged(&d, &mut rng),
            0.0
        );
        assert_eq!(
            QuantileMechanism::new(0.75, f64::INFINITY)
                .unwrap()
                .run_uncharged(&d, &mut rng),
            1.0
        );
    }

    #[test]
    fn accuracy_with_known_truth() {
        // n = 20 000 standard-exponential-like column: the private median at ε = 0.1 is
        // within 2 % of the rank of the truth in every one of 20 seeds
        let n = 20_000;
        let col: Vec<f64> = (0..n)
            .map(|i| -(1.0 - (i as f64 + 0.5) / n as f64).ln())
            .collect();
        let m = QuantileMechanism::new(0.5, 0.1).unwrap();
        for seed in 0..20 {
            let mut rng = rng_from_seed(seed);
            let g = m.run_uncharged(&col, &mut rng);
            let rank = col.partition_point(|&x| x <= g) as f64 / n as f64;
            assert!((rank - 0.5).abs() < 0.02, "seed {seed}: rank {rank}");
        }
    }

    #[test]
    fn output_law_matches_the_exponential_mechanism() {
        // a tiny column: compare the frequency of outputs in [0, 1] with its exact
        // probability from the block weights
        let col = vec![0.0, 0.0, 1.0];
        let eps = 2.0;
        let m = QuantileMechanism::new(0.5, eps).unwrap();
        // blocks: (−∞,0): u = −1.5 ; {0}: u = 0 ; (0,1): u = −0.5 ; {1}: u = −0.5 ; (1,∞): u = −1.5
        let em = ExponentialMechanism::new(1.0, eps).unwrap();
        let k0 = PublicGrid::floor_index(0.0).unwrap();
        let k1 = PublicGrid::floor_index(1.0).unwrap();
        let n_neg = k0 as f64;
        let n_mid = (k1 - k0 - 1) as f64;
        let n_hi = (PublicGrid::LEN - k1 - 1) as f64;
        let lp = em.log_probabilities(&[-1.5, 0.0, -0.5, -0.5, -1.5]);
        let w: Vec<f64> = lp.iter().map(|l| l.exp()).collect();
        let z = n_neg * w[0] + w[1] + n_mid * w[2] + w[3] + n_hi * w[4];
        let p_zero = (w[1] + n_mid * w[2] + w[3]) / z;
        let trials = 4000;
        let mut rng = rng_from_seed(3);
        let hits = (0..trials)
            .filter(|_| (0.0..=1.0).contains(&m.run_uncharged(&col, &mut rng)))
            .count() as f64;
        let sd = (p_zero * (1.0 - p_zero) / trials as f64).sqrt();
        assert!(
            (hits / trials as f64 - p_zero).abs() < 5.0 * sd + 1e-9,
            "freq {} vs p {p_zero}",
            hits / trials as f64
        );
    }
}
