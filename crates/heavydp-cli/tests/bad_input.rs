//! Every class of bad input the command line meets, each with the
//! message it gives. Every case must fail with exit status 2, one line `error: …` on
//! stderr, nothing on stdout and no output file; a message never contains a data value
//! (each bad file carries the marker value 12345.678, which must not appear).
//!
//! The Markdown table of the cases lives in `docs/reliability.md` between the markers
//! `<!-- bad-input-table:begin -->` / `<!-- bad-input-table:end -->`; the test fails when
//! the file differs from the generated table, and rewrites it when run with
//! `HEAVYDP_UPDATE_DOCS=1`.

use assert_cmd::Command;
use heavydp::test_support::{arrow_bytes, npy_header, parquet_bytes};
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// A good data file (the marker value appears in it, and must never appear in a message).
const GOOD: &str = "x1,x2,y\n1,2,3\n4,5,6\n7,8,9.5\n1,12345.678,2\n";

/// One case: the class of bad input, the files it needs (name, bytes), the command
/// (`{dir}` is the temporary folder), and a part of the message it must give.
struct Case {
    class: &'static str,
    files: Vec<(&'static str, Vec<u8>)>,
    args: &'static str,
    expect: &'static str,
}

fn case(
    class: &'static str,
    file: Option<(&'static str, &str)>,
    args: &'static str,
    expect: &'static str,
) -> Case {
    Case {
        class,
        files: file
            .map(|(n, t)| vec![(n, t.as_bytes().to_vec())])
            .unwrap_or_default(),
        args,
        expect,
    }
}

const FIT: &str =
    "fit --algorithm dp-frank-wolfe --epsilon 1 --delta 1e-5 --param bound=2 --seed 1";

fn cases() -> Vec<Case> {
    let fit = |f: &str| format!("{FIT} --data {{dir}}/{f} --out {{dir}}/out.json");
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let mut v = vec![
        // ---- data files
        case("ragged row (too few fields)", Some(("d.csv", "x1,x2,y\n1,2,3\n4,5\n")), leak(fit("d.csv")), "data row 2 has 2 fields"),
        case("ragged row (too many fields)", Some(("d.csv", "x1,x2,y\n1,2,3\n4,5,6,12345.678\n")), leak(fit("d.csv")), "data row 2 has 4 fields"),
        case("NaN cell", Some(("d.csv", "x1,x2,y\n12345.678,2,3\n1,NaN,3\n")), leak(fit("d.csv")), "NaN or infinite"),
        case("infinite cell", Some(("d.csv", "x1,x2,y\n12345.678,2,inf\n")), leak(fit("d.csv")), "NaN or infinite"),
        case("overflowing number (1e999)", Some(("d.csv", "x1,x2,y\n12345.678,2,1e999\n")), leak(fit("d.csv")), "NaN or infinite"),
        case("text cell", Some(("d.csv", "x1,x2,y\n12345.678,2,3\n4,12345.678x,6\n")), leak(fit("d.csv")), "not a number"),
        case("empty cell", Some(("d.csv", "x1,x2,y\n12345.678,,3\n")), leak(fit("d.csv")), "not a number"),
        case("decimal comma", Some(("d.csv", "x1,x2,y\n\"12345,678\",2,3\n")), leak(fit("d.csv")), "not a number"),
        case("empty file", Some(("d.csv", "")), leak(fit("d.csv")), "the file is empty"),
        case("header only", Some(("d.csv", "x1,x2,y\n")), leak(fit("d.csv")), "header but no data rows"),
        case("empty column name", Some(("d.csv", "x1,,y\n1,2,3\n")), leak(fit("d.csv")), "header column 2 is empty"),
        case("duplicate column", Some(("d.csv", "x1,x1,y\n1,2,3\n")), leak(fit("d.csv")), "appears more than once"),
        case("target column missing", Some(("d.csv", "x1,x2,z\n1,2,3\n")), leak(fit("d.csv")), "target column 'y' is not in the header"),
        case("no feature column", Some(("d.csv", "y\n1\n")), leak(fit("d.csv")), "no feature columns"),
        case("semicolon-separated file", Some(("d.csv", "x1;x2;y\n1;2;3\n")), leak(fit("d.csv")), "the delimiter looks wrong"),
        case("tab-separated file", Some(("d.csv", "x1\tx2\ty\n1\t2\t3\n")), leak(fit("d.csv")), "the delimiter looks wrong"),
        case("unterminated quote", Some(("d.csv", "x1,x2,y\n1,\"2,3\n")), leak(fit("d.csv")), "data row 1 has 2 fields"),
        case("missing data file", None, leak(fit("missing.csv")), "cannot read the file"),
        case("data path is a folder", None, leak(format!("{FIT} --data {{dir}} --out {{dir}}/out.json")), "cannot read the file"),
        case("logistic labels not 0/1 or -1/+1", Some(("d.csv", "x1,x2,y\n1,2,0\n4,5,1\n7,8,12345.678\n")), "fit --algorithm dp-frank-wolfe --loss logistic --epsilon 1 --delta 1e-5 --param bound=2 --seed 1 --data {dir}/d.csv --out {dir}/out.json", "the target column holds another value"),
        // ---- flags
        case("epsilon 0", Some(("d.csv", GOOD)), "fit --algorithm ht-frank-wolfe --epsilon 0 --data {dir}/d.csv --out {dir}/out.json", "epsilon"),
        case("epsilon negative", Some(("d.csv", GOOD)), "fit --algorithm ht-frank-wolfe --epsilon -1 --data {dir}/d.csv --out {dir}/out.json", "epsilon"),
        case("epsilon NaN", Some(("d.csv", GOOD)), "fit --algorithm ht-frank-wolfe --epsilon NaN --data {dir}/d.csv --out {dir}/out.json", "epsilon"),
        case("epsilon not a number", Some(("d.csv", GOOD)), "fit --algorithm ht-frank-wolfe --epsilon one --data {dir}/d.csv --out {dir}/out.json", "--epsilon must be a number"),
        case("delta 1", Some(("d.csv", GOOD)), "fit --algorithm dp-frank-wolfe --epsilon 1 --delta 1 --param bound=2 --data {dir}/d.csv --out {dir}/out.json", "delta"),
        case("delta negative", Some(("d.csv", GOOD)), "fit --algorithm dp-frank-wolfe --epsilon 1 --delta -0.1 --param bound=2 --data {dir}/d.csv --out {dir}/out.json", "delta"),
        case("delta 0 for an (epsilon, delta) algorithm", Some(("d.csv", GOOD)), "fit --algorithm dp-frank-wolfe --epsilon 1 --delta 0 --param bound=2 --data {dir}/d.csv --out {dir}/out.json", "needs delta > 0"),
        case("sparsity 0", Some(("d.csv", GOOD)), "fit --algorithm ht-sparse-linreg --epsilon 1 --delta 1e-5 --sparsity 0 --data {dir}/d.csv --out {dir}/out.json", "sparsity"),
        case("sparsity > d", Some(("d.csv", GOOD)), "fit --algorithm ht-sparse-linreg --epsilon 1 --delta 1e-5 --sparsity 9 --data {dir}/d.csv --out {dir}/out.json", "sparsity"),
        case("unknown algorithm", Some(("d.csv", GOOD)), "fit --algorithm sgd --epsilon 1 --data {dir}/d.csv --out {dir}/out.json", "unknown algorithm 'sgd'"),
        case("unknown loss", Some(("d.csv", GOOD)), "fit --algorithm ht-frank-wolfe --loss hinge --epsilon 1 --data {dir}/d.csv --out {dir}/out.json", "hinge"),
        case("unknown domain", Some(("d.csv", GOOD)), "fit --algorithm ht-frank-wolfe --domain cube --epsilon 1 --data {dir}/d.csv --out {dir}/out.json", "cube"),
        case("loss the algorithm does not support", Some(("d.csv", "x1,x2,y\n1,2,0\n4,5,1\n")), "fit --algorithm ht-lasso --loss logistic --epsilon 1 --delta 1e-5 --data {dir}/d.csv --out {dir}/out.json", "logistic"),
        case("unknown parameter", Some(("d.csv", GOOD)), "fit --algorithm ht-frank-wolfe --epsilon 1 --param foo=1 --data {dir}/d.csv --out {dir}/out.json", "unknown parameter 'foo'"),
        case("parameter out of range", Some(("d.csv", GOOD)), "fit --algorithm ht-frank-wolfe --epsilon 1 --param T=0 --data {dir}/d.csv --out {dir}/out.json", "parameter T"),
        case("parameter not a number", Some(("d.csv", GOOD)), "fit --algorithm ht-frank-wolfe --epsilon 1 --param beta=x --data {dir}/d.csv --out {dir}/out.json", "parameter beta"),
        case("parameter so small that a derived scale underflows", Some(("d.csv", GOOD)), "fit --algorithm clipped-gd --epsilon 1e-6 --param M=1.5e-323 --scale none --intercept none --data {dir}/d.csv --out {dir}/out.json", "not a positive normal number"),
        case("a jointly fitted intercept without the private intercept it replaces", Some(("d.csv", GOOD)), "fit --algorithm clipped-gd --epsilon 1 --param intercept=fit --intercept none --data {dir}/d.csv --out {dir}/out.json", "applies only to --intercept private"),
        case("--param without '='", Some(("d.csv", GOOD)), "fit --algorithm ht-frank-wolfe --epsilon 1 --param T --data {dir}/d.csv --out {dir}/out.json", "expected KEY=VALUE"),
        case("--param given twice", Some(("d.csv", GOOD)), "fit --algorithm ht-frank-wolfe --epsilon 1 --param T=2 --param T=3 --data {dir}/d.csv --out {dir}/out.json", "given more than once"),
        case("missing bound on unscaled data", Some(("d.csv", GOOD)), "fit --algorithm dp-frank-wolfe --epsilon 1 --delta 1e-5 --scale none --data {dir}/d.csv --out {dir}/out.json", "bound"),
        case("output folder missing", Some(("d.csv", GOOD)), "fit --algorithm ht-frank-wolfe --epsilon 1 --data {dir}/d.csv --out {dir}/no/out.json", "does not exist"),
        // ---- model files
        case("model file missing", Some(("d.csv", GOOD)), "predict --model {dir}/missing.json --data {dir}/d.csv --out {dir}/out.json", "cannot read the model file"),
        case("model file truncated", Some(("m.json", "{\"format\": \"heavydp-model/2\", \"algorithm\": ")), "predict --model {dir}/m.json --data {dir}/m.json --out {dir}/out.json", "not a heavydp model file"),
        case("model file of another program", Some(("m.json", "{\"name\": \"resnet\", \"layers\": 50}")), "predict --model {dir}/m.json --data {dir}/m.json --out {dir}/out.json", "not a heavydp model file"),
        case("model file of an unknown format", Some(("m.json", r#"{"format": "heavydp-model/9", "algorithm": "a", "loss": "squared", "domain": {}, "features": ["x1"], "target": "y", "weights": [1], "privacy": {}, "hyperparameters": {}, "n": 1, "d": 1, "seed": null, "heavydp_version": "0"}"#)), "predict --model {dir}/m.json --data {dir}/m.json --out {dir}/out.json", "unsupported model format"),
        case("model file with non-finite weight", Some(("m.json", r#"{"format": "heavydp-model/2", "algorithm": "a", "loss": "squared", "domain": {}, "features": ["x1"], "target": "y", "weights": [1e999], "privacy": {}, "hyperparameters": {}, "n": 1, "d": 1, "seed": null, "heavydp_version": "0"}"#)), "predict --model {dir}/m.json --data {dir}/m.json --out {dir}/out.json", "not a heavydp model file"),
        case("data without a model column", Some(("m.json", r#"{"format": "heavydp-model/2", "algorithm": "a", "loss": "squared", "domain": {}, "features": ["x9"], "target": "y", "weights": [1], "privacy": {}, "hyperparameters": {}, "n": 1, "d": 1, "seed": null, "heavydp_version": "0"}"#)), "predict --model {dir}/m.json --data {dir}/d.csv --out {dir}/out.json", "missing column 'x9'"),
        // ---- mean
        case("unknown mean estimator", Some(("d.csv", GOOD)), "mean --estimator median --epsilon 1 --data {dir}/d.csv --out {dir}/out.json", "unknown estimator 'median'"),
        case("unknown --columns name", Some(("d.csv", GOOD)), "mean --estimator catoni --epsilon 1 --columns x1,z --data {dir}/d.csv --out {dir}/out.json", "z"),
        case("sparse-peeling without s", Some(("d.csv", GOOD)), "mean --estimator sparse-peeling --epsilon 1 --delta 1e-5 --data {dir}/d.csv --out {dir}/out.json", "s"),
    ];
    // ---- typed formats: the CSV messages, and what only they can meet
    let typed =
        |class: &'static str, name: &'static str, bytes: Vec<u8>, expect: &'static str| Case {
            class,
            files: vec![(name, bytes)],
            args: leak(fit(name)),
            expect,
        };
    let m = Some(12345.678);
    v.extend([
        typed(
            "Parquet: NaN cell",
            "d.parquet",
            parquet_bytes(&[("x1", vec![m, Some(f64::NAN)]), ("y", vec![m, m])], None),
            "data row 2, column 'x1': NaN or infinite",
        ),
        typed(
            "Parquet: missing value (null)",
            "d.parquet",
            parquet_bytes(&[("x1", vec![m, m]), ("y", vec![m, None])], None),
            "data row 2, column 'y': not a number",
        ),
        typed(
            "Parquet: text column",
            "d.parquet",
            parquet_bytes(&[("y", vec![m])], Some("x1")),
            "column 'x1': not a number (its type is string",
        ),
        typed(
            "Parquet: target column missing",
            "d.parquet",
            parquet_bytes(&[("x1", vec![m]), ("z", vec![m])], None),
            "target column 'y' is not in the header",
        ),
        typed(
            "Parquet: no rows",
            "d.parquet",
            parquet_bytes(&[("x1", vec![]), ("y", vec![])], None),
            "header but no data rows",
        ),
        typed(
            "Parquet: not a Parquet file",
            "d.parquet",
            GOOD.as_bytes().to_vec(),
            "not a readable Parquet file",
        ),
        typed(
            "Arrow IPC: infinite cell",
            "d.arrow",
            arrow_bytes(
                &[("x1", vec![m, m]), ("y", vec![m, Some(f64::INFINITY)])],
                None,
            ),
            "data row 2, column 'y': NaN or infinite",
        ),
        typed(
            "Arrow IPC: missing value (null)",
            "d.feather",
            arrow_bytes(&[("x1", vec![None]), ("y", vec![m])], None),
            "data row 1, column 'x1': not a number",
        ),
        typed(
            "Arrow IPC: text column",
            "d.arrow",
            arrow_bytes(&[("y", vec![m])], Some("x1")),
            "column 'x1': not a number (its type is utf8",
        ),
        typed(
            "Arrow IPC: duplicate column",
            "d.arrow",
            arrow_bytes(&[("x1", vec![m]), ("x1", vec![m]), ("y", vec![m])], None),
            "appears more than once",
        ),
        typed(
            "Arrow IPC: not an Arrow file",
            "d.arrow",
            GOOD.as_bytes().to_vec(),
            "not a readable Arrow IPC file",
        ),
        typed(
            ".npy: NaN cell",
            "d.npy",
            npy("<f8", "False", "(2, 2)", &[1.0, 12345.678, f64::NAN, 2.0]),
            "data row 2, column 'x1': NaN or infinite",
        ),
        typed(
            ".npy: float32 array",
            "d.npy",
            npy("<f4", "False", "(2, 2)", &[12345.678; 2]),
            "heavydp reads float64 arrays",
        ),
        typed(
            ".npy: 1-D array",
            "d.npy",
            npy("<f8", "False", "(2,)", &[12345.678; 2]),
            "heavydp reads 2-D arrays",
        ),
        typed(
            ".npy: Fortran order",
            "d.npy",
            npy("<f8", "True", "(2, 2)", &[12345.678; 4]),
            "heavydp reads C-order arrays",
        ),
        typed(
            ".npy: cut short",
            "d.npy",
            npy("<f8", "False", "(3, 2)", &[12345.678; 4]),
            "shorter than its shape",
        ),
        typed(
            ".npy: not a .npy file",
            "d.npy",
            GOOD.as_bytes().to_vec(),
            "not a NumPy .npy file",
        ),
    ]);
    v.push(Case {
        class: ".npy: sidecar names another number of columns",
        files: vec![
            (
                "d.npy",
                npy("<f8", "False", "(2, 2)", &[1.0, 12345.678, 2.0, 3.0]),
            ),
            ("d.npy.columns", b"x1,x2,y\n".to_vec()),
        ],
        args: leak(fit("d.npy")),
        expect: "names 3 columns, but the array has 2",
    });
    // binary garbage: the bytes of a PNG header and invalid UTF-8
    v.push(Case {
        class: "binary garbage",
        files: vec![(
            "d.csv",
            b"\x89PNG\r\n\x1a\n\xff\xfe\x00\x01,\x80\x81\n1,2\n".to_vec(),
        )],
        args: leak(fit("d.csv")),
        expect: "invalid UTF-8",
    });
    v
}

/// A `.npy` file with this header and these values (little-endian float64).
fn npy(descr: &str, fortran: &str, shape: &str, values: &[f64]) -> Vec<u8> {
    let dict = format!("{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape}, }}");
    let mut b = npy_header(&dict);
    for v in values {
        b.extend(v.to_le_bytes());
    }
    b
}

fn run_case(c: &Case) -> String {
    let dir = TempDir::new().unwrap();
    let root = dir.path().to_str().unwrap();
    // "d.csv" exists for the model cases that predict on good data
    std::fs::write(dir.path().join("d.csv"), GOOD).unwrap();
    for (name, bytes) in &c.files {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let args: Vec<String> = c
        .args
        .split_whitespace()
        .map(|a| a.replace("{dir}", root))
        .collect();
    let o = Command::cargo_bin("heavydp")
        .unwrap()
        .args(&args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).replace(root, "DIR");
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}: exit status {:?}, stderr {err}",
        c.class,
        o.status
    );
    assert!(o.stdout.is_empty(), "{}: stdout is not empty", c.class);
    let lines: Vec<&str> = err.trim_end().lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "{}: the error is not one line: {err}",
        c.class
    );
    let msg = lines[0]
        .strip_prefix("error: ")
        .unwrap_or_else(|| panic!("{}: {err}", c.class));
    assert!(
        msg.contains(c.expect),
        "{}: expected '{}' in: {msg}",
        c.class,
        c.expect
    );
    assert!(
        !msg.contains("12345"),
        "{}: the message shows a data value: {msg}",
        c.class
    );
    let written: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with("out") || n.contains(".tmp")
        })
        .collect();
    assert!(written.is_empty(), "{}: wrote {written:?}", c.class);
    msg.to_string()
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|")
        .replace('\n', " ")
        .replace('\t', "\\t")
}

#[test]
fn every_bad_input_class_fails_cleanly_and_the_table_is_current() {
    let mut table = String::from(
        "\n| bad input | command | message (`error: …` on stderr, exit status 2) |\n|---|---|---|\n",
    );
    for c in cases() {
        let msg = run_case(&c);
        let cmd = format!("heavydp {}", c.args.replace("{dir}", "DIR"));
        table += &format!(
            "| {} | `{}` | {} |\n",
            cell(c.class),
            cell(&cmd),
            cell(&msg)
        );
    }
    table.push('\n');
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/reliability.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (begin, end) = (
        "<!-- bad-input-table:begin -->",
        "<!-- bad-input-table:end -->",
    );
    let i = doc
        .find(begin)
        .expect("docs/reliability.md has the begin marker")
        + begin.len();
    let j = doc
        .find(end)
        .expect("docs/reliability.md has the end marker");
    if doc[i..j] != table {
        if std::env::var("HEAVYDP_UPDATE_DOCS").as_deref() == Ok("1") {
            std::fs::write(&path, format!("{}{}{}", &doc[..i], table, &doc[j..])).unwrap();
        } else {
            panic!("docs/reliability.md's bad-input table is out of date (rerun with HEAVYDP_UPDATE_DOCS=1):\n{table}");
        }
    }
}
