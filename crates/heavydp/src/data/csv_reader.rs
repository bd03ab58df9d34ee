//! The CSV reader of the CONTRACT: a header row, every cell numeric and finite, the
//! response in the `--target` column, every other column a feature. Errors name the
//! file, the data row (1-based, the header is row 0) and the column.

use super::{DataError, Dataset};
use std::io::Read;

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
    split_target(parse_table(bytes, name)?, name, target)
}

/// Reads a CSV file for prediction or mean estimation: returns the columns named in
/// `features` (in that order) when given — other columns, such as a target, are
/// ignored — or every column otherwise. The response of the returned dataset is 0.
pub fn read_csv_features(path: &str, features: Option<&[String]>) -> Result<Dataset, DataError> {
    let t = parse_table(
        std::io::BufReader::with_capacity(1 << 20, open(path)?),
        path,
    )?;
    let k = t.header.len();
    let cols: Vec<usize> = match features {
        Some(names) => names
            .iter()
            .map(|nm| {
                t.header
                    .iter()
                    .position(|h| h == nm)
                    .ok_or_else(|| DataError::MissingFeature {
                        path: path.into(),
                        column: nm.clone(),
                    })
            })
            .collect::<Result<_, _>>()?,
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

    #[test]
    fn error_messages_never_contain_values() {
        let e = err("a,y\n1,2\n12345.678x,4\n");
        assert!(!e.contains("12345"), "{e}");
    }
}
