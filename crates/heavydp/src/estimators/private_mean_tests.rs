//! Tests of the four private mean estimators (spec Zhao §10.2, §10.4; Hu §A.5, §E.1).

use super::*;
use crate::estimators::catoni::psi;
use crate::estimators::iterative_updating::required_count;
use crate::noise::rng_from_seed;
use crate::test_support::{hand_clipped_sum, hand_group_means, hand_rank_gap, params};
use rand_distr::{Distribution, StudentT};

/// n rows of μ + (Student-t ν coordinates)·scale, row-major.
fn student_data(seed: u64, n: usize, mu: &[f64], nu: f64, scale: f64) -> Vec<f64> {
    let mut rng = rng_from_seed(seed);
    let t = StudentT::new(nu).unwrap();
    let d = mu.len();
    (0..n * d)
        .map(|i| mu[i % d] + scale * t.sample(&mut rng))
        .collect()
}

use crate::linalg::dist2 as l2;

/// `private_mean` of the row-major n × d sample `x` under the budget (ε, δ) (ε = ∞: the
/// non-private run), which must succeed.
fn run(
    name: &str,
    (x, n, d): (&[f64], usize, usize),
    (eps, delta): (f64, f64),
    kv: &[(&str, &str)],
    seed: u64,
) -> MeanReport {
    let budget = if eps.is_infinite() {
        Budget::non_private()
    } else {
        Budget::new(eps, delta).unwrap()
    };
    private_mean(name, x, n, d, budget, &params(kv), &mut rng_from_seed(seed)).unwrap()
}

fn hpf(r: &MeanReport, key: &str) -> f64 {
    r.hyperparameters[key].as_f64().unwrap()
}

// ---------------------------------------------------------------- (a) noise scales

#[test]
fn clip_noise_is_calibrated_chi_square() {
    // σ = √(2R²/(ρn²)) with ρ from eq. (15); the difference between a seeded private run
    // and the ε = ∞ run (same R) is N(0, σ²I): Σ z² over N = reps·d draws is χ²_N.
    let (n, d) = (60, 3);
    let x = student_data(1, n, &[0.5, -1.0, 2.0], 3.0, 1.0);
    let kv = [("R", "2.5")];
    let exact = run("clip", (&x, n, d), (f64::INFINITY, 0.0), &kv, 0);
    let (eps, delta) = (0.5, 1e-5);
    let rho = zhao_target_rho(eps, delta, RhoRule::Eq15);
    let sigma = (2.0 * 2.5f64.powi(2) / (rho * (n * n) as f64)).sqrt();
    let mut ss = 0.0;
    let reps = 500;
    for seed in 0..reps {
        let r = run("clip", (&x, n, d), (eps, delta), &kv, seed);
        assert!((hpf(&r, "sigma") - sigma).abs() < 1e-12 * sigma);
        for (a, b) in r.mean.iter().zip(&exact.mean) {
            ss += ((a - b) / sigma).powi(2);
        }
    }
    let nf = (reps as usize * d) as f64;
    // χ²_N ≈ N(N, 2N): a 4-standard-deviation band
    let band = 4.0 * (2.0 * nf).sqrt();
    assert!((ss - nf).abs() < band, "{ss} vs {nf}");
    // the band has power: a σ off by 20 % either way (ss scaled by 1.44 or 1/1.44) is flagged
    assert!(ss * 1.44 - nf > band && ss / 1.44 - nf < -band, "{ss}");
    // the ledger reports ρ and the (ε, δ) of Lemma 1(4), within budget
    let r = run("clip", (&x, n, d), (eps, delta), &kv, 1);
    assert_eq!(r.privacy.model, PrivacyModel::Zcdp);
    let rho_spent = r.privacy.rho.unwrap();
    // (the snapping grid widens ρ by at most 2^-39 relative)
    assert!(rho_spent >= rho * (1.0 - 1e-12) && rho_spent <= rho * (1.0 + 1e-11));
    assert!(
        r.privacy.epsilon <= eps && r.privacy.epsilon >= zcdp_to_approx(rho, delta) * (1.0 - 1e-12)
    );
    assert_eq!(r.privacy.delta, delta);
}

#[test]
fn iterative_updating_noise_scale_matches_eq23() {
    // σ = √(2R²/(ρm²)), m = ⌊n/k⌋, ρ from (15) (conservative) — the group-level noise
    // distribution itself is tested in iterative_updating::tests::group_noise_has_the_calibrated_variance.
    let (n, d) = (1000, 2);
    let x = student_data(2, n, &[1.0, 1.0], 3.0, 1.0);
    let r = run("iterative-updating", (&x, n, d), (1.0, 1e-6), &[], 3);
    let k = default_groups(n);
    let m = n / k;
    let rho = zhao_target_rho(1.0, 1e-6, RhoRule::Eq15);
    // conservative default: R = M√d(n√ρ/(k√d))^{1/p}
    let radius =
        (d as f64).sqrt() * (n as f64 * rho.sqrt() / (k as f64 * (d as f64).sqrt())).sqrt();
    assert_eq!(hpf(&r, "k") as usize, k);
    assert_eq!(hpf(&r, "m") as usize, m);
    assert!((hpf(&r, "R") - radius).abs() < 1e-12 * radius);
    assert_eq!(hpf(&r, "rho"), rho);
    let sigma = (2.0 * radius * radius / (rho * (m * m) as f64)).sqrt();
    assert!((hpf(&r, "sigma") - sigma).abs() < 1e-12 * sigma);
    let r0 = r0_eq95(1.0, d, n, radius, k, rho);
    assert_eq!(hpf(&r, "r_0"), r0);
    // t_c from the practical error scale √2Rk√d/(n√ρ) + M√(dk/n)
    let r0p = 2f64.sqrt() * radius * k as f64 * (d as f64).sqrt() / (n as f64 * rho.sqrt())
        + (d as f64 * k as f64 / n as f64).sqrt();
    assert!((hpf(&r, "r_0_practical") / r0p - 1.0).abs() < 1e-12);
    assert_eq!(hpf(&r, "t_c") as usize, default_t_c(0.0, radius, r0p));
    assert_eq!(r.privacy.model, PrivacyModel::Zcdp);
    assert!(r.privacy.epsilon <= 1.0);
    // rho_rule=exact gives a larger ρ (less noise) at the same (ε, δ)
    let r2 = run(
        "iterative-updating",
        (&x, n, d),
        (1.0, 1e-6),
        &[("rho_rule", "exact")],
        3,
    );
    assert!(hpf(&r2, "rho") > rho && r2.privacy.epsilon <= 1.0);
}

#[test]
fn catoni_laplace_scale_matches_formula() {
    // b = d·4√2k/(3nε); E|Lap(b)| = b, sd b: mean of N |z| within 6b/√N.
    let (n, d, eps) = (400, 4, 0.7);
    let x = student_data(4, n, &[0.0, 1.0, -1.0, 3.0], 3.0, 1.0);
    let exact = run(
        "catoni",
        (&x, n, d),
        (f64::INFINITY, 0.0),
        &[("k", "3.0")],
        0,
    );
    let b = d as f64 * 4.0 * 2f64.sqrt() * 3.0 / (3.0 * n as f64 * eps);
    let mut s = 0.0;
    let reps = 600;
    for seed in 0..reps {
        let r = run("catoni", (&x, n, d), (eps, 0.0), &[("k", "3.0")], seed);
        // b at the calibration target ε(1 − 1e-9)
        assert!((hpf(&r, "laplace_scale") - b).abs() < 2e-9 * b);
        for (a, e) in r.mean.iter().zip(&exact.mean) {
            s += (a - e).abs();
        }
        assert_eq!(r.privacy.model, PrivacyModel::Pure);
        assert!(r.privacy.epsilon <= eps * (1.0 + 1e-12));
    }
    let nf = (reps as usize * d) as f64;
    assert!(
        (s / nf - b).abs() < 6.0 * b / nf.sqrt(),
        "{} vs {b}",
        s / nf
    );
    assert!((s / nf - 0.8 * b).abs() > 6.0 * b / nf.sqrt());
}

#[test]
fn sparse_peeling_laplace_scale_matches_formula() {
    // Well-separated support {0, 2}: Peeling selects it; the released values carry
    // Lap(b), b = the exact Peeling scale (below the printed 2λ√(3s ln(1/δ))/ε),
    // λ = 4√2k/(3n).
    let (n, d, s) = (20_000, 6, 2);
    let x = student_data(5, n, &[5.0, 0.0, -5.0, 0.0, 0.0, 0.0], 3.0, 0.5);
    let kv = [("s", "2"), ("k", "10.0")];
    let (eps, delta): (f64, f64) = (1.0, 1e-6);
    let exact = run("sparse-peeling", (&x, n, d), (f64::INFINITY, 0.0), &kv, 0);
    assert!(exact.mean[1] == 0.0 && exact.mean[0] > 4.0 && exact.mean[2] < -4.0);
    let lambda = 4.0 * 2f64.sqrt() * 10.0 / (3.0 * n as f64);
    let b = crate::mechanisms::peeling_exact_scale(s, lambda, eps, delta);
    assert!(b < 2.0 * lambda * (3.0 * s as f64 * (1.0 / delta).ln()).sqrt() / eps);
    let mut acc = 0.0;
    let reps = 800;
    for seed in 0..reps {
        let r = run("sparse-peeling", (&x, n, d), (eps, delta), &kv, seed);
        assert!((hpf(&r, "lambda") - lambda).abs() < 1e-12 * lambda);
        assert!((hpf(&r, "laplace_scale") - b).abs() < 1e-12 * b);
        assert_eq!(r.mean.iter().filter(|v| **v != 0.0).count(), s);
        acc += (r.mean[0] - exact.mean[0]).abs() + (r.mean[2] - exact.mean[2]).abs();
    }
    let nf = (2 * reps) as f64;
    assert!(
        (acc / nf - b).abs() < 6.0 * b / nf.sqrt(),
        "{} vs {b}",
        acc / nf
    );
}

// ---------------------------------------------------------------- (b) accuracy

#[test]
fn accuracy_on_heavy_tailed_data_with_known_mean() {
    // Student-t ν = 3 scaled to unit variance, μ = (1, −0.5, 0.25): E⟨u,X⟩² ≤ 1 + ‖μ‖² = 1.3125.
    let (n, d) = (20_000, 3);
    let mu = [1.0, -0.5, 0.25];
    let x = student_data(6, n, &mu, 3.0, 1.0 / 3f64.sqrt());
    let m = "1.15"; // ≥ √1.3125
                    // iterative-updating: the spec's default R (Theorem 7's form) and t_c (from r_0 of
                    // (95)) leave the conservative-mode group means noise-dominated at this n (σ ≈ 2.5,
                    // t_c = 1; see iterative_updating_defaults_are_noise_dominated), so this accuracy check
                    // uses k = 10, t_c = 40 and the noise-balanced R = M√d(n√ρ/(k√d))^{1/2}.
    let rho = zhao_target_rho(1.0, 1e-5, RhoRule::Eq15);
    let r_iu = 1.15 * 3f64.sqrt() * (n as f64 * rho.sqrt() / (10.0 * 3f64.sqrt())).sqrt();
    let r_iu = format!("{r_iu}");
    for (name, kv, tol) in [
        ("clip", vec![("M", m)], 0.1),
        (
            "iterative-updating",
            vec![("M", m), ("k", "10"), ("t_c", "40"), ("R", r_iu.as_str())],
            0.3,
        ),
        ("catoni", vec![("tau", "1.4")], 0.1),
    ] {
        let mut errs: Vec<f64> = (0..7)
            .map(|seed| l2(&run(name, (&x, n, d), (1.0, 1e-5), &kv, seed).mean, &mu))
            .collect();
        errs.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert!(errs[3] < tol, "{name}: median error {}", errs[3]);
    }
    // sparse-peeling on a 2-sparse mean in d = 8
    let mu8 = [2.0, 0.0, 0.0, -2.0, 0.0, 0.0, 0.0, 0.0];
    let x = student_data(7, n, &mu8, 3.0, 1.0 / 3f64.sqrt());
    let mut errs = Vec::new();
    for seed in 0..7 {
        let r = run(
            "sparse-peeling",
            (&x, n, 8),
            (1.0, 1e-5),
            &[("s", "2")],
            seed,
        );
        assert!(
            r.mean[0] != 0.0 && r.mean[3] != 0.0,
            "support missed: {:?}",
            r.mean
        );
        errs.push(l2(&r.mean, &mu8));
    }
    errs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    // Laplace scale b = 2λ√(3s ln(1/δ))/ε ≈ 0.11 on two coordinates
    assert!(errs[3] < 0.25, "median error {}", errs[3]);
}

// ---------------------------------------------------------------- (c) ε = ∞

#[test]
fn clip_non_private_equals_hand_clipped_mean() {
    let (n, d) = (301, 4);
    let x = student_data(8, n, &[0.3, 0.0, -2.0, 1.0], 2.5, 2.0);
    let radius = 3.0;
    let r = run("clip", (&x, n, d), (f64::INFINITY, 0.0), &[("R", "3")], 9);
    let hand: Vec<f64> = hand_clipped_sum(&x, d, radius)
        .iter()
        .map(|v| v / n as f64)
        .collect();
    assert!(l2(&r.mean, &hand) < 1e-12, "{:?} vs {hand:?}", r.mean);
    assert_eq!(r.privacy.model, PrivacyModel::None);
    assert_eq!(hpf(&r, "sigma"), 0.0);
    // default R at ε = ∞: the ε = 1, δ = n^{−1.1} formula
    let r = run("clip", (&x, n, d), (f64::INFINITY, 0.0), &[], 9);
    let rho_f = zhao_target_rho(1.0, (n as f64).powf(-1.1), RhoRule::Eq15);
    let want = 1.0 * 2.0 * (n as f64 * rho_f.sqrt() / 2.0).sqrt();
    assert!((hpf(&r, "R") - want).abs() < 1e-12 * want);
}

#[test]
fn iterative_updating_non_private_equals_hand_loop() {
    // d = 1, exact Estimate: Fisher–Yates partition from the same seed, clipped group
    // means, then the updates with q(±1) computed by sorting.
    let n = 517;
    let x = student_data(10, n, &[1.5], 3.0, 1.0);
    let (radius, k, t_c) = (4.0, 12, 15);
    let r = run(
        "iterative-updating",
        (&x, n, 1),
        (f64::INFINITY, 0.0),
        &[
            ("R", "4"),
            ("k", "12"),
            ("t_c", "15"),
            ("estimate", "exact"),
        ],
        33,
    );
    let q = hand_group_means(&x, k, radius, 33);
    let rr = required_count(k);
    let est = |c: f64| hand_rank_gap(&q, rr, c);
    let (mut c, mut best_c, mut best_d) = (0.0, 0.0, f64::INFINITY);
    for l in 0..=t_c {
        let (dl, gl) = est(c);
        if dl < best_d {
            best_d = dl;
            best_c = c;
        }
        if l < t_c {
            c += 0.25 * dl * gl;
        }
    }
    assert!(
        (r.mean[0] - best_c).abs() < 1e-12,
        "{} vs {best_c}",
        r.mean[0]
    );
    assert_eq!(hpf(&r, "sigma"), 0.0);
    assert_eq!(r.privacy.model, PrivacyModel::None);
}

#[test]
fn catoni_and_peeling_non_private_equal_hand_estimators() {
    let (n, d) = (250, 5);
    let x = student_data(11, n, &[0.0, 4.0, -0.3, 0.1, -6.0], 2.5, 1.0);
    let (k, beta): (f64, f64) = (2.0, 1.0);
    let mut hand = vec![0.0; d];
    for i in 0..n {
        for j in 0..d {
            let v = x[i * d + j];
            hand[j] += k * psi(v / k, v.abs() / (k * beta.sqrt())) / n as f64;
        }
    }
    let r = run("catoni", (&x, n, d), (f64::INFINITY, 0.0), &[("k", "2")], 1);
    assert!(l2(&r.mean, &hand) < 1e-12);
    assert_eq!(r.privacy.model, PrivacyModel::None);
    // sparse-peeling, s = 2: the two largest |x̂_j| (coordinates 1 and 4), exact values
    let r = run(
        "sparse-peeling",
        (&x, n, d),
        (f64::INFINITY, 0.0),
        &[("k", "2"), ("s", "2")],
        1,
    );
    let mut want = vec![0.0; d];
    want[1] = hand[1];
    want[4] = hand[4];
    assert!(l2(&r.mean, &want) < 1e-12, "{:?}", r.mean);
}

// ---------------------------------------------------------------- (d) rates

/// Least-squares slope of ln(median error) on ln n.
fn loglog_slope(ns: &[usize], errs: &[f64]) -> f64 {
    let xs: Vec<f64> = ns.iter().map(|&n| (n as f64).ln()).collect();
    let ys: Vec<f64> = errs.iter().map(|e| e.ln()).collect();
    let (mx, my) = (
        xs.iter().sum::<f64>() / xs.len() as f64,
        ys.iter().sum::<f64>() / ys.len() as f64,
    );
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    sxy / sxx
}

/// The median errors fall as n^{−1/2}: the log-log slope is −0.5 ± 0.15.
fn assert_rate_half(name: &str, ns: &[usize], errs: &[f64]) {
    let slope = loglog_slope(ns, errs);
    eprintln!("{name} slope {slope}, errors {errs:?}");
    assert!(
        (slope + 0.5).abs() <= 0.15,
        "{name}: slope {slope}, errors {errs:?}"
    );
}

/// Median over `reps` of ‖μ̂ − μ‖ for each n; `kv(n)` gives the parameters at n.
fn median_errors(
    name: &str,
    kv: impl Fn(usize) -> Vec<(String, String)>,
    ns: &[usize],
    reps: u64,
) -> Vec<f64> {
    // p = 2 data: Student-t ν = 3 scaled to unit variance, μ = (1, −0.5):
    // E⟨u, X⟩² ≤ 1 + ‖μ‖² = 2.25 = M², M = 1.5.
    let mu = [1.0, -0.5];
    ns.iter()
        .map(|&n| {
            let owned = kv(n);
            let kvs: Vec<(&str, &str)> = owned
                .iter()
                .map(|(a, b)| (a.as_str(), b.as_str()))
                .collect();
            let mut e: Vec<f64> = (0..reps)
                .map(|rep| {
                    let x = student_data(1000 + rep, n, &mu, 3.0, 1.0 / 3f64.sqrt());
                    l2(&run(name, (&x, n, 2), (1.0, 1e-5), &kvs, rep).mean, &mu)
                })
                .collect();
            e.sort_by(|a, b| a.partial_cmp(b).unwrap());
            e[e.len() / 2]
        })
        .collect()
}

#[test]
fn clip_error_rate_in_n() {
    // Theorem 2 at the default R = M√d(n√ρ/√d)^{1/2}: sampling √(M²d/n), clipping bias
    // d M² / R and noise R/(n√ρ) all scale as n^{−1/2}: slope −0.5.
    let ns = [1000, 4000, 16_000, 64_000];
    let errs = median_errors("clip", |_| vec![("M".into(), "1.5".into())], &ns, 31);
    assert_rate_half("clip", &ns, &errs);
}

#[test]
fn iterative_updating_error_rate_in_n() {
    // (31) with a fixed k, the conservative ρ and R ∝ n^{1/2}: √(d/n), (R/n)√(k/ρ)√d and
    // d^{p/2}R^{1−p} all scale as n^{−1/2}: slope −0.5. The spec's default R (Theorem 7's
    // form) and t_c (1 here) leave the group means noise-dominated below n ≈ 10⁶, so the
    // test uses k = 10, t_c = 40 and the noise-balanced R = M√d(n√ρ/(k√d))^{1/2}.
    let ns = [8000, 32_000, 128_000, 512_000];
    let rho = zhao_target_rho(1.0, 1e-5, RhoRule::Eq15);
    let kv = |n: usize| {
        let r = 1.5 * 2f64.sqrt() * (n as f64 * rho.sqrt() / (10.0 * 2f64.sqrt())).sqrt();
        vec![
            ("M".to_string(), "1.5".to_string()),
            ("k".to_string(), "10".to_string()),
            ("t_c".to_string(), "40".to_string()),
            ("R".to_string(), format!("{r}")),
        ]
    };
    let errs = median_errors("iterative-updating", kv, &ns, 15);
    assert_rate_half("iterative-updating", &ns, &errs);
}

#[test]
fn iterative_updating_defaults_learn() {
    // The finding behind heavydp's conservative defaults: at n = 20000, d = 3, ε = 1,
    // δ = 1e-5 the spec's R = M√d(nε/√d)^{1/2} ≈ 212 gives a group noise σ ≈ 9.3 per
    // coordinate (k = 80) and r_0 of (95) ≫ R, i.e. t_c = 1 and the estimate stays near
    // c_1 = 0. With the noise-balanced R and the practical t_c the defaults learn.
    let (n, d) = (20_000, 3);
    let mu = [1.0, -0.5, 0.25];
    let x = student_data(16, n, &mu, 3.0, 1.0 / 3f64.sqrt());
    let spec = run(
        "iterative-updating",
        (&x, n, d),
        (1.0, 1e-5),
        &[("M", "1.15"), ("R", "212"), ("t_c", "1")],
        1,
    );
    assert!(hpf(&spec, "sigma") > 5.0, "{}", hpf(&spec, "sigma"));
    assert!(hpf(&spec, "r_0") > 212.0);
    let r = run(
        "iterative-updating",
        (&x, n, d),
        (1.0, 1e-5),
        &[("M", "1.15")],
        1,
    );
    assert_eq!(hpf(&r, "k") as usize, 80);
    assert!(hpf(&r, "t_c") >= 10.0, "{}", hpf(&r, "t_c"));
    assert!(hpf(&r, "sigma") < 1.0, "{}", hpf(&r, "sigma"));
    let err = |m: &[f64]| l2(m, &mu);
    let e_spec = err(&spec.mean);
    let e = err(&r.mean);
    assert!(
        e < 0.75 && e < 0.6 * e_spec,
        "default {e}, spec defaults {e_spec}"
    );
}

// ---------------------------------------------------------------- (e) pinned outputs

#[test]
fn pinned_outputs_for_short_seeded_runs() {
    let (n, d) = (200, 3);
    let x = student_data(12, n, &[1.0, -2.0, 0.5], 3.0, 1.0);
    type Case<'a> = (&'a str, Vec<(&'a str, &'a str)>, [f64; 3]);
    let cases: [Case; 4] = [
        (
            "clip",
            vec![],
            [0.42975676601326995, -2.362534545448824, -0.123238079950454],
        ),
        (
            "iterative-updating",
            vec![("k", "4"), ("t_c", "20"), ("R", "5")],
            [1.1314273952248322, -1.1057887166869271, 0.3430506746067589],
        ),
        (
            "catoni",
            vec![],
            [0.9636361785934184, -1.3898792944544596, 0.4159843003494359],
        ),
        (
            "sparse-peeling",
            vec![("s", "2")],
            [1.373586783172982, -1.5144733813593803, 0.0],
        ),
    ];
    let got: Vec<Vec<f64>> = cases
        .iter()
        .map(|(name, kv, _)| run(name, (&x, n, d), (1.0, 1e-5), kv, 2024).mean)
        .collect();
    let all = format!("{got:?}");
    for ((name, _, want), g) in cases.iter().zip(&got) {
        for (a, b) in g.iter().zip(want) {
            assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{name}: {all}");
        }
    }
}

// ---------------------------------------------------------------- (f) bad inputs

#[test]
fn bad_inputs_are_rejected_with_specific_errors() {
    let (n, d) = (50, 3);
    let mut x = student_data(13, n, &[0.0; 3], 3.0, 1.0);
    let b = Budget::new(1.0, 1e-5).unwrap();
    let mut rng = rng_from_seed(1);
    let mut err =
        |name: &str, x: &[f64], n: usize, d: usize, budget: Budget, kv: &[(&str, &str)]| {
            private_mean(name, x, n, d, budget, &params(kv), &mut rng)
                .unwrap_err()
                .to_string()
        };
    assert!(err("median", &x, n, d, b, &[]).contains("unknown estimator 'median'"));
    assert!(err("clip", &x, n, d, b, &[("T", "3")]).contains("unknown parameter 'T'"));
    assert!(err("clip", &x, 0, d, b, &[]).contains("n = 0"));
    assert!(err("clip", &[], n, 0, b, &[]).contains("d = 0"));
    assert!(err("clip", &x[..10], n, d, b, &[]).contains("n x d"));
    assert!(err("clip", &x, n, d, b, &[("p", "1.5")]).contains(">= 2"));
    assert!(err("clip", &x, n, d, b, &[("R", "-1")]).contains("parameter R"));
    assert!(err("clip", &x, n, d, b, &[("rho_rule", "eq24")]).contains("rho_rule"));
    for name in ["clip", "iterative-updating"] {
        let e = err(name, &x, n, d, Budget::pure(1.0).unwrap(), &[]);
        assert!(e.contains("needs --delta > 0"), "{e}");
    }
    let bad_eps = Budget {
        epsilon: -1.0,
        delta: 1e-5,
    };
    assert!(err("catoni", &x, n, d, bad_eps, &[]).contains("--epsilon"));
    let bad_delta = Budget {
        epsilon: 1.0,
        delta: 1.5,
    };
    assert!(err("catoni", &x, n, d, bad_delta, &[]).contains("--delta"));
    let e = err("iterative-updating", &x, n, d, b, &[("k", "51")]);
    assert!(e.contains("too few") && e.contains("51"), "{e}");
    assert!(err("iterative-updating", &x, n, d, b, &[("k", "0")]).contains("parameter k"));
    assert!(err("iterative-updating", &x, n, d, b, &[("k", "many")]).contains("parameter k"));
    let e = err(
        "iterative-updating",
        &x,
        n,
        d,
        b,
        &[("k", "25"), ("estimate", "exact")],
    );
    assert!(e.contains("estimate=exact"), "{e}");
    let e = err(
        "iterative-updating",
        &x,
        n,
        d,
        b,
        &[("accounting", "shuffle")],
    );
    assert!(
        e.contains("accounting=shuffle refused") && e.contains("Feldman"),
        "{e}"
    );
    let e = err(
        "iterative-updating",
        &x,
        n,
        d,
        b,
        &[("accounting", "shuffle"), ("rho_rule", "exact")],
    );
    assert!(e.contains("rho_rule"), "{e}");
    assert!(err("sparse-peeling", &x, n, d, b, &[]).contains("required"));
    assert!(err("sparse-peeling", &x, n, d, b, &[("s", "4")]).contains("exceeds"));
    assert!(err(
        "sparse-peeling",
        &x,
        n,
        d,
        b,
        &[("s", "1"), ("fail_prob", "2")]
    )
    .contains("fail_prob"));
    // The printed scale's composition does not close: ε = 40 > 0.418 ln 2, s = 1 > (4/3) ln 2
    // (spec Hu §E Reviewed); the exact calibration accepts it (see below).
    let e = err(
        "sparse-peeling",
        &x,
        n,
        d,
        Budget::new(40.0, 0.5).unwrap(),
        &[("s", "1"), ("calibration", "paper")],
    );
    assert!(e.contains("peeling"), "{e}");
    assert!(err(
        "sparse-peeling",
        &x,
        n,
        d,
        b,
        &[("s", "1"), ("calibration", "printed")]
    )
    .contains("parameter calibration"));
    // non-finite data: row and column named, the value never printed
    x[2 * d + 1] = f64::NAN;
    x[0] = 123_456.789;
    for name in mean_estimator_names() {
        let kv: &[(&str, &str)] = if *name == "sparse-peeling" {
            &[("s", "1")]
        } else {
            &[]
        };
        let e = err(name, &x, n, d, b, kv);
        assert!(
            e.contains("row 3, column 2") && e.contains("NaN or infinite"),
            "{e}"
        );
        assert!(!e.contains("123456"));
    }
    x[2 * d + 1] = f64::INFINITY;
    assert!(err("catoni", &x, n, d, b, &[]).contains("row 3, column 2"));
}

#[test]
fn shuffle_accounting_when_theorem_6_applies() {
    // k = 10⁴ groups at ε = 1, δ = 1e-5 pass every precondition; the charge is the
    // amplified (ε_g, δ_g) and the report says it relies on Theorem 6.
    let (n, d, k) = (20_000, 1, 10_000);
    let x = student_data(14, n, &[0.5], 3.0, 1.0);
    let r = run(
        "iterative-updating",
        (&x, n, d),
        (1.0, 1e-5),
        &[("k", "10000"), ("accounting", "shuffle"), ("t_c", "3")],
        5,
    );
    assert_eq!(r.privacy.model, PrivacyModel::Approx);
    assert!(r.privacy.epsilon <= 1.0 && r.privacy.delta <= 1e-5);
    assert_eq!(hpf(&r, "rho"), zhao_rho_eq24(1.0, 1e-5, k));
    assert!(r
        .notes
        .iter()
        .any(|s| s.starts_with("UNPROVEN privacy claim")
            && s.contains("Theorem 6")
            && s.contains("Z7")));
    assert!(r.privacy.ledger[0].release.contains("Theorem 6"));
    // and the catalogue (`mean --list`) says so
    let iu = mean_estimator_info()
        .into_iter()
        .find(|i| i.name == "iterative-updating")
        .unwrap();
    let acc = iu.param("accounting").unwrap();
    assert!(acc.meaning.contains("shuffle: UNPROVEN"), "{}", acc.meaning);
}

#[test]
fn info_lists_every_estimator_and_parameter() {
    let info = mean_estimator_info();
    let names: Vec<&str> = info.iter().map(|i| i.name).collect();
    assert_eq!(names, mean_estimator_names());
    let privacy: Vec<&str> = info.iter().map(|i| i.privacy).collect();
    assert_eq!(privacy, ["zcdp", "zcdp", "pure", "approx"]);
    // every documented parameter is accepted, and every accepted one is documented
    let x = student_data(15, 100, &[0.0, 1.0], 3.0, 1.0);
    for i in &info {
        for p in &i.parameters {
            assert!(!p.default.is_empty() && !p.source.is_empty());
        }
        let mut pnames: Vec<&str> = i.parameters.iter().map(|p| p.name).collect();
        pnames.sort_unstable();
        let mut kv = BTreeMap::new();
        kv.insert("nonsense".to_string(), "1".to_string());
        let e = private_mean(
            i.name,
            &x,
            100,
            2,
            Budget::new(1.0, 1e-5).unwrap(),
            &kv,
            &mut rng_from_seed(1),
        )
        .unwrap_err()
        .to_string();
        let list = e.split("accepted: ").nth(1).unwrap().trim_end_matches(')');
        let mut accepted: Vec<&str> = list.split(", ").collect();
        accepted.sort_unstable();
        assert_eq!(accepted, pnames, "{}", i.name);
    }
}

// ---------------------------------------------------------------- degenerate settings are said

fn has_note(r: &MeanReport, needle: &str) -> bool {
    r.notes.iter().any(|n| n.contains(needle))
}

#[test]
fn default_scale_parameters_are_noted_and_declared_ones_are_not() {
    let x = student_data(1, 400, &[0.5, -0.5], 5.0, 1.0);
    let r = run("catoni", (&x, 400, 2), (1.0, 0.0), &[], 3);
    assert!(has_note(&r, "tau was not given"), "{:?}", r.notes);
    let r = run("catoni", (&x, 400, 2), (1.0, 0.0), &[("tau", "2")], 3);
    assert!(!has_note(&r, "tau was not given"), "{:?}", r.notes);
    let r = run("clip", (&x, 400, 2), (1.0, 1e-5), &[], 3);
    assert!(has_note(&r, "M was not given"), "{:?}", r.notes);
    let r = run("clip", (&x, 400, 2), (1.0, 1e-5), &[("M", "2")], 3);
    assert!(!has_note(&r, "M was not given"), "{:?}", r.notes);
}

#[test]
fn catoni_truncation_below_the_declared_scale_is_noted_from_public_quantities_only() {
    // k = sqrt(3 n eps tau (1 + 1/beta)/(8 sqrt 2 d)) < sqrt(tau) iff 3 n eps (1+1/beta) < 8 sqrt2 d
    let (n, d) = (20, 2);
    let k_formula =
        (3.0 * n as f64 * 0.1 * 4.0 * 2.0 / (8.0 * std::f64::consts::SQRT_2 * d as f64)).sqrt();
    assert!(k_formula < 2.0);
    for seed in [1, 2] {
        // two unrelated datasets: the public note is the same
        let x = student_data(seed, n, &[seed as f64, -3.0], 3.0, 10.0);
        let r = run("catoni", (&x, n, d), (0.1, 0.0), &[("tau", "4")], seed);
        assert!((hpf(&r, "k") - k_formula).abs() < 1e-12);
        assert!(has_note(&r, "truncation scale k"), "{:?}", r.notes);
    }
    // at large n eps the note is absent
    let x = student_data(3, 2000, &[0.1, -0.1], 5.0, 1.0);
    let r = run("catoni", (&x, 2000, 2), (1.0, 0.0), &[("tau", "4")], 3);
    assert!(!has_note(&r, "truncation scale k"), "{:?}", r.notes);
}

#[test]
fn catoni_mean_beyond_sqrt_tau_is_noted() {
    // wage-like column: mean 600, tau = 1 (the default) is far below its scale
    let n = 2000;
    let x = student_data(4, n, &[600.0], 5.0, 50.0);
    let r = run("catoni", (&x, n, 1), (1.0, 0.0), &[], 5);
    assert!(r.mean[0].abs() > 1.0);
    assert!(has_note(&r, "contradicts the declared"), "{:?}", r.notes);
    // a declared tau of the data's scale: no such note, and the estimate is close
    let r = run("catoni", (&x, n, 1), (1.0, 0.0), &[("tau", "400000")], 5);
    assert!(!has_note(&r, "exceeds sqrt(tau)"), "{:?}", r.notes);
    assert!((r.mean[0] - 600.0).abs() < 30.0, "{}", r.mean[0]);
}

#[test]
fn iterative_updating_stuck_at_the_starting_centre_is_noted() {
    // noise of the group means far above the data's mean: the refinement keeps c_1 = 0
    let n = 2000;
    let x = student_data(6, n, &[0.5], 5.0, 0.5);
    let r = run(
        "iterative-updating",
        (&x, n, 1),
        (0.05, 1e-5),
        &[("M", "1000")],
        7,
    );
    if r.mean == vec![0.0] {
        assert!(has_note(&r, "starting centre"), "{:?}", r.notes);
    }
    assert!(has_note(&r, "noise-dominated"), "{:?}", r.notes);
    // a well-posed run: neither note
    let x = student_data(8, 20000, &[3.0], 5.0, 1.0);
    let r = run(
        "iterative-updating",
        (&x, 20000, 1),
        (1.0, 1e-5),
        &[("M", "4")],
        9,
    );
    assert!(r.mean[0] != 0.0);
    assert!(!has_note(&r, "starting centre"), "{:?}", r.notes);
    assert!(!has_note(&r, "noise-dominated"), "{:?}", r.notes);
}

/// The iterative-updating mean: on data whose mean is ≈ 0 the estimate is
/// exactly c_1 = 0 in almost every run. This is step 6 of Algorithm 3, not a lost release:
/// the candidates are the centres c_1 = 0 (public), c_2, …, c_{t_c+1}, and
/// l* = argmin_l d_l. When c_1 lies inside the cloud of the noisy group means Q_j
/// (|μ| below about 1.3 times their noise σ), d_1 < 0 and every update
/// c_{l+1} = c_l + η_c d_l g_l moves against g_l, away from the Q_j, so d grows and c_1
/// wins; ‖μ̂ − μ‖ = ‖μ‖ is then within the algorithm's error bound. At n = 60
/// (k = 30, m = 2, R = 0.6, σ ≈ 3.3) that holds for every data set the clipping allows.
/// When the mean lies outside the cloud (n = 2000: k = 61, m = 32, R ≈ 2.4, σ ≈ 0.83,
/// μ = (1.5, −1)) the estimate leaves 0 and varies with the noise.
#[test]
fn iterative_updating_returns_the_start_only_when_it_is_the_best_centre() {
    let reps = 200;
    let count = |n: usize, mu: &[f64], scale: f64| {
        let x = student_data(40, n, mu, 3.0, scale);
        let mut zeros = 0;
        let mut first = Vec::new();
        for s in 0..reps {
            let r = run(
                "iterative-updating",
                (&x, n, 2),
                (1.0, 1e-5),
                &[("M", "1")],
                s,
            );
            if r.mean.iter().all(|v| *v == 0.0) {
                zeros += 1;
            }
            first.push(r.mean[0]);
        }
        first.sort_by(f64::total_cmp);
        first.dedup();
        (zeros, first.len())
    };
    let (z60, _) = count(60, &[0.0, 0.0], 0.01);
    let (z2000, distinct) = count(2000, &[1.5, -1.0], 0.5);
    println!("exact zeros: n = 60 near-zero {z60}/{reps}; n = 2000, mean (1.5, -1): {z2000}/{reps}, {distinct} distinct");
    assert!(z60 > reps * 9 / 10, "{z60}");
    assert!(z2000 < reps / 10, "{z2000}");
    assert!(distinct > reps as usize / 2, "{distinct}");
}
