//! End-to-end tests of the `heavydp` binary: CSV → model file → predictions / metrics,
//! and the rejection of bad input (specific message, non-zero exit, no output file).

use crate::common::*;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// Bounded-ish data for the Talwar algorithms: hu-linear-lognormal, small.
fn simulate(dir: &TempDir, scenario: &str, n: usize, d: usize) -> (String, String) {
    let data = p(dir, "data.csv");
    let truth = p(dir, "truth.json");
    cli_with(
        "simulate --scenario {} --n {} --d {} --seed 3 --out {} --truth {}",
        &[scenario, &n.to_string(), &d.to_string(), &data, &truth],
    )
    .assert()
    .success();
    (data, truth)
}

/// `heavydp evaluate` of `model` on `data` against the truth file, which must succeed:
/// its JSON report.
fn evaluate(model: &str, data: &str, truth: &str) -> serde_json::Value {
    let ev = cli_with(
        "evaluate --model {} --data {} --truth {}",
        &[model, data, truth],
    )
    .assert()
    .success();
    stdout_json(&ev)
}

fn fit(data: &str, out: &str, algorithm: &str, extra: &[&str]) -> assert_cmd::assert::Assert {
    let mut c = heavydp();
    c.args(argv(
        "fit --algorithm {} --data {} --out {}",
        &[algorithm, data, out],
    ));
    c.args(extra);
    // Raw columns and no intercept (`--scale none --intercept none`) unless a test asks
    // for the preprocessing explicitly, so each test sees the algorithm alone;
    // tests/pipeline.rs and `defaults_from_the_command_line` below cover the defaults
    // (private scales, intercept).
    if !extra.contains(&"--scale") {
        c.args(words("--scale none"));
    }
    if !extra.contains(&"--intercept") {
        c.args(words("--intercept none"));
    }
    c.assert()
}

#[test]
fn every_algorithm_end_to_end_from_csv_to_model_file() {
    let dir = TempDir::new().unwrap();
    let (data, truth) = simulate(&dir, "hu-linear-lognormal", 2000, 5);
    let cases: &[(&str, &[&str])] = &[
        ("frank-wolfe", &words("--epsilon inf")),
        (
            "dp-frank-wolfe",
            &words("--epsilon 1 --delta 1e-5 --param bound=4"),
        ),
        (
            "dp-frank-wolfe-gaussian",
            &words("--epsilon 1 --delta 1e-5 --param bound=4"),
        ),
        (
            "noisy-mirror-descent",
            &words("--epsilon 1 --delta 1e-5 --param bound=4 --domain l1-ball"),
        ),
        (
            "objective-perturbation",
            &words("--epsilon 1 --delta 1e-5 --param bound=4 --domain l1-ball"),
        ),
        ("ht-frank-wolfe", &words("--epsilon 1")),
        ("ht-lasso", &words("--epsilon 1 --delta 1e-5")),
        (
            "ht-sparse-linreg",
            &words("--epsilon 1 --delta 1e-5 --sparsity 2"),
        ),
        (
            "ht-sparse-opt",
            &words("--epsilon 1 --delta 1e-5 --sparsity 2"),
        ),
    ];
    for (alg, args) in cases {
        let out = p(&dir, &format!("{alg}.json"));
        let mut a: Vec<&str> = args.to_vec();
        a.extend(["--seed", "11"]);
        fit(&data, &out, alg, &a).success();
        let m = read_json(&out);
        assert_eq!(m["format"], "heavydp-model/2");
        assert_eq!(m["algorithm"], *alg);
        assert_eq!(m["loss"], "squared");
        assert_eq!(m["features"].as_array().unwrap().len(), 5);
        assert_eq!(m["target"], "y");
        assert_eq!(m["n"], 2000);
        assert_eq!(m["d"], 5);
        // the noise seed is never written into a released file
        assert!(m.get("seed").is_none());
        assert_eq!(m["weights"].as_array().unwrap().len(), 5);
        assert!(m["hyperparameters"].is_object());
        let privacy = &m["privacy"];
        if *alg == "frank-wolfe" {
            assert_eq!(privacy["model"], "none");
        } else if *alg == "ht-frank-wolfe" {
            assert_eq!(privacy["model"], "pure");
            assert_eq!(privacy["epsilon"], 1.0);
            assert_eq!(privacy["delta"], 0.0);
        } else {
            assert_eq!(privacy["model"], "approx");
            assert!(privacy["epsilon"].as_f64().unwrap() <= 1.0);
            assert!(privacy["delta"].as_f64().unwrap() <= 1e-5);
        }
        // Same seed, same model file.
        let again = p(&dir, &format!("{alg}-again.json"));
        fit(&data, &again, alg, &a).success();
        assert_reproduced(&out, &again, alg);
        // predict and evaluate
        let preds = predict(&out, &data).assert().success();
        let text = stdout_of(&preds);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "prediction");
        assert_eq!(lines.len(), 2001);
        let v = evaluate(&out, &data, &truth);
        for k in ["mse", "mae", "risk", "excess_risk", "l2_error"] {
            assert!(v[k].is_number(), "{alg}: {k} missing in {v}");
        }
    }
}

#[test]
fn epsilon_infinity_matches_frank_wolfe_through_the_cli() {
    let dir = TempDir::new().unwrap();
    let (data, _) = simulate(&dir, "hu-linear-lognormal", 500, 4);
    let a = p(&dir, "fw.json");
    let b = p(&dir, "dpfw.json");
    fit(
        &data,
        &a,
        "frank-wolfe",
        &words("--epsilon inf --param bound=3 --param T=40"),
    )
    .success();
    fit(
        &data,
        &b,
        "dp-frank-wolfe",
        &words("--epsilon inf --param bound=3 --param T=40 --seed 5"),
    )
    .success();
    assert_eq!(read_json(&a)["weights"], read_json(&b)["weights"]);
}

#[test]
fn logistic_models_predict_probabilities() {
    let dir = TempDir::new().unwrap();
    let (data, truth) = simulate(&dir, "hu-logistic-lognormal", 1000, 4);
    let out = p(&dir, "m.json");
    fit(
        &data,
        &out,
        "dp-frank-wolfe",
        &words("--epsilon 2 --delta 1e-5 --loss logistic --param bound=4 --seed 1"),
    )
    .success();
    let preds = predict(&out, &data).assert().success();
    let text = stdout_of(&preds);
    for l in text.lines().skip(1) {
        let v: f64 = l.parse().unwrap();
        assert!((0.0..=1.0).contains(&v));
    }
    let v = evaluate(&out, &data, &truth);
    assert!(v["accuracy"].as_f64().unwrap() > 0.5);
}

#[test]
fn algorithms_json_lists_parameters() {
    let out = cli("algorithms --json").assert().success();
    let v = stdout_json(&out);
    let arr = v.as_array().unwrap();
    let names: Vec<&str> = arr.iter().map(|a| a["name"].as_str().unwrap()).collect();
    for n in [
        "frank-wolfe",
        "dp-frank-wolfe",
        "dp-frank-wolfe-gaussian",
        "noisy-mirror-descent",
        "objective-perturbation",
    ] {
        assert!(names.contains(&n), "{n} missing");
    }
    for a in arr {
        for k in [
            "name",
            "paper",
            "privacy",
            "losses",
            "domains",
            "parameters",
        ] {
            assert!(!a[k].is_null(), "{k} missing in {a}");
        }
        for prm in a["parameters"].as_array().unwrap() {
            for k in ["name", "default", "meaning", "source"] {
                assert!(prm[k].is_string(), "{k} missing in {prm}");
            }
        }
    }
}

// ------------------------------------------------------------------ bad input

/// Runs `fit --algorithm alg` with exactly `args`; asserts a one-line error with `msg`,
/// no output file and no temporary file left behind.
fn fit_fails_with(dir: &TempDir, data: &str, alg: &str, args: &[&str], msg: &str) {
    let out = p(dir, "model.json");
    let a = fit(data, &out, alg, args).failure();
    let err = stderr_of(&a);
    assert!(err.contains(msg), "{alg}: expected '{msg}' in: {err}");
    assert_eq!(
        err.trim().lines().count(),
        1,
        "error is not one line: {err}"
    );
    assert!(!Path::new(&out).exists(), "an output file was written");
    let leftovers: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

/// [`fit_fails_with`] for `dp-frank-wolfe` at ε = 1, δ = 10⁻⁵, bound 2 and `extra`
/// (other flags only: clap rejects duplicates).
fn fit_fails(dir: &TempDir, data: &str, extra: &[&str], msg: &str) {
    let mut args = words("--epsilon 1 --delta 1e-5 --param bound=2");
    args.extend_from_slice(extra);
    fit_fails_with(dir, data, "dp-frank-wolfe", &args, msg);
}

#[test]
fn bad_data_files_are_rejected_with_row_and_column() {
    let dir = TempDir::new().unwrap();
    let cases = [
        (
            "nan.csv",
            "x1,x2,y\n1,2,3\n1,NaN,3\n",
            "data row 2, column 'x2': NaN or infinite values are not allowed",
        ),
        (
            "inf.csv",
            "x1,x2,y\n1,2,inf\n",
            "data row 1, column 'y': NaN or infinite values are not allowed",
        ),
        (
            "ragged.csv",
            "x1,x2,y\n1,2,3\n4,5\n",
            "data row 2 has 2 fields, but the header has 3",
        ),
        (
            "text.csv",
            "x1,x2,y\n1,2,3\n4,abc,6\n",
            "data row 2, column 'x2': not a number",
        ),
        ("empty.csv", "", "the file is empty"),
        (
            "header.csv",
            "x1,x2,y\n",
            "the file has a header but no data rows",
        ),
        (
            "notarget.csv",
            "x1,x2,z\n1,2,3\n",
            "target column 'y' is not in the header",
        ),
    ];
    for (name, text, msg) in cases {
        let f = write(&dir, name, text);
        fit_fails(&dir, &f, &[], msg);
    }
    fit_fails(&dir, &p(&dir, "missing.csv"), &[], "cannot read the file");
    // The data file is never modified.
    let f = write(&dir, "keep.csv", "x1,y\n1,2\n");
    let _ = fit(
        &f,
        &p(&dir, "m.json"),
        "dp-frank-wolfe",
        &words("--epsilon 1 --delta 1e-5 --param bound=0.5"),
    );
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "x1,y\n1,2\n");
}

#[test]
fn bad_flags_are_rejected_before_any_output() {
    let dir = TempDir::new().unwrap();
    let data = write(&dir, "ok.csv", "x1,x2,y\n1,2,3\n0.5,0.1,0.2\n");
    let out = p(&dir, "model.json");
    let cases: Vec<(&str, Vec<&str>, &str)> = vec![
        (
            "dp-frank-wolfe",
            words("--epsilon 0 --param bound=1"),
            "--epsilon must be a number > 0",
        ),
        (
            "dp-frank-wolfe",
            words("--epsilon -1 --param bound=1"),
            "--epsilon must be a number > 0",
        ),
        (
            "dp-frank-wolfe",
            words("--epsilon abc --param bound=1"),
            "--epsilon must be a number",
        ),
        (
            "dp-frank-wolfe",
            words("--epsilon 1 --delta 1 --param bound=1"),
            "--delta must be in [0, 1)",
        ),
        (
            "dp-frank-wolfe",
            words("--epsilon 1 --delta -0.1 --param bound=1"),
            "--delta must be in [0, 1)",
        ),
        (
            // an explicit δ = 0 for an (ε, δ) algorithm is an error, not a silent default
            "dp-frank-wolfe",
            words("--epsilon 1 --delta 0 --param bound=1"),
            "--delta 0 is not allowed",
        ),
        (
            "dp-frank-wolfe",
            words("--epsilon 1 --param bound=auto --scale none"),
            "bound=auto needs scaled data",
        ),
        (
            "dp-frank-wolfe",
            words("--epsilon 1 --intercept maybe"),
            "--intercept must be 'private' or 'none'",
        ),
        (
            "dp-frank-wolfe",
            words("--epsilon 1 --scale public:"),
            "--scale must be 'private', 'none' or 'public:FILE.json'",
        ),
        (
            "dp-frank-wolfe",
            words("--epsilon 1 --scale public:/no/such/file.json"),
            "cannot read",
        ),
        (
            "clipped-gd",
            words("--epsilon 1 --preprocess-share 1.5 --scale private"),
            "--preprocess-share must be in (0, 1)",
        ),
        (
            "dp-frank-wolfe",
            words("--epsilon 1 --delta 1e-5"),
            "--param bound=B",
        ),
        (
            "dp-frank-wolfe",
            words("--epsilon 1 --delta 1e-5 --param bound=1 --param zeta=3"),
            "unknown parameter 'zeta'",
        ),
        (
            "dp-frank-wolfe",
            words("--epsilon 1 --delta 1e-5 --param bound=-2"),
            "parameter bound: expected a number > 0",
        ),
        (
            "dp-frank-wolfe",
            words("--epsilon 1 --delta 1e-5 --param bound"),
            "expected KEY=VALUE",
        ),
        (
            "no-such-algorithm",
            words("--epsilon 1"),
            "unknown algorithm 'no-such-algorithm'",
        ),
        (
            "dp-frank-wolfe",
            words("--epsilon 1 --delta 1e-5 --param bound=1 --loss hinge"),
            "unknown loss 'hinge'",
        ),
        (
            "dp-frank-wolfe",
            words("--epsilon 1 --delta 1e-5 --param bound=1 --domain box"),
            "unknown domain 'box'",
        ),
        (
            "dp-frank-wolfe",
            words("--epsilon 1 --delta 1e-5 --param bound=1 --domain l2-ball"),
            "domain 'l2-ball' is not supported",
        ),
        (
            "dp-frank-wolfe",
            words("--epsilon 1 --delta 1e-5 --param bound=1 --radius 0"),
            "--radius must be a finite number > 0",
        ),
        (
            "dp-frank-wolfe",
            words("--epsilon 1 --delta 1e-5 --param bound=1 --domain polytope"),
            "needs --param vertices=FILE.csv",
        ),
        (
            "dp-frank-wolfe",
            words("--epsilon 1 --delta 1e-5 --param bound=1 --param tau=1"),
            "--param tau applies only to --loss huber",
        ),
        (
            "dp-frank-wolfe",
            words("--epsilon 1 --delta 1e-5 --param bound=1 --target x9"),
            "target column 'x9' is not in the header",
        ),
        (
            "dp-frank-wolfe",
            words("--epsilon 1 --delta 1e-5 --param bound=1 --loss logistic"),
            "logistic loss needs labels",
        ),
    ];
    for (alg, args, msg) in cases {
        let a = fit(&data, &out, alg, &args).failure();
        let err = stderr_of(&a);
        assert!(
            err.contains(msg),
            "{alg} {args:?}: expected '{msg}' in: {err}"
        );
        assert!(!Path::new(&out).exists());
    }
    // Output folder that does not exist.
    let a = fit(
        &data,
        &p(&dir, "nope/model.json"),
        "dp-frank-wolfe",
        &words("--epsilon 1 --delta 1e-5 --param bound=1"),
    )
    .failure();
    assert!(stderr_of(&a).contains("does not exist"));
}

#[test]
fn simulate_rejects_bad_requests_and_writes_nothing() {
    let dir = TempDir::new().unwrap();
    let out = p(&dir, "d.csv");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            words("--scenario nope --n 10 --d 3"),
            "unknown scenario 'nope'",
        ),
        (
            words("--scenario hu-linear-lognormal --n 0 --d 3"),
            "--n must be at least 1",
        ),
        (
            words("--scenario hu-sparse-lognormal-noise --n 10 --d 3 --sparsity 5"),
            "--sparsity must be in 1..=d",
        ),
        (
            words("--scenario tian-sparse-student --n 10 --d 30 --param zeta=0.7"),
            "zeta must be 0.5",
        ),
        (
            words("--scenario hu-linear-lognormal --n 10 --d 3 --param k=1"),
            "unknown parameter 'k'",
        ),
    ];
    for (args, msg) in cases {
        let mut c = heavydp();
        c.arg("simulate").args(&args).args(["--out", &out]);
        let a = c.assert().failure();
        let err = stderr_of(&a);
        assert!(err.contains(msg), "{args:?}: expected '{msg}' in: {err}");
        assert!(!Path::new(&out).exists());
    }
}

#[test]
fn simulate_is_reproducible_and_documents_scenarios() {
    let dir = TempDir::new().unwrap();
    let a = p(&dir, "a.csv");
    let b = p(&dir, "b.csv");
    for f in [&a, &b] {
        cli_with(
            "simulate --scenario tian-sparse-student --n 50 --d 20 --seed 9 --out {}",
            &[f],
        )
        .assert()
        .success();
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let h = cli("simulate --help").assert().success();
    let text = stdout_of(&h);
    assert!(text.contains("variance 0.6") && text.contains("tian-sparse-student"));
}

#[test]
fn predict_and_evaluate_reject_bad_input() {
    let dir = TempDir::new().unwrap();
    let (data, _) = simulate(&dir, "hu-linear-lognormal", 200, 3);
    let model = p(&dir, "m.json");
    fit(&data, &model, "frank-wolfe", &words("--epsilon inf")).success();
    let other = write(&dir, "other.csv", "a,b,y\n1,2,3\n");
    let a = predict(&model, &other).assert().failure();
    assert!(stderr_of(&a).contains("missing column 'x1' required by the model"));
    let bad = write(&dir, "bad.json", "{\"format\": \"x\"}");
    let a = predict(&bad, &data).assert().failure();
    assert!(stderr_of(&a).contains("not a heavydp model file"));
    let out = p(&dir, "preds.csv");
    predict(&model, &data)
        .args(["--out", &out])
        .assert()
        .success();
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .starts_with("prediction\n"));
    // the target column, if present, is ignored: features-only data works too
    let feats = write(&dir, "feats.csv", "x3,x1,x2\n1,2,3\n");
    let a = predict(&model, &feats).assert().success();
    assert_eq!(stdout_of(&a).lines().count(), 2);
}

#[test]
fn heavy_tailed_algorithms_reject_impossible_requests() {
    let dir = TempDir::new().unwrap();
    let (data, _) = simulate(&dir, "hu-linear-lognormal", 30, 3);
    let wide = TempDir::new().unwrap();
    let (wide_data, _) = simulate(&wide, "hu-linear-lognormal", 30, 12);
    let cases = [
        // More chunks than records.
        (
            &dir,
            &data,
            "ht-frank-wolfe",
            "--epsilon 1 --param T=31",
            "n = 30 records is too few for 31 disjoint data chunks",
        ),
        // The sparse algorithms need the target sparsity.
        (&dir, &data, "ht-sparse-linreg", "--epsilon 1", "--sparsity"),
        // The printed Peeling scale's composition does not close (spec Hu §E: s = 12 >
        // (4/3) ln(1/δ) and ε > 0.418 ln(1/δ)); the default exact calibration closes it.
        (
            &wide,
            &wide_data,
            "ht-sparse-opt",
            "--epsilon 4 --delta 0.01 --sparsity 6 --param s=12 --param T=1 --param calibration=paper",
            "certify only",
        ),
        // ht-lasso's printed ε₀ by advanced composition does not close (spec H11).
        (
            &dir,
            &data,
            "ht-lasso",
            "--epsilon 0.99 --delta 0.9 --param calibration=paper",
            "certifies only",
        ),
        // Wrong domain.
        (
            &dir,
            &data,
            "ht-frank-wolfe",
            "--epsilon 1 --domain l2-ball",
            "domain 'l2-ball' is not supported",
        ),
    ];
    for (dir, data, alg, args, msg) in cases {
        fit_fails_with(dir, data, alg, &words(args), msg);
    }
}

#[test]
fn tian_algorithms_end_to_end() {
    let dir = TempDir::new().unwrap();
    let data = p(&dir, "tian.csv");
    let truth = p(&dir, "tian-truth.json");
    cli_with("simulate --scenario tian-sparse-student --n 3000 --d 30 --sparsity 3 --param zeta=0.5 --seed 5 --out {} --truth {}", &[&data, &truth])
        .assert()
        .success();
    let cases: &[(&str, &str, &[&str])] = &[
        ("dp-iht-huber", "huber", &words("--epsilon 1")),
        (
            "dp-iht-huber",
            "huber",
            &words("--epsilon 1 --param tau=2 --param preset=paper"),
        ),
        ("dp-iht-l1", "absolute", &words("--epsilon 1")),
        ("dp-slr", "squared", &words("--epsilon 1 --param bound=3.4")),
        ("adahuber", "huber", &words("--epsilon inf")),
    ];
    for (i, (alg, loss, args)) in cases.iter().enumerate() {
        let out = p(&dir, &format!("tian-{i}.json"));
        let mut a: Vec<&str> = args.to_vec();
        a.extend(["--sparsity", "3", "--radius", "10", "--seed", "4"]);
        fit(&data, &out, alg, &a).success();
        let m = read_json(&out);
        assert_eq!(m["algorithm"], *alg);
        assert_eq!(m["loss"], *loss);
        assert_eq!(m["domain"]["kind"], "sparse");
        let nz = m["weights"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|v| v.as_f64().unwrap() != 0.0)
            .count();
        assert!(nz <= 3, "{alg}: {nz} non-zeros");
        if *alg == "adahuber" {
            assert_eq!(m["privacy"]["model"], "none");
        } else {
            assert_eq!(m["privacy"]["model"], "approx");
            assert!(m["privacy"]["epsilon"].as_f64().unwrap() <= 1.0);
            // delta defaults to n^-1.1
            let delta = m["privacy"]["delta"].as_f64().unwrap();
            assert!(delta <= 3000f64.powf(-1.1) && delta > 0.0);
        }
        if i == 1 {
            assert_eq!(m["loss_parameters"]["tau"], 2.0);
            assert_eq!(m["hyperparameters"]["tau"], 2.0);
            assert_eq!(m["hyperparameters"]["eta"], 0.01);
        }
        let again = p(&dir, &format!("tian-{i}-again.json"));
        fit(&data, &again, alg, &a).success();
        assert_reproduced(&out, &again, alg);
        let v = evaluate(&out, &data, &truth);
        for k in ["mae", "l2_error", "support_recall"] {
            assert!(v[k].is_number(), "{alg}: {k} missing in {v}");
        }
    }
    // Impossible requests: one-line errors, nothing written.
    let sp = ["--sparsity", "3"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        let mut v = words("--epsilon 1");
        v.extend_from_slice(extra);
        v
    };
    fit_fails_with(&dir, &data, "dp-slr", &with(&sp), "--param bound=B");
    fit_fails_with(
        &dir,
        &data,
        "dp-iht-huber",
        &with(&words("--sparsity 3 --param T=3001")),
        "too few for 3001 disjoint data chunks",
    );
    fit_fails_with(
        &dir,
        &data,
        "dp-iht-huber",
        &with(&words("--sparsity 3 --loss squared")),
        "loss 'squared' is not supported",
    );
    fit_fails_with(
        &dir,
        &data,
        "dp-iht-l1",
        &with(&words("--sparsity 3 --param decay=1.5")),
        "decay",
    );
    fit_fails_with(&dir, &data, "dp-iht-l1", &with(&words("--sparsity 0")), "");
}

#[test]
fn adassp_end_to_end_and_its_errors() {
    let dir = TempDir::new().unwrap();
    let (data, truth) = simulate(&dir, "hu-linear-lognormal", 2000, 5);
    let out = p(&dir, "adassp.json");
    let args = [
        "--epsilon",
        "1",
        "--delta",
        "1e-5",
        "--param",
        "bound=4",
        "--seed",
        "5",
    ];
    fit(&data, &out, "adassp", &args).success();
    let m = read_json(&out);
    assert_eq!(m["algorithm"], "adassp");
    assert_eq!(m["loss"], "squared");
    assert_eq!(m["domain"]["kind"], "unconstrained");
    assert_eq!(m["weights"].as_array().unwrap().len(), 5);
    assert_eq!(m["privacy"]["model"], "zcdp");
    assert_eq!(m["privacy"]["releases"], 3);
    let eps = m["privacy"]["epsilon"].as_f64().unwrap();
    assert!(eps <= 1.0 && eps > 0.999_999, "{eps}");
    assert!((m["hyperparameters"]["bound_x"].as_f64().unwrap() - 4.0 * 5f64.sqrt()).abs() < 1e-12);
    let again = p(&dir, "adassp-again.json");
    fit(&data, &again, "adassp", &args).success();
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
    evaluate(&out, &data, &truth);
    // Missing bound, half a bound pair, another domain: one-line errors, no model file.
    fit_fails_with(
        &dir,
        &data,
        "adassp",
        &words("--epsilon 1"),
        "--param bound=B",
    );
    fit_fails_with(
        &dir,
        &data,
        "adassp",
        &words("--epsilon 1 --param bound_x=3"),
        "bound_y: required together with bound_x",
    );
    fit_fails_with(
        &dir,
        &data,
        "adassp",
        &words("--epsilon 1 --param bound=4 --domain l2-ball"),
        "domain 'l2-ball' is not supported",
    );
}

/// A missing `--delta` uses the documented default (δ = n^−1.1, docs/privacy.md) and
/// says so on stderr; `fit` without `--out` (or `--out -`)
/// prints the model to stdout; the defaults (private scales and intercept) give a
/// `heavydp-model/2` file whose privacy object lists the phases.
#[test]
fn defaults_from_the_command_line() {
    let dir = TempDir::new().unwrap();
    let scenario = "--scenario hu-linear-student --n 3000 --d 3 --seed 1";
    let data = simulate_csv(&dir, scenario);
    // (ε = 2: at ε = 1 the private scaling of 3 000 rows cannot locate the target and
    // the fit falls back to the intercept alone, pipeline::scaling_fallback)
    for out in [None, Some("-")] {
        let mut c = heavydp();
        c.args(argv(
            "fit --algorithm clipped-gd --data {} --epsilon 2 --seed 3",
            &[&data],
        ));
        if let Some(o) = out {
            c.args(["--out", o]);
        }
        let a = c.assert().success();
        let stderr = stderr_of(&a);
        assert!(stderr.contains("--delta not given: using the default delta = n^-1.1"));
        let m = stdout_json(&a);
        assert_eq!(m["format"], "heavydp-model/2");
        assert!(m["intercept"].as_f64().unwrap().is_finite());
        assert_eq!(
            phase_names(&m),
            ["preprocessing", "algorithm", "intercept", "check"]
        );
        assert!(m["privacy"]["epsilon"].as_f64().unwrap() <= 2.0);
    }
    assert!(!Path::new("-").exists());
    // public scales: declared centre/scale per column, no preprocessing charge
    let scales = p(&dir, "scales.json");
    std::fs::write(
        &scales,
        r#"{"columns": {"x1": {"centre": 0, "scale": 1}, "x2": {"min": -4, "max": 4},
            "x3": {"centre": 0, "scale": 1}, "y": {"centre": 0, "scale": 1}}}"#,
    )
    .unwrap();
    let out = p(&dir, "pub.json");
    let public = format!("public:{scales}");
    let fit_public = || {
        cli_with(
            "fit --algorithm adassp --data {} --epsilon 1 --scale {} --out {}",
            &[&data, &public, &out],
        )
        .assert()
    };
    fit_public().success();
    let m = read_json(&out);
    assert_eq!(phase_names(&m), ["algorithm", "intercept", "check"]);
    assert_eq!(m["preprocessing"]["scale"], "public");
    // a column missing from the declared file is named
    std::fs::write(&scales, r#"{"columns": {"x1": {"centre": 0, "scale": 1}}}"#).unwrap();
    let err = stderr_of(&fit_public().failure());
    assert!(
        err.contains("no centre/scale for column(s) x2, x3"),
        "{err}"
    );
    // predict and evaluate use the intercept and the feature bounds
    let model = p(&dir, "m.json");
    cli_with(
        "fit --algorithm auto --data {} --epsilon 2 --out {}",
        &[&data, &model],
    )
    .assert()
    .success();
    let a = heavydp()
        .args(["evaluate", "--model", &model, "--data", &data])
        .assert()
        .success();
    let v = stdout_json(&a);
    assert!(v["mse"].as_f64().unwrap().is_finite());
}
