//! The floating-point-safe mechanisms (snapping + exact discrete noise) against the
//! continuous floating-point samplers they replaced, at the sizes the algorithms use.
//!
//! Run: `cargo bench -p heavydp --bench noise_mechanisms`

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use heavydp::mechanisms::{
    ExponentialMechanism, GaussianMechanism, LaplaceMechanism, Mechanism, ReportNoisyMin,
};
use heavydp::noise::{add_gaussian, add_laplace, gaussian, gumbel, rng_from_seed, HeavyRng};

/// `{name}/exact_d1e4`, the floating-point-safe mechanism `m`, against `{name}/float_d1e4`,
/// the continuous sampler it replaced (`float` adds noise of the same scale in place).
fn exact_vs_float<M>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    m: &M,
    v: &[f64],
    rng: &mut HeavyRng,
    float: impl Fn(&mut [f64], &mut HeavyRng),
) where
    M: Mechanism<Input = [f64], Output = Vec<f64>>,
{
    g.bench_function(format!("{name}/exact_d1e4"), |b| {
        b.iter(|| m.run_uncharged(v, &mut *rng))
    });
    g.bench_function(format!("{name}/float_d1e4"), |b| {
        b.iter(|| {
            let mut out = v.to_vec();
            float(&mut out, &mut *rng);
            out
        })
    });
}

fn bench(c: &mut Criterion) {
    let d = 10_000usize;
    let mut rng = rng_from_seed(1);
    let v: Vec<f64> = (0..d).map(|_| gaussian(1.0, &mut rng)).collect();
    let mut g = c.benchmark_group("noise_mechanisms");
    g.sample_size(20);
    g.throughput(Throughput::Elements(d as u64));

    let lap = LaplaceMechanism::new(1e-3, 0.5).unwrap();
    exact_vs_float(&mut g, "laplace", &lap, &v, &mut rng, |out, rng| {
        add_laplace(out, lap.scale, rng)
    });
    let gau = GaussianMechanism::from_rho(1e-3, 1e-3).unwrap();
    exact_vs_float(&mut g, "gaussian", &gau, &v, &mut rng, |out, rng| {
        add_gaussian(out, gau.sigma, rng)
    });
    let rnm = ReportNoisyMin::new(1e-3, 0.1).unwrap();
    g.bench_function("report_noisy_min/exact_d1e4", |b| {
        b.iter(|| rnm.run_uncharged(&v, &mut rng))
    });
    // Exponential mechanism: a flat distribution (ε·range/Δ small) and a concentrated one.
    for (name, sens) in [("flat", 100.0), ("concentrated", 1e-3)] {
        let em = ExponentialMechanism::new(sens, 1.0).unwrap();
        g.bench_function(format!("exponential/exact_{name}_d1e4"), |b| {
            b.iter(|| em.run_uncharged(&v, &mut rng))
        });
        let c = 1.0 / (2.0 * sens);
        g.bench_function(format!("exponential/gumbel_{name}_d1e4"), |b| {
            b.iter(|| {
                let mut best = (0usize, f64::NEG_INFINITY);
                for (i, &u) in v.iter().enumerate() {
                    let key = c * u + gumbel(&mut rng);
                    if key > best.1 {
                        best = (i, key);
                    }
                }
                best.0
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
