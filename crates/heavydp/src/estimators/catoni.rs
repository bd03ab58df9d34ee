//! Catoni–Giulini smoothed-truncation estimator: the robust coordinate-wise mean and
//! the robust gradient of Hu, Ni, Xiao & Wang, *High Dimensional Differentially
//! Private Stochastic Optimization with Heavy-tailed Data*, eqs. (1)–(5) and the
//! appendix formula for C^. Spec: `spec/hu2021-high-dim-heavy-tailed.md` §A (A.1–A.5)
//! and ambiguities H2–H4.
//!
//! # Estimator
//!
//! ```text
//! φ(x) = x − x³/6 on [−√2, √2],  ±2√2/3 outside                          (eq. 2)
//! x̂(s, β) = (s/m) Σ_i E_{η∼N(0,1/β)} φ(x_i(1 + η)/s)                       (eq. 4)
//!         = (s/m) Σ_i Ψ(x_i/s, |x_i|/(s√β)),   Ψ(a, b) = E_{Z∼N(0,1)} φ(a + bZ)   (eq. 5, H2)
//! RG(w, chunk; s, β)_j = (s/m) Σ_{z ∈ chunk} Ψ(∇_jℓ(w,z)/s, |∇_jℓ(w,z)|/(s√β))   (A.4)
//! ```
//!
//! η ∼ N(0, 1/β) has *variance* 1/β (H2). For a linear model ∇_jℓ(w, z_i) = r_i x_ij with
//! r_i = f'(⟨x_i, w⟩, y_i) ([`crate::loss::Loss::derivative`]), so
//! [`CatoniGiulini::gradient_with`] computes one scalar per row and then d values of Ψ.
//!
//! # Privacy role
//!
//! The estimator is not private by itself; callers add noise calibrated to its
//! sensitivity (Algorithm 1: exponential mechanism; the `catoni` mean of spec A.5:
//! Laplace). Each sample contributes (s/m)·Ψ, so replacing one sample of a chunk of
//! m moves every coordinate by at most 2·(2√2/3)·s/m = **4√2·s/(3m)**
//! ([`CatoniGiulini::sensitivity_inf`], spec A.3). That bound holds because **every Ψ
//! this module returns is clamped to [−2√2/3, 2√2/3], with NaN mapped to 0**, whatever
//! the data (NaN, ±∞, 10³⁰⁰) and whichever evaluation route is taken. Unclamped, the
//! printed closed form gives −128 at a = b = 10⁶ (spec A.2), which would void the DP
//! guarantee; a NaN would make a released score a deterministic function of one record.
//! (The bound is exact in real arithmetic; the floating-point sums can exceed it by a
//! few units in the last place, the usual floating-point caveat of continuous mechanisms.)
//!
//! # Numerics (spec A.2, H4)
//!
//! | region | evaluation of Ψ(a, b) | error (vs 80-digit reference) |
//! |---|---|---|
//! | NaN in a or b | 0 | — |
//! | b < 10⁻⁶ (b = 0 included) | φ(a) | ≤ b²/√2 < 10⁻¹² |
//! | max(\|a\|, b) ≤ 4 | closed form a(1 − b²/2) − a³/6 + C^(a, b), T1..T5 of A.1 | ≤ 2·10⁻¹⁴ |
//! | otherwise | (2√2/3)(Φ((a−√2)/b) − Φ((−√2−a)/b)) + ∫_{−√2}^{√2}(x − x³/6) N(x; a, b²) dx, 64-node Gauss–Legendre on [−√2, √2] ∩ [a − 12b, a + 12b] | ≤ 3·10⁻¹⁶ |
//!
//! **Deviation from spec A.2:** the spec uses the closed form up to max(|a|, b) = 100.
//! Its cancellation error grows like max(|a|, b)³·2⁻⁵³ and reaches ≈ 3·10⁻¹⁰ near 100
//! (1.3·10⁻¹⁰ already at 64, measured against 80-digit arithmetic); the split form is accurate to 3·10⁻¹⁶ on every point with
//! max(|a|, b) ≥ 2 (its window is then at most ≈ 10 standard deviations wide), so the
//! switch is made at 4. Both are the same mathematical function; only rounding differs.
//!
//! Φ tails use `libm::erfc`. Ψ is computed for |a| and given the sign of a, so it is
//! exactly odd.
//!
//! **Fast path.** Along the ray b = |a|/√β that the estimator uses, Ψ is a univariate odd
//! function ψ_β(a). For β ∈ [10⁻³, 10³] it is tabulated once per β (≈ 1 ms; cached, at
//! most [`TABLE_CACHE_SIZE`] values of β) from the exact evaluation: degree-7 Chebyshev
//! interpolants on 16 pieces per octave of |a| (a piece is found from the exponent and
//! top mantissa bits, no search), the cubic t − t³(1 + 3/β)/6 below the first piece
//! (where ±√2 are ≥ 10 noise standard deviations away), and the expansion L + g₂/a²
//! (L = (2√2/3)(2Φ(√β) − 1), g₂ = −(4√2/15)·β^{3/2}·pdf(√β)) above 2²⁴. The test
//! `fast_path_matches_exact_everywhere` sweeps |a| from 10⁻³²⁰ to 10³⁰⁸ (dense on
//! [10⁻⁵, 10⁹], plus every piece boundary, 0, subnormals, ±∞ and NaN) for ten β across
//! the range and requires agreement with the exact route to 10⁻¹⁰; the observed maximum
//! is 2.4·10⁻¹¹ at β = 10³, 2.2·10⁻¹³ at β = 100 and ≤ 2·10⁻¹⁴ for β ≤ 10. The output is
//! clamped like every other route. It is ≈ 20× faster than the exact route (see
//! `crates/heavydp-bench/benches/robust_gradient.rs`). Other β use the exact route.
//!
//! All transcendental functions come from the pure-Rust `libm`, so Ψ does not depend on
//! the platform's maths library.
//!
//! # Parameters
//!
//! | name | symbol | meaning | range | typical value (set by the caller) |
//! |---|---|---|---|---|
//! | `scale` | s | truncation scale: a sample with \|x\| ≫ s contributes ≈ ±(2√2/3)·s·(2Φ(√β) − 1)/m; larger s means less bias but a larger sensitivity 4√2s/(3m) | finite, > 0 | Alg. 1: √(nετ/(T ln(\|V\|dT/ζ))); `catoni` mean (A.5): √(3nετ(1 + 1/β)/(8√2 d)) |
//! | `beta` | β | precision of the multiplicative noise η ∼ N(0, 1/β) | finite, > 0 | 1 (spec H19) |
//!
//! Error (Lemma 4): if E x² ≤ τ then with probability ≥ 1 − ζ,
//! |x̂(s, β) − E x| ≤ (τ/(2s))(1/β + 1) + (s/m)(β/2 + ln(2/ζ)).
//!
//! # Determinism and performance
//!
//! The passes run in parallel (rayon) over fixed blocks of `rows` of
//! [`crate::linalg::block_rows`]`(d)` rows, each block summing into its own partial;
//! partials are added in block order. The block size depends only on d, so results are
//! bit-identical for any thread count. The `_with` variants reuse a [`RobustWorkspace`]
//! and allocate nothing after the first call. With the table, each row is evaluated in
//! blocks of 64 values (`PsiTable::accumulate`: branch-free argument/piece/cubic and
//! select/clamp/sum loops around the table lookups), the same values bit for bit as the
//! per-value path but without its data-dependent branch (before/after
//! figures in `docs/performance.md`).
//!
//! # Example
//!
//! ```
//! use heavydp::estimators::catoni::{CatoniGiulini, PHI_BOUND};
//! // Two columns; the second has one gross outlier.
//! let x = vec![1.0, 1.0, 1.2, 1.1, 0.8, 0.9, 1.0, 1e12];
//! let est = CatoniGiulini::new(10.0, 1.0).unwrap();
//! let mut mean = vec![0.0; 2];
//! est.column_means(&x, 2, &[0, 1, 2, 3], &mut mean);
//! assert!((mean[0] - 1.0).abs() < 0.1);
//! // The outlier moves its column by at most (s/m)·2√2/3.
//! assert!(mean[1] < 1.0 + 10.0 / 4.0 * PHI_BOUND);
//! assert_eq!(est.sensitivity_inf(4), 4.0 * std::f64::consts::SQRT_2 * 10.0 / 12.0);
//! ```

use super::EstimatorError;
use crate::linalg::{block_rows, dot, RawRows, Rows};
use crate::loss::Loss;
use rayon::prelude::*;
use std::f64::consts::{PI, SQRT_2};
use std::sync::{Arc, Mutex, OnceLock};

/// 2√2/3 ≈ 0.942809: the bound of |φ| and therefore of every Ψ this module returns.
pub const PHI_BOUND: f64 = 0.942_809_041_582_063_4;

/// β values whose ψ_β table is kept (least recently built is dropped first).
pub const TABLE_CACHE_SIZE: usize = 8;

/// Smallest β served by the table (fast path).
const TABLE_BETA_MIN: f64 = 1e-3;
/// Largest β served by the table (fast path).
const TABLE_BETA_MAX: f64 = 1e3;

/// 1/√(2π).
const INV_SQRT_2PI: f64 = 0.398_942_280_401_432_7;
/// Below this noise width b, Ψ(a, b) = φ(a) (spec A.2 item 3).
const B_TINY: f64 = 1e-6;
/// Largest max(|a|, b) evaluated by the printed closed form (see the module docs).
const CLOSED_FORM_MAX: f64 = 4.0;
/// Half-width, in standard deviations, of the Gauss–Legendre window of the split form.
const SPLIT_WINDOW_SD: f64 = 12.0;
/// Nodes of the Gauss–Legendre rule of the split form.
const GL_NODES: usize = 64;

/// Soft truncation φ of eq. (2): x − x³/6 on [−√2, √2], ±2√2/3 outside.
///
/// Odd, non-decreasing, 1-Lipschitz, |φ| ≤ [`PHI_BOUND`]. NaN maps to 0 (the module's
/// NaN rule, see [`psi`]).
#[inline]
pub fn phi(x: f64) -> f64 {
    if x > SQRT_2 {
        PHI_BOUND
    } else if x < -SQRT_2 {
        -PHI_BOUND
    } else if x.is_nan() {
        0.0
    } else {
        clamp_psi(x - x * x * x / 6.0)
    }
}

/// NaN → 0, then clamp to [−2√2/3, 2√2/3] (spec A.2 item 1; `f64::clamp` keeps NaN).
#[inline(always)]
fn clamp_psi(v: f64) -> f64 {
    if v.is_nan() {
        0.0
    } else {
        v.clamp(-PHI_BOUND, PHI_BOUND)
    }
}

/// Standard normal CDF Φ(x) = erfc(−x/√2)/2 (accurate in both tails).
#[inline]
fn normal_cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x / SQRT_2)
}

/// Ψ(a, b) = E φ(a + bZ), Z ∼ N(0, 1): the expected soft truncation under Gaussian
/// noise (eq. (5) and its appendix; spec A.1–A.2).
///
/// Evaluation as in the module's numerics table: φ(a) for b < 10⁻⁶, the printed closed
/// form for max(|a|, b) ≤ 4, the split form with 64-node Gauss–Legendre otherwise. The
/// value is computed for |a| and given the sign of a, so Ψ(−a, b) = −Ψ(a, b) exactly.
///
/// Ψ is even in b (only |b| is used). Non-finite inputs: NaN in either argument gives
/// 0; a = ±∞ with finite b gives ±2√2/3; finite a with b = ∞ gives 0 (the limit);
/// a = ±∞ with b = ∞ is undefined and gives 0. The result is always finite and in
/// [−[`PHI_BOUND`], [`PHI_BOUND`]]: the clamp is what the privacy proof relies on.
pub fn psi(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        return 0.0;
    }
    let t = a.abs();
    let b = b.abs();
    let v = if t == f64::INFINITY {
        if b == f64::INFINITY {
            0.0
        } else {
            PHI_BOUND
        }
    } else if b < B_TINY {
        phi(t)
    } else if b == f64::INFINITY {
        0.0
    } else if t <= CLOSED_FORM_MAX && b <= CLOSED_FORM_MAX {
        psi_closed_form(t, b)
    } else {
        psi_split(t, b)
    };
    clamp_psi(v).copysign(a)
}

/// The printed closed form, T1..T5 of spec A.1 (for b ≥ 10⁻⁶ and moderate |a|, b).
fn psi_closed_form(a: f64, b: f64) -> f64 {
    let vm = (SQRT_2 - a) / b;
    let vp = (SQRT_2 + a) / b;
    let fm = 0.5 * libm::erfc(vm / SQRT_2);
    let fp = 0.5 * libm::erfc(vp / SQRT_2);
    let em = libm::exp(-0.5 * vm * vm);
    let ep = libm::exp(-0.5 * vp * vp);
    let a2 = a * a;
    let a3 = a2 * a;
    let b2 = b * b;
    let t1 = PHI_BOUND * (fm - fp);
    let t2 = -(a - a3 / 6.0) * (fm + fp);
    let t3 = b * INV_SQRT_2PI * (1.0 - a2 / 2.0) * (ep - em);
    let t4 = 0.5 * a * b2 * (fp + fm + (vp * ep + vm * em) * INV_SQRT_2PI);
    let t5 = b2 * b / 6.0 * INV_SQRT_2PI * ((2.0 + vm * vm) * em - (2.0 + vp * vp) * ep);
    a * (1.0 - b2 / 2.0) - a3 / 6.0 + (t1 + t2 + t3 + t4 + t5)
}

/// Gauss–Legendre nodes and weights on [−1, 1] (Newton iteration on P₆₄).
fn gauss_legendre() -> &'static ([f64; GL_NODES], [f64; GL_NODES]) {
    static RULE: OnceLock<([f64; GL_NODES], [f64; GL_NODES])> = OnceLock::new();
    RULE.get_or_init(|| {
        let n = GL_NODES;
        let mut x = [0.0; GL_NODES];
        let mut w = [0.0; GL_NODES];
        for i in 0..n.div_ceil(2) {
            let mut z = libm::cos(PI * (i as f64 + 0.75) / (n as f64 + 0.5));
            let mut dp = 1.0;
            for _ in 0..100 {
                let (mut p1, mut p2) = (1.0f64, 0.0f64);
                for j in 1..=n {
                    let p3 = p2;
                    p2 = p1;
                    p1 = ((2 * j - 1) as f64 * z * p2 - (j - 1) as f64 * p3) / j as f64;
                }
                dp = n as f64 * (z * p1 - p2) / (z * z - 1.0);
                let z_old = z;
                z = z_old - p1 / dp;
                if (z - z_old).abs() <= 1e-16 {
                    break;
                }
            }
            x[i] = -z;
            x[n - 1 - i] = z;
            w[i] = 2.0 / ((1.0 - z * z) * dp * dp);
            w[n - 1 - i] = w[i];
        }
        (x, w)
    })
}

/// The split form of spec A.2 item 2 (never forms a³).
fn psi_split(a: f64, b: f64) -> f64 {
    let tails = PHI_BOUND * (normal_cdf((a - SQRT_2) / b) - normal_cdf((-SQRT_2 - a) / b));
    let lo = (-SQRT_2).max(a - SPLIT_WINDOW_SD * b);
    let hi = SQRT_2.min(a + SPLIT_WINDOW_SD * b);
    if lo >= hi || lo.is_nan() || hi.is_nan() {
        return tails;
    }
    let (nodes, weights) = gauss_legendre();
    let half = 0.5 * (hi - lo);
    let mid = 0.5 * (hi + lo);
    let mut sum = 0.0;
    for (&xi, &wi) in nodes.iter().zip(weights) {
        let x = mid + half * xi;
        let z = (x - a) / b;
        sum += wi * (x - x * x * x / 6.0) * libm::exp(-0.5 * z * z);
    }
    tails + sum * half * INV_SQRT_2PI / b
}

/// lim_{a→∞} Ψ(a, a/√β) = (2√2/3)(2Φ(√β) − 1) = (2√2/3)·erf(√(β/2)).
#[inline]
fn infinite_limit(beta: f64) -> f64 {
    clamp_psi(PHI_BOUND * libm::erf((0.5 * beta).sqrt()))
}

/// Per-sample robust contribution of a gradient coordinate g: Ψ(g/s, |g|/(s√β)).
///
/// NaN g gives 0; g = ±∞ (or g/s or |g|/(s√β) overflowing) gives
/// ±(2√2/3)(2Φ(√β) − 1), the exact limit as |g| → ∞. The result is always finite and in [−[`PHI_BOUND`], [`PHI_BOUND`]]
/// (also for invalid `scale` or `beta`, which give 0).
pub fn psi_gradient(g: f64, scale: f64, beta: f64) -> f64 {
    if g.is_nan() {
        return 0.0;
    }
    let a = g / scale;
    let b = a.abs() / beta.sqrt();
    if a.is_infinite() || b.is_infinite() {
        // |g/s| → ∞ along the ray b = |a|/√β (also when only b overflows).
        return infinite_limit(beta).copysign(a);
    }
    psi(a, b)
}

// ---------------------------------------------------------------------------------
// Fast univariate path ψ_β(a) = Ψ(a, |a|/√β).

/// log₂ of the number of table pieces per octave of |a|.
const PIECE_BITS: u32 = 4;
/// Polynomial coefficients per piece (degree + 1).
const NCOEF: usize = 8;
/// Pieces cover |a| < 2^E_HI; above, the expansion L + g₂/a² is used (error O(a⁻³)).
const E_HI: i32 = 24;
/// Elements per block of [`PsiTable::accumulate`].
const LANES: usize = 64;
/// Shift that turns the bits of a positive double into (exponent, top PIECE_BITS
/// mantissa bits): monotone piece keys.
const KEY_SHIFT: u32 = 52 - PIECE_BITS;

/// One piece's polynomial: monomial coefficients in x = (t − center)/half ∈ [−1, 1], in
/// the order of [`estrin_layout`].
///
/// Aligned to a cache line (64 bytes = the 8 coefficients), so an evaluation touches
/// one line; the centre and half-width are not stored but derived from the piece key
/// ([`piece_geometry`]), exactly.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
struct Piece {
    coef: [f64; NCOEF],
}

/// Centre and 1/half-width of the piece with key `key` (exponent bits and top
/// [`PIECE_BITS`] mantissa bits of a positive double, see [`KEY_SHIFT`]).
///
/// The piece with exponent e and sub-octave j is [2^e(1 + j/16), 2^e(1 + (j+1)/16)]: its
/// centre 2^e(1 + (2j+1)/32) is the key's bits followed by a single 1 bit, and
/// 1/half = 2^{5−e} is a power of two. Both are exact, so they equal bit for bit the
/// values `0.5·(lo + hi)` and `1/(0.5·(hi − lo))` the table is built from (checked in
/// [`PsiTable::new`] and by the test `piece_geometry_is_exact`).
#[inline(always)]
fn piece_geometry(key: u64) -> (f64, f64) {
    let center = f64::from_bits((key << KEY_SHIFT) | (1u64 << (KEY_SHIFT - 1)));
    // Biased exponent of 2^{(PIECE_BITS + 1) − e} with e = (key >> PIECE_BITS) − 1023.
    let inv_half_exp = 2 * 1023 + u64::from(PIECE_BITS) + 1 - (key >> PIECE_BITS);
    (center, f64::from_bits(inv_half_exp << 52))
}

/// Piecewise-polynomial table of ψ_β on dyadic sub-octaves of |a|.
#[derive(Debug)]
struct PsiTable {
    beta: f64,
    base_key: u64,
    pieces: Vec<Piece>,
    t_lo: f64,
    cubic: f64,
    limit: f64,
    g2: f64,
}

impl PsiTable {
    fn new(beta: f64) -> Self {
        let c = 1.0 / beta.sqrt();
        // Below t_lo the points ±√2 are ≥ 10 noise standard deviations away from t:
        // ψ_β(t) = E[tY − (tY)³/6] = t − t³(1 + 3/β)/6 up to ≈ 1e−22 (Y ∼ N(1, 1/β)).
        let e_lo = libm::floor(libm::log2(SQRT_2 / (1.0 + 10.0 * c))).max(-1000.0) as i32;
        let t_lo = 2f64.powi(e_lo);
        let base_key = t_lo.to_bits() >> KEY_SHIFT;
        let k = 1usize << PIECE_BITS;
        let nodes: Vec<f64> = (0..NCOEF)
            .map(|i| libm::cos(PI * (i as f64 + 0.5) / NCOEF as f64))
            .collect();
        let mut pieces = Vec::with_capacity((E_HI - e_lo) as usize * k);
        for e in e_lo..E_HI {
            let octave = 2f64.powi(e);
            for j in 0..k {
                let lo = octave * (1.0 + j as f64 / k as f64);
                let hi = octave * (1.0 + (j + 1) as f64 / k as f64);
                let center = 0.5 * (lo + hi);
                let half = 0.5 * (hi - lo);
                let values: Vec<f64> = nodes
                    .iter()
                    .map(|&x| {
                        let t = center + half * x;
                        psi(t, t * c)
                    })
                    .collect();
                let key = base_key + pieces.len() as u64;
                assert_eq!(
                    piece_geometry(key),
                    (center, 1.0 / half),
                    "piece geometry must be exact"
                );
                pieces.push(Piece {
                    coef: estrin_layout(chebyshev_to_monomial(&chebyshev_coefficients(&values))),
                });
            }
        }
        // g(u) = ψ_β(1/u) is entire in u with g(0) = L, g'(0) = 0 and
        // g''(0) = −(8√2/15)·p'(0), p the N(1, 1/β) density: p'(0) = β^{3/2}·pdf(√β).
        let p0_prime = beta * beta.sqrt() * INV_SQRT_2PI * libm::exp(-0.5 * beta);
        PsiTable {
            beta,
            base_key,
            pieces,
            t_lo,
            cubic: (1.0 + 3.0 / beta) / 6.0,
            limit: infinite_limit(beta),
            g2: -(4.0 * SQRT_2 / 15.0) * p0_prime,
        }
    }

    /// ψ_β(a) for one argument (the reference for [`PsiTable::accumulate`], which gives
    /// the same value bit for bit).
    #[inline(always)]
    fn eval(&self, a: f64) -> f64 {
        let t = a.abs();
        // Keys below the first piece saturate to piece 0 (then t < t_lo).
        let key = (t.to_bits() >> KEY_SHIFT).max(self.base_key);
        let idx = (key - self.base_key) as usize;
        let v = if let Some(p) = self.pieces.get(idx) {
            if t < self.t_lo {
                // Below the first piece (also zeros): the cubic, exact to ≈1e−22.
                t - self.cubic * t * t * t
            } else {
                let (center, inv_half) = piece_geometry(key);
                estrin(&p.coef, (t - center) * inv_half)
            }
        } else {
            self.eval_large(t)
        };
        Self::finish(v, a)
    }

    /// Sign and clamp: ψ_β ≥ 0 on t ≥ 0 (φ odd and non-decreasing, Y ∼ N(1, 1/β) leans
    /// positive); `max` also maps NaN to 0 (which `clamp` would keep), `min` is the
    /// privacy clamp; the result has the sign of a.
    #[inline(always)]
    fn finish(v: f64, a: f64) -> f64 {
        #[allow(clippy::manual_clamp)]
        let v = v.max(0.0).min(PHI_BOUND);
        v.copysign(a)
    }

    /// `acc[k] += ψ_β(arg(src[k]))` for every k, each term equal bit for bit to
    /// [`PsiTable::eval`]`(arg(src[k]))` (test `accumulate_equals_eval_bitwise`).
    ///
    /// Why blocks: the per-element [`PsiTable::eval`] branches on whether |a| is
    /// below the first piece, which depends on the data and was mispredicted for up to
    /// a third of the elements (callgrind `--branch-sim`), and its piece lookup keeps the
    /// loop scalar. Here each block of [`LANES`] elements goes through three loops: (1)
    /// argument, piece index, local coordinate and the cubic for every element, with
    /// no branch (vectorised); (2) the polynomial of the element's piece (a table
    /// lookup, scalar); (3) the selection cubic/polynomial as a data-independent blend,
    /// the clamp, the sign and the sum (vectorised). Arguments at or above 2^E_HI and
    /// NaN are rare and patched between (2) and (3) by [`PsiTable::eval_large`], as in
    /// `eval`. The arithmetic of every value is the same as in `eval`, only the order
    /// of independent operations differs, so the sums are unchanged.
    #[inline(always)]
    fn accumulate<F: Fn(f64) -> f64>(&self, acc: &mut [f64], src: &[f64], arg: F) {
        assert_eq!(acc.len(), src.len());
        let last = self.pieces.len() - 1;
        // Largest double below 2^E_HI: its key is the last piece's.
        let t_top = f64::from_bits(2f64.powi(E_HI).to_bits() - 1);
        let t_end = 2f64.powi(E_HI);
        for (acc, src) in acc.chunks_mut(LANES).zip(src.chunks(LANES)) {
            let len = src.len();
            let mut a = [0.0; LANES];
            let mut x = [0.0; LANES];
            let mut cubic = [0.0; LANES];
            let mut idx = [0usize; LANES];
            let mut large = false;
            for k in 0..len {
                let ak = arg(src[k]);
                let t = ak.abs();
                // max/min on the value = max/min on the key (positive doubles order as
                // their bits); NaN gives t_lo (patched below).
                let key = (t.max(self.t_lo).min(t_top)).to_bits() >> KEY_SHIFT;
                let (center, inv_half) = piece_geometry(key);
                a[k] = ak;
                x[k] = (t - center) * inv_half;
                cubic[k] = t - self.cubic * t * t * t;
                idx[k] = (key - self.base_key) as usize;
                large |= t >= t_end || t.is_nan();
            }
            let mut v = [0.0; LANES];
            // Two elements at a time, written lane by lane so the compiler pairs the
            // two polynomials in one vector register (each lane is `estrin` exactly).
            let pairs = len / 2;
            for q in 0..pairs {
                let (k0, k1) = (2 * q, 2 * q + 1);
                let c0 = &self.pieces[idx[k0].min(last)].coef;
                let c1 = &self.pieces[idx[k1].min(last)].coef;
                let (xa, xb) = (x[k0], x[k1]);
                let (xa2, xb2) = (xa * xa, xb * xb);
                let (xa4, xb4) = (xa2 * xa2, xb2 * xb2);
                let (a01, b01) = (c0[0] + c0[4] * xa, c1[0] + c1[4] * xb);
                let (a23, b23) = (c0[1] + c0[5] * xa, c1[1] + c1[5] * xb);
                let (a45, b45) = (c0[2] + c0[6] * xa, c1[2] + c1[6] * xb);
                let (a67, b67) = (c0[3] + c0[7] * xa, c1[3] + c1[7] * xb);
                let (a03, b03) = (a01 + a23 * xa2, b01 + b23 * xb2);
                let (a47, b47) = (a45 + a67 * xa2, b45 + b67 * xb2);
                v[k0] = a03 + a47 * xa4;
                v[k1] = b03 + b47 * xb4;
            }
            for k in 2 * pairs..len {
                v[k] = estrin(&self.pieces[idx[k].min(last)].coef, x[k]);
            }
            if large {
                for k in 0..len {
                    let t = a[k].abs();
                    if t >= t_end || t.is_nan() {
                        v[k] = self.eval_large(t);
                    }
                }
            }
            for k in 0..len {
                let t = a[k].abs();
                let below = ((t < self.t_lo) as u64).wrapping_neg();
                let vk = f64::from_bits((cubic[k].to_bits() & below) | (v[k].to_bits() & !below));
                acc[k] += Self::finish(vk, a[k]);
            }
        }
    }

    /// |a| ≥ 2^E_HI (∞ included) or NaN.
    #[cold]
    #[inline(never)]
    fn eval_large(&self, t: f64) -> f64 {
        if t.is_nan() {
            0.0
        } else {
            let u = 1.0 / t;
            self.limit + self.g2 * u * u
        }
    }
}

/// Σ_k c_k x^k by Estrin's scheme (short dependency chains: independent products
/// overlap in the pipeline, unlike Horner's serial chain), for coefficients stored in
/// the order of [`estrin_layout`]: c₀ c₂ c₄ c₆ c₁ c₃ c₅ c₇, so the four first-level pairs
/// c_{2i} + c_{2i+1}·x read two contiguous 4-vectors (the compiler vectorises them).
#[inline(always)]
fn estrin(c: &[f64; NCOEF], x: f64) -> f64 {
    let x2 = x * x;
    let x4 = x2 * x2;
    let p01 = c[0] + c[4] * x;
    let p23 = c[1] + c[5] * x;
    let p45 = c[2] + c[6] * x;
    let p67 = c[3] + c[7] * x;
    let p03 = p01 + p23 * x2;
    let p47 = p45 + p67 * x2;
    p03 + p47 * x4
}

/// Monomial coefficients c₀..c₇ in the storage order of [`estrin`].
fn estrin_layout(c: [f64; NCOEF]) -> [f64; NCOEF] {
    [c[0], c[2], c[4], c[6], c[1], c[3], c[5], c[7]]
}

/// Chebyshev interpolation coefficients from values at the first-kind nodes.
fn chebyshev_coefficients(f: &[f64]) -> Vec<f64> {
    let n = f.len();
    (0..n)
        .map(|j| {
            let s: f64 = f
                .iter()
                .enumerate()
                .map(|(k, fk)| fk * libm::cos(PI * j as f64 * (k as f64 + 0.5) / n as f64))
                .sum();
            if j == 0 {
                s / n as f64
            } else {
                2.0 * s / n as f64
            }
        })
        .collect()
}

/// Σ_j c_j T_j(x) as monomial coefficients in x.
fn chebyshev_to_monomial(c: &[f64]) -> [f64; NCOEF] {
    let mut out = [0.0; NCOEF];
    let mut t_prev = [0.0; NCOEF]; // T_{j−1}
    let mut t_cur = [0.0; NCOEF]; // T_j
    t_cur[0] = 1.0;
    for (j, &cj) in c.iter().enumerate() {
        if j == 1 {
            t_prev = t_cur;
            t_cur = [0.0; NCOEF];
            t_cur[1] = 1.0;
        } else if j > 1 {
            let mut next = [0.0; NCOEF];
            for i in 0..NCOEF {
                next[i] = -t_prev[i] + if i > 0 { 2.0 * t_cur[i - 1] } else { 0.0 };
            }
            t_prev = t_cur;
            t_cur = next;
        }
        for i in 0..NCOEF {
            out[i] += cj * t_cur[i];
        }
    }
    out
}

/// The cached table for β, or `None` outside the tabulated range.
fn table_for(beta: f64) -> Option<Arc<PsiTable>> {
    if !(TABLE_BETA_MIN..=TABLE_BETA_MAX).contains(&beta) {
        return None;
    }
    static CACHE: OnceLock<Mutex<Vec<Arc<PsiTable>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(Vec::new()));
    let mut tables = cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = tables.iter().find(|t| t.beta.to_bits() == beta.to_bits()) {
        return Some(Arc::clone(t));
    }
    let table = Arc::new(PsiTable::new(beta));
    if tables.len() >= TABLE_CACHE_SIZE {
        tables.remove(0);
    }
    tables.push(Arc::clone(&table));
    Some(table)
}

/// Evaluator of ψ_β(a) = Ψ(a, |a|/√β), the per-sample contribution of a scaled
/// gradient coordinate a = g/s: a cached table for β ∈ [10⁻³, 10³] (see the module's
/// "Fast path"), [`psi_gradient`] otherwise. Always finite, odd, in ±[`PHI_BOUND`];
/// a = ±∞ gives ±(2√2/3)(2Φ(√β) − 1) and NaN gives 0.
#[derive(Debug, Clone)]
pub struct PsiBeta {
    beta: f64,
    table: Option<Arc<PsiTable>>,
}

impl PsiBeta {
    /// The evaluator for β (builds and caches the table on first use, ≈ 1 ms).
    pub fn new(beta: f64) -> Self {
        PsiBeta {
            beta,
            table: table_for(beta),
        }
    }

    /// ψ_β(a).
    #[inline]
    pub fn eval(&self, a: f64) -> f64 {
        match &self.table {
            Some(t) => t.eval(a),
            None => psi_gradient(a, 1.0, self.beta),
        }
    }

    /// Whether the fast (tabulated) path is used.
    pub fn is_tabulated(&self) -> bool {
        self.table.is_some()
    }
}

// ---------------------------------------------------------------------------------
// The estimator.

/// The Catoni–Giulini robust coordinate-wise mean / gradient (spec A.1–A.4).
///
/// Construct with [`CatoniGiulini::new`], which validates the parameters; the fields
/// are public for reading and reporting. See the module documentation for the
/// parameter table, the privacy role and the numerics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CatoniGiulini {
    /// Truncation scale s > 0.
    pub scale: f64,
    /// Noise precision β > 0 (η ∼ N(0, 1/β)).
    pub beta: f64,
}

/// Reusable buffers of the robust passes (one partial sum per row block), so repeated
/// calls allocate nothing.
#[derive(Debug, Default, Clone)]
pub struct RobustWorkspace {
    partials: Vec<f64>,
    scratch: Vec<f64>,
}

impl RobustWorkspace {
    /// Empty buffers (they grow on first use).
    pub fn new() -> Self {
        Self::default()
    }
}

impl CatoniGiulini {
    /// Validates s and β.
    ///
    /// # Errors
    /// [`EstimatorError::BadParameter`] unless `scale` and `beta` are finite and > 0.
    pub fn new(scale: f64, beta: f64) -> Result<Self, EstimatorError> {
        if !(scale.is_finite() && scale > 0.0) {
            return Err(EstimatorError::BadParameter {
                name: "scale s",
                requirement: "finite and > 0",
                value: scale,
            });
        }
        if !(beta.is_finite() && beta > 0.0) {
            return Err(EstimatorError::BadParameter {
                name: "beta",
                requirement: "finite and > 0",
                value: beta,
            });
        }
        Ok(CatoniGiulini { scale, beta })
    }

    /// ℓ∞ sensitivity of the m-sample estimate under replace-one: 4√2·s/(3m)
    /// (spec A.3). Infinite for m = 0.
    pub fn sensitivity_inf(&self, m: usize) -> f64 {
        4.0 * SQRT_2 * self.scale / (3.0 * m as f64)
    }

    /// Coordinate-wise robust mean (s/m) Σ_{i ∈ rows} Ψ(v_ij/s, |v_ij|/(s√β)) of the
    /// vectors v_i that `fill(i, buf)` writes into `buf` (length d, zeroed before each
    /// call). Writes `out` (length d); empty `rows` give zeros. Parallel over fixed
    /// blocks of `rows`, bit-identical for any thread count.
    ///
    /// # Panics
    /// If `out.len() != d`.
    pub fn mean_of_rows<F: Fn(usize, &mut [f64]) + Sync>(
        &self,
        rows: &[usize],
        d: usize,
        fill: F,
        out: &mut [f64],
    ) {
        self.mean_of_rows_with(rows, d, fill, out, &mut RobustWorkspace::new());
    }

    /// [`CatoniGiulini::mean_of_rows`] with reusable buffers.
    pub fn mean_of_rows_with<F: Fn(usize, &mut [f64]) + Sync>(
        &self,
        rows: &[usize],
        d: usize,
        fill: F,
        out: &mut [f64],
        ws: &mut RobustWorkspace,
    ) {
        let inv_s = 1.0 / self.scale;
        let psi_b = PsiBeta::new(self.beta);
        self.blocked(rows, d, out, ws, true, |rb, acc, buf| match &psi_b.table {
            Some(t) => fill_kernel(rb, acc, buf, &fill, |acc, v| {
                t.accumulate(acc, v, |vj| vj * inv_s)
            }),
            None => fill_kernel(rb, acc, buf, &fill, |acc, v| {
                add_exact(acc, v, |vj| psi_gradient(vj, self.scale, self.beta))
            }),
        });
    }

    /// Robust gradient RG(w, chunk; s, β) (spec A.4) of a loss in residual form: for
    /// each i in `rows`, r_i = `loss.derivative(⟨x_i, w⟩, y_i)` and the per-sample
    /// gradient is v_ij = r_i·x_ij; `out_j = (s/m) Σ_i Ψ(v_ij/s, |v_ij|/(s√β))`.
    /// `x` is row-major n × d, `y` has length n. Empty `rows` give zeros. Parallel over
    /// fixed blocks of `rows`, bit-identical for any thread count; `ws` holds the
    /// reusable buffers.
    ///
    /// # Panics
    /// If `out.len() != d`, `w.len() != d`, `x.len() != y.len() * d`, or a row index is
    /// out of range.
    #[allow(clippy::too_many_arguments)]
    pub fn gradient_with<L: Loss + Sync + ?Sized>(
        &self,
        loss: &L,
        x: &[f64],
        y: &[f64],
        d: usize,
        rows: &[usize],
        w: &[f64],
        out: &mut [f64],
        ws: &mut RobustWorkspace,
    ) {
        assert_eq!(x.len(), y.len() * d, "x must be n × d with n = y.len()");
        self.gradient_of(loss, &RawRows { x, d }, y, rows, w, out, ws)
    }

    /// [`CatoniGiulini::gradient_with`] over any [`Rows`]: a dataset is read through its
    /// lazy standardisation when it has one (the same values as the standardised copy,
    /// so the same sums).
    #[allow(clippy::too_many_arguments)]
    pub fn gradient_of<L: Loss + Sync + ?Sized, X: Rows + ?Sized>(
        &self,
        loss: &L,
        x: &X,
        y: &[f64],
        rows: &[usize],
        w: &[f64],
        out: &mut [f64],
        ws: &mut RobustWorkspace,
    ) {
        if self.psi_sum_of(loss, x, y, rows, w, out, ws) {
            self.scale_by_s_over_m(rows.len(), out);
        }
    }

    /// The unscaled sums Σ_{i ∈ rows} Ψ(v_ij/s, |v_ij|/(s√β)) of
    /// [`CatoniGiulini::gradient_of`] (which is (s/m) times them, m = |rows|): the
    /// partial sums a distributed fit adds over batches before scaling once
    /// ([`crate::algorithms::row_sums`]). Same kernel and block order as
    /// `gradient_of`, so `gradient_of` = (s/m)·`psi_sum_of` bit for bit. Returns false
    /// (and zeros) for empty `rows` or d = 0.
    #[allow(clippy::too_many_arguments)]
    pub fn psi_sum_of<L: Loss + Sync + ?Sized, X: Rows + ?Sized>(
        &self,
        loss: &L,
        x: &X,
        y: &[f64],
        rows: &[usize],
        w: &[f64],
        out: &mut [f64],
        ws: &mut RobustWorkspace,
    ) -> bool {
        let d = x.width();
        assert_eq!(w.len(), d, "w must have length d");
        let inv_s = 1.0 / self.scale;
        let psi_b = PsiBeta::new(self.beta);
        self.blocked_sum(rows, d, out, ws, true, |rb, acc, buf| match &psi_b.table {
            Some(t) => residual_kernel(rb, acc, loss, x, buf, y, w, |acc, row, r| {
                t.accumulate(acc, row, |xij| (r * xij) * inv_s)
            }),
            None => residual_kernel(rb, acc, loss, x, buf, y, w, |acc, row, r| {
                add_exact(acc, row, |xij| psi_gradient(r * xij, self.scale, self.beta))
            }),
        })
    }

    /// out ← (s/m)·out: the scaling of the robust estimate of m records.
    pub fn scale_by_s_over_m(&self, m: usize, out: &mut [f64]) {
        let factor = self.scale / m as f64;
        out.iter_mut().for_each(|o| *o *= factor);
    }

    /// Column-wise robust means over `rows` of a row-major matrix `x` (n × d):
    /// v_ij = x_ij (the private `catoni` mean estimator, spec A.5). Writes `out`
    /// (length d); empty `rows` give zeros.
    ///
    /// # Panics
    /// If `out.len() != d` or a row index is out of range.
    pub fn column_means(&self, x: &[f64], d: usize, rows: &[usize], out: &mut [f64]) {
        self.column_means_with(x, d, rows, out, &mut RobustWorkspace::new());
    }

    /// [`CatoniGiulini::column_means`] with reusable buffers.
    pub fn column_means_with(
        &self,
        x: &[f64],
        d: usize,
        rows: &[usize],
        out: &mut [f64],
        ws: &mut RobustWorkspace,
    ) {
        let inv_s = 1.0 / self.scale;
        let psi_b = PsiBeta::new(self.beta);
        let rows_of = move |i: usize| &x[i * d..(i + 1) * d];
        self.blocked(rows, d, out, ws, false, |rb, acc, _| match &psi_b.table {
            Some(t) => column_kernel(rb, acc, rows_of, |acc, row| {
                t.accumulate(acc, row, |v| v * inv_s)
            }),
            None => column_kernel(rb, acc, rows_of, |acc, row| {
                add_exact(acc, row, |v| psi_gradient(v, self.scale, self.beta))
            }),
        });
    }

    /// The shared pass: [`CatoniGiulini::blocked_sum`], then the scaling by s/m.
    fn blocked<K>(
        &self,
        rows: &[usize],
        d: usize,
        out: &mut [f64],
        ws: &mut RobustWorkspace,
        need_scratch: bool,
        kernel: K,
    ) where
        K: Fn(&[usize], &mut [f64], &mut [f64]) + Sync,
    {
        if self.blocked_sum(rows, d, out, ws, need_scratch, kernel) {
            self.scale_by_s_over_m(rows.len(), out);
        }
    }

    /// Zero `out`; split `rows` into blocks of `block_rows(d)` rows;
    /// `kernel(block, acc, scratch)` adds the block's Ψ sums into its own `acc`
    /// (length d, zeroed); partials are summed in block order. False (zeros) when
    /// `rows` is empty or d = 0.
    fn blocked_sum<K>(
        &self,
        rows: &[usize],
        d: usize,
        out: &mut [f64],
        ws: &mut RobustWorkspace,
        need_scratch: bool,
        kernel: K,
    ) -> bool
    where
        K: Fn(&[usize], &mut [f64], &mut [f64]) + Sync,
    {
        assert_eq!(out.len(), d, "out must have length d");
        out.iter_mut().for_each(|o| *o = 0.0);
        let m = rows.len();
        if m == 0 || d == 0 {
            return false;
        }
        let br = block_rows(d);
        let nb = m.div_ceil(br);
        ws.partials.resize(nb * d, 0.0);
        ws.scratch
            .resize(if need_scratch { nb * d } else { 0 }, 0.0);
        let partials = &mut ws.partials[..nb * d];
        if need_scratch {
            partials
                .par_chunks_mut(d)
                .zip(ws.scratch[..nb * d].par_chunks_mut(d))
                .zip(rows.par_chunks(br))
                .for_each(|((acc, buf), rb)| {
                    acc.iter_mut().for_each(|a| *a = 0.0);
                    kernel(rb, acc, buf);
                });
        } else {
            partials
                .par_chunks_mut(d)
                .zip(rows.par_chunks(br))
                .for_each(|(acc, rb)| {
                    acc.iter_mut().for_each(|a| *a = 0.0);
                    kernel(rb, acc, &mut []);
                });
        }
        for p in partials.chunks_exact(d) {
            for (o, v) in out.iter_mut().zip(p) {
                *o += v;
            }
        }
        true
    }
}

/// acc_j += ψ(r_i x_ij) for the rows of one block (r_i computed once per row);
/// `add_row(acc, x_i, r_i)` adds one row's terms.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn residual_kernel<L, X, A>(
    rows: &[usize],
    acc: &mut [f64],
    loss: &L,
    x: &X,
    scratch: &mut [f64],
    y: &[f64],
    w: &[f64],
    add_row: A,
) where
    L: Loss + ?Sized,
    X: Rows + ?Sized,
    A: Fn(&mut [f64], &[f64], f64),
{
    for &i in rows {
        let row = x.get(i, scratch);
        let r = loss.derivative(dot(row, w), y[i]);
        // Ψ(0·x) = 0 and Ψ(NaN) = 0 (0·±∞ is NaN): such rows add exactly nothing.
        if r == 0.0 || r.is_nan() {
            continue;
        }
        add_row(acc, row, r);
    }
}

/// acc_j += ψ(x_ij) for the rows of one block; `add_row(acc, x_i)` adds one row.
#[inline(always)]
fn column_kernel<'a, R, A>(rows: &[usize], acc: &mut [f64], row_of: R, add_row: A)
where
    R: Fn(usize) -> &'a [f64],
    A: Fn(&mut [f64], &[f64]),
{
    for &i in rows {
        add_row(acc, row_of(i));
    }
}

/// acc_j += ψ(v_ij) for the rows of one block, v_i written by `fill`; `add_row(acc, v_i)`
/// adds one row.
#[inline(always)]
fn fill_kernel<F, A>(rows: &[usize], acc: &mut [f64], buf: &mut [f64], fill: &F, add_row: A)
where
    F: Fn(usize, &mut [f64]),
    A: Fn(&mut [f64], &[f64]),
{
    for &i in rows {
        buf.iter_mut().for_each(|b| *b = 0.0);
        fill(i, buf);
        add_row(acc, buf);
    }
}

/// acc_j += ψ(v_j) term by term, for the exact route (no table).
#[inline(always)]
fn add_exact<P: Fn(f64) -> f64>(acc: &mut [f64], v: &[f64], contribution: P) {
    for (a, &vj) in acc.iter_mut().zip(v) {
        *a += contribution(vj);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loss::LossKind;
    use crate::noise::{gaussian, rng_from_seed};
    use crate::test_support::{bits, max_abs_diff, on_threads, robust_gradient};
    use proptest::prelude::*;
    use rand::RngCore;
    use rand_distr::{Distribution, LogNormal, StudentT};

    /// Standard normal density.
    /// The arguments every evaluation route must get right: signed zeros, the smallest
    /// subnormal and normal, a tiny value, ±MAX, ±∞ and NaN.
    const SPECIAL_VALUES: [f64; 10] = [
        0.0,
        -0.0,
        f64::from_bits(1),
        f64::MIN_POSITIVE,
        1e-300,
        f64::MAX,
        -f64::MAX,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];

    fn pdf(z: f64) -> f64 {
        INV_SQRT_2PI * (-0.5 * z * z).exp()
    }

    /// Adaptive Simpson with Richardson correction.
    fn simpson<F: Fn(f64) -> f64>(f: &F, lo: f64, hi: f64, tol: f64) -> f64 {
        #[allow(clippy::too_many_arguments)]
        fn rec<F: Fn(f64) -> f64>(
            f: &F,
            a: f64,
            b: f64,
            fa: f64,
            fm: f64,
            fb: f64,
            whole: f64,
            tol: f64,
            depth: u32,
        ) -> f64 {
            let m = 0.5 * (a + b);
            let (lm, rm) = (0.5 * (a + m), 0.5 * (m + b));
            let (flm, frm) = (f(lm), f(rm));
            let left = (m - a) / 6.0 * (fa + 4.0 * flm + fm);
            let right = (b - m) / 6.0 * (fm + 4.0 * frm + fb);
            let delta = left + right - whole;
            if depth == 0 || delta.abs() <= 15.0 * tol {
                left + right + delta / 15.0
            } else {
                rec(f, a, m, fa, flm, fm, left, 0.5 * tol, depth - 1)
                    + rec(f, m, b, fm, frm, fb, right, 0.5 * tol, depth - 1)
            }
        }
        if lo >= hi {
            return 0.0;
        }
        // Start from 64 equal cells so no feature of width ~1 is skipped.
        let cells = 64;
        let h = (hi - lo) / cells as f64;
        (0..cells)
            .map(|k| {
                let a = lo + h * k as f64;
                let b = if k + 1 == cells { hi } else { a + h };
                let m = 0.5 * (a + b);
                let (fa, fm, fb) = (f(a), f(m), f(b));
                rec(
                    f,
                    a,
                    b,
                    fa,
                    fm,
                    fb,
                    (b - a) / 6.0 * (fa + 4.0 * fm + fb),
                    tol / cells as f64,
                    40,
                )
            })
            .sum()
    }

    /// Independent reference: ∫_{−40}^{40} φ(a + bz) pdf(z) dz, split at the kinks of φ.
    fn quad_psi(a: f64, b: f64) -> f64 {
        let f = |z: f64| phi(a + b * z) * pdf(z);
        let mut cuts = vec![-40.0, 40.0];
        for k in [(-SQRT_2 - a) / b, (SQRT_2 - a) / b] {
            if k > -40.0 && k < 40.0 {
                cuts.push(k);
            }
        }
        cuts.sort_by(|p, q| p.partial_cmp(q).unwrap());
        cuts.windows(2)
            .map(|w| simpson(&f, w[0], w[1], 1e-14))
            .sum()
    }

    #[test]
    fn phi_values_and_bound() {
        assert!((PHI_BOUND - 2.0 * SQRT_2 / 3.0).abs() <= f64::EPSILON);
        assert_eq!(phi(0.0), 0.0);
        assert!((phi(1.0) - 5.0 / 6.0).abs() < 1e-15);
        assert!((phi(-0.5) - (-0.5 + 0.125 / 6.0)).abs() < 1e-15);
        assert!((phi(SQRT_2) - PHI_BOUND).abs() < 1e-15);
        assert_eq!(phi(1.5), PHI_BOUND);
        assert_eq!(phi(-1e300), -PHI_BOUND);
        assert_eq!(phi(f64::INFINITY), PHI_BOUND);
        assert_eq!(phi(f64::NEG_INFINITY), -PHI_BOUND);
        assert_eq!(phi(f64::NAN), 0.0);
        let mut prev = phi(-3.0);
        for k in -3000..=3000 {
            let x = k as f64 / 1000.0;
            let v = phi(x);
            assert!(v.abs() <= PHI_BOUND, "phi({x}) = {v}");
            assert!(v >= prev, "phi not monotone at {x}");
            assert_eq!(phi(-x), -v);
            prev = v;
        }
    }

    #[test]
    fn psi_matches_independent_quadrature() {
        let points: [(f64, f64); 24] = [
            (0.0, 1.0),
            (0.5, 0.3),
            (1.0, 1.0),
            (1.4, 0.01),
            (1.5, 1e-5),
            (-0.7, 2.0),
            (3.0, 1.0),
            (3.99, 3.99),
            (4.01, 0.5),
            (10.0, 3.0),
            (50.0, 30.0),
            (99.0, 50.0),
            (100.0, 100.0),
            (101.0, 9.0),
            (-1e4, 1e4),
            (1e6, 0.5),
            (1e6, 1e6),
            (1e9, 1e9),
            (1e9, 1e-6),
            (0.5, 1e9),
            (1e-160, 1e-160),
            (2.0, 1e-5),
            (-3.7, 12.0),
            (1e-3, 1e-7),
        ];
        for (a, b) in points {
            let got = psi(a, b);
            let want = quad_psi(a, b);
            assert!(
                (got - want).abs() <= 1e-9,
                "Psi({a}, {b}) = {got}, quadrature {want}"
            );
            // The printed closed form itself is right wherever the spec allows it.
            if b >= B_TINY && a.abs().max(b) <= 100.0 {
                let printed = psi_closed_form(a.abs(), b).copysign(a);
                assert!(
                    (printed - want).abs() <= 1e-9,
                    "closed form at ({a}, {b}) = {printed}, quadrature {want}"
                );
            }
        }
    }

    /// Values from an 80-digit evaluation of the window-moment form
    /// (mpmath, `mp.dps = 80`).
    #[test]
    fn psi_matches_pinned_high_precision_values() {
        let pinned = [
            (1.0, 1.0, 0.564_087_272_574_383_8),
            (100.0, 100.0, 0.643_636_700_622_796_3),
            (99.0, 50.0, 0.897_816_942_095_301_4),
            (50.0, 30.0, 0.852_625_217_809_566_8),
            (1e4, 1e4, 0.643_645_824_867_382_8),
            (1e6, 1e6, 0.643_645_825_779_820_3),
            (1e9, 1e9, 0.643_645_825_779_911_6),
            (0.5, 1e9, 3.761_263_890_318_375_4e-10),
            (1.4, 0.01, 0.942_598_643_939_854_4),
            (
                0.274_835_414_533_641_7,
                0.140_928_774_053_350_03,
                0.268_646_246_362_208_9,
            ),
            (
                33.014_376_233_522_46,
                42.476_396_408_680_68,
                0.530_737_662_321_375_5,
            ),
        ];
        for (a, b, want) in pinned {
            let got = psi(a, b);
            assert!(
                (got - want).abs() <= 1e-13,
                "Psi({a}, {b}) = {got}, want {want}"
            );
        }
    }

    #[test]
    fn psi_monte_carlo_in_papers_parameterisation() {
        // x(1 + η)/s with η ∼ N(0, 1/β) (variance 1/β), β ≠ 1.
        let mut rng = rng_from_seed(20_211_101);
        let n = 200_000;
        for &(x, s, beta) in &[
            (0.8, 1.0, 4.0),
            (2.0, 1.5, 0.25),
            (-1.3, 0.7, 9.0),
            (5.0, 2.0, 2.0),
        ] {
            let mc = |sd: f64, rng: &mut crate::noise::HeavyRng| {
                let (mut sum, mut sq) = (0.0, 0.0);
                for _ in 0..n {
                    let v = phi(x * (1.0 + gaussian(sd, rng)) / s);
                    sum += v;
                    sq += v * v;
                }
                let mean = sum / n as f64;
                (mean, ((sq / n as f64 - mean * mean) / n as f64).sqrt())
            };
            let (mean, se) = mc(1.0 / f64::sqrt(beta), &mut rng);
            let formula = psi_gradient(x, s, beta);
            assert!(
                (mean - formula).abs() <= 5.0 * se,
                "x={x} s={s} beta={beta}: MC {mean} ± {se}, formula {formula}"
            );
            // The other reading (η ∼ N(0, 1)) is far off: the test can tell them apart.
            let (wrong, se_w) = mc(1.0, &mut rng);
            assert!((wrong - formula).abs() > 10.0 * se_w, "beta={beta}");
        }
    }

    #[test]
    fn psi_is_odd_exactly() {
        for &b in &[0.0, 1e-7, 1e-3, 0.5, 1.0, 3.9, 4.1, 50.0, 150.0, 1e7] {
            let mut a = 1e-5;
            while a < 1e8 {
                assert_eq!(psi(-a, b), -psi(a, b), "a={a} b={b}");
                assert_eq!(psi(a, -b), psi(a, b));
                a *= 1.37;
            }
        }
        let fast = PsiBeta::new(1.0);
        for k in 0..10_000 {
            let a = (k as f64 * 0.001).powi(3);
            assert_eq!(fast.eval(-a), -fast.eval(a));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn psi_is_finite_and_bounded(a in prop::num::f64::ANY, b in prop::num::f64::ANY) {
            let v = psi(a, b);
            prop_assert!(v.is_finite() && v.abs() <= PHI_BOUND, "Psi({}, {}) = {}", a, b, v);
        }

        #[test]
        fn psi_gradient_is_finite_and_bounded(
            g in prop::num::f64::ANY,
            s in prop::num::f64::ANY,
            beta in prop::num::f64::ANY,
        ) {
            let v = psi_gradient(g, s, beta);
            prop_assert!(v.is_finite() && v.abs() <= PHI_BOUND, "psi_gradient({}, {}, {}) = {}", g, s, beta, v);
        }

        #[test]
        fn fast_path_is_finite_bounded_and_close(
            a in prop::num::f64::ANY,
            beta in prop::sample::select(vec![1e-3, 0.3, 1.0, 4.0, 1e3, 1e-7, 1e5]),
        ) {
            let v = PsiBeta::new(beta).eval(a);
            prop_assert!(v.is_finite() && v.abs() <= PHI_BOUND);
            prop_assert!((v - psi_gradient(a, 1.0, beta)).abs() <= 1e-10);
        }
    }

    #[test]
    fn psi_tends_to_phi_as_b_tends_to_zero() {
        for k in -300..=300 {
            let a = k as f64 / 100.0;
            assert_eq!(psi(a, 0.0), phi(a));
            assert_eq!(psi(a, 1e-300), phi(a));
            // Across the b < 1e−6 switch.
            let below = psi(a, B_TINY * (1.0 - 1e-12));
            let above = psi(a, B_TINY);
            assert!((below - above).abs() <= 1e-12, "a={a}");
            // |Ψ(a, b) − φ(a)| ≤ b²/√2 (φ' is √2-Lipschitz, E Z = 0).
            for b in [1e-2, 1e-3, 1e-4, 1e-5] {
                assert!(
                    (psi(a, b) - phi(a)).abs() <= b * b / SQRT_2 + 1e-15,
                    "a={a} b={b}"
                );
            }
        }
    }

    #[test]
    fn evaluation_routes_agree_where_they_meet() {
        // Closed form and split form coincide around the switch max(|a|, b) = 4 ...
        for i in 0..=60 {
            for j in 0..=60 {
                let a = 8.0 * i as f64 / 60.0;
                let b = 1e-3 + 8.0 * j as f64 / 60.0;
                if a.max(b) >= 2.0 {
                    let (c, s) = (psi_closed_form(a, b), psi_split(a, b));
                    assert!((c - s).abs() <= 1e-13, "a={a} b={b}: {c} vs {s}");
                }
            }
        }
        // ... and psi is continuous across it.
        for b in [0.01, 0.5, 2.0, 3.999] {
            let (lo, hi) = (psi(CLOSED_FORM_MAX, b), psi(CLOSED_FORM_MAX.next_up(), b));
            assert!((lo - hi).abs() <= 1e-13);
        }
    }

    #[test]
    fn psi_gradient_limits_and_nan() {
        for &beta in &[0.25, 1.0, 4.0, 100.0, 1e-5, 1e6] {
            let limit = PHI_BOUND * (1.0 - libm::erfc(f64::sqrt(beta) / SQRT_2));
            for s in [1e-3, 1.0, 7.0] {
                assert!((psi_gradient(f64::INFINITY, s, beta) - limit).abs() <= 1e-15);
                assert!((psi_gradient(f64::NEG_INFINITY, s, beta) + limit).abs() <= 1e-15);
                assert_eq!(psi_gradient(f64::NAN, s, beta), 0.0);
                assert_eq!(psi_gradient(0.0, s, beta), 0.0);
            }
            // g/s overflowing and large finite g approach the same limit.
            assert!((psi_gradient(f64::MAX, 1e-3, beta) - limit).abs() <= 1e-15);
            assert!((psi_gradient(-1e200, 1.0, beta) + limit).abs() <= 1e-12);
            assert!((psi_gradient(1e12, 1.0, beta) - limit).abs() <= 1e-10);
            // Only |g|/(s√β) overflows (small β): still the limit, not Ψ(a, ∞) = 0.
            assert!(
                (psi_gradient(-3.6e307, 1.0, beta.min(1e-3)) + infinite_limit(beta.min(1e-3)))
                    .abs()
                    <= 1e-15
            );
            let fast = PsiBeta::new(beta);
            assert!((fast.eval(f64::INFINITY) - limit).abs() <= 1e-15);
            assert_eq!(fast.eval(f64::NAN), 0.0);
        }
        // β = 1: the limit is Ψ(∞·(1, 1)) ≈ 0.6436, not 2√2/3.
        assert!((psi_gradient(f64::INFINITY, 1.0, 1.0) - 0.643_645_825_779_911_6).abs() <= 1e-15);
    }

    /// The block evaluation of the robust passes equals the per-element evaluation bit
    /// for bit (the block evaluation must not change any released value), on
    /// every piece boundary, the special values, a sweep over the double range and both
    /// sides of the cubic/table and table/expansion switches, for several β; the blocks
    /// are filled with a mix so that each pass sees lanes of every kind (and a length
    /// that is not a multiple of the block or of 2).
    #[test]
    fn accumulate_equals_eval_bitwise() {
        let mut args = SPECIAL_VALUES.to_vec();
        args.push(-f64::NAN);
        let mut t = 1e-320;
        while t < 1e308 {
            args.push(t);
            args.push(-t * 1.37);
            t *= 1.003;
        }
        for e in -40..30 {
            for j in 0..=16 {
                let edge = 2f64.powi(e) * (1.0 + j as f64 / 16.0);
                args.extend([edge.next_down(), edge, edge.next_up()]);
            }
        }
        // Interleave small, tabulated and huge arguments within every block.
        let mut rng = rng_from_seed(11);
        for i in (1..args.len()).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            args.swap(i, j);
        }
        args.push(0.3);
        assert_ne!(args.len() % LANES, 0);
        for beta in [1e-3, 0.3, 1.0, 4.0, 1e3] {
            let table = table_for(beta).expect("tabulated");
            for inv_s in [1.0, 0.37] {
                let mut acc = vec![0.0; args.len()];
                table.accumulate(&mut acc, &args, |v| v * inv_s);
                for (k, &a) in args.iter().enumerate() {
                    let want = 0.0 + table.eval(a * inv_s);
                    assert_eq!(
                        acc[k].to_bits(),
                        want.to_bits(),
                        "beta {beta}, argument {a:e}: {} vs {want}",
                        acc[k]
                    );
                }
            }
        }
    }

    /// The centre and 1/half-width derived from a piece key are the exact values the
    /// table was built from (also asserted in `PsiTable::new` for every piece).
    #[test]
    fn piece_geometry_is_exact() {
        for e in -1000..1000 {
            let octave = 2f64.powi(e);
            for j in 0..16u64 {
                let lo = octave * (1.0 + j as f64 / 16.0);
                let hi = octave * (1.0 + (j + 1) as f64 / 16.0);
                let key = lo.to_bits() >> KEY_SHIFT;
                assert_eq!(
                    piece_geometry(key),
                    (0.5 * (lo + hi), 1.0 / (0.5 * (hi - lo)))
                );
            }
        }
    }

    #[test]
    fn fast_path_matches_exact_everywhere() {
        let specials = SPECIAL_VALUES;
        let mut worst_overall = 0.0f64;
        for &beta in &[1e-3, 0.01, 0.1, 0.5, 1.0, 2.0, 4.0, 10.0, 100.0, 1e3] {
            let fast = PsiBeta::new(beta);
            assert!(fast.is_tabulated(), "beta {beta}");
            let check = |a: f64| {
                let (f, e) = (fast.eval(a), psi_gradient(a, 1.0, beta));
                assert!(f.is_finite() && f.abs() <= PHI_BOUND);
                assert_eq!(fast.eval(-a), -f);
                (f - e).abs()
            };
            let mut worst = 0.0f64;
            for &a in &specials {
                worst = worst.max(check(a));
            }
            // Coarse sweep over the whole double range, fine sweep over [1e−5, 1e9].
            let mut t = 1e-320;
            while t < 1e308 {
                worst = worst.max(check(t));
                t *= if (1e-5..1e9).contains(&t) {
                    1.0 + 1.0 / 2500.0
                } else {
                    1.01
                };
            }
            // Piece boundaries and their neighbours.
            for e in -40..30 {
                for j in 0..8 {
                    let edge = 2f64.powi(e) * (1.0 + j as f64 / 8.0);
                    for a in [edge.next_down(), edge, edge.next_up()] {
                        worst = worst.max(check(a));
                    }
                }
            }
            assert!(
                worst <= 1e-10,
                "beta {beta}: max |fast − exact| = {worst:e}"
            );
            worst_overall = worst_overall.max(worst);
        }
        // Outside the tabulated range the exact evaluation is used.
        for beta in [1e-4, 2e3] {
            let fast = PsiBeta::new(beta);
            assert!(!fast.is_tabulated());
            assert_eq!(fast.eval(2.5), psi_gradient(2.5, 1.0, beta));
        }
        assert!(worst_overall <= 1e-10);
    }

    #[test]
    fn sensitivity_constant_is_exact() {
        for (s, m) in [(1.0, 1usize), (2.5, 37), (1e-3, 10_000)] {
            let est = CatoniGiulini::new(s, 1.0).unwrap();
            assert_eq!(est.sensitivity_inf(m), 4.0 * SQRT_2 * s / (3.0 * m as f64));
            // 4√2/3 = 1.885618083164127: not half of it, not 2√2/3.
            assert!(
                (est.sensitivity_inf(m) * m as f64 / s - 1.885_618_083_164_126_7).abs() < 1e-14
            );
        }
    }

    /// Heavy-tailed n × d data (lognormal magnitudes, random signs) and a response.
    fn heavy_data(n: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
        let mut rng = rng_from_seed(seed);
        let ln = LogNormal::new(0.0, 1.2).unwrap();
        let x: Vec<f64> = (0..n * d)
            .map(|_| {
                let v: f64 = ln.sample(&mut rng);
                if gaussian(1.0, &mut rng) < 0.0 {
                    -v
                } else {
                    v
                }
            })
            .collect();
        let y: Vec<f64> = (0..n).map(|_| gaussian(3.0, &mut rng)).collect();
        (x, y)
    }

    #[test]
    fn replace_one_changes_every_coordinate_by_at_most_the_sensitivity() {
        let (m, d, k) = (50usize, 6usize, 7usize);
        let (x0, y0) = heavy_data(m, d, 5);
        let w: Vec<f64> = (0..d).map(|j| 0.3 - 0.1 * j as f64).collect();
        let rows: Vec<usize> = (0..m).collect();
        let big = 1e300;
        let replacements: Vec<(Vec<f64>, f64)> = vec![
            (x0[k * d..(k + 1) * d].to_vec(), y0[k]),
            (vec![1.0; d], -big),
            (vec![1.0; d], big),
            (vec![big; d], 0.0),
            (vec![-big; d], 0.0),
            (
                (0..d)
                    .map(|j| if j % 2 == 0 { big } else { -big })
                    .collect(),
                big,
            ),
            (vec![f64::NAN; d], f64::NAN),
            (vec![f64::INFINITY; d], f64::NEG_INFINITY),
            (vec![0.0; d], 0.0),
        ];
        for &beta in &[100.0, 1.0, 1e4] {
            let s = 2.0;
            let est = CatoniGiulini::new(s, beta).unwrap();
            let sens = est.sensitivity_inf(m);
            let outputs: Vec<(Vec<f64>, Vec<f64>)> = replacements
                .iter()
                .map(|(row, yk)| {
                    let (mut x, mut y) = (x0.clone(), y0.clone());
                    x[k * d..(k + 1) * d].copy_from_slice(row);
                    y[k] = *yk;
                    let g = robust_gradient(&est, &LossKind::Squared, (&x, &y, d), &rows, &w);
                    let mut c = vec![0.0; d];
                    est.column_means(&x, d, &rows, &mut c);
                    (g, c)
                })
                .collect();
            let mut largest = 0.0f64;
            for (g1, c1) in &outputs {
                for (g2, c2) in &outputs {
                    let dg = max_abs_diff(g1, g2);
                    let dc = max_abs_diff(c1, c2);
                    assert!(
                        dg <= sens * (1.0 + 1e-12),
                        "beta {beta}: gradient moved {dg} > {sens}"
                    );
                    assert!(
                        dc <= sens * (1.0 + 1e-12),
                        "beta {beta}: mean moved {dc} > {sens}"
                    );
                    largest = largest.max(dg).max(dc);
                }
            }
            if beta == 100.0 {
                // Opposite huge residuals move *every* coordinate by ≈ the full bound, so
                // a halved constant would be caught.
                let min_coord = outputs[1]
                    .0
                    .iter()
                    .zip(&outputs[2].0)
                    .map(|(u, v)| (u - v).abs())
                    .fold(f64::INFINITY, f64::min);
                assert!(min_coord >= 0.999 * sens, "{min_coord} vs {sens}");
                assert!(max_abs_diff(&outputs[3].1, &outputs[4].1) >= 0.999 * sens);
            }
            assert!(largest > 0.5 * sens);
        }
    }

    #[test]
    fn lemma_4_bound_holds_on_heavy_tailed_samples() {
        let (n, eps, beta, zeta) = (20_000usize, 1.0, 1.0, 0.01f64);
        let mut rng = rng_from_seed(4);
        let t = StudentT::new(2.5).unwrap();
        let ln1 = LogNormal::new(0.0, 1.0).unwrap();
        let ln2 = LogNormal::new(0.0, 0.8).unwrap();
        // Columns: 1 + t_2.5, −3 + t_2.5, LN(0, 1), −LN(0, 0.8).
        let means = [1.0, -3.0, 0.5f64.exp(), -(0.32f64.exp())];
        let second_moments = [1.0 + 5.0, 9.0 + 5.0, 2f64.exp(), 1.28f64.exp()];
        let d = means.len();
        let mut x = Vec::with_capacity(n * d);
        for _ in 0..n {
            let t1: f64 = t.sample(&mut rng);
            let t2: f64 = t.sample(&mut rng);
            let l1: f64 = ln1.sample(&mut rng);
            let l2: f64 = ln2.sample(&mut rng);
            x.extend_from_slice(&[1.0 + t1, -3.0 + t2, l1, -l2]);
        }
        // Spec A.5's balance formula with τ = the largest second moment.
        let tau = second_moments.iter().cloned().fold(0.0, f64::max);
        let s =
            (3.0 * n as f64 * eps * tau * (1.0 + 1.0 / beta) / (8.0 * SQRT_2 * d as f64)).sqrt();
        let est = CatoniGiulini::new(s, beta).unwrap();
        let rows: Vec<usize> = (0..n).collect();
        let mut out = vec![0.0; d];
        est.column_means(&x, d, &rows, &mut out);
        for j in 0..d {
            let bound = second_moments[j] / (2.0 * s) * (1.0 / beta + 1.0)
                + s / n as f64 * (beta / 2.0 + (2.0 / zeta).ln());
            let err = (out[j] - means[j]).abs();
            assert!(
                err <= bound,
                "column {j}: error {err} > Lemma 4 bound {bound}"
            );
        }
    }

    #[test]
    fn passes_are_bit_identical_for_any_thread_count() {
        let (n, d) = (40_000usize, 20usize);
        assert!(n > 3 * block_rows(d));
        let (x, y) = heavy_data(n, d, 9);
        let w: Vec<f64> = (0..d).map(|j| 0.05 * j as f64 - 0.4).collect();
        let rows: Vec<usize> = (0..n).rev().step_by(1).collect();
        let est = CatoniGiulini::new(3.0, 1.0).unwrap();
        let run = |threads: usize| {
            on_threads(threads, || {
                let g = robust_gradient(&est, &LossKind::Logistic, (&x, &y, d), &rows, &w);
                let mut c = vec![0.0; d];
                est.column_means(&x, d, &rows, &mut c);
                let mut f = vec![0.0; d];
                est.mean_of_rows(
                    &rows,
                    d,
                    |i, buf| buf.copy_from_slice(&x[i * d..(i + 1) * d]),
                    &mut f,
                );
                (g, c, f)
            })
        };
        let one = run(1);
        let two = run(2);
        let three = run(3);
        for other in [&two, &three] {
            assert_eq!(bits(&one.0), bits(&other.0));
            assert_eq!(one.1, other.1);
            assert_eq!(one.2, other.2);
        }
        assert_eq!(
            one.1, one.2,
            "mean_of_rows with a copying fill = column_means"
        );
    }

    #[test]
    fn gradient_equals_naive_reference() {
        let (n, d) = (3_000usize, 9usize);
        let (x, y) = heavy_data(n, d, 11);
        let w: Vec<f64> = (0..d).map(|j| 0.2 - 0.05 * j as f64).collect();
        // A non-contiguous, unordered subset of rows.
        let rows: Vec<usize> = (0..n).filter(|i| i % 3 != 1).rev().collect();
        for loss in [
            LossKind::Squared,
            LossKind::Logistic,
            LossKind::Huber { tau: 1.5 },
        ] {
            for &(s, beta) in &[(0.7, 1.0), (5.0, 0.2), (2.0, 1e4), (1.0, 1e-4)] {
                let est = CatoniGiulini::new(s, beta).unwrap();
                let g = robust_gradient(&est, &loss, (&x, &y, d), &rows, &w);
                let mut naive = vec![0.0; d];
                for &i in &rows {
                    let row = &x[i * d..(i + 1) * d];
                    let margin: f64 = row.iter().zip(&w).map(|(p, q)| p * q).sum();
                    let r = loss.derivative(margin, y[i]);
                    for j in 0..d {
                        naive[j] += psi_gradient(r * row[j], s, beta);
                    }
                }
                naive.iter_mut().for_each(|v| *v *= s / rows.len() as f64);
                let diff = max_abs_diff(&g, &naive);
                assert!(diff <= 1e-11 * s, "{loss:?} s={s} beta={beta}: {diff:e}");
                // The same gradient through the generic pass is bit-identical.
                let mut via_fill = vec![0.0; d];
                est.mean_of_rows(
                    &rows,
                    d,
                    |i, buf| loss.gradient(&x[i * d..(i + 1) * d], y[i], &w, buf),
                    &mut via_fill,
                );
                assert_eq!(g, via_fill);
            }
        }
    }

    #[test]
    fn empty_rows_and_zero_dimension() {
        let est = CatoniGiulini::new(1.0, 1.0).unwrap();
        let x = vec![1.0, 2.0, 3.0, 4.0];
        let y = vec![0.5, -0.5];
        let mut out = vec![7.0; 2];
        est.gradient_with(
            &LossKind::Squared,
            &x,
            &y,
            2,
            &[],
            &[0.1, 0.2],
            &mut out,
            &mut RobustWorkspace::new(),
        );
        assert_eq!(out, vec![0.0, 0.0]);
        let mut out = vec![7.0; 2];
        est.column_means(&x, 2, &[], &mut out);
        assert_eq!(out, vec![0.0, 0.0]);
        let mut none: Vec<f64> = vec![];
        est.mean_of_rows(&[0, 1], 0, |_, _| {}, &mut none);
        let mut ws = RobustWorkspace::new();
        let mut out = vec![0.0; 2];
        est.column_means_with(&x, 2, &[1], &mut out, &mut ws);
        assert!((out[0] - psi_gradient(3.0, 1.0, 1.0)).abs() < 1e-12);
        // Reusing the workspace for a larger call.
        est.column_means_with(&x, 2, &[0, 1, 0, 1], &mut out, &mut ws);
        assert!(out[1] > 0.0);
    }

    #[test]
    fn new_rejects_bad_parameters() {
        for (s, beta) in [
            (0.0, 1.0),
            (-1.0, 1.0),
            (f64::NAN, 1.0),
            (f64::INFINITY, 1.0),
            (1.0, 0.0),
            (1.0, -2.0),
            (1.0, f64::NAN),
            (1.0, f64::INFINITY),
        ] {
            let err = CatoniGiulini::new(s, beta).unwrap_err();
            assert!(err.to_string().contains("finite and > 0"));
        }
        assert_eq!(
            CatoniGiulini::new(2.0, 0.5).unwrap(),
            CatoniGiulini {
                scale: 2.0,
                beta: 0.5
            }
        );
    }
}
