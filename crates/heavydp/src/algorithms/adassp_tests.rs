use super::*;
use crate::constraints::Unconstrained;
use crate::data::Dataset;
use crate::noise::rng_from_seed;
use crate::noise::snap::widened;
use crate::privacy::{approx_to_zcdp_rho, calibration_target, PrivacyError};
use crate::test_support::{bounded_data, on_threads, params, squared_error, FitSeeded};
use rand::Rng;

fn alg(kv: &[(&str, &str)]) -> Result<AdaSsp, FitError> {
    AdaSsp::from_params(&params(kv))
}

fn fit(a: &AdaSsp, data: &Dataset, budget: Budget, seed: u64) -> Result<FitReport, FitError> {
    let dom = Unconstrained { d: data.d() };
    let problem = Problem::new(data, LossKind::Squared, &dom);
    a.try_fit_seeded(&problem, budget, seed)
}

/// Least squares by Gaussian elimination with partial pivoting on the normal equations
/// (an independent solver for the ε = ∞ check).
fn ols(x: &[f64], y: &[f64], d: usize) -> Vec<f64> {
    let n = y.len();
    let mut a = vec![vec![0.0; d + 1]; d];
    for i in 0..n {
        let r = &x[i * d..(i + 1) * d];
        for j in 0..d {
            for k in 0..d {
                a[j][k] += r[j] * r[k];
            }
            a[j][d] += r[j] * y[i];
        }
    }
    for c in 0..d {
        let p = (c..d)
            .max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))
            .unwrap();
        a.swap(c, p);
        let pivot = a[c].clone();
        for row in a.iter_mut().skip(c + 1) {
            let f = row[c] / pivot[c];
            for (x, q) in row[c..].iter_mut().zip(&pivot[c..]) {
                *x -= f * q;
            }
        }
    }
    let mut w = vec![0.0; d];
    for c in (0..d).rev() {
        let s: f64 = (c + 1..d).map(|k| a[c][k] * w[k]).sum();
        w[c] = (a[c][d] - s) / a[c][c];
    }
    w
}

fn gaussian_data(n: usize, d: usize, seed: u64) -> (Dataset, Vec<f64>) {
    let mut rng = rng_from_seed(seed);
    let w: Vec<f64> = (0..d).map(|j| 1.0 - 0.3 * j as f64).collect();
    let x: Vec<f64> = (0..n * d)
        .map(|_| crate::noise::gaussian(1.0, &mut rng))
        .collect();
    let y: Vec<f64> = (0..n)
        .map(|i| {
            crate::linalg::dot(&x[i * d..(i + 1) * d], &w) + crate::noise::gaussian(0.5, &mut rng)
        })
        .collect();
    (Dataset::from_rows(x, y, d).unwrap(), w)
}

#[test]
fn noise_scales_match_the_formulas() {
    let (n, d, eps, delta) = (1000, 4, 1.0, 1e-6);
    let a = alg(&[("bound_x", "2"), ("bound_y", "3")]).unwrap();
    let plan = a.plan(n, d, &Budget::new(eps, delta).unwrap()).unwrap();
    // Replace-one sensitivities: B_X², √2·B_X², 2·B_X·B_Y.
    assert_eq!(plan.sensitivity_min, 4.0);
    assert!((plan.sensitivity_xx - 2f64.sqrt() * 4.0).abs() < 1e-15);
    assert!(plan.sensitivity_xx >= 2f64.sqrt() * 4.0);
    assert_eq!(plan.sensitivity_xy, 12.0);
    // ρ: the exact inversion of Lemma 1(4) at the calibration target, a third per release.
    let rho = approx_to_zcdp_rho(calibration_target(eps), delta);
    assert_eq!(plan.rho_total, rho);
    assert!((plan.rho_each - rho / 3.0).abs() < 1e-15 * rho && plan.rho_each <= rho / 3.0);
    // σ_k = widened(Δ_k)/√(2ρ/3).
    let s = |delta_k: f64| widened(delta_k) / (2.0 * rho / 3.0).sqrt();
    for (m, dk) in [
        (plan.mech_min, 4.0),
        (plan.mech_xx, 4.0 * 2f64.sqrt()),
        (plan.mech_xy, 12.0),
    ] {
        assert!(
            (m.sigma / s(dk) - 1.0).abs() < 1e-12,
            "{} vs {}",
            m.sigma,
            s(dk)
        );
    }
    // ε = 1, δ = 1e-6: σ = 9.27·Δ (the figure quoted in the module docs).
    let ratio = plan.mech_min.sigma / 4.0;
    assert!((ratio - 9.27).abs() < 0.01, "{ratio}");
    // Lines 2 and 3 in units of the noise added.
    let shift = plan.mech_min.sigma * (6.0 / delta).ln().sqrt();
    let thr = plan.mech_xx.sigma * (4.0 * (2.0 * 16.0 / 0.05f64).ln()).sqrt();
    assert!((plan.shift - shift).abs() < 1e-12 * shift);
    assert!((plan.threshold - thr).abs() < 1e-12 * thr);
    // bound=B: B_X = B√d, B_Y = B (explicit values win).
    let p2 = alg(&[("bound", "1.5")])
        .unwrap()
        .plan(n, d, &Budget::new(eps, delta).unwrap())
        .unwrap();
    assert_eq!(
        (p2.bound_x, p2.bound_y, p2.coord_bound),
        (3.0, 1.5, Some(1.5))
    );
    let p3 = alg(&[("bound", "1.5"), ("bound_y", "7")])
        .unwrap()
        .plan(n, d, &Budget::new(eps, delta).unwrap())
        .unwrap();
    assert_eq!((p3.bound_x, p3.bound_y), (3.0, 7.0));
    // δ = 0 takes the project default n^{-1.1}.
    let p4 = a.plan(n, d, &Budget::pure(eps).unwrap()).unwrap();
    assert!((p4.delta - 1000f64.powf(-1.1)).abs() < 1e-18);
}

#[test]
fn the_ledger_certifies_the_whole_budget() {
    let (data, _) = bounded_data(300, 3, 1);
    let a = alg(&[("bound", "1")]).unwrap();
    for (eps, delta) in [(0.3, 1e-5), (1.0, 1e-6), (5.0, 1e-8)] {
        let r = fit(&a, &data, Budget::new(eps, delta).unwrap(), 2).unwrap();
        assert_eq!(r.privacy.model, PrivacyModel::Zcdp);
        assert_eq!(r.privacy.releases, 3);
        assert_eq!(r.privacy.accountant, "zcdp");
        assert!(r.privacy.epsilon <= eps && r.privacy.epsilon > eps * (1.0 - 1e-6));
        assert_eq!(r.privacy.delta, delta);
        assert_eq!(r.trace.len(), 3);
        assert_eq!(r.trace[2].epsilon_spent, r.privacy.epsilon);
        assert!(r.trace[0].epsilon_spent < r.trace[1].epsilon_spent);
    }
}

#[test]
fn sensitivities_bound_every_neighbour_and_are_attained() {
    let (n, d) = (30, 3);
    let (bx, by) = (1.5, 2.0);
    let plan = alg(&[("bound_x", "1.5"), ("bound_y", "2")])
        .unwrap()
        .plan(n, d, &Budget::new(1.0, 1e-6).unwrap())
        .unwrap();
    let mut rng = rng_from_seed(7);
    let lam_min = |x: &[f64], y: &[f64]| {
        let (g, _) = clipped_moments(x, y, d, None, bx, by);
        symmetric_min_eigenvalue(&unpack_symmetric(&g, d), d)
    };
    let dist = |a: &[f64], b: &[f64]| {
        a.iter()
            .zip(b)
            .map(|(u, v)| (u - v) * (u - v))
            .sum::<f64>()
            .sqrt()
    };
    let mut worst = [0.0f64; 3];
    for trial in 0..300 {
        // Unclipped values up to 3× the bounds: the clipping must enforce them.
        let x: Vec<f64> = (0..n * d).map(|_| rng.random_range(-2.0..2.0)).collect();
        let y: Vec<f64> = (0..n).map(|_| rng.random_range(-6.0..6.0)).collect();
        let (mut xp, mut yp) = (x.clone(), y.clone());
        let i = trial % n;
        for v in &mut xp[i * d..(i + 1) * d] {
            *v = rng.random_range(-3.0..3.0);
        }
        yp[i] = rng.random_range(-6.0..6.0);
        let (g, xy) = clipped_moments(&x, &y, d, None, bx, by);
        let (gp, xyp) = clipped_moments(&xp, &yp, d, None, bx, by);
        worst[0] = worst[0].max((lam_min(&x, &y) - lam_min(&xp, &yp)).abs());
        worst[1] = worst[1].max(dist(&g, &gp));
        worst[2] = worst[2].max(dist(&xy, &xyp));
    }
    let tol = 1.0 + 1e-12;
    assert!(worst[0] <= plan.sensitivity_min * tol, "{worst:?}");
    assert!(worst[1] <= plan.sensitivity_xx * tol, "{worst:?}");
    assert!(worst[2] <= plan.sensitivity_xy * tol, "{worst:?}");
    // Attained: x = B e1 vs B e2 (upper triangle), y = B_Y vs −B_Y (Xᵀy), and λ_min in
    // d = 1 (Σ x² moves by B_X²). Half of any of these would fail.
    let mut x = vec![0.0; n * d];
    x[0] = bx;
    let mut xp = vec![0.0; n * d];
    xp[1] = bx;
    let y = vec![0.0; n];
    let (g, _) = clipped_moments(&x, &y, d, None, bx, by);
    let (gp, _) = clipped_moments(&xp, &y, d, None, bx, by);
    assert!((dist(&g, &gp) - plan.sensitivity_xx).abs() < 1e-12);
    let mut y1 = vec![0.0; n];
    y1[0] = by;
    let mut y2 = y1.clone();
    y2[0] = -by;
    let (_, a) = clipped_moments(&x, &y1, d, None, bx, by);
    let (_, b) = clipped_moments(&x, &y2, d, None, bx, by);
    assert!((dist(&a, &b) - plan.sensitivity_xy).abs() < 1e-12);
    let one = vec![1.0; n];
    let mut onep = one.clone();
    onep[0] = 0.0;
    let (g1, _) = clipped_moments(&one, &y, 1, None, bx, by);
    let (g2, _) = clipped_moments(&onep, &y, 1, None, bx, by);
    assert!(((g1[0] - g2[0]).abs() - 1.0).abs() < 1e-12);
    let (g3, _) = clipped_moments(&[bx; 30], &y, 1, None, bx, by);
    let (g4, _) = clipped_moments(
        &{
            let mut v = vec![bx; 30];
            v[0] = 0.0;
            v
        },
        &y,
        1,
        None,
        bx,
        by,
    );
    assert!(((g3[0] - g4[0]) - plan.sensitivity_min).abs() < 1e-12);
}

#[test]
fn clipped_moments_match_a_naive_pass_and_ignore_the_thread_count() {
    let (n, d) = (2000, 5);
    let mut rng = rng_from_seed(3);
    let x: Vec<f64> = (0..n * d).map(|_| rng.random_range(-3.0..3.0)).collect();
    let y: Vec<f64> = (0..n).map(|_| rng.random_range(-4.0..4.0)).collect();
    let (b, bx, by) = (2.0, 3.0, 2.5);
    let (g, xy) = clipped_moments(&x, &y, d, Some(b), bx, by);
    let mut gn = vec![0.0; d * d];
    let mut xyn = vec![0.0; d];
    for i in 0..n {
        let mut r: Vec<f64> = x[i * d..(i + 1) * d]
            .iter()
            .map(|v| v.clamp(-b, b))
            .collect();
        let nr = norm2(&r);
        if nr > bx {
            r.iter_mut().for_each(|v| *v *= bx / nr);
        }
        let yc = y[i].clamp(-by, by);
        for j in 0..d {
            xyn[j] += r[j] * yc;
            for k in 0..d {
                gn[j * d + k] += r[j] * r[k];
            }
        }
    }
    let full = unpack_symmetric(&g, d);
    for k in 0..d * d {
        assert!((full[k] - gn[k]).abs() < 1e-9, "{k}");
    }
    for j in 0..d {
        assert!((xy[j] - xyn[j]).abs() < 1e-9);
    }
    let one = on_threads(1, || clipped_moments(&x, &y, d, Some(b), bx, by));
    assert_eq!(one, (g, xy));
}

#[test]
fn released_noise_has_the_calibrated_variance() {
    let (n, d) = (50, 3);
    let plan = alg(&[("bound_x", "1"), ("bound_y", "1")])
        .unwrap()
        .plan(n, d, &Budget::new(1.0, 1e-5).unwrap())
        .unwrap();
    let upper = vec![10.0, 1.0, -2.0, 8.0, 0.5, 9.0];
    let xty = vec![3.0, -1.0, 2.0];
    let full = unpack_symmetric(&upper, d);
    let lmin = symmetric_min_eigenvalue(&full, d);
    let mut rng = rng_from_seed(11);
    let reps = 6000;
    let (mut v_min, mut v_xx, mut v_xy) = (0.0, 0.0, 0.0);
    for _ in 0..reps {
        let mut ledger = PrivacyLedger::new(Budget::new(1.0, 1e-5).unwrap(), Accountant::Zcdp);
        let (r, spent) = release_statistics(&plan, &upper, &xty, &mut ledger, &mut rng).unwrap();
        assert!(spent[0] < spent[1] && spent[1] < spent[2] && spent[2] <= 1.0);
        v_min += (r.lambda_min - lmin).powi(2);
        v_xx += squared_error(&r.xtx_upper, &upper);
        v_xy += squared_error(&r.xty, &xty);
        assert_eq!(ledger.releases(), 3);
    }
    let checks = [
        (v_min / reps as f64, plan.mech_min.sigma, 0.06),
        (v_xx / (6 * reps) as f64, plan.mech_xx.sigma, 0.03),
        (v_xy / (3 * reps) as f64, plan.mech_xy.sigma, 0.04),
    ];
    for (var, sigma, tol) in checks {
        assert!(
            (var / (sigma * sigma) - 1.0).abs() < tol,
            "{var} vs {}",
            sigma * sigma
        );
    }
    // σ_XX = √2 σ_min and σ_Xy = 2 σ_min (B_X = B_Y = 1): the broken scales would fail.
    assert!((plan.mech_xx.sigma / plan.mech_min.sigma - 2f64.sqrt()).abs() < 1e-12);
    assert!((plan.mech_xy.sigma / plan.mech_min.sigma - 2.0).abs() < 1e-12);
}

#[test]
fn infinite_epsilon_is_ordinary_least_squares_without_draws() {
    let (data, _) = gaussian_data(500, 4, 5);
    let a = alg(&[("bound_x", "100"), ("bound_y", "100")]).unwrap();
    let mut rng = rng_from_seed(9);
    let dom = Unconstrained { d: 4 };
    let problem = Problem::new(&data, LossKind::Squared, &dom);
    let r = a
        .fit(&problem, Budget::non_private(), &mut rng, &mut NoObserver)
        .unwrap();
    assert_eq!(
        rng.next_u64(),
        rng_from_seed(9).next_u64(),
        "no random draw"
    );
    let w = ols(data.x(), data.y(), 4);
    for (a, b) in r.weights.iter().zip(&w) {
        assert!((a - b).abs() < 1e-10 * b.abs().max(1.0), "{a} vs {b}");
    }
    assert_eq!(r.hyperparameters["lambda"], 0.0);
    assert_eq!(r.privacy.model, PrivacyModel::None);
    // With clipping bounds that bind, ε = ∞ is OLS of the clipped data.
    let a = alg(&[("bound", "1")]).unwrap();
    let r = fit(&a, &data, Budget::non_private(), 1).unwrap();
    let d = 4;
    let bx = 2.0; // 1·√4
    let mut xc = data.x().to_vec();
    for row in xc.chunks_exact_mut(d) {
        row.iter_mut().for_each(|v| *v = v.clamp(-1.0, 1.0));
        let nr = norm2(row);
        if nr > bx {
            row.iter_mut().for_each(|v| *v *= bx / nr);
        }
    }
    let yc: Vec<f64> = data.y().iter().map(|v| v.clamp(-1.0, 1.0)).collect();
    let w = ols(&xc, &yc, d);
    for (a, b) in r.weights.iter().zip(&w) {
        assert!((a - b).abs() < 1e-10 * b.abs().max(1.0), "{a} vs {b}");
    }
}

#[test]
fn singular_gram_at_infinite_epsilon_takes_a_tiny_public_ridge() {
    // Column 2 = column 1: XᵀX is singular; the solve approaches the minimum-norm
    // least-squares solution (w1 = w2 = half the single-column fit).
    let n = 100;
    let mut rng = rng_from_seed(4);
    let mut x = Vec::new();
    let mut y = Vec::new();
    for _ in 0..n {
        let v: f64 = rng.random_range(-1.0..1.0);
        x.extend([v, v]);
        y.push(0.8 * v);
    }
    let data = Dataset::from_rows(x, y, 2).unwrap();
    let r = fit(
        &alg(&[("bound", "1")]).unwrap(),
        &data,
        Budget::non_private(),
        1,
    )
    .unwrap();
    assert!((r.weights[0] - 0.4).abs() < 1e-6 && (r.weights[1] - 0.4).abs() < 1e-6);
    assert!(r.notes.iter().any(|s| s.contains("not positive definite")));
}

#[test]
fn fallback_ridge_makes_an_indefinite_release_solvable() {
    let plan = alg(&[("bound_x", "1"), ("bound_y", "1")])
        .unwrap()
        .plan(10, 2, &Budget::new(1.0, 1e-5).unwrap())
        .unwrap();
    // λ̂_min huge ⇒ λ = 0; the released matrix [[1, 5], [5, 1]] is indefinite.
    let rel = Released {
        lambda_min: 1e9,
        xtx_upper: vec![1.0, 5.0, 1.0],
        xty: vec![1.0, 2.0],
    };
    let (lambda, ridge, theta) = solve_released(&plan, &rel);
    assert_eq!(lambda, 0.0);
    assert!(ridge > 4.0, "{ridge}");
    // θ solves (A + ridge·I) θ = b.
    let r0 = (1.0 + ridge) * theta[0] + 5.0 * theta[1] - 1.0;
    let r1 = 5.0 * theta[0] + (1.0 + ridge) * theta[1] - 2.0;
    assert!(r0.abs() < 1e-12 && r1.abs() < 1e-12);
    // A small λ̂_min gives line 3's ridge: threshold − (λ̂_min − shift).
    let rel = Released {
        lambda_min: plan.shift + 1.0,
        xtx_upper: vec![100.0, 0.0, 100.0],
        xty: vec![1.0, 2.0],
    };
    let (lambda, ridge, _) = solve_released(&plan, &rel);
    assert!((lambda - (plan.threshold - 1.0)).abs() < 1e-9 * plan.threshold);
    assert_eq!(ridge, lambda);
}

#[test]
fn accuracy_improves_with_epsilon_on_known_truth() {
    let (n, d) = (20_000, 5);
    let a = alg(&[("bound", "1")]).unwrap();
    let mut errs = Vec::new();
    for eps in [0.1, 1.0, 10.0] {
        let mut e = 0.0;
        for seed in 0..4 {
            let (data, w) = bounded_data(n, d, 100 + seed);
            let r = fit(&a, &data, Budget::new(eps, 1e-6).unwrap(), seed).unwrap();
            e += r
                .weights
                .iter()
                .zip(&w)
                .map(|(p, q)| (p - q).powi(2))
                .sum::<f64>()
                .sqrt()
                / 4.0;
        }
        errs.push(e);
    }
    assert!(errs[0] > errs[1] && errs[1] > errs[2], "{errs:?}");
    assert!(errs[1] < 0.1 && errs[2] < 0.02, "{errs:?}");
    assert!(errs[0] > 2.0 * errs[2], "{errs:?}");
}

#[test]
fn refuses_missing_bounds_and_bad_budgets_with_specific_errors() {
    let e = alg(&[]).unwrap_err();
    assert_eq!(
        e,
        FitError::BoundRequired {
            algorithm: "adassp"
        }
    );
    let e = alg(&[("bound_x", "1")]).unwrap_err();
    assert!(
        matches!(&e, FitError::BadParameter { param, .. } if param == "bound_y"),
        "{e}"
    );
    let e = alg(&[("bound_y", "1")]).unwrap_err();
    assert!(matches!(&e, FitError::BadParameter { param, .. } if param == "bound_x"));
    assert!(matches!(
        alg(&[("bound", "-1")]).unwrap_err(),
        FitError::BadParameter { .. }
    ));
    assert!(matches!(
        alg(&[("bound", "1"), ("fail_prob", "1.5")]).unwrap_err(),
        FitError::BadParameter { .. }
    ));
    assert!(matches!(
        alg(&[("bound", "1"), ("B", "1")]).unwrap_err(),
        FitError::UnknownParameter { .. }
    ));
    let (data, _) = bounded_data(100, 2, 1);
    let a = alg(&[("bound", "1")]).unwrap();
    // An ε so small that σ exceeds the exact samplers' range: refused before any release.
    let e = fit(&a, &data, Budget::new(1e-13, 1e-6).unwrap(), 1).unwrap_err();
    assert!(
        matches!(&e, FitError::Privacy(PrivacyError::InvalidMechanism(m)) if m.contains("exact noise samplers")),
        "{e}"
    );
    // Wrong loss / domain.
    let dom = crate::constraints::L2Ball { d: 2, radius: 1.0 };
    let problem = Problem::new(&data, LossKind::Squared, &dom);
    let e = a
        .validate(&problem, &Budget::new(1.0, 1e-6).unwrap())
        .unwrap_err();
    assert!(e.to_string().contains("unconstrained"), "{e}");
    let dom = Unconstrained { d: 2 };
    let problem = Problem::new(&data, LossKind::Absolute, &dom);
    assert!(a
        .validate(&problem, &Budget::new(1.0, 1e-6).unwrap())
        .is_err());
    // The registry builds it, with squared loss and the unconstrained domain by default.
    assert_eq!(
        crate::algorithms::default_loss_and_domain("adassp"),
        ("squared", "unconstrained")
    );
    let mut p = ParamMap::new();
    p.insert("bound".into(), "1".into());
    assert_eq!(
        crate::algorithms::build("adassp", &p).unwrap().name(),
        "adassp"
    );
}
