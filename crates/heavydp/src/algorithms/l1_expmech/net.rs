//! Data-independent candidate sets for the exponential mechanism (spec §3, §6).
//!
//! * [`GridNet`] — the exact ζ-net of spec §3: the cubic grid of spacing h = 2ζ/√d
//!   (cells of circumradius ζ) centred at 0 and covering the bounding box [−R, R]^d,
//!   R = max_{w∈W}‖w‖₂; keep every grid point g with dist(g, W) ≤ ζ and use Π_W(g). Every
//!   w ∈ W is within ζ of its nearest grid point g, hence dist(g, W) ≤ ζ (g is kept) and
//!   ‖Π_W(g) − w‖ ≤ ‖g − w‖ ≤ ζ (Π_W is non-expansive and fixes w); every stored point
//!   lies in W. Points are enumerated lazily: the net stores, per grid line along the
//!   last axis, only the first and last kept index (W + ζB is convex, so the kept points
//!   of a line are contiguous), i.e. O(N^{(d−1)/d}) numbers for N points.
//! * [`RandomNet`] — M i.i.d. uniform points of W (ℓ2 or ℓ1 ball), generated lazily
//!   block by block from a 32-byte key drawn from the fit's generator. Exact ε-DP, but
//!   *not* a ζ-net: its covering radius is only ≈ Δ_W(log M/M)^{1/d}, so the theorems
//!   do not cover it.
//!
//! Both depend only on public inputs (W, d, ζ, M) and the seed — never on the data.
//! Candidate i of a net is a fixed point (`point(i)`), enumerated in a fixed order, so
//! the exponential mechanism's tie rule "smallest index" is data-independent.

use crate::constraints::ConstraintSet;
use crate::noise;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use thiserror::Error;

/// Candidates per block: the unit of parallel work, of lazy generation and of the
/// per-block random streams (block b uses ChaCha20 stream b).
pub const CANDIDATE_BLOCK: usize = 1024;

/// Errors of net construction (public quantities only).
#[derive(Debug, Error, Clone, PartialEq)]
pub enum NetError {
    #[error("the grid net at zeta = {zeta:e} has more than {cap} points")]
    TooManyPoints { zeta: f64, cap: u64 },
    #[error("the grid net at zeta = {zeta:e} needs a bounding box of more than {cap_box} grid points to enumerate")]
    BoxTooLarge { zeta: f64, cap_box: u64 },
    #[error("zeta must be a finite number > 0; got {0}")]
    BadZeta(f64),
    #[error("random candidates are supported on the l2-ball and l1-ball domains only (got '{0}')")]
    UnsupportedDomain(String),
}

/// A finite, data-independent, enumerable candidate set.
pub trait CandidateSet: Sync {
    /// Dimension d.
    fn dim(&self) -> usize;
    /// Number of candidates N.
    fn count(&self) -> u64;
    /// Writes candidates `start, start + 1, …` (as many as fit: `out.len() / d`) into
    /// `out`, row-major.
    fn fill(&self, start: u64, out: &mut [f64]);
    /// Candidate `i`.
    fn point(&self, i: u64) -> Vec<f64> {
        let mut out = vec![0.0; self.dim()];
        self.fill(i, &mut out);
        out
    }
}

/// The bounding-box work cap of a grid enumeration: the line scan visits at most
/// `BOX_FACTOR·cap + 2^20` box points (cap = the allowed number of net points).
pub const BOX_FACTOR: u64 = 64;

#[derive(Debug, Clone, PartialEq)]
struct GridLine {
    /// Index of the first d − 1 grid coordinates, base 2K + 1, first coordinate most
    /// significant (lexicographic order).
    outer: u64,
    lo: i64,
    hi: i64,
}

/// The grid ζ-net of spec §3 (see the module docs), enumerated lazily.
pub struct GridNet<'a> {
    domain: &'a dyn ConstraintSet,
    d: usize,
    zeta: f64,
    h: f64,
    k: i64,
    lines: Vec<GridLine>,
    /// starts[l] = number of points in lines 0..l; starts.last() = count.
    starts: Vec<u64>,
}

impl<'a> GridNet<'a> {
    /// The grid net of `domain` at resolution ζ, with no cap on its size other than the
    /// enumeration work cap for `u64::MAX / BOX_FACTOR` points.
    pub fn new(domain: &'a dyn ConstraintSet, zeta: f64) -> Result<Self, NetError> {
        Self::with_cap(domain, zeta, u64::MAX / (2 * BOX_FACTOR))
    }

    /// The grid net, or [`NetError::TooManyPoints`] as soon as more than `cap` points are
    /// found, or [`NetError::BoxTooLarge`] when the bounding box has more than
    /// `BOX_FACTOR·cap + 2^20` grid points (the enumeration scans the box).
    pub fn with_cap(domain: &'a dyn ConstraintSet, zeta: f64, cap: u64) -> Result<Self, NetError> {
        if !(zeta.is_finite() && zeta > 0.0) {
            return Err(NetError::BadZeta(zeta));
        }
        let d = domain.dim();
        let r = domain.l2_radius();
        let h = 2.0 * zeta / (d as f64).sqrt();
        let cap_box = cap.saturating_mul(BOX_FACTOR).saturating_add(1 << 20);
        let too_large = NetError::BoxTooLarge { zeta, cap_box };
        // K: the smallest half-width with K·h + h/2 ≥ R (every coordinate of the box is
        // within h/2 of a grid value).
        let kf = (r / h - 0.5).ceil().max(0.0);
        if kf.is_nan() || kf >= 1e15 {
            return Err(too_large);
        }
        let mut k = kf as i64;
        while (k as f64) * h + h / 2.0 < r {
            k += 1;
        }
        let side = (2 * k + 1) as u64;
        let mut box_size: u64 = 1;
        for _ in 0..d {
            box_size = match box_size.checked_mul(side) {
                Some(b) if b <= cap_box => b,
                _ => return Err(too_large),
            };
        }
        let n_lines = box_size / side;
        let tol2 = (zeta * (1.0 + 1e-9)).powi(2);
        let mut g = vec![0.0; d];
        let mut p = vec![0.0; d];
        let kept = |g: &[f64], p: &mut [f64]| {
            p.copy_from_slice(g);
            domain.project(p);
            let dist2: f64 = g.iter().zip(p.iter()).map(|(a, b)| (a - b) * (a - b)).sum();
            dist2 <= tol2
        };
        let mut lines = Vec::new();
        let mut starts = vec![0u64];
        let mut count: u64 = 0;
        for outer in 0..n_lines {
            decode_outer(outer, k, h, d, &mut g);
            let mut lo = None;
            for j in -k..=k {
                g[d - 1] = j as f64 * h;
                if kept(&g, &mut p) {
                    lo = Some(j);
                    break;
                }
            }
            let Some(lo) = lo else { continue };
            let mut hi = lo;
            for j in (lo..=k).rev() {
                g[d - 1] = j as f64 * h;
                if kept(&g, &mut p) {
                    hi = j;
                    break;
                }
            }
            count += (hi - lo + 1) as u64;
            if count > cap {
                return Err(NetError::TooManyPoints { zeta, cap });
            }
            lines.push(GridLine { outer, lo, hi });
            starts.push(count);
        }
        Ok(GridNet {
            domain,
            d,
            zeta,
            h,
            k,
            lines,
            starts,
        })
    }

    /// Number of points N (as [`CandidateSet::count`]).
    pub fn count(&self) -> u64 {
        *self.starts.last().expect("starts is never empty")
    }
    /// Point i (as [`CandidateSet::point`]).
    pub fn point(&self, i: u64) -> Vec<f64> {
        CandidateSet::point(self, i)
    }
    /// The resolution ζ.
    pub fn zeta(&self) -> f64 {
        self.zeta
    }
    /// The grid spacing h = 2ζ/√d.
    pub fn spacing(&self) -> f64 {
        self.h
    }
    /// The grid's half-width K (grid values −K·h, …, K·h on every axis).
    pub fn half_width(&self) -> i64 {
        self.k
    }

    /// Calls `f(i, w_i)` for every candidate in index order (one point buffer, no
    /// allocation per point).
    pub fn for_each(&self, mut f: impl FnMut(u64, &[f64])) {
        let mut buf = vec![0.0; CANDIDATE_BLOCK * self.d];
        let n = self.count();
        let mut start = 0u64;
        while start < n {
            let m = (n - start).min(CANDIDATE_BLOCK as u64) as usize;
            self.fill(start, &mut buf[..m * self.d]);
            for j in 0..m {
                f(start + j as u64, &buf[j * self.d..(j + 1) * self.d]);
            }
            start += m as u64;
        }
    }
}

fn decode_outer(outer: u64, k: i64, h: f64, d: usize, g: &mut [f64]) {
    let side = (2 * k + 1) as u64;
    let mut rem = outer;
    for c in (0..d - 1).rev() {
        let digit = (rem % side) as i64;
        rem /= side;
        g[c] = (digit - k) as f64 * h;
    }
}

impl CandidateSet for GridNet<'_> {
    fn dim(&self) -> usize {
        self.d
    }
    fn count(&self) -> u64 {
        GridNet::count(self)
    }
    fn fill(&self, start: u64, out: &mut [f64]) {
        let d = self.d;
        let m = out.len() / d;
        if m == 0 {
            return;
        }
        assert!(
            start + m as u64 <= self.count(),
            "grid net: candidates {start}..{} out of range (N = {})",
            start + m as u64,
            self.count()
        );
        // The line holding `start`.
        let mut l = self.starts.partition_point(|&s| s <= start) - 1;
        let mut j = self.lines[l].lo + (start - self.starts[l]) as i64;
        decode_outer(self.lines[l].outer, self.k, self.h, d, out);
        let mut g = out[..d].to_vec();
        for row in out.chunks_exact_mut(d) {
            if j > self.lines[l].hi {
                l += 1;
                j = self.lines[l].lo;
                decode_outer(self.lines[l].outer, self.k, self.h, d, &mut g);
            }
            g[d - 1] = j as f64 * self.h;
            row.copy_from_slice(&g);
            self.domain.project(row);
            j += 1;
        }
    }
}

/// Number of points of the grid net at ζ, or `None` when it exceeds `cap` (or its box
/// exceeds the enumeration cap).
pub fn grid_count(domain: &dyn ConstraintSet, zeta: f64, cap: u64) -> Option<u64> {
    GridNet::with_cap(domain, zeta, cap).ok().map(|g| g.count())
}

/// The result of [`zeta_min`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ZetaMin {
    /// The smallest resolution found whose grid net has ≤ `max_candidates` points.
    pub zeta: f64,
    /// The grid net's size at that resolution.
    pub count: u64,
}

/// The smallest resolution ζ whose grid net (of [`GridNet`]) has at most
/// `max_candidates` points: a public search (W, d and the cap only; counting grid points
/// never reads data). Starts from ζ₀ = R·max(1, √d/2) (K = 0: the single grid point 0), halves ζ
/// until the net is too large, then bisects in log ζ to a relative width 1e−4.
/// The count is not exactly monotone in ζ (the grid moves with ζ), so this is the
/// boundary the bisection finds; its count is returned with it (and equals
/// `GridNet::new(domain, zeta).count()`).
pub fn zeta_min(domain: &dyn ConstraintSet, max_candidates: u64) -> Option<ZetaMin> {
    let r = domain.l2_radius();
    let d = domain.dim() as f64;
    // K = 0 (the single grid point 0, within R of W) from ζ = R·max(1, √d/2) on.
    let mut hi = r * (d.sqrt() / 2.0).max(1.0) * (1.0 + 1e-9);
    let mut hi_count = grid_count(domain, hi, max_candidates)?;
    let mut lo = hi;
    loop {
        lo /= 2.0;
        match grid_count(domain, lo, max_candidates) {
            Some(c) => {
                hi = lo;
                hi_count = c;
            }
            None => break,
        }
        if lo < 1e-300 {
            return Some(ZetaMin {
                zeta: hi,
                count: hi_count,
            });
        }
    }
    while hi / lo > 1.0 + 1e-4 {
        let mid = (lo * hi).sqrt();
        match grid_count(domain, mid, max_candidates) {
            Some(c) => {
                hi = mid;
                hi_count = c;
            }
            None => lo = mid,
        }
    }
    Some(ZetaMin {
        zeta: hi,
        count: hi_count,
    })
}

/// Which ball a [`RandomNet`] samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BallKind {
    L2,
    L1,
}

/// M i.i.d. uniform points of an ℓ2 or ℓ1 ball (see the module docs), generated lazily
/// from a key drawn once from the fit's generator: block b of [`CANDIDATE_BLOCK`] points
/// comes from `ChaCha20Rng::from_seed(key)` on stream b.
///
/// * ℓ2 ball of radius R: w = R·U^{1/d}·g/‖g‖₂, g ∼ N(0, I_d), U ∼ U(0, 1).
/// * ℓ1 ball of radius R: w_j = R·s_j·E_j/(E_1 + … + E_{d+1}), E_j i.i.d. Exp(1), s_j
///   i.i.d. random signs ((E_1, …, E_d)/ΣE is uniform on {u ≥ 0, Σu ≤ 1}).
#[derive(Debug, Clone, PartialEq)]
pub struct RandomNet {
    kind: BallKind,
    d: usize,
    radius: f64,
    m: u64,
    key: [u8; 32],
}

impl RandomNet {
    /// M = `m` uniform points of `domain` (an `l2-ball` or `l1-ball`); draws the 32-byte
    /// key from `rng`.
    pub fn new(
        domain: &dyn ConstraintSet,
        m: u64,
        rng: &mut dyn RngCore,
    ) -> Result<Self, NetError> {
        let kind = match domain.describe()["kind"].as_str() {
            Some("l2-ball") => BallKind::L2,
            Some("l1-ball") => BallKind::L1,
            other => return Err(NetError::UnsupportedDomain(other.unwrap_or("?").into())),
        };
        let mut key = [0u8; 32];
        rng.fill_bytes(&mut key);
        Ok(RandomNet {
            kind,
            d: domain.dim(),
            radius: domain.l2_radius(),
            m,
            key,
        })
    }

    /// Which ball is sampled.
    pub fn kind(&self) -> BallKind {
        self.kind
    }

    fn block_rng(&self, b: u64) -> ChaCha20Rng {
        let mut rng = ChaCha20Rng::from_seed(self.key);
        rng.set_stream(b);
        rng
    }

    fn draw(&self, rng: &mut ChaCha20Rng, out: &mut [f64]) {
        let d = self.d;
        match self.kind {
            BallKind::L2 => {
                let norm = loop {
                    for v in out.iter_mut() {
                        *v = noise::gaussian(1.0, rng);
                    }
                    let s = out.iter().map(|v| v * v).sum::<f64>().sqrt();
                    if s > 0.0 {
                        break s;
                    }
                };
                let u = noise::open01(rng).powf(1.0 / d as f64);
                let c = self.radius * u / norm;
                out.iter_mut().for_each(|v| *v *= c);
            }
            BallKind::L1 => {
                let mut total = 0.0;
                for v in out.iter_mut() {
                    *v = -noise::open01(rng).ln();
                    total += *v;
                }
                total += -noise::open01(rng).ln();
                for v in out.iter_mut() {
                    let sign = if rng.next_u32() & 1 == 0 { 1.0 } else { -1.0 };
                    *v *= sign * self.radius / total;
                }
            }
        }
    }
}

impl CandidateSet for RandomNet {
    fn dim(&self) -> usize {
        self.d
    }
    fn count(&self) -> u64 {
        self.m
    }
    fn fill(&self, start: u64, out: &mut [f64]) {
        let d = self.d;
        let m = (out.len() / d) as u64;
        assert!(start + m <= self.m, "random net: candidates out of range");
        let bs = CANDIDATE_BLOCK as u64;
        let mut scratch = vec![0.0; d];
        let mut i = start;
        let mut rows = out.chunks_exact_mut(d);
        while i < start + m {
            let b = i / bs;
            let mut rng = self.block_rng(b);
            // Skip to i within block b.
            for _ in b * bs..i {
                self.draw(&mut rng, &mut scratch);
            }
            let end = ((b + 1) * bs).min(start + m);
            while i < end {
                let row = rows.next().expect("enough rows");
                self.draw(&mut rng, row);
                i += 1;
            }
        }
    }
}
