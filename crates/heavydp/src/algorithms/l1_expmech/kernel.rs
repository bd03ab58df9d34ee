//! The truncation function ψ_θ (Wang & Xu eqs. 6 and 16, spec §2) and the fast kernel
//! that evaluates the truncated empirical risk's sum
//!
//! ```text
//! S(w) = Σ_i ψ_θ(ι·|y_i − ⟨x_i, w⟩|)  ∈ [0, n·log θ]          (spec §5 step 2: L̂_ι = S/(nι))
//! ```
//!
//! # Product form (what the kernel computes)
//!
//! For a ∈ [0, 1], ψ_θ(a) = −log f_θ(a) with f_θ(a) = 1 − a + a^θ/θ ∈ [1/θ, 1], and
//! ψ_θ(a) = log θ for a ≥ 1. Write g(a) = θ·f_θ(min(a, 1)) ∈ [1, θ]; then
//! ψ_θ(a) = log θ − log g(a) for every a ≥ 0, and for a block of k records
//!
//! ```text
//! Σ_{i ∈ block} ψ_θ(a_i) = k·log θ − log Π_{i ∈ block} g(a_i),
//! ```
//!
//! one logarithm per block of [`RECORD_CHUNK`] = 512 records (Π g ≤ θ^512 ≤ 2^512, no
//! overflow). For θ = 2 the factor is exactly g = 1 + b², b = max(1 − a, 0), so no power
//! function is needed; for θ < 2, a^θ is computed by [`pow_unit`] (exponent/mantissa
//! split, atanh series for the logarithm, Taylor series for the exponential; relative
//! error ≤ 2e−13 on (0, 1], far below what matters, see below), vectorised over lanes of
//! 8 records.
//!
//! **Privacy-relevant property.** Every factor is clamped into [1, θ] before it enters
//! the product (a NaN residual — possible when ⟨x, w⟩ overflows — gives a = 1, g = 1,
//! i.e. the value log θ, as the spec's Ambiguity note in §5 requires). Hence every
//! per-record term log θ − log g lies in [0, log θ] *by construction*, whatever the
//! rounding inside the power function: replacing one record changes S by at most log θ
//! in exact arithmetic. In floating point, the block values of the unchanged blocks are
//! bit-identical for neighbouring data sets; the changed block's value moves by at most
//! log θ + O(512·2^−53) (the product's and the logarithm's rounding), and the block values
//! are added with compensated summation, so the computed S moves by at most
//! log θ·(1 + ρ), ρ ≤ 1e−12/log θ + 1e−15·n. The sampler's coefficient absorbs exactly
//! this margin ([`super::sampler::coefficient`]).
//!
//! **Accuracy.** Against the direct Σ_i −log1p(−a + a^θ/θ) of [`psi`] the kernel's S
//! differs by a few units in the 16th digit per record (tested), i.e. ≈ n·1e−16 in S —
//! a relative change of the sampling probabilities of order ε·n·1e−16, negligible.

use crate::data::Dataset;
use rayon::prelude::*;
use std::f64::consts::LN_2;

/// Records per block of the product form (one logarithm per block, and the unit of the
/// fixed, thread-count-independent summation order).
pub const RECORD_CHUNK: usize = 512;

/// Lanes of the θ < 2 kernel (records processed together so the power function
/// vectorises).
const LANES: usize = 8;

/// ψ_θ(x) of Wang & Xu eq. (6) (θ = 2) and eq. (16) (θ ∈ (1, 2)), spec §2:
///
/// ```text
/// ψ_θ(x) = −log(1 − x + x^θ/θ)  for 0 ≤ x ≤ 1
///        = log θ                 for x ≥ 1
///        = −ψ_θ(−x)              for x < 0
/// ```
///
/// Evaluated as −log1p(−x + x^θ/θ) and clamped into [0, log θ] for x ≥ 0 (rounding near
/// x = 1 could otherwise exceed log θ by an ulp). A NaN argument gives NaN here; the
/// algorithm's per-record value [`psi_record`] maps a NaN residual to log θ.
///
/// ```
/// use heavydp::algorithms::l1_expmech::psi;
/// assert_eq!(psi(2.0, 3.0), 2f64.ln());
/// assert!((psi(2.0, 0.5) + (1.0f64 - 0.5 + 0.125).ln()).abs() < 1e-15);
/// assert_eq!(psi(1.5, -2.0), -1.5f64.ln());
/// ```
pub fn psi(theta: f64, x: f64) -> f64 {
    if x.is_nan() {
        f64::NAN
    } else if x < 0.0 {
        -psi_record(theta, -x)
    } else {
        psi_record(theta, x)
    }
}

/// The per-record value ψ_θ(a) for a = ι·|r| ≥ 0 as the algorithm uses it: in
/// [0, log θ], with a NaN argument (NaN residual) scored log θ (spec §5).
pub fn psi_record(theta: f64, a: f64) -> f64 {
    let lt = theta.ln();
    if a.is_nan() || a >= 1.0 {
        return lt;
    }
    if a <= 0.0 {
        return 0.0;
    }
    let pow = if theta == 2.0 { a * a } else { a.powf(theta) };
    (-(-a + pow / theta).ln_1p()).clamp(0.0, lt)
}

/// a^θ for a ∈ [0, 1] and θ ∈ (1, 2): branch-free (so it vectorises), relative error
/// ≤ 2e−13 for a ≥ 1e−290 and an absolute error below 1e−300 otherwise.
///
/// a = m·2^e with m ∈ [1, 2); log m = log 1.5 + 2·atanh(s), s = (m − 1.5)/(m + 1.5),
/// |s| ≤ 0.2, series to s^21; t = θ·log a (clamped at −708); e^t = 2^k·e^r with
/// |r| ≤ log(2)/2, Taylor series to r^13 (Estrin evaluation).
#[inline(always)]
pub fn pow_unit(a: f64, theta: f64) -> f64 {
    let mut o = [0.0; LANES];
    pow_lanes(&[a; LANES], theta, &mut o);
    o[0]
}

const LN2_HI: f64 = 6.931_471_803_691_238e-1; // 0x3fe62e42fee00000 (fdlibm ln2_hi)
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10; // fdlibm ln2_lo
const LN_1_5: f64 = 0.405_465_108_108_164_381_978_013_115_464_349_137;
const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0; // 1.5·2^52

#[inline(always)]
fn pow_lanes(a: &[f64; LANES], theta: f64, out: &mut [f64; LANES]) {
    let mut e = [0.0; LANES];
    let mut s = [0.0; LANES];
    for j in 0..LANES {
        let aj = if a[j] > 1e-300 { a[j] } else { 1e-300 };
        let bits = aj.to_bits();
        let m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
        // The biased exponent as a float, via the 2^52 trick (vectorisable).
        e[j] = f64::from_bits(0x4330_0000_0000_0000 | (bits >> 52))
            - (4_503_599_627_370_496.0 + 1023.0);
        s[j] = (m - 1.5) / (m + 1.5);
    }
    let mut t = [0.0; LANES];
    for j in 0..LANES {
        let z = s[j] * s[j];
        let z2 = z * z;
        let z4 = z2 * z2;
        let z8 = z4 * z4;
        let p01 = 1.0 + z * (1.0 / 3.0);
        let p23 = 1.0 / 5.0 + z * (1.0 / 7.0);
        let p45 = 1.0 / 9.0 + z * (1.0 / 11.0);
        let p67 = 1.0 / 13.0 + z * (1.0 / 15.0);
        let p89 = 1.0 / 17.0 + z * (1.0 / 19.0);
        let q03 = p01 + z2 * p23;
        let q47 = p45 + z2 * p67;
        let q8 = p89 + z2 * (1.0 / 21.0);
        let poly = (q03 + z4 * q47) + z8 * q8;
        let ln_m = LN_1_5 + 2.0 * s[j] * poly;
        let t0 = theta * (e[j] * LN2_HI + (e[j] * LN2_LO + ln_m));
        t[j] = if t0 > -708.0 { t0 } else { -708.0 };
    }
    for j in 0..LANES {
        let kk = t[j] * std::f64::consts::LOG2_E + ROUND_MAGIC;
        let kf = kk - ROUND_MAGIC;
        let r = (t[j] - kf * LN2_HI) - kf * LN2_LO;
        let r2 = r * r;
        let r4 = r2 * r2;
        let r8 = r4 * r4;
        let c01 = 1.0 + r;
        let c23 = 1.0 / 2.0 + r * (1.0 / 6.0);
        let c45 = 1.0 / 24.0 + r * (1.0 / 120.0);
        let c67 = 1.0 / 720.0 + r * (1.0 / 5040.0);
        let c89 = 1.0 / 40_320.0 + r * (1.0 / 362_880.0);
        let c1011 = 1.0 / 3_628_800.0 + r * (1.0 / 39_916_800.0);
        let c1213 = 1.0 / 479_001_600.0 + r * (1.0 / 6_227_020_800.0);
        let d03 = c01 + r2 * c23;
        let d47 = c45 + r2 * c67;
        let d811 = c89 + r2 * c1011;
        let er = (d03 + r4 * d47) + r8 * (d811 + r4 * c1213);
        // 2^k from the low bits of kk (k + 2^51 in two's complement).
        let two_k = f64::from_bits(kk.to_bits().wrapping_add(1023) << 52);
        out[j] = er * two_k;
    }
}

/// ψ_θ(ι·|r|) summed over records: the score kernel. `Copy`, cheap to build.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TruncatedScore {
    theta: f64,
    iota: f64,
    ln_theta: f64,
}

impl TruncatedScore {
    /// The kernel for θ ∈ (1, 2] and ι > 0 (checked by the algorithm).
    pub fn new(theta: f64, iota: f64) -> Self {
        TruncatedScore {
            theta,
            iota,
            ln_theta: theta.ln(),
        }
    }
    pub fn theta(&self) -> f64 {
        self.theta
    }
    pub fn iota(&self) -> f64 {
        self.iota
    }

    /// S(w) = Σ_i ψ_θ(ι|y_i − ⟨x_i, w⟩|) over all records, sequentially, blocks of
    /// [`RECORD_CHUNK`] records added in order (the same arithmetic as [`Self::sums`]).
    pub fn sum(&self, data: &Dataset, w: &[f64]) -> f64 {
        let mut out = [0.0];
        self.sums(data, w, &mut out);
        out[0]
    }

    /// As [`Self::sum`], parallel over record blocks; the block values are added in
    /// block order, so the result is bit-identical to [`Self::sum`] for any number of
    /// threads.
    pub fn sum_par(&self, data: &Dataset, w: &[f64]) -> f64 {
        let d = data.d();
        let parts: Vec<f64> = data
            .y()
            .par_chunks(RECORD_CHUNK)
            .enumerate()
            .map_init(Vec::new, |scratch, (b, y)| {
                let start = b * RECORD_CHUNK;
                self.chunk(data.block(start, start + y.len(), scratch), y, d, w)
            })
            .collect();
        let mut acc = Compensated::default();
        for v in parts {
            acc.add(v);
        }
        acc.value()
    }

    /// `out[j] = S(w_j)` for the candidates `cands` (m × d, row-major; `out.len() = m`),
    /// single-threaded. Loops over record blocks outside and candidates inside, so each
    /// block of records is read from memory once per call and stays in L1 while all
    /// candidates are scored; `out[j]` accumulates the block values in block order with
    /// compensated (Neumaier) summation.
    pub fn sums(&self, data: &Dataset, cands: &[f64], out: &mut [f64]) {
        let d = data.d();
        assert_eq!(
            cands.len(),
            out.len() * d,
            "cands must hold out.len() points"
        );
        let mut acc = vec![Compensated::default(); out.len()];
        match d {
            1 => self.sums_const::<1>(data, cands, &mut acc),
            2 => self.sums_const::<2>(data, cands, &mut acc),
            3 => self.sums_const::<3>(data, cands, &mut acc),
            4 => self.sums_const::<4>(data, cands, &mut acc),
            _ => {
                let mut scratch = Vec::new();
                for (b, y) in data.y().chunks(RECORD_CHUNK).enumerate() {
                    let start = b * RECORD_CHUNK;
                    let x = data.block(start, start + y.len(), &mut scratch);
                    for (a, w) in acc.iter_mut().zip(cands.chunks_exact(d)) {
                        a.add(self.chunk_dyn(x, y, d, w));
                    }
                }
            }
        }
        for (o, a) in out.iter_mut().zip(&acc) {
            *o = a.value();
        }
    }

    fn sums_const<const D: usize>(&self, data: &Dataset, cands: &[f64], acc: &mut [Compensated]) {
        let mut scratch = Vec::new();
        for (b, y) in data.y().chunks(RECORD_CHUNK).enumerate() {
            let start = b * RECORD_CHUNK;
            let x = data.block(start, start + y.len(), &mut scratch);
            for (a, w) in acc.iter_mut().zip(cands.chunks_exact(D)) {
                let w: &[f64; D] = w.try_into().expect("chunks_exact(D)");
                a.add(if self.theta == 2.0 {
                    chunk_two::<D>(x, y, w, self.iota)
                } else {
                    chunk_theta::<D>(x, y, w, self.iota, self.theta, self.ln_theta)
                });
            }
        }
    }

    /// Σ ψ over one block of at most [`RECORD_CHUNK`] records.
    fn chunk(&self, x: &[f64], y: &[f64], d: usize, w: &[f64]) -> f64 {
        macro_rules! fixed {
            ($D:literal) => {{
                let w: &[f64; $D] = w.try_into().expect("w has length d");
                if self.theta == 2.0 {
                    chunk_two::<$D>(x, y, w, self.iota)
                } else {
                    chunk_theta::<$D>(x, y, w, self.iota, self.theta, self.ln_theta)
                }
            }};
        }
        match d {
            1 => fixed!(1),
            2 => fixed!(2),
            3 => fixed!(3),
            4 => fixed!(4),
            _ => self.chunk_dyn(x, y, d, w),
        }
    }

    fn chunk_dyn(&self, x: &[f64], y: &[f64], d: usize, w: &[f64]) -> f64 {
        let iota = self.iota;
        let k = y.len();
        let mut p = [1.0f64; LANES];
        if self.theta == 2.0 {
            for (i, (xi, yi)) in x.chunks_exact(d).zip(y).enumerate() {
                p[i % LANES] *= two_factor(iota, yi - dot_dyn(xi, w));
            }
            k as f64 * LN_2 - product(&p).ln()
        } else {
            let mut a = [0.0; LANES];
            let mut g = [0.0; LANES];
            for (xb, yb) in x.chunks(LANES * d).zip(y.chunks(LANES)) {
                a.iter_mut().for_each(|v| *v = 1.0);
                for (j, (xi, yi)) in xb.chunks_exact(d).zip(yb).enumerate() {
                    a[j] = unit_arg(iota, yi - dot_dyn(xi, w));
                }
                theta_factors(&a, self.theta, &mut g);
                for (j, pj) in p.iter_mut().enumerate().take(yb.len()) {
                    *pj *= g[j];
                }
            }
            k as f64 * self.ln_theta - product(&p).ln()
        }
    }
}

/// Neumaier's compensated sum: the result is within about one rounding of the exact sum
/// of the added values, whatever their number (see the privacy note in the module docs).
#[derive(Debug, Clone, Copy, Default)]
struct Compensated {
    sum: f64,
    comp: f64,
}

impl Compensated {
    #[inline]
    fn add(&mut self, v: f64) {
        let t = self.sum + v;
        if self.sum.abs() >= v.abs() {
            self.comp += (self.sum - t) + v;
        } else {
            self.comp += (v - t) + self.sum;
        }
        self.sum = t;
    }
    #[inline]
    fn value(&self) -> f64 {
        self.sum + self.comp
    }
}

#[inline(always)]
fn dot_dyn(x: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for (a, b) in x.iter().zip(w) {
        s += a * b;
    }
    s
}

#[inline(always)]
fn dot<const D: usize>(x: &[f64], w: &[f64; D]) -> f64 {
    let mut s = 0.0;
    for c in 0..D {
        s += x[c] * w[c];
    }
    s
}

#[inline(always)]
fn product(p: &[f64; LANES]) -> f64 {
    ((p[0] * p[1]) * (p[2] * p[3])) * ((p[4] * p[5]) * (p[6] * p[7]))
}

/// θ = 2: g = 1 + b², b = max(1 − ι|r|, 0) ∈ [0, 1], so g ∈ [1, 2] exactly (also after
/// rounding); a NaN residual gives b = 0 (the comparison is false), i.e. ψ = log 2.
#[inline(always)]
fn two_factor(iota: f64, r: f64) -> f64 {
    let t = 1.0 - iota * r.abs();
    let b = if t > 0.0 { t } else { 0.0 };
    1.0 + b * b
}

/// a = min(ι|r|, 1), with NaN ↦ 1.
#[inline(always)]
fn unit_arg(iota: f64, r: f64) -> f64 {
    let t = iota * r.abs();
    if t < 1.0 {
        t
    } else {
        1.0
    }
}

/// θ < 2: g = θ(1 − a) + a^θ, clamped into [1, θ] (NaN-safe comparisons).
#[inline(always)]
fn theta_factors(a: &[f64; LANES], theta: f64, g: &mut [f64; LANES]) {
    let mut pw = [0.0; LANES];
    pow_lanes(a, theta, &mut pw);
    for j in 0..LANES {
        let v = theta * (1.0 - a[j]) + pw[j];
        let v = if v > 1.0 { v } else { 1.0 };
        g[j] = if v < theta { v } else { theta };
    }
}

fn chunk_two<const D: usize>(x: &[f64], y: &[f64], w: &[f64; D], iota: f64) -> f64 {
    let k = y.len();
    let mut p = [1.0f64; LANES];
    let mut xs = x.chunks_exact(LANES * D);
    let mut ys = y.chunks_exact(LANES);
    for (xb, yb) in (&mut xs).zip(&mut ys) {
        for j in 0..LANES {
            p[j] *= two_factor(iota, yb[j] - dot::<D>(&xb[j * D..], w));
        }
    }
    for (j, (xi, yi)) in xs
        .remainder()
        .chunks_exact(D)
        .zip(ys.remainder())
        .enumerate()
    {
        p[j] *= two_factor(iota, yi - dot::<D>(xi, w));
    }
    k as f64 * LN_2 - product(&p).ln()
}

fn chunk_theta<const D: usize>(
    x: &[f64],
    y: &[f64],
    w: &[f64; D],
    iota: f64,
    theta: f64,
    ln_theta: f64,
) -> f64 {
    let k = y.len();
    let mut p = [1.0f64; LANES];
    let mut a = [0.0; LANES];
    let mut g = [0.0; LANES];
    let mut xs = x.chunks_exact(LANES * D);
    let mut ys = y.chunks_exact(LANES);
    for (xb, yb) in (&mut xs).zip(&mut ys) {
        for j in 0..LANES {
            a[j] = unit_arg(iota, yb[j] - dot::<D>(&xb[j * D..], w));
        }
        theta_factors(&a, theta, &mut g);
        for j in 0..LANES {
            p[j] *= g[j];
        }
    }
    let rest = ys.remainder();
    if !rest.is_empty() {
        a.iter_mut().for_each(|v| *v = 1.0);
        for (j, (xi, yi)) in xs.remainder().chunks_exact(D).zip(rest).enumerate() {
            a[j] = unit_arg(iota, yi - dot::<D>(xi, w));
        }
        theta_factors(&a, theta, &mut g);
        for j in 0..rest.len() {
            p[j] *= g[j];
        }
    }
    k as f64 * ln_theta - product(&p).ln()
}
