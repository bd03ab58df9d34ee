//! Every algorithm of the registry (`heavydp::algorithms::REGISTRY`) has all the parts of
//! its descriptor outside its own files: an audit row and a budget-test arm (for a
//! private algorithm), a complete citation, from which the paper → algorithm maps (README,
//! `docs/papers.md`, the crate docs of `lib.rs`) are generated, and the capabilities the
//! pipeline, the inference module and the listing report are the descriptor's. What to
//! touch when adding one: `docs/adding-an-algorithm.md`.

use heavydp::algorithms::{catalogue, AlgorithmDescriptor, REGISTRY};
use heavydp::audit::targets::algorithm_targets;
use heavydp::pipeline;
use std::path::PathBuf;

/// A file of the workspace, read at compile time (a change rebuilds this test).
const BUDGET_TEST: &str = include_str!("budget_spent.rs");
const ADDING: &str = include_str!("../../../docs/adding-an-algorithm.md");

/// The command that rewrites the generated paper maps.
const REGENERATE: &str = "HEAVYDP_BLESS=1 cargo test --workspace --test integration -- registry::";

#[test]
fn every_registered_algorithm_has_every_part_of_its_descriptor() {
    let audited: Vec<&str> = algorithm_targets().iter().map(|t| t.pinned.name).collect();
    let mut missing = Vec::new();
    for a in REGISTRY {
        let name = a.name;
        let info = (a.info)();
        let quoted = format!("\"{name}\"");
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
            !private || BUDGET_TEST.contains(&quoted),
            "a setup arm of tests/budget_spent.rs",
        );
        need(
            a.citation.is_complete(),
            "a complete citation (AlgorithmDescriptor::cited: authors, item, summary, rust, spec)",
        );
        need(
            !info.use_when.is_empty() && !info.paper.is_empty(),
            "a paper and a use-when text in its documentation row",
        );
    }
    assert!(missing.is_empty(), "missing parts:\n{}", missing.join("\n"));
}

// ------------------------------------------------------------------ the paper maps

/// The first line of a generated paper map.
const BEGIN: &str = "<!-- paper map: generated from the algorithm registry; regenerate with HEAVYDP_BLESS=1 cargo test --workspace --test integration -- registry:: -->";
/// Its last line.
const END: &str = "<!-- end of the generated paper map -->";

fn privacy(a: &AlgorithmDescriptor) -> &'static str {
    (a.info)().privacy
}

/// The README's map: the title on the first row of each paper, "— item" on the next.
fn readme_map() -> String {
    let mut out =
        String::from("| paper | algorithm | `--algorithm` | privacy |\n|---|---|---|---|\n");
    let mut previous = None;
    for a in REGISTRY {
        let c = &a.citation;
        let paper = if previous == Some((c.authors, c.title)) {
            format!("— {}", c.item)
        } else if c.title.is_empty() {
            format!("{} — {}", c.authors, c.item)
        } else {
            format!("{}, {} — {}", c.authors, c.title, c.item)
        };
        previous = Some((c.authors, c.title));
        out += &format!(
            "| {paper} | {} | `{}` | {} |\n",
            c.summary,
            a.name,
            privacy(a)
        );
    }
    out
}

/// `docs/papers.md`'s map: the Rust type and the spec section of each algorithm.
fn papers_map() -> String {
    let mut out = String::from(
        "| paper | algorithm | Rust type | CLI name | spec section |\n|---|---|---|---|---|\n",
    );
    for a in REGISTRY {
        let c = &a.citation;
        out += &format!(
            "| {} | {}: {} | `algorithms::{}` | `{}` | {} |\n",
            c.authors, c.item, c.summary, c.rust, a.name, c.spec
        );
    }
    out
}

/// The crate docs' map (`lib.rs`), linking each Rust type (`cargo doc` checks the links).
fn lib_map() -> String {
    let mut out = String::from(
        "| paper | algorithm | CLI name | privacy | Rust type |\n|---|---|---|---|---|\n",
    );
    for a in REGISTRY {
        let c = &a.citation;
        out += &format!(
            "| {}, {} | {} | `{}` | {} | [`algorithms::{}`] |\n",
            c.authors,
            c.item,
            c.summary,
            a.name,
            privacy(a),
            c.rust
        );
    }
    out
}

/// `text` with its generated region (between [`BEGIN`] and [`END`], each on a line of
/// its own after `prefix`) replaced by `map`; `None` when the markers are missing.
fn with_map(text: &str, prefix: &str, map: &str) -> Option<String> {
    let begin = text.find(&format!("{prefix}{BEGIN}\n"))? + prefix.len() + BEGIN.len() + 1;
    let end = begin + text[begin..].find(&format!("{prefix}{END}\n"))?;
    let body: String = map
        .lines()
        .map(|l| format!("{prefix}{l}\n").replace(" \n", "\n"))
        .collect();
    Some(format!("{}{body}{}", &text[..begin], &text[end..]))
}

/// The README, `docs/papers.md` and the crate docs carry the paper → algorithm map
/// generated from the registry's citations; `HEAVYDP_BLESS=1` rewrites them.
#[test]
fn the_paper_maps_are_generated_from_the_registry() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let files = [
        ("README.md", "", readme_map()),
        ("docs/papers.md", "", papers_map()),
        ("crates/heavydp/src/lib.rs", "//! ", lib_map()),
    ];
    let bless = std::env::var_os("HEAVYDP_BLESS").is_some();
    let mut stale = Vec::new();
    for (file, prefix, map) in files {
        let path = root.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let Some(generated) = with_map(&text, prefix, &map) else {
            panic!("{file}: no line `{prefix}{BEGIN}` followed by a line `{prefix}{END}`");
        };
        if generated != text {
            if bless {
                std::fs::write(&path, generated).unwrap();
            } else {
                stale.push(file);
            }
        }
    }
    assert!(
        stale.is_empty(),
        "the paper maps of {stale:?} are not the registry's; regenerate them with\n    {REGENERATE}"
    );
}

#[test]
fn the_map_of_one_paper_shows_its_title_once() {
    let map = readme_map();
    assert_eq!(
        map.matches("*Private ERM beyond the worst case*").count(),
        1
    );
    assert!(map.contains("| — Alg. 4 | private Frank–Wolfe over a polytope"));
    assert_eq!(map.lines().count(), REGISTRY.len() + 2);
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
        // the pipeline sets intercept=fit for these: they must accept it
        if a.joint_logistic_intercept {
            assert!(
                a.accepted_keys().contains(&"intercept"),
                "{}: joint logistic intercept without an intercept parameter",
                a.name
            );
        }
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
        "with_algorithm_registry!",
        "Citation",
        "tests/budget_spent.rs",
        "docs/papers.md",
        "lib.rs",
        "README.md",
        REGENERATE,
    ] {
        assert!(ADDING.contains(part), "docs/adding-an-algorithm.md: {part}");
    }
}
