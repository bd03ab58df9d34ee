//! One DP-IHT iteration of Tian et al. at n = d = 10⁴ (the benchmark), and the
//! pieces it is made of:
//!
//! * `kernel/chunk`: the clipped Huber-gradient sum over one data chunk of
//!   m = ⌊n/T⌋ = 1000 rows (T = ⌈ln n⌉ = 10), for a 5-sparse iterate;
//! * `peeling`: Peeling's s = 5 noisy selection rounds and noisy values over d = 10⁴;
//! * `iteration`: both, plus the step and the projection — what one iteration of
//!   `dp-iht-huber` costs;
//! * `fit`: a whole `dp-iht-huber` fit (T = 10 iterations, chunk shuffle included);
//! * `kernel/full`: the same sum over all n rows (one DP-SLR iteration's pass).
//!
//! Run: `cargo bench -p heavydp --bench iht_iteration`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use heavydp::algorithms::iht::{clipped_weighted_sum, DpIhtHuber};
use heavydp::algorithms::{NoObserver, PrivateAlgorithm, Problem};
use heavydp::constraints::SparseBall;
use heavydp::data::Dataset;
use heavydp::loss::LossKind;
use heavydp::mechanisms::{Mechanism, Peeling};
use heavydp::noise::{gaussian, rng_from_seed};
use heavydp::privacy::Budget;

fn bench(c: &mut Criterion) {
    let (n, d, s) = (10_000usize, 10_000usize, 5usize);
    let mut rng = rng_from_seed(1);
    let x: Vec<f64> = (0..n * d).map(|_| gaussian(1.0, &mut rng)).collect();
    let y: Vec<f64> = (0..n)
        .map(|i| x[i * d] - 2.0 * x[i * d + 7] + gaussian(1.0, &mut rng))
        .collect();
    let data = Dataset::from_rows(x, y, d).unwrap();
    let t = (n as f64).ln().ceil() as usize;
    let m = n / t;
    let k = (d as f64).ln();
    let chunk: Vec<usize> = (0..m).collect();
    let all: Vec<usize> = (0..n).collect();
    let support: Vec<(usize, f64)> =
        vec![(0, 0.5), (7, -1.0), (100, 0.1), (5000, 0.2), (9999, -0.3)];
    let huber = |c: f64, _: f64, y: f64| (y - c).clamp(-1.0, 1.0);
    let delta = (n as f64).powf(-1.1);
    let peeling = Peeling::new(s, 2.0 * 0.5 * k / m as f64, 0.5, delta).unwrap();
    let mut sum = vec![0.0; d];

    let mut g = c.benchmark_group("iht_iteration");
    g.sample_size(20);
    g.throughput(Throughput::Bytes((m * d * 8) as u64));
    g.bench_function("kernel/chunk_m1000_d1e4", |b| {
        b.iter(|| clipped_weighted_sum(&data, data.y(), &chunk, &support, k, huber, &mut sum))
    });
    g.throughput(Throughput::Elements((s * d) as u64));
    g.bench_function("peeling/s5_d1e4", |b| {
        b.iter(|| peeling.run_uncharged(&sum, &mut rng))
    });
    g.throughput(Throughput::Bytes((m * d * 8) as u64));
    g.bench_function("iteration/n1e4_d1e4", |b| {
        b.iter(|| {
            clipped_weighted_sum(&data, data.y(), &chunk, &support, k, huber, &mut sum);
            let mut w = vec![0.0; d];
            for &(j, v) in &support {
                w[j] = v;
            }
            for (wj, gj) in w.iter_mut().zip(&sum) {
                *wj += 0.5 / m as f64 * gj;
            }
            let mut out = peeling.run_uncharged(&w, &mut rng);
            let norm = out.iter().map(|v| v * v).sum::<f64>().sqrt();
            if norm > 10.0 {
                out.iter_mut().for_each(|v| *v *= 10.0 / norm);
            }
            out
        })
    });
    g.throughput(Throughput::Bytes((t * m * d * 8) as u64));
    let domain = SparseBall { d, s, radius: 10.0 };
    let problem = Problem {
        data: &data,
        loss: LossKind::Huber { tau: 1.0 },
        domain: &domain,
    };
    let budget = Budget::new(0.5, delta).unwrap();
    g.bench_function("fit/dp-iht-huber_n1e4_d1e4", |b| {
        b.iter(|| {
            DpIhtHuber::default()
                .fit(&problem, budget, &mut rng_from_seed(2), &mut NoObserver)
                .unwrap()
        })
    });
    g.throughput(Throughput::Bytes((n * d * 8) as u64));
    g.bench_function("kernel/full_n1e4_d1e4", |b| {
        b.iter(|| clipped_weighted_sum(&data, data.y(), &all, &support, k, huber, &mut sum))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
