use super::*;
use crate::constraints::{L1Ball, L2Ball, Simplex};
use crate::test_support::{bounded_data, refusal, FitSeeded, Setup};

/// The configurations most tests here fit: bound B = 1, `t` iterations, the rest default.
fn bounded_fw(t: usize) -> FrankWolfe {
    FrankWolfe {
        bound: Some(1.0),
        t: Some(t),
        ..Default::default()
    }
}

/// [`bounded_fw`]'s private version (`t` None: the default T).
fn bounded_dp_fw(t: Option<usize>) -> DpFrankWolfe {
    DpFrankWolfe {
        bound: 1.0,
        t,
        ..Default::default()
    }
}

/// [`bounded_fw`]'s Gaussian private version.
fn bounded_dp_fw_gaussian(t: usize) -> DpFrankWolfeGaussian {
    DpFrankWolfeGaussian {
        bound: 1.0,
        t: Some(t),
        ..Default::default()
    }
}

#[test]
fn alg4_laplace_scale_matches_the_formula() {
    // squared loss, B = 1, l1 ball r = 1: L1 = 2 (B r + B) B = 4, score sensitivity 2 L1 r / n.
    let st = Setup::new(bounded_data(1000, 5, 1), L1Ball { d: 5, radius: 1.0 });
    let p = st.problem(LossKind::Squared);
    let budget = Budget::new(1.0, 1e-5).unwrap();
    let alg = bounded_dp_fw(Some(11));
    let plan = alg.plan(&p, &budget);
    let sens = 2.0 * 4.0 * 1.0 / 1000.0;
    assert!((plan.score_sensitivity - sens).abs() < 1e-15);
    // rho* with rho + 2 sqrt(rho ln(1/delta)) = 1; eps_step = sqrt(2 rho*/10); b = 2 sens / eps_step
    let l = (1e5f64).ln();
    let rho = ((l + 1.0).sqrt() - l.sqrt()).powi(2);
    let b = 2.0 * sens / (2.0 * rho / 10.0).sqrt();
    assert!(
        (plan.scale / b - 1.0).abs() < 1e-6,
        "{} vs {}",
        plan.scale,
        b
    );
    assert!(plan.certified_epsilon <= 1.0);
    // The paper's printed scale certifies about 2 eps and is refused.
    let paper = DpFrankWolfe {
        calibration: FwCalibration::Paper,
        ..alg.clone()
    };
    let pp = paper.plan(&p, &budget);
    let printed = 4.0 * (8.0 * 11.0 * l).sqrt() / 1000.0;
    assert!((pp.scale - printed).abs() < 1e-12);
    assert!(
        pp.certified_epsilon > 1.5 && pp.certified_epsilon < 2.5,
        "{}",
        pp.certified_epsilon
    );
    assert!(paper.validate(&p, &budget).is_err());
    // Theorem 5.5 default T = ceil((Gamma n eps)^(2/3) / (L1 r)^(2/3)) with Gamma = 2 (B*2r)^2 = 8
    let def = bounded_dp_fw(None).plan(&p, &budget);
    assert_eq!(
        def.big_t,
        ((8.0f64 * 1000.0).powf(2.0 / 3.0) / 4f64.powf(2.0 / 3.0)).ceil() as usize
    );
}

#[test]
fn alg5_sigma_matches_the_printed_formula() {
    let budget = Budget::new(1.0, 1e-6).unwrap();
    let (sigma, c) = gaussian_gradient_sigma(3.0, 5000, 20, 19, &budget, false);
    let printed = (32.0 * 9.0 * 20.0 * (20.0f64 / 1e-6).ln().powi(2)).sqrt() / 5000.0;
    assert_eq!(c, "paper");
    assert!((sigma - printed).abs() < 1e-12 * printed);
    // Huge epsilon with a large delta: the printed sigma no longer certifies; fall back to zCDP.
    let big = Budget::new(100.0, 0.5).unwrap();
    let (s2, c2) = gaussian_gradient_sigma(3.0, 5000, 2, 1, &big, false);
    assert_eq!(c2, "zcdp");
    let rho_step = crate::privacy::gaussian_zcdp_rho(6.0 / 5000.0, s2);
    let total = zcdp_to_approx(rho_step, 0.5);
    assert!(total <= 100.0 && total > 99.9, "{total}");
}

#[test]
fn epsilon_infinity_reproduces_frank_wolfe_exactly() {
    let (data, _) = bounded_data(400, 6, 2);
    let sets: Vec<Box<dyn ConstraintSet>> = vec![
        Box::new(L1Ball { d: 6, radius: 1.0 }),
        Box::new(Simplex { d: 6 }),
        Box::new(L2Ball { d: 6, radius: 0.9 }),
    ];
    for set in &sets {
        for loss in [LossKind::Squared, LossKind::Huber { tau: 0.5 }] {
            let fw = bounded_fw(30);
            let prob = Problem::new(&data, loss, set.as_ref());
            let base = fw.fit_seeded(&prob, Budget::non_private(), 1);
            let g = bounded_dp_fw_gaussian(30);
            let rg = g.fit_seeded(&prob, Budget::non_private(), 99);
            assert_eq!(base.weights, rg.weights);
            assert_eq!(rg.privacy.model, PrivacyModel::None);
            if set.as_polytope().is_some() {
                let a = bounded_dp_fw(Some(30));
                let ra = a.fit_seeded(&prob, Budget::non_private(), 7);
                assert_eq!(base.weights, ra.weights);
            }
        }
    }
    // And a finite epsilon does change the answer (noise is really added).
    let set = L1Ball { d: 6, radius: 1.0 };
    let prob = Problem::new(&data, LossKind::Squared, &set);
    let fw = bounded_fw(30).fit_seeded(&prob, Budget::non_private(), 1);
    let p = bounded_dp_fw(Some(30)).fit_seeded(&prob, Budget::new(0.5, 1e-5).unwrap(), 1);
    assert_ne!(fw.weights, p.weights);
}

#[test]
fn frank_wolfe_meets_its_convergence_bound() {
    // L(theta_T) - min L <= 2 Gamma / (T + 1) (spec §7) with Gamma <= 2 (B diam_1)^2 = 8.
    let st = Setup::new(bounded_data(500, 4, 3), L1Ball { d: 4, radius: 1.0 });
    let prob = st.problem(LossKind::Squared);
    let long = bounded_fw(20_000).fit_seeded(&prob, Budget::non_private(), 1);
    let opt = empirical_risk(&LossKind::Squared, &st.data, &long.weights);
    for t in [2usize, 5, 20, 100] {
        let r = bounded_fw(t).fit_seeded(&prob, Budget::non_private(), 1);
        let gap = empirical_risk(&LossKind::Squared, &st.data, &r.weights) - opt;
        assert!(
            gap <= 2.0 * 8.0 / (t as f64 + 1.0) + 1e-9,
            "T={t}: gap {gap}"
        );
    }
}

#[test]
fn ledger_records_what_was_spent() {
    let (data, _) = bounded_data(2000, 5, 4);
    let set = L1Ball { d: 5, radius: 1.0 };
    let budget = Budget::new(0.7, 1e-6).unwrap();
    let prob = Problem::new(&data, LossKind::Squared, &set);
    let r = bounded_dp_fw(Some(25)).fit_seeded(&prob, budget, 3);
    assert_eq!(r.privacy.releases, 24);
    assert!(r.privacy.epsilon <= 0.7 && r.privacy.epsilon > 0.69);
    assert_eq!(r.privacy.delta, 1e-6);
    let r = bounded_dp_fw_gaussian(25).fit_seeded(&prob, budget, 3);
    assert_eq!(r.privacy.releases, 24);
    assert!(r.privacy.epsilon <= 0.7);
}

#[test]
fn rejects_bad_configurations() {
    let st = Setup::new(bounded_data(50, 3, 5), L2Ball { d: 3, radius: 1.0 });
    let p = st.problem(LossKind::Squared);
    let b = Budget::new(1.0, 1e-5).unwrap();
    let a = bounded_dp_fw(None);
    assert!(matches!(
        a.validate(&p, &b),
        Err(FitError::Unsupported { .. })
    ));
    let l1 = L1Ball { d: 3, radius: 1.0 };
    let p = Problem::new(&st.data, LossKind::Squared, &l1);
    assert!(matches!(
        a.validate(&p, &Budget::pure(1.0).unwrap()),
        Err(FitError::Privacy(_))
    ));
    let p = Problem::new(&st.data, LossKind::Absolute, &l1);
    assert!(matches!(
        a.validate(&p, &b),
        Err(FitError::Unsupported { .. })
    ));
    let e = refusal(DpFrankWolfe::from_params, &[]);
    assert!(matches!(e, FitError::BoundRequired { .. }));
    let e = refusal(DpFrankWolfe::from_params, &[("bound", "1"), ("eta", "1")]);
    assert!(matches!(e, FitError::UnknownParameter { .. }));
}
