//! Shared generators for the algorithms' unit tests.

use crate::data::Dataset;
use crate::noise::rng_from_seed;
use rand::Rng;

/// Bounded synthetic regression: x ~ U[-1, 1]^d, y = <x, w*> + N(0, 0.1²) clipped to
/// [-1, 1], with ‖w*‖₁ = 0.8. Returns the data and w*.
pub(crate) fn bounded_data(n: usize, d: usize, seed: u64) -> (Dataset, Vec<f64>) {
    let mut rng = rng_from_seed(seed);
    let mut w_star: Vec<f64> = (0..d)
        .map(|j| if j % 3 == 0 { 1.0 } else { -0.5 })
        .collect();
    let l1: f64 = w_star.iter().map(|v| v.abs()).sum();
    w_star.iter_mut().for_each(|v| *v *= 0.8 / l1);
    let x: Vec<f64> = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
    let y: Vec<f64> = (0..n)
        .map(|i| {
            (crate::linalg::dot(&x[i * d..(i + 1) * d], &w_star)
                + crate::noise::gaussian(0.1, &mut rng))
            .clamp(-1.0, 1.0)
        })
        .collect();
    (Dataset::from_rows(x, y, d).unwrap(), w_star)
}
