//! End-to-end tests of `heavydp mean` (the four private mean estimators) and of the
//! Zhao et al. and Wang & Xu algorithms through `heavydp fit`: the JSON / model file
//! records the privacy spent, runs repeat with a seed, and bad input is refused with one
//! line on stderr and nothing written.

use crate::common::*;
use std::path::Path;
use tempfile::TempDir;

/// 2000 rows of 3 heavy-ish columns with means (1, −2, 0.5): a deterministic
/// Student-t-like sequence (ratio of a symmetric value and a square root of a uniform).
fn mean_data(dir: &TempDir) -> String {
    let mut s = String::from("a,b,c\n");
    let mut state: u64 = 12345;
    let mut u = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    };
    for _ in 0..2000 {
        let mut row = Vec::new();
        for m in [1.0, -2.0, 0.5] {
            let z = (u() - 0.5) * 2.0 / u().sqrt().max(0.05);
            row.push(format!("{}", m + z));
        }
        s.push_str(&row.join(","));
        s.push('\n');
    }
    write(dir, "x.csv", &s)
}

fn mean_json(args: &[&str]) -> serde_json::Value {
    run_json("mean", args).0
}

fn mean_fails(args: &[&str], msg: &str) {
    let a = heavydp().arg("mean").args(args).assert().failure();
    let err = stderr_of(&a);
    assert!(err.contains(msg), "expected '{msg}' in: {err}");
    assert_eq!(err.trim().lines().count(), 1, "not one line: {err}");
    assert!(a.get_output().stdout.is_empty());
}

#[test]
fn mean_estimators_end_to_end() {
    let dir = TempDir::new().unwrap();
    let data = mean_data(&dir);
    for (est, extra, model) in [
        ("clip", words("--delta 1e-6"), "zcdp"),
        // conservative accounting: the k group means are rho-zCDP together
        ("iterative-updating", words("--delta 1e-6"), "zcdp"),
        ("catoni", vec![], "pure"),
        (
            "sparse-peeling",
            words("--delta 1e-6 --param s=2"),
            "approx",
        ),
    ] {
        let mut args = argv(
            "--estimator {} --data {} --epsilon 1 --seed 5",
            &[est, &data],
        );
        args.extend(extra.iter());
        let v = mean_json(&args);
        assert_eq!(v["estimator"], est);
        assert_eq!(v["n"], 2000);
        assert_eq!(v["columns"], serde_json::json!(["a", "b", "c"]));
        let mean: Vec<f64> = serde_json::from_value(v["mean"].clone()).unwrap();
        assert_eq!(mean.len(), 3);
        assert_eq!(v["privacy"]["model"], model, "{est}");
        let eps = v["privacy"]["epsilon"].as_f64().unwrap();
        assert!(eps > 0.0 && eps <= 1.0, "{est}: {eps}");
        if model == "zcdp" {
            assert!(v["privacy"]["rho"].as_f64().unwrap() > 0.0);
        }
        // the estimate is in the right place (heavy tails, epsilon = 1, n = 2000); not for
        // sparse-peeling (s = 2 of 3 coordinates) nor iterative-updating, whose group means
        // are noise-dominated at n = 2000 under the always-valid accounting
        if est == "clip" || est == "catoni" {
            for (m, t) in mean.iter().zip([1.0, -2.0, 0.5]) {
                assert!((m - t).abs() < 1.0, "{est}: {mean:?}");
            }
        }
        // same seed, same answer
        assert_eq!(mean_json(&args)["mean"], v["mean"], "{est}");
    }
    // --out writes the same JSON to a file
    let out = p(&dir, "m.json");
    cli_with(
        "mean --estimator catoni --data {} --epsilon inf --out {}",
        &[&data, &out],
    )
    .assert()
    .success();
    let v = read_json(&out);
    assert_eq!(v["privacy"]["model"], "none");
    let list = cli("mean --list").assert().success();
    let l = stdout_json(&list);
    assert_eq!(l.as_array().unwrap().len(), 4);
}

#[test]
fn mean_rejects_bad_input() {
    let dir = TempDir::new().unwrap();
    let data = mean_data(&dir);
    let ragged = write(&dir, "r.csv", "a,b\n1,2\n3\n");
    let nan = write(&dir, "n.csv", "a,b\n1,2\nNaN,3\n");
    let empty = write(&dir, "e.csv", "a,b\n");
    mean_fails(
        &["--estimator", "median", "--data", &data, "--epsilon", "1"],
        "unknown estimator 'median'",
    );
    mean_fails(
        &["--estimator", "clip", "--data", &data, "--epsilon", "0"],
        "--epsilon must be a number > 0",
    );
    mean_fails(
        &argv(
            "--estimator clip --data {} --epsilon 1 --delta 1.5",
            &[&data],
        ),
        "--delta must be in [0, 1)",
    );
    mean_fails(
        &argv(
            "--estimator clip --data {} --epsilon 1 --delta 1e-5",
            &[&ragged],
        ),
        "r.csv",
    );
    mean_fails(
        &argv(
            "--estimator clip --data {} --epsilon 1 --delta 1e-5",
            &[&nan],
        ),
        "n.csv",
    );
    mean_fails(
        &argv(
            "--estimator clip --data {} --epsilon 1 --delta 1e-5",
            &[&empty],
        ),
        "e.csv",
    );
    mean_fails(
        &argv(
            "--estimator clip --data {} --epsilon 1 --delta 1e-5 --param bogus=1",
            &[&data],
        ),
        "unknown parameter 'bogus'",
    );
    mean_fails(
        &argv(
            "--estimator sparse-peeling --data {} --epsilon 1 --delta 1e-5",
            &[&data],
        ),
        "parameter s: required",
    );
    // nothing is written on error
    let out = p(&dir, "never.json");
    mean_fails(
        &argv(
            "--estimator clip --data {} --epsilon 1 --out {}",
            &[&nan, &out],
        ),
        "n.csv",
    );
    assert!(!Path::new(&out).exists());
}

fn simulate(dir: &TempDir, scenario: &str, n: usize, d: usize) -> String {
    let data = p(dir, "data.csv");
    cli_with(
        "simulate --scenario {} --n {} --d {} --seed 3 --out {}",
        &[scenario, &n.to_string(), &d.to_string(), &data],
    )
    .assert()
    .success();
    data
}

fn fit_json(data: &str, out: &str, alg: &str, extra: &[&str]) -> serde_json::Value {
    heavydp()
        .args(["fit", "--algorithm", alg, "--data", data, "--out", out])
        .args(words("--scale none --intercept none"))
        .args(extra)
        .assert()
        .success();
    read_json(out)
}

#[test]
fn zhao_and_wangxu_algorithms_end_to_end() {
    let dir = TempDir::new().unwrap();
    let data = simulate(&dir, "hu-linear-student", 3000, 2);
    let cases: &[(&str, &[&str], &str)] = &[
        (
            "clipped-gd",
            &words("--epsilon 1 --delta 1e-5 --param M=3"),
            "zcdp",
        ),
        (
            "iterative-updating-gd",
            &words("--epsilon 1 --delta 1e-5 --param T=5"),
            "approx",
        ),
        (
            "l1-regression-expmech",
            &words("--epsilon 1 --delta 1e-6 --param max_candidates=4096"),
            "approx",
        ),
    ];
    for (alg, args, model) in cases {
        let out = p(&dir, &format!("{alg}.json"));
        let mut a = args.to_vec();
        a.extend(["--seed", "4"]);
        let m = fit_json(&data, &out, alg, &a);
        assert_eq!(m["algorithm"], *alg);
        assert_eq!(m["privacy"]["model"], *model, "{alg}");
        let eps = m["privacy"]["epsilon"].as_f64().unwrap();
        assert!(eps > 0.0 && eps <= 1.0, "{alg}: {eps}");
        assert_eq!(m["weights"].as_array().unwrap().len(), 2);
        let again = p(&dir, &format!("{alg}-2.json"));
        fit_json(&data, &again, alg, &a);
        assert_reproduced(&out, &again, alg);
    }
    // the expmech model file records the net actually used
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(p(&dir, "l1-regression-expmech.json")).unwrap(),
    )
    .unwrap();
    let h = &m["hyperparameters"];
    assert!(h["net"].is_string(), "{h}");
    assert!(h["zeta"].as_f64().unwrap() > 0.0, "{h}");
}

/// `mean --help` marks the shuffle accounting as unproven (docs/privacy.md §8: the
/// paper's Theorem 6 figure is not established for group means).
#[test]
fn mean_help_marks_the_shuffle_accounting_unproven() {
    let out = cli("mean --help").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.lines()
            .any(|l| l.contains("iterative-updating")
                && l.contains("accounting=shuffle is UNPROVEN")),
        "{text}"
    );
}

/// `mean --scale private` releases each column's private quartiles,
/// centre, IQR and robust sd next to the mean (the mean in raw units), within one
/// budget; the released `scales` are a `fit --scale public:` file (describe, then fit);
/// a declared range bounds its column; `auto` needs scaled columns.
#[test]
fn mean_scales_describe_then_fit() {
    let dir = TempDir::new().unwrap();
    let data = simulate_csv(&dir, "--scenario hu-linear-student --n 3000 --d 3 --seed 3");
    let desc = p(&dir, "describe.json");
    let base = ["--estimator", "catoni", "--data", &data];
    heavydp()
        .arg("mean")
        .args(base)
        .args(argv(
            "--epsilon 1 --scale private --seed 4 --out {}",
            &[&desc],
        ))
        .assert()
        .success();
    let v = read_json(&desc);
    assert_eq!(v["scale"], "private");
    let scales = v["scales"].as_object().unwrap();
    assert_eq!(scales.len(), 4, "{v}"); // x1..x3 and y
    for (name, s) in scales {
        let q = s["quartiles"].as_array().unwrap();
        let (lo, hi) = (q[0].as_f64().unwrap(), q[1].as_f64().unwrap());
        assert!(lo <= hi, "{name}: {s}");
        assert_eq!(s["iqr"].as_f64().unwrap(), hi - lo);
        assert!(s["scale"].as_f64().unwrap() > 0.0);
    }
    assert!(v["privacy"]["epsilon"].as_f64().unwrap() <= 1.0);
    assert_eq!(v["privacy"]["phases"].as_array().unwrap().len(), 2);
    // the released scales drive a fit at no further cost
    let model = p(&dir, "m.json");
    let public = format!("public:{desc}");
    cli_with(
        "fit --algorithm clipped-gd --data {} --out {} --scale {}",
        &[&data, &model, &public],
    )
    .args(words("--epsilon 1 --seed 1"))
    .assert()
    .success();
    assert_eq!(read_json(&model)["preprocessing"]["scale"], "public");
    // a declared range bounds the column: x1 is clamped to [2, 3]
    let ranges = write(
        &dir,
        "ranges.json",
        r#"{"columns": {"x1": {"min": 2, "max": 3}, "x2": {"min": -1, "max": 1}, "x3": {"min": -1, "max": 1}, "y": {"min": -50, "max": 50}}}"#,
    );
    let ranged = format!("public:{ranges}");
    let v = mean_json(&[&base[..], &["--epsilon", "inf", "--scale", &ranged]].concat());
    let m0 = v["mean"][0].as_f64().unwrap();
    assert!((2.0..=3.0).contains(&m0), "{v}");
    assert_eq!(v["scales"]["x1"]["range"], serde_json::json!([2.0, 3.0]));
    for (extra, msg) in [
        ("--epsilon 1 --param tau=auto", "needs scaled columns"),
        ("--epsilon 1 --scale sometimes", "--scale must be"),
    ] {
        mean_fails(&[&base[..], &words(extra)[..]].concat(), msg);
    }
}
