//! One `clipped-gd` gradient pass, Σ Clip(f'(⟨x̃ᵢ, w⟩ + u·b, yᵢ)·(x̃ᵢ, u), R), over n = 10⁵
//! rows read through the private standardisation's column map, as every step of a
//! default fit and every refit of `--intervals` runs it: d = 5 (the per-row overhead
//! dominates) and d = 100. Throughput is in rows per second.
//!
//! Run: `cargo bench -p heavydp-bench --bench clipped_gradient`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use heavydp::algorithms::row_sums::{Kernel, LocalRowSums};
use heavydp::algorithms::{RowSums, Selection};
use heavydp::data::{ColumnMap, Dataset};
use heavydp::loss::LossKind;

fn bench(c: &mut Criterion) {
    let n = 100_000usize;
    let mut group = c.benchmark_group("clipped_gradient");
    group.sample_size(20);
    group.throughput(Throughput::Elements(n as u64));
    for d in [5usize, 100] {
        let (x, y) = heavydp::test_support::signed_lognormal_regression(n, d, 1);
        let mut data = Dataset::from_rows(x, y, d).unwrap();
        data.map_lazily(ColumnMap {
            centre: vec![0.1; d],
            scale: vec![1.5; d],
            bound: 10.0,
        });
        let w: Vec<f64> = (0..=d).map(|j| 0.5 / (j + 1) as f64).collect();
        let kernel = Kernel::ClippedGradient {
            loss: LossKind::Squared,
            radius: 2.0 * 2.0 * (d as f64).sqrt(),
            intercept: Some(1.0),
        };
        let mut sums = LocalRowSums::new(&data);
        let mut out = vec![0.0; d + 1];
        group.bench_with_input(
            BenchmarkId::new("squared", format!("n{n}_d{d}")),
            &d,
            |b, _| b.iter(|| sums.sum(&kernel, Selection::All, &w, &mut out).unwrap()),
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
