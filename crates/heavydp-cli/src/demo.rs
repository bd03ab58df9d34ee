//! `heavydp demo`: the README's main job.
//!
//! Part 1 simulates a regression whose response has infinite variance (Tian et al.'s
//! `tian-sparse-student` scenario with Student-t noise, ν = 1.75) in raw, off-centre
//! units, and fits it at ε = 1 through the whole private pipeline (private centres and
//! scales, data-free bounds, private intercept): the non-private floor, `auto`, the
//! heavy-tailed methods and the bounded-data baselines with their data-free bound
//! (`bound=auto`). Part 2 fits a real heavy-tailed dataset (CPS 1988 wages, shipped in
//! `data/real/`) from its raw columns, held out as the real-data benchmark holds out its
//! splits (a seeded random 20 %: the file is sorted by region, so its last rows are all
//! of one region the rest barely has). Every fit is scored on held-out rows.

use heavydp::algorithms::NoObserver;
use heavydp::data::{self, scenarios, Dataset};
use heavydp::experiments::benchmark::{split_indices, Task};
use heavydp::model::ModelFile;
use heavydp::noise::{derive_seed, rng_from_seed};
use heavydp::pipeline::{self, FitOptions};
use std::collections::BTreeMap;
use std::time::Instant;

/// The real dataset of part 2 (relative to the workspace root or the binary's folder).
const REAL: &str = "data/real/cps1988_wage.csv";

struct Row {
    method: String,
    privacy: String,
    epsilon: Option<f64>,
    delta: f64,
    error: f64,
    extra: f64,
    seconds: f64,
}

fn split(ds: &Dataset, train_share: f64) -> (Dataset, Dataset) {
    let cut = (ds.n() as f64 * train_share) as usize;
    (
        ds.select_rows(&(0..cut).collect::<Vec<_>>()),
        ds.select_rows(&(cut..ds.n()).collect::<Vec<_>>()),
    )
}

fn mse(m: &ModelFile, test: &Dataset) -> f64 {
    heavydp::model::mse(&m.predict(test), test.y())
}

fn fit(
    train: &Dataset,
    algorithm: &str,
    epsilon: f64,
    params: &[(&str, &str)],
    seed: u64,
) -> Result<(ModelFile, f64), String> {
    let mut opts = FitOptions::new(algorithm, epsilon);
    opts.params = heavydp::params::param_map(params);
    if algorithm == "dp-iht-huber" {
        opts.sparsity = Some(5);
    }
    let mut rng = rng_from_seed(derive_seed(seed, &["demo", algorithm]));
    let t0 = Instant::now();
    let out = pipeline::fit(train.clone(), &opts, &mut rng, &mut NoObserver)
        .map_err(|e| format!("{algorithm}: {e}"))?;
    Ok((out.model, t0.elapsed().as_secs_f64()))
}

fn privacy_of(m: &ModelFile) -> (String, Option<f64>, f64) {
    let p = &m.privacy;
    (
        p["model"].as_str().unwrap_or("-").to_string(),
        p["epsilon"].as_f64(),
        p["delta"].as_f64().unwrap_or(0.0),
    )
}

fn print_rows(rows: &[Row], error: &str, extra: &str) {
    println!(
        "{:<34} {:>8} {:>10} {:>10} {:>16} {:>12} {:>7}",
        "method", "privacy", "eps spent", "delta", error, extra, "time s"
    );
    for r in rows {
        println!(
            "{:<34} {:>8} {:>10} {:>10} {:>16.5} {:>12.4} {:>7.2}",
            r.method,
            r.privacy,
            r.epsilon.map_or("-".to_string(), |e| format!("{e:.4}")),
            if r.delta > 0.0 {
                format!("{:.2e}", r.delta)
            } else {
                "0".to_string()
            },
            r.error,
            r.extra,
            r.seconds
        );
    }
}

pub fn run(seed: u64) -> Result<(), String> {
    simulated(seed)?;
    println!();
    real(seed)
}

/// Part 1: infinite-variance noise, raw off-centre units, known truth.
fn simulated(seed: u64) -> Result<(), String> {
    let (n, d, s) = (25_000usize, 20usize, 5usize);
    let epsilon = 1.0;
    let mut rng = rng_from_seed(derive_seed(seed, &["demo", "data"]));
    let mut params = BTreeMap::new();
    params.insert("zeta".to_string(), 0.5);
    let (sim, truth) = scenarios::simulate("tian-sparse-student", n, d, Some(s), &params, &mut rng)
        .map_err(|e| e.to_string())?;
    // Public units: features in thousands around 50 000, the response around 300.
    let (cx, sx, cy) = (50_000.0, 1_000.0, 300.0);
    let x: Vec<f64> = sim.x().iter().map(|v| cx + sx * v).collect();
    let y: Vec<f64> = sim.y().iter().map(|v| cy + v).collect();
    let w_raw: Vec<f64> = truth.w_star.iter().map(|w| w / sx).collect();
    let b_raw = cy - cx * w_raw.iter().sum::<f64>();
    let ds = Dataset::new(
        x,
        y,
        d,
        sim.feature_names().to_vec(),
        sim.target_name().to_string(),
    )
    .map_err(|e| e.to_string())?;
    let (train, test) = split(&ds, 0.8);
    println!("heavydp demo, part 1: simulated regression with infinite-variance noise (Tian et al. §6.1, Student t, nu = 1.75),");
    println!("n = {} training rows, d = {d} raw columns (centred at 50 000, scale 1 000), s* = {s}, response centred at 300, seed {seed}.", train.n());
    println!("Every fit runs the whole private pipeline with its defaults: private centres/scales, data-free bounds");
    println!("(bound=auto for the bounded-data methods), private intercept; epsilon = {epsilon}, delta = n^-1.1 where needed.\n");
    // the signal error on the test rows: mean (<x, w> + b - <x, w*> - b*)^2
    let signal_error = |m: &ModelFile| -> f64 {
        let p = m.predict(&test);
        (0..test.n())
            .map(|i| {
                let f: f64 = test
                    .row(i)
                    .iter()
                    .zip(&w_raw)
                    .map(|(a, b)| a * b)
                    .sum::<f64>()
                    + b_raw;
                (p[i] - f) * (p[i] - f)
            })
            .sum::<f64>()
            / test.n() as f64
    };
    let l2 = |m: &ModelFile| -> f64 {
        m.weights
            .iter()
            .zip(&w_raw)
            .map(|(a, b)| ((a - b) * sx).powi(2))
            .sum::<f64>()
            .sqrt()
    };
    let mut rows = Vec::new();
    let runs: Vec<(&str, &str, f64)> = vec![
        (
            "clipped-gd (non-private floor)",
            "clipped-gd",
            f64::INFINITY,
        ),
        ("intercept only", pipeline::INTERCEPT_ONLY, epsilon),
        ("auto", "auto", epsilon),
        ("clipped-gd", "clipped-gd", epsilon),
        ("ht-frank-wolfe", "ht-frank-wolfe", epsilon),
        ("dp-iht-huber (s = 5)", "dp-iht-huber", epsilon),
        ("adassp (bound=auto)", "adassp", epsilon),
        ("dp-frank-wolfe (bound=auto)", "dp-frank-wolfe", epsilon),
        (
            "objective-perturbation (bound=auto)",
            "objective-perturbation",
            epsilon,
        ),
    ];
    for (label, alg, eps) in runs {
        let (m, secs) = fit(&train, alg, eps, &[], seed)?;
        let (privacy, e, dl) = privacy_of(&m);
        rows.push(Row {
            method: label.to_string(),
            privacy,
            epsilon: e,
            delta: dl,
            error: signal_error(&m),
            extra: l2(&m),
            seconds: secs,
        });
    }
    print_rows(&rows, "signal MSE", "||w - w*||");
    println!("\nsignal MSE = mean over the held-out rows of (prediction - true regression function)^2 (the noise itself has");
    println!("infinite variance, so a raw test MSE would be noise); ||w - w*|| in units of the features' scale.");
    Ok(())
}

/// Part 2: a real heavy-tailed dataset from its raw columns.
fn real(seed: u64) -> Result<(), String> {
    let path = [
        REAL.to_string(),
        format!("{}/../../{REAL}", env!("CARGO_MANIFEST_DIR")),
    ]
    .into_iter()
    .find(|p| std::path::Path::new(p).is_file());
    let Some(path) = path else {
        println!("part 2 skipped: {REAL} not found (run the demo from the repository root)");
        return Ok(());
    };
    let ds = data::read_csv(&path, "y").map_err(|e| e.to_string())?;
    // a seeded random 80/20 split, as `heavydp experiment real-benchmark` makes its splits
    let (tr, te) = split_indices(
        ds.y(),
        Task::Regression,
        derive_seed(seed, &["demo", "split"]),
    );
    let (train, test) = (ds.select_rows(&tr), ds.select_rows(&te));
    let epsilon = 1.0;
    println!("heavydp demo, part 2: real data from raw columns — CPS 1988 weekly wages (dollars; kurtosis 165), n = {} training", train.n());
    println!("rows, d = {} (education and experience in years, six dummies), a seeded random 20 % held out; epsilon = {epsilon}.\n", train.d());
    let mean_y = train.y().iter().sum::<f64>() / train.n() as f64;
    let constant = test.y().iter().map(|y| (y - mean_y).powi(2)).sum::<f64>() / test.n() as f64;
    let (floor_model, floor_secs) = fit(&train, "clipped-gd", f64::INFINITY, &[], seed)?;
    let floor = mse(&floor_model, &test);
    let mut rows = vec![
        Row {
            method: "constant (training mean)".into(),
            privacy: "none".into(),
            epsilon: None,
            delta: 0.0,
            error: constant,
            extra: 0.0,
            seconds: 0.0,
        },
        Row {
            method: "clipped-gd (non-private floor)".into(),
            privacy: "none".into(),
            epsilon: None,
            delta: 0.0,
            error: floor,
            extra: 1.0,
            seconds: floor_secs,
        },
    ];
    for alg in ["auto", "clipped-gd", "ht-frank-wolfe", "adassp"] {
        let (m, secs) = fit(&train, alg, epsilon, &[], seed)?;
        let (privacy, e, dl) = privacy_of(&m);
        let err = mse(&m, &test);
        rows.push(Row {
            method: alg.to_string(),
            privacy,
            epsilon: e,
            delta: dl,
            error: err,
            extra: (constant - err) / (constant - floor),
            seconds: secs,
        });
    }
    print_rows(&rows, "test MSE", "gain kept");
    println!("\ngain kept = (MSE of the constant - MSE of the method) / (MSE of the constant - MSE of the floor).");
    println!("The same fit from the command line: heavydp fit --algorithm auto --data {REAL} --epsilon 1 --out model.json");
    Ok(())
}
