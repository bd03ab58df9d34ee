//! Shared helpers of the CLI's integration tests (modules of `tests/main.rs`); not every
//! helper is used by the tests of every configuration, hence the `allow(dead_code)`.
#![allow(dead_code)]

use assert_cmd::assert::Assert;
use assert_cmd::Command;
use tempfile::TempDir;

/// The `heavydp` binary under test.
pub fn heavydp() -> Command {
    Command::cargo_bin("heavydp").unwrap()
}

/// `text` split at white space: an argument list written as one line (no argument of
/// these tests contains a space).
pub fn words(text: &str) -> Vec<&str> {
    text.split_whitespace().collect()
}

/// The binary with the arguments `words(text)`.
pub fn cli(text: &str) -> Command {
    let mut c = heavydp();
    c.args(words(text));
    c
}

/// The binary with the arguments `argv(template, values)`: `cli` for a command line that
/// names paths.
pub fn cli_with(template: &str, values: &[&str]) -> Command {
    let mut c = heavydp();
    c.args(argv(template, values));
    c
}

/// The path of `name` inside `dir`, as a string for the command line.
pub fn p(dir: &TempDir, name: &str) -> String {
    dir.path().join(name).to_str().unwrap().to_string()
}

/// Writes `text` to `name` inside `dir`; returns the path.
pub fn write(dir: &TempDir, name: &str, text: &str) -> String {
    let path = p(dir, name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The JSON file at `path`.
pub fn read_json(path: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `heavydp SUBCOMMAND ARGS`, which must succeed: its standard output as JSON and its
/// standard error.
pub fn run_json(subcommand: &str, args: &[&str]) -> (serde_json::Value, String) {
    let a = heavydp().arg(subcommand).args(args).assert().success();
    (stdout_json(&a), stderr_of(&a))
}

/// The names of the phases of a model file's privacy ledger, in order.
pub fn phase_names(model: &serde_json::Value) -> Vec<&str> {
    model["privacy"]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect()
}

/// `heavydp simulate <args> --out dir/data.csv`, which must succeed; returns the path.
pub fn simulate_csv(dir: &TempDir, args: &str) -> String {
    let out = p(dir, "data.csv");
    cli(&format!("simulate {args}"))
        .args(["--out", &out])
        .assert()
        .success();
    out
}

/// `heavydp predict --model MODEL --data DATA`, ready for more arguments or to run.
pub fn predict(model: &str, data: &str) -> Command {
    let mut c = heavydp();
    c.args(["predict", "--model", model, "--data", data]);
    c
}

/// The standard error of a finished run, as text.
pub fn stderr_of(a: &Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stderr).into_owned()
}

/// The standard output of a finished run, as text.
pub fn stdout_of(a: &Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stdout).into_owned()
}

/// The standard output of a finished run, parsed as JSON (panics if it is not JSON).
pub fn stdout_json(a: &Assert) -> serde_json::Value {
    serde_json::from_slice(&a.get_output().stdout).unwrap()
}

/// An argument list written as one line: `template` split at white space, each `{}`
/// replaced by the next of `values`, kept whole (a path may contain spaces).
pub fn argv<'a>(template: &'a str, values: &[&'a str]) -> Vec<&'a str> {
    let mut values = values.iter();
    let out: Vec<&str> = template
        .split_whitespace()
        .map(|w| match w {
            "{}" => *values.next().expect("fewer values than {} in the template"),
            _ => w,
        })
        .collect();
    assert!(
        values.next().is_none(),
        "more values than {{}} in the template"
    );
    out
}

/// The two files hold the same bytes: a rerun with the same seed reproduced `what`.
pub fn assert_reproduced(first: &str, again: &str, what: &str) {
    assert_eq!(
        std::fs::read(first).unwrap(),
        std::fs::read(again).unwrap(),
        "{what} is not reproducible"
    );
}
