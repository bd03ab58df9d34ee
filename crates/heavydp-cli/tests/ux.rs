//! A statistician's first hour: self-explaining help, no silent nonsense,
//! Unix manners (`--out -`, quiet broken pipes).

use crate::common::*;
use std::io::{BufRead, BufReader, Read};
use std::process::Stdio;
use tempfile::TempDir;

const SUBCOMMANDS: [&str; 9] = [
    "demo",
    "algorithms",
    "simulate",
    "fit",
    "predict",
    "evaluate",
    "mean",
    "experiment",
    "audit",
];

/// The (flag, description) pairs of the "Options:" and "Arguments:" sections of a clap
/// help text: the description follows the flag on its line, or (clap's next-line layout,
/// used when some description is long) on the indented lines below it.
fn options(help: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut in_opts = false;
    for line in help.lines() {
        let indent = line.len() - line.trim_start().len();
        if in_opts && indent >= 10 && !line.trim().is_empty() {
            // a next-line description of the last flag
            if let Some(last) = out.last_mut() {
                last.1.push(' ');
                last.1.push_str(line.trim());
                last.1 = last.1.trim().to_string();
            }
            continue;
        }
        if line.starts_with("Options:") || line.starts_with("Arguments:") {
            in_opts = true;
            continue;
        }
        if !in_opts {
            continue;
        }
        let t = line.trim_start();
        if t.starts_with('-') || t.starts_with('[') || t.starts_with('<') {
            // "--flag <V>  description": the description follows two or more spaces
            let (flag, desc) = match t.find("  ") {
                Some(i) => (t[..i].to_string(), t[i..].trim().to_string()),
                None => (t.to_string(), String::new()),
            };
            out.push((flag, desc));
        }
    }
    out
}

#[test]
fn every_flag_of_every_subcommand_has_a_description() {
    for sub in SUBCOMMANDS {
        let o = heavydp().args([sub, "-h"]).output().unwrap();
        assert!(o.status.success(), "{sub} -h");
        let help = String::from_utf8(o.stdout).unwrap();
        let opts = options(&help);
        assert!(opts.len() >= 2, "{sub}: no options parsed from\n{help}");
        for (flag, desc) in &opts {
            assert!(
                desc.len() >= 10,
                "heavydp {sub}: flag '{flag}' has no description\n{help}"
            );
        }
    }
}

#[test]
fn fit_and_mean_help_show_every_default_and_the_status_values() {
    let help = String::from_utf8(cli("fit -h").output().unwrap().stdout).unwrap();
    for (flag, desc) in options(&help) {
        let required = desc.contains("required") || flag.contains("help");
        assert!(
            required || desc.contains("[default"),
            "fit: flag '{flag}' shows no default: {desc}"
        );
    }
    assert!(help.contains("n^-1.1"), "delta's real default is shown");
    let long = String::from_utf8(cli("fit --help").output().unwrap().stdout).unwrap();
    for status in [
        "completed",
        "converged",
        "tolerance_not_reached",
        "max_iterations",
    ] {
        assert!(
            long.contains(status),
            "fit --help documents status '{status}'"
        );
    }
    let help = String::from_utf8(cli("mean -h").output().unwrap().stdout).unwrap();
    for (flag, desc) in options(&help) {
        let ok = desc.contains("required")
            || desc.contains("[default")
            || flag.contains("help")
            || flag.contains("--list");
        assert!(ok, "mean: flag '{flag}' shows no default: {desc}");
    }
}

#[test]
fn algorithms_table_stays_aligned_and_says_when_to_use_each() {
    let o = heavydp().arg("algorithms").output().unwrap();
    let text = String::from_utf8(o.stdout).unwrap();
    let header = text.lines().next().unwrap();
    let cols: Vec<usize> = ["privacy", "use when", "paper", "losses", "domains"]
        .iter()
        .map(|c| header.find(c).unwrap())
        .collect();
    for line in text.lines().skip(1) {
        let chars: Vec<char> = line.chars().collect();
        for &c in &cols {
            // every column starts after a blank: no cell runs into the next column
            if chars.len() > c {
                assert_eq!(chars[c - 1], ' ', "misaligned line:\n{line}\n{header}");
            }
        }
    }
    let json: serde_json::Value =
        serde_json::from_slice(&cli("algorithms --json").output().unwrap().stdout).unwrap();
    let arr = json.as_array().unwrap();
    assert!(arr.len() >= 16);
    for a in arr {
        let u = a["use_when"].as_str().unwrap_or("");
        assert!(u.len() > 10, "{} has no use_when", a["name"]);
        assert!(text.contains(&a["name"].as_str().unwrap().to_string()));
    }
}

/// A wage-like column (mean about 600, right-skewed) and a small second column.
fn wage_csv(dir: &TempDir, n: usize) -> String {
    let path = p(dir, "wages.csv");
    let mut s = String::from("wage,education\n");
    for i in 0..n {
        // deterministic, skewed: 300 + 600 * u^2 with u on a scrambled grid
        let u = ((i * 7919) % n) as f64 / n as f64;
        let wage = 300.0 + 900.0 * u * u;
        s.push_str(&format!("{wage:.2},{}\n", 8 + (i % 10)));
    }
    std::fs::write(&path, s).unwrap();
    path
}

fn notes(j: &serde_json::Value) -> Vec<String> {
    j["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}

/// Asserts that one of the report's notes contains `text`.
fn assert_note(j: &serde_json::Value, text: &str) {
    let n = notes(j);
    assert!(
        n.iter().any(|m| m.contains(text)),
        "no note with '{text}' in {n:?}"
    );
}

/// `heavydp mean --data DATA ARGS`, which must succeed: its JSON and its standard error.
fn mean_of(data: &str, args: &str) -> (serde_json::Value, String) {
    let mut a = vec!["--data", data];
    a.extend(words(args));
    run_json("mean", &a)
}

/// `heavydp mean ARGS` on the wage file of `n` rows, which must succeed and say each of
/// `expected` in its notes: its JSON and its standard error.
fn wage_mean(n: usize, args: &str, expected: &[&str]) -> (serde_json::Value, String) {
    let dir = TempDir::new().unwrap();
    let (j, err) = mean_of(&wage_csv(&dir, n), args);
    for text in expected {
        assert_note(&j, text);
    }
    (j, err)
}

#[test]
fn iterative_updating_at_the_starting_centre_says_so() {
    let (j, err) = wage_mean(
        20000,
        "--estimator iterative-updating --columns wage --epsilon 1 --delta 1e-5 --param M=1e4 --seed 1",
        &["starting centre"],
    );
    assert_eq!(
        j["mean"][0].as_f64().unwrap(),
        0.0,
        "the data-free starting centre"
    );
    assert!(
        err.contains("note: the estimate is the data-free starting centre"),
        "{err}"
    );
}

#[test]
fn catoni_with_tau_far_from_the_data_scale_says_so() {
    let (_, err) = wage_mean(
        5000,
        "--estimator catoni --columns wage --epsilon 1 --seed 1",
        &["tau was not given", "contradicts the declared"],
    );
    assert!(err.contains("note: tau was not given"), "{err}");
    // declared at the data's scale: no warning about tau, and a sensible mean
    let (j, _) = wage_mean(
        5000,
        "--estimator catoni --columns wage --epsilon 1 --seed 1 --param tau=1e6",
        &[],
    );
    let n = notes(&j);
    assert!(n.is_empty(), "{n:?}");
    let m = j["mean"][0].as_f64().unwrap();
    assert!((m - 600.0).abs() < 60.0, "{m}");
}

#[test]
fn catoni_truncation_collapsing_is_an_announced_public_fact() {
    let args = "--estimator catoni --epsilon 0.01 --seed 1 --param tau=1e6";
    wage_mean(50, args, &["truncation scale k"]);
}

#[test]
fn fit_status_reads_completed_and_old_files_still_read() {
    let dir = TempDir::new().unwrap();
    let data = simulate_csv(&dir, "--scenario hu-linear-student --n 400 --d 3 --seed 2");
    // (ε = 50: at ε = 1 the private scaling of 400 rows cannot locate the target and the
    // fit is the intercept alone, which has no status)
    let o = cli_with(
        "fit --algorithm clipped-gd --data {} --epsilon 50",
        &[&data],
    )
    .args(words("--seed 1 --out -"))
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let model: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(model["status"], "completed");
    // a file of an earlier version: "max_iterations" reads as "completed"
    let old = p(&dir, "old.json");
    let mut m = model.clone();
    m["status"] = "max_iterations".into();
    std::fs::write(&old, serde_json::to_vec(&m).unwrap()).unwrap();
    let read = heavydp::model::ModelFile::read(&old).unwrap();
    assert_eq!(read.status.as_deref(), Some("completed"));
    predict(&old, &data).assert().success();
}

/// A plan of 500 steps or more is said on stderr (the time left follows without a
/// terminal once the fit has run 10 s); the default clipped-gd plan (45 steps) is not.
/// Stdout holds the model alone either way.
#[test]
fn large_plans_are_announced_on_stderr() {
    let dir = TempDir::new().unwrap();
    let data = simulate_csv(&dir, "--scenario hu-linear-student --n 400 --d 3 --seed 2");
    let run = |extra: &str| {
        // ε = 50: 400 rows at ε = 1 fail the scaling check (the intercept alone)
        let o = cli_with(
            "fit --algorithm clipped-gd --data {} --epsilon 50",
            &[&data],
        )
        .args(words(extra))
        .args(words("--seed 1 --out -"))
        .output()
        .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        // the progress never reaches stdout: it is the model file alone
        let model: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(model["algorithm"], "clipped-gd");
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let big = run("--param T=600 --param max_steps=600");
    assert!(
        big.contains("note: fitting clipped-gd: 600 steps planned"),
        "{big}"
    );
    assert!(!run("").contains("steps planned"));
}

#[test]
fn mean_columns_selects_by_name_and_lists_unknown_ones() {
    let dir = TempDir::new().unwrap();
    let data = wage_csv(&dir, 200);
    let (j, _) = mean_of(
        &data,
        "--estimator catoni --columns education --epsilon inf --param tau=200",
    );
    assert_eq!(j["columns"], serde_json::json!(["education"]));
    assert_eq!(j["d"], 1);
    let m = j["mean"][0].as_f64().unwrap();
    assert!((m - 12.5).abs() < 0.5, "{m}");
    let o = cli_with("mean --estimator catoni --data {} --epsilon 1", &[&data])
        .args(words("--columns wage,hours,age"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains("'hours', 'age'") && err.contains("wage, education"),
        "{err}"
    );
    assert!(o.stdout.is_empty());
}

#[test]
fn out_dash_writes_to_stdout_and_creates_no_file() {
    let dir = TempDir::new().unwrap();
    let data = wage_csv(&dir, 100);
    let o = heavydp()
        .current_dir(dir.path())
        .args(argv(
            "mean --estimator catoni --data {} --epsilon 1 --out -",
            &[&data],
        ))
        .args(words("--param tau=1e6"))
        .output()
        .unwrap();
    assert!(o.status.success());
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["estimator"], "catoni");
    // simulate --out - : the CSV on stdout
    let o = heavydp()
        .current_dir(dir.path())
        .args(words("simulate --scenario hu-linear-student --n 5 --d 2"))
        .args(words("--seed 1 --out -"))
        .output()
        .unwrap();
    assert!(o.status.success());
    let csv = String::from_utf8(o.stdout).unwrap();
    assert_eq!(csv.lines().count(), 6);
    assert!(csv.starts_with("x1,x2,y"));
    // fit and predict with --out -
    let sim = p(&dir, "sim.csv");
    std::fs::write(&sim, &csv).unwrap();
    let model = p(&dir, "model.json");
    cli_with(
        "fit --algorithm clipped-gd --data {} --epsilon inf",
        &[&sim],
    )
    .args(["--out", &model])
    .assert()
    .success();
    let o = heavydp()
        .current_dir(dir.path())
        .args(["predict", "--model", &model, "--data", &sim, "--out", "-"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let preds = String::from_utf8(o.stdout).unwrap();
    assert_eq!(preds.lines().next(), Some("prediction"));
    assert_eq!(preds.lines().count(), 6);
    assert!(!dir.path().join("-").exists(), "no file named '-'");
}

#[test]
fn predict_into_a_closed_pipe_exits_quietly() {
    let dir = TempDir::new().unwrap();
    let data = simulate_csv(
        &dir,
        "--scenario hu-linear-student --n 100000 --d 2 --seed 1",
    );
    let model = p(&dir, "m.json");
    cli_with(
        "fit --algorithm clipped-gd --data {} --epsilon inf",
        &[&data],
    )
    .args(["--intercept", "none", "--scale", "none", "--out", &model])
    .assert()
    .success();
    let bin = assert_cmd::cargo::cargo_bin("heavydp");
    let mut child = std::process::Command::new(bin)
        .args(["predict", "--model", &model, "--data", &data])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        // like `| head -2`: read two lines, then close the pipe
        let mut r = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        assert_eq!(line.trim(), "prediction");
        line.clear();
        r.read_line(&mut line).unwrap();
    }
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "status {status:?}, stderr: {err}");
    assert!(err.is_empty(), "stderr: {err}");
}

/// Any algorithm whose model would be the uncertified private median of the responses
/// (78 rows at ε = 0.5, n·ε = 39 < 56.2: `pipeline::grid_median_refused`), `auto`
/// included, stops with the remedy and writes no file; at ε = 0.75 (n·ε = 58.5) `auto`
/// writes the private median.
#[test]
fn uncertified_median_is_refused_and_nothing_is_written() {
    let dir = TempDir::new().unwrap();
    let data = wage_csv(&dir, 78);
    let out = p(&dir, "m.json");
    for alg in ["adassp", "intercept-only", "auto"] {
        let o = cli_with(
            "fit --algorithm {} --data {} --target wage --epsilon 0.5 --out {}",
            &[alg, &data, &out],
        )
        .output()
        .unwrap();
        assert!(!o.status.success(), "{alg}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(
            err.contains("n·ε = 39.0 < 56.2") && err.contains("--scale public:FILE.json"),
            "{err}"
        );
        assert!(!std::path::Path::new(&out).exists(), "{alg}");
    }
    let o = cli_with(
        "fit --algorithm auto --data {} --target wage --epsilon 0.75 --out {}",
        &[&data, &out],
    )
    .output()
    .unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("the intercept is the private median of the responses"),
        "{err}"
    );
    assert!(std::path::Path::new(&out).exists());
}
