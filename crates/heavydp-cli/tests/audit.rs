//! `heavydp audit`: the CONTRACT's JSON report, the target list, and one-line errors.

use crate::common::*;

fn audit_json(args: &[&str]) -> serde_json::Value {
    run_json("audit", args).0
}

#[test]
fn laplace_passes_and_its_broken_twin_is_flagged() {
    let r = audit_json(&words("--target laplace --epsilon 1"));
    assert_eq!(r["target"], "laplace");
    assert_eq!(r["epsilon_claimed"], 1.0);
    assert_eq!(r["delta_claimed"], 0.0);
    assert_eq!(r["passed"], true);
    let lb = r["epsilon_lower_bound"].as_f64().unwrap();
    assert!(lb > 0.5 && lb <= 1.0, "{r}");
    assert!(r["trials"].as_u64().unwrap() >= 100_000);

    let b = audit_json(&words("--target laplace-broken --epsilon 1"));
    assert_eq!(b["target"], "laplace-broken");
    assert_eq!(b["passed"], false);
    assert!(b["epsilon_lower_bound"].as_f64().unwrap() > 1.0, "{b}");
    assert!(b["defect"].as_str().unwrap().contains("sensitivity halved"));
}

#[test]
fn flags_are_honoured_and_runs_are_reproducible() {
    let args = [
        "--target",
        "peeling-broken",
        "--epsilon",
        "0.5",
        "--delta",
        "1e-6",
        "--trials",
        "3000",
        "--seed",
        "9",
    ];
    let a = audit_json(&args);
    assert_eq!(a["epsilon_claimed"], 0.5);
    assert_eq!(a["delta_claimed"], 1e-6);
    assert_eq!(a["trials"], 3000);
    assert_eq!(a["seed"], 9);
    assert_eq!(a["passed"], false);
    assert_eq!(a, audit_json(&args));
    // an (epsilon, delta) target's default delta
    let r = audit_json(&words("--target dp-iht-l1 --epsilon 1 --trials 500"));
    assert_eq!(r["delta_claimed"], 1e-5);
    assert_eq!(r["passed"], true);
}

#[test]
fn list_names_every_target_and_its_twin() {
    let out = cli("audit --list").assert().success();
    let text = stdout_of(&out);
    // every target of the library (each private algorithm and mechanism and its broken
    // twin: heavydp's tests/audit.rs checks that list) is listed by name
    for target in heavydp::audit::targets() {
        let name = target.name();
        assert!(
            text.lines()
                .any(|l| l.split_whitespace().next() == Some(name.as_str())),
            "{name} missing"
        );
    }
    let out = cli("audit --list --json").assert().success();
    let v = stdout_json(&out);
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), heavydp::audit::targets().len());
    assert_eq!(rows.len(), 70);
    for r in rows {
        for key in [
            "name",
            "kind",
            "privacy",
            "neighbours",
            "statistic",
            "default_trials",
        ] {
            assert!(r.get(key).is_some(), "{key} missing in {r}");
        }
    }
}

fn fails(args: &[&str], msg: &str) {
    let out = heavydp().arg("audit").args(args).assert().failure();
    let o = out.get_output();
    assert!(o.stdout.is_empty(), "{args:?} printed to stdout");
    let err = String::from_utf8(o.stderr.clone()).unwrap();
    assert_eq!(
        err.trim().lines().count(),
        1,
        "{args:?}: not one line: {err}"
    );
    assert!(err.contains(msg), "{args:?}: expected '{msg}' in: {err}");
}

#[test]
fn bad_requests_fail_with_one_line_errors() {
    fails(
        &words("--target laplce --epsilon 1"),
        "unknown audit target 'laplce'",
    );
    fails(&words("--target laplace --epsilon 0"), "--epsilon");
    fails(&words("--target laplace --epsilon -1"), "--epsilon");
    fails(&words("--target laplace --epsilon inf"), "finite");
    fails(
        &words("--target laplace --epsilon abc"),
        "--epsilon must be a number",
    );
    fails(&words("--target laplace"), "missing --epsilon");
    fails(&words("--epsilon 1"), "missing --target");
    for d in ["1", "-0.1", "2"] {
        fails(
            &["--target", "laplace", "--epsilon", "1", "--delta", d],
            "--delta must be in [0, 1)",
        );
    }
    fails(
        &words("--target peeling --epsilon 1 --delta 0"),
        "needs --delta > 0",
    );
    fails(
        &words("--target laplace --epsilon 1 --trials 0"),
        "--trials must be at least 2",
    );
    fails(
        &words("--target laplace --epsilon 1 --trials -5"),
        "--trials must be a whole number",
    );
    fails(
        &words("--list --target laplace"),
        "either --list or --target",
    );
    fails(
        &words("--json --target laplace --epsilon 1"),
        "--json applies only to --list",
    );
}
