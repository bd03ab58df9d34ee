//! What released files and stderr say about privacy (docs/privacy.md, guarantees 5
//! and 6): no noise seed in a model file or `mean` output, a stderr note that a seeded
//! private release's seed must stay secret, and a warning when a non-private algorithm
//! runs with a finite --epsilon.

use crate::common::*;
use tempfile::TempDir;

/// A seed no other number in these files is likely to equal.
const SEED: &str = "918273645";

#[test]
fn no_released_file_contains_the_seed() {
    let dir = TempDir::new().unwrap();
    let data = simulate_csv(
        &dir,
        "--scenario hu-linear-lognormal --n 800 --d 3 --seed 3",
    );
    let model = p(&dir, "m.json");
    let fit = cli_with(
        "fit --algorithm clipped-gd --epsilon 1 --data {} --seed {} --out {}",
        &[&data, SEED, &model],
    )
    .assert()
    .success();
    let text = std::fs::read_to_string(&model).unwrap();
    assert!(!text.contains(SEED), "the model file holds the seed");
    assert!(
        !text.contains("\"seed\""),
        "the model file has a seed field"
    );
    assert!(stderr_of(&fit).contains("keep the seed secret"));
    let mean = p(&dir, "mean.json");
    let m = cli_with(
        "mean --estimator catoni --epsilon 1 --data {} --seed {} --out {}",
        &[&data, SEED, &mean],
    )
    .assert()
    .success();
    let text = std::fs::read_to_string(&mean).unwrap();
    assert!(!text.contains(SEED) && !text.contains("\"seed\""), "{text}");
    assert!(stderr_of(&m).contains("keep the seed secret"));
    // the non-private run: no note (nothing to keep secret), still no seed
    let inf = p(&dir, "inf.json");
    let fit = cli_with(
        "fit --algorithm clipped-gd --epsilon inf --data {} --seed {} --out {}",
        &[&data, SEED, &inf],
    )
    .assert()
    .success();
    assert!(!std::fs::read_to_string(&inf).unwrap().contains(SEED));
    assert!(!stderr_of(&fit).contains("keep the seed secret"));
    // a model file of an earlier version with a seed still loads and predicts
    let mut old: serde_json::Value = serde_json::from_str(&text_of(&model)).unwrap();
    old["seed"] = serde_json::json!(7);
    let old_path = write(&dir, "old.json", &old.to_string());
    predict(&old_path, &data).assert().success();
}

fn text_of(path: &str) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn a_non_private_algorithm_with_a_finite_epsilon_is_said_not_private() {
    let dir = TempDir::new().unwrap();
    let data = simulate_csv(
        &dir,
        "--scenario hu-linear-lognormal --n 800 --d 3 --seed 3",
    );
    let model = p(&dir, "m.json");
    let fit = cli_with(
        "fit --algorithm frank-wolfe --epsilon 1 --data {} --param bound=5 --out {}",
        &[&data, &model],
    )
    .assert()
    .success();
    assert!(
        stderr_of(&fit).contains("NOT differentially private"),
        "{}",
        stderr_of(&fit)
    );
    let m = read_json(&model);
    assert_eq!(m["privacy"]["model"], "none");
    assert!(m["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n.as_str().unwrap().contains("NOT differentially private")));
}

/// The intercept-only model of a logistic target scales nothing: with no --delta it is
/// pure, and its notes do not claim (epsilon, delta)-DP.
#[test]
fn the_intercept_only_note_reports_what_the_ledger_certifies() {
    let dir = TempDir::new().unwrap();
    let data = write(
        &dir,
        "c.csv",
        &std::iter::once("x1,y".to_string())
            .chain((0..400).map(|i| format!("{},{}", i % 7, i % 3 == 0)))
            .collect::<Vec<_>>()
            .join("\n")
            .replace("true", "1")
            .replace("false", "0"),
    );
    let model = p(&dir, "m.json");
    let fit = cli_with(
        "fit --algorithm intercept-only --loss logistic --epsilon 1 --data {} --out {}",
        &[&data, &model],
    )
    .assert()
    .success();
    let m = read_json(&model);
    assert_eq!(m["privacy"]["model"], "pure");
    assert_eq!(m["privacy"]["delta"], 0.0);
    let err = stderr_of(&fit);
    assert!(!err.contains("(epsilon, delta)-DP"), "{err}");
}
