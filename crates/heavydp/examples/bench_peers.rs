//! Compute-only timing for the side-by-side benchmark against the NumPy reference
//! implementations (driven by `scripts/bench_peers.py`, see
//! `docs/performance.md`).
//!
//! The data come as raw little-endian f64 files written by the driver (NumPy
//! `ndarray.tofile`), so heavydp and NumPy time the same bits, and the timed region holds
//! only the algorithm: no file reading, no preprocessing (the CLI's `--scale none
//! --intercept none` path runs the same `PrivateAlgorithm::fit`).
//!
//! ```text
//! bench_peers fit --x X.f64 --y Y.f64 --n N --d D --algorithm NAME --loss LOSS
//!     --domain DOMAIN --radius R [--sparsity S] --epsilon E [--delta DL]
//!     [--param KEY=VALUE]... [--reps K] [--seed SEED]
//! bench_peers peeling --v V.f64 --s S --lambda L --epsilon E --delta DL [--reps K]
//! bench_peers csv --x X.f64 --y Y.f64 --n N --d D --out FILE.csv
//! bench_peers robust [--n N] [--d D] [--loss squared|logistic] [--reps K]
//! ```
//!
//! `robust` times the Catoni–Giulini robust gradient on the data of
//! `crates/heavydp-bench/benches/robust_gradient.rs` (n × d features ±exp(0.8 Z), s = 2, β = 1) and reports
//! the best repetition in ns per sample·coordinate: the minimum is robust to other
//! processes on a shared machine, where criterion's mean is not.
//!
//! Prints one JSON object: the per-repetition seconds and their minimum. `csv` writes
//! the CSV the CLI reads (header x1..xd,y; shortest round-trip decimal, so the CLI parses
//! back exactly the same doubles).
//!
//! Run: `cargo run --release -p heavydp --example bench_peers -- fit ...`

use heavydp::algorithms::{build, NoObserver, Problem};
use heavydp::constraints::{ConstraintSet, L1Ball, SparseBall};
use heavydp::data::Dataset;
use heavydp::estimators::catoni::{CatoniGiulini, RobustWorkspace};
use heavydp::loss::LossKind;
use heavydp::mechanisms::peeling::{peeling_paper_scale, Peeling};
use heavydp::noise::rng_from_seed;
use heavydp::params::ParamMap;
use heavydp::privacy::Budget;
use std::collections::BTreeMap;
use std::io::Write;
use std::time::Instant;

/// `--key value` pairs (repeatable `--param`).
struct Args {
    one: BTreeMap<String, String>,
    params: ParamMap,
}

impl Args {
    fn parse(raw: &[String]) -> Args {
        let mut one = BTreeMap::new();
        let mut params = ParamMap::new();
        let mut it = raw.iter();
        while let Some(k) = it.next() {
            let key = k
                .strip_prefix("--")
                .unwrap_or_else(|| panic!("expected --option, got {k}"));
            let v = it
                .next()
                .unwrap_or_else(|| panic!("--{key} needs a value"))
                .clone();
            if key == "param" {
                let (pk, pv) = v.split_once('=').expect("--param KEY=VALUE");
                params.insert(pk.to_string(), pv.to_string());
            } else {
                one.insert(key.to_string(), v);
            }
        }
        Args { one, params }
    }

    fn get(&self, key: &str) -> &str {
        self.one
            .get(key)
            .unwrap_or_else(|| panic!("--{key} is required"))
    }

    fn num<T: std::str::FromStr>(&self, key: &str) -> T
    where
        T::Err: std::fmt::Debug,
    {
        self.get(key).parse().expect("a number")
    }

    fn num_or<T: std::str::FromStr>(&self, key: &str, default: T) -> T
    where
        T::Err: std::fmt::Debug,
    {
        self.one
            .get(key)
            .map(|v| v.parse().expect("a number"))
            .unwrap_or(default)
    }
}

/// A raw little-endian f64 file of exactly `len` values.
fn read_f64(path: &str, len: usize) -> Vec<f64> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(bytes.len(), 8 * len, "{path}: expected {len} doubles");
    bytes
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes")))
        .collect()
}

/// A checksum of the bits of `v`, to compare builds (bit-identical results).
fn bits_checksum(v: &[f64]) -> u64 {
    v.iter().fold(0u64, |h, x| h.rotate_left(5) ^ x.to_bits())
}

fn report(seconds: &[f64], extra: &str) {
    let min = seconds.iter().copied().fold(f64::INFINITY, f64::min);
    let list: Vec<String> = seconds.iter().map(|s| format!("{s:.6}")).collect();
    println!(
        "{{\"seconds\": [{}], \"min\": {min:.6}{extra}}}",
        list.join(", ")
    );
}

fn fit(a: &Args) {
    let (n, d): (usize, usize) = (a.num("n"), a.num("d"));
    let x = read_f64(a.get("x"), n * d);
    let y = read_f64(a.get("y"), n);
    let names = (1..=d).map(|j| format!("x{j}")).collect();
    let data = Dataset::new(x, y, d, names, "y".into()).expect("valid data");
    let tau = a.params.get("tau").map(|v| v.parse().expect("tau"));
    let loss = LossKind::parse(a.get("loss"), tau, None).expect("loss");
    let radius: f64 = a.num("radius");
    let domain: Box<dyn ConstraintSet> = match a.get("domain") {
        "l1-ball" => Box::new(L1Ball { d, radius }),
        "sparse" => Box::new(SparseBall {
            d,
            s: a.num("sparsity"),
            radius,
        }),
        other => panic!("domain {other} is not used by the benchmark"),
    };
    // As in the CLI, the Huber loss's tau is a parameter of the loss, not of the algorithm.
    let mut params = a.params.clone();
    if matches!(loss, LossKind::Huber { .. }) {
        params.remove("tau");
    }
    let alg = build(a.get("algorithm"), &params).expect("algorithm");
    let budget = Budget::new(a.num("epsilon"), a.num_or("delta", 0.0)).expect("budget");
    let problem = Problem {
        data: &data,
        loss,
        domain: domain.as_ref(),
    };
    let seed: u64 = a.num_or("seed", 1);
    let mut seconds = Vec::new();
    let (mut nnz, mut checksum) = (0, 0u64);
    for rep in 0..a.num_or("reps", 3usize) {
        let mut rng = rng_from_seed(seed + rep as u64);
        let start = Instant::now();
        let fitted = alg
            .fit(&problem, budget, &mut rng, &mut NoObserver)
            .expect("fit");
        seconds.push(start.elapsed().as_secs_f64());
        nnz = fitted.weights.iter().filter(|w| **w != 0.0).count();
        checksum = bits_checksum(&fitted.weights);
    }
    // The last repetition's weights (seed + reps − 1): equal checksums across builds
    // mean bit-identical fits.
    report(
        &seconds,
        &format!(", \"nonzero_weights\": {nnz}, \"checksum\": \"{checksum:016x}\""),
    );
}

fn peeling(a: &Args) {
    let d: usize = a.num("d");
    let v = read_f64(a.get("v"), d);
    let (s, lambda, eps, delta): (usize, f64, f64, f64) = (
        a.num("s"),
        a.num("lambda"),
        a.num("epsilon"),
        a.num("delta"),
    );
    // The printed scale 2λ√(3s ln(1/δ))/ε, as the reference computes it.
    let scale = peeling_paper_scale(s, lambda, eps, delta);
    let mech = Peeling::with_scale(s, lambda, scale, delta).expect("peeling");
    let mut rng = rng_from_seed(a.num_or("seed", 1));
    let calls: usize = a.num_or("calls", 1);
    let mut seconds = Vec::new();
    for _ in 0..a.num_or("reps", 5usize) {
        let start = Instant::now();
        for _ in 0..calls {
            std::hint::black_box(mech.select(&v, &mut rng));
        }
        seconds.push(start.elapsed().as_secs_f64() / calls as f64);
    }
    report(&seconds, "");
}

fn csv(a: &Args) {
    let (n, d): (usize, usize) = (a.num("n"), a.num("d"));
    let x = read_f64(a.get("x"), n * d);
    let y = read_f64(a.get("y"), n);
    let file = std::fs::File::create(a.get("out")).expect("create CSV");
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    let header: Vec<String> = (1..=d).map(|j| format!("x{j}")).collect();
    writeln!(w, "{},y", header.join(",")).expect("write");
    let mut line = String::new();
    for (row, yi) in x.chunks_exact(d).zip(&y) {
        line.clear();
        for v in row {
            // `{}` of an f64 is the shortest decimal that parses back to the same value.
            line.push_str(&format!("{v},"));
        }
        line.push_str(&format!("{yi}\n"));
        w.write_all(line.as_bytes()).expect("write");
    }
    w.flush().expect("flush");
    println!("{{\"rows\": {n}}}");
}

fn robust(a: &Args) {
    let (n, d): (usize, usize) = (a.num_or("n", 10_000), a.num_or("d", 1_000));
    // The data of crates/heavydp-bench/benches/robust_gradient.rs.
    let (x, mut y) = heavydp::test_support::signed_lognormal_regression(n, d, 1);
    let loss = match a.one.get("loss").map(String::as_str).unwrap_or("squared") {
        "squared" => LossKind::Squared,
        "logistic" => {
            y.iter_mut()
                .for_each(|v| *v = if *v >= 0.0 { 1.0 } else { -1.0 });
            LossKind::Logistic
        }
        other => panic!("loss {other}"),
    };
    let w: Vec<f64> = (0..d).map(|j| 0.5 / (j + 1) as f64).collect();
    let rows: Vec<usize> = (0..n).collect();
    let est = CatoniGiulini::new(2.0, 1.0).expect("valid");
    let (mut g, mut ws) = (vec![0.0; d], RobustWorkspace::new());
    let mut seconds = Vec::new();
    for _ in 0..a.num_or("reps", 20usize) {
        let start = Instant::now();
        est.gradient_with(&loss, &x, &y, d, &rows, &w, &mut g, &mut ws);
        seconds.push(start.elapsed().as_secs_f64());
    }
    // A checksum of the bits, to compare builds (bit-identical results).
    let sum = bits_checksum(&g);
    let best = seconds.iter().copied().fold(f64::INFINITY, f64::min);
    report(
        &seconds,
        &format!(
            ", \"ns_per_element\": {:.3}, \"checksum\": \"{sum:016x}\"",
            best * 1e9 / (n * d) as f64
        ),
    );
}

fn main() {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let (cmd, rest) = raw
        .split_first()
        .expect("a subcommand: fit, peeling or csv");
    let a = Args::parse(rest);
    match cmd.as_str() {
        "fit" => fit(&a),
        "peeling" => peeling(&a),
        "csv" => csv(&a),
        "robust" => robust(&a),
        other => panic!("unknown subcommand {other}"),
    }
}
