//! End-to-end tests of `objective-perturbation` (Talwar, Thakurta & Zhang, Alg. 2): accuracy
//! as n grows on bounded synthetic data, the registry path and the model file.

use heavydp::algorithms::objective_perturbation::{ObjectivePerturbation, OpCalibration};
use heavydp::algorithms::{build, empirical_risk, FitReport, ParamMap, PrivateAlgorithm, Problem};
use heavydp::constraints::{ConstraintSet, L1Ball, L2Ball, Simplex, VertexPolytope};
use heavydp::data::Dataset;
use heavydp::loss::LossKind;
use heavydp::model::ModelFile;
use heavydp::noise::{gaussian, rng_from_seed};
use heavydp::privacy::{Budget, PrivacyModel};
use heavydp::test_support::{logistic_data, FitSeeded};
use rand::Rng;

/// x ~ U[-1, 1]^d, y = <x, w*> + N(0, 0.1^2) clipped to [-1, 1], with ‖w*‖₂ = 0.8.
fn regression(n: usize, d: usize, seed: u64) -> Dataset {
    let mut rng = rng_from_seed(seed);
    let raw: Vec<f64> = (0..d)
        .map(|j| if j % 3 == 0 { 1.0 } else { -0.5 })
        .collect();
    let norm = raw.iter().map(|v| v * v).sum::<f64>().sqrt();
    let w: Vec<f64> = raw.iter().map(|v| 0.8 * v / norm).collect();
    let x: Vec<f64> = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
    let y: Vec<f64> = (0..n)
        .map(|i| {
            let m: f64 = x[i * d..(i + 1) * d]
                .iter()
                .zip(&w)
                .map(|(a, b)| a * b)
                .sum();
            (m + gaussian(0.1, &mut rng)).clamp(-1.0, 1.0)
        })
        .collect();
    Dataset::from_rows(x, y, d).unwrap()
}

fn run(
    alg: &dyn PrivateAlgorithm,
    data: &Dataset,
    loss: LossKind,
    domain: &dyn ConstraintSet,
    budget: Budget,
    seed: u64,
) -> FitReport {
    let problem = Problem::new(data, loss, domain);
    alg.fit_seeded(&problem, budget, seed)
}

/// Mean excess empirical risk of the private fit (and of the zero vector) over `seeds`.
fn excess(
    loss: LossKind,
    domain: &dyn ConstraintSet,
    n: usize,
    d: usize,
    seeds: &[u64],
) -> (f64, f64) {
    let alg = ObjectivePerturbation {
        bound: 1.0,
        ..Default::default()
    };
    let (mut ex, mut ex0) = (0.0, 0.0);
    for &s in seeds {
        let data = match loss {
            LossKind::Logistic => logistic_data(n, d, s),
            _ => regression(n, d, s),
        };
        let opt = run(&alg, &data, loss, domain, Budget::non_private(), 0);
        let private = run(
            &alg,
            &data,
            loss,
            domain,
            Budget::new(1.0, 1e-5).unwrap(),
            s + 1000,
        );
        assert!(private.privacy.epsilon <= 1.0);
        let r_opt = empirical_risk(&loss, &data, &opt.weights);
        let r = empirical_risk(&loss, &data, &private.weights);
        assert!(
            r >= r_opt - 1e-9,
            "the non-private run must be the minimiser"
        );
        ex += r - r_opt;
        ex0 += empirical_risk(&loss, &data, &vec![0.0; d]) - r_opt;
    }
    (ex / seeds.len() as f64, ex0 / seeds.len() as f64)
}

/// The mean excess risk falls by more than 3× per tenfold n (10³, 10⁴, 10⁵) and ends
/// below 2 % of the zero vector's.
fn assert_excess_falls_with_n(loss: LossKind, domain: &dyn ConstraintSet, d: usize, seeds: &[u64]) {
    let mut prev = f64::INFINITY;
    let mut last = (0.0, 0.0);
    for n in [1_000, 10_000, 100_000] {
        let (ex, ex0) = excess(loss, domain, n, d, seeds);
        assert!(
            ex < prev / 3.0,
            "{loss:?}, n = {n}: excess {ex} did not fall enough from {prev}"
        );
        prev = ex;
        last = (ex, ex0);
    }
    let (ex, ex0) = last;
    assert!(
        ex < 0.02 * ex0,
        "{loss:?}, n = 1e5: excess {ex} vs zero vector's {ex0}"
    );
}

#[test]
fn objective_perturbation_squared_excess_risk_falls_with_n() {
    let d = 10;
    let domain = L2Ball { d, radius: 1.0 };
    let seeds = [1, 2, 3];
    assert_excess_falls_with_n(LossKind::Squared, &domain, d, &seeds);
}

#[test]
fn objective_perturbation_logistic_excess_risk_falls_with_n() {
    let d = 5;
    let domain = L2Ball { d, radius: 5.0 };
    let seeds = [4, 5];
    assert_excess_falls_with_n(LossKind::Logistic, &domain, d, &seeds);
}

#[test]
fn objective_perturbation_registry_fit_and_model_file() {
    let data = regression(2_000, 4, 9);
    let mut params = ParamMap::new();
    params.insert("bound".into(), "1".into());
    params.insert("calibration".into(), "tight".into());
    params.insert("mu0".into(), "0.001".into());
    let alg = build("objective-perturbation", &params).unwrap();
    let domains: Vec<Box<dyn ConstraintSet>> = vec![
        Box::new(L2Ball { d: 4, radius: 1.0 }),
        Box::new(L1Ball { d: 4, radius: 1.0 }),
        Box::new(Simplex { d: 4 }),
        Box::new(
            VertexPolytope::new(
                4,
                vec![
                    1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.5, 0.2, 0.2, 0.2,
                    -1.0,
                ],
                "v.csv".into(),
            )
            .unwrap(),
        ),
    ];
    for domain in &domains {
        let budget = Budget::new(0.5, 1e-6).unwrap();
        let r = run(
            alg.as_ref(),
            &data,
            LossKind::Squared,
            domain.as_ref(),
            budget,
            3,
        );
        assert!(domain.contains(&r.weights, 1e-9));
        assert_eq!(r.privacy.model, PrivacyModel::Approx);
        assert!(r.privacy.epsilon <= 0.5 && r.privacy.delta == 1e-6);
        assert_eq!(r.hyperparameters["calibration"], "tight");
        let m = ModelFile::from_report(
            "objective-perturbation",
            &LossKind::Squared,
            domain.describe(),
            &data,
            &r,
        );
        let json = serde_json::to_value(&m).unwrap();
        assert_eq!(json["status"], "completed");
        assert_eq!(json["privacy"]["model"], "approx");
        // Data-dependent solver diagnostics are never written.
        assert!(json["hyperparameters"]
            .get("solver_gradient_mapping")
            .is_none());
    }
    // A reproduction calibration that certifies more than the budget is refused.
    let paper = ObjectivePerturbation {
        bound: 1.0,
        calibration: OpCalibration::Paper,
        ..Default::default()
    };
    let p = Problem {
        data: &data,
        loss: LossKind::Squared,
        domain: domains[0].as_ref(),
    };
    assert!(paper
        .validate(&p, &Budget::new(0.5, 1e-6).unwrap())
        .is_err());
}
