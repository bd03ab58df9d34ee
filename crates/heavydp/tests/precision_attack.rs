//! The precision attack on floating-point Laplace noise (Mironov 2012, "On significance of
//! the least significant bits for differential privacy", CCS) and the default sampler's
//! resistance to it.
//!
//! Two neighbouring inputs, 0 and 1, sensitivity Δ = 1, ε = 0.1 (scale b = 10).
//!
//! * The textbook sampler `v + b·sign·(−ln U)` with a 53-bit uniform U can only produce
//!   the doubles fl(v + s·fl(b·(−ln(k/2⁵³)))), k = 1 … 2⁵³ − 1: a set with holes, and the
//!   holes of v = 0 and v = 1 differ. The attacker checks whether an output is in the set
//!   reachable from the other input (by inverting ln around the output); when it is not,
//!   the output identifies the input **with certainty**. ε-DP requires
//!   P₀(E) ≤ e^ε·P₁(E) for every event E, so any event with P₁(E) = 0 < P₀(E) breaks it
//!   for every ε; here a large fraction of the outputs falls in such events.
//! * The default sampler ([`LaplaceMechanism`]) releases g·(round(v/g) + Z) with
//!   g = 2⁻⁴⁰ and Z exact discrete Laplace: every output is a multiple of the public g,
//!   and every multiple of g is possible under both inputs. The same attack identifies
//!   nothing, and the empirical likelihood ratios of value bins and of low-order-bit
//!   classes stay within e^ε up to sampling error.

use heavydp::mechanisms::{LaplaceMechanism, Mechanism};
use heavydp::noise::snap::{Grid, Spread};
use heavydp::noise::{open01, rng_from_seed};
use rand::RngCore;

const B: f64 = 10.0; // Δ/ε with Δ = 1, ε = 0.1
const EPS: f64 = 0.1;
const N: usize = 20_000;
const TWO53: f64 = 9_007_199_254_740_992.0;

/// The textbook floating-point Laplace sampler: v + b·sign·(−ln U), U = k/2⁵³.
fn naive_laplace<R: RngCore>(v: f64, b: f64, rng: &mut R) -> f64 {
    let sign = if rng.next_u32() >> 31 == 1 { 1.0 } else { -1.0 };
    v + sign * (b * -open01(rng).ln())
}

/// Whether `y` is an output the naive sampler can produce from input `v`: is there a
/// k ∈ [1, 2⁵³) and a sign s with fl(v + s·fl(b·(−ln(k/2⁵³)))) = y? Only the k whose
/// noise lies within a few ulps of s·(y − v) can qualify; they are found by inverting ln.
fn reachable(y: f64, v: f64, b: f64) -> bool {
    let ulp = |x: f64| (x.abs().next_up() - x.abs()).max(f64::MIN_POSITIVE);
    for s in [1.0, -1.0] {
        let mid = s * (y - v);
        let tol = 4.0 * (ulp(y) + ulp(v) + ulp(mid));
        let (m_lo, m_hi) = ((mid - tol).max(0.0), mid + tol);
        if m_hi <= 0.0 {
            continue;
        }
        let k_lo = ((TWO53 * (-m_hi / b).exp()).floor() - 4.0).max(1.0) as u64;
        let k_hi = ((TWO53 * (-m_lo / b).exp()).ceil() + 4.0).min(TWO53 - 1.0) as u64;
        assert!(
            k_hi.saturating_sub(k_lo) < 100_000,
            "window too wide at y = {y}"
        );
        for k in k_lo..=k_hi {
            let noise = b * -(k as f64 * (1.0 / TWO53)).ln();
            if v + s * noise == y {
                return true;
            }
        }
    }
    false
}

#[test]
fn naive_float_laplace_leaks_the_input_through_its_low_order_bits() {
    let mut rng = rng_from_seed(2012);
    let from0: Vec<f64> = (0..N).map(|_| naive_laplace(0.0, B, &mut rng)).collect();
    let from1: Vec<f64> = (0..N).map(|_| naive_laplace(1.0, B, &mut rng)).collect();
    // The membership test is exact: every output is reachable from its own input.
    assert!(from0.iter().all(|&y| reachable(y, 0.0, B)));
    assert!(from1.iter().all(|&y| reachable(y, 1.0, B)));
    // Outputs impossible under the other input identify the input with certainty.
    let only0 = from0.iter().filter(|&&y| !reachable(y, 1.0, B)).count() as f64 / N as f64;
    let only1 = from1.iter().filter(|&&y| !reachable(y, 0.0, B)).count() as f64 / N as f64;
    eprintln!("naive sampler: {only0:.3} of the outputs of input 0 and {only1:.3} of input 1 are impossible under the other input");
    // E = "unreachable from 1" has P₁(E) = 0 but P₀(E) ≥ 0.3: no finite ε covers it
    // (ε = 0.1 would allow P₀(E) ≤ e^0.1 · 0 = 0).
    assert!(only0 > 0.3, "{only0}");
    assert!(only1 > 0.3, "{only1}");
}

#[test]
fn default_laplace_mechanism_resists_the_attack() {
    let m = LaplaceMechanism::new(1.0, EPS).unwrap();
    let g = Grid::new(1.0, 1, Spread::L1);
    let h = g.spacing();
    assert_eq!(h, 2f64.powi(-40));
    let mut rng = rng_from_seed(2012);
    let from0: Vec<f64> = (0..N)
        .map(|_| m.run_uncharged(&[0.0], &mut rng)[0])
        .collect();
    let from1: Vec<f64> = (0..N)
        .map(|_| m.run_uncharged(&[1.0], &mut rng)[0])
        .collect();
    // Every output is a multiple k·g of the public grid (|k| < 2⁵³, so k is exact), and
    // the discrete Laplace noise gives every integer k positive probability under both
    // inputs (round(0/g) = 0 and round(1/g) = 2⁴⁰ are integers): no output is impossible
    // under the other input.
    let units = |y: f64| {
        let k = y / h;
        assert!(
            k.fract() == 0.0 && k.abs() < 2f64.powi(53),
            "{y} is off the grid"
        );
        k as i64
    };
    let k0: Vec<i64> = from0.iter().map(|&y| units(y)).collect();
    let k1: Vec<i64> = from1.iter().map(|&y| units(y)).collect();
    // So the attack's certain identifications are 0 of 2N here: the support of either
    // input is all of g·ℤ (in range), and every observed output is on it (`units`).
    // Likelihood ratios of value bins (width 2 = b/5) within e^ε up to sampling error.
    let bins = |ys: &[f64]| {
        let mut c = vec![0usize; 40];
        for &y in ys {
            let i = ((y + 40.0) / 2.0).floor();
            if (0.0..40.0).contains(&i) {
                c[i as usize] += 1;
            }
        }
        c
    };
    check_ratios("value bins", &bins(&from0), &bins(&from1));
    // Likelihood ratios of the low-order bits of k (k mod 256): the channel the attack
    // on the naive sampler uses.
    let low = |ks: &[i64]| {
        let mut c = vec![0usize; 16];
        for &k in ks {
            c[(k.rem_euclid(256) / 16) as usize] += 1;
        }
        c
    };
    check_ratios("low-order bits", &low(&k0), &low(&k1));
    // And the lowest bit alone.
    let parity = |ks: &[i64]| {
        let odd = ks.iter().filter(|k| *k % 2 != 0).count();
        vec![ks.len() - odd, odd]
    };
    check_ratios("parity", &parity(&k0), &parity(&k1));
}

/// Every cell with enough mass has n₀/n₁ and n₁/n₀ below e^ε plus 5 standard errors of
/// the log-ratio.
fn check_ratios(what: &str, c0: &[usize], c1: &[usize]) {
    let mut used = 0;
    for (&a, &b) in c0.iter().zip(c1) {
        if a < 400 || b < 400 {
            continue;
        }
        used += 1;
        let (a, b) = (a as f64, b as f64);
        let log_ratio = (a / b).ln().abs();
        let se = (1.0 / a + 1.0 / b).sqrt();
        assert!(
            log_ratio <= EPS + 5.0 * se,
            "{what}: cell counts {a} vs {b}, |log ratio| {log_ratio} > ε + 5 se"
        );
    }
    assert!(used >= 2, "{what}: too few cells");
}
