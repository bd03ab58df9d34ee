//! End-to-end accuracy of `noisy-mirror-descent` (Talwar, Thakurta & Zhang, Alg. 1) on
//! bounded synthetic regression, built through the registry exactly as the CLI does.
//!
//! Data: x ~ U[-1, 1]^d, y = <x, w*> + N(0, 0.1²) clipped to [-1, 1], ‖w*‖₂ = 0.8; squared
//! loss on the unit ℓ2 ball, bound B = 1, (ε, δ) = (1, 1e-6). The unconstrained least-squares
//! solution lies inside the ball, so it is the exact constrained optimum and the excess
//! empirical risk is computed against it.

#![allow(clippy::needless_range_loop)] // dense numerical loops over parallel arrays

use heavydp::algorithms::{build, empirical_risk, FitReport, Problem};
use heavydp::constraints::L2Ball;
use heavydp::data::Dataset;
use heavydp::linalg::dot;
use heavydp::loss::LossKind;
use heavydp::noise::{gaussian, rng_from_seed};
use heavydp::privacy::Budget;
use heavydp::test_support::FitSeeded;
use rand::Rng;

const D: usize = 5;

fn synthetic(n: usize, seed: u64) -> Dataset {
    let mut rng = rng_from_seed(seed);
    let w: Vec<f64> = (0..D)
        .map(|j| if j % 2 == 0 { 1.0 } else { -0.6 })
        .collect();
    let norm = dot(&w, &w).sqrt();
    let w_star: Vec<f64> = w.iter().map(|v| 0.8 * v / norm).collect();
    let x: Vec<f64> = (0..n * D).map(|_| rng.random_range(-1.0..1.0)).collect();
    let y: Vec<f64> = (0..n)
        .map(|i| (dot(&x[i * D..(i + 1) * D], &w_star) + gaussian(0.1, &mut rng)).clamp(-1.0, 1.0))
        .collect();
    Dataset::from_rows(x, y, D).unwrap()
}

/// argmin (1/n) Σ (<x_i, θ> − y_i)² from the normal equations (Gaussian elimination).
fn least_squares(data: &Dataset) -> Vec<f64> {
    let mut a = vec![vec![0.0; D]; D];
    let mut b = [0.0; D];
    for i in 0..data.n() {
        let x = data.row(i);
        for j in 0..D {
            b[j] += x[j] * data.y()[i];
            for k in 0..D {
                a[j][k] += x[j] * x[k];
            }
        }
    }
    for c in 0..D {
        let p = (c..D)
            .max_by(|&i, &j| a[i][c].abs().partial_cmp(&a[j][c].abs()).unwrap())
            .unwrap();
        a.swap(c, p);
        b.swap(c, p);
        for r in c + 1..D {
            let f = a[r][c] / a[c][c];
            for k in c..D {
                a[r][k] -= f * a[c][k];
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = vec![0.0; D];
    for r in (0..D).rev() {
        x[r] = (b[r] - (r + 1..D).map(|k| a[r][k] * x[k]).sum::<f64>()) / a[r][r];
    }
    x
}

fn fit(params: &[(&str, &str)], data: &Dataset, seed: u64) -> FitReport {
    let map = heavydp::params::param_map(params);
    let alg = build("noisy-mirror-descent", &map).unwrap();
    let domain = L2Ball { d: D, radius: 1.0 };
    let problem = Problem::new(data, LossKind::Squared, &domain);
    alg.fit_seeded(&problem, Budget::new(1.0, 1e-6).unwrap(), seed)
}

#[test]
fn mirror_descent_excess_risk_falls_with_n_and_beats_the_zero_vector() {
    let loss = LossKind::Squared;
    // (name, --param list): the documented defaults (T from Theorem 3.2 capped at
    // max_steps = 2000, eta = sqrt(DeltaPsi)/(L |Q| sqrt(T))) and a fixed, data-independent
    // constant step eta = 0.02.
    let variants: [(&str, &[(&str, &str)]); 2] = [
        ("defaults", &[("bound", "1")]),
        ("eta=0.02", &[("bound", "1"), ("eta", "0.02")]),
    ];
    let mut table: Vec<(usize, f64, Vec<f64>)> = Vec::new();
    for (n, reps) in [(1_000usize, 4u64), (10_000, 4), (100_000, 1)] {
        let data = synthetic(n, 17);
        let opt = least_squares(&data);
        assert!(
            dot(&opt, &opt).sqrt() < 1.0,
            "the least-squares solution must be interior"
        );
        let best = empirical_risk(&loss, &data, &opt);
        let zero = empirical_risk(&loss, &data, &[0.0; D]) - best;
        let mut means = Vec::new();
        for (_, params) in &variants {
            let mut sum = 0.0;
            for seed in 0..reps {
                let r = fit(params, &data, seed);
                assert!(r.privacy.epsilon <= 1.0 && r.privacy.delta == 1e-6);
                let t = r.hyperparameters["T"].as_u64().unwrap() as usize;
                assert_eq!(r.privacy.releases, t - 1);
                if n == 100_000 {
                    assert_eq!(t, 2000);
                    assert!(r.notes.iter().any(|s| s.contains("capped")));
                }
                let excess = empirical_risk(&loss, &data, &r.weights) - best;
                assert!(excess >= -1e-12);
                sum += excess;
            }
            means.push(sum / reps as f64);
        }
        eprintln!(
            "n = {n:>6}: zero-vector excess {zero:.4}, mean private excess {:?}",
            means.iter().map(|m| format!("{m:.4}")).collect::<Vec<_>>()
        );
        table.push((n, zero, means));
    }
    for v in 0..variants.len() {
        let name = variants[v].0;
        let ex: Vec<f64> = table.iter().map(|row| row.2[v]).collect();
        if v == 0 {
            // With the budget-spending σ (calibration=zcdp) the defaults
            // reach the optimisation floor of the capped T = 2000 and the worst-case step
            // already at n = 10⁴ (measured 0.0545 at n = 10⁴, 0.0560 at n = 10⁵ with one
            // repetition): the excess falls to the floor and stays there.
            assert!(
                ex[0] > ex[1] && ex[2] < 1.1 * ex[1],
                "{name}: excess does not fall to the floor: {ex:?}"
            );
            continue;
        }
        assert!(
            ex[0] > ex[1] && ex[1] > ex[2],
            "{name}: excess does not fall with n: {ex:?}"
        );
    }
    let (_, zero, ref last) = table[2];
    // Defaults: the cap T = 2000 leaves an optimisation floor (the step uses the worst-case
    // L = 2(B r sqrt(d) + B) B sqrt(d) ≈ 14.5), still well below the zero vector.
    assert!(
        last[0] < 0.5 * zero,
        "defaults at n = 1e5: {} vs zero {zero}",
        last[0]
    );
    // The constant step: far below.
    assert!(
        last[1] < zero / 20.0,
        "eta = 0.02 at n = 1e5: {} vs zero {zero}",
        last[1]
    );
}
