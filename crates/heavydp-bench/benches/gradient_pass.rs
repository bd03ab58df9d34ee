//! One full gradient pass (mean gradient and mean loss) over n = 10^5 rows, d = 10^3
//! features, for the squared and logistic losses. Throughput is reported in bytes of
//! the design matrix read per second (8 n d bytes per pass).
//!
//! Run: `cargo bench -p heavydp --bench gradient_pass`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use heavydp::loss::LossKind;
use heavydp::loss::{mean_gradient, GradientWorkspace};
use heavydp::noise::{gaussian, rng_from_seed};

fn bench(c: &mut Criterion) {
    let (n, d) = (100_000usize, 1_000usize);
    let mut rng = rng_from_seed(1);
    let x: Vec<f64> = (0..n * d).map(|_| gaussian(1.0, &mut rng)).collect();
    let y: Vec<f64> = (0..n)
        .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
        .collect();
    let w: Vec<f64> = (0..d).map(|j| 1.0 / (j + 1) as f64).collect();
    let mut g = vec![0.0; d];
    let mut ws = GradientWorkspace::new();
    let mut group = c.benchmark_group("gradient_pass");
    group.sample_size(20);
    group.throughput(Throughput::Bytes((n * d * 8) as u64));
    for loss in [LossKind::Squared, LossKind::Logistic] {
        group.bench_with_input(
            BenchmarkId::new(loss.name(), format!("n{n}_d{d}")),
            &loss,
            |b, loss| b.iter(|| mean_gradient(loss, &x, &y, d, &w, &mut g, &mut ws)),
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
