//! What the typed formats share: which file columns go where ([`plan`], with the CSV
//! reader's checks and messages), and the parallel transposition of columns into the
//! row-major matrix with the per-cell checks ([`scatter`]).

use crate::data::DataError;
use rayon::prelude::*;

/// The columns a caller wants (see [`super::read_dataset`]).
#[derive(Clone, Copy)]
pub struct Want<'a> {
    pub target: Option<&'a str>,
    pub features: Option<&'a [String]>,
}

/// Where a file column's values go: into feature `i`, or into the response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Out {
    Feature(usize),
    Target,
}

/// The plan of a read: for each file column read, where its values go.
pub struct Plan {
    /// `(file column, destinations)`, in file order; columns not wanted are absent.
    pub uses: Vec<(usize, Vec<Out>)>,
    pub d: usize,
    pub feature_names: Vec<String>,
    pub target_name: String,
}

/// The plan for a file with columns `header` and `n` rows, with the CSV reader's checks
/// in its order: no column, empty or repeated names, no row, missing target, no
/// feature, missing feature.
pub fn plan(path: &str, header: &[String], n: usize, want: Want) -> Result<Plan, DataError> {
    let p = || path.to_string();
    if header.is_empty() {
        return Err(DataError::Empty { path: p() });
    }
    for (j, h) in header.iter().enumerate() {
        if h.is_empty() {
            return Err(DataError::EmptyColumnName {
                path: p(),
                column: j + 1,
            });
        }
        if header[..j].contains(h) {
            return Err(DataError::DuplicateColumn {
                path: p(),
                name: h.clone(),
            });
        }
    }
    if n == 0 {
        return Err(DataError::NoRows { path: p() });
    }
    let find = |nm: &str| header.iter().position(|h| h == nm);
    let ti = match want.target {
        Some(t) => Some(find(t).ok_or_else(|| DataError::MissingTarget {
            path: p(),
            target: t.into(),
        })?),
        None => None,
    };
    let feature_cols: Vec<usize> = match want.features {
        None => {
            if let (Some(t), true) = (want.target, header.len() < 2) {
                return Err(DataError::NoFeatures {
                    path: p(),
                    target: t.into(),
                });
            }
            (0..header.len()).filter(|&j| Some(j) != ti).collect()
        }
        Some(names) => names
            .iter()
            .map(|nm| {
                find(nm)
                    .filter(|&j| Some(j) != ti)
                    .ok_or_else(|| DataError::MissingFeature {
                        path: p(),
                        column: nm.clone(),
                    })
            })
            .collect::<Result<_, _>>()?,
    };
    if feature_cols.is_empty() {
        return Err(DataError::Shape("no feature columns".into()));
    }
    let mut uses: Vec<(usize, Vec<Out>)> = Vec::new();
    let mut add = |j: usize, o: Out| match uses.iter_mut().find(|(c, _)| *c == j) {
        Some((_, outs)) => outs.push(o),
        None => uses.push((j, vec![o])),
    };
    if let Some(t) = ti {
        add(t, Out::Target);
    }
    for (i, &j) in feature_cols.iter().enumerate() {
        add(j, Out::Feature(i));
    }
    uses.sort_by_key(|(j, _)| *j);
    Ok(Plan {
        d: feature_cols.len(),
        feature_names: feature_cols.iter().map(|&j| header[j].clone()).collect(),
        target_name: want.target.unwrap_or("").to_string(),
        uses,
    })
}

/// One column's values for a block of rows: `vals[i]` is row `i`'s value unless row `i`
/// is at or after `first_null` (the first missing value, where the value is not read).
pub struct Col<'a> {
    pub vals: &'a [f64],
    pub first_null: Option<usize>,
    pub file_col: usize,
    pub outs: &'a [Out],
}

/// The first bad cell of a read, in row-major order: row (0-based), file column, and
/// whether it is missing (else NaN or infinite).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Bad {
    pub row: usize,
    pub col: usize,
    pub null: bool,
}

impl Bad {
    /// The CSV reader's message for this cell: a missing value is CSV's empty cell.
    pub fn error(self, path: &str, header: &[String]) -> DataError {
        let (path, row, column) = (path.to_string(), self.row + 1, header[self.col].clone());
        if self.null {
            DataError::NonNumeric { path, row, column }
        } else {
            DataError::NonFinite { path, row, column }
        }
    }
}

/// The earlier of two bad cells (row-major order).
pub fn first(a: Option<Bad>, b: Option<Bad>) -> Option<Bad> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

/// Rows per parallel block: about 32 768 cells (256 KiB of the matrix), so that writing
/// one column after another into a block stays in cache.
fn block_rows(d: usize) -> usize {
    (32_768 / d.max(1)).max(16)
}

/// Writes the columns `cols` (each `m` values) into `x` (m × d, row-major) and `y` (m),
/// in parallel by blocks of rows; returns the first bad cell (row relative to the
/// block's start, offset by `row0`).
pub fn scatter(cols: &[Col], d: usize, x: &mut [f64], y: &mut [f64], row0: usize) -> Option<Bad> {
    let b = block_rows(d);
    x.par_chunks_mut(b * d)
        .zip(y.par_chunks_mut(b))
        .enumerate()
        .map(|(blk, (xb, yb))| {
            let (r0, m) = (blk * b, yb.len());
            let mut bad: Option<Bad> = None;
            for c in cols {
                let null = c.first_null.filter(|&r| r < r0 + m).map(|r| r.max(r0) - r0);
                // values from the first missing one on are not read (nor all there)
                let end = null.unwrap_or(m);
                let vals = &c.vals[r0.min(c.vals.len())..(r0 + end).min(c.vals.len())];
                let end = vals.len();
                let nonfinite = vals[..end].iter().position(|v| !v.is_finite());
                let here = match (nonfinite, null) {
                    (Some(i), _) => Some(Bad {
                        row: row0 + r0 + i,
                        col: c.file_col,
                        null: false,
                    }),
                    (None, Some(i)) => Some(Bad {
                        row: row0 + r0 + i,
                        col: c.file_col,
                        null: true,
                    }),
                    (None, None) => None,
                };
                bad = first(bad, here);
                for o in c.outs {
                    match *o {
                        Out::Target => yb[..end].copy_from_slice(&vals[..end]),
                        Out::Feature(f) => {
                            for (row, v) in xb.chunks_exact_mut(d).zip(&vals[..end]) {
                                row[f] = *v;
                            }
                        }
                    }
                }
            }
            bad
        })
        .reduce(|| None, first)
}
