//! Mutation fuzzing of the three parsers that take user bytes: the CSV
//! reader ([`read_csv_bytes`]), the model-file reader ([`ModelFile::parse`]) and the
//! `--param KEY=VALUE` parser ([`parse_params`]) together with everything that consumes
//! its map (algorithm registry, loss / domain resolution, a small fit, the mean
//! estimators).
//!
//! No nightly toolchain is available, so `cargo fuzz` is out; this is an in-repo
//! mutation fuzzer: a seed corpus of valid inputs, stacked random mutations (bit flips,
//! "interesting" bytes and tokens, deletions, duplications, splices, and for model files
//! edits of the JSON tree), every input run under `catch_unwind`. An input that yields a
//! new outcome class (the result with its digits removed) joins the corpus, a crude
//! coverage signal. The property: **no panic — an error or a valid result**, and a valid
//! result satisfies the reader's invariants (finite values, consistent shapes).
//!
//! Each target runs for `HEAVYDP_FUZZ_SECS` seconds (default 2, the short form of the
//! default test run); `HEAVYDP_FUZZ_SEED` picks the generator (default fixed, so the
//! short form is reproducible). The long runs recorded in `docs/reliability.md`:
//!
//! ```text
//! HEAVYDP_FUZZ_SECS=1800 HEAVYDP_FUZZ_SEED=7 nice -n 19 \
//!     cargo test -p heavydp --test integration fuzz:: -- --nocapture --test-threads 3
//! ```
//!
//! A crashing input is written to `target/fuzz-crashes/` and the test fails.

use heavydp::algorithms::{self, NoObserver, ParamMap};
use heavydp::data::{read_csv_bytes, Dataset};
use heavydp::estimators::private_mean;
use heavydp::model::ModelFile;
use heavydp::pipeline::{self, parse_params, FitOptions, RadiusOpt};
use heavydp::preprocess::{InterceptMode, ScaleMode};
use heavydp::privacy::Budget;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// Bytes that change the meaning of CSV or JSON text.
const BYTES: &[u8] = b",;\t\"'\n\r\0 .-+eE0123456789{}[]:\\";

/// Tokens worth splicing into any text input.
const TOKENS: &[&str] = &[
    "NaN",
    "nan",
    "inf",
    "-inf",
    "Infinity",
    "-0",
    "0",
    "1e309",
    "-1e309",
    "1e-400",
    "4.9e-324",
    "1.7976931348623157e308",
    "18446744073709551616",
    "-1",
    "0x10",
    "+1",
    "1_000",
    "1,5",
    "\u{feff}",
    "\u{0661}",
    "\u{00a0}",
    "\"\"",
    "\"a,b\"",
    "\r\n",
    "\n\n",
    ",,",
    ";",
    "\t",
    "null",
    "true",
    "[]",
    "{}",
    "\"x\"",
    "é",
    "\u{fffd}",
];

fn secs() -> f64 {
    std::env::var("HEAVYDP_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.0)
}

fn seed() -> u64 {
    std::env::var("HEAVYDP_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(18)
}

/// One random byte-level mutation of `buf` (`corpus` supplies splice material).
fn mutate_bytes(buf: &mut Vec<u8>, corpus: &[Vec<u8>], rng: &mut ChaCha8Rng) {
    let len = buf.len();
    let at = |rng: &mut ChaCha8Rng| {
        if len == 0 {
            0
        } else {
            rng.random_range(0..=len)
        }
    };
    match rng.random_range(0..9) {
        0 if len > 0 => {
            let i = rng.random_range(0..len);
            buf[i] ^= 1 << rng.random_range(0..8);
        }
        1 if len > 0 => {
            let i = rng.random_range(0..len);
            buf[i] = BYTES[rng.random_range(0..BYTES.len())];
        }
        2 => {
            let i = at(rng);
            let b = if rng.random_bool(0.5) {
                BYTES[rng.random_range(0..BYTES.len())]
            } else {
                rng.random()
            };
            buf.insert(i, b);
        }
        3 if len > 0 => {
            let i = rng.random_range(0..len);
            let j = (i + rng.random_range(1..=16)).min(len);
            buf.drain(i..j);
        }
        4 if len > 0 => {
            let i = rng.random_range(0..len);
            let j = (i + rng.random_range(1..=32)).min(len);
            let piece = buf[i..j].to_vec();
            let k = at(rng);
            buf.splice(k..k, piece);
        }
        5 => {
            let t = TOKENS[rng.random_range(0..TOKENS.len())].as_bytes();
            let i = at(rng);
            buf.splice(i..i, t.iter().copied());
        }
        6 if len > 0 => {
            // replace a run of non-separator bytes (a cell, a number) by a token
            let i = rng.random_range(0..len);
            let mut j = i;
            while j < len && !b",\n\r:[]{} ".contains(&buf[j]) {
                j += 1;
            }
            let t = TOKENS[rng.random_range(0..TOKENS.len())].as_bytes();
            buf.splice(i..j, t.iter().copied());
        }
        7 if !corpus.is_empty() => {
            let other = &corpus[rng.random_range(0..corpus.len())];
            if !other.is_empty() {
                let a = rng.random_range(0..other.len());
                let b = (a + rng.random_range(1..=64)).min(other.len());
                let i = at(rng);
                buf.splice(i..i, other[a..b].iter().copied());
            }
        }
        _ if len > 0 => buf.truncate(rng.random_range(0..len)),
        _ => buf.extend_from_slice(b"1"),
    }
}

/// The outcome class of a result: its text without digits and without what lies between
/// the first and the last quote (names, values); a new class joins the corpus.
fn class(s: &str) -> String {
    let q = |c: char| matches!(c, '\'' | '"' | '`');
    let (head, tail) = match (s.find(q), s.rfind(q)) {
        (Some(a), Some(b)) => (&s[..a], &s[b + 1..]),
        _ => (s, ""),
    };
    head.chars()
        .chain(tail.chars())
        .filter(|c| !c.is_ascii_digit())
        .take(100)
        .collect()
}

struct Stats {
    executions: u64,
    /// Crashing inputs with the seed of the generator their run was given.
    crashes: Vec<(Vec<u8>, u64)>,
    classes: usize,
    slowest: Duration,
    slowest_input: Vec<u8>,
}

/// Runs `target` on mutations of `seeds` for the configured time. `target` returns the
/// outcome class, or panics on a crash; `mutate` defaults to [`mutate_bytes`].
fn fuzz(
    name: &str,
    seeds: Vec<Vec<u8>>,
    mut mutate: impl FnMut(&mut Vec<u8>, &[Vec<u8>], &mut ChaCha8Rng),
    mut target: impl FnMut(&[u8], &mut ChaCha8Rng) -> String,
) -> Stats {
    let mut rng = ChaCha8Rng::seed_from_u64(seed() ^ name.len() as u64);
    let mut corpus = seeds;
    let mut seen = std::collections::HashSet::new();
    let deadline = Instant::now() + Duration::from_secs_f64(secs());
    let mut stats = Stats {
        executions: 0,
        crashes: Vec::new(),
        classes: 0,
        slowest: Duration::ZERO,
        slowest_input: Vec::new(),
    };
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    while Instant::now() < deadline && stats.crashes.len() < 5 {
        let mut input = corpus[rng.random_range(0..corpus.len())].clone();
        for _ in 0..rng.random_range(1..=6) {
            mutate(&mut input, &corpus, &mut rng);
        }
        input.truncate(1 << 14);
        // each run gets its own generator, so that a crash can be replayed
        let run_seed: u64 = rng.random();
        let t0 = Instant::now();
        let out = catch_unwind(AssertUnwindSafe(|| {
            target(&input, &mut ChaCha8Rng::seed_from_u64(run_seed))
        }));
        if t0.elapsed() > stats.slowest {
            stats.slowest = t0.elapsed();
            stats.slowest_input = input.clone();
        }
        stats.executions += 1;
        match out {
            Ok(c) => {
                if seen.insert(c) && corpus.len() < 4096 {
                    corpus.push(input);
                }
            }
            Err(_) => stats.crashes.push((input, run_seed)),
        }
    }
    std::panic::set_hook(hook);
    stats.classes = seen.len();
    eprintln!(
        "fuzz {name}: {} executions in {:.0} s, {} outcome classes, corpus {}, slowest input {:.3} s, {} crashes",
        stats.executions,
        secs(),
        stats.classes,
        corpus.len(),
        stats.slowest.as_secs_f64(),
        stats.crashes.len()
    );
    eprintln!(
        "fuzz {name}: the slowest input: {:?}",
        String::from_utf8_lossy(&stats.slowest_input[..stats.slowest_input.len().min(300)])
    );
    if !stats.crashes.is_empty() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/fuzz-crashes");
        let _ = std::fs::create_dir_all(&dir);
        for (i, (c, seed)) in stats.crashes.iter().enumerate() {
            let _ = std::fs::write(dir.join(format!("{name}-{i}-seed{seed}.bin")), c);
        }
        // replay the first crash with its seed, for its message
        let (first, seed) = stats.crashes[0].clone();
        panic!(
            "fuzz {name}: {} crashing inputs (in target/fuzz-crashes); the first: {:?} (run seed {seed}); its panic: {:?}",
            stats.crashes.len(),
            String::from_utf8_lossy(&first),
            catch_unwind(AssertUnwindSafe(|| target(&first, &mut ChaCha8Rng::seed_from_u64(seed)))).err().map(|e| e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())))
        );
    }
    stats
}

// ------------------------------------------------------------------ the CSV reader

fn csv_seeds() -> Vec<Vec<u8>> {
    [
        "x1,x2,y\n1,2,3\n4,5,6\n",
        "a,y,b\n-1.5e3,2,0.25\n4,5,6\n7,8,9\n",
        "\u{feff}x,y\r\n1,2\r\n3,4\r\n",
        "\"x 1\",\"y\"\n\"1\",\"2\"\n 3 , 4 \n",
        "x1;x2;y\n1;2;3\n",
        "x1\tx2\ty\n1\t2\t3\n",
        "y,x\n1e-300,1e300\n-0,0\n",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect()
}

fn csv_target(input: &[u8]) -> String {
    match read_csv_bytes(input, "f.csv", "y") {
        Err(e) => {
            let m = e.to_string();
            assert!(
                m.starts_with("f.csv: ") || m.starts_with("invalid dataset"),
                "{m}"
            );
            class(&m)
        }
        Ok(d) => {
            assert!(d.n() >= 1 && d.d() >= 1);
            assert_eq!(d.x().len(), d.n() * d.d());
            assert_eq!(d.y().len(), d.n());
            assert_eq!(d.feature_names().len(), d.d());
            assert!(d.x().iter().chain(d.y()).all(|v| v.is_finite()));
            format!("ok d={}", d.d().min(4))
        }
    }
}

#[test]
fn fuzz_csv_reader() {
    fuzz("csv", csv_seeds(), mutate_bytes, |b, _| csv_target(b));
}

// ------------------------------------------------------------------ the model-file reader

/// Model files written by real fits: a dense and a sparse algorithm, with and without
/// preprocessing and intercept, a logistic one, and a `/1` file.
fn model_seeds() -> Vec<Vec<u8>> {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let n = 60;
    let x: Vec<f64> = (0..n * 3).map(|_| rng.random_range(-2.0..2.0)).collect();
    let y: Vec<f64> = x.chunks(3).map(|r| r[0] - r[1]).collect();
    let data = Dataset::from_rows(x.clone(), y.clone(), 3).unwrap();
    let labels =
        Dataset::from_rows(x, y.iter().map(|v| (*v > 0.0) as u8 as f64).collect(), 3).unwrap();
    let mut out = Vec::new();
    for (alg, loss, logistic, scaled) in [
        ("clipped-gd", None, false, true),
        ("clipped-gd", Some("logistic"), true, true),
        ("ht-sparse-linreg", None, false, false),
        ("dp-frank-wolfe", None, false, true),
    ] {
        let mut o = FitOptions::new(alg, 1.0);
        o.loss = loss.map(String::from);
        o.sparsity = Some(2);
        if !scaled {
            o.scale = ScaleMode::None;
            o.intercept = InterceptMode::None;
        }
        let d = if logistic {
            labels.clone()
        } else {
            data.clone()
        };
        let m = pipeline::fit(d, &o, &mut rng, &mut NoObserver)
            .unwrap_or_else(|e| panic!("{alg}: {e}"))
            .model;
        out.push(serde_json::to_vec_pretty(&m).unwrap());
    }
    let mut v1: serde_json::Value = serde_json::from_slice(&out[2]).unwrap();
    v1["format"] = "heavydp-model/1".into();
    v1["status"] = "converged".into();
    out.push(serde_json::to_vec(&v1).unwrap());
    out
}

/// Replaces a random node of the JSON tree by an odd value, or removes a key.
fn mutate_json(v: &mut serde_json::Value, rng: &mut ChaCha8Rng) {
    use serde_json::Value;
    let odd = |rng: &mut ChaCha8Rng| -> Value {
        match rng.random_range(0..10) {
            0 => Value::Null,
            1 => Value::from(-1),
            2 => Value::from(0),
            3 => Value::from(1e308),
            4 => Value::from(u64::MAX),
            5 => Value::from("x"),
            6 => Value::Array(vec![]),
            7 => Value::Array(vec![Value::from(1.5); rng.random_range(0..5)]),
            8 => serde_json::json!({"a": 1}),
            _ => Value::from(true),
        }
    };
    match v {
        Value::Object(m) if !m.is_empty() => {
            let keys: Vec<String> = m.keys().cloned().collect();
            let k = &keys[rng.random_range(0..keys.len())];
            match rng.random_range(0..4) {
                0 => {
                    m.remove(k);
                }
                1 => {
                    m.insert(k.clone(), odd(rng));
                }
                _ => mutate_json(m.get_mut(k).unwrap(), rng),
            }
        }
        Value::Array(a) if !a.is_empty() => match rng.random_range(0..4) {
            0 => {
                a.pop();
            }
            1 => {
                let x = a[0].clone();
                a.push(x);
            }
            _ => {
                let i = rng.random_range(0..a.len());
                mutate_json(&mut a[i], rng)
            }
        },
        _ => *v = odd(rng),
    }
}

fn model_target(input: &[u8], rng: &mut ChaCha8Rng) -> String {
    let text = String::from_utf8_lossy(input);
    match ModelFile::parse(&text, "m.json") {
        Err(e) => {
            let m = e.to_string();
            assert!(m.starts_with("m.json: "), "{m}");
            // serde's positions vary with every mutation: keep the kind only
            class(m.split(" at line").next().unwrap_or(&m))
        }
        Ok(m) => {
            assert_eq!(m.weights.len(), m.d);
            assert_eq!(m.features.len(), m.d);
            assert!(m.loss_kind().is_ok());
            if (1..=64).contains(&m.d) {
                let n = 3;
                let x: Vec<f64> = (0..n * m.d).map(|_| rng.random_range(-1e3..1e3)).collect();
                let data = Dataset::new(x, vec![1.0; n], m.d, m.features.clone(), m.target.clone())
                    .unwrap();
                assert_eq!(m.predict(&data).len(), n);
                let _ = m.evaluate(&data, Some(&vec![0.5; m.d]));
            }
            format!("ok {} {:?}", m.algorithm, m.status)
        }
    }
}

#[test]
fn fuzz_model_reader() {
    fuzz(
        "model",
        model_seeds(),
        |buf, corpus, rng| {
            if rng.random_bool(0.5) {
                if let Ok(mut v) = serde_json::from_slice::<serde_json::Value>(buf) {
                    mutate_json(&mut v, rng);
                    *buf = serde_json::to_vec(&v).unwrap();
                    return;
                }
            }
            mutate_bytes(buf, corpus, rng)
        },
        model_target,
    );
}

// ------------------------------------------------------------------ `--param KEY=VALUE`

/// Every parameter name the algorithms and mean estimators document, plus the
/// resolver's own (`tau`, `c`, `vertices`).
fn param_keys() -> Vec<String> {
    let mut k: Vec<String> = algorithms::catalogue()
        .iter()
        .chain(&private_mean::mean_estimator_info())
        .flat_map(|a| a.parameters.iter().map(|p| p.name.to_string()))
        .chain(["tau", "c", "vertices", "bound", "unknown"].map(String::from))
        .collect();
    k.sort();
    k.dedup();
    k
}

const VALUES: &[&str] = &[
    "0", "1", "2", "3", "-1", "0.5", "1e-9", "64", "1e9", "1e308", "NaN", "inf", "-inf", "auto",
    "exact", "paper", "shuffle", "random", "mcmc", "yes", "", " ", "=", "1,2", "none", "l1",
    "entropy", "private", "0x1",
];

/// Seeds of the parameter target: one line per `--param` word.
fn param_seeds() -> Vec<Vec<u8>> {
    let keys = param_keys();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    (0..64)
        .map(|_| {
            (0..rng.random_range(0..4))
                .map(|_| {
                    format!(
                        "{}={}",
                        keys[rng.random_range(0..keys.len())],
                        VALUES[rng.random_range(0..VALUES.len())]
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
                .into_bytes()
        })
        .collect()
}

/// Word-level mutations (a key or value from the lists) or a byte mutation.
fn mutate_params(buf: &mut Vec<u8>, corpus: &[Vec<u8>], rng: &mut ChaCha8Rng) {
    if rng.random_bool(0.6) {
        let keys = param_keys();
        let text = String::from_utf8_lossy(buf).into_owned();
        let mut words: Vec<String> = text.lines().map(String::from).collect();
        let w = format!(
            "{}={}",
            keys[rng.random_range(0..keys.len())],
            VALUES[rng.random_range(0..VALUES.len())]
        );
        if words.is_empty() || rng.random_bool(0.5) {
            words.push(w);
        } else {
            let i = rng.random_range(0..words.len());
            words[i] = w;
        }
        *buf = words.join("\n").into_bytes();
    } else {
        mutate_bytes(buf, corpus, rng)
    }
}

/// A fit is attempted only when every number in the map is at most this large, so that
/// an iteration count of 1e9 does not stall the fuzzer (such values are still parsed,
/// validated and resolved).
const CHEAP: f64 = 64.0;

fn param_target(input: &[u8], rng: &mut ChaCha8Rng) -> String {
    let words: Vec<String> = String::from_utf8_lossy(input)
        .lines()
        .map(String::from)
        .collect();
    let map: ParamMap = match parse_params(&words) {
        Err(e) => {
            assert!(e.to_string().starts_with("--param "), "{e}");
            return "parse error".into();
        }
        Ok(m) => m,
    };
    for (k, v) in &map {
        assert!(!k.is_empty() && !v.is_empty() && k.trim() == k && v.trim() == v);
    }
    // The short form of the default test run also leaves out tiny values (an iteration
    // count that grows as 1/M² or 1/τ) and the ℓ1 regression's large default nets.
    let short = secs() <= 10.0;
    let cheap = map.values().all(|v| {
        v.parse::<f64>().map_or(true, |x| {
            x.abs() <= CHEAP && !(short && x != 0.0 && x.abs() < 1e-3)
        })
    });
    let names: Vec<&str> = algorithms::catalogue().iter().map(|a| a.name).collect();
    let alg = match rng.random_range(0..names.len() + 2) {
        i if i < names.len() => names[i],
        i if i == names.len() => "auto",
        _ => "intercept-only",
    };
    let pick = |rng: &mut ChaCha8Rng, xs: &[&str]| -> Option<String> {
        rng.random_bool(0.7)
            .then(|| xs[rng.random_range(0..xs.len())].to_string())
    };
    let mut o = FitOptions::new(
        alg,
        [1.0, 0.3, 1e-6, 8.0, 0.0, -1.0, f64::NAN][rng.random_range(0..7)],
    );
    o.params = map.clone();
    o.loss = pick(
        rng,
        &[
            "squared", "huber", "logistic", "absolute", "biweight", "bogus",
        ],
    )
    .filter(|_| rng.random_bool(0.5));
    o.domain = pick(
        rng,
        &[
            "l1-ball",
            "l2-ball",
            "unconstrained",
            "simplex",
            "polytope",
            "box",
        ],
    )
    .filter(|_| rng.random_bool(0.5));
    o.radius = rng.random_bool(0.3).then(|| match rng.random_range(0..5) {
        4 => RadiusOpt::Auto,
        i => RadiusOpt::Value([0.5, 1.0, 0.0, -1.0][i]),
    });
    o.sparsity = rng
        .random_bool(0.5)
        .then(|| [0, 1, 2, 3, 50][rng.random_range(0..5)]);
    o.delta = rng
        .random_bool(0.5)
        .then(|| [0.0, 1e-5, 0.5, 1.0][rng.random_range(0..4)]);
    if rng.random_bool(0.5) {
        o.scale = ScaleMode::None;
    }
    if rng.random_bool(0.5) {
        o.intercept = InterceptMode::None;
    }
    let slow = short
        && alg == "l1-regression-expmech"
        && o.domain.as_deref().is_some_and(|d| d != "l2-ball");
    let cheap = cheap && !slow;
    let pre = pipeline::precheck(&o);
    let mut out = format!("{alg} precheck {}", pre.is_ok());
    if cheap && pre.is_ok() {
        let n = 40;
        let x: Vec<f64> = (0..n * 3).map(|_| rng.random_range(-3.0..3.0)).collect();
        let logistic = o.loss.as_deref() == Some("logistic");
        let y: Vec<f64> = x
            .chunks(3)
            .map(|r| {
                if logistic {
                    (r[0] > 0.0) as u8 as f64
                } else {
                    r[0] + r[2]
                }
            })
            .collect();
        let data = Dataset::from_rows(x, y, 3).unwrap();
        let t0 = Instant::now();
        let fitted = pipeline::fit(data, &o, rng, &mut NoObserver);
        if t0.elapsed().as_secs_f64() > 1.0 {
            eprintln!(
                "fuzz params: slow fit ({:.2} s): {o:?}",
                t0.elapsed().as_secs_f64()
            );
        }
        match fitted {
            Ok(f) => {
                assert_eq!(f.model.weights.len(), 3);
                assert!(
                    f.model.weights.iter().all(|w| w.is_finite()),
                    "{alg}: non-finite weights"
                );
                out += " fit ok";
            }
            Err(e) => {
                assert!(!e.to_string().is_empty());
                out += " fit error";
            }
        }
    }
    if cheap {
        let est = private_mean::mean_estimator_names();
        let est = est[rng.random_range(0..est.len())];
        let x: Vec<f64> = (0..30 * 3).map(|_| rng.random_range(-3.0..3.0)).collect();
        let budget = Budget::new(1.0, 1e-5).unwrap();
        let r = private_mean::private_mean(est, &x, 30, 3, budget, &map, rng);
        if let Ok(r) = &r {
            assert_eq!(r.mean.len(), 3);
        }
        out += &format!(" mean {est} {}", r.is_ok());
    }
    out
}

#[test]
fn fuzz_params() {
    fuzz("params", param_seeds(), mutate_params, param_target);
}

/// The crashes the long runs found, replayed (docs/reliability.md, "Fuzzing").
#[test]
fn crashes_found_by_fuzzing_stay_fixed() {
    // 1. A tiny moment bound M made the default clipping radius R = M·(…) underflow to 0
    //    at a small epsilon: the Gaussian mechanism's constructor panicked on sensitivity 0.
    for alg in ["clipped-gd", "iterative-updating-gd"] {
        let mut o = FitOptions::new(alg, 1e-6);
        o.params.insert("M".into(), "14.9e-324".into());
        o.scale = ScaleMode::None;
        o.intercept = InterceptMode::None;
        let x: Vec<f64> = (0..40 * 3).map(|i| (i as f64 * 0.37).sin()).collect();
        let y: Vec<f64> = (0..40).map(|i| (i as f64 * 0.11).cos()).collect();
        let data = Dataset::from_rows(x, y, 3).unwrap();
        let e = pipeline::fit(data, &o, &mut ChaCha8Rng::seed_from_u64(1), &mut NoObserver)
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not a positive normal number"), "{alg}: {e}");
    }
}
