//! The input formats of `heavydp::io`: every format reads the same
//! data to the same dataset, bit for bit, as its CSV, whatever columns are asked for;
//! and every class of bad input gets the message CSV gives (a column of text, which CSV
//! has no type for, gets "column '…': not a number" and its type).

use heavydp::data::{scenarios, Dataset};
use heavydp::io::{read_dataset, write_dataset, Format};
use rand::SeedableRng;
use std::path::PathBuf;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("heavydp-io-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn same(a: &Dataset, b: &Dataset, what: &str) {
    assert_eq!((a.n(), a.d()), (b.n(), b.d()), "{what}");
    assert_eq!(bits(a.x()), bits(b.x()), "{what}");
    assert_eq!(bits(a.y()), bits(b.y()), "{what}");
    assert_eq!(a.feature_names(), b.feature_names(), "{what}");
    assert_eq!(a.target_name(), b.target_name(), "{what}");
}

#[test]
fn every_format_reads_what_csv_reads_bit_for_bit() {
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(11);
    // more rows than one Parquet row group / Arrow batch (65 536), so blocks are crossed
    let (ds, _) = scenarios::simulate(
        "hu-linear-student",
        70_000,
        6,
        None,
        &Default::default(),
        &mut rng,
    )
    .unwrap();
    let d = dir("roundtrip");
    let path = |e: &str| d.join(format!("data.{e}")).to_str().unwrap().to_string();
    for (e, f) in [
        ("csv", Format::Csv),
        ("parquet", Format::Parquet),
        ("arrow", Format::ArrowIpc),
        ("feather", Format::ArrowIpc),
        ("npy", Format::Npy),
    ] {
        assert_eq!(Format::of(&path(e)), f);
        let mut buf = Vec::new();
        write_dataset(&ds, f, &mut buf, &path(e)).unwrap();
        std::fs::write(path(e), buf).unwrap();
    }
    let csv = read_dataset(&path("csv"), Some("y"), None).unwrap();
    same(&csv, &ds, "csv");
    let order: Vec<String> = ["x4", "x1", "x6"].map(String::from).to_vec();
    let all_cols: Vec<String> = ["x1", "x2", "x3", "x4", "x5", "x6", "y"]
        .map(String::from)
        .to_vec();
    for e in ["parquet", "arrow", "feather", "npy"] {
        let p = path(e);
        same(&read_dataset(&p, Some("y"), None).unwrap(), &csv, e);
        for (t, f) in [
            (None, None),
            (None, Some(&order[..])),
            (Some("y"), Some(&order[..])),
            (Some("x2"), None),
            (None, Some(&all_cols[..])),
        ] {
            same(
                &read_dataset(&p, t, f).unwrap(),
                &read_dataset(&path("csv"), t, f).unwrap(),
                &format!("{e} {t:?} {f:?}"),
            );
        }
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// A column of a bad-input table: its name and cells (`None` a missing value).
use heavydp::test_support::{
    arrow_bytes, npy_header, parquet_bytes, parquet_bytes_grouped, Column,
};

fn csv_text(cols: &[Column]) -> String {
    let n = cols.first().map_or(0, |c| c.1.len());
    let mut s = cols.iter().map(|c| c.0).collect::<Vec<_>>().join(",") + "\n";
    for i in 0..n {
        let row: Vec<String> = cols
            .iter()
            .map(|c| {
                c.1[i]
                    .map(|v| format!("{v:?}").replace("inf", "inf"))
                    .unwrap_or_default()
            })
            .collect();
        s += &(row.join(",") + "\n");
    }
    s
}

fn npy_bytes(cols: &[Column]) -> Option<Vec<u8>> {
    let n = cols.first().map_or(0, |c| c.1.len());
    let mut b = npy_header(&format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': ({n}, {}), }}",
        cols.len()
    ));
    for i in 0..n {
        for c in cols {
            b.extend(c.1[i]?.to_le_bytes());
        }
    }
    Some(b)
}

#[test]
fn every_format_rejects_each_bad_input_class_with_the_csv_message() {
    let m = 12345.678;
    let good = |nm: &'static str| -> Column { (nm, vec![Some(1.0), Some(m), Some(2.0)]) };
    let with = |nm: &'static str, i: usize, v: Option<f64>| -> Column {
        let mut c = good(nm);
        c.1[i] = v;
        c
    };
    let cases: Vec<(&str, Vec<Column>)> = vec![
        (
            "NaN cell",
            vec![good("x1"), with("x2", 1, Some(f64::NAN)), good("y")],
        ),
        (
            "infinite target",
            vec![
                good("x1"),
                good("x2"),
                with("y", 2, Some(f64::NEG_INFINITY)),
            ],
        ),
        (
            "missing cell",
            vec![with("x1", 2, None), good("x2"), good("y")],
        ),
        (
            "missing before NaN in row order",
            vec![
                with("x1", 2, None),
                with("x2", 1, Some(f64::NAN)),
                good("y"),
            ],
        ),
        (
            "NaN before missing in one row",
            vec![
                with("x1", 1, Some(f64::INFINITY)),
                with("x2", 1, None),
                good("y"),
            ],
        ),
        (
            "target column missing",
            vec![good("x1"), good("x2"), good("z")],
        ),
        ("no feature column", vec![good("y")]),
        ("duplicate column", vec![good("x1"), good("x1"), good("y")]),
        ("empty column name", vec![good("x1"), good(""), good("y")]),
        (
            "no rows",
            vec![("x1", vec![]), ("x2", vec![]), ("y", vec![])],
        ),
    ];
    let d = dir("bad");
    let mut checked = 0;
    for (class, cols) in &cases {
        let csv = d.join("f.csv");
        std::fs::write(&csv, csv_text(cols)).unwrap();
        let want = read_dataset(csv.to_str().unwrap(), Some("y"), None)
            .expect_err(class)
            .to_string()
            .replace(csv.to_str().unwrap(), "F");
        assert!(!want.contains("12345"), "{class}: {want}");
        let mut files = vec![
            ("f.parquet", Some(parquet_bytes(cols, None))),
            ("f.arrow", Some(arrow_bytes(cols, None))),
            ("f.npy", npy_bytes(cols)),
        ];
        // an array's names come from the sidecar when they are not x1, x2, y
        let names: Vec<&str> = cols.iter().map(|c| c.0).collect();
        std::fs::write(d.join("f.npy.columns"), names.join(",")).unwrap();
        if cols.is_empty() {
            files.pop();
        }
        for (name, bytes) in files {
            let Some(bytes) = bytes else { continue };
            let p = d.join(name);
            std::fs::write(&p, bytes).unwrap();
            let got = read_dataset(p.to_str().unwrap(), Some("y"), None)
                .expect_err(class)
                .to_string()
                .replace(p.to_str().unwrap(), "F");
            assert_eq!(got, want, "{class}, {name}");
            checked += 1;
        }
        std::fs::remove_file(d.join("f.npy.columns")).unwrap();
    }
    assert!(checked >= 27, "{checked}");
    // a column of text: CSV's "not a number", with the column's type
    let cols = vec![good("x1"), good("y")];
    for (name, bytes) in [
        ("t.parquet", parquet_bytes(&cols, Some("x2"))),
        ("t.arrow", arrow_bytes(&cols, Some("x2"))),
    ] {
        let p = d.join(name);
        std::fs::write(&p, bytes).unwrap();
        let e = read_dataset(p.to_str().unwrap(), Some("y"), None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(": column 'x2': not a number (its type is "),
            "{e}"
        );
        assert!(!e.contains("12345"), "{e}");
        // a column not asked for is not read
        let f = read_dataset(p.to_str().unwrap(), None, Some(&["x1".to_string()])).unwrap();
        assert_eq!(f.x(), &[1.0, m, 2.0]);
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn parquet_across_row_groups_and_column_waves() {
    // 20 feature columns (more than one wave of 16 parallel decodes) in row groups of 2
    // rows: the decode buffers are reused across waves and row groups, and a missing
    // cell in the last group of the second wave must be reported at its row.
    let names: Vec<String> = (1..=20)
        .map(|j| format!("x{j}"))
        .chain(["y".into()])
        .collect();
    let value = |i: usize, j: usize| (i * 31 + j) as f64 / 7.0 - 3.0;
    let cols = |missing: Option<(usize, usize)>| -> Vec<Column> {
        names
            .iter()
            .enumerate()
            .map(|(j, nm)| {
                let v = (0..5)
                    .map(|i| (missing != Some((i, j))).then(|| value(i, j)))
                    .collect();
                (nm.as_str(), v)
            })
            .collect()
    };
    let d = dir("groups");
    let p = d.join("g.parquet");
    std::fs::write(&p, parquet_bytes_grouped(&cols(None), None, 2)).unwrap();
    let ds = read_dataset(p.to_str().unwrap(), Some("y"), None).unwrap();
    assert_eq!((ds.n(), ds.d()), (5, 20));
    for i in 0..5 {
        for j in 0..20 {
            assert_eq!(ds.x()[i * 20 + j].to_bits(), value(i, j).to_bits());
        }
        assert_eq!(ds.y()[i].to_bits(), value(i, 20).to_bits());
    }
    let csv = d.join("g.csv");
    std::fs::write(&csv, csv_text(&cols(Some((4, 17))))).unwrap();
    let want = read_dataset(csv.to_str().unwrap(), Some("y"), None)
        .unwrap_err()
        .to_string()
        .replace(csv.to_str().unwrap(), "F");
    assert!(want.contains("row 5") && want.contains("'x18'"), "{want}");
    std::fs::write(&p, parquet_bytes_grouped(&cols(Some((4, 17))), None, 2)).unwrap();
    let got = read_dataset(p.to_str().unwrap(), Some("y"), None)
        .unwrap_err()
        .to_string()
        .replace(p.to_str().unwrap(), "F");
    assert_eq!(got, want);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn npy_rejects_other_arrays_with_what_they_hold() {
    let d = dir("npy");
    let header = |dict: &str| {
        let mut b = npy_header(dict);
        b.extend([0u8; 64]);
        b
    };
    for (dict, expect) in [
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
            "dtype '<f4'",
        ),
        (
            "{'descr': '>f8', 'fortran_order': False, 'shape': (2, 2), }",
            "float64 arrays",
        ),
        (
            "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }",
            "Fortran order",
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (8,), }",
            "2-D arrays",
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (9, 2), }",
            "shorter than its shape",
        ),
    ] {
        let p = d.join("a.npy");
        std::fs::write(&p, header(dict)).unwrap();
        let e = read_dataset(p.to_str().unwrap(), Some("y"), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains(expect), "{e}");
    }
    let p = d.join("b.npy");
    std::fs::write(&p, b"x1,y\n1,2\n").unwrap();
    let e = read_dataset(p.to_str().unwrap(), Some("y"), None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a NumPy .npy file"), "{e}");
    for name in ["b.parquet", "b.arrow"] {
        let p = d.join(name);
        std::fs::write(&p, b"x1,y\n1,2\n").unwrap();
        let e = read_dataset(p.to_str().unwrap(), Some("y"), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a readable"), "{e}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}
