//! The Catoni–Giulini robust gradient RG(w, chunk; s, β) (Hu et al., Alg. 1 step 4;
//! spec §A.4) over n rows of d = 1000 lognormal-magnitude features with random signs,
//! for the squared and logistic losses, plus the per-evaluation cost of Ψ on the exact
//! route ([`psi_gradient`]) and on the tabulated fast path ([`PsiBeta`]).
//!
//! Throughput is in elements: samples × coordinates (one Ψ evaluation each) per second.
//! Data are generated outside the timed code from a constant seed.
//!
//! Run: `cargo bench -p heavydp --bench robust_gradient -- --warm-up-time 1 --measurement-time 3`
//! (prefix `RAYON_NUM_THREADS=1` for the single-thread figure). On a machine shared with
//! other processes, criterion's mean is unreliable; the best-of-K figure of
//! `cargo run --release -p heavydp --example bench_peers -- robust` (same data) is what
//! `docs/performance.md` reports (ns per sample·coordinate for 1 and 2 threads).

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use heavydp::estimators::catoni::{psi_gradient, CatoniGiulini, PsiBeta, RobustWorkspace};
use heavydp::loss::LossKind;
use heavydp::noise::{gaussian, rng_from_seed};

const D: usize = 1_000;
const SCALE: f64 = 2.0;
const BETA: f64 = 1.0;

/// n × d features ±exp(0.8 Z) and a response y = ⟨x, w*⟩ + N(0, 1) (labels ±1 for the
/// logistic loss are its sign).
fn data(n: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let (x, y) = heavydp::test_support::signed_lognormal_regression(n, d, seed);
    let w: Vec<f64> = (0..d).map(|j| 0.5 / (j + 1) as f64).collect();
    (x, y, w)
}

fn robust_gradient(c: &mut Criterion) {
    let est = CatoniGiulini::new(SCALE, BETA).unwrap();
    let mut group = c.benchmark_group("robust_gradient");
    group.sample_size(10);
    for n in [10_000usize, 100_000] {
        let (x, y, w) = data(n, D, 1);
        let y_sign: Vec<f64> = y
            .iter()
            .map(|v| if *v >= 0.0 { 1.0 } else { -1.0 })
            .collect();
        let rows: Vec<usize> = (0..n).collect();
        let mut g = vec![0.0; D];
        let mut ws = RobustWorkspace::new();
        group.throughput(Throughput::Elements((n * D) as u64));
        for (loss, labels) in [(LossKind::Squared, &y), (LossKind::Logistic, &y_sign)] {
            group.bench_with_input(
                BenchmarkId::new(loss.name(), format!("n{n}_d{D}_s{SCALE}_beta{BETA}")),
                &loss,
                |b, loss| {
                    b.iter(|| {
                        est.gradient_with(loss, &x, labels, D, &rows, &w, &mut g, &mut ws);
                        black_box(&g);
                    })
                },
            );
        }
    }
    group.finish();
}

fn psi_evaluation(c: &mut Criterion) {
    let k = 1usize << 16;
    let mut rng = rng_from_seed(2);
    let args: Vec<f64> = (0..k)
        .map(|_| (0.8 * gaussian(1.0, &mut rng)).exp() * gaussian(1.0, &mut rng))
        .collect();
    let fast = PsiBeta::new(BETA);
    let mut group = c.benchmark_group("psi_evaluation");
    group.throughput(Throughput::Elements(k as u64));
    group.bench_function(format!("exact_k{k}_beta{BETA}"), |b| {
        b.iter(|| {
            args.iter()
                .map(|&a| psi_gradient(a, 1.0, BETA))
                .sum::<f64>()
        })
    });
    group.bench_function(format!("table_k{k}_beta{BETA}"), |b| {
        b.iter(|| args.iter().map(|&a| fast.eval(a)).sum::<f64>())
    });
    group.finish();
}

criterion_group!(benches, robust_gradient, psi_evaluation);
criterion_main!(benches);
