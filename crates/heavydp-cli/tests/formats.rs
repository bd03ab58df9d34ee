//! Input formats end to end: `heavydp simulate --out` writes CSV,
//! Parquet, Arrow IPC and `.npy` of the same data, and `fit`, `predict`, `evaluate` and
//! `mean` give bit-identical output on each of them (model files, predictions, metrics,
//! means), as the readers fill the same matrix.

use crate::common::*;
use tempfile::TempDir;

const FORMATS: [&str; 5] = ["csv", "parquet", "arrow", "feather", "npy"];

fn out(a: &assert_cmd::assert::Assert) -> String {
    stdout_of(a)
}

#[test]
fn each_format_round_trips_simulate_to_fit_predict_evaluate_and_mean() {
    let dir = TempDir::new().unwrap();
    for e in FORMATS {
        cli(&format!(
            "simulate --scenario hu-linear-lognormal --n 3000 --d 8 --seed 4 --out {}",
            p(&dir, &format!("d.{e}"))
        ))
        .assert()
        .success();
    }
    let run = |args: String| out(&cli(&args).assert().success());
    let mut seen: Vec<(String, [String; 4])> = Vec::new();
    for e in FORMATS {
        let data = p(&dir, &format!("d.{e}"));
        let model = p(&dir, &format!("m-{e}.json"));
        cli(&format!(
            "fit --algorithm ht-frank-wolfe --epsilon 1 --seed 9 --data {data} --out {model}"
        ))
        .assert()
        .success();
        let text = std::fs::read_to_string(&model).unwrap();
        let results = [
            text,
            run(format!("predict --model {model} --data {data}")),
            run(format!("evaluate --model {model} --data {data}")),
            run(format!(
                "mean --estimator catoni --epsilon 1 --seed 2 --columns x3,y --data {data}"
            )),
        ];
        assert!(results[0].contains("\"weights\""), "{e}");
        if let Some((first, want)) = seen.first() {
            for (what, (a, b)) in ["model", "predictions", "metrics", "mean"]
                .iter()
                .zip(want.iter().zip(&results))
            {
                assert_eq!(a, b, "{what}: {first} and {e} differ");
            }
        }
        seen.push((e.to_string(), results));
    }
    // the model of one format predicts on data of another: names, not positions, count
    let a = run(format!(
        "predict --model {} --data {}",
        p(&dir, "m-npy.json"),
        p(&dir, "d.parquet")
    ));
    assert_eq!(a, seen[0].1[1]);
}

#[test]
fn npy_columns_come_from_the_sidecar_when_there_is_one() {
    let dir = TempDir::new().unwrap();
    let data = p(&dir, "d.npy");
    cli(&format!(
        "simulate --scenario hu-linear-lognormal --n 500 --d 3 --seed 4 --out {data}"
    ))
    .assert()
    .success();
    let mean = |cols: &str| {
        out(&cli(&format!(
            "mean --estimator catoni --epsilon inf --columns {cols} --data {data}"
        ))
        .assert()
        .success())
    };
    let before = mean("x1,y");
    write(&dir, "d.npy.columns", "a,b,c,target\n");
    let after = mean("a,target");
    let num = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap()["mean"].clone();
    assert_eq!(num(&before), num(&after));
    let a = cli(&format!(
        "fit --algorithm ht-frank-wolfe --epsilon 1 --data {data}"
    ))
    .assert()
    .code(2);
    assert!(stderr_of(&a).contains("target column 'y' is not in the header"));
}
