//! ℓ2 clipping and the simple clipping mean estimator — Algorithm 2 of Zhao, Wu, Liu,
//! Wang, Fan & Li, *Differential Private Stochastic Optimization with Heavy-tailed Data:
//! Towards Optimal Rates*. Spec: `spec/zhao-optimal-rates-heavy-tailed.md` §3 (and §9
//! Z12, Z14, Z15). Used by the `clip` mean ([`crate::estimators::private_mean`]), by the
//! group means of Algorithm 3 ([`crate::estimators::iterative_updating`]) and by the
//! `clipped-gd` gradient estimator.
//!
//! # Algorithm 2
//!
//! ```text
//! Clip(x, R) = min{1, R/‖x‖₂}·x          (Clip(0, R) = 0)
//! Y_i ← Clip(X_i, R),  i = 1 … n
//! μ̂  ← (1/n) Σ_i Y_i + W,   W ∼ N(0, (2R²/(ρ n²)) I_d)
//! ```
//!
//! # Privacy
//!
//! Lemma 4: every Y_i lies in the ℓ2 ball of radius R, so replacing one record moves the
//! clipped mean by at most ‖Y_i − Y_i'‖/n ≤ **2R/n** in ℓ2 ([`clip_sensitivity`]; attained
//! by two records clipped to opposite ends of the R-ball). The Gaussian mechanism with
//! σ = √(2R²/(ρn²)) = (2R/n)/√(2ρ) ([`clip_sigma`]) is then ρ-zCDP (Lemma 2), and by
//! Lemma 1(4) (ρ + 2√(ρ ln(1/δ)), δ)-DP. A record with any NaN or ±∞ entry is clipped to
//! the zero vector: a fixed point of the R-ball, so the sensitivity bound holds for every
//! possible record. (The bound is exact in real arithmetic; the floating-point norms
//! and sums can exceed it by a few units in the last place — the usual caveat of
//! continuous mechanisms, `docs/privacy.md`.)
//!
//! # Accuracy (Theorem 2)
//!
//! If E|⟨u, X⟩|^p ≤ M^p for every unit u (p ≥ 2), then with probability 1 − β,
//! ‖μ̂ − μ‖ ≤ max{√((12M²/n) ln(2·6^d/β)), (8R/n) ln(2·6^d/β)} + d^{p/2}M^pR^{1−p}/(p − 1)
//! + (4R/(n√ρ))√(ln(2·6^d/β)): sampling, clipping bias and noise.
//!
//! # Parameters
//!
//! | name | paper symbol | default | source |
//! |---|---|---|---|
//! | `radius` | R | M√d·(n√ρ/√d)^{1/p} ([`clip_default_radius`]) | Theorem 4's R without T, scaled by M (spec §3, Z12) |
//! | `rho` | ρ | from the target (ε, δ): eq. (15) for ε ≤ 1, exact inversion otherwise | Theorem 3, spec Z14 ([`crate::privacy::zhao_target_rho`]) |
//! | `p`, `M` | p, M | user-declared moment bound, 2 and 1 | Assumption 1(c) |
//!
//! # Determinism
//!
//! [`clipped_row_sum`] runs in parallel (rayon) over fixed blocks of
//! [`crate::linalg::block_rows`]`(d)` rows, each with its own accumulator; the partial
//! sums are added in block order. The block size depends only on d, so the result is
//! bit-identical for any number of threads.
//!
//! # Example
//!
//! ```
//! use heavydp::estimators::clip::{clip_l2, clipped_row_sum, clip_sensitivity};
//! let mut v = vec![3.0, 4.0];
//! clip_l2(&mut v, 1.0);
//! assert!((v[0] - 0.6).abs() < 1e-15 && (v[1] - 0.8).abs() < 1e-15);
//! let x = vec![3.0, 4.0, 0.1, 0.0];
//! let mut sum = vec![0.0; 2];
//! clipped_row_sum(2, 2, 1.0, |i, buf| buf.copy_from_slice(&x[2 * i..2 * i + 2]), &mut sum);
//! assert!((sum[0] - 0.7).abs() < 1e-15);
//! assert_eq!(clip_sensitivity(1.0, 2), 1.0);
//! ```

use crate::linalg::{block_rows, dot};
use crate::privacy::{div_up, up};
use rayon::prelude::*;

/// ‖v‖₂ without overflow or underflow: the plain √⟨v, v⟩ when that is a normal finite
/// number, a rescaled sum otherwise. Assumes finite entries.
#[inline]
pub(crate) fn l2_norm(v: &[f64]) -> f64 {
    let s = dot(v, v);
    if s.is_finite() && s >= 1e-290 {
        return s.sqrt();
    }
    l2_norm_rescaled(v)
}

/// [`l2_norm`] where ⟨v, v⟩ overflows or is subnormal: the sum of the squares of v over
/// its largest magnitude.
#[cold]
#[inline(never)]
fn l2_norm_rescaled(v: &[f64]) -> f64 {
    let amax = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if amax == 0.0 {
        return 0.0;
    }
    let inv = 1.0 / amax;
    let ss: f64 = v.iter().map(|x| (x * inv) * (x * inv)).sum();
    amax * ss.sqrt()
}

/// Clip(x, R) = min{1, R/‖x‖₂}·x in place (spec §0). The zero vector stays 0; a vector
/// with any NaN or ±∞ entry becomes the zero vector (a fixed, in-ball value per record,
/// which keeps the sensitivity 2R/m). R = ∞ leaves finite vectors unchanged.
#[inline]
pub fn clip_l2(v: &mut [f64], radius: f64) {
    if v.iter().any(|x| !x.is_finite()) {
        v.iter_mut().for_each(|x| *x = 0.0);
        return;
    }
    let norm = l2_norm(v);
    if norm > radius {
        let s = radius / norm;
        v.iter_mut().for_each(|x| *x *= s);
    }
}

/// Σ_{i<n} Clip(row(i), R) into `out` (length d). `row(i, buf)` writes record i into
/// `buf` (length d, zeroed before each call). Parallel over fixed blocks of
/// [`block_rows`]`(d)` rows summed in block order: bit-identical for any thread count.
///
/// # Panics
/// If `out.len() != d`.
pub fn clipped_row_sum<F: Fn(usize, &mut [f64]) + Sync>(
    n: usize,
    d: usize,
    radius: f64,
    row: F,
    out: &mut [f64],
) {
    assert_eq!(out.len(), d, "out must have length d");
    let br = block_rows(d);
    let nb = n.div_ceil(br);
    let partials: Vec<Vec<f64>> = (0..nb)
        .into_par_iter()
        .map(|b| {
            let mut acc = vec![0.0; d];
            let mut buf = vec![0.0; d];
            for i in b * br..((b + 1) * br).min(n) {
                buf.iter_mut().for_each(|x| *x = 0.0);
                row(i, &mut buf);
                clip_l2(&mut buf, radius);
                for (a, v) in acc.iter_mut().zip(&buf) {
                    *a += v;
                }
            }
            acc
        })
        .collect();
    add_in_block_order(partials, out);
}

/// `out` = 0 + p₀ + p₁ + … (coordinate-wise, in the order given): the blocks' partial
/// sums added in block order, the same bits for any thread count.
pub(crate) fn add_in_block_order(partials: Vec<Vec<f64>>, out: &mut [f64]) {
    out.iter_mut().for_each(|o| *o = 0.0);
    for p in partials {
        for (o, v) in out.iter_mut().zip(p) {
            *o += v;
        }
    }
}

/// Per-group clipped sums: for g < k, `out[g·d..(g+1)·d]` = Σ_{t<m} Clip(row(order[g·m + t]), R).
/// Work items are (group, block of [`block_rows`]`(d)` rows of that group), run in
/// parallel and added per group in block order: bit-identical for any thread count.
pub(crate) fn clipped_group_sums<F: Fn(usize, &mut [f64]) + Sync>(
    order: &[usize],
    m: usize,
    k: usize,
    d: usize,
    radius: f64,
    row: &F,
    out: &mut [f64],
) {
    assert_eq!(out.len(), k * d, "out must have length k·d");
    assert!(order.len() >= k * m, "order must hold k·m indices");
    let br = block_rows(d);
    let nbg = m.div_ceil(br).max(1);
    let partials: Vec<Vec<f64>> = (0..k * nbg)
        .into_par_iter()
        .map(|item| {
            let (g, b) = (item / nbg, item % nbg);
            let mut acc = vec![0.0; d];
            let mut buf = vec![0.0; d];
            let start = g * m;
            for t in (b * br).min(m)..((b + 1) * br).min(m) {
                buf.iter_mut().for_each(|x| *x = 0.0);
                row(order[start + t], &mut buf);
                clip_l2(&mut buf, radius);
                for (a, v) in acc.iter_mut().zip(&buf) {
                    *a += v;
                }
            }
            acc
        })
        .collect();
    out.iter_mut().for_each(|o| *o = 0.0);
    for (item, p) in partials.into_iter().enumerate() {
        let g = item / nbg;
        for (o, v) in out[g * d..(g + 1) * d].iter_mut().zip(p) {
            *o += v;
        }
    }
}

/// ℓ2 sensitivity of the mean of m clipped records under replace-one: 2R/m (Lemma 4),
/// rounded up (it enters privacy charges). Infinite for m = 0.
pub fn clip_sensitivity(radius: f64, m: usize) -> f64 {
    div_up(2.0 * radius, m as f64)
}

/// Noise standard deviation of Algorithm 2 / eq. (23): σ = √(2R²/(ρ m²)) =
/// (2R/m)/√(2ρ), which makes the clipped mean ρ-zCDP (Lemma 2). Rounded up (a larger σ
/// only lowers the charged ρ). ρ = ∞ gives σ = 0 (the non-private run).
pub fn clip_sigma(radius: f64, rho: f64, m: usize) -> f64 {
    if rho.is_infinite() {
        return 0.0;
    }
    up(clip_sensitivity(radius, m) / (2.0 * rho).sqrt())
}

/// The public default clipping radius of the `clip` mean (spec §3, Z12):
/// R = M·√d·(n√ρ/√d)^{1/p} — Theorem 4's choice without T, scaled by the declared
/// moment bound M. ρ = ∞ gives ∞.
pub fn clip_default_radius(m_bound: f64, p: f64, d: usize, n: usize, rho: f64) -> f64 {
    let sd = (d as f64).sqrt();
    m_bound * sd * (n as f64 * rho.sqrt() / sd).powf(1.0 / p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::norm2;
    use crate::privacy::gaussian_zcdp_rho;
    use crate::test_support::{hand_clipped_sum, on_threads};

    #[test]
    fn clip_l2_cases() {
        let mut v = vec![3.0, 4.0];
        clip_l2(&mut v, 10.0);
        assert_eq!(v, vec![3.0, 4.0]);
        clip_l2(&mut v, 1.0);
        assert!((v[0] - 0.6).abs() < 1e-15 && (v[1] - 0.8).abs() < 1e-15);
        let mut z = vec![0.0; 3];
        clip_l2(&mut z, 1.0);
        assert_eq!(z, vec![0.0; 3]);
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut w = vec![1.0, bad, 2.0];
            clip_l2(&mut w, 5.0);
            assert_eq!(w, vec![0.0; 3]);
        }
        // overflow-safe: ⟨v, v⟩ overflows but the direction is kept
        let mut big = vec![3e200, -4e200];
        clip_l2(&mut big, 2.0);
        assert!((big[0] - 1.2).abs() < 1e-15 && (big[1] + 1.6).abs() < 1e-15);
        // underflow-safe: tiny vectors are inside the ball and untouched
        let mut tiny = vec![3e-200, 4e-200];
        clip_l2(&mut tiny, 1e-199);
        assert_eq!(tiny, vec![3e-200, 4e-200]);
        clip_l2(&mut tiny, 2.5e-200);
        assert!((tiny[0] - 1.5e-200).abs() < 1e-214);
        // R = ∞: unchanged
        let mut u = vec![1e300, 1e300];
        clip_l2(&mut u, f64::INFINITY);
        assert_eq!(u, vec![1e300, 1e300]);
        // the clipped norm is R up to rounding
        let mut r = vec![1.0, 2.0, 3.0, 4.0, 5.0];
        clip_l2(&mut r, 0.7);
        assert!((norm2(&r) - 0.7).abs() < 1e-15);
    }

    #[test]
    fn clipped_row_sum_matches_hand_loop_and_is_thread_invariant() {
        let (n, d) = (9000, 64); // block_rows(64) = 4096: three blocks
        let x: Vec<f64> = (0..n * d)
            .map(|i| ((i as f64) * 0.618_033_988_7).sin() * (1.0 + (i % 97) as f64))
            .collect();
        let radius = 20.0;
        let fill = |i: usize, buf: &mut [f64]| buf.copy_from_slice(&x[i * d..(i + 1) * d]);
        // hand-written loop: min{1, R/‖x‖}·x summed row by row
        let hand = hand_clipped_sum(&x, d, radius);
        let run = |threads: usize| {
            let mut out = vec![0.0; d];
            on_threads(threads, || clipped_row_sum(n, d, radius, fill, &mut out));
            out
        };
        let one = run(1);
        assert_eq!(one, run(3));
        assert_eq!(one, run(4));
        for j in 0..d {
            assert!((one[j] - hand[j]).abs() < 1e-9 * (1.0 + hand[j].abs()));
        }
        // the grouped variant agrees with one call per group, bitwise and for any thread count
        let (k, m) = (3, 2500);
        let order: Vec<usize> = (0..n).rev().collect();
        let grouped = |threads: usize| {
            let mut out = vec![0.0; k * d];
            on_threads(threads, || {
                clipped_group_sums(&order, m, k, d, radius, &fill, &mut out)
            });
            out
        };
        let g1 = grouped(1);
        assert_eq!(g1, grouped(4));
        for g in 0..k {
            let mut s = vec![0.0; d];
            clipped_row_sum(m, d, radius, |t, buf| fill(order[g * m + t], buf), &mut s);
            assert_eq!(&g1[g * d..(g + 1) * d], &s[..]);
        }
    }

    #[test]
    fn sensitivity_is_attained_by_opposite_records() {
        // Neighbours: one record at +10R·e₁ vs −10R·e₁; every other record equal.
        let (m, d, radius) = (7, 3, 2.5);
        let base: Vec<f64> = (0..m * d).map(|i| (i as f64).cos()).collect();
        let mean_of = |first: [f64; 3]| {
            let mut s = vec![0.0; d];
            clipped_row_sum(
                m,
                d,
                radius,
                |i, buf| {
                    if i == 0 {
                        buf.copy_from_slice(&first)
                    } else {
                        buf.copy_from_slice(&base[i * d..(i + 1) * d])
                    }
                },
                &mut s,
            );
            s.iter().map(|v| v / m as f64).collect::<Vec<f64>>()
        };
        let a = mean_of([25.0, 0.0, 0.0]);
        let b = mean_of([-25.0, 0.0, 0.0]);
        let diff: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
        let delta = clip_sensitivity(radius, m);
        assert!((norm2(&diff) - 2.0 * radius / m as f64).abs() < 1e-15);
        assert!(delta >= 2.0 * radius / m as f64 && delta - 2.0 * radius / 7.0 < 1e-15);
        // a NaN record is the zero vector: the change is at most R/m
        let c = mean_of([f64::NAN, 1.0, 1.0]);
        let diff: Vec<f64> = a.iter().zip(&c).map(|(x, y)| x - y).collect();
        assert!(norm2(&diff) <= radius / m as f64 + 1e-15);
    }

    #[test]
    fn sigma_and_default_radius_formulas() {
        // σ = √(2R²/(ρ m²)): R = 3, ρ = 0.5, m = 10 ⇒ √(18/50) = 0.6
        let s = clip_sigma(3.0, 0.5, 10);
        assert!(s >= 0.6 && s - 0.6 < 1e-15, "{s}");
        // the Gaussian mechanism with this σ on sensitivity 2R/m is (at most) ρ-zCDP
        let rho = gaussian_zcdp_rho(clip_sensitivity(3.0, 10), s);
        assert!(rho <= 0.5 * (1.0 + 1e-14), "{rho}");
        assert_eq!(clip_sigma(3.0, f64::INFINITY, 10), 0.0);
        // R = M√d (n√ρ/√d)^{1/p}: M = 2, d = 4, n = 400, ρ = 0.25, p = 2 ⇒ 2·2·(400·0.5/2)^{1/2} = 40
        assert!((clip_default_radius(2.0, 2.0, 4, 400, 0.25) - 40.0).abs() < 1e-12);
        // p = 4: 2·2·100^{1/4} = 4√10
        assert!((clip_default_radius(2.0, 4.0, 4, 400, 0.25) - 4.0 * 10f64.sqrt()).abs() < 1e-12);
        assert_eq!(
            clip_default_radius(1.0, 2.0, 4, 400, f64::INFINITY),
            f64::INFINITY
        );
    }
}
