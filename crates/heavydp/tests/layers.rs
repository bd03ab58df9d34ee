//! The library's layers point one way (`ARCHITECTURE.md`, "Layers
//! still point one way"). This test reads the `crate::…` / `super::…` paths of every
//! source file of `crates/heavydp/src` (`use` lines, grouped `use a::{b, c::d}` included,
//! and paths written inline; comments and `#[cfg(test)]` code left out) and fails on
//!
//! 1. an import from a module to one on a higher floor of [`FLOORS`];
//! 2. a circle between top-level modules (also within one floor);
//! 3. a circle between source files (a `mod.rs` declaring or re-exporting its own
//!    children is not an import).
//!
//! A new top-level module must be given its floor here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The floors of the library, top first: a module may import from its own floor (without
/// a circle) and from any floor below. `ARCHITECTURE.md`: CLI / Python → experiments,
/// audit → algorithms → preprocess → estimators, constraints → mechanisms, data, io →
/// noise → privacy; `pipeline` sits above the algorithms (with `model`,
/// the file it writes, and `describe`, the whole private mean), `preprocess` between `data` and the algorithms. `params` (the
/// `--param` plumbing and the fit error) sits on the estimators' floor, under both its
/// users; `io` (file formats) one floor above `data`, whose `Dataset` it
/// fills; `loss` and `linalg` (numerics, no privacy) at the bottom.
const FLOORS: &[&[&str]] = &[
    &["experiments", "audit"],
    &["pipeline", "describe", "model", "inference"],
    &["algorithms"],
    &["preprocess"],
    &["estimators", "params", "constraints", "io"],
    &["mechanisms", "data"],
    &["noise"],
    &["privacy"],
    &["loss", "linalg"],
];

/// The test fixtures' module: test code, on no floor.
const TEST_SUPPORT: &str = "test_support";

fn floor(module: &str) -> Option<usize> {
    // the top floor is the highest number
    FLOORS
        .iter()
        .position(|f| f.contains(&module))
        .map(|i| FLOORS.len() - i)
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a file: `src/a/b.rs` → [a, b], `src/a/mod.rs` → [a], lib.rs → [].
fn module_of(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src()).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|s| s.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|l| l == "mod" || l == "lib") {
        parts.pop();
    }
    parts
}

/// The file that defines the deepest module named by `path` (a module path from the
/// crate root followed by items), or `None` for the crate root itself.
fn resolve(path: &[String]) -> Option<PathBuf> {
    let mut dir = src();
    let mut file = None;
    for seg in path {
        let as_file = dir.join(format!("{seg}.rs"));
        let as_dir = dir.join(seg).join("mod.rs");
        if as_file.is_file() {
            file = Some(as_file);
        } else if as_dir.is_file() {
            file = Some(as_dir);
        } else {
            break;
        }
        dir = dir.join(seg);
    }
    file
}

/// Removes comments and `#[cfg(test)]` items (a `#[cfg(test)] mod x { … }` block, or the
/// one line after the attribute); returns the code and the names of test-only child
/// module files (`#[cfg(test)] mod x;`).
fn code_of(text: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut test_mods = Vec::new();
    let mut lines = text.lines().peekable();
    let strip = |l: &str| -> String {
        // cut a `//` comment that is not inside a string literal
        let mut in_str = false;
        let b = l.as_bytes();
        for i in 0..b.len() {
            if b[i] == b'"' && (i == 0 || b[i - 1] != b'\\') {
                in_str = !in_str;
            }
            if !in_str && b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
                return l[..i].to_string();
            }
        }
        l.to_string()
    };
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]" {
            let Some(next) = lines.next() else { break };
            let t = next.trim();
            if let Some(name) = t
                .strip_prefix("pub(crate) mod ")
                .or_else(|| t.strip_prefix("mod "))
                .and_then(|r| r.strip_suffix(';'))
            {
                test_mods.push(name.to_string());
            } else if t.ends_with('{') {
                let mut depth = 1i32;
                for l in lines.by_ref() {
                    let c = strip(l);
                    depth += c.matches('{').count() as i32 - c.matches('}').count() as i32;
                    if depth <= 0 {
                        break;
                    }
                }
            }
            continue;
        }
        out += &strip(line);
        out.push('\n');
    }
    (out, test_mods)
}

/// Expands a `use` tree (`a::{b, c::{d, e}}`) into its paths.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        return vec![tree.split(" as ").next().unwrap().trim().to_string()];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap()];
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, ch) in inner.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items
        .into_iter()
        .filter(|s| !s.trim().is_empty())
        .flat_map(|s| expand(s).into_iter().map(move |p| format!("{prefix}{p}")))
        .collect()
}

/// Every `crate::…`, `super::…` and `self::…` path of a file's code.
fn paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    // use statements (possibly over several lines)
    let flat: String = code.replace('\n', " ");
    let mut rest = flat.as_str();
    while let Some(i) = rest.find("use ") {
        let before = rest[..i].chars().last();
        let after = &rest[i + 4..];
        if before.is_none_or(|c| !(c.is_alphanumeric() || c == '_')) {
            if let Some(end) = after.find(';') {
                let tree = &after[..end];
                if !tree.contains('"') {
                    out.extend(expand(tree));
                }
            }
        }
        rest = after;
    }
    // paths written inline
    for start in ["crate::", "super::", "self::"] {
        let mut rest = code;
        while let Some(i) = rest.find(start) {
            let before = rest[..i].chars().last();
            let tail = &rest[i..];
            let len = tail
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(tail.len());
            if before.is_none_or(|c| !(c.is_alphanumeric() || c == '_')) {
                out.push(tail[..len].trim_end_matches(':').to_string());
            }
            rest = &rest[i + start.len()..];
        }
    }
    out
}

/// The absolute module path a `crate::` / `super::` / `self::` path names from `module`.
fn absolute(path: &str, module: &[String]) -> Option<Vec<String>> {
    let segs: Vec<&str> = path.split("::").map(str::trim).collect();
    let (mut base, mut i): (Vec<String>, usize) = match segs[0] {
        "crate" => (vec![], 1),
        "self" => (module.to_vec(), 1),
        "super" => (module.to_vec(), 0),
        _ => return None,
    };
    while i < segs.len() && segs[i] == "super" {
        base.pop()?;
        i += 1;
    }
    base.extend(segs[i..].iter().map(|s| s.to_string()));
    Some(base)
}

struct Graph {
    /// top-level module → modules it imports
    modules: BTreeMap<String, BTreeSet<String>>,
    /// source file → source files it imports (relative to src/)
    files: BTreeMap<String, BTreeSet<String>>,
    /// (from, to, the path) of every module edge, for messages
    witnesses: BTreeMap<(String, String), String>,
}

fn rel(p: &Path) -> String {
    p.strip_prefix(src()).unwrap().to_string_lossy().to_string()
}

fn graph() -> Graph {
    let mut all = Vec::new();
    rust_files(&src(), &mut all);
    all.sort();
    let mut texts = BTreeMap::new();
    let mut test_only = BTreeSet::new();
    for f in &all {
        let (code, test_mods) = code_of(&std::fs::read_to_string(f).unwrap());
        let dir = if f.file_name().unwrap() == "mod.rs" || f.file_name().unwrap() == "lib.rs" {
            f.parent().unwrap().to_path_buf()
        } else {
            f.with_extension("")
        };
        for m in test_mods {
            test_only.insert(dir.join(format!("{m}.rs")));
            test_only.insert(dir.join(&m).join("mod.rs"));
        }
        texts.insert(f.clone(), code);
    }
    // `test_support` holds the fixtures of the unit and integration tests: compiled into
    // the library (doc-hidden) so that `tests/` can reach it, but test code all the same.
    test_only.insert(src().join(format!("{TEST_SUPPORT}.rs")));
    let mut g = Graph {
        modules: BTreeMap::new(),
        files: BTreeMap::new(),
        witnesses: BTreeMap::new(),
    };
    for (f, code) in &texts {
        if test_only.contains(f) || module_of(f).is_empty() {
            continue; // test-only files; lib.rs (the crate root declares every module)
        }
        let module = module_of(f);
        let is_mod = f.file_name().unwrap() == "mod.rs";
        for p in paths(code) {
            let Some(abs) = absolute(&p, &module) else {
                continue;
            };
            let Some(target) = resolve(&abs) else {
                continue;
            };
            if &target == f || test_only.contains(&target) {
                continue;
            }
            let (from_top, to_top) = (module[0].clone(), module_of(&target)[0].clone());
            if from_top != to_top {
                g.modules
                    .entry(from_top.clone())
                    .or_default()
                    .insert(to_top.clone());
                g.witnesses
                    .entry((from_top, to_top))
                    .or_insert_with(|| format!("{}: {p}", rel(f)));
            }
            // a module file declaring / re-exporting its own descendants is not an import
            let tm = module_of(&target);
            let descendant = is_mod && tm.len() > module.len() && tm.starts_with(&module);
            if !descendant {
                g.files.entry(rel(f)).or_default().insert(rel(&target));
            }
        }
    }
    g
}

/// A circle of `edges`, if there is one (depth-first search).
fn circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in edges.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let i = stack.iter().position(|s| s == m).unwrap();
                    let mut c = stack[i..].to_vec();
                    c.push(m.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(m, edges, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in edges.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(n, edges, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn imports_point_down_the_floors_and_never_in_a_circle() {
    let g = graph();
    // the reader works: known downward imports are seen
    for (a, b) in [
        ("algorithms", "privacy"),
        ("pipeline", "preprocess"),
        ("estimators", "mechanisms"),
    ] {
        assert!(
            g.modules.get(a).is_some_and(|s| s.contains(b)),
            "{a} -> {b} not seen"
        );
    }
    let mut problems = Vec::new();
    let mut tops = BTreeSet::new();
    for f in {
        let mut v = Vec::new();
        rust_files(&src(), &mut v);
        v
    } {
        if let Some(t) = module_of(&f).first().filter(|t| *t != TEST_SUPPORT) {
            tops.insert(t.clone());
        }
    }
    for t in &tops {
        if floor(t).is_none() {
            problems.push(format!("module '{t}' has no floor in tests/layers.rs"));
        }
    }
    for (from, tos) in &g.modules {
        for to in tos {
            if let (Some(a), Some(b)) = (floor(from), floor(to)) {
                if b > a {
                    problems.push(format!(
                        "{from} (floor {a}) imports {to} (floor {b}), a higher floor: {}",
                        g.witnesses[&(from.clone(), to.clone())]
                    ));
                }
            }
        }
    }
    if let Some(c) = circle(&g.modules) {
        problems.push(format!("a circle of modules: {}", c.join(" -> ")));
    }
    if let Some(c) = circle(&g.files) {
        problems.push(format!("a circle of files: {}", c.join(" -> ")));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_reader_expands_grouped_uses_and_finds_circles() {
    assert_eq!(
        expand("super::{thin, Axis, tian::{ids, plan as p}}"),
        vec![
            "super::thin",
            "super::Axis",
            "super::tian::ids",
            "super::tian::plan"
        ]
    );
    let (code, tests) = code_of(
        "use crate::a::B; // crate::c\n#[cfg(test)]\nmod t {\n    use crate::d;\n}\n#[cfg(test)]\nmod x;\nfn f() { crate::e::g(); }\n",
    );
    let mut p = paths(&code);
    p.sort();
    p.dedup();
    assert_eq!(p, vec!["crate::a::B", "crate::e::g"]);
    assert_eq!(tests, vec!["x"]);
    let m = ["experiments".to_string(), "tian".to_string()];
    assert_eq!(
        absolute("super::registry::thin", &m),
        Some(vec!["experiments".into(), "registry".into(), "thin".into()])
    );
    let mut e: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    e.entry("a".into()).or_default().insert("b".into());
    assert!(circle(&e).is_none());
    e.entry("b".into()).or_default().insert("a".into());
    assert_eq!(circle(&e), Some(vec!["a".into(), "b".into(), "a".into()]));
}

/// The paper → algorithm map is written in three places a reader meets (the README, the
/// crate docs of `lib.rs`, `docs/papers.md`); each must name every algorithm of the
/// catalogue by its CLI name, so that a new algorithm cannot be left out of one of them.
#[test]
fn every_paper_map_names_every_algorithm() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let maps = [
        ("README.md", root.join("README.md")),
        ("crates/heavydp/src/lib.rs", src().join("lib.rs")),
        ("docs/papers.md", root.join("docs/papers.md")),
    ];
    let mut missing = Vec::new();
    for (label, path) in &maps {
        let text = std::fs::read_to_string(path).unwrap();
        for a in heavydp::algorithms::catalogue() {
            if !text.contains(&format!("`{}`", a.name)) {
                missing.push(format!("{label}: `{}`", a.name));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "paper maps without these algorithms: {missing:?}"
    );
}

/// Each crate's integration tests are one binary (`tests/main.rs`, `autotests = false`):
/// a `tests/*.rs` file that `main.rs` does not declare as a module would never be
/// compiled or run.
#[test]
fn every_test_file_is_a_module() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut missing = Vec::new();
    for krate in ["heavydp", "heavydp-cli"] {
        let dir = root.join(krate).join("tests");
        let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let stem = p.file_stem().unwrap().to_string_lossy().to_string();
            let is_module = p.extension().is_some_and(|x| x == "rs")
                || (p.is_dir() && p.join("mod.rs").exists());
            if is_module && stem != "main" && !main.contains(&format!("mod {stem};")) {
                missing.push(format!("{krate}/tests/{stem}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "test files not declared in their crate's tests/main.rs: {missing:?}"
    );
}
