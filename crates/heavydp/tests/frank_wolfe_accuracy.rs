//! Accuracy of the private Frank–Wolfe methods (Talwar et al. Algs. 4–5) on bounded
//! synthetic data with a known truth: at ε = 1 the excess empirical risk falls as n grows
//! from 10³ to 10⁵ and is far below that of the zero vector.

use heavydp::algorithms::frank_wolfe::{DpFrankWolfe, DpFrankWolfeGaussian, FrankWolfe};
use heavydp::algorithms::{empirical_risk, PrivateAlgorithm, Problem};
use heavydp::constraints::L1Ball;
use heavydp::data::Dataset;
use heavydp::loss::LossKind;
use heavydp::noise::{gaussian, rng_from_seed};
use heavydp::privacy::Budget;
use heavydp::test_support::FitSeeded;
use rand::Rng;

fn bounded_data(n: usize, d: usize, seed: u64) -> Dataset {
    let mut rng = rng_from_seed(seed);
    // w* on the l1 sphere of radius 0.8 with two active coordinates; Rademacher features.
    let mut w = vec![0.0; d];
    w[0] = 0.4;
    w[1] = -0.4;
    let x: Vec<f64> = (0..n * d)
        .map(|_| if rng.random::<bool>() { 1.0 } else { -1.0 })
        .collect();
    let y: Vec<f64> = (0..n)
        .map(|i| {
            (heavydp::linalg::dot(&x[i * d..(i + 1) * d], &w) + gaussian(0.1, &mut rng))
                .clamp(-1.0, 1.0)
        })
        .collect();
    Dataset::from_rows(x, y, d).unwrap()
}

fn excess(alg: &dyn PrivateAlgorithm, data: &Dataset, budget: Budget, seed: u64, opt: f64) -> f64 {
    let domain = L1Ball {
        d: data.d(),
        radius: 1.0,
    };
    let p = Problem::new(data, LossKind::Squared, &domain);
    let r = alg.fit_seeded(&p, budget, seed);
    empirical_risk(&LossKind::Squared, data, &r.weights) - opt
}

#[test]
fn excess_risk_falls_with_n_and_beats_zero() {
    let d = 5;
    let reps = 3;
    let budget = Budget::new(1.0, 1e-6).unwrap();
    let algs: Vec<(&str, Box<dyn PrivateAlgorithm>)> = vec![
        (
            "dp-frank-wolfe",
            Box::new(DpFrankWolfe {
                bound: 1.0,
                ..Default::default()
            }),
        ),
        (
            "dp-frank-wolfe-gaussian",
            Box::new(DpFrankWolfeGaussian {
                bound: 1.0,
                ..Default::default()
            }),
        ),
    ];
    let mut table = vec![];
    for &n in &[1_000usize, 10_000, 100_000] {
        let data = bounded_data(n, d, n as u64);
        let fw = FrankWolfe {
            bound: Some(1.0),
            t: Some(3000),
            ..Default::default()
        };
        let long = excess(&fw, &data, Budget::non_private(), 0, 0.0);
        let opt = long; // risk of the (near-)optimal non-private solution
        let zero = empirical_risk(&LossKind::Squared, &data, &vec![0.0; d]) - opt;
        let mut row = vec![];
        for (_, a) in &algs {
            let e: f64 = (0..reps)
                .map(|s| excess(a.as_ref(), &data, budget, s, opt))
                .sum::<f64>()
                / reps as f64;
            row.push(e);
        }
        eprintln!(
            "n = {n}: zero {zero:.4}, dp-fw {:.5}, dp-fw-gauss {:.5}",
            row[0], row[1]
        );
        table.push((zero, row));
    }
    for (k, (name, _)) in algs.iter().enumerate() {
        let e: Vec<f64> = table.iter().map(|(_, r)| r[k]).collect();
        assert!(
            e[0] > e[1] && e[1] > e[2],
            "{name}: excess risk does not fall with n: {e:?}"
        );
        let (zero, _) = table[2];
        assert!(
            e[2] < 0.2 * zero,
            "{name}: excess risk {} not far below the zero vector's {zero}",
            e[2]
        );
    }
}
