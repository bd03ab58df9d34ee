//! Tests of Algorithm 3 and the Estimate solvers (spec Zhao §10.3–10.4).

use super::*;
use crate::test_support::{bits, hand_group_means, hand_rank_gap, on_threads};

const PIN_D1: f64 = -0.3701693316627524;
const PIN_G1: [f64; 4] = [
    -0.21135942547900655,
    -0.15758666894737217,
    0.11148605019169354,
    0.9581568220515422,
];
const PIN_D2: f64 = -0.6020024120253963;
const PIN_G2: [f64; 2] = [-0.9332043355550004, 0.3593461675061391];
const PIN_GM: [f64; 8] = [
    1.0013678114136155,
    0.48178512620592073,
    -1.1103062726440953,
    0.4389464364672335,
    -1.2692597597945223,
    -0.7712347927981114,
    -0.7453064504662166,
    -0.7793270911545278,
];
use crate::noise::{gaussian, rng_from_seed, HeavyRng};
use rand_distr::{Distribution, StudentT};

/// k points in ℝ^d: Gaussian (heavy = false) or Student-t ν = 2 coordinates, shifted by
/// `offset` along a random direction, and a centre at the origin.
fn instance(seed: u64, k: usize, d: usize, heavy: bool, offset: f64) -> Vec<f64> {
    let mut rng = rng_from_seed(seed);
    let t = StudentT::new(2.0).unwrap();
    let mut dir: Vec<f64> = (0..d).map(|_| gaussian(1.0, &mut rng)).collect();
    let n = l2_norm(&dir);
    dir.iter_mut().for_each(|x| *x /= n);
    let mut q = Vec::with_capacity(k * d);
    for _ in 0..k {
        for dj in dir.iter() {
            let z = if heavy {
                t.sample(&mut rng)
            } else {
                gaussian(1.0, &mut rng)
            };
            q.push(z + offset * dj);
        }
    }
    q
}

fn count_feasible(q: &[f64], d: usize, c: &[f64], g: &[f64], dv: f64) -> usize {
    let k = q.len() / d;
    (0..k)
        .filter(|&j| {
            let v: Vec<f64> = (0..d).map(|i| q[j * d + i] - c[i]).collect();
            dot(&v, g) >= dv
        })
        .count()
}

#[test]
fn required_count_is_ceil_09k() {
    // (k, ⌈0.9 k⌉)
    for (k, want) in [
        (1, 1),
        (9, 9),
        (10, 9),
        (11, 10),
        (20, 18),
        (89, 81),
        (2397, 2158),
    ] {
        assert_eq!(required_count(k), want, "required_count({k})");
    }
}

#[test]
fn exact_1d_hand_examples() {
    // Q = 1..10, c = 0, r = 9: q(+1) = 9th largest = 2, q(−1) = −9
    let q: Vec<f64> = (1..=10).map(|x| x as f64).collect();
    let (dv, g) = estimate(&q, 1, &[0.0], EstimateSolver::Exact).unwrap();
    assert_eq!((dv, g), (2.0, vec![1.0]));
    // c = 5.5: both directions give −3.5; the tie goes to u = −1
    let (dv, g) = estimate(&q, 1, &[5.5], EstimateSolver::Exact).unwrap();
    assert_eq!((dv, g), (-3.5, vec![-1.0]));
    // c = 20: the points are all below c, g = −1, d = 20 − 9 = 11
    let (dv, g) = estimate(&q, 1, &[20.0], EstimateSolver::Exact).unwrap();
    assert_eq!((dv, g), (11.0, vec![-1.0]));
}

#[test]
fn exact_2d_hand_examples() {
    // Three points (1,0), (0,1), (1,1), r = 3: the min-norm point of the triangle is
    // (1/2, 1/2), d* = 1/√2, g = (1,1)/√2.
    let q = vec![1.0, 0.0, 0.0, 1.0, 1.0, 1.0];
    for solver in [EstimateSolver::Exact, EstimateSolver::Multistart] {
        let (dv, g) = estimate(&q, 2, &[0.0, 0.0], solver).unwrap();
        assert!((dv - 0.5f64.sqrt()).abs() < 1e-12, "{solver:?} {dv}");
        assert!((g[0] - 0.5f64.sqrt()).abs() < 1e-9 && (g[1] - 0.5f64.sqrt()).abs() < 1e-9);
    }
    // The four points ±e₁, ±e₂ around c = 0, r = 4: min_j ⟨v_j, u⟩ = −max(|u₁|, |u₂|),
    // maximised at the diagonals: d* = −1/√2 (negative: c is inside the cloud).
    let q = vec![1.0, 0.0, -1.0, 0.0, 0.0, 1.0, 0.0, -1.0];
    let (dv, g) = estimate(&q, 2, &[0.0, 0.0], EstimateSolver::Exact).unwrap();
    assert!((dv + 0.5f64.sqrt()).abs() < 1e-12, "{dv}");
    assert!((g[0].abs() - 0.5f64.sqrt()).abs() < 1e-9);
    // the subset enumeration (used for d ≥ 3) gives the same on this 2-d instance
    let p = Problem::new(&q, 2, &[0.0, 0.0]).unwrap();
    assert!((exact_subsets(&p).0 + 0.5f64.sqrt()).abs() < 1e-12);
}

#[test]
fn exact_solvers_agree_and_beat_random_directions() {
    // exact_2d vs exact_subsets on random 2-d instances, and no random direction does
    // better than the exact answer (d ∈ {2, 3, 4}).
    let mut rng = rng_from_seed(99);
    for seed in 0..60u64 {
        let k = [4usize, 7, 10, 12][(seed % 4) as usize];
        let offset = [0.0, 0.5, 1.5, 4.0][((seed / 4) % 4) as usize];
        let q = instance(seed, k, 2, seed % 2 == 0, offset);
        let p = Problem::new(&q, 2, &[0.0, 0.0]).unwrap();
        let a = exact_2d(&p).0;
        let b = exact_subsets(&p).0;
        let c = exact_2d_enumeration(&p).0;
        assert!(
            (a - b).abs() <= 1e-9 * (1.0 + p.scale),
            "seed {seed}: {a} vs {b}"
        );
        assert!(
            (a - c).abs() <= 1e-9 * (1.0 + p.scale),
            "seed {seed}: {a} vs {c}"
        );
        for d in [2usize, 3, 4] {
            let q = instance(seed + 1000, k, d, seed % 3 == 0, offset);
            let c = vec![0.0; d];
            let (dv, _) = estimate(&q, d, &c, EstimateSolver::Exact).unwrap();
            let p = Problem::new(&q, d, &c).unwrap();
            for _ in 0..2000 {
                let u: Vec<f64> = (0..d).map(|_| gaussian(1.0, &mut rng)).collect();
                let u = unit(&u).unwrap();
                assert!(p.q(&u) <= dv + 1e-9 * (1.0 + p.scale), "seed {seed} d {d}");
            }
        }
    }
}

#[test]
fn level_walk_matches_enumeration_for_larger_k() {
    for seed in 0..24u64 {
        let k = [25usize, 40, 89, 150][(seed % 4) as usize];
        let offset = [0.0, 0.2, 1.0, 5.0][((seed / 4) % 4) as usize];
        let q = instance(seed + 500, k, 2, seed % 3 == 0, offset);
        let p = Problem::new(&q, 2, &[0.0, 0.0]).unwrap();
        let (a, ga) = exact_2d(&p);
        let (c, _) = exact_2d_enumeration(&p);
        assert!(
            (a - c).abs() <= 1e-9 * (1.0 + p.scale),
            "seed {seed} k {k}: {a} vs {c}"
        );
        assert!(count_feasible(&q, 2, &[0.0, 0.0], &ga, a) >= required_count(k));
    }
}

#[test]
fn multistart_agrees_with_exact_in_one_and_two_dimensions() {
    // estimate=multistart uses the exact solvers in d ≤ 2 (bitwise the same answer); the
    // local search itself agrees with them to 1e-9 whenever d* > 0 and stays a feasible
    // lower bound otherwise.
    let (mut worst_pos, mut worst_nonpos): (f64, f64) = (0.0, 0.0);
    for seed in 0..200u64 {
        let k = [3usize, 5, 10, 17, 40, 89][(seed % 6) as usize];
        let offset = [0.0, 0.3, 1.0, 3.0, 10.0][((seed / 6) % 5) as usize];
        for d in [1usize, 2] {
            let q = instance(seed * 7 + d as u64, k, d, seed % 2 == 1, offset);
            let c = vec![0.0; d];
            let (de, ge) = estimate(&q, d, &c, EstimateSolver::Exact).unwrap();
            let (dm, gm) = estimate(&q, d, &c, EstimateSolver::Multistart).unwrap();
            assert_eq!((de.to_bits(), &ge), (dm.to_bits(), &gm));
            let p = Problem::new(&q, d, &c).unwrap();
            let (dl, gl) = multistart(&p);
            assert!(
                dl <= de + 1e-12 * (1.0 + de.abs()),
                "local search above exact"
            );
            assert!(count_feasible(&q, d, &c, &gl, dl) >= required_count(k));
            let gap = (de - dl) / p.scale;
            if de > 0.0 {
                assert!(
                    gap <= 1e-9,
                    "seed {seed} k {k} d {d} offset {offset}: exact {de} local {dl}"
                );
                worst_pos = worst_pos.max(gap);
            } else {
                worst_nonpos = worst_nonpos.max(gap);
            }
        }
    }
    eprintln!("local search in d <= 2: worst relative gap {worst_pos:e} (d* > 0), {worst_nonpos:e} (d* <= 0)");
}

/// The instances of the gap measurements: seed, k and d fix the data, the offset and
/// whether the tails are heavy.
fn study_instance(seed: u64, k: usize, d: usize) -> Vec<f64> {
    let offset = [0.0, 0.5, 1.0, 2.0, 4.0][(seed % 5) as usize];
    instance(
        seed * 131 + (k * 10 + d) as u64,
        k,
        d,
        seed % 2 == 1,
        offset,
    )
}

/// Relative gaps (d* − d̂)/scale counted apart for d* > 0 and d* ≤ 0.
#[derive(Default)]
struct GapTally {
    pos: usize,
    non: usize,
    /// d* > 0 instances with a gap above 1e-9
    misses: usize,
    worst_pos: f64,
    worst_non: f64,
}

impl GapTally {
    fn add(&mut self, exact: f64, gap: f64) {
        if exact > 0.0 {
            self.pos += 1;
            self.worst_pos = self.worst_pos.max(gap);
            if gap > 1e-9 {
                self.misses += 1;
            }
        } else {
            self.non += 1;
            self.worst_non = self.worst_non.max(gap);
        }
    }
}

#[test]
fn multistart_vs_exact_gap() {
    // The accuracy measurement quoted in the module documentation: relative gap
    // (d* − d̂)/max_j‖v_j‖ against subset enumeration, d ∈ {3, 4, 5}, k ∈ {5, 8, 10, 12}.
    let mut tally = GapTally::default();
    for seed in 0..50u64 {
        for &k in &[5usize, 8, 10, 12] {
            for d in 3..=5usize {
                let q = study_instance(seed, k, d);
                let c = vec![0.0; d];
                let (de, ge) = estimate(&q, d, &c, EstimateSolver::Exact).unwrap();
                let (dm, gm) = estimate(&q, d, &c, EstimateSolver::Multistart).unwrap();
                assert!(count_feasible(&q, d, &c, &ge, de) >= required_count(k));
                assert!(count_feasible(&q, d, &c, &gm, dm) >= required_count(k));
                assert!(dm <= de + 1e-9, "multistart {dm} above exact {de}");
                let p = Problem::new(&q, d, &c).unwrap();
                tally.add(de, (de - dm) / p.scale);
            }
        }
    }
    eprintln!(
        "multistart vs exact: {} instances with d* > 0 (worst relative gap {:e}, {} misses), {} with d* <= 0 (worst {:e})",
        tally.pos, tally.worst_pos, tally.misses, tally.non, tally.worst_non
    );
    assert_eq!(tally.pos + tally.non, 600);
    assert!(
        tally.worst_pos < 0.02 && tally.misses <= 3,
        "{} {}",
        tally.worst_pos,
        tally.misses
    );
    assert!(tally.worst_non < 0.3, "{}", tally.worst_non);
}

#[test]
fn local_improvement_is_monotone() {
    for seed in 0..40u64 {
        let (k, d) = (30, 3 + (seed % 4) as usize);
        let q = instance(seed, k, d, true, 1.0);
        let c = vec![0.0; d];
        let p = Problem::new(&q, d, &c).unwrap();
        for j in 0..k {
            let Some(u) = unit(p.row(j)) else { continue };
            let mut trace = Vec::new();
            let memo = Mutex::new(HashMap::new());
            let (qv, u_end) = improve(&p, u, true, Some(&mut trace), &memo);
            assert!(trace.windows(2).all(|w| w[1] > w[0]), "{trace:?}");
            assert_eq!(*trace.last().unwrap(), qv);
            assert_eq!(p.q(&u_end), qv);
        }
    }
}

#[test]
fn estimate_is_bitwise_invariant_under_permutations() {
    let mut rng = rng_from_seed(5);
    for seed in 0..20u64 {
        let (k, d) = (9 + seed as usize % 8, 1 + seed as usize % 4);
        let q = instance(seed, k, d, seed % 2 == 0, 0.7);
        let c: Vec<f64> = (0..d).map(|i| 0.1 * i as f64).collect();
        let solvers: &[EstimateSolver] = if d <= 2 || k <= 20 {
            &[EstimateSolver::Multistart, EstimateSolver::Exact]
        } else {
            &[EstimateSolver::Multistart]
        };
        for &s in solvers {
            let base = estimate(&q, d, &c, s).unwrap();
            for _ in 0..5 {
                let mut perm: Vec<usize> = (0..k).collect();
                for i in (1..k).rev() {
                    perm.swap(i, rng.random_range(0..=i));
                }
                let qp: Vec<f64> = perm
                    .iter()
                    .flat_map(|&j| q[j * d..(j + 1) * d].to_vec())
                    .collect();
                let other = estimate(&qp, d, &c, s).unwrap();
                assert_eq!(base.0.to_bits(), other.0.to_bits());
                assert_eq!(bits(&base.1), bits(&other.1));
            }
        }
    }
}

#[test]
fn estimate_is_bitwise_thread_invariant() {
    for seed in 0..6u64 {
        let (k, d) = (40, 3 + seed as usize % 3);
        let q = instance(seed, k, d, true, [0.0, 1.0, 3.0][seed as usize % 3]);
        let c = vec![0.0; d];
        let run = |threads: usize| {
            on_threads(threads, || {
                estimate(&q, d, &c, EstimateSolver::Multistart).unwrap()
            })
        };
        let a = run(1);
        let b = run(4);
        assert_eq!(a.0.to_bits(), b.0.to_bits());
        assert_eq!(bits(&a.1), bits(&b.1));
    }
}

#[test]
fn pinned_estimate_and_group_means() {
    // d = 4, k = 15 (multistart) and d = 2 (exact walk): short seeded outputs
    let q = instance(77, 15, 4, true, 1.5);
    let (dv, g) = estimate(&q, 4, &[0.1, 0.0, -0.1, 0.2], EstimateSolver::Multistart).unwrap();
    let q2 = instance(78, 30, 2, false, 0.5);
    let (dv2, g2) = estimate(&q2, 2, &[0.0, 0.0], EstimateSolver::Exact).unwrap();
    let x: Vec<f64> = (0..60).map(|i| (i as f64 * 0.37).sin() * 3.0).collect();
    let gm = noisy_group_means(
        30,
        2,
        1.5,
        4,
        0.5,
        |i, b| b.copy_from_slice(&x[2 * i..2 * i + 2]),
        &mut rng_from_seed(9),
    );
    let want: [(f64, &[f64]); 2] = [(PIN_D1, &PIN_G1), (PIN_D2, &PIN_G2)];
    for ((d_got, g_got), (d_want, g_want)) in [(dv, g), (dv2, g2)].iter().zip(want) {
        assert!((d_got - d_want).abs() < 1e-12, "{d_got}");
        assert!(
            g_got.iter().zip(g_want).all(|(a, b)| (a - b).abs() < 1e-12),
            "{g_got:?}"
        );
    }
    assert!(
        gm.iter().zip(&PIN_GM).all(|(a, b)| (a - b).abs() < 1e-12),
        "{gm:?}"
    );
}

#[test]
fn estimate_points_from_c_towards_the_points() {
    // a tight cloud around (3, 4): g ≈ (0.6, 0.8), d ≈ 5 (spec Z3)
    let mut q = Vec::new();
    let mut rng = rng_from_seed(8);
    for _ in 0..50 {
        q.push(3.0 + gaussian(0.01, &mut rng));
        q.push(4.0 + gaussian(0.01, &mut rng));
    }
    for s in [EstimateSolver::Multistart, EstimateSolver::Exact] {
        let (dv, g) = estimate(&q, 2, &[0.0, 0.0], s).unwrap();
        assert!((dv - 5.0).abs() < 0.05, "{dv}");
        assert!((g[0] - 0.6).abs() < 0.01 && (g[1] - 0.8).abs() < 0.01);
    }
}

#[test]
fn estimate_bad_inputs() {
    let q = vec![1.0; 21 * 3];
    let e = estimate(&q, 3, &[0.0; 3], EstimateSolver::Exact).unwrap_err();
    assert!(e.to_string().contains("estimate=exact"), "{e}");
    assert!(estimate(&q, 3, &[0.0; 3], EstimateSolver::Multistart).is_ok());
    assert!(estimate(&q, 0, &[], EstimateSolver::Multistart).is_err());
    assert!(estimate(&[], 2, &[0.0; 2], EstimateSolver::Multistart).is_err());
    assert!(estimate(&q[..5], 3, &[0.0; 3], EstimateSolver::Multistart).is_err());
    assert!(estimate(&q, 3, &[0.0; 2], EstimateSolver::Multistart).is_err());
    let mut bad = q.clone();
    bad[4] = f64::NAN;
    let e = estimate(&bad, 3, &[0.0; 3], EstimateSolver::Multistart).unwrap_err();
    assert!(!e.to_string().contains("NaN"));
    // all points at the centre: q ≡ 0
    let (dv, g) = estimate(&[0.0; 12], 3, &[0.0; 3], EstimateSolver::Multistart).unwrap();
    assert_eq!(dv, 0.0);
    assert_eq!(g, vec![1.0, 0.0, 0.0]);
}

#[test]
fn wolfe_min_norm_point_hand_examples() {
    // segment (1, 0)–(0, 1): (1/2, 1/2)
    let wolfe = |pts: &[Vec<f64>], d: usize| {
        let flat: Vec<f64> = pts.iter().flatten().copied().collect();
        let idx: Vec<usize> = (0..pts.len()).collect();
        super::wolfe(&flat, d, &idx)
    };
    let x = wolfe(&[vec![1.0, 0.0], vec![0.0, 1.0]], 2);
    assert!((x[0] - 0.5).abs() < 1e-12 && (x[1] - 0.5).abs() < 1e-12);
    // triangle containing the origin: 0
    let x = wolfe(&[vec![1.0, 0.0], vec![-0.5, 0.5], vec![-0.5, -0.5]], 2);
    assert!(l2_norm(&x) < 1e-10, "{x:?}");
    // a face: points (1, 1, 0.5), (1, -1, 0.5), (1, 0, -1), (2, 0, 0): min-norm = (1, 0, 0)
    let x = wolfe(
        &[
            vec![1.0, 1.0, 0.5],
            vec![1.0, -1.0, 0.5],
            vec![1.0, 0.0, -1.0],
            vec![2.0, 0.0, 0.0],
        ],
        3,
    );
    assert!(
        (x[0] - 1.0).abs() < 1e-9 && x[1].abs() < 1e-9 && x[2].abs() < 1e-9,
        "{x:?}"
    );
}

/// The Gram-matrix form of Wolfe's algorithm (inner products looked up, x formed at the
/// end) gives the minimum-norm point of the ℝ^d form up to rounding, on random top-r
/// sets of random clouds (both then feed the same monotone local search).
#[test]
fn wolfe_with_a_gram_matrix_equals_wolfe_in_rd() {
    let mut rng = rng_from_seed(41);
    for case in 0..40 {
        let (k, d) = (5 + case % 37, 2 + case % 9);
        let offset = (case % 4) as f64 * 0.4;
        let mut pts: Vec<f64> = (0..k * d)
            .map(|i| gaussian(1.0, &mut rng) + if i % d == 0 { offset } else { 0.0 })
            .collect();
        let scale = pts
            .chunks(d)
            .map(l2_norm)
            .fold(0.0f64, f64::max)
            .max(1e-300);
        pts.iter_mut().for_each(|v| *v /= scale);
        let mut gram = vec![0.0; k * k];
        for a in 0..k {
            for b in 0..k {
                gram[a * k + b] = pts[a * d..(a + 1) * d]
                    .iter()
                    .zip(&pts[b * d..(b + 1) * d])
                    .map(|(x, y)| x * y)
                    .sum();
            }
        }
        let idx: Vec<usize> = (0..k).filter(|j| (j * 7 + case) % 10 != 0).collect();
        let a = super::wolfe(&pts, d, &idx);
        let b = super::wolfe_with(&pts, d, &idx, Some(&gram));
        let gap = a
            .iter()
            .zip(&b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max);
        assert!(gap < 1e-9, "case {case}: k = {k}, d = {d}: {a:?} vs {b:?}");
    }
}

/// Hand-written Algorithm 3 in d = 1 with the exact Estimate: Fisher–Yates partition,
/// clipped group means (σ = 0), then the updates with q(±1) by sorting.
#[test]
fn algorithm_3_matches_hand_loop_in_one_dimension() {
    let n = 203;
    let mut data_rng = rng_from_seed(1);
    let t = StudentT::new(3.0).unwrap();
    let x: Vec<f64> = (0..n).map(|_| 2.0 + t.sample(&mut data_rng)).collect();
    let (radius, k, t_c, eta_c) = (5.0, 10, 12, 0.25);
    // library
    let mut rng = rng_from_seed(77);
    let q = noisy_group_means(n, 1, radius, k, 0.0, |i, b| b[0] = x[i], &mut rng);
    let cfg = IuConfig {
        radius,
        k,
        t_c,
        eta_c,
        solver: EstimateSolver::Exact,
    };
    let mu = refine(&q, 1, &[0.0], &cfg).unwrap();
    // hand
    let qh = hand_group_means(&x, k, radius, 77);
    for (a, b) in q.iter().zip(&qh) {
        assert!((a - b).abs() < 1e-12);
    }
    let r = 9; // ⌈0.9·10⌉
    let est = |c: f64| hand_rank_gap(&qh, r, c);
    let mut c = 0.0;
    let mut cs = vec![];
    let mut ds = vec![];
    for _ in 0..t_c {
        let (dl, gl) = est(c);
        cs.push(c);
        ds.push(dl);
        c += eta_c * dl * gl;
    }
    cs.push(c);
    ds.push(est(c).0);
    let mut best = 0;
    for l in 1..ds.len() {
        if ds[l] < ds[best] {
            best = l;
        }
    }
    assert!(
        (mu[0] - cs[best]).abs() < 1e-12,
        "{} vs {}",
        mu[0],
        cs[best]
    );
    // the answer lies within the group means' range
    let lo = qh.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = qh.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    assert!(lo <= mu[0] && mu[0] <= hi, "{} not in [{lo}, {hi}]", mu[0]);
}

#[test]
fn group_partition_is_disjoint_and_drops_leftovers() {
    // rows carry their own index in coordinate 0 and 1.0 in coordinate 1 (no clipping)
    let (n, k) = (23, 4); // m = 5, 3 leftovers
    let mut rng = rng_from_seed(3);
    let q = noisy_group_means(
        n,
        2,
        1e9,
        k,
        0.0,
        |i, b| {
            b[0] = i as f64;
            b[1] = 1.0;
        },
        &mut rng,
    );
    // each Q_j[1] = 1, and Σ_j 5·Q_j[0] = the sum of 20 distinct indices
    assert!(q.chunks(2).all(|c| c[1] == 1.0));
    let total: f64 = q.chunks(2).map(|c| 5.0 * c[0]).sum();
    assert!(total > 0.0 && total < (0..23).sum::<usize>() as f64);
    // two runs with different seeds give different partitions (data-independent randomness)
    let mut rng2 = rng_from_seed(4);
    let q2 = noisy_group_means(n, 2, 1e9, k, 0.0, |i, b| b[0] = i as f64, &mut rng2);
    assert_ne!(q[0], q2[0]);
}

#[test]
fn group_noise_has_the_calibrated_variance() {
    // Same seed with σ > 0 and σ = 0: identical partition, the difference is the noise.
    // Σ z² over N = k·d·reps standardised draws is χ²_N: mean N, sd √(2N); 6 sd bound.
    let (n, d, k, radius, sigma) = (2000, 4, 200, 1.5, 0.37);
    let x: Vec<f64> = (0..n * d)
        .map(|i| ((i * 37 % 101) as f64 - 50.0) / 10.0)
        .collect();
    let fill = |i: usize, b: &mut [f64]| b.copy_from_slice(&x[i * d..(i + 1) * d]);
    let mut ss = 0.0;
    let mut count = 0usize;
    for seed in 0..10 {
        let clean = noisy_group_means(n, d, radius, k, 0.0, fill, &mut rng_from_seed(seed));
        let noisy = noisy_group_means(n, d, radius, k, sigma, fill, &mut rng_from_seed(seed));
        for (a, b) in noisy.iter().zip(&clean) {
            let z = (a - b) / sigma;
            ss += z * z;
            count += 1;
        }
    }
    let nf = count as f64;
    assert!((ss - nf).abs() < 6.0 * (2.0 * nf).sqrt(), "{ss} vs {nf}");
    // and a noise scale off by 10% would be detected
    assert!((ss / 1.21 - nf).abs() > 6.0 * (2.0 * nf).sqrt());
}

#[test]
fn refine_without_noise_recovers_a_gaussian_mean() {
    let (n, d) = (4000, 3);
    let mu = [1.0, -2.0, 0.5];
    let mut rng: HeavyRng = rng_from_seed(21);
    let x: Vec<f64> = (0..n * d)
        .map(|i| mu[i % d] + gaussian(1.0, &mut rng))
        .collect();
    let k = default_groups(n);
    let q = noisy_group_means(
        n,
        d,
        100.0,
        k,
        0.0,
        |i, b| b.copy_from_slice(&x[i * d..(i + 1) * d]),
        &mut rng,
    );
    let cfg = IuConfig {
        radius: 100.0,
        k,
        t_c: 60,
        eta_c: 0.25,
        solver: EstimateSolver::Multistart,
    };
    let est = refine(&q, d, &[0.0; 3], &cfg).unwrap();
    let err = ((0..d).map(|i| (est[i] - mu[i]).powi(2)).sum::<f64>()).sqrt();
    // Lemma 8: ‖μ̂ − μ‖ ≤ 6r_0 with r_0 of the order of the 90% quantile of a projected
    // group mean, 1.28·√(k/n) = 0.165 here; the updates stop where d ≈ 0, i.e. at about that
    // distance (observed 0.16), so the estimator is not more accurate than √(k/n).
    let group_sd = (k as f64 / n as f64).sqrt();
    assert!(err < 2.0 * group_sd, "{err} vs {group_sd}");
}

#[test]
fn default_formulas_hand_calculations() {
    // (95): M = 1, d = 4, n = 10⁴, R = 10, k = 16, ρ = 0.01
    // 160·√(4·10⁻⁴) = 3.2; 160√2·10·4·2/(10⁴·0.1) = 18.1019...; 40√(2·100·256/(0.01·10⁸) + 16·10⁻⁴) = 40√(0.0512 + 0.0016) = 9.2952...
    let r0 = r0_eq95(1.0, 4, 10_000, 10.0, 16, 0.01);
    let want = 160.0 * 2f64.sqrt() * 10.0 * 4.0 * 2.0 / (1e4 * 0.1);
    assert!((r0 - want).abs() < 1e-12, "{r0} vs {want}");
    assert!((r0 - 18.101933598375617).abs() < 1e-12);
    // ρ = ∞: max(3.2, 40·√0.0016 = 1.6) = 3.2
    assert!((r0_eq95(1.0, 4, 10_000, 10.0, 16, f64::INFINITY) - 3.2).abs() < 1e-12);
    // k defaults: ⌈8 ln 1000⌉ = ⌈55.26⌉ = 56; small n capped at ⌊n/2⌋, at least 2
    for (n, want) in [(1000, 56), (64_000, 89), (40, 20), (3, 2), (1, 2)] {
        assert_eq!(default_groups(n), want, "default_groups({n})");
    }
    assert_eq!(paper_groups(0.05), 2397);
    // t_c: ratio (0 + 100)/(4·1) = 25: 2 ln 25/ln(256/233) = 6.4378/0.094137 = 68.39 → 69
    assert_eq!(default_t_c(0.0, 100.0, 1.0), 69);
    assert_eq!(default_t_c(0.0, 1.0, 1.0), 1);
    // R = M√d(nε/√d)^{1/p}: M = 2, d = 4, n = 100, ε = 0.5, p = 2 ⇒ 2·2·√25 = 20
    assert!((iu_default_radius(2.0, 2.0, 4, 100, 0.5) - 20.0).abs() < 1e-12);
}

/// The larger study quoted in the module documentation (800 instances per d).
#[test]
#[ignore]
fn gap_study() {
    for d in 3..=5usize {
        let mut tally = GapTally::default();
        for seed in 0..200u64 {
            for &k in &[5usize, 8, 10, 12] {
                let q = study_instance(seed, k, d);
                let c = vec![0.0; d];
                let p = Problem::new(&q, d, &c).unwrap();
                let de = exact_subsets(&p).0;
                let (dm, _) = estimate(&q, d, &c, EstimateSolver::Multistart).unwrap();
                assert!(dm <= de + 1e-9 * (1.0 + de.abs()));
                tally.add(de, (de - dm) / p.scale);
            }
        }
        eprintln!(
            "d {d}: positive {} worst rel gap {:e} misses {}; non-positive {} worst rel gap {:e}",
            tally.pos, tally.worst_pos, tally.misses, tally.non, tally.worst_non
        );
    }
}
