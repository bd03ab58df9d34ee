//! Dense kernels: dot products, axpy, norms, the row-block size of the
//! parallel passes, and small dense symmetric systems. No loss and no privacy: the
//! lowest floor of the crate (the loss-aware gradient / risk passes built on these
//! kernels are in [`crate::loss`]).

use rayon::prelude::*;

/// ⟨a, b⟩ with eight independent accumulators (vectorisable, fixed summation order).
#[inline]
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    let mut acc = [0.0f64; 8];
    let ca = a.chunks_exact(8);
    let cb = b.chunks_exact(8);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    let mut s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}

/// y ← y + α x.
#[inline]
pub fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    debug_assert_eq!(x.len(), y.len());
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += alpha * xi;
    }
}

/// ‖v‖₂.
pub fn norm2(v: &[f64]) -> f64 {
    dot(v, v).sqrt()
}

/// ‖a − b‖₂ (the terms summed in order).
pub fn dist2(a: &[f64], b: &[f64]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

/// ‖v‖₁.
pub fn norm1(v: &[f64]) -> f64 {
    v.iter().map(|x| x.abs()).sum()
}

/// ‖v‖_∞.
pub fn norm_inf(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// Row access as a fit sees the rows, for kernels that serve both a raw row-major
/// slice ([`RawRows`]) and a dataset (`crate::data::Dataset`, read through its lazy
/// standardisation when it has one). A stored row is borrowed in place; a mapped one is written into `scratch`.
pub trait Rows: Sync {
    /// The number of columns d.
    fn width(&self) -> usize;
    /// Row `i` (`scratch` has length d).
    fn get<'a>(&'a self, i: usize, scratch: &'a mut [f64]) -> &'a [f64];
    /// Columns `j0..j1` of row `i` (`scratch` has length at least j1 − j0).
    fn get_span<'a>(&'a self, i: usize, j0: usize, j1: usize, scratch: &'a mut [f64]) -> &'a [f64];
}

/// A raw row-major matrix with `d` columns, read as stored.
#[derive(Debug, Clone, Copy)]
pub struct RawRows<'a> {
    pub x: &'a [f64],
    pub d: usize,
}

impl Rows for RawRows<'_> {
    fn width(&self) -> usize {
        self.d
    }
    #[inline]
    fn get<'a>(&'a self, i: usize, _scratch: &'a mut [f64]) -> &'a [f64] {
        &self.x[i * self.d..(i + 1) * self.d]
    }
    #[inline]
    fn get_span<'a>(&'a self, i: usize, j0: usize, j1: usize, _s: &'a mut [f64]) -> &'a [f64] {
        &self.x[i * self.d + j0..i * self.d + j1]
    }
}

/// Rows per parallel block: about 2 MiB of data per block, at least one row.
pub fn block_rows(d: usize) -> usize {
    ((1usize << 18) / d.max(1)).max(1)
}

// ------------------------------------------------------------ small dense symmetric systems

/// Cholesky factorisation A = L·Lᵀ of a symmetric d×d matrix stored row-major in `a`
/// (full storage; only the lower triangle is read), in place: on success the lower
/// triangle of `a` holds L (the strict upper triangle is left unchanged).
///
/// Row-oriented (Cholesky–Banachiewicz) with the fixed-order [`dot`], so the result is
/// deterministic. A pivot is refused — `Err(j)`, j the 0-based column — when it is not a
/// finite number above d·2⁻⁵²·max_i |A_ii|: the matrix is then not (numerically)
/// positive definite, and `a` is left partly overwritten.
pub fn cholesky_in_place(a: &mut [f64], d: usize) -> Result<(), usize> {
    assert_eq!(a.len(), d * d, "cholesky: a must be d x d");
    let max_diag = (0..d).fold(0.0f64, |m, i| m.max(a[i * d + i].abs()));
    let tol = d as f64 * f64::EPSILON * max_diag;
    for j in 0..d {
        let (prev, cur) = a.split_at_mut(j * d);
        let rj = &mut cur[..d];
        for k in 0..j {
            let rk = &prev[k * d..k * d + d];
            let s = rj[k] - dot(&rj[..k], &rk[..k]);
            rj[k] = s / rk[k];
        }
        let s = rj[j] - dot(&rj[..j], &rj[..j]);
        if !(s.is_finite() && s > tol) {
            return Err(j);
        }
        rj[j] = s.sqrt();
    }
    Ok(())
}

/// Solves L·Lᵀ·x = b in place (`b` becomes x), L the lower triangle of `l` as left by
/// [`cholesky_in_place`].
pub fn cholesky_solve(l: &[f64], d: usize, b: &mut [f64]) {
    assert_eq!(l.len(), d * d);
    assert_eq!(b.len(), d);
    for i in 0..d {
        let s = b[i] - dot(&l[i * d..i * d + i], &b[..i]);
        b[i] = s / l[i * d + i];
    }
    for i in (0..d).rev() {
        let mut s = b[i];
        for k in i + 1..d {
            s -= l[k * d + i] * b[k];
        }
        b[i] = s / l[i * d + i];
    }
}

/// The smallest eigenvalue of a symmetric d×d matrix (row-major, full storage; d ≥ 1):
/// Householder reduction to a symmetric tridiagonal T = QᵀAQ (Golub & Van Loan §8.3.1,
/// without accumulating Q), then bisection on the Sturm count of T − μI (the number of
/// negative pivots of its LDLᵀ, Golub & Van Loan §8.4.1) inside T's Gershgorin interval,
/// to an absolute accuracy of a few ulps of ‖T‖. O(d³) time, one d×d copy.
pub fn symmetric_min_eigenvalue(a: &[f64], d: usize) -> f64 {
    assert!(d >= 1 && a.len() == d * d);
    let (diag, off) = tridiagonalize(a, d);
    tridiagonal_min_eigenvalue(&diag, &off)
}

/// Householder tridiagonalisation of a symmetric matrix: returns T's diagonal (d) and
/// off-diagonal (d − 1) entries.
fn tridiagonalize(a: &[f64], d: usize) -> (Vec<f64>, Vec<f64>) {
    let mut m = a.to_vec();
    let mut off = vec![0.0; d.saturating_sub(1)];
    let mut v = vec![0.0; d];
    let mut p = vec![0.0; d];
    for k in 0..d.saturating_sub(2) {
        // x = column k below the diagonal; H = I − β v vᵀ with v = x + sign(x₁)‖x‖ e₁
        // maps x to −sign(x₁)‖x‖ e₁.
        let len = d - k - 1;
        let v = &mut v[..len];
        for (i, vi) in v.iter_mut().enumerate() {
            *vi = m[(k + 1 + i) * d + k];
        }
        let tail: f64 = v[1..].iter().map(|t| t * t).sum();
        if tail == 0.0 {
            off[k] = v[0];
            continue;
        }
        let alpha = (v[0] * v[0] + tail).sqrt();
        let sign = if v[0] >= 0.0 { 1.0 } else { -1.0 };
        off[k] = -sign * alpha;
        v[0] += sign * alpha;
        let beta = 2.0 / dot(v, v);
        // S ← H S H = S − v wᵀ − w vᵀ on the trailing block S = m[k+1.., k+1..], with
        // p = β S v and w = p − (β vᵀp / 2) v.
        let p = &mut p[..len];
        for (i, pi) in p.iter_mut().enumerate() {
            let row = &m[(k + 1 + i) * d + k + 1..(k + 1 + i) * d + d];
            *pi = beta * dot(row, v);
        }
        let c = beta * dot(v, p) / 2.0;
        for (pi, vi) in p.iter_mut().zip(v.iter()) {
            *pi -= c * vi;
        }
        for i in 0..len {
            let row = &mut m[(k + 1 + i) * d + k + 1..(k + 1 + i) * d + d];
            let (vi, wi) = (v[i], p[i]);
            for ((r, vj), wj) in row.iter_mut().zip(v.iter()).zip(p.iter()) {
                *r -= vi * wj + wi * vj;
            }
        }
    }
    if d >= 2 {
        off[d - 2] = m[(d - 1) * d + d - 2];
    }
    let diag = (0..d).map(|i| m[i * d + i]).collect();
    (diag, off)
}

/// Number of eigenvalues of the symmetric tridiagonal (diag, off) below μ (Sturm count).
fn sturm_count(diag: &[f64], off: &[f64], mu: f64, tiny: f64) -> usize {
    let mut count = 0;
    let mut q = 1.0;
    for i in 0..diag.len() {
        let b2 = if i == 0 { 0.0 } else { off[i - 1] * off[i - 1] };
        q = diag[i] - mu - if i == 0 { 0.0 } else { b2 / q };
        if q == 0.0 {
            q = -tiny;
        }
        if q < 0.0 {
            count += 1;
        }
    }
    count
}

/// The smallest eigenvalue of a symmetric tridiagonal matrix, by bisection.
fn tridiagonal_min_eigenvalue(diag: &[f64], off: &[f64]) -> f64 {
    let n = diag.len();
    let radius = |i: usize| {
        (if i > 0 { off[i - 1].abs() } else { 0.0 }) + (if i + 1 < n { off[i].abs() } else { 0.0 })
    };
    let mut lo = (0..n)
        .map(|i| diag[i] - radius(i))
        .fold(f64::INFINITY, f64::min);
    let mut hi = (0..n)
        .map(|i| diag[i] + radius(i))
        .fold(f64::NEG_INFINITY, f64::max);
    let scale = lo.abs().max(hi.abs());
    if scale == 0.0 {
        return 0.0;
    }
    let tiny = f64::EPSILON * scale * 1e-3 + f64::MIN_POSITIVE;
    // Invariant: no eigenvalue below lo; at least one at or below hi.
    for _ in 0..2100 {
        let mid = lo + (hi - lo) / 2.0;
        if mid <= lo || mid >= hi || hi - lo <= 2.0 * f64::EPSILON * scale {
            break;
        }
        if sturm_count(diag, off, mid, tiny) >= 1 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    lo + (hi - lo) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_matches_naive() {
        let a: Vec<f64> = (0..37).map(|i| (i as f64 * 0.37).sin()).collect();
        let b: Vec<f64> = (0..37).map(|i| (i as f64 * 0.11).cos()).collect();
        let naive: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - naive).abs() < 1e-12);
    }

    /// A = Q·diag(λ)·Qᵀ with Q a product of Householder reflections (known spectrum).
    fn with_spectrum(lams: &[f64], seed: u64) -> Vec<f64> {
        use rand::Rng;
        let d = lams.len();
        let mut rng = crate::noise::rng_from_seed(seed);
        let mut a = vec![0.0; d * d];
        for i in 0..d {
            a[i * d + i] = lams[i];
        }
        for _ in 0..3 {
            let v: Vec<f64> = (0..d).map(|_| rng.random_range(-1.0..1.0)).collect();
            let b = 2.0 / dot(&v, &v);
            // A ← H A H, H = I − b v vᵀ
            let h: Vec<f64> = (0..d * d)
                .map(|k| f64::from(u8::from(k / d == k % d)) - b * v[k / d] * v[k % d])
                .collect();
            let mul = |x: &[f64], y: &[f64]| -> Vec<f64> {
                (0..d * d)
                    .map(|k| (0..d).map(|t| x[(k / d) * d + t] * y[t * d + k % d]).sum())
                    .collect()
            };
            a = mul(&mul(&h, &a), &h);
        }
        a
    }

    #[test]
    fn cholesky_solves_and_refuses_indefinite_matrices() {
        let lams = [0.5, 1.0, 2.0, 3.5, 10.0, 0.7, 4.0];
        let d = lams.len();
        let a = with_spectrum(&lams, 1);
        let x_true: Vec<f64> = (0..d).map(|i| i as f64 - 2.5).collect();
        let mut b: Vec<f64> = (0..d).map(|i| dot(&a[i * d..i * d + d], &x_true)).collect();
        let mut l = a.clone();
        cholesky_in_place(&mut l, d).unwrap();
        // L Lᵀ = A
        for i in 0..d {
            for j in 0..=i {
                let s = dot(&l[i * d..i * d + j + 1], &l[j * d..j * d + j + 1]);
                assert!((s - a[i * d + j]).abs() < 1e-12, "{i} {j}");
            }
        }
        cholesky_solve(&l, d, &mut b);
        for (x, t) in b.iter().zip(&x_true) {
            assert!((x - t).abs() < 1e-12, "{x} vs {t}");
        }
        // Indefinite, singular and NaN matrices are refused.
        let mut bad = with_spectrum(&[1.0, -0.1, 2.0], 2);
        assert!(cholesky_in_place(&mut bad, 3).is_err());
        let mut sing = vec![1.0, 1.0, 1.0, 1.0];
        assert_eq!(cholesky_in_place(&mut sing, 2), Err(1));
        let mut nan = vec![f64::NAN, 0.0, 0.0, 1.0];
        assert_eq!(cholesky_in_place(&mut nan, 2), Err(0));
    }

    #[test]
    fn min_eigenvalue_matches_the_known_spectrum() {
        for (lams, seed) in [
            (vec![3.0], 1),
            (vec![2.0, -1.0], 2),
            (vec![0.5, 1.0, 2.0, 3.5, 10.0, 0.7, 4.0], 3),
            (
                vec![1e-3, 5.0, 5.0, 5.0, 7.0, 1e3, 2.0, 9.0, 0.2, 6.0, 8.0],
                4,
            ),
            (vec![-4.0, 0.0, 0.0, 3.0, 1.0], 5),
        ] {
            let d = lams.len();
            let a = with_spectrum(&lams, seed);
            let want = lams.iter().cloned().fold(f64::INFINITY, f64::min);
            let got = symmetric_min_eigenvalue(&a, d);
            let scale = lams.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            assert!((got - want).abs() < 1e-12 * scale, "{got} vs {want}");
        }
        // A rank-one Gram matrix x xᵀ has smallest eigenvalue 0; zero matrix → 0.
        let x = [1.0, -2.0, 0.5];
        let g: Vec<f64> = (0..9).map(|k| x[k / 3] * x[k % 3]).collect();
        assert!(symmetric_min_eigenvalue(&g, 3).abs() < 1e-14);
        assert_eq!(symmetric_min_eigenvalue(&[0.0; 4], 2), 0.0);
    }
}

// ------------------------------------------- second moments (sufficient statistics)

/// Column tile of [`gram_matrix_clipped`]: 64 columns (a 64 × 64 accumulator is 32 KiB).
const GRAM_TILE: usize = 64;

/// XᵀX/n for row-major x (n × d), every entry read clipped to [−B, B] (`bound = ∞`: no
/// clipping) — without a clipped copy of x. Computed in 64 × 64 tiles of the upper
/// triangle, each tile one parallel task that sums the rows in order (four at a time), so
/// the result does not depend on the thread count. Clipping an entry is exact, so the
/// result is bit-for-bit the Gram matrix of the clipped copy.
pub fn gram_matrix_clipped(x: &[f64], n: usize, d: usize, bound: f64) -> Vec<f64> {
    debug_assert_eq!(x.len(), n * d);
    gram_matrix_clipped_of(&RawRows { x, d }, n, bound)
}

/// [`gram_matrix_clipped`] of the first `n` rows of any [`Rows`] (a dataset is read
/// through its lazy standardisation when it has one: the same values, the same sums).
pub fn gram_matrix_clipped_of<R: Rows + ?Sized>(x: &R, n: usize, bound: f64) -> Vec<f64> {
    const T: usize = GRAM_TILE;
    let d = x.width();
    let nb = d.div_ceil(T);
    let tiles: Vec<(usize, usize)> = (0..nb).flat_map(|a| (a..nb).map(move |b| (a, b))).collect();
    let clip = |v: f64| v.clamp(-bound, bound);
    let blocks: Vec<Vec<f64>> = tiles
        .par_iter()
        .map(|&(a, b)| {
            let (j0, j1) = (a * T, ((a + 1) * T).min(d));
            let (k0, k1) = (b * T, ((b + 1) * T).min(d));
            let (h, w) = (j1 - j0, k1 - k0);
            let mut acc = vec![0.0; h * w];
            // The four rows' clipped tile columns j and k, copied once per four rows.
            let (mut cj, mut ck) = ([[0.0f64; T]; 4], [[0.0f64; T]; 4]);
            let mut scratch = [0.0f64; T];
            let quads = n / 4;
            for q in 0..quads {
                for r in 0..4 {
                    let i = 4 * q + r;
                    let span = x.get_span(i, j0, j1, &mut scratch);
                    for (c, v) in cj[r][..h].iter_mut().zip(span) {
                        *c = clip(*v);
                    }
                    let span = x.get_span(i, k0, k1, &mut scratch);
                    for (c, v) in ck[r][..w].iter_mut().zip(span) {
                        *c = clip(*v);
                    }
                }
                let (k_0, k_1, k_2, k_3) = (&ck[0][..w], &ck[1][..w], &ck[2][..w], &ck[3][..w]);
                for jj in 0..h {
                    let (a0, a1, a2, a3) = (cj[0][jj], cj[1][jj], cj[2][jj], cj[3][jj]);
                    let out = &mut acc[jj * w..(jj + 1) * w];
                    for ((((o, b0), b1), b2), b3) in
                        out.iter_mut().zip(k_0).zip(k_1).zip(k_2).zip(k_3)
                    {
                        *o += (a0 * b0 + a1 * b1) + (a2 * b2 + a3 * b3);
                    }
                }
            }
            for i in 4 * quads..n {
                let span = x.get_span(i, k0, k1, &mut scratch);
                for (c, v) in ck[0][..w].iter_mut().zip(span) {
                    *c = clip(*v);
                }
                let span = x.get_span(i, j0, j1, &mut scratch);
                for (c, v) in cj[0][..h].iter_mut().zip(span) {
                    *c = clip(*v);
                }
                for jj in 0..h {
                    axpy(cj[0][jj], &ck[0][..w], &mut acc[jj * w..(jj + 1) * w]);
                }
            }
            acc
        })
        .collect();
    let inv = 1.0 / n as f64;
    let mut g = vec![0.0; d * d];
    for (&(a, b), acc) in tiles.iter().zip(&blocks) {
        let (j0, j1) = (a * T, ((a + 1) * T).min(d));
        let (k0, k1) = (b * T, ((b + 1) * T).min(d));
        let w = k1 - k0;
        for j in j0..j1 {
            for k in k0..k1 {
                let v = acc[(j - j0) * w + (k - k0)] * inv;
                g[j * d + k] = v;
                g[k * d + j] = v;
            }
        }
    }
    g
}

/// Xᵀy/n for row-major x (n × d) and y, x's entries read clipped to [−`bound_x`, `bound_x`]
/// and y's to [−`bound_y`, `bound_y`] (∞: no clipping), without a clipped copy. Parallel
/// over the fixed row blocks of [`block_rows`], partial sums added in block order — the
/// order of the gradient passes of [`crate::loss`], so −2·(the result) is bit-for-bit the
/// squared-loss mean gradient at w = 0 of the clipped data.
pub fn moment_vector_clipped(
    x: &[f64],
    y: &[f64],
    d: usize,
    bound_x: f64,
    bound_y: f64,
) -> Vec<f64> {
    debug_assert_eq!(x.len(), y.len() * d);
    moment_vector_clipped_of(&RawRows { x, d }, y, bound_x, bound_y)
}

/// [`moment_vector_clipped`] of any [`Rows`] (a dataset is read through its lazy
/// standardisation when it has one).
pub fn moment_vector_clipped_of<R: Rows + ?Sized>(
    x: &R,
    y: &[f64],
    bound_x: f64,
    bound_y: f64,
) -> Vec<f64> {
    let (m, d) = (y.len(), x.width());
    let mut out = vec![0.0; d];
    if m == 0 {
        return out;
    }
    let br = block_rows(d);
    let partials: Vec<Vec<f64>> = y
        .par_chunks(br)
        .enumerate()
        .map(|(b, yb)| {
            let mut acc = vec![0.0; d];
            let mut scratch = vec![0.0; d];
            for (k, &yi) in yb.iter().enumerate() {
                let r = yi.clamp(-bound_y, bound_y);
                if r != 0.0 {
                    let row = x.get(b * br + k, &mut scratch);
                    for (a, v) in acc.iter_mut().zip(row) {
                        *a += r * v.clamp(-bound_x, bound_x);
                    }
                }
            }
            acc
        })
        .collect();
    for p in &partials {
        for (o, pi) in out.iter_mut().zip(p) {
            *o += pi;
        }
    }
    let inv = 1.0 / m as f64;
    out.iter_mut().for_each(|o| *o *= inv);
    out
}

/// The second moments G = X̃ᵀX̃/n (d × d, row-major, symmetric) and c = X̃ᵀỹ/n of the rows
/// clipped coordinate-wise (x̃ at `bound_x`, ỹ at `bound_y`; ∞ = no clipping), built in one
/// O(nd²) pass over the data without a clipped copy. They are the sufficient statistics of
/// any quadratic in the data: (1/n)Σ(⟨x̃_i, w⟩ − ỹ_i)² = wᵀGw − 2cᵀw + const, whose
/// gradient 2(Gw − c) ([`SecondMoments::quadratic_gradient`]) is then O(d²) per point, or
/// O(d) per sparse move with [`SecondMoments::mix_toward`].
#[derive(Debug, Clone, PartialEq)]
pub struct SecondMoments {
    pub d: usize,
    /// G, row-major.
    pub gram: Vec<f64>,
    /// c.
    pub xty: Vec<f64>,
}

impl SecondMoments {
    /// G and c of the clipped rows of (x, y) (see the type's docs).
    pub fn new(x: &[f64], y: &[f64], d: usize, bound_x: f64, bound_y: f64) -> Self {
        debug_assert_eq!(x.len(), y.len() * d);
        Self::of(&RawRows { x, d }, y, bound_x, bound_y)
    }

    /// [`SecondMoments::new`] of any [`Rows`] (a dataset is read through its lazy
    /// standardisation when it has one).
    pub fn of<R: Rows + ?Sized>(x: &R, y: &[f64], bound_x: f64, bound_y: f64) -> Self {
        SecondMoments {
            d: x.width(),
            gram: gram_matrix_clipped_of(x, y.len(), bound_x),
            xty: moment_vector_clipped_of(x, y, bound_x, bound_y),
        }
    }

    /// out = G·w (fixed-order [`dot`] per row; rows in parallel when d ≥ 256).
    pub fn gram_times(&self, w: &[f64], out: &mut [f64]) {
        let d = self.d;
        let row = |(o, gj): (&mut f64, &[f64])| *o = dot(gj, w);
        if d >= 256 {
            out.par_iter_mut()
                .zip(self.gram.par_chunks(d))
                .for_each(row);
        } else {
            out.iter_mut().zip(self.gram.chunks(d)).for_each(row);
        }
    }

    /// gw ← (1 − μ)·gw + μ·G·v: keeps gw = G·w through the move w ← (1 − μ)w + μv. O(d)
    /// per nonzero of v (a vertex ±R e_j of an ℓ1 ball or e_j of the simplex: O(d)).
    pub fn mix_toward(&self, gw: &mut [f64], v: &[f64], mu: f64) {
        let d = self.d;
        gw.iter_mut().for_each(|g| *g *= 1.0 - mu);
        for (k, &vk) in v.iter().enumerate() {
            if vk != 0.0 {
                // G is symmetric: row k is column k.
                axpy(mu * vk, &self.gram[k * d..(k + 1) * d], gw);
            }
        }
    }

    /// grad = 2(gw − c), the gradient of wᵀGw − 2cᵀw given gw = G·w.
    pub fn quadratic_gradient(&self, gw: &[f64], grad: &mut [f64]) {
        for ((g, a), c) in grad.iter_mut().zip(gw).zip(&self.xty) {
            *g = 2.0 * (a - c);
        }
    }
}

#[cfg(test)]
mod moment_tests {
    use super::*;
    use rand::Rng;

    fn sample(n: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
        let mut rng = crate::noise::rng_from_seed(seed);
        let x = (0..n * d).map(|_| rng.random_range(-2.0..2.0)).collect();
        let y = (0..n).map(|_| rng.random_range(-3.0..3.0)).collect();
        (x, y)
    }

    #[test]
    fn clipped_moments_equal_the_moments_of_a_clipped_copy_bit_for_bit() {
        // d = 70: two 64-wide tiles; n = 4003: quads and a remainder; several row blocks.
        for (n, d) in [(4003, 70), (57, 3), (9, 1)] {
            let (x, y) = sample(n, d, n as u64);
            let (bx, by) = (1.1, 1.7);
            let xc: Vec<f64> = x.iter().map(|v| v.clamp(-bx, bx)).collect();
            let yc: Vec<f64> = y.iter().map(|v| v.clamp(-by, by)).collect();
            let m = SecondMoments::new(&x, &y, d, bx, by);
            let copy = SecondMoments::new(&xc, &yc, d, f64::INFINITY, f64::INFINITY);
            assert_eq!(m, copy);
            // Naive sums on the clipped copy (independent of the tiling).
            for j in 0..d {
                for k in 0..d {
                    let naive: f64 =
                        (0..n).map(|i| xc[i * d + j] * xc[i * d + k]).sum::<f64>() / n as f64;
                    assert!((m.gram[j * d + k] - naive).abs() < 1e-13, "({j},{k})");
                }
                let naive: f64 = (0..n).map(|i| xc[i * d + j] * yc[i]).sum::<f64>() / n as f64;
                assert!((m.xty[j] - naive).abs() < 1e-13);
            }
            // c = -1/2 x the squared-loss gradient pass at w = 0, bit for bit (same order).
            let mut g0 = vec![0.0; d];
            let sq = crate::loss::LossKind::Squared;
            let mut ws = crate::loss::GradientWorkspace::new();
            crate::loss::mean_gradient(&sq, &xc, &yc, d, &vec![0.0; d], &mut g0, &mut ws);
            let c: Vec<f64> = g0.iter().map(|g| -0.5 * g).collect();
            assert_eq!(m.xty, c);
        }
    }

    #[test]
    fn quadratic_gradient_and_vertex_updates_match_the_gradient_pass() {
        let (n, d) = (3001, 9);
        let (x, y) = sample(n, d, 4);
        let m = SecondMoments::new(&x, &y, d, 1.0, 1.0);
        let xc: Vec<f64> = x.iter().map(|v| v.clamp(-1.0, 1.0)).collect();
        let yc: Vec<f64> = y.iter().map(|v| v.clamp(-1.0, 1.0)).collect();
        let mut w = vec![0.0; d];
        let mut gw = vec![0.0; d];
        let (mut g, mut pass) = (vec![0.0; d], vec![0.0; d]);
        let mut ws = crate::loss::GradientWorkspace::new();
        let mut v = vec![0.0; d];
        for t in 1..200usize {
            // A vertex ±0.8 e_j move, tracked in O(d).
            let (j, s) = (t * 7 % d, if t % 3 == 0 { -0.8 } else { 0.8 });
            let mu = 2.0 / (t as f64 + 1.0);
            w.iter_mut().for_each(|wi| *wi *= 1.0 - mu);
            w[j] += mu * s;
            v.iter_mut().for_each(|vi| *vi = 0.0);
            v[j] = s;
            m.mix_toward(&mut gw, &v, mu);
            m.quadratic_gradient(&gw, &mut g);
            let sq = crate::loss::LossKind::Squared;
            crate::loss::mean_gradient(&sq, &xc, &yc, d, &w, &mut pass, &mut ws);
            for (a, b) in g.iter().zip(&pass) {
                assert!((a - b).abs() < 1e-12, "t = {t}: {a} vs {b}");
            }
        }
        // gram_times agrees with the tracked product.
        let mut direct = vec![0.0; d];
        m.gram_times(&w, &mut direct);
        for (a, b) in direct.iter().zip(&gw) {
            assert!((a - b).abs() < 1e-13);
        }
    }
}
