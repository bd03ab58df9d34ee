//! `heavydp experiment`: the list, errors, and small real runs that write the three
//! files (results.csv, ID.png, summary.json). The real-data panel hu-fig4a
//! (cells_ps.csv, n = 2019, d = 56) with --quick takes well under a second.

use crate::common::*;
use assert_cmd::Command;
use predicates::prelude::*;
use std::path::Path;
use tempfile::TempDir;

fn run_fig4a(out: &Path, threads: &str) {
    cli_with(
        "experiment hu-fig4a --quick --reps 2 --threads {} --seed 3 --out",
        &[threads],
    )
    .arg(out)
    .assert()
    .success();
}

/// `cmd <out>` fails, says each of `msgs` on stderr, and writes nothing at `out`.
fn refused(cmd: &mut Command, out: &Path, msgs: &[&str]) {
    let err = stderr_of(&cmd.arg(out).assert().failure());
    for msg in msgs {
        assert!(err.contains(msg), "expected '{msg}' in: {err}");
    }
    assert!(!out.exists(), "{} was written", out.display());
}

/// `heavydp <args> <out>` fails with `msg` on stderr and writes nothing at `out`.
fn fails_with(args: &str, out: &Path, msg: &str) {
    refused(&mut cli(args), out, &[msg]);
}

#[test]
fn list_shows_every_panel_and_the_replaced_datasets() {
    cli("experiment --list")
        .assert()
        .success()
        .stdout(predicate::str::contains("hu-fig1a"))
        .stdout(predicate::str::contains("hu-fig11c"))
        .stdout(predicate::str::contains("flights_arr_delay.csv"))
        .stdout(predicate::str::contains(
            "replaces the paper's Blog Feedback",
        ))
        .stdout(predicate::str::contains("non-private preprocessing"));
}

#[test]
fn unknown_id_and_bad_flags_are_errors() {
    let dir = TempDir::new().unwrap();
    let o = dir.path().join("o");
    refused(
        &mut cli("experiment hu-fig99z --out"),
        &o,
        &[
            "unknown experiment 'hu-fig99z'",
            "heavydp experiment --list",
        ],
    );
    cli("experiment hu-fig1a")
        .assert()
        .failure()
        .stderr(predicate::str::contains("--out"));
    fails_with(
        "experiment hu-fig1a --param preset=nope --out",
        &o,
        "preset",
    );
    fails_with("experiment hu-fig1a --reps 0 --out", &o, "--reps");
    // --out is an existing file
    let f = dir.path().join("file");
    std::fs::write(&f, "x").unwrap();
    cli("experiment hu-fig4a --quick --out")
        .arg(&f)
        .assert()
        .failure()
        .stderr(predicate::str::contains("not a folder"));
    // the real-data folder is missing
    heavydp()
        .env("HEAVYDP_DATA_DIR", dir.path().join("nowhere"))
        .args(words("experiment hu-fig4a --quick --reps 1 --out"))
        .arg(dir.path().join("r"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("HEAVYDP_DATA_DIR"));
    assert!(!dir.path().join("r").join("results.csv").exists());
}

#[test]
fn a_small_run_writes_the_three_files_reproducibly() {
    let dir = TempDir::new().unwrap();
    let a = dir.path().join("a");
    run_fig4a(&a, "2");
    let csv = std::fs::read_to_string(a.join("results.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "epsilon,subsample_pct,method,metric,mean,std,reps"
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 9);
    for r in &rows {
        let f: Vec<&str> = r.split(',').collect();
        assert_eq!(f.len(), 7, "{r}");
        assert_eq!(f[2], "ht-frank-wolfe");
        assert_eq!(f[3], "excess_risk");
        assert!(f[4].parse::<f64>().unwrap().is_finite());
        assert_eq!(f[6], "2");
    }
    let s = read_json(a.join("summary.json").to_str().unwrap());
    assert_eq!(s["id"], "hu-fig4a");
    assert_eq!(s["quick"], true);
    assert_eq!(s["reps"], 2);
    assert_eq!(s["threads"], 2);
    assert_eq!(s["seeds"]["base_seed"], 3);
    assert_eq!(s["seeds"]["per_setting"].as_array().unwrap().len(), 9);
    assert_eq!(
        s["seeds"]["per_setting"][0]["rep_seeds"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(s["hyperparameters"]["printed_settings_used"], false);
    assert!(s["data_note"].as_str().unwrap().contains("cells_ps.csv"));
    assert_eq!(s["real_data"]["n"], 2019);
    assert!(s["heavydp_version"].is_string());
    assert!(s["timings"]["total_seconds"].as_f64().unwrap() >= 0.0);
    // a PNG of 900 x 600 pixels
    let png = std::fs::read(a.join("hu-fig4a.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let w = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(png[20..24].try_into().unwrap());
    assert_eq!((w, h), (900, 600));
    // no temporary files left behind
    let names: Vec<String> = std::fs::read_dir(&a)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    // same seed, one thread: the same numbers
    let b = dir.path().join("b");
    run_fig4a(&b, "1");
    assert_eq!(csv, std::fs::read_to_string(b.join("results.csv")).unwrap());
}

#[test]
#[ignore = "about 10 s: a synthetic --quick panel with the non-private baseline"]
fn quick_synthetic_panel() {
    let dir = TempDir::new().unwrap();
    cli("experiment hu-fig1c --quick --reps 2 --out")
        .arg(dir.path())
        .assert()
        .success();
    let csv = std::fs::read_to_string(dir.path().join("results.csv")).unwrap();
    assert!(csv.starts_with("n,method,metric,mean,std,reps\n"));
    assert!(csv.contains("frank-wolfe (non-private)"));
    assert_eq!(csv.lines().count(), 1 + 3 * 2);
}

#[test]
fn real_benchmark_is_listed_and_checks_its_data_folder() {
    cli("experiment --list")
        .assert()
        .success()
        .stdout(predicate::str::contains("real-benchmark"));
    let dir = TempDir::new().unwrap();
    let o = dir.path().join("o");
    refused(
        cli("experiment real-benchmark --quick --data-dir")
            .arg(dir.path().join("missing"))
            .arg("--out"),
        &o,
        &["folder not found", "--data-dir"],
    );
    // a folder that is not the real sets is read generically: every table checked
    std::fs::write(dir.path().join("t.csv"), "x,z\n1,2\n").unwrap();
    refused(
        cli("experiment real-benchmark --quick --data-dir")
            .arg(dir.path())
            .arg("--out"),
        &o,
        &["t.csv", "no column named y"],
    );
    std::fs::write(dir.path().join("t.csv"), "y,z\n1,2\n").unwrap();
    refused(
        cli("experiment real-benchmark --param tables=nope --data-dir")
            .arg(dir.path())
            .arg("--out"),
        &o,
        &["unknown dataset 'nope'", "tables in"],
    );
    fails_with(
        "experiment real-benchmark --param sets=nope --out",
        &o,
        "unknown dataset 'nope'",
    );
    fails_with(
        "experiment hu-fig1a --quick --data-dir x --out",
        &o,
        "--data-dir applies only to real-benchmark",
    );
    assert!(!dir.path().join("o").exists());
}

#[test]
fn real_benchmark_runs_on_a_generic_folder_with_a_summary_over_tables() {
    // two small suite-format tables: a regression and a binary one (seeded, public)
    let dir = TempDir::new().unwrap();
    let data = dir.path().join("suite");
    std::fs::create_dir(&data).unwrap();
    let (mut reg, mut bin) = (String::from("y,x1,x2\n"), String::from("y,x1\n"));
    for i in 0..300u32 {
        let (a, b) = (((i * 37) % 101) as f64 / 10.0, ((i * 53) % 89) as f64 / 9.0);
        let noise = ((i * 71) % 13) as f64 / 13.0 - 0.5;
        reg.push_str(&format!("{},{a},{b}\n", 2.0 * a - b + noise));
        bin.push_str(&format!("{},{a}\n", u8::from(a + 3.0 * noise > 5.0)));
    }
    std::fs::write(data.join("reg_table.csv"), reg).unwrap();
    std::fs::write(data.join("bin_table.csv"), bin).unwrap();
    let out = dir.path().join("o");
    cli("experiment real-benchmark --quick --param methods=intercept-only --data-dir")
        .arg(&data)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    for f in [
        "results.csv",
        "table.md",
        "real-benchmark.png",
        "gain-vs-n.png",
        "summary.json",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let md = std::fs::read_to_string(out.join("table.md")).unwrap();
    assert!(md.contains("## Over tables"), "{md}");
    assert!(md.contains("| all | intercept-only | 1 | 1 |"), "{md}");
    assert!(
        md.contains("Design: bin_table, reg_table. Confirm: none."),
        "{md}"
    );
    assert!(!md.contains("Goals on the six real sets"), "{md}");
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let rows = s["over_tables"].as_array().unwrap();
    assert!(rows
        .iter()
        .any(|r| r["group"] == "design" && r["task"] == "binary"));
    assert_eq!(s["results"]["options"]["generic"], true);
    let sets = s["results"]["sets"].as_array().unwrap();
    let names: Vec<&str> = sets.iter().map(|x| x["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["bin_table", "reg_table"]);
    assert_eq!(sets[0]["task"], "binary");
    assert_eq!(sets[1]["task"], "regression");
}
