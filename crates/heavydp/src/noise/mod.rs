//! Random generators and noise samplers.
//!
//! Every random function in heavydp takes `rng: &mut R` with `R: RngCore` as its
//! last argument; there is no global generator. The generator the CLI and the
//! experiments use is [`HeavyRng`] = ChaCha20 (a cryptographically secure stream
//! cipher generator): seeded from OS entropy when no seed is given
//! ([`rng_from_os`]), or reproducibly from a `u64` seed ([`rng_from_seed`]), giving
//! the same stream on every platform.
//!
//! # Private noise: [`exact`] and [`snap`]
//!
//! Noise added to private values never comes from the floating-point samplers below. A
//! floating-point Laplace sample `v + b·sign·(−ln U)` can only take the doubles reachable
//! from v, and those sets differ between neighbouring inputs (Mironov 2012); the test
//! `tests/precision_attack.rs` identifies the input of such a sampler with certainty from
//! most of its outputs. Instead, every mechanism of [`crate::mechanisms`] snaps its input to
//! a public power-of-two grid, adds noise drawn **exactly** with integer arithmetic
//! ([`exact`]: discrete Laplace, discrete Gaussian, Bernoulli(e^{−γ}), the exponential
//! mechanism, after Canonne, Kamath & Steinke 2020) and maps the integer back to the grid
//! ([`snap`]). The rounding widens the sensitivity by a relative 2⁻⁴⁰, which the mechanisms
//! charge. The same seed gives the same draws on every machine: the exact samplers use only
//! integer operations on the ChaCha20 stream.
//!
//! # Public randomness: the continuous samplers
//!
//! [`laplace`], [`gaussian`], [`gumbel`], [`add_laplace`], [`add_gaussian`] and [`open01`]
//! are the continuous samplers of the papers (inverse-CDF Laplace, `rand_distr`'s ziggurat
//! Gaussian, Gumbel by −ln(−ln U)), exact only up to floating-point rounding (a 53-bit U
//! truncates the tails: |Lap| ≤ 36.7·b, Gumbel ∈ [−3.6, 36.7]). They are used for synthetic
//! data, experiments and benchmarks, and for objective perturbation's noise vector b, which
//! is drawn from the public zero vector and enters the released minimiser through a
//! continuous-density argument (see `algorithms::objective_perturbation`); no mechanism adds
//! them to a private value, and the exponential mechanism samples exactly
//! ([`exact::exponential_mechanism`]), not by Gumbel-max. The one exception is the streaming
//! Gumbel-max sampler of `l1-regression-expmech`, charged its additive δ (docs/privacy.md §5).

pub mod exact;
pub mod snap;

use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rand_distr::{Distribution, StandardNormal};

/// The named, cryptographically secure generator used everywhere: ChaCha20.
pub type HeavyRng = ChaCha20Rng;

/// A ChaCha20 generator seeded reproducibly from `seed`.
pub fn rng_from_seed(seed: u64) -> HeavyRng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// A ChaCha20 generator seeded from the operating system's entropy source.
pub fn rng_from_os() -> HeavyRng {
    ChaCha20Rng::from_os_rng()
}

/// `Some(seed)` → [`rng_from_seed`], `None` → [`rng_from_os`].
pub fn make_rng(seed: Option<u64>) -> HeavyRng {
    match seed {
        Some(s) => rng_from_seed(s),
        None => rng_from_os(),
    }
}

/// A child seed derived from a base seed and a list of labels (used to give each
/// repetition / component its own reproducible stream). SplitMix64 mixing of an
/// FNV-1a hash of the labels.
pub fn derive_seed(base: u64, labels: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for l in labels {
        for b in l.bytes().chain(std::iter::once(0xff)) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    let mut z = base ^ h;
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A uniform draw in the open interval (0, 1), with 53 random bits.
#[inline]
pub fn open01<R: RngCore + ?Sized>(rng: &mut R) -> f64 {
    loop {
        let u = (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        if u > 0.0 {
            return u;
        }
    }
}

/// A draw from Lap(scale): density (1/(2b)) exp(−|x|/b). `scale = 0` returns 0
/// without consuming randomness (the non-private limit).
#[inline]
pub fn laplace<R: RngCore + ?Sized>(scale: f64, rng: &mut R) -> f64 {
    if scale == 0.0 {
        return 0.0;
    }
    // Exponential magnitude times a random sign: -b ln U, U in (0, 1).
    let sign = if rng.random::<bool>() { 1.0 } else { -1.0 };
    sign * scale * -open01(rng).ln()
}

/// A draw from N(0, σ²). `sigma = 0` returns 0 without consuming randomness.
#[inline]
pub fn gaussian<R: RngCore + ?Sized>(sigma: f64, rng: &mut R) -> f64 {
    if sigma == 0.0 {
        return 0.0;
    }
    let z: f64 = StandardNormal.sample(rng);
    sigma * z
}

/// A standard Gumbel draw: −ln(−ln U), U ∈ (0, 1).
#[inline]
pub fn gumbel<R: RngCore + ?Sized>(rng: &mut R) -> f64 {
    -(-open01(rng).ln()).ln()
}

/// Adds i.i.d. N(0, σ²) noise to every coordinate of `v`.
pub fn add_gaussian<R: RngCore + ?Sized>(v: &mut [f64], sigma: f64, rng: &mut R) {
    if sigma == 0.0 {
        return;
    }
    for x in v.iter_mut() {
        *x += gaussian(sigma, rng);
    }
}

/// Adds i.i.d. Lap(b) noise to every coordinate of `v`.
pub fn add_laplace<R: RngCore + ?Sized>(v: &mut [f64], scale: f64, rng: &mut R) {
    if scale == 0.0 {
        return;
    }
    for x in v.iter_mut() {
        *x += laplace(scale, rng);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::draws;

    /// Kolmogorov–Smirnov distance of a sample against a CDF.
    fn ks(mut xs: Vec<f64>, cdf: impl Fn(f64) -> f64) -> f64 {
        xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let n = xs.len() as f64;
        xs.iter()
            .enumerate()
            .map(|(i, &x)| {
                let f = cdf(x);
                (f - i as f64 / n).abs().max(((i + 1) as f64 / n - f).abs())
            })
            .fold(0.0, f64::max)
    }

    // KS critical value at false-alarm rate ~1e-6: sqrt(-ln(alpha/2)/2)/sqrt(n) ≈ 2.7/sqrt(n).
    const KS_CRIT: f64 = 2.7;

    #[test]
    fn laplace_matches_its_cdf_and_scale() {
        let b = 2.5;
        let n = 200_000;
        let xs = draws(1, n, |r| laplace(b, r));
        let cdf = |x: f64| {
            if x < 0.0 {
                0.5 * (x / b).exp()
            } else {
                1.0 - 0.5 * (-x / b).exp()
            }
        };
        assert!(ks(xs.clone(), cdf) < KS_CRIT / (n as f64).sqrt());
        // E|X| = b: a halved scale would fail this by a mile.
        let mean_abs = xs.iter().map(|x| x.abs()).sum::<f64>() / n as f64;
        assert!(
            (mean_abs - b).abs() < 6.0 * b / (n as f64).sqrt(),
            "{mean_abs}"
        );
    }

    #[test]
    fn gaussian_matches_its_cdf_and_scale() {
        let s = 0.7;
        let n = 200_000;
        let xs = draws(2, n, |r| gaussian(s, r));
        let cdf = |x: f64| 0.5 * libm::erfc(-x / (s * std::f64::consts::SQRT_2));
        assert!(ks(xs.clone(), cdf) < KS_CRIT / (n as f64).sqrt());
        let var = xs.iter().map(|x| x * x).sum::<f64>() / n as f64;
        assert!((var - s * s).abs() < 6.0 * s * s * (2.0 / n as f64).sqrt());
    }

    #[test]
    fn gumbel_matches_its_cdf() {
        let n = 200_000;
        let xs = draws(3, n, gumbel);
        assert!(ks(xs, |x| (-(-x).exp()).exp()) < KS_CRIT / (n as f64).sqrt());
    }

    #[test]
    fn zero_scale_is_exact_and_draws_nothing() {
        let mut a = rng_from_seed(5);
        let mut b = rng_from_seed(5);
        assert_eq!(laplace(0.0, &mut a), 0.0);
        assert_eq!(gaussian(0.0, &mut a), 0.0);
        assert_eq!(a.next_u64(), b.next_u64());
    }

    #[test]
    fn pinned_outputs() {
        // Catch silent changes of the generator or the samplers.
        let mut rng = rng_from_seed(7);
        let l = laplace(1.0, &mut rng);
        let g = gaussian(1.0, &mut rng);
        let u = gumbel(&mut rng);
        let got = [l, g, u];
        let pinned = PINNED;
        for (x, p) in got.iter().zip(pinned.iter()) {
            assert!((x - p).abs() < 1e-15, "got {got:?}");
        }
    }
    const PINNED: [f64; 3] = [-0.1790630002823216, 1.1233397565209726, -0.7050338155686284];

    #[test]
    fn derive_seed_separates_labels() {
        assert_ne!(derive_seed(1, &["a", "b"]), derive_seed(1, &["ab"]));
        assert_ne!(derive_seed(1, &["a"]), derive_seed(2, &["a"]));
        assert_eq!(derive_seed(9, &["x", "y"]), derive_seed(9, &["x", "y"]));
    }
}
