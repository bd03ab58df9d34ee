//! `l1-regression-expmech` (Wang & Xu Alg. 1/2): the score kernel and whole fits.
//!
//! * `kernel/theta{2,1.5}_d{1,2}`: S(w_j) = Σ_i ψ_θ(ι|y_i − ⟨x_i, w_j⟩|) for one block of
//!   1024 candidates over n = 10⁵ records (single thread); throughput = ψ evaluations
//!   (candidates × records).
//! * `fit/...`: a whole default fit (grid net, ε = 1, both threads) at n = 10⁵ — the
//!   "d ≤ 2, n ≤ 10⁵ in seconds" requirement, with the default compute-budget cap on the
//!   number of candidates.
//!
//! Data: Student-t (ν = 3) features and noise, w* = (0.5, −0.3), generated outside the
//! timed code with a constant seed.
//!
//! Run: `cargo bench -p heavydp --bench l1_expmech`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use heavydp::algorithms::l1_expmech::{L1RegressionExpMech, TruncatedScore, CANDIDATE_BLOCK};
use heavydp::algorithms::{NoObserver, PrivateAlgorithm, Problem};
use heavydp::constraints::L2Ball;
use heavydp::data::Dataset;
use heavydp::loss::LossKind;
use heavydp::noise::rng_from_seed;
use heavydp::privacy::Budget;
use rand_distr::{Distribution, StudentT};

fn student_data(n: usize, d: usize, seed: u64) -> Dataset {
    let mut rng = rng_from_seed(seed);
    let t = StudentT::new(3.0).unwrap();
    let w_star = [0.5, -0.3, 0.2, 0.1];
    let x: Vec<f64> = (0..n * d).map(|_| t.sample(&mut rng)).collect();
    let y: Vec<f64> = x
        .chunks(d)
        .map(|r| r.iter().zip(&w_star).map(|(a, b)| a * b).sum::<f64>() + t.sample(&mut rng))
        .collect();
    Dataset::from_rows(x, y, d).unwrap()
}

fn bench(c: &mut Criterion) {
    let n = 100_000usize;
    let mut g = c.benchmark_group("l1_expmech");
    g.sample_size(10);
    for d in [1usize, 2] {
        let data = student_data(n, d, 1);
        let cands: Vec<f64> = (0..CANDIDATE_BLOCK * d)
            .map(|i| ((i * 7919) % 2001) as f64 / 1000.0 - 1.0)
            .map(|v| v / (d as f64).sqrt())
            .collect();
        let mut out = vec![0.0; CANDIDATE_BLOCK];
        for theta in [2.0, 1.5] {
            let score = TruncatedScore::new(theta, 0.05);
            g.throughput(Throughput::Elements((CANDIDATE_BLOCK * n) as u64));
            g.bench_function(format!("kernel/theta{theta}_d{d}_n1e5_block1024"), |b| {
                b.iter(|| score.sums(&data, &cands, &mut out))
            });
        }
    }
    for (d, theta) in [(1usize, 2.0), (2, 2.0), (1, 1.5), (2, 1.5)] {
        let data = student_data(n, d, 2);
        let domain = L2Ball { d, radius: 1.0 };
        let problem = Problem {
            data: &data,
            loss: LossKind::Absolute,
            domain: &domain,
        };
        let alg = L1RegressionExpMech {
            theta,
            ..Default::default()
        };
        let plan = alg.plan(&problem, &Budget::pure(1.0).unwrap()).unwrap();
        let evals = plan.candidates.unwrap() * n as u64;
        g.throughput(Throughput::Elements(evals));
        g.bench_function(
            format!("fit/theta{theta}_d{d}_n1e5_N{}", plan.candidates.unwrap()),
            |b| {
                let mut rng = rng_from_seed(3);
                b.iter(|| {
                    alg.fit(
                        &problem,
                        Budget::pure(1.0).unwrap(),
                        &mut rng,
                        &mut NoObserver,
                    )
                    .unwrap()
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
