//! Every algorithm of the registry (`heavydp::algorithms::REGISTRY`) has all the parts of
//! its descriptor outside its own files: an audit row, its `audit_suite!` line and a
//! budget-test arm (for a private algorithm), a row in each paper map (README, `docs/papers.md`,
//! `lib.rs`, the table of `algorithms/mod.rs`), and the capabilities the pipeline, the
//! inference module and the listing report are the descriptor's. What to touch when
//! adding one: `docs/adding-an-algorithm.md`.

use heavydp::algorithms::{catalogue, REGISTRY};
use heavydp::audit::targets::algorithm_targets;
use heavydp::pipeline;

/// A file of the workspace, read at compile time (a change rebuilds this test).
const README: &str = include_str!("../../../README.md");
const PAPERS: &str = include_str!("../../../docs/papers.md");
const LIB: &str = include_str!("../src/lib.rs");
const ALGORITHMS_MOD: &str = include_str!("../src/algorithms/mod.rs");
const AUDIT_SUITE: &str = include_str!("audit.rs");
const BUDGET_TEST: &str = include_str!("budget_spent.rs");
const ADDING: &str = include_str!("../../../docs/adding-an-algorithm.md");

#[test]
fn every_registered_algorithm_has_every_part_of_its_descriptor() {
    let audited: Vec<&str> = algorithm_targets().iter().map(|t| t.pinned.name).collect();
    let mut missing = Vec::new();
    for a in REGISTRY {
        let name = a.name;
        let info = (a.info)();
        let quoted = format!("\"{name}\"");
        let cell = format!("| `{name}` |");
        let private = info.privacy != "none";
        let mut need = |ok: bool, part: &str| {
            if !ok {
                missing.push(format!("{name}: {part}"));
            }
        };
        need(
            !private || audited.contains(&name),
            "an audit row (audit/targets.rs, algorithm_targets)",
        );
        need(
            !private || AUDIT_SUITE.contains(&format!("=> {quoted}")),
            "a line of audit_suite! (tests/audit.rs)",
        );
        need(
            !private || BUDGET_TEST.contains(&quoted),
            "a setup arm of tests/budget_spent.rs",
        );
        need(
            PAPERS.contains(&format!("`{name}`")),
            "a row of docs/papers.md",
        );
        need(
            README.contains(&format!("`{name}`")),
            "a row of the README's paper table",
        );
        need(LIB.contains(&cell), "a row of lib.rs's paper map");
        need(
            ALGORITHMS_MOD.contains(&cell),
            "a row of the table of algorithms/mod.rs",
        );
        need(
            !info.use_when.is_empty() && !info.paper.is_empty(),
            "a paper and a use-when text in its documentation row",
        );
    }
    assert!(missing.is_empty(), "missing parts:\n{}", missing.join("\n"));
}

#[test]
fn capabilities_reported_elsewhere_are_the_descriptors() {
    for a in REGISTRY {
        assert_eq!(
            heavydp::inference::supports(a.name),
            a.intervals,
            "{}: intervals",
            a.name
        );
        assert_eq!(
            pipeline::DISTRIBUTED_ALGORITHMS.contains(&a.name),
            a.distributed,
            "{}: distributed",
            a.name
        );
    }
    // the listing: the registry in order, then the two choices with their rule
    let listing = pipeline::algorithms_listing();
    let entries = listing.as_array().unwrap();
    let names: Vec<&str> = entries
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    let mut expected: Vec<&str> = REGISTRY.iter().map(|a| a.name).collect();
    expected.extend(["auto", pipeline::INTERCEPT_ONLY]);
    assert_eq!(names, expected);
    assert_eq!(catalogue().len() + 2, entries.len());
    let keys = |e: &serde_json::Value| {
        let mut k: Vec<String> = e.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    for (e, a) in entries.iter().zip(REGISTRY) {
        assert_eq!(keys(e), keys(&entries[0]), "{}", a.name);
        assert_eq!(e["distributed"], a.distributed);
        assert_eq!(e["intervals"], a.intervals);
        assert!(e["rule"].is_null());
    }
    for e in &entries[REGISTRY.len()..] {
        assert_eq!(keys(e), keys(&entries[0]));
        assert!(e["rule"].as_str().unwrap().len() > 40);
    }
    assert_eq!(entries[REGISTRY.len()]["rule"], pipeline::AUTO_RULE);
}

#[test]
fn the_guide_to_adding_an_algorithm_names_the_parts_this_test_checks() {
    for part in [
        "REGISTRY",
        "AlgorithmDescriptor",
        "audit/targets.rs",
        "audit_suite!",
        "tests/budget_spent.rs",
        "docs/papers.md",
        "lib.rs",
        "README.md",
    ] {
        assert!(ADDING.contains(part), "docs/adding-an-algorithm.md: {part}");
    }
}
