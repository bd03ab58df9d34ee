//! `real-benchmark --quick` end to end on the project's copies of the real datasets
//! (`data/real/`): the table's structure, the floors beating the constant on every split,
//! the CSV layout, and results that do not depend on the number of threads.

use heavydp::experiments::benchmark::{self, BenchOptions, BenchResults, Task};
use heavydp::test_support::on_threads;
use std::path::PathBuf;

fn project_data() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/real"))
}

fn run(threads: usize) -> BenchResults {
    let mut opts = BenchOptions::new(true, 1);
    let dir = benchmark::data_dir(Some(&project_data())).unwrap();
    opts.resolve(&dir).unwrap();
    assert!(
        !opts.generic,
        "the project's data/real holds the six real sets"
    );
    on_threads(threads, || benchmark::run_benchmark(&opts, &dir, &|_| {})).unwrap()
}

#[test]
fn quick_benchmark_table_floors_and_thread_invariance() {
    let t0 = std::time::Instant::now();
    let r = run(2);
    assert!(
        t0.elapsed().as_secs() < 120,
        "--quick must finish in under two minutes"
    );
    let names: Vec<&str> = r.sets.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["cps1988_wage", "cells_ps", "pd_speech_pd"]);
    assert_eq!(r.options.splits, 2);
    assert_eq!(r.options.epsilons, vec![1.0]);

    for info in &r.sets {
        let err = if info.task == Task::Regression {
            "mse"
        } else {
            "log_loss"
        };
        let c = r.row(&info.name, 1.0, "constant", err).unwrap();
        let f = r.row(&info.name, 1.0, "floor", err).unwrap();
        assert_eq!((c.summary.reps, f.summary.reps), (2, 2), "{}", info.name);
        for (cv, fv) in c.summary.values.iter().zip(&f.summary.values) {
            assert!(
                fv < cv,
                "{}: floor {fv} does not beat the constant {cv}",
                info.name
            );
        }
        // the floor keeps all of its own gain, the constant none
        let g = r.row(&info.name, 1.0, "floor", "gain_kept").unwrap();
        assert!(g.summary.values.iter().all(|v| (v - 1.0).abs() < 1e-12));
        let g = r.row(&info.name, 1.0, "constant", "gain_kept").unwrap();
        assert!(g.summary.values.iter().all(|v| v.abs() < 1e-12));
        // auto and the intercept-only model ran on every split
        for m in ["auto", "intercept-only"] {
            let row = r.row(&info.name, 1.0, m, err);
            assert_eq!(row.map(|x| x.summary.reps), Some(2), "{}: {m}", info.name);
        }
        assert!(info.auto_choice.contains_key("1"), "{}", info.name);
        if info.task == Task::Binary {
            let auc = r.row(&info.name, 1.0, "floor", "auc").unwrap();
            assert!(
                auc.summary.mean > 0.6,
                "{}: floor AUC {}",
                info.name,
                auc.summary.mean
            );
            let auc = r.row(&info.name, 1.0, "constant", "auc").unwrap();
            assert_eq!(auc.summary.mean, 0.5);
        }
        // public shapes
        assert_eq!(info.n_train + info.n_test, info.n);
    }
    // pd_speech: d > n, so auto must take the private intercept-only model
    let pd = r.sets.iter().find(|s| s.name == "pd_speech_pd").unwrap();
    assert_eq!(pd.auto_choice["1"], "intercept-only");
    assert_eq!(pd.floor, "logistic-cv");

    // table.md
    let md = benchmark::table_markdown(&r);
    for h in [
        "# real-benchmark (--quick)",
        "## Summary",
        "## AUC (binary sets)",
        "## Goals on the six real sets",
        "## Over tables",
        "| all | auto | 1 | 1 |",
        "## Every method: gain kept",
        "| cps1988_wage (4000, 8) | 1 |",
        "| cells_ps (2019, 56) | 1 |",
        "| pd_speech_pd (252, 751) | 1 |",
    ] {
        assert!(md.contains(h), "table.md lacks '{h}':\n{md}");
    }
    let summary_rows = md
        .split("## Summary")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .nth(1)
        .unwrap()
        .lines()
        .count();
    assert_eq!(summary_rows, 2 + 3, "header, rule and one row per dataset");

    // results.csv
    let csv = benchmark::results_csv(&r);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "dataset,task,n,d,epsilon,method,metric,mean,std,reps"
    );
    for l in lines {
        assert_eq!(l.split(',').count(), 10, "{l}");
    }
    assert!(csv.contains("cells_ps,binary,2019,56,inf,floor,auc,"));

    // same numbers with one thread (timings aside)
    let r1 = run(1);
    let strip = |r: &BenchResults| {
        r.rows
            .iter()
            .filter(|x| x.metric != "seconds")
            .map(|x| {
                (
                    x.dataset.clone(),
                    x.method.clone(),
                    x.metric.clone(),
                    x.summary.values.clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&r), strip(&r1));
}
