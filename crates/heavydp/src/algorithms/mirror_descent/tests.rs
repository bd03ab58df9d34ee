// Numerical tests index several parallel arrays at once; index loops read clearest.
#![allow(clippy::needless_range_loop)]

use super::potentials::*;
use super::*;
use crate::constraints::{
    expected_gaussian_norm, project_l1_ball, L1Ball, L2Ball, Polytope, Simplex, VertexPolytope,
};
use crate::linalg::{dot, norm1, norm_inf};
use crate::loss::mean_gradient;
use crate::test_support::{bounded_data, params, refusal, sparse_ball, FitSeeded};
use proptest::prelude::*;

fn plan(
    alg: &NoisyMirrorDescent,
    data: &Dataset,
    domain: &dyn ConstraintSet,
    loss: LossKind,
    budget: Budget,
) -> MirrorPlan {
    alg.plan(&Problem::new(data, loss, domain), &budget)
        .unwrap()
}

fn mdb(t: Option<usize>) -> NoisyMirrorDescent {
    NoisyMirrorDescent {
        bound: 1.0,
        t,
        ..Default::default()
    }
}

/// `calibration=paper`: the printed σ (spec A17).
fn mdb_paper(t: Option<usize>) -> NoisyMirrorDescent {
    NoisyMirrorDescent {
        zcdp_calibration: false,
        ..mdb(t)
    }
}

/// A small polytope in R^5 (6 vertices, not centrally symmetric).
fn polytope() -> VertexPolytope {
    #[rustfmt::skip]
    let v = vec![
        0.6, 0.0, 0.0, 0.2, -0.1,
        -0.3, 0.5, 0.1, 0.0, 0.0,
        0.0, -0.4, 0.6, 0.0, 0.2,
        0.1, 0.1, -0.5, 0.4, 0.0,
        -0.2, 0.0, 0.0, -0.6, 0.3,
        0.0, 0.2, 0.2, 0.2, -0.5,
    ];
    VertexPolytope::new(5, v, "test".into()).unwrap()
}

// ------------------------------------------------------------------ (a) privacy calibration

#[test]
fn sigma_and_sensitivity_match_the_formula() {
    let (n, d, t) = (2000usize, 5usize, 50usize);
    let data = bounded_data(n, d, 1).0;
    let l2 = L2Ball { d, radius: 1.0 };
    let budget = Budget::new(1.0, 1e-6).unwrap();
    // squared loss, B = 1, l2 ball r = 1: |<x, θ>| <= B r √d, L = 2 (B r √d + B) B √d.
    let sd = (d as f64).sqrt();
    let lip = 2.0 * (sd + 1.0) * sd;
    let sens = 2.0 * lip / n as f64;
    let printed = (32.0 * lip * lip * t as f64 * (t as f64 / 1e-6).ln().powi(2)).sqrt() / n as f64;
    let p = plan(&mdb_paper(Some(t)), &data, &l2, LossKind::Squared, budget);
    assert!((p.lipschitz - lip).abs() <= 1e-12 * lip);
    assert!(
        (p.sensitivity - sens).abs() <= 1e-15 * sens,
        "{} vs {sens}",
        p.sensitivity
    );
    assert!(
        (p.sigma - printed).abs() <= 1e-12 * printed,
        "{} vs {printed}",
        p.sigma
    );
    assert_eq!(p.calibration, "paper");
    // The ledger is charged (T - 1) times rho = (2L/n)^2 / (2 sigma^2): fails if the
    // sensitivity were halved (rho 4x smaller) or a release skipped.
    let prob = Problem::new(&data, LossKind::Squared, &l2);
    let r = mdb_paper(Some(t)).fit_seeded(&prob, budget, 3);
    assert_eq!(r.privacy.releases, t - 1);
    let rho = (t - 1) as f64 * sens * sens / (2.0 * printed * printed);
    let got = r.privacy.rho.unwrap();
    assert!((got / rho - 1.0).abs() < 1e-9, "rho {got} vs {rho}");
    assert!(r.privacy.epsilon <= 1.0 && r.privacy.epsilon > 0.0);
    assert_eq!(r.privacy.delta, 1e-6);
    assert_eq!(
        r.hyperparameters["gradient_sensitivity"],
        serde_json::json!(sens)
    );
    assert_eq!(r.hyperparameters["sigma"], serde_json::json!(printed));
    assert!(r.trace.iter().all(|tr| tr.noise_scale == printed));

    // The regulariser's gradient bound lambda ‖C‖₂ is part of L.
    let reg = NoisyMirrorDescent {
        lambda: 0.3,
        ..mdb(Some(t))
    };
    let pr = plan(
        &reg,
        &data,
        &L2Ball { d, radius: 2.0 },
        LossKind::Squared,
        budget,
    );
    let lip2 = 2.0 * (2.0 * sd + 1.0) * sd + 0.3 * 2.0;
    assert!((pr.lipschitz - lip2).abs() <= 1e-12 * lip2);
    assert!((pr.sensitivity - 2.0 * lip2 / n as f64).abs() <= 1e-15);

    // Logistic on the l1 ball: sup |f'| = 1, L = B √d.
    let mut lab = bounded_data(n, d, 2).0;
    lab.y_mut()
        .iter_mut()
        .for_each(|y| *y = if *y >= 0.0 { 1.0 } else { -1.0 });
    let pl = plan(
        &NoisyMirrorDescent {
            bound: 2.0,
            ..mdb(Some(t))
        },
        &lab,
        &L1Ball { d, radius: 3.0 },
        LossKind::Logistic,
        budget,
    );
    assert!((pl.lipschitz - 2.0 * sd).abs() < 1e-12);

    // Huge epsilon with a large delta: the printed sigma does not certify (spec §2 check
    // needs eps <= 8, delta <= 1/e); the zCDP sigma spends exactly the budget instead.
    let big = Budget::new(100.0, 0.5).unwrap();
    let pz = plan(&mdb(Some(2)), &data, &l2, LossKind::Squared, big);
    assert_eq!(pz.calibration, "zcdp");
    let rz = mdb(Some(2)).fit_seeded(&prob, big, 3);
    assert!(
        rz.privacy.epsilon <= 100.0 && rz.privacy.epsilon > 99.9,
        "{}",
        rz.privacy.epsilon
    );
    // calibration = zcdp (the default) uses it at small epsilon too, and it is smaller than
    // the printed one: sigma = (2L/n)/sqrt(2 rho*/(T-1)) with rho* the exact inversion.
    let forced = mdb(Some(t));
    let rho_star =
        crate::privacy::approx_to_zcdp_rho(crate::privacy::calibration_target(1.0), 1e-6);
    let sigma_z = sens / (2.0 * rho_star / (t - 1) as f64).sqrt();
    assert!(
        (plan(&forced, &data, &l2, LossKind::Squared, budget).sigma / sigma_z - 1.0).abs() < 1e-9
    );
    let pf = plan(&forced, &data, &l2, LossKind::Squared, budget);
    assert_eq!(pf.calibration, "zcdp");
    assert!(pf.sigma < printed);
    let rf = forced.fit_seeded(&prob, budget, 3);
    assert!(rf.privacy.epsilon <= 1.0 && rf.privacy.epsilon > 0.999);
}

#[test]
fn defaults_follow_theorem_3_2_and_the_cap_recomputes_sigma() {
    let (n, d) = (1000usize, 6usize);
    let data = bounded_data(n, d, 4).0;
    let (eps, delta) = (0.5, 1e-5);
    let budget = Budget::new(eps, delta).unwrap();
    let l = (n as f64 / delta).ln();
    let poly = {
        // a 6-dimensional polytope: 4 vertices.
        #[rustfmt::skip]
        let v = vec![
            1.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, -0.5, 0.0, 0.0, 0.0, 0.5,
            0.0, 0.0, 0.3, 0.3, 0.0, 0.0,
            -0.2, 0.0, 0.0, 0.0, 0.7, 0.0,
        ];
        VertexPolytope::new(6, v, "p".into()).unwrap()
    };
    let e2 = std::f64::consts::E.powi(2);
    let q = (12f64).ln() / ((12f64).ln() - 1.0);
    // from spec §3.8:
    // (domain, potential, |Q|_2, G_Q, DeltaPsi)
    type Case = (Box<dyn ConstraintSet>, &'static str, f64, f64, f64);
    let cases: Vec<Case> = vec![
        (
            Box::new(L2Ball { d, radius: 0.8 }),
            "euclidean",
            1.0,
            expected_gaussian_norm(d),
            0.32,
        ),
        (
            Box::new(L1Ball { d, radius: 2.0 }),
            "qnorm",
            2.0,
            2.0 * (2.0 * (12f64).ln()).sqrt(),
            e2 * 2f64.powf(2.0 / q - 2.0) / (2.0 * (q - 1.0)),
        ),
        (
            Box::new(Simplex { d }),
            "entropy",
            1.0,
            (2.0 * (12f64).ln()).sqrt(),
            (6f64).ln(),
        ),
        (
            Box::new(poly),
            "lifted-entropy",
            1.0,
            (2.0 * (8f64).ln()).sqrt(),
            (4f64).ln(),
        ),
    ];
    for (dom, pot, qr, g, dpsi) in &cases {
        let p = plan(&mdb(None), &data, dom.as_ref(), LossKind::Squared, budget);
        assert_eq!(p.potential, *pot);
        assert!((p.geometry.q_radius - qr).abs() < 1e-12, "{pot}");
        assert!((p.geometry.gaussian_width - g).abs() < 1e-12, "{pot}");
        assert!(
            (p.geometry.delta_psi - dpsi).abs() < 1e-12,
            "{pot}: {} vs {dpsi}",
            p.geometry.delta_psi
        );
        let t_raw = qr * qr * (eps * n as f64).powi(2) / (l * l * (qr * qr + g * g));
        let t = (t_raw.ceil() as usize).max(1);
        assert!(t < DEFAULT_MAX_STEPS);
        assert_eq!(p.big_t, t, "{pot}");
        assert!(!p.capped);
        let lip = BoundedConstants::new(&LossKind::Squared, dom.as_ref(), 1.0).lipschitz_l2;
        let eta = dpsi.sqrt() / (lip * qr * (t as f64).sqrt());
        match p.schedule {
            StepSchedule::Constant(e) => {
                assert!((e - eta).abs() <= 1e-12 * eta, "{pot}: {e} vs {eta}")
            }
            other => panic!("{other:?}"),
        }
        let (sigma, _) = frank_wolfe::gaussian_gradient_sigma(lip, n, t, t - 1, &budget, true);
        assert_eq!(p.sigma, sigma);
    }
    // The cap: at n = 10^5 Theorem 3.2 asks for far more than 2000 iterates.
    let big = bounded_data(100_000, 2, 5).0;
    let l2 = L2Ball { d: 2, radius: 1.0 };
    let p = plan(&mdb(None), &big, &l2, LossKind::Squared, budget);
    assert!(p.capped && p.big_t == DEFAULT_MAX_STEPS && p.t_theorem.unwrap() > 2000.0);
    let lip = p.lipschitz;
    let (sigma, _) = frank_wolfe::gaussian_gradient_sigma(lip, 100_000, 2000, 1999, &budget, true);
    assert_eq!(p.sigma, sigma);
    assert!(p.notes.iter().any(|s| s.contains("capped")));
    let small_cap = NoisyMirrorDescent {
        max_steps: 30,
        ..mdb(None)
    };
    let p = plan(&small_cap, &big, &l2, LossKind::Squared, budget);
    assert_eq!(p.big_t, 30);
    let (sigma30, _) = frank_wolfe::gaussian_gradient_sigma(lip, 100_000, 30, 29, &budget, true);
    assert_eq!(p.sigma, sigma30);
    assert!(sigma30 < sigma);
    // epsilon = infinity: T = max_steps, sigma = 0.
    let p = plan(
        &mdb(None),
        &data,
        &L2Ball { d, radius: 1.0 },
        LossKind::Squared,
        Budget::non_private(),
    );
    assert_eq!(
        (p.big_t, p.sigma, p.calibration),
        (DEFAULT_MAX_STEPS, 0.0, "none")
    );
    // An explicit T is not capped.
    let p = plan(
        &NoisyMirrorDescent {
            max_steps: 10,
            ..mdb(Some(50))
        },
        &data,
        &l2_6(),
        LossKind::Squared,
        budget,
    );
    assert_eq!(p.big_t, 50);
}

fn l2_6() -> L2Ball {
    L2Ball { d: 6, radius: 1.0 }
}

#[test]
fn strongly_convex_schedule_follows_appendix_a() {
    let (n, d) = (300usize, 4usize);
    let data = bounded_data(n, d, 6).0;
    let budget = Budget::new(0.1, 1e-5).unwrap();
    let l2 = L2Ball { d, radius: 1.5 };
    let alg = NoisyMirrorDescent {
        lambda: 0.5,
        ..mdb(None)
    };
    let p = plan(&alg, &data, &l2, LossKind::Squared, budget);
    // Theorem A.1: T = (‖C‖₂ n ε)² / (G_C² + ‖C‖₂²), G_C = r E‖g‖.
    let g = 1.5 * expected_gaussian_norm(d);
    let t = ((1.5 * n as f64 * 0.1).powi(2) / (g * g + 2.25)).ceil() as usize;
    assert_eq!(p.big_t, t);
    assert_eq!(
        p.schedule,
        StepSchedule::StronglyConvex {
            lambda: 0.5,
            factor: 1.0
        }
    );
    let prob = Problem::new(&data, LossKind::Squared, &l2);
    let r = alg.fit_seeded(&prob, budget, 1);
    for tr in &r.trace {
        assert_eq!(tr.step_size, 1.0 / (0.5 * (tr.iteration as f64 + 1.0)));
    }
    let printed = NoisyMirrorDescent {
        sc_step: ScStep::Printed,
        ..alg.clone()
    };
    let r = printed.fit_seeded(&prob, budget, 1);
    for tr in &r.trace {
        assert_eq!(tr.step_size, 2.0 / (0.5 * (tr.iteration as f64 + 1.0)));
    }
    assert_eq!(r.hyperparameters["sc_step"], serde_json::json!(2));
    // A given eta overrides the schedule; a non-Euclidean potential keeps the convex schedule.
    let p = plan(
        &NoisyMirrorDescent {
            eta: Some(0.1),
            ..alg.clone()
        },
        &data,
        &l2,
        LossKind::Squared,
        budget,
    );
    assert_eq!(p.schedule, StepSchedule::Constant(0.1));
    let p = plan(
        &alg,
        &data,
        &L1Ball { d, radius: 1.0 },
        LossKind::Squared,
        budget,
    );
    assert!(matches!(p.schedule, StepSchedule::Constant(_)));
    assert!(p.notes.iter().any(|s| s.contains("not strongly convex")));
}

#[test]
fn one_iterate_releases_nothing() {
    let data = bounded_data(50, 3, 7).0;
    for dom in [
        &L2Ball { d: 3, radius: 1.0 } as &dyn ConstraintSet,
        &Simplex { d: 3 },
    ] {
        let prob = Problem::new(&data, LossKind::Squared, dom);
        let r = mdb(Some(1)).fit_seeded(&prob, Budget::new(1.0, 1e-5).unwrap(), 1);
        assert_eq!(r.weights, dom.start());
        assert_eq!(r.privacy.releases, 0);
        assert_eq!(r.privacy.epsilon, 0.0);
    }
}

// ------------------------------------------------------------------ (b) mirror steps

/// Checks that `theta` solves min_{‖θ‖₁ ≤ r} Ψ(θ) − ⟨z, θ⟩ through its KKT conditions:
/// ∇Ψ(θ) = z − λ ξ with ξ ∈ ∂‖θ‖₁, λ ≥ 0, λ (‖θ‖₁ − r) = 0.
fn check_qnorm_kkt(
    pot: &QNormPotential,
    z: &[f64],
    theta: &[f64],
    lambda: f64,
) -> Result<(), TestCaseError> {
    let r = pot.radius;
    let tol = 1e-9 * (1.0 + norm_inf(z));
    prop_assert!(
        norm1(theta) <= r * (1.0 + 1e-12),
        "outside the ball: {}",
        norm1(theta)
    );
    prop_assert!(lambda >= 0.0);
    if lambda > tol {
        prop_assert!(
            (norm1(theta) - r).abs() <= 1e-12 * r,
            "multiplier > 0 but not on the boundary"
        );
    }
    let mut g = vec![0.0; z.len()];
    pot.gradient(theta, &mut g);
    for j in 0..z.len() {
        let rho = z[j] - g[j];
        if theta[j] != 0.0 {
            prop_assert!(
                (rho - lambda * theta[j].signum()).abs() <= tol,
                "j={j}: {rho} vs {lambda}"
            );
        } else {
            prop_assert!(rho.abs() <= lambda + tol, "j={j}: |{rho}| > {lambda}");
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn qnorm_projection_satisfies_kkt_and_beats_feasible_points(
        raw in proptest::collection::vec(-3.0f64..3.0, 40),
        log_scale in -4.0f64..4.0,
        r in 0.2f64..3.0,
        paper in any::<bool>(),
        others in proptest::collection::vec(proptest::collection::vec(-2.0f64..2.0, 40), 6),
    ) {
        for p in [1usize, 3, 4, 40] {
            let scale = if paper { QNormScale::Paper } else { QNormScale::Normalized };
            let pot = QNormPotential::new(p, r, scale);
            let z: Vec<f64> = raw[..p].iter().map(|v| v * log_scale.exp()).collect();
            let mut dual = z.clone();
            let mut theta = vec![0.0; p];
            let lambda = pot.bregman_project(&mut dual, &mut theta);
            check_qnorm_kkt(&pot, &z, &theta, lambda)?;
            // The returned dual point is ∇Ψ(θ).
            let mut g = vec![0.0; p];
            pot.gradient(&theta, &mut g);
            for j in 0..p {
                prop_assert!((g[j] - dual[j]).abs() <= 1e-10 * (1.0 + norm_inf(&dual)));
            }
            // Brute force: no feasible point does better (vertices, random points, perturbations).
            let obj = |t: &[f64]| pot.value(t) - dot(&z, t);
            let best = obj(&theta);
            let mut cands: Vec<Vec<f64>> = Vec::new();
            for j in 0..p {
                for s in [-r, r] {
                    let mut v = vec![0.0; p];
                    v[j] = s;
                    cands.push(v);
                }
            }
            for o in &others {
                let mut u = o[..p].to_vec();
                project_l1_ball(&mut u, r);
                cands.push(u.clone());
                let mut near: Vec<f64> = theta.iter().zip(&u).map(|(a, b)| a + 1e-3 * (b - a)).collect();
                project_l1_ball(&mut near, r);
                cands.push(near);
            }
            for c in &cands {
                prop_assert!(obj(c) >= best - 1e-12 * (1.0 + best.abs()), "p={p}: {} < {best}", obj(c));
            }
        }
    }

    #[test]
    fn qnorm_mirror_maps_are_inverse_and_match_finite_differences(
        raw in proptest::collection::vec(-1.0f64..1.0, 12),
        sparse in proptest::collection::vec(any::<bool>(), 12),
    ) {
        let theta: Vec<f64> = raw.iter().zip(&sparse).map(|(v, s)| if *s { 0.0 } else { *v }).collect();
        let pot = QNormPotential::new(12, 1.5, QNormScale::Normalized);
        prop_assert!(pot.q > 1.0 && pot.q < 2.0);
        prop_assert!((pot.q_star - (24f64).ln()).abs() < 1e-12);
        let mut g = vec![0.0; 12];
        pot.gradient(&theta, &mut g);
        let mut back = vec![0.0; 12];
        pot.conjugate_gradient(&g, &mut back);
        for j in 0..12 {
            prop_assert!((back[j] - theta[j]).abs() <= 1e-12, "{} vs {}", back[j], theta[j]);
        }
        if norm_inf(&theta) > 0.0 {
            for j in 0..12 {
                if theta[j].abs() < 1e-3 { continue; }
                let h = 1e-6;
                let mut a = theta.clone();
                a[j] += h;
                let mut b = theta.clone();
                b[j] -= h;
                let fd = (pot.value(&a) - pot.value(&b)) / (2.0 * h);
                prop_assert!((fd - g[j]).abs() <= 1e-6 * (1.0 + g[j].abs()), "{fd} vs {}", g[j]);
            }
        }
    }

    #[test]
    fn entropy_step_is_the_exponentiated_gradient_update(
        v in proptest::collection::vec(-5.0f64..5.0, 7),
        v2 in proptest::collection::vec(-5.0f64..5.0, 7),
        eta in 0.0f64..3.0,
    ) {
        let mut pot = EntropyPotential::new(7);
        let mut theta = vec![0.0; 7];
        pot.reset(&mut theta);
        let before: Vec<f64> = theta.clone();
        pot.step(&v, eta, &mut theta);
        pot.step(&v2, eta, &mut theta);
        // In the simplex to 1e-12.
        let sx = Simplex { d: 7 };
        prop_assert!(sx.contains(&theta, 1e-12));
        // Naive closed form θ_i ∝ θ_i exp(−η v_i) applied twice.
        let mut naive = before.clone();
        for g in [&v, &v2] {
            for i in 0..7 { naive[i] *= (-eta * g[i]).exp(); }
            let s: f64 = naive.iter().sum();
            naive.iter_mut().for_each(|x| *x /= s);
        }
        for i in 0..7 {
            prop_assert!((naive[i] - theta[i]).abs() <= 1e-12);
        }
        // KKT of min Ψ − <z, θ> over the simplex: ln θ_i − z_i is the same for every i.
        let z: Vec<f64> = (0..7).map(|i| before[i].ln() - eta * (v[i] + v2[i])).collect();
        let c0 = pot.log_weights()[0] - z[0];
        for i in 0..7 {
            prop_assert!((pot.log_weights()[i] - z[i] - c0).abs() <= 1e-12 * (1.0 + z[i].abs()));
        }
    }

    #[test]
    fn euclidean_step_is_the_euclidean_projection(
        v in proptest::collection::vec(-3.0f64..3.0, 5),
        eta in 0.0f64..2.0,
        us in proptest::collection::vec(proptest::collection::vec(-2.0f64..2.0, 5), 8),
    ) {
        let poly = polytope();
        let sets: Vec<Box<dyn ConstraintSet>> = vec![
            Box::new(L2Ball { d: 5, radius: 0.7 }),
            Box::new(L1Ball { d: 5, radius: 1.2 }),
            Box::new(Simplex { d: 5 }),
            Box::new(poly),
        ];
        for set in &sets {
            let mut pot = EuclideanPotential::new(set.as_ref());
            let mut theta = vec![0.0; 5];
            pot.reset(&mut theta);
            let start = theta.clone();
            pot.step(&v, eta, &mut theta);
            prop_assert!(set.contains(&theta, 1e-12));
            // Variational inequality <(θ_t − ηv) − θ_{t+1}, u − θ_{t+1}> <= 0 for u in C.
            let target: Vec<f64> = start.iter().zip(&v).map(|(a, g)| a - eta * g).collect();
            for u in &us {
                let mut u = u.clone();
                set.project(&mut u);
                let ip: f64 = (0..5).map(|j| (target[j] - theta[j]) * (u[j] - theta[j])).sum();
                prop_assert!(ip <= 1e-8, "{ip}");
            }
        }
    }

    #[test]
    fn lifted_entropy_step_satisfies_kkt_in_the_weights(
        v in proptest::collection::vec(-3.0f64..3.0, 5),
        eta in 0.0f64..4.0,
    ) {
        let poly = polytope();
        let l1 = L1Ball { d: 5, radius: 1.3 };
        let sx = Simplex { d: 5 };
        let polys: Vec<&dyn Polytope> = vec![&poly, &l1, &sx];
        for p in polys {
            let k = p.num_vertices();
            let mut pot = LiftedEntropyPotential::new(p);
            let mut theta = vec![0.0; 5];
            pot.reset(&mut theta);
            pot.step(&v, eta, &mut theta);
            let w = pot.weights();
            prop_assert!(w.iter().all(|x| *x >= 0.0) && (w.iter().sum::<f64>() - 1.0).abs() <= 1e-12);
            // ln w_i + η <v_i, v> is constant (the entropic Bregman projection from uniform).
            let mut s = vec![0.0; k];
            p.vertex_scores(&v, &mut s);
            let c0 = pot.log_weights()[0] + eta * s[0];
            for i in 0..k {
                prop_assert!((pot.log_weights()[i] + eta * s[i] - c0).abs() <= 1e-12 * (1.0 + (eta * s[i]).abs()));
            }
            // θ = Vw (the fast paths agree with the generic assembly) and θ ∈ C.
            let mut generic = vec![0.0; 5];
            pot.assemble_generic(&mut generic);
            for j in 0..5 {
                prop_assert!((generic[j] - theta[j]).abs() <= 1e-14);
            }
            prop_assert!(p.contains(&theta, 1e-12));
        }
    }
}

#[test]
fn qnorm_exponent_and_constants() {
    // k = 2p < 8: q = 2 (spec A6); k = 8: q = ln 8/(ln 8 - 1).
    assert_eq!(QNormPotential::exponent(3), 2.0);
    assert!((QNormPotential::exponent(4) - (8f64).ln() / ((8f64).ln() - 1.0)).abs() < 1e-15);
    let paper = QNormPotential::new(50, 2.0, QNormScale::Paper);
    let q = paper.q;
    assert!((paper.c - 2f64.powf(2.0 / q - 2.0) / (4.0 * (q - 1.0) * 4.0)).abs() < 1e-15);
    let norm = QNormPotential::new(50, 2.0, QNormScale::Normalized);
    assert!((norm.c / paper.c - 2.0 * std::f64::consts::E.powi(2)).abs() < 1e-12);
    // Psi at a vertex is c r^2 = DeltaPsi (the maximum over the ball, Psi(0) = 0).
    let mut v = vec![0.0; 50];
    v[7] = -2.0;
    assert!((norm.value(&v) - norm.geometry().delta_psi).abs() < 1e-12);
    // Psi(θ) = e²/(2(q−1)) ‖θ‖²_{Q,q} with ‖θ‖_{Q,q} = 2^{1/q−1} ‖θ‖_q / r (spec §3.3, A5).
    let theta: Vec<f64> = (0..50).map(|j| ((j as f64) * 0.7).sin() / 40.0).collect();
    let qn: f64 = theta
        .iter()
        .map(|x| x.abs().powf(q))
        .sum::<f64>()
        .powf(1.0 / q);
    let qq = 2f64.powf(1.0 / q - 1.0) * qn / 2.0;
    let expect = std::f64::consts::E.powi(2) / (2.0 * (q - 1.0)) * qq * qq;
    assert!((norm.value(&theta) - expect).abs() <= 1e-12 * expect);
    // Both branches of the projection: inside (λ = 0, θ = ∇Ψ*(z)) and on the boundary (λ > 0).
    let small: Vec<f64> = (0..50).map(|j| 1e-3 * ((j as f64) * 0.3).cos()).collect();
    let (mut z, mut th, mut free) = (small.clone(), vec![0.0; 50], vec![0.0; 50]);
    assert_eq!(norm.bregman_project(&mut z, &mut th), 0.0);
    norm.conjugate_gradient(&small, &mut free);
    assert_eq!(th, free);
    assert!(norm1(&th) < 2.0);
    let large: Vec<f64> = small.iter().map(|v| v * 1e4).collect();
    let mut z = large.clone();
    let lambda = norm.bregman_project(&mut z, &mut th);
    assert!(lambda > 0.0 && (norm1(&th) - 2.0).abs() < 1e-12 && th.contains(&0.0));
    // Extreme dual points neither overflow nor underflow.
    for s in [1e-200, 1e200] {
        let mut z: Vec<f64> = (0..50).map(|j| s * ((j as f64) - 20.0)).collect();
        let mut th = vec![0.0; 50];
        norm.bregman_project(&mut z, &mut th);
        assert!(th.iter().all(|x| x.is_finite()) && norm1(&th) <= 2.0 * (1.0 + 1e-12));
    }
}

// ------------------------------------------------------------------ (c) noise-free convergence

/// min over C of the mean loss, bounded from below through the Frank–Wolfe duality gap
/// of a reference point: min L >= L(θ) − <∇L(θ), θ − LMO(∇L(θ))>.
fn lower_bound_at(
    data: &Dataset,
    loss: &LossKind,
    domain: &dyn ConstraintSet,
    theta: &[f64],
) -> f64 {
    let d = data.d();
    let mut g = vec![0.0; d];
    let val = mean_gradient(
        loss,
        data.x(),
        data.y(),
        d,
        theta,
        &mut g,
        &mut GradientWorkspace::new(),
    );
    let mut s = vec![0.0; d];
    domain.lmo(&g, &mut s);
    let gap: f64 = (0..d).map(|j| g[j] * (theta[j] - s[j])).sum();
    val - gap
}

/// An accurate reference minimiser: accelerated projected gradient (squared loss, step
/// 1/β with β = 2 (1/n) Σ‖x_i‖² ≥ the smoothness constant), or Frank–Wolfe for a polytope
/// whose projection is itself iterative.
fn reference_lower_bound(data: &Dataset, domain: &dyn ConstraintSet) -> f64 {
    let loss = LossKind::Squared;
    let d = data.d();
    let kind = domain.describe()["kind"].as_str().unwrap().to_string();
    let theta = if kind == "polytope" {
        let fw = frank_wolfe::FrankWolfe {
            t: Some(20_000),
            ..Default::default()
        };
        fw.fit_seeded(&Problem::new(data, loss, domain), Budget::non_private(), 0)
            .weights
    } else {
        let beta = 2.0 * data.x().iter().map(|x| x * x).sum::<f64>() / data.n() as f64;
        let mut x = domain.start();
        let mut y = x.clone();
        let mut tk = 1.0f64;
        let mut g = vec![0.0; d];
        let mut ws = GradientWorkspace::new();
        for _ in 0..3000 {
            mean_gradient(&loss, data.x(), data.y(), d, &y, &mut g, &mut ws);
            let mut nx: Vec<f64> = y.iter().zip(&g).map(|(a, b)| a - b / beta).collect();
            domain.project(&mut nx);
            let tn = (1.0 + (1.0 + 4.0 * tk * tk).sqrt()) / 2.0;
            for j in 0..d {
                y[j] = nx[j] + (tk - 1.0) / tn * (nx[j] - x[j]);
            }
            x = nx;
            tk = tn;
        }
        x
    };
    let lb = lower_bound_at(data, &loss, domain, &theta);
    assert!(
        empirical_risk(&loss, data, &theta) - lb < 1e-3,
        "{kind}: reference not accurate"
    );
    lb
}

#[test]
fn noise_free_runs_converge_to_the_optimum() {
    let data = bounded_data(400, 5, 8).0;
    let poly = polytope();
    let cases: Vec<(Box<dyn ConstraintSet>, PotentialChoice, Option<f64>)> = vec![
        (
            Box::new(L2Ball { d: 5, radius: 0.4 }),
            PotentialChoice::Auto,
            Some(1.0),
        ),
        (
            Box::new(L1Ball { d: 5, radius: 0.5 }),
            PotentialChoice::Auto,
            Some(5.0),
        ),
        (
            Box::new(L1Ball { d: 5, radius: 0.5 }),
            PotentialChoice::LiftedEntropy,
            Some(10.0),
        ),
        (
            Box::new(L1Ball { d: 5, radius: 0.5 }),
            PotentialChoice::Euclidean,
            Some(1.0),
        ),
        (
            Box::new(Simplex { d: 5 }),
            PotentialChoice::Auto,
            Some(10.0),
        ),
        (Box::new(poly), PotentialChoice::Auto, Some(10.0)),
    ];
    for (dom, pot, tuned) in &cases {
        let lb = reference_lower_bound(&data, dom.as_ref());
        // Default eta: the mirror-descent bound ΔΨ/(ηT) + ηL²‖Q‖²/2 = 1.5 √ΔΨ L ‖Q‖ / √T.
        let mut prev = f64::INFINITY;
        for t in [100usize, 2000] {
            let alg = NoisyMirrorDescent {
                potential: *pot,
                ..mdb(Some(t))
            };
            let prob = Problem::new(&data, LossKind::Squared, dom.as_ref());
            let r = alg.fit_seeded(&prob, Budget::non_private(), 1);
            assert!(dom.contains(&r.weights, 1e-12));
            let p = plan(
                &alg,
                &data,
                dom.as_ref(),
                LossKind::Squared,
                Budget::non_private(),
            );
            let bound = 1.5 * p.geometry.delta_psi.sqrt() * p.lipschitz * p.geometry.q_radius
                / (t as f64).sqrt();
            let excess = empirical_risk(&LossKind::Squared, &data, &r.weights) - lb;
            assert!(
                excess <= bound,
                "{}/{:?} T={t}: {excess} > {bound}",
                p.potential,
                pot
            );
            assert!(excess < prev, "{:?}: no progress", pot);
            prev = excess;
        }
        // A tuned constant step converges to the optimum.
        let alg = NoisyMirrorDescent {
            potential: *pot,
            eta: *tuned,
            ..mdb(Some(3000))
        };
        let prob = Problem::new(&data, LossKind::Squared, dom.as_ref());
        let r = alg.fit_seeded(&prob, Budget::non_private(), 1);
        let excess = empirical_risk(&LossKind::Squared, &data, &r.weights) - lb;
        assert!(
            excess < 1e-3,
            "{:?} on {}: tuned excess {excess}",
            pot,
            dom.describe()
        );
    }
}

/// Solves A x = b (small dense, Gaussian elimination with partial pivoting).
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for c in 0..n {
        let p = (c..n)
            .max_by(|&i, &j| a[i][c].abs().partial_cmp(&a[j][c].abs()).unwrap())
            .unwrap();
        a.swap(c, p);
        b.swap(c, p);
        for r in c + 1..n {
            let f = a[r][c] / a[c][c];
            for k in c..n {
                a[r][k] -= f * a[c][k];
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = vec![0.0; n];
    for r in (0..n).rev() {
        x[r] = (b[r] - (r + 1..n).map(|k| a[r][k] * x[k]).sum::<f64>()) / a[r][r];
    }
    x
}

#[test]
fn noise_free_runs_reach_the_closed_form_least_squares_and_ridge_solutions() {
    let (n, d) = (500usize, 4usize);
    let data = bounded_data(n, d, 9).0;
    // Normal equations of (1/n) Σ (<x, θ> − y)² + (λ/2)‖θ‖²: (2 XᵀX/n + λ I) θ = 2 Xᵀy/n.
    let closed = |lambda: f64| {
        let mut a = vec![vec![0.0; d]; d];
        let mut b = vec![0.0; d];
        for i in 0..n {
            let x = data.row(i);
            for j in 0..d {
                b[j] += 2.0 * x[j] * data.y()[i] / n as f64;
                for k in 0..d {
                    a[j][k] += 2.0 * x[j] * x[k] / n as f64;
                }
            }
        }
        for (j, row) in a.iter_mut().enumerate() {
            row[j] += lambda;
        }
        solve(a, b)
    };
    let big = L2Ball { d, radius: 10.0 }; // the optimum is interior
    let ls = closed(0.0);
    let prob = Problem::new(&data, LossKind::Squared, &big);
    let r = NoisyMirrorDescent {
        eta: Some(1.0),
        ..mdb(Some(4000))
    }
    .fit_seeded(&prob, Budget::non_private(), 1);
    let gap = empirical_risk(&LossKind::Squared, &data, &r.weights)
        - empirical_risk(&LossKind::Squared, &data, &ls);
    assert!((0.0..1e-4).contains(&gap), "least squares gap {gap}");
    // Ridge with the Appendix A schedule 1/(λ(t+1)).
    for lambda in [1.0, 0.3] {
        let ridge = closed(lambda);
        let alg = NoisyMirrorDescent {
            lambda,
            ..mdb(Some(4000))
        };
        let r = alg.fit_seeded(&prob, Budget::non_private(), 1);
        let err = crate::linalg::dist2(&r.weights, &ridge);
        assert!(err < 5e-3, "lambda {lambda}: ‖θ − θ_ridge‖ = {err}");
    }
}

#[test]
fn lifted_entropy_and_qnorm_reach_the_same_minimiser() {
    // Spec §14 test 4: both polytope potentials converge to the same minimiser without noise.
    let data = bounded_data(300, 4, 10).0;
    let l1 = L1Ball { d: 4, radius: 0.3 };
    let prob = Problem::new(&data, LossKind::Squared, &l1);
    let a = NoisyMirrorDescent {
        eta: Some(5.0),
        ..mdb(Some(3000))
    }
    .fit_seeded(&prob, Budget::non_private(), 1);
    let b = NoisyMirrorDescent {
        potential: PotentialChoice::LiftedEntropy,
        eta: Some(30.0),
        ..mdb(Some(3000))
    }
    .fit_seeded(&prob, Budget::non_private(), 1);
    let dist: f64 = a
        .weights
        .iter()
        .zip(&b.weights)
        .map(|(x, y)| (x - y).abs())
        .sum();
    assert!(dist < 2e-3, "{:?} vs {:?}", a.weights, b.weights);
    let ra = empirical_risk(&LossKind::Squared, &data, &a.weights);
    let rb = empirical_risk(&LossKind::Squared, &data, &b.weights);
    assert!((ra - rb).abs() < 1e-4);
}

// ------------------------------------------------------------------ epsilon = infinity

/// The plain noise-free iteration on the l2 ball: projected (sub)gradient descent with
/// averaging, written without any of the module's code.
fn reference_projected_gd(
    data: &Dataset,
    radius: f64,
    lambda: f64,
    big_t: usize,
    step: &dyn Fn(usize) -> f64,
) -> Vec<f64> {
    let (n, d) = (data.n(), data.d());
    let mut theta = vec![0.0; d];
    let mut sum = theta.clone();
    for t in 1..big_t {
        let mut g = vec![0.0; d];
        for i in 0..n {
            let x = data.row(i);
            let r: f64 = x.iter().zip(&theta).map(|(a, b)| a * b).sum::<f64>() - data.y()[i];
            for j in 0..d {
                g[j] += 2.0 * r * x[j] / n as f64;
            }
        }
        for j in 0..d {
            theta[j] -= step(t) * (g[j] + lambda * theta[j]);
        }
        let norm = theta.iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm > radius {
            theta.iter_mut().for_each(|v| *v *= radius / norm);
        }
        for j in 0..d {
            sum[j] += theta[j];
        }
    }
    sum.iter().map(|s| s / big_t as f64).collect()
}

#[test]
fn epsilon_infinity_reproduces_noise_free_mirror_descent() {
    let data = bounded_data(300, 5, 11).0;
    let l2 = L2Ball { d: 5, radius: 0.3 };
    let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-12);
    // Convex schedule (default eta).
    let prob = Problem::new(&data, LossKind::Squared, &l2);
    let r = mdb(Some(200)).fit_seeded(&prob, Budget::non_private(), 99);
    assert_eq!(r.privacy.model, PrivacyModel::None);
    let eta = r.hyperparameters["eta"].as_f64().unwrap();
    let reference = reference_projected_gd(&data, 0.3, 0.0, 200, &|_| eta);
    assert!(
        close(&r.weights, &reference),
        "{:?} vs {reference:?}",
        r.weights
    );
    // Appendix A schedule.
    let sc = NoisyMirrorDescent {
        lambda: 0.7,
        ..mdb(Some(150))
    };
    let r = sc.fit_seeded(&prob, Budget::non_private(), 5);
    let reference =
        reference_projected_gd(&data, 0.3, 0.7, 150, &|t| 1.0 / (0.7 * (t as f64 + 1.0)));
    assert!(close(&r.weights, &reference));
    // Entropy on the simplex: plain exponentiated gradient with averaging.
    let sx = Simplex { d: 5 };
    let prob = Problem::new(&data, LossKind::Squared, &sx);
    let r = mdb(Some(120)).fit_seeded(&prob, Budget::non_private(), 3);
    let eta = r.hyperparameters["eta"].as_f64().unwrap();
    let mut theta = vec![0.2; 5];
    let mut sum = theta.clone();
    for _ in 1..120 {
        let mut g = [0.0; 5];
        for i in 0..data.n() {
            let x = data.row(i);
            let res: f64 = x.iter().zip(&theta).map(|(a, b)| a * b).sum::<f64>() - data.y()[i];
            for j in 0..5 {
                g[j] += 2.0 * res * x[j] / data.n() as f64;
            }
        }
        for j in 0..5 {
            theta[j] *= (-eta * g[j]).exp();
        }
        let s: f64 = theta.iter().sum();
        theta.iter_mut().for_each(|v| *v /= s);
        for j in 0..5 {
            sum[j] += theta[j];
        }
    }
    let reference: Vec<f64> = sum.iter().map(|s| s / 120.0).collect();
    assert!(
        close(&r.weights, &reference),
        "{:?} vs {reference:?}",
        r.weights
    );
    // A finite epsilon adds noise (and is reproducible from the seed).
    let prob = Problem::new(&data, LossKind::Squared, &l2);
    let p1 = mdb(Some(200)).fit_seeded(&prob, Budget::new(1.0, 1e-5).unwrap(), 7);
    let p2 = mdb(Some(200)).fit_seeded(&prob, Budget::new(1.0, 1e-5).unwrap(), 7);
    let np = mdb(Some(200)).fit_seeded(&prob, Budget::non_private(), 7);
    assert_eq!(p1.weights, p2.weights);
    assert_ne!(p1.weights, np.weights);
    assert!(l2.contains(&p1.weights, 1e-12));
}

#[test]
fn every_domain_and_loss_runs_privately_and_stays_in_the_set() {
    let data = bounded_data(500, 5, 12).0;
    let mut labels = data.clone();
    labels
        .y_mut()
        .iter_mut()
        .for_each(|y| *y = if *y >= 0.0 { 1.0 } else { -1.0 });
    let poly = polytope();
    let sets: Vec<Box<dyn ConstraintSet>> = vec![
        Box::new(L2Ball { d: 5, radius: 1.0 }),
        Box::new(L1Ball { d: 5, radius: 1.0 }),
        Box::new(Simplex { d: 5 }),
        Box::new(poly),
    ];
    let budget = Budget::new(0.8, 1e-6).unwrap();
    for set in &sets {
        for loss in [
            LossKind::Squared,
            LossKind::Logistic,
            LossKind::Huber { tau: 0.5 },
            LossKind::Absolute,
        ] {
            let d = if matches!(loss, LossKind::Logistic) {
                &labels
            } else {
                &data
            };
            let prob = Problem::new(d, loss, set.as_ref());
            let r = mdb(Some(40)).fit_seeded(&prob, budget, 2);
            assert!(
                set.contains(&r.weights, 1e-9),
                "{} {:?}",
                set.describe(),
                loss
            );
            assert!(r.privacy.epsilon <= 0.8);
            assert_eq!(r.privacy.releases, 39);
            assert_eq!(r.trace.len(), 39);
        }
    }
}

// ------------------------------------------------------------------ (e) bad input

#[test]
fn rejects_bad_configurations() {
    let data = bounded_data(50, 3, 13).0;
    let l2 = L2Ball { d: 3, radius: 1.0 };
    let b = Budget::new(1.0, 1e-5).unwrap();
    let alg = mdb(None);
    let v = |alg: &NoisyMirrorDescent, loss: LossKind, dom: &dyn ConstraintSet, b: &Budget| {
        alg.validate(&Problem::new(&data, loss, dom), b)
    };
    assert!(v(&alg, LossKind::Squared, &l2, &b).is_ok());
    // unsupported loss / domain
    assert!(matches!(
        v(&alg, LossKind::Biweight { c: 2.0 }, &l2, &b),
        Err(FitError::Unsupported { .. })
    ));
    let sparse = sparse_ball(3, 1, 1.0);
    assert!(matches!(
        v(&alg, LossKind::Squared, &sparse, &b),
        Err(FitError::Unsupported { .. })
    ));
    // delta = 0 with a finite epsilon
    assert!(matches!(
        v(&alg, LossKind::Squared, &l2, &Budget::pure(1.0).unwrap()),
        Err(FitError::Privacy(_))
    ));
    // a potential that does not fit the domain
    let q = NoisyMirrorDescent {
        potential: PotentialChoice::QNorm,
        ..mdb(None)
    };
    assert!(matches!(
        v(&q, LossKind::Squared, &l2, &b),
        Err(FitError::BadParameter { .. })
    ));
    let e = NoisyMirrorDescent {
        potential: PotentialChoice::LiftedEntropy,
        ..mdb(None)
    };
    assert!(matches!(
        v(&e, LossKind::Squared, &l2, &b),
        Err(FitError::BadParameter { .. })
    ));
    // missing bound (struct and params)
    assert!(matches!(
        v(&NoisyMirrorDescent::default(), LossKind::Squared, &l2, &b),
        Err(FitError::BoundRequired { .. })
    ));
    let e = refusal(NoisyMirrorDescent::from_params, &[]);
    assert!(matches!(e, FitError::BoundRequired { .. }));
    let m = params(&[("bound", "1")]);
    assert_eq!(NoisyMirrorDescent::from_params(&m).unwrap(), mdb(None));
    // unknown parameter
    let e = refusal(
        NoisyMirrorDescent::from_params,
        &[("bound", "1"), ("fw_step", "paper")],
    );
    assert!(matches!(e, FitError::UnknownParameter { .. }));
    // malformed values
    for (k, val) in [
        ("bound", "0"),
        ("bound", "nan"),
        ("T", "0"),
        ("eta", "-1"),
        ("max_steps", "0"),
        ("lambda", "-0.1"),
        ("potential", "qnorm2"),
        ("qnorm_scale", "big"),
        ("calibration", "gdp"),
    ] {
        let mut bad = m.clone();
        bad.insert(k.into(), val.into());
        assert!(NoisyMirrorDescent::from_params(&bad).is_err(), "{k}={val}");
    }
    // sc_step needs lambda
    let mut s = m.clone();
    s.insert("sc_step".into(), "2".into());
    assert!(matches!(
        NoisyMirrorDescent::from_params(&s),
        Err(FitError::BadParameter { .. })
    ));
    s.insert("lambda".into(), "0.5".into());
    let parsed = NoisyMirrorDescent::from_params(&s).unwrap();
    assert_eq!((parsed.sc_step, parsed.lambda), (ScStep::Printed, 0.5));
    // every documented parameter is accepted, and only those
    let mut all = m.clone();
    for (k, val) in [
        ("T", "10"),
        ("max_steps", "5"),
        ("eta", "0.1"),
        ("lambda", "1"),
        ("sc_step", "1"),
        ("potential", "euclidean"),
        ("qnorm_scale", "paper"),
        ("calibration", "zcdp"),
    ] {
        all.insert(k.into(), val.into());
    }
    let parsed = NoisyMirrorDescent::from_params(&all).unwrap();
    assert_eq!(parsed.t, Some(10));
    assert!(parsed.zcdp_calibration && parsed.qnorm_scale == QNormScale::Paper);
    let documented: Vec<&str> = NoisyMirrorDescent::info()
        .parameters
        .iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(documented, DESCRIPTOR.accepted_keys());
    // the registry builds it
    assert_eq!(
        build("noisy-mirror-descent", &m).unwrap().name(),
        "noisy-mirror-descent"
    );
}

// ------------------------------------------------- sufficient statistics

/// `suffstats=on` (gradients 2(Gθ − c) from the clipped data's second moments) against
/// `off` (a pass per gradient): same noise draws, same trace and privacy, weights within
/// relative 1e-9 (the tolerance is justified in `frank_wolfe::suffstats_tests`: T mirror
/// steps carry at most T·(a few ulps) of relative gradient difference, ≤ 1e-12 here).
#[test]
fn suffstats_path_matches_the_passes() {
    use crate::algorithms::frank_wolfe::suffstats_tests::{assert_same_release, fit_on_off_auto};
    use crate::params::SuffStats;
    let (data, _) = bounded_data(3000, 6, 17);
    let budget = Budget::new(1.0, 1e-5).unwrap();
    let l2 = L2Ball { d: 6, radius: 1.0 };
    let l1 = L1Ball { d: 6, radius: 1.0 };
    let simplex = Simplex { d: 6 };
    let cases: [(&dyn ConstraintSet, f64, u64); 4] = [
        (&l2, 0.0, 1),
        (&l1, 0.0, 2),
        (&simplex, 0.0, 3),
        (&l2, 0.5, 4),
    ];
    for (domain, lambda, seed) in cases {
        let p = Problem::new(&data, LossKind::Squared, domain);
        let alg = |s| NoisyMirrorDescent {
            bound: 0.6,
            t: Some(150),
            lambda,
            suffstats: s,
            ..Default::default()
        };
        // auto: 8d <= n and 2(T - 1) >= d.
        let both = fit_on_off_auto(alg, &p, budget, seed);
        assert_same_release(&both, 1e-9);
    }
    // Other losses have no sufficient statistics: `on` is ignored.
    let p = Problem::new(&data, LossKind::Absolute, &l2);
    let alg = NoisyMirrorDescent {
        bound: 0.6,
        t: Some(20),
        suffstats: SuffStats::On,
        ..Default::default()
    };
    assert_eq!(
        alg.fit_seeded(&p, budget, 1).hyperparameters["suffstats"],
        "off"
    );
}
