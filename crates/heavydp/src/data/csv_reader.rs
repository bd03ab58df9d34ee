//! The CSV reader of the CONTRACT: a header row, every cell numeric and finite, the
//! response in the `--target` column, every other column a feature. Errors name the
//! file, the data row (1-based, the header is row 0) and the column.
//!
//! Two paths read the same files to the same result: the parallel fast path of [`fast`]
//! for plain files, and the reference path here (the `csv` crate, one
//! record at a time) for everything the fast path does not take — quoted fields, blank
//! lines, non-ASCII text — and for every error, so the messages and their row numbers
//! come from one place.

mod fast;

use super::{DataError, Dataset};
use fast::{Dest, Plan};
use std::io::Read;

/// Which columns a reader wants, decided from the header.
#[derive(Clone, Copy)]
enum Select<'a> {
    /// This column is the response, every other one a feature.
    Target(&'a str),
    /// These columns (in this order) are the features, or every column; no response.
    Features(Option<&'a [String]>),
    /// Only this column (as the response), if it is present.
    Column(&'a str),
}

/// The destinations of the columns for the fast path; `None` when the header has any
/// problem (the reference path then gives the message).
fn plan(header: &[String], select: Select) -> Option<Plan> {
    let k = header.len();
    let single_bad = k == 1 && (header[0].is_empty() || header[0].contains([';', '\t', '|']));
    let bad_name = header
        .iter()
        .enumerate()
        .any(|(j, h)| h.is_empty() || header[..j].contains(h));
    if single_bad || bad_name {
        return None;
    }
    let find = |name: &str| header.iter().position(|h| h == name);
    match select {
        Select::Target(t) => {
            let ti = find(t)?;
            if k < 2 {
                return None;
            }
            let mut f = 0;
            let dest = (0..k)
                .map(|j| {
                    if j == ti {
                        Dest::Target
                    } else {
                        f += 1;
                        Dest::Feature(f - 1)
                    }
                })
                .collect();
            Some(Plan { dest, d: k - 1 })
        }
        Select::Features(None) => Some(Plan {
            dest: (0..k).map(Dest::Feature).collect(),
            d: k,
        }),
        Select::Features(Some(names)) => {
            let mut dest = vec![Dest::Skip; k];
            for (i, nm) in names.iter().enumerate() {
                let j = find(nm)?;
                // a column wanted twice: the reference path copies it
                if dest[j] != Dest::Skip {
                    return None;
                }
                dest[j] = Dest::Feature(i);
            }
            (!names.is_empty()).then_some(Plan {
                dest,
                d: names.len(),
            })
        }
        Select::Column(c) => {
            let mut dest = vec![Dest::Skip; k];
            if let Some(j) = find(c) {
                dest[j] = Dest::Target;
            }
            Some(Plan { dest, d: 0 })
        }
    }
}

/// The fast path on `r` for `select`: the parsed values and the header, or `None`.
fn read_fast<R: Read + Send>(r: R, select: Select) -> Option<(fast::Parsed, Vec<String>)> {
    let mut names = Vec::new();
    let parsed = fast::read(r, |h| {
        names = h.to_vec();
        plan(h, select)
    })?;
    Some((parsed, names))
}

/// The dataset of a fast read, named as the reference path names it.
fn fast_dataset(
    p: fast::Parsed,
    header: Vec<String>,
    select: Select,
) -> Result<Dataset, DataError> {
    let (d, names, target) = match select {
        Select::Target(t) => {
            let names: Vec<String> = header.into_iter().filter(|h| h != t).collect();
            (names.len(), names, t.to_string())
        }
        Select::Features(Some(f)) => (f.len(), f.to_vec(), String::new()),
        Select::Features(None) => (header.len(), header, String::new()),
        Select::Column(_) => unreachable!("a column read returns no dataset"),
    };
    debug_assert_eq!(p.x.len(), p.rows * d);
    Dataset::new(p.x, p.y, d, names, target)
}

struct Table {
    header: Vec<String>,
    values: Vec<f64>,
    rows: usize,
}

fn parse_table<R: Read>(reader: R, path: &str) -> Result<Table, DataError> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(reader);
    let mut records = rdr.records();
    let header: Vec<String> = match records.next() {
        None => return Err(DataError::Empty { path: path.into() }),
        Some(Err(e)) => {
            return Err(DataError::Malformed {
                path: path.into(),
                row: 0,
                reason: csv_reason(&e),
            })
        }
        Some(Ok(r)) => r
            .iter()
            .map(|s| s.trim_start_matches('\u{feff}').to_string())
            .collect(),
    };
    if header.len() == 1 && header[0].is_empty() {
        return Err(DataError::Empty { path: path.into() });
    }
    // A semicolon- or tab-separated file reads as one column whose name holds the
    // separators: say so, rather than "not a number" at the first data row.
    if let [only] = header.as_slice() {
        if let Some((_, delimiter)) = [(';', "semicolon"), ('\t', "tab"), ('|', "vertical bar")]
            .into_iter()
            .find(|(c, _)| only.contains(*c))
        {
            return Err(DataError::Delimiter {
                path: path.into(),
                header: only.clone(),
                delimiter,
            });
        }
    }
    for (j, h) in header.iter().enumerate() {
        if h.is_empty() {
            return Err(DataError::EmptyColumnName {
                path: path.into(),
                column: j + 1,
            });
        }
        if header[..j].contains(h) {
            return Err(DataError::DuplicateColumn {
                path: path.into(),
                name: h.clone(),
            });
        }
    }
    let k = header.len();
    let mut values = Vec::new();
    let mut rows = 0usize;
    for (i, rec) in records.enumerate() {
        let row = i + 1;
        let rec = rec.map_err(|e| DataError::Malformed {
            path: path.into(),
            row,
            reason: csv_reason(&e),
        })?;
        // A completely blank line is skipped by the csv crate; a line of only commas is not.
        if rec.len() != k {
            return Err(DataError::Ragged {
                path: path.into(),
                row,
                expected: k,
                found: rec.len(),
            });
        }
        for (j, cell) in rec.iter().enumerate() {
            let v: f64 = cell.parse().map_err(|_| DataError::NonNumeric {
                path: path.into(),
                row,
                column: header[j].clone(),
            })?;
            if !v.is_finite() {
                return Err(DataError::NonFinite {
                    path: path.into(),
                    row,
                    column: header[j].clone(),
                });
            }
            values.push(v);
        }
        rows += 1;
    }
    if rows == 0 {
        return Err(DataError::NoRows { path: path.into() });
    }
    Ok(Table {
        header,
        values,
        rows,
    })
}

/// The csv crate's error, without any field content.
fn csv_reason(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::Utf8 { .. } => "invalid UTF-8".into(),
        csv::ErrorKind::Io(io) => io.to_string(),
        _ => "unparseable line".into(),
    }
}

fn split_target(t: Table, path: &str, target: &str) -> Result<Dataset, DataError> {
    let ti = t
        .header
        .iter()
        .position(|h| h == target)
        .ok_or_else(|| DataError::MissingTarget {
            path: path.into(),
            target: target.into(),
        })?;
    let k = t.header.len();
    if k < 2 {
        return Err(DataError::NoFeatures {
            path: path.into(),
            target: target.into(),
        });
    }
    let d = k - 1;
    let mut x = Vec::with_capacity(t.rows * d);
    let mut y = Vec::with_capacity(t.rows);
    for r in t.values.chunks_exact(k) {
        for (j, v) in r.iter().enumerate() {
            if j == ti {
                y.push(*v);
            } else {
                x.push(*v);
            }
        }
    }
    let names: Vec<String> = t
        .header
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != ti)
        .map(|(_, h)| h.clone())
        .collect();
    Dataset::new(x, y, d, names, target.to_string())
}

fn open(path: &str) -> Result<std::fs::File, DataError> {
    let f = std::fs::File::open(path).map_err(|e| DataError::Io {
        path: path.into(),
        reason: e.to_string(),
    })?;
    // a folder opens on Unix, and would fail only at the first read
    if f.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(DataError::Io {
            path: path.into(),
            reason: "it is a folder, not a file".into(),
        });
    }
    Ok(f)
}

/// Reads a CSV file with a header; `target` names the response column.
pub fn read_csv(path: &str, target: &str) -> Result<Dataset, DataError> {
    let select = Select::Target(target);
    if let Some((p, h)) = read_fast(open(path)?, select) {
        return fast_dataset(p, h, select);
    }
    let f = open(path)?;
    split_target(
        parse_table(std::io::BufReader::with_capacity(1 << 20, f), path)?,
        path,
        target,
    )
}

/// As [`read_csv`], from a string (`name` is used in messages).
pub fn read_csv_str(text: &str, name: &str, target: &str) -> Result<Dataset, DataError> {
    read_csv_bytes(text.as_bytes(), name, target)
}

/// As [`read_csv`], from the bytes of a file (`name` is used in messages); what the
/// fuzz harness (`tests/fuzz.rs`) feeds.
pub fn read_csv_bytes(bytes: &[u8], name: &str, target: &str) -> Result<Dataset, DataError> {
    let select = Select::Target(target);
    if let Some((p, h)) = read_fast(bytes, select) {
        return fast_dataset(p, h, select);
    }
    split_target(parse_table(bytes, name)?, name, target)
}

/// Reads a CSV file for prediction or mean estimation: returns the columns named in
/// `features` (in that order) when given — other columns, such as a target, are
/// ignored — or every column otherwise. The response of the returned dataset is 0.
pub fn read_csv_features(path: &str, features: Option<&[String]>) -> Result<Dataset, DataError> {
    let select = Select::Features(features);
    if let Some((p, h)) = read_fast(open(path)?, select) {
        return fast_dataset(p, h, select);
    }
    let t = parse_table(
        std::io::BufReader::with_capacity(1 << 20, open(path)?),
        path,
    )?;
    let k = t.header.len();
    let cols: Vec<usize> = match features {
        Some(names) => super::column_positions(&t.header, names, path)?,
        None => (0..k).collect(),
    };
    let d = cols.len();
    let mut x = Vec::with_capacity(t.rows * d);
    for r in t.values.chunks_exact(k) {
        for &j in &cols {
            x.push(r[j]);
        }
    }
    let names = cols.iter().map(|&j| t.header[j].clone()).collect();
    Dataset::new(x, vec![0.0; t.rows], d, names, String::new())
}

/// Reads the target column of a CSV file if it is present (for `evaluate`).
pub fn read_csv_column(path: &str, column: &str) -> Result<Option<Vec<f64>>, DataError> {
    if let Some((p, h)) = read_fast(open(path)?, Select::Column(column)) {
        return Ok(h.iter().any(|c| c == column).then_some(p.y));
    }
    let t = parse_table(
        std::io::BufReader::with_capacity(1 << 20, open(path)?),
        path,
    )?;
    let k = t.header.len();
    Ok(t.header
        .iter()
        .position(|h| h == column)
        .map(|j| t.values.chunks_exact(k).map(|r| r[j]).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        read_csv_str(text, "f.csv", "y").unwrap_err().to_string()
    }

    #[test]
    fn reads_a_good_file() {
        let d = read_csv_str("a,y,b\n1,2,3\n4,5,6\n", "f.csv", "y").unwrap();
        assert_eq!(d.n(), 2);
        assert_eq!(d.d(), 2);
        assert_eq!(d.x(), &[1.0, 3.0, 4.0, 6.0]);
        assert_eq!(d.y(), &[2.0, 5.0]);
        assert_eq!(d.feature_names(), &["a".to_string(), "b".to_string()]);
    }

    #[test]
    fn rejects_bad_input_with_row_and_column() {
        assert_eq!(
            err(""),
            "f.csv: the file is empty (expected a header row and at least one data row)"
        );
        assert_eq!(
            err("a,y\n"),
            "f.csv: the file has a header but no data rows"
        );
        assert_eq!(err("a,b\n1,2\n"), "f.csv: target column 'y' is not in the header (use --target to name the response column)");
        assert_eq!(
            err("a,y\n1,2\n3\n"),
            "f.csv: data row 2 has 1 fields, but the header has 2"
        );
        assert_eq!(
            err("a,y\n1,2\n3,4,5\n"),
            "f.csv: data row 2 has 3 fields, but the header has 2"
        );
        assert_eq!(
            err("a,y\n1,2\nfoo,4\n"),
            "f.csv: data row 2, column 'a': not a number"
        );
        assert_eq!(
            err("a,y\n1,NaN\n"),
            "f.csv: data row 1, column 'y': NaN or infinite values are not allowed"
        );
        assert_eq!(
            err("a,y\ninf,1\n"),
            "f.csv: data row 1, column 'a': NaN or infinite values are not allowed"
        );
        assert_eq!(
            err("a,y\n,1\n"),
            "f.csv: data row 1, column 'a': not a number"
        );
        assert_eq!(
            err("a,a,y\n1,2,3\n"),
            "f.csv: column name 'a' appears more than once in the header"
        );
        assert_eq!(
            err("x1;x2;y\n1;2;3\n"),
            "f.csv: the delimiter looks wrong: the header is one column 'x1;x2;y', which holds semicolons; heavydp reads comma-separated files (replace each semicolon by a comma)"
        );
        assert_eq!(
            err("x1\ty\n1\t2\n"),
            "f.csv: the delimiter looks wrong: the header is one column 'x1\ty', which holds tabs; heavydp reads comma-separated files (replace each tab by a comma)"
        );
        assert_eq!(
            err("y\n1\n"),
            "f.csv: there are no feature columns (only the target 'y')"
        );
    }

    /// Number spellings the fast and the reference parser must read alike: signed,
    /// exponent and partial forms, the special values, an underscore, and the extremes
    /// of f64 with what lies just past them.
    const SPELLINGS: [&str; 15] = [
        "1",
        "-0",
        "+1.5",
        "1e5",
        "1E-3",
        ".5",
        "5.",
        "1e",
        ".",
        "inf",
        "NaN",
        "1_0",
        "1.7976931348623157e308",
        "1e309",
        "4.9e-324",
    ];

    /// `fast-float2` accepts a whole field exactly when `str::parse::<f64>` does, and
    /// gives the same bits: on the spellings users write, on random strings over the
    /// characters of numbers, and on random doubles printed every way Rust prints them.
    #[test]
    fn fast_float_is_bit_exact_with_str_parse() {
        use rand::{Rng, SeedableRng};
        let same = |s: &str| {
            let fast = match fast_float2::parse_partial::<f64, _>(s.as_bytes()) {
                Ok((v, used)) if used == s.len() => Some(v.to_bits()),
                _ => None,
            };
            let std = s.parse::<f64>().ok().map(f64::to_bits);
            assert_eq!(fast, std, "{s:?}");
        };
        let more = [
            "-",
            "+",
            "e5",
            "-inf",
            "+inf",
            "infinity",
            "Infinity",
            "nan",
            "-nan",
            "0x10",
            "2.4703282292062328e-324",
            "1e-400",
            "00012",
            "1..2",
            "--1",
            "+-1",
            "1e+",
            "1e-",
            "1e+5",
            ".e1",
            "+.5",
            "-.5e-3",
            "18446744073709551616",
            "9007199254740993",
            "0.1",
            "1.",
        ];
        for s in SPELLINGS.iter().chain(&more) {
            same(s);
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(16);
        let alphabet = b"0123456789+-.eE";
        for _ in 0..200_000 {
            let len = rng.random_range(1..12);
            let s: String = (0..len)
                .map(|_| alphabet[rng.random_range(0..alphabet.len())] as char)
                .collect();
            same(&s);
        }
        for _ in 0..100_000 {
            let v = f64::from_bits(rng.random::<u64>());
            for s in [
                format!("{v}"),
                format!("{v:e}"),
                format!("{v:.25e}"),
                format!("{v:?}"),
            ] {
                same(&s);
            }
            let digits: String = (0..rng.random_range(15..25))
                .map(|_| char::from(b'0' + rng.random_range(0..10u8)))
                .collect();
            same(&format!("0.{digits}"));
            same(&format!("{digits}e-{}", rng.random_range(0..340)));
        }
    }

    /// The fast path reads a file to the same dataset as the reference path, bit for
    /// bit, whenever it reads it at all; it gives up on whatever it does not read.
    #[test]
    fn fast_path_agrees_with_the_reference_path() {
        use rand::{Rng, SeedableRng};
        let cells: Vec<&str> = SPELLINGS
            .iter()
            .copied()
            .chain([
                " 2 ",
                "\t3",
                "",
                "0x1",
                "\"4\"",
                "é",
                "1\r2",
                "0.30000000000000004",
                "-12345.678",
            ])
            .collect();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let (mut fast_reads, mut cases) = (0, 0);
        for _ in 0..20_000 {
            let k = rng.random_range(1..4);
            let names = ["a", "y", "b", "y"];
            let mut text = String::new();
            if rng.random_bool(0.05) {
                text.push('\u{feff}');
            }
            text += &names[..k].join(if rng.random_bool(0.05) { ";" } else { "," });
            text += if rng.random_bool(0.2) { "\r\n" } else { "\n" };
            for _ in 0..rng.random_range(0..5) {
                let row: Vec<String> = (0..k + usize::from(rng.random_bool(0.03)))
                    .map(|_| {
                        if rng.random_bool(0.8) {
                            let v: f64 = rng.random::<f64>() * 10f64.powi(rng.random_range(-5..5));
                            v.to_string()
                        } else {
                            cells[rng.random_range(0..cells.len())].to_string()
                        }
                    })
                    .collect();
                text += &row.join(",");
                text += match rng.random_range(0..20) {
                    0 => "\r\n",
                    1 => "\n\n",
                    2 => "",
                    _ => "\n",
                };
            }
            cases += 1;
            let bytes = text.as_bytes();
            let reference = parse_table(bytes, "f.csv").and_then(|t| split_target(t, "f.csv", "y"));
            if let Some((p, h)) = read_fast(bytes, Select::Target("y")) {
                fast_reads += 1;
                let fast = fast_dataset(p, h, Select::Target("y")).unwrap();
                let reference = reference
                    .clone()
                    .unwrap_or_else(|e| panic!("{text:?}: {e}"));
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(fast, reference, "{text:?}");
                assert_eq!(bits(fast.x()), bits(reference.x()), "{text:?}");
                assert_eq!(bits(fast.y()), bits(reference.y()), "{text:?}");
            }
            // every public reader gives the reference result
            assert_eq!(read_csv_bytes(bytes, "f.csv", "y"), reference, "{text:?}");
        }
        assert!(fast_reads > cases / 5, "{fast_reads} of {cases}");
    }

    /// Large files go through several blocks and many parallel parts, selecting columns.
    #[test]
    fn fast_path_reads_many_parts_and_selects_columns() {
        let (n, k) = (60_000, 4);
        let mut text = String::from("a,b,y,c\n");
        let mut want = Vec::new();
        for i in 0..n {
            let row: Vec<f64> = (0..k).map(|j| (i * k + j) as f64 / 7.0 - 3000.0).collect();
            text += &row.iter().map(f64::to_string).collect::<Vec<_>>().join(",");
            text.push('\n');
            want.push(row);
        }
        let ds = read_csv_bytes(text.as_bytes(), "f.csv", "y").unwrap();
        assert_eq!((ds.n(), ds.d()), (n, 3));
        for (i, r) in want.iter().enumerate() {
            assert_eq!(ds.row(i), &[r[0], r[1], r[3]]);
            assert_eq!(ds.y()[i], r[2]);
        }
        let dir = std::env::temp_dir().join(format!("heavydp-fast-{}", std::process::id()));
        std::fs::write(&dir, &text).unwrap();
        let path = dir.to_str().unwrap();
        let f = read_csv_features(path, Some(&["c".to_string(), "a".to_string()])).unwrap();
        assert_eq!(f.row(n - 1), &[want[n - 1][3], want[n - 1][0]]);
        assert_eq!(read_csv_column(path, "b").unwrap().unwrap()[7], want[7][1]);
        assert_eq!(read_csv_column(path, "z").unwrap(), None);
        std::fs::remove_file(&dir).unwrap();
        // an error deep in the file keeps its row number
        let bad = text.replacen(
            &format!(
                "\n{}",
                want[50_000]
                    .iter()
                    .map(f64::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            "\n1,2,NaN,3",
            1,
        );
        assert_eq!(
            read_csv_bytes(bad.as_bytes(), "f.csv", "y")
                .unwrap_err()
                .to_string(),
            "f.csv: data row 50001, column 'y': NaN or infinite values are not allowed"
        );
    }

    #[test]
    fn error_messages_never_contain_values() {
        let e = err("a,y\n1,2\n12345.678x,4\n");
        assert!(!e.contains("12345"), "{e}");
    }
}
