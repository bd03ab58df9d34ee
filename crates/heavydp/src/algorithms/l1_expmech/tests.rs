//! Tests of `l1-regression-expmech` (Wang & Xu Alg. 1/2): ψ_θ, the score kernel and its
//! sensitivity, the nets, the exponential-mechanism sampler, the fit.

use super::kernel::pow_unit;
use super::*;
use crate::constraints::{L1Ball, L2Ball, Simplex};
use crate::mechanisms::Mechanism;
use crate::noise::rng_from_seed;
use crate::test_support::{bits, on_threads, params, sparse_ball, FitSeeded};
use rand::Rng;
use rand_distr::{Distribution, StudentT};

const THETAS: [f64; 6] = [2.0, 1.1, 1.3, 1.5, 1.7, 1.9];

fn student(n: usize, w_star: &[f64], nu: f64, seed: u64) -> Dataset {
    let d = w_star.len();
    let mut rng = rng_from_seed(seed);
    let t = StudentT::new(nu).unwrap();
    let x: Vec<f64> = (0..n * d).map(|_| t.sample(&mut rng)).collect();
    let y: Vec<f64> = x
        .chunks(d)
        .map(|r| crate::linalg::dot(r, w_star) + t.sample(&mut rng))
        .collect();
    Dataset::from_rows(x, y, d).unwrap()
}

use crate::linalg::dist2 as l2_dist;

/// Σ_i ψ_θ(ι|y_i − ⟨x_i, w⟩|) written out record by record with the log1p form.
fn brute_sum(data: &Dataset, theta: f64, iota: f64, w: &[f64]) -> f64 {
    (0..data.n())
        .map(|i| {
            let r = data.y()[i] - crate::linalg::dot(data.row(i), w);
            psi_record(theta, iota * r.abs())
        })
        .sum()
}

// ------------------------------------------------------------------ ψ_θ

#[test]
fn psi_satisfies_the_two_sided_bounds_3_and_15() {
    // Spec §2: 2·10⁵-point grid of [−5, 5]; (3) for θ = 2, (15) for θ < 2, with the odd
    // extension ψ(−x) = −ψ(x) (what `psi` computes for x < 0).
    let m = 200_000;
    for theta in THETAS {
        let lt = theta.ln();
        let mut prev = f64::NEG_INFINITY;
        for k in 0..=m {
            let x = -5.0 + 10.0 * k as f64 / m as f64;
            let v = psi(theta, x);
            let ax = x.abs().powf(theta) / theta;
            let lower = -(1.0 - x + ax).ln();
            let upper = (1.0 + x + ax).ln();
            assert!(
                lower <= v + 1e-12,
                "θ = {theta}, x = {x}: {lower} > ψ = {v}"
            );
            assert!(
                v <= upper + 1e-12,
                "θ = {theta}, x = {x}: ψ = {v} > {upper}"
            );
            assert!(
                v.abs() <= lt,
                "θ = {theta}, x = {x}: |ψ| = {} > log θ",
                v.abs()
            );
            assert!(v >= prev - 1e-15, "θ = {theta}: not monotone at x = {x}");
            prev = v;
        }
        // Continuity at 1 and the odd extension.
        assert_eq!(psi(theta, 1.0), lt);
        assert!((psi(theta, 1.0 - 1e-9) - lt).abs() < 1e-8, "θ = {theta}");
        assert_eq!(psi(theta, 7.0), lt);
        assert_eq!(psi(theta, -0.3), -psi(theta, 0.3));
        assert_eq!(psi(theta, 0.0), 0.0);
        // The algorithm's per-record value: NaN → log θ, never outside [0, log θ].
        assert_eq!(psi_record(theta, f64::NAN), lt);
        assert_eq!(psi_record(theta, f64::INFINITY), lt);
        assert!(psi(theta, f64::NAN).is_nan());
    }
    // θ = 2 is exactly eq. (6).
    let x: f64 = 0.37;
    assert!((psi(2.0, x) + (1.0 - x + x * x / 2.0).ln()).abs() < 1e-15);
}

#[test]
fn pow_unit_matches_powf() {
    let mut worst: f64 = 0.0;
    for theta in [1.01, 1.1, 1.5, 1.9, 1.999] {
        for k in 1..=20_000 {
            let a = k as f64 / 20_000.0;
            let (got, want) = (pow_unit(a, theta), a.powf(theta));
            worst = worst.max(((got - want) / want).abs());
        }
        for e in 1..290 {
            let a = 10f64.powi(-e);
            let (got, want) = (pow_unit(a, theta), a.powf(theta));
            if want > 1e-290 {
                worst = worst.max(((got - want) / want).abs());
            } else {
                assert!(got.abs() < 1e-290);
            }
        }
        assert!(pow_unit(0.0, theta) < 1e-300);
        assert!((pow_unit(1.0, theta) - 1.0).abs() < 1e-15);
    }
    assert!(worst < 1e-12, "relative error {worst:e}");
}

// ------------------------------------------------------------------ kernel

#[test]
fn kernel_matches_the_direct_log1p_sum() {
    // n not a multiple of 8 or 512; d = 1..4 (fixed-size paths) and 5 (generic path).
    for d in 1..=5 {
        let w_star: Vec<f64> = (0..d).map(|j| 0.4 - 0.2 * j as f64).collect();
        let data = student(1237, &w_star, 3.0, 7 + d as u64);
        let mut rng = rng_from_seed(99);
        for theta in [2.0, 1.9, 1.5, 1.1] {
            for iota in [0.02, 0.3, 5.0] {
                let score = TruncatedScore::new(theta, iota);
                let cands: Vec<f64> = (0..5 * d).map(|_| rng.random_range(-1.0..1.0)).collect();
                let mut many = vec![0.0; 5];
                score.sums(&data, &cands, &mut many);
                for (j, w) in cands.chunks(d).enumerate() {
                    let direct = brute_sum(&data, theta, iota, w);
                    let one = score.sum(&data, w);
                    assert!(
                        (one - direct).abs() <= 1e-12 * data.n() as f64,
                        "d {d} θ {theta} ι {iota}: {one} vs {direct}"
                    );
                    // The three entry points are the same arithmetic, bit for bit.
                    assert_eq!(one.to_bits(), many[j].to_bits());
                    assert_eq!(one.to_bits(), score.sum_par(&data, w).to_bits());
                    assert!(one >= 0.0 && one <= data.n() as f64 * theta.ln() * (1.0 + 1e-12));
                }
            }
        }
    }
}

#[test]
fn nan_residual_scores_log_theta() {
    // x_j·w_j overflows to ±∞ when ‖w‖∞ > 1: ∞ − ∞ = NaN (spec §5 note).
    let mut x = vec![f64::MAX, -f64::MAX];
    let mut y = vec![0.0];
    for i in 0..40 {
        x.extend([0.1 * i as f64, -0.05 * i as f64]);
        y.push(0.01 * i as f64);
    }
    let data = Dataset::from_rows(x.clone(), y.clone(), 2).unwrap();
    let rest = Dataset::from_rows(x[2..].to_vec(), y[1..].to_vec(), 2).unwrap();
    let w = [2.0, 2.0];
    assert!((crate::linalg::dot(data.row(0), &w)).is_nan());
    for theta in [2.0, 1.5] {
        let s = TruncatedScore::new(theta, 0.7);
        let diff = s.sum(&data, &w) - s.sum(&rest, &w);
        assert!((diff - theta.ln()).abs() < 1e-12, "θ {theta}: {diff}");
        assert!(s.sum(&data, &w).is_finite());
    }
}

#[test]
fn score_sensitivity_is_attained_by_a_worst_case_pair_and_never_exceeded() {
    let n = 600;
    for theta in [2.0, 1.5, 1.2] {
        for iota in [0.05, 0.8] {
            // D: every record fits w exactly (ψ = 0); D': record 0 replaced by one with a
            // residual beyond 1/ι (ψ = log θ). u = −S/(nι) moves by exactly log θ/(nι).
            let w = [0.3, -0.2];
            let x: Vec<f64> = (0..2 * n)
                .map(|i| ((i * 31) % 17) as f64 / 7.0 - 1.0)
                .collect();
            let y: Vec<f64> = x.chunks(2).map(|r| crate::linalg::dot(r, &w)).collect();
            let d0 = Dataset::from_rows(x.clone(), y.clone(), 2).unwrap();
            let mut y1 = y.clone();
            y1[0] += 10.0 / iota;
            let d1 = Dataset::from_rows(x.clone(), y1, 2).unwrap();
            let score = TruncatedScore::new(theta, iota);
            let du = (score.sum(&d1, &w) - score.sum(&d0, &w)) / (n as f64 * iota);
            let tight = score_sensitivity(theta, n, iota, SensitivityRule::Tight);
            assert!(
                (du - tight).abs() <= 1e-12 * tight,
                "θ {theta}: {du} vs {tight}"
            );
            // The sampler's coefficient keeps the computed change below ε/2 (κ = 1).
            let ds = score.sum(&d1, &w) - score.sum(&d0, &w);
            assert!(sampler::coefficient(1.0, 1.0, theta, n) * ds <= 0.5);
            assert!((du - theta.ln() / (n as f64 * iota)).abs() <= 1e-12 * tight);
            let paper = score_sensitivity(theta, n, iota, SensitivityRule::Paper);
            assert!((paper - 2.0 * tight).abs() <= 1e-15 * paper);
            // Random neighbouring pairs (heavy-tailed replacement records) never exceed it.
            let mut rng = rng_from_seed(5);
            let t = StudentT::new(1.5).unwrap();
            for _ in 0..200 {
                let i = rng.random_range(0..n);
                let mut x2 = x.clone();
                let mut y2 = y.clone();
                x2[2 * i] = 50.0 * t.sample(&mut rng);
                x2[2 * i + 1] = 50.0 * t.sample(&mut rng);
                y2[i] = 50.0 * t.sample(&mut rng);
                let d2 = Dataset::from_rows(x2, y2, 2).unwrap();
                let wr = [rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)];
                let diff = (score.sum(&d2, &wr) - score.sum(&d0, &wr)).abs() / (n as f64 * iota);
                assert!(diff <= tight * (1.0 + 1e-12), "θ {theta}: {diff} > {tight}");
            }
        }
    }
}

// ------------------------------------------------------------------ sampler

/// Pearson χ² of `counts` against probabilities exp(`log_p`).
fn chi_square(counts: &[usize], log_p: &[f64]) -> f64 {
    let total: usize = counts.iter().sum();
    counts
        .iter()
        .zip(log_p)
        .map(|(&c, &l)| {
            let e = total as f64 * l.exp();
            (c as f64 - e).powi(2) / e
        })
        .sum()
}

fn log_softmax(z: &[f64]) -> Vec<f64> {
    let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let lse = m + z.iter().map(|v| (v - m).exp()).sum::<f64>().ln();
    z.iter().map(|v| v - lse).collect()
}

#[test]
fn sampler_matches_exact_exponential_mechanism_probabilities() {
    // A grid net of 11 candidates of [−1, 1] and the scores of a small dataset.
    let domain = L2Ball { d: 1, radius: 1.0 };
    let net = GridNet::new(&domain, 0.1).unwrap();
    assert_eq!(net.count(), 11);
    let data = student(60, &[0.4], 3.0, 21);
    let (theta, iota, eps) = (2.0, 0.5, 0.5);
    let score = TruncatedScore::new(theta, iota);
    let mech = NetExponentialMechanism {
        net: &net,
        score,
        epsilon: eps,
        kappa: 1.0,
    };
    let coef = match mech.selection(data.n()) {
        Selection::Exponential { coef } => coef,
        Selection::Argmin => panic!(),
    };
    assert_eq!(coef, sampler::coefficient(eps, 1.0, 2.0, 60));
    let ideal = eps / (2.0 * 2f64.ln());
    assert!(coef < ideal && coef > ideal * (1.0 - 1e-8));
    let mut s = vec![0.0; 11];
    let mut pts = vec![0.0; 11];
    net.fill(0, &mut pts);
    score.sums(&data, &pts, &mut s);
    let exact = log_softmax(&s.iter().map(|v| -coef * v).collect::<Vec<_>>());
    let printed = log_softmax(&s.iter().map(|v| -2.0 * coef * v).collect::<Vec<_>>());
    // Preconditions of a valid χ² test: every expected count ≥ 5 (here ≥ 20).
    assert!(exact.iter().all(|l| l.exp() > 1e-3), "{exact:?}");
    let draws = 20_000;
    let mut rng = rng_from_seed(2024);
    let mut counts = vec![0usize; 11];
    let mut counts_printed = vec![0usize; 11];
    for _ in 0..draws {
        let sel = mech.run_uncharged(&data, &mut rng);
        assert_eq!(sel.point, net.point(sel.index));
        counts[sel.index as usize] += 1;
        // The paper's printed exponent −nιε L̂/log θ = 2× the corrected one.
        let mut key = [0u8; 32];
        rng.fill_bytes(&mut key);
        let wrong = select(
            &net,
            &score,
            &data,
            Selection::Exponential { coef: 2.0 * coef },
            key,
        );
        counts_printed[wrong.index as usize] += 1;
    }
    // 10 degrees of freedom: P(χ² > 29.59) = 0.001.
    let chi = chi_square(&counts, &exact);
    assert!(chi < 29.59, "χ² = {chi}, counts {counts:?}");
    // Power: the printed exponent's samples fail the same test by far (and fit their own law).
    let chi_wrong = chi_square(&counts_printed, &exact);
    assert!(chi_wrong > 29.59 * 10.0, "χ² = {chi_wrong}");
    assert!(chi_square(&counts_printed, &printed) < 29.59);
}

#[test]
fn argmin_selection_draws_nothing_and_breaks_ties_by_the_smallest_index() {
    // All residuals huge ⇒ every candidate has S = n log θ: a 5-way tie.
    let data = Dataset::from_rows(vec![0.0; 20], vec![1e9; 20], 1).unwrap();
    let domain = L2Ball { d: 1, radius: 1.0 };
    let net = GridNet::new(&domain, 0.25).unwrap();
    assert_eq!(net.count(), 5);
    let score = TruncatedScore::new(2.0, 1.0);
    let mech = NetExponentialMechanism {
        net: &net,
        score,
        epsilon: f64::INFINITY,
        kappa: 1.0,
    };
    let mut rng = rng_from_seed(1);
    let before = rng.clone();
    let sel = mech.run_uncharged(&data, &mut rng);
    assert_eq!(sel.index, 0);
    assert_eq!(rng, before, "epsilon = inf must not draw");
}

// ------------------------------------------------------------------ nets

fn uniform_probe(domain: &dyn ConstraintSet, rng: &mut crate::noise::HeavyRng) -> Vec<f64> {
    // Rejection from the bounding box (small d only).
    let r = domain.l2_radius();
    loop {
        let w: Vec<f64> = (0..domain.dim())
            .map(|_| rng.random_range(-r..=r))
            .collect();
        if domain.contains(&w, 0.0) {
            return w;
        }
    }
}

#[test]
fn grid_net_covers_w_at_resolution_zeta_and_lies_in_w() {
    let domains: Vec<(Box<dyn ConstraintSet>, f64)> = vec![
        (Box::new(L2Ball { d: 1, radius: 1.0 }), 0.03),
        (Box::new(L2Ball { d: 2, radius: 1.0 }), 0.12),
        (Box::new(L1Ball { d: 2, radius: 2.0 }), 0.2),
        (Box::new(L2Ball { d: 3, radius: 1.0 }), 0.3),
        (Box::new(L1Ball { d: 3, radius: 1.0 }), 0.2),
    ];
    let mut rng = rng_from_seed(3);
    for (domain, zeta) in &domains {
        let net = GridNet::new(domain.as_ref(), *zeta).unwrap();
        let d = domain.dim();
        let mut pts = Vec::new();
        net.for_each(|i, w| {
            assert_eq!(i as usize, pts.len() / d);
            pts.extend_from_slice(w);
        });
        assert_eq!(pts.len() as u64, net.count() * d as u64);
        assert!(net.count() > 1);
        for w in pts.chunks(d) {
            assert!(domain.contains(w, 1e-12), "{w:?} not in W");
        }
        // Random access agrees with the enumeration, also across line boundaries.
        for i in [0, 1, net.count() / 3, net.count() / 2 + 1, net.count() - 1] {
            assert_eq!(
                net.point(i),
                pts[i as usize * d..(i as usize + 1) * d].to_vec()
            );
        }
        let mut buf = vec![0.0; 7 * d];
        net.fill(net.count() / 2, &mut buf);
        let s = (net.count() / 2) as usize * d;
        assert_eq!(buf, pts[s..s + 7 * d].to_vec());
        // Every point of W (and the extreme points) is within ζ of a stored point.
        let mut probes: Vec<Vec<f64>> = (0..1500)
            .map(|_| uniform_probe(domain.as_ref(), &mut rng))
            .collect();
        let r = domain.l2_radius();
        for j in 0..d {
            let mut e = vec![0.0; d];
            e[j] = r;
            domain.project(&mut e);
            probes.push(e.clone());
            e.iter_mut().for_each(|v| *v = -*v);
            probes.push(e);
        }
        for w in &probes {
            let best = pts
                .chunks(d)
                .map(|p| l2_dist(p, w))
                .fold(f64::INFINITY, f64::min);
            assert!(
                best <= zeta * (1.0 + 1e-9),
                "d {d}: {w:?} is {best} > ζ = {zeta} from the net"
            );
        }
    }
}

#[test]
fn grid_net_of_a_polytope_and_the_simplex() {
    let simplex = Simplex { d: 3 };
    let net = GridNet::new(&simplex, 0.1).unwrap();
    let mut rng = rng_from_seed(8);
    let mut pts = Vec::new();
    net.for_each(|_, w| pts.extend_from_slice(w));
    for w in pts.chunks(3) {
        assert!(simplex.contains(w, 1e-12));
    }
    for _ in 0..500 {
        // Uniform on the simplex: normalised exponentials.
        let e: Vec<f64> = (0..3)
            .map(|_| -crate::noise::open01(&mut rng).ln())
            .collect();
        let s: f64 = e.iter().sum();
        let w: Vec<f64> = e.iter().map(|v| v / s).collect();
        let best = pts
            .chunks(3)
            .map(|p| l2_dist(p, &w))
            .fold(f64::INFINITY, f64::min);
        assert!(best <= 0.1 * (1.0 + 1e-9));
    }
}

#[test]
fn zeta_min_count_is_the_count_of_the_net_built_at_zeta_min() {
    for (domain, cap) in [
        (
            Box::new(L2Ball { d: 2, radius: 1.0 }) as Box<dyn ConstraintSet>,
            500u64,
        ),
        (Box::new(L2Ball { d: 1, radius: 1.0 }), 1000),
        (Box::new(L1Ball { d: 3, radius: 1.0 }), 2000),
    ] {
        let zm = zeta_min(domain.as_ref(), cap).unwrap();
        assert!(zm.count <= cap);
        assert_eq!(
            GridNet::new(domain.as_ref(), zm.zeta).unwrap().count(),
            zm.count
        );
        assert_eq!(grid_count(domain.as_ref(), zm.zeta, cap), Some(zm.count));
        // The bisection bracket: a resolution 1e-3 finer already exceeds the cap.
        assert_eq!(grid_count(domain.as_ref(), zm.zeta * 0.999, cap), None);
    }
    // The spec's figures for the unit l2 ball and 2^18 candidates.
    let z1 = zeta_min(&L2Ball { d: 1, radius: 1.0 }, 1 << 18)
        .unwrap()
        .zeta;
    assert!((z1 / 3.8e-6 - 1.0).abs() < 0.02, "{z1}");
    let z2 = zeta_min(&L2Ball { d: 2, radius: 1.0 }, 1 << 18)
        .unwrap()
        .zeta;
    assert!((z2 / 2.4e-3 - 1.0).abs() < 0.05, "{z2}");
}

#[test]
fn random_candidates_lie_in_w_are_uniform_and_depend_only_on_the_seed() {
    for (domain, norm) in [
        (
            Box::new(L2Ball { d: 2, radius: 1.5 }) as Box<dyn ConstraintSet>,
            2usize,
        ),
        (Box::new(L1Ball { d: 2, radius: 1.5 }), 1),
        (Box::new(L2Ball { d: 5, radius: 1.0 }), 2),
        (Box::new(L1Ball { d: 4, radius: 1.0 }), 1),
    ] {
        let m = 3000u64;
        let net = RandomNet::new(domain.as_ref(), m, &mut rng_from_seed(4)).unwrap();
        let same = RandomNet::new(domain.as_ref(), m, &mut rng_from_seed(4)).unwrap();
        let other = RandomNet::new(domain.as_ref(), m, &mut rng_from_seed(5)).unwrap();
        let d = domain.dim();
        let mut pts = vec![0.0; m as usize * d];
        net.fill(0, &mut pts);
        let mut pts2 = vec![0.0; m as usize * d];
        same.fill(0, &mut pts2);
        assert_eq!(pts, pts2);
        other.fill(0, &mut pts2);
        assert_ne!(pts, pts2);
        // Random access = sequential generation, across block boundaries.
        for i in [0, 1, 1023, 1024, 2500] {
            assert_eq!(
                net.point(i),
                pts[i as usize * d..(i as usize + 1) * d].to_vec()
            );
        }
        let r = domain.l2_radius();
        let mut inner = 0;
        for w in pts.chunks(d) {
            assert!(domain.contains(w, 1e-12));
            let nrm = if norm == 2 {
                crate::linalg::norm2(w)
            } else {
                crate::linalg::norm1(w)
            };
            if nrm <= r / 2.0 {
                inner += 1;
            }
        }
        // Uniform on a ball: P(‖w‖ ≤ R/2) = 2^{−d}; 3000 draws, tolerance 5 sd.
        let p = 0.5f64.powi(d as i32);
        let sd = (p * (1.0 - p) / m as f64).sqrt();
        let frac = inner as f64 / m as f64;
        assert!((frac - p).abs() < 5.0 * sd, "d {d}: {frac} vs {p}");
    }
    let err = RandomNet::new(&Simplex { d: 3 }, 10, &mut rng_from_seed(1)).unwrap_err();
    assert!(matches!(err, NetError::UnsupportedDomain(_)));
}

// ------------------------------------------------------------------ the fit

#[test]
fn epsilon_infinity_is_the_brute_force_argmin_over_the_same_net() {
    for theta in [2.0, 1.5] {
        let data = student(400, &[0.5, -0.3], 3.0, 31);
        let domain = L2Ball { d: 2, radius: 1.0 };
        let alg = L1RegressionExpMech {
            theta,
            zeta: Some(0.04),
            ..Default::default()
        };
        let prob = Problem::new(&data, LossKind::Absolute, &domain);
        let rep = alg.fit_seeded(&prob, Budget::non_private(), 1);
        let iota = rep.hyperparameters["iota"].as_f64().unwrap();
        // ι evaluated at ε = 1 (formula_epsilon).
        let want = default_iota(400, 2, 1.0, theta, 1.0, 0.05, MomentKind::Norm);
        assert_eq!(iota, want);
        let net = GridNet::new(&domain, 0.04).unwrap();
        assert_eq!(rep.hyperparameters["candidates"], net.count());
        let mut best = (f64::INFINITY, vec![]);
        let mut second = f64::INFINITY;
        net.for_each(|_, w| {
            let l = brute_sum(&data, theta, iota, w) / (400.0 * iota);
            if l < best.0 {
                second = best.0;
                best = (l, w.to_vec());
            } else if l < second {
                second = l;
            }
        });
        assert!(
            second - best.0 > 1e-9,
            "near tie: the comparison would be fragile"
        );
        assert_eq!(rep.weights, best.1, "θ {theta}");
        assert_eq!(rep.privacy.model, PrivacyModel::None);
    }
}

#[test]
fn fits_are_bit_identical_for_any_number_of_threads() {
    let data = student(300, &[0.5, -0.3], 3.0, 41);
    let domain = L2Ball { d: 2, radius: 1.0 };
    for alg in [
        // ≈ 5000 candidates: several blocks of 1024.
        L1RegressionExpMech {
            zeta: Some(0.015),
            ..Default::default()
        },
        L1RegressionExpMech {
            net: NetKind::Random,
            max_candidates: Some(3500),
            theta: 1.5,
            ..Default::default()
        },
    ] {
        let run = |threads: usize, budget: Budget| {
            on_threads(threads, || {
                let prob = Problem::new(&data, LossKind::Absolute, &domain);
                alg.fit_seeded(&prob, budget, 77).weights
            })
        };
        for budget in [Budget::new(0.5, 1e-6).unwrap(), Budget::non_private()] {
            let (a, b) = (run(1, budget), run(2, budget));
            assert_eq!(bits(&a), bits(&b));
        }
    }
}

/// Mean ‖w̃ − w*‖₂ over `reps` seeded fits on Student-t data (features and noise ν).
fn mean_error(alg: &L1RegressionExpMech, w_star: &[f64], nu: f64, n: usize, reps: u64) -> f64 {
    let domain = L2Ball {
        d: w_star.len(),
        radius: 1.0,
    };
    let total: f64 = (0..reps)
        .map(|rep| {
            let data = student(n, w_star, nu, 100 + rep);
            let prob = Problem::new(&data, LossKind::Absolute, &domain);
            let r = alg.fit_seeded(&prob, Budget::new(1.0, 1e-6).unwrap(), rep);
            l2_dist(&r.weights, w_star)
        })
        .sum();
    total / reps as f64
}

#[test]
fn accuracy_on_heavy_tailed_data_d1_and_d2() {
    // Student t (ν = 3) features and noise, W = unit l2 ball, ε = 1, τ² = E‖x‖₂² = 3d; the
    // error is small at nε = 4·10⁴ and shrinks with n (rate (nε)^{−1/4} for ‖w̃ − w*‖).
    for w_star in [vec![0.5], vec![0.5, -0.3]] {
        let alg = L1RegressionExpMech {
            tau: (3.0 * w_star.len() as f64).sqrt(),
            max_candidates: Some(1024),
            ..Default::default()
        };
        let small = mean_error(&alg, &w_star, 3.0, 1000, 6);
        let large = mean_error(&alg, &w_star, 3.0, 40_000, 6);
        assert!(large < 0.05, "d {}: {small} -> {large}", w_star.len());
        assert!(
            large < 0.5 * small,
            "d {}: {small} -> {large}",
            w_star.len()
        );
    }
}

#[test]
fn accuracy_theta_1_5_with_infinite_variance_data() {
    // ν = 1.8: E|x|^1.5 < ∞ but infinite variance (Algorithm 2, Assumption 3); τ = 4.41
    // as in the spec's `wangxu-rate` design.
    let w_star = [0.5, -0.3];
    let alg = L1RegressionExpMech {
        theta: 1.5,
        tau: 4.41,
        max_candidates: Some(1024),
        ..Default::default()
    };
    let small = mean_error(&alg, &w_star, 1.8, 1000, 6);
    let large = mean_error(&alg, &w_star, 1.8, 10_000, 6);
    assert!(large < 0.1, "{small} -> {large}");
    assert!(large < 0.6 * small, "{small} -> {large}");
}

#[test]
fn pinned_short_seeded_fits() {
    // Silent changes to the net, the kernel or the samplers change these values.
    let data = student(500, &[0.5, -0.3], 3.0, 12);
    let domain = L2Ball { d: 2, radius: 1.0 };
    let prob = Problem::new(&data, LossKind::Absolute, &domain);
    let grid = L1RegressionExpMech {
        max_candidates: Some(512),
        ..Default::default()
    }
    .fit_seeded(&prob, Budget::new(1.0, 1e-6).unwrap(), 3);
    let random = L1RegressionExpMech {
        net: NetKind::Random,
        max_candidates: Some(512),
        theta: 1.5,
        ..Default::default()
    }
    .fit_seeded(&prob, Budget::new(1.0, 1e-6).unwrap(), 3);
    let pinned_grid = [0.49591361673525947, -0.3306090778235063];
    let pinned_random = [0.5096669447533723, -0.5387671438008063];
    assert_eq!(grid.hyperparameters["candidates"], 509);
    assert!((grid.hyperparameters["zeta"].as_f64().unwrap() - 0.05844398021270809).abs() < 1e-15);
    for (got, want) in [
        (&grid.weights, pinned_grid),
        (&random.weights, pinned_random),
    ] {
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "{got:?}");
        }
    }
}

#[test]
fn ledger_spends_exactly_epsilon_and_reports_the_model() {
    let data = student(300, &[0.5, -0.3], 3.0, 13);
    let domain = L2Ball { d: 2, radius: 1.0 };
    for (alg, model, exact) in [
        (
            L1RegressionExpMech {
                max_candidates: Some(300),
                ..Default::default()
            },
            PrivacyModel::Approx,
            true,
        ),
        (
            L1RegressionExpMech {
                net: NetKind::Random,
                max_candidates: Some(300),
                ..Default::default()
            },
            PrivacyModel::Approx,
            true,
        ),
        (
            L1RegressionExpMech {
                net: NetKind::Mcmc,
                mcmc_steps: 300,
                ..Default::default()
            },
            PrivacyModel::None,
            false,
        ),
    ] {
        let eps = 0.7;
        let prob = Problem::new(&data, LossKind::Absolute, &domain);
        let r = alg.fit_seeded(&prob, Budget::new(eps, 1e-6).unwrap(), 9);
        assert_eq!(alg.privacy_model(), model);
        assert_eq!(r.privacy.model, model);
        assert_eq!(r.hyperparameters["privacy_exact"], exact);
        assert!(domain.contains(&r.weights, 1e-12));
        if model == PrivacyModel::Approx {
            assert_eq!(r.privacy.epsilon, eps);
            // δ = (1 + e^0.7)·N·2⁻⁵⁰ for the N candidates actually scored
            let n_cand = r.hyperparameters["candidates"].as_u64().unwrap();
            let want = (1.0 + eps.exp()) * n_cand as f64 * 2f64.powi(-50);
            assert!(
                r.privacy.delta >= want && r.privacy.delta <= want * (1.0 + 1e-14),
                "{} vs {want}",
                r.privacy.delta
            );
            assert_eq!(r.hyperparameters["sampler_delta"], r.privacy.delta);
            assert_eq!(r.privacy.releases, 1);
        } else {
            assert!(r.privacy.epsilon.is_infinite());
            assert!(r.notes.iter().any(|n| n == MCMC_NOTE), "{:?}", r.notes);
        }
    }
}

#[test]
fn report_records_the_net_and_the_utility_terms() {
    let data = student(2000, &[0.5, -0.3], 3.0, 14);
    let domain = L2Ball { d: 2, radius: 1.0 };
    let alg = L1RegressionExpMech {
        max_candidates: Some(1000),
        ..Default::default()
    };
    let prob = Problem::new(&data, LossKind::Absolute, &domain);
    let r = alg.fit_seeded(&prob, Budget::new(1.0, 1e-6).unwrap(), 1);
    let h = &r.hyperparameters;
    let zeta = h["zeta"].as_f64().unwrap();
    let iota = h["iota"].as_f64().unwrap();
    let n_cand = h["candidates"].as_u64().unwrap();
    let zm = zeta_min(&domain, 1000).unwrap();
    // 1/n = 5e-4 is finer than feasible with 1000 candidates: ζ = ζ_min.
    assert_eq!(zeta, zm.zeta);
    assert_eq!(n_cand, zm.count);
    assert_eq!(h["net"], "grid");
    assert_eq!(
        h["score_sensitivity"].as_f64().unwrap(),
        score_sensitivity(2.0, 2000, iota, SensitivityRule::Tight)
    );
    assert_eq!(
        h["utility_net_terms"].as_f64().unwrap(),
        3.0 * zeta + iota * zeta * zeta
    );
    let mech = 2.0 * h["score_sensitivity"].as_f64().unwrap() * (n_cand as f64 / 0.05).ln();
    assert!((h["utility_mechanism_term"].as_f64().unwrap() - mech).abs() < 1e-15);
    // sensitivity=paper: Δ_u doubles, the exponent halves (exp(−ε S/(4 log θ))).
    let paper = L1RegressionExpMech {
        max_candidates: Some(1000),
        sensitivity: SensitivityRule::Paper,
        ..Default::default()
    }
    .fit_seeded(&prob, Budget::new(1.0, 1e-6).unwrap(), 1);
    let hp_f = |r: &FitReport, k: &str| r.hyperparameters[k].as_f64().unwrap();
    assert!(
        (hp_f(&paper, "score_sensitivity") / hp_f(&r, "score_sensitivity") - 2.0).abs() < 1e-12
    );
    assert_eq!(hp_f(&paper, "exponent_temperature"), 4.0 * 2f64.ln());
    assert_eq!(hp_f(&r, "exponent_temperature"), 2.0 * 2f64.ln());
    // θ < 2: eq. (26) terms.
    let t = utility_net_terms(1.5, 2.0, 0.1, 0.01);
    let want = 0.06 + 2.0 * 0.2f64.powf(0.5) * 0.01f64.powf(1.5) * 2f64.powf(1.5) / 1.5;
    assert!((t - want).abs() < 1e-15);
    // With n large enough, ζ = 1/n.
    let data = student(5000, &[0.5], 3.0, 15);
    let domain1 = L2Ball { d: 1, radius: 1.0 };
    let prob = Problem::new(&data, LossKind::Absolute, &domain1);
    let r = L1RegressionExpMech {
        max_candidates: Some(20_000),
        ..Default::default()
    }
    .fit_seeded(&prob, Budget::new(1.0, 1e-6).unwrap(), 1);
    assert_eq!(r.hyperparameters["zeta"].as_f64().unwrap(), 1.0 / 5000.0);
}

#[test]
fn default_parameters_follow_the_documented_formulas() {
    let i = default_iota(10_000, 3, 0.5, 2.0, 2.0, 0.05, MomentKind::Norm);
    let want = (3.0 * 10_000f64.ln() * 20f64.ln() / 5000.0).sqrt() / 2.0;
    assert!((i - want).abs() < 1e-15);
    let i = default_iota(10_000, 3, 0.5, 1.5, 1.0, 0.05, MomentKind::Coord);
    let want = (10_000f64.ln() * 20f64.ln() / 5000.0).powf(1.0 / 1.5);
    assert!((i - want).abs() < 1e-15);
    assert_eq!(default_max_candidates(100_000, 2.0), 85_899);
    assert_eq!(default_max_candidates(100_000, 1.5), 5_368);
    assert_eq!(default_max_candidates(10, 2.0), 1 << 18);
    assert_eq!(default_max_candidates(10_000_000, 2.0), 1 << 12);
    let a = L1RegressionExpMech::from_params(&ParamMap::new()).unwrap();
    assert_eq!(a, L1RegressionExpMech::default());
    let b = L1RegressionExpMech::from_params(&params(&[
        ("theta", "1.5"),
        ("moment_kind", "coord"),
        ("sensitivity", "paper"),
        ("net", "random"),
        ("max_candidates", "100"),
    ]))
    .unwrap();
    assert_eq!(
        (b.theta, b.moment_kind, b.sensitivity),
        (1.5, MomentKind::Coord, SensitivityRule::Paper)
    );
    assert_eq!((b.net, b.max_candidates), (NetKind::Random, Some(100)));
    // Registry.
    assert!(build("l1-regression-expmech", &params(&[("moment", "1.7")])).is_ok());
    assert!(catalogue()
        .iter()
        .any(|i| i.name == "l1-regression-expmech"));
    assert_eq!(
        default_loss_and_domain("l1-regression-expmech"),
        ("absolute", "l2-ball")
    );
}

#[test]
fn mcmc_is_reproducible_and_lands_near_the_truth() {
    let data = student(3000, &[0.5, -0.3], 3.0, 16);
    let domain = L2Ball { d: 2, radius: 1.0 };
    let alg = L1RegressionExpMech {
        net: NetKind::Mcmc,
        mcmc_steps: 2000,
        ..Default::default()
    };
    let prob = Problem::new(&data, LossKind::Absolute, &domain);
    let a = alg.fit_seeded(&prob, Budget::new(1.0, 1e-6).unwrap(), 5);
    let b = alg.fit_seeded(&prob, Budget::new(1.0, 1e-6).unwrap(), 5);
    assert_eq!(a.weights, b.weights);
    assert!(l2_dist(&a.weights, &[0.5, -0.3]) < 0.2, "{:?}", a.weights);
    assert!(domain.contains(&a.weights, 0.0));
}

#[test]
fn bad_inputs_give_specific_errors() {
    let data = student(200, &[0.5, -0.3], 3.0, 17);
    let l2 = L2Ball { d: 2, radius: 1.0 };
    let one = Budget::new(1.0, 1e-6).unwrap();
    // θ out of range (W12), from either key.
    for (k, v) in [
        ("moment", "1"),
        ("moment", "0.5"),
        ("moment", "2.5"),
        ("theta", "1.0"),
        ("moment", "abc"),
    ] {
        match L1RegressionExpMech::from_params(&params(&[(k, v)])) {
            Err(FitError::BadParameter { param, .. }) => assert_eq!(param, k),
            other => panic!("{k}={v}: {other:?}"),
        }
    }
    assert!(
        L1RegressionExpMech::from_params(&params(&[("moment", "1.5"), ("theta", "1.6")])).is_err()
    );
    let prob = Problem::new(&data, LossKind::Absolute, &l2);
    let e = L1RegressionExpMech {
        theta: 1.0,
        ..Default::default()
    }
    .try_fit_seeded(&prob, one, 1)
    .unwrap_err();
    assert!(e.to_string().contains("(1, 2]"), "{e}");
    // Wrong loss.
    let problem = Problem::new(&data, LossKind::Squared, &l2);
    let e = L1RegressionExpMech::default()
        .validate(&problem, &one)
        .unwrap_err();
    assert!(e.to_string().contains("loss 'squared'"), "{e}");
    // Random candidates on a domain other than the balls.
    let prob = Problem::new(&data, LossKind::Absolute, &Simplex { d: 2 });
    let e = L1RegressionExpMech {
        net: NetKind::Random,
        ..Default::default()
    }
    .try_fit_seeded(&prob, one, 1)
    .unwrap_err();
    assert!(
        matches!(e, FitError::Unsupported { .. }) && e.to_string().contains("net=random"),
        "{e}"
    );
    // Non-convex domain.
    let ball = sparse_ball(2, 1, 1.0);
    let prob = Problem::new(&data, LossKind::Absolute, &ball);
    let e = L1RegressionExpMech::default()
        .try_fit_seeded(&prob, one, 1)
        .unwrap_err();
    assert!(e.to_string().contains("sparse"), "{e}");
    // A zeta finer than feasible names every option.
    let prob = Problem::new(&data, LossKind::Absolute, &l2);
    let e = L1RegressionExpMech {
        zeta: Some(1e-5),
        ..Default::default()
    }
    .try_fit_seeded(&prob, one, 1)
    .unwrap_err();
    match &e {
        FitError::BadParameter { param, reason, .. } => {
            assert_eq!(param, "zeta");
            for opt in ["coarser", "max_candidates", "net=random", "net=mcmc"] {
                assert!(reason.contains(opt), "{reason}");
            }
        }
        other => panic!("{other:?}"),
    }
    // A useless feasible grid (high d): an error, never a silent switch.
    let w12 = vec![0.1; 12];
    let big = student(50, &w12, 3.0, 18);
    let prob = Problem::new(&big, LossKind::Absolute, &L2Ball { d: 12, radius: 1.0 });
    let e = L1RegressionExpMech::default()
        .try_fit_seeded(&prob, one, 1)
        .unwrap_err();
    assert!(
        e.to_string().contains("zeta_min") && e.to_string().contains("net=random"),
        "{e}"
    );
    // ... while net=random works there.
    let r = L1RegressionExpMech {
        net: NetKind::Random,
        max_candidates: Some(2000),
        ..Default::default()
    }
    .fit_seeded(&prob, one, 1);
    assert_eq!(r.privacy.model, PrivacyModel::Approx);
    // mcmc at ε = ∞; parameters of another net; too few records; unknown parameter.
    let prob = Problem::new(&data, LossKind::Absolute, &l2);
    let e = L1RegressionExpMech {
        net: NetKind::Mcmc,
        ..Default::default()
    }
    .try_fit_seeded(&prob, Budget::non_private(), 1)
    .unwrap_err();
    assert!(e.to_string().contains("net=mcmc"), "{e}");
    for kv in [
        vec![("net", "random"), ("zeta", "0.1")],
        vec![("mcmc_steps", "10")],
        vec![("mcmc_step", "0.1")],
        vec![("net", "mcmc"), ("max_candidates", "10")],
        vec![("net", "lattice")],
        vec![("sensitivity", "loose")],
        vec![("bogus", "1")],
    ] {
        assert!(
            L1RegressionExpMech::from_params(&params(&kv)).is_err(),
            "{kv:?}"
        );
    }
    let tiny = Dataset::from_rows(vec![1.0, 2.0], vec![0.5], 2).unwrap();
    let prob = Problem::new(&tiny, LossKind::Absolute, &l2);
    let e = L1RegressionExpMech::default()
        .try_fit_seeded(&prob, one, 1)
        .unwrap_err();
    assert!(matches!(e, FitError::TooFewRecords { .. }), "{e}");
}

/// The floating-point Gumbel-max sampler's additive δ = (1 + e^ε)·N·2⁻⁵⁰
/// is computed with the real N, rounded up, charged, and a smaller δ budget is refused
/// with the δ needed (docs/privacy.md §8, "The additive δ of `l1-regression-expmech`").
#[test]
fn sampler_delta_is_charged_and_enforced() {
    // hand values: ε = 1, N = 2¹⁸: (1 + e)·2⁻³² = 8.65730…e-10
    let d = sampler::sampler_delta(1.0, 1 << 18);
    let want = (1.0 + 1f64.exp()) * 2f64.powi(-32);
    assert!(d >= want && d <= want * (1.0 + 1e-15), "{d} vs {want}");
    assert!((d - 8.6573e-10).abs() < 1e-15, "{d}");
    // rounded up: never below the exact product (checked in 50-digit arithmetic:
    // (1 + e)·3 = 11.15484548537713…, times 2⁻⁵⁰)
    let d3 = sampler::sampler_delta(1.0, 3);
    assert!(d3 >= 11.154845485377136 * 2f64.powi(-50), "{d3}");
    assert_eq!(sampler::sampler_delta(f64::INFINITY, 1 << 18), 0.0);
    assert_eq!(sampler::sampler_delta(1000.0, 10), f64::INFINITY);

    let data = student(600, &[0.5], 3.0, 21);
    let domain = L2Ball { d: 1, radius: 1.0 };
    let alg = L1RegressionExpMech {
        max_candidates: Some(500),
        ..Default::default()
    };
    let prob = Problem::new(&data, LossKind::Absolute, &domain);
    let ok = alg.fit_seeded(&prob, Budget::new(1.0, 1e-9).unwrap(), 3);
    let n_cand = ok.hyperparameters["candidates"].as_u64().unwrap();
    assert!(n_cand > 100 && n_cand <= 500, "{n_cand}");
    let needed = sampler::sampler_delta(1.0, n_cand);
    assert_eq!(ok.privacy.model, PrivacyModel::Approx);
    assert_eq!((ok.privacy.epsilon, ok.privacy.delta), (1.0, needed));
    match ok.privacy.ledger[0].cost {
        crate::privacy::Cost::Approx { epsilon, delta } => {
            assert_eq!((epsilon, delta), (1.0, needed))
        }
        c => panic!("{c:?}"),
    }
    assert!(ok.notes.iter().any(|n| n.contains("additive delta")));
    // δ = 0: a specific error naming the δ needed
    let e = alg
        .try_fit_seeded(&prob, Budget::new(1.0, 0.0).unwrap(), 3)
        .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("--delta 0") && msg.contains(&format!("{needed:e}")),
        "{msg}"
    );
    assert!(alg
        .validate(
            &Problem::new(&data, LossKind::Absolute, &domain),
            &Budget::new(1.0, 0.0).unwrap()
        )
        .is_err());
    // δ just below the need: refused; exactly the need: accepted
    let below = needed * (1.0 - 1e-12);
    let e = alg
        .try_fit_seeded(&prob, Budget::new(1.0, below).unwrap(), 3)
        .unwrap_err();
    assert!(e.to_string().contains("is too small"), "{e}");
    let exact = alg.fit_seeded(&prob, Budget::new(1.0, needed).unwrap(), 3);
    assert_eq!(exact.weights, ok.weights);
    // ε = ∞: the argmin draws nothing and needs no δ; mcmc is uncertified (none)
    let np = alg.fit_seeded(&prob, Budget::non_private(), 3);
    assert_eq!(np.privacy.model, PrivacyModel::None);
}
