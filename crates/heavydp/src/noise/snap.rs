//! Floating-point-safe noisy releases: snapping to a public power-of-two grid and adding
//! exact discrete noise.
//!
//! A textbook floating-point Laplace sampler `v + b·sign·(−ln U)` leaks the input through
//! the set of doubles it can produce (Mironov 2012, "On significance of the least
//! significant bits for differential privacy"): see `tests/precision_attack.rs`. The
//! releases here avoid floating-point noise altogether, as OpenDP does:
//!
//! ```text
//! g  = 2^k ≤ 2^−40 · Δ / m        public: from the sensitivity Δ and the dimension only,
//!                                   m = d (ℓ1), √d (ℓ2), 1 (per coordinate)
//! ṽ  = clamp(round(v / g), ±2^110) integers (v/g is an exact power-of-two scaling)
//! k  = ṽ + Z                       Z i.i.d. discrete Laplace / discrete Gaussian with
//!                                   scale ⌈b/g⌉ / ⌈σ/g⌉ grid units (exact samplers)
//! out = k · g                      post-processing of the exact integer k
//! ```
//!
//! # Privacy
//!
//! Rounding moves every coordinate by at most g/2 and clamping is 1-Lipschitz, so
//! neighbouring inputs with ‖v − v'‖ ≤ Δ give ‖ṽ − ṽ'‖ ≤ Δ/g + m: in real units the
//! sensitivity is widened to Δ + g·m ≤ Δ·(1 + 2⁻⁴⁰) ≤ [`widened`]`(Δ)`. The noise scale in
//! grid units is rounded **up**, so the integer mechanism is
//!
//! * discrete Laplace: ε = (Δ/g + m)/⌈b/g⌉ ≤ widened(Δ)/b (pure DP);
//! * discrete Gaussian: ρ = (Δ/g + m)²/(2⌈σ/g⌉²) ≤ widened(Δ)²/(2σ²) (zCDP, Canonne,
//!   Kamath & Steinke 2020 Thm. 4: the Rényi divergence between integer shifts of a
//!   discrete Gaussian is at most the continuous one, α·shift²/(2σ²); over independent
//!   coordinates the divergences add, giving α‖shift‖₂²/(2σ²));
//!
//! and the output, a function of the exact integer k only, inherits it. The mechanisms in
//! [`crate::mechanisms`] calibrate b and σ at [`widened`]`(Δ)`, so the cost they charge
//! covers the rounding before anything runs. The relative slack 2⁻⁴⁰ ≈ 9.1·10⁻¹³ is far
//! below the 10⁻⁹ margin of [`crate::privacy::calibration_target`], so calibrations that
//! build mechanisms from fields directly still fit their budgets.
//!
//! # What is and is not covered
//!
//! The guarantee is exact for the map "f64 input → released f64" given that the **input**
//! vectors of neighbouring data sets differ by at most Δ. Whether the floating-point
//! evaluation of the statistic (gradients, Catoni means, clipping) respects its
//! real-arithmetic sensitivity bound is a separate, idealised assumption (see
//! `docs/privacy.md`).
//!
//! # Range
//!
//! Coordinates with |v| > 2¹¹⁰·g (≥ 2⁶⁹·Δ/m) are clamped; NaN is released as noise around
//! 0 (never as NaN). Noise scales above 2¹⁰⁶ grid units (more than about 2⁶⁵/m times the
//! sensitivity) are refused with a panic that names only public quantities; the mechanism
//! constructors refuse such parameters earlier.

use super::exact::{ExactRng, MAX_SCALE};
use crate::privacy::mul_up;
use rand::RngCore;

/// log₂ of the inverse relative slack: the grid makes the sensitivity grow by at most
/// Δ·2⁻⁴⁰.
pub const SLACK_LOG2: i32 = 40;

/// The relative widening of the sensitivity by the rounding, 2⁻⁴⁰.
pub const RELATIVE_SLACK: f64 = 1.0 / 1_099_511_627_776.0;

/// Clamp (in grid units) of values that receive additive noise.
pub const MAX_UNITS: i128 = 1 << 110;

/// Clamp (in grid units) of exponential-mechanism scores (so that score differences times
/// a 32-bit inverse temperature fit 128 bits).
pub const MAX_SCORE_UNITS: i128 = 1 << 94;

/// The sensitivity the snapped release is charged at: Δ·(1 + 2⁻⁴⁰), rounded up. It bounds
/// Δ + g·m for the grid of [`Grid::new`].
#[inline]
pub fn widened(sensitivity: f64) -> f64 {
    mul_up(sensitivity, 1.0 + RELATIVE_SLACK)
}

/// How per-coordinate rounding errors add up in the sensitivity's norm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spread {
    /// ℓ1 sensitivity of a d-vector: rounding adds up to d grid units.
    L1,
    /// ℓ2 sensitivity of a d-vector: rounding adds up to √d grid units.
    L2,
    /// Each coordinate (score) is treated on its own: rounding adds up to 1 grid unit.
    PerCoordinate,
}

/// ⌈log₂ n⌉ (0 for n ≤ 1).
fn ceil_log2(n: usize) -> i32 {
    if n <= 1 {
        0
    } else {
        (usize::BITS - (n - 1).leading_zeros()) as i32
    }
}

/// A public power-of-two grid g = 2^log2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    /// k with g = 2ᵏ.
    pub log2: i32,
}

impl Grid {
    /// The grid for a release of sensitivity `sensitivity` (finite, > 0) over `dim`
    /// coordinates: g = 2^(⌊log₂ Δ⌋ − 40 − j) with j = ⌈log₂ d⌉ (ℓ1), ⌈⌈log₂ d⌉/2⌉ (ℓ2),
    /// 0 (per coordinate), so that g·m ≤ 2⁻⁴⁰·Δ (m = d, √d, 1).
    pub fn new(sensitivity: f64, dim: usize, spread: Spread) -> Grid {
        assert!(
            sensitivity.is_finite() && sensitivity > 0.0,
            "snapping grid: the sensitivity must be finite and > 0, got {sensitivity}"
        );
        let j = match spread {
            Spread::L1 => ceil_log2(dim),
            Spread::L2 => (ceil_log2(dim) + 1) / 2,
            Spread::PerCoordinate => 0,
        };
        Grid {
            log2: libm::ilogb(sensitivity) - SLACK_LOG2 - j,
        }
    }

    /// g as an `f64` (0 if it underflows; the grid itself is exact).
    pub fn spacing(self) -> f64 {
        libm::scalbn(1.0, self.log2)
    }

    /// round(v/g) clamped to ±`bound`; NaN gives 0. v/g is computed exactly (a power-of-two
    /// scaling; an overflow gives ±∞, which the clamp handles).
    #[inline]
    pub fn to_units_within(self, v: f64, bound: i128) -> i128 {
        let x = libm::scalbn(v, -self.log2);
        if x.is_nan() {
            return 0;
        }
        let b = bound as f64;
        x.round().clamp(-b, b) as i128
    }

    /// round(v/g) clamped to ±[`MAX_UNITS`]; NaN gives 0.
    #[inline]
    pub fn to_units(self, v: f64) -> i128 {
        self.to_units_within(v, MAX_UNITS)
    }

    /// k·g (the nearest double to k, times g: post-processing of the integer k).
    #[inline]
    pub fn from_units(self, k: i128) -> f64 {
        libm::scalbn(k as f64, self.log2)
    }

    /// A noise scale (b or σ, > 0) in grid units, rounded up: ⌈scale/g⌉ ≥ 1 (a scale
    /// below one grid unit gets one unit: more noise, never less). Panics, naming only the
    /// public scale and grid, if it exceeds [`MAX_SCALE`] = 2¹⁰⁶.
    pub fn noise_units(self, scale: f64) -> u128 {
        let y = libm::scalbn(scale, -self.log2);
        assert!(
            (0.0..=MAX_SCALE as f64).contains(&y),
            "snapped noise: the noise scale {scale} is {y:e} grid units of 2^{}; the exact samplers support at most 2^106 (the noise is far larger than the sensitivity)",
            self.log2
        );
        (y.ceil() as u128).max(1)
    }
}

/// v + Lap(b) coordinatewise, floating-point safe: snapped to the grid of
/// `Grid::new(sensitivity_l1, d, Spread::L1)` with discrete Laplace noise of scale
/// ⌈b/g⌉ grid units. (ε = widened(Δ₁)/b)-DP for inputs of ℓ1 sensitivity Δ₁. `scale > 0`.
pub fn laplace_release<R: RngCore + ?Sized>(
    values: &[f64],
    sensitivity_l1: f64,
    scale: f64,
    rng: &mut R,
) -> Vec<f64> {
    let grid = (sensitivity_l1, Spread::L1);
    snapped_release(values, grid, scale, rng, |ex, t| ex.discrete_laplace(t))
}

/// v + N(0, σ²) coordinatewise, floating-point safe: snapped to the grid of
/// `Grid::new(sensitivity_l2, d, Spread::L2)` with discrete Gaussian noise of parameter
/// ⌈σ/g⌉ grid units. (ρ = widened(Δ₂)²/(2σ²))-zCDP for inputs of ℓ2 sensitivity Δ₂.
/// `sigma > 0`.
pub fn gaussian_release<R: RngCore + ?Sized>(
    values: &[f64],
    sensitivity_l2: f64,
    sigma: f64,
    rng: &mut R,
) -> Vec<f64> {
    let grid = (sensitivity_l2, Spread::L2);
    snapped_release(values, grid, sigma, rng, |ex, s| ex.discrete_gaussian(s))
}

/// The snapping both releases share: each value rounded to the grid of
/// `Grid::new(sensitivity, d, spread)`, plus the integer noise `draw(⌈scale/g⌉)` in grid
/// units, mapped back (empty `values`: empty output, no draw).
fn snapped_release<R: RngCore + ?Sized>(
    values: &[f64],
    (sensitivity, spread): (f64, Spread),
    scale: f64,
    rng: &mut R,
    draw: impl Fn(&mut ExactRng<'_, R>, u128) -> i128,
) -> Vec<f64> {
    if values.is_empty() {
        return Vec::new();
    }
    let grid = Grid::new(sensitivity, values.len(), spread);
    let units = grid.noise_units(scale);
    let mut ex = ExactRng::new(rng);
    values
        .iter()
        .map(|&v| grid.from_units(grid.to_units(v) + draw(&mut ex, units)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::rng_from_seed;

    #[test]
    fn grid_bounds_the_widening() {
        for &delta in &[1.0, 3.0, 0.1, 1e-300, 7e300, 5e-324] {
            for &d in &[1usize, 2, 3, 1000, 1 << 20, 10_000_019] {
                let df = d as f64;
                for (spread, m) in [
                    (Spread::L1, df),
                    (Spread::L2, df.sqrt()),
                    (Spread::PerCoordinate, 1.0),
                ] {
                    let g = Grid::new(delta, d, spread);
                    // g·m ≤ 2^-40 Δ, checked in log space (g may be subnormal)
                    let lhs = g.log2 as f64 + m.log2();
                    assert!(lhs <= delta.log2() - 40.0 + 1e-12, "{delta} {d} {spread:?}");
                    // and not needlessly fine: within a factor 4 (two power-of-two roundings)
                    assert!(lhs > delta.log2() - 42.0 - 1e-12, "{delta} {d} {spread:?}");
                }
            }
        }
        assert!(widened(1.0) > 1.0 && widened(1.0) <= 1.0 + 2.0 * RELATIVE_SLACK);
        assert_eq!(widened(3.0), 3.0 + 3.0 * RELATIVE_SLACK);
    }

    #[test]
    fn units_round_clamp_and_map_back() {
        let g = Grid { log2: -2 }; // g = 1/4
        assert_eq!(g.to_units(1.0), 4);
        assert_eq!(g.to_units(0.1), 0); // 0.4 → 0
        assert_eq!(g.to_units(0.13), 1); // 0.52 → 1
        assert_eq!(g.to_units(-0.13), -1);
        assert_eq!(g.to_units(f64::NAN), 0);
        assert_eq!(g.to_units(f64::INFINITY), MAX_UNITS);
        assert_eq!(g.to_units(-1e300), -MAX_UNITS);
        assert_eq!(g.from_units(-3), -0.75);
        // exact round trip on the grid
        for k in [-7i128, 0, 1, 1 << 60] {
            assert_eq!(g.to_units(g.from_units(k)), k);
        }
        // |round(v/g) − v/g| ≤ 1/2
        let g = Grid::new(0.37, 100, Spread::L1);
        for i in 0..1000 {
            let v = (i as f64 - 500.0) * 0.0123456789;
            let e = g.to_units(v) as f64 - v / g.spacing();
            assert!(e.abs() <= 0.5, "{e}");
        }
        assert_eq!(g.noise_units(g.spacing() * 2.5), 3);
        assert_eq!(g.noise_units(g.spacing() * 1e-3), 1);
    }

    #[test]
    fn releases_lie_on_the_public_grid_and_have_the_right_scale() {
        let mut rng = rng_from_seed(1);
        let v: Vec<f64> = (0..20_000).map(|i| (i as f64).sin()).collect();
        let lap = laplace_release(&v, 2.0, 3.0, &mut rng);
        let g = Grid::new(2.0, v.len(), Spread::L1).spacing();
        assert!(lap.iter().all(|x| (x / g).fract() == 0.0));
        let mean_abs = lap.iter().zip(&v).map(|(a, b)| (a - b).abs()).sum::<f64>() / 2e4;
        assert!(
            (mean_abs - 3.0).abs() < 5.0 * 3.0 / (2e4f64).sqrt(),
            "{mean_abs}"
        );
        let gau = gaussian_release(&v, 2.0, 3.0, &mut rng);
        let g = Grid::new(2.0, v.len(), Spread::L2).spacing();
        assert!(gau.iter().all(|x| (x / g).fract() == 0.0));
        let var = gau
            .iter()
            .zip(&v)
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>()
            / 2e4;
        assert!(
            (var - 9.0).abs() < 6.0 * 9.0 * (2.0 / 2e4f64).sqrt(),
            "{var}"
        );
        assert!(laplace_release(&[], 1.0, 1.0, &mut rng).is_empty());
    }

    #[test]
    fn integer_sensitivity_is_within_the_widened_bound() {
        // Worst case of the rounding: neighbours Δ apart whose roundings go opposite ways.
        let delta = 1.0;
        let d = 8;
        let g = Grid::new(delta, d, Spread::L1);
        let h = g.spacing();
        let v: Vec<f64> = vec![0.49 * h; d];
        let w: Vec<f64> = v.iter().map(|x| x + delta / d as f64 + 0.02 * h).collect();
        let l1: i128 = v
            .iter()
            .zip(&w)
            .map(|(a, b)| (g.to_units(*a) - g.to_units(*b)).abs())
            .sum();
        assert!((l1 as f64) * h <= widened(delta));
        assert!((l1 as f64) * h > delta); // the widening is real, and covered
    }

    #[test]
    #[should_panic(expected = "exact samplers support at most 2^106")]
    fn absurd_noise_scales_are_refused() {
        let mut rng = rng_from_seed(1);
        laplace_release(&[0.0], 1e-10, 1e30, &mut rng);
    }
}
