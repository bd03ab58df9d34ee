//! NumPy `.npy` files, read and written here (the format is a short header and the raw
//! values; <https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html>).
//! heavydp reads 2-D arrays of float64, little-endian ('<f8'), in C (row-major) order,
//! and rejects any other array with a message saying what it holds.
//!
//! An array has no column names: its k columns are `x1, …, x(k−1), y` — the features,
//! then the target `y` as the last column, the layout `heavydp simulate` writes — unless
//! a sidecar text file `FILE.npy.columns` beside it names them (one comma-separated line,
//! as a CSV header).

use super::columns::{self, Bad, Out, Want};
use super::{open, ReadError};
use crate::data::{DataError, Dataset};
use rayon::prelude::*;
use std::io::Read;

const MAGIC: &[u8] = b"\x93NUMPY";

fn npy_err(path: &str, reason: impl Into<String>) -> ReadError {
    ReadError::Npy {
        path: path.into(),
        reason: reason.into(),
    }
}

/// The value of `key` in the header's dictionary (the text after `'key':`).
fn entry<'a>(dict: &'a str, key: &str) -> Option<&'a str> {
    let i = dict.find(&format!("'{key}'"))? + key.len() + 2;
    Some(dict[i..].trim_start().strip_prefix(':')?.trim_start())
}

/// Parses the header: returns (rows, columns, bytes before the data).
fn header<R: Read>(path: &str, r: &mut R) -> Result<(usize, usize, usize), ReadError> {
    let bad = |why: &str| npy_err(path, format!("not a NumPy .npy file ({why})"));
    let mut pre = [0u8; 10];
    r.read_exact(&mut pre).map_err(|_| bad("too short"))?;
    if &pre[..6] != MAGIC {
        return Err(bad("it does not start with the .npy magic bytes"));
    }
    let (len, start) = match pre[6] {
        1 => (u16::from_le_bytes([pre[8], pre[9]]) as usize, 10),
        2 | 3 => {
            let mut more = [0u8; 2];
            r.read_exact(&mut more).map_err(|_| bad("too short"))?;
            (
                u32::from_le_bytes([pre[8], pre[9], more[0], more[1]]) as usize,
                12,
            )
        }
        v => return Err(bad(&format!("unknown format version {v}"))),
    };
    let mut text = vec![0u8; len];
    r.read_exact(&mut text)
        .map_err(|_| bad("its header is cut short"))?;
    let dict = String::from_utf8(text).map_err(|_| bad("its header is not text"))?;
    let descr = entry(&dict, "descr")
        .and_then(|s| s.strip_prefix('\''))
        .and_then(|s| s.split('\'').next())
        .ok_or_else(|| bad("its header has no 'descr'"))?;
    let fortran = entry(&dict, "fortran_order").ok_or_else(|| bad("no 'fortran_order'"))?;
    let shape = entry(&dict, "shape")
        .and_then(|s| s.strip_prefix('('))
        .and_then(|s| s.split(')').next())
        .ok_or_else(|| bad("its header has no 'shape'"))?;
    let dims: Vec<usize> = shape
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse()
                .map_err(|_| bad("its shape is not a tuple of integers"))
        })
        .collect::<Result<_, _>>()?;
    let what = format!("an array of dtype '{descr}' and shape ({shape})");
    if descr != "<f8" {
        return Err(npy_err(
            path,
            format!("{what}: heavydp reads float64 arrays ('<f8'; convert with a.astype('<f8'))"),
        ));
    }
    if fortran.starts_with("True") {
        return Err(npy_err(path, format!("{what} in Fortran order: heavydp reads C-order arrays (save np.ascontiguousarray(a))")));
    }
    if dims.len() != 2 {
        return Err(npy_err(
            path,
            format!("{what}: heavydp reads 2-D arrays (rows × columns)"),
        ));
    }
    Ok((dims[0], dims[1], start + len))
}

/// The column names: the sidecar's, or `x1, …, x(k−1), y`.
fn names(path: &str, k: usize) -> Result<Vec<String>, ReadError> {
    let side = format!("{path}.columns");
    match std::fs::read_to_string(&side) {
        Ok(text) => {
            let line = text
                .trim_start_matches('\u{feff}')
                .lines()
                .next()
                .unwrap_or("");
            let names: Vec<String> = line.split(',').map(|s| s.trim().to_string()).collect();
            if names.len() != k {
                return Err(npy_err(
                    path,
                    format!(
                        "{side} names {} columns, but the array has {k}",
                        names.len()
                    ),
                ));
            }
            Ok(names)
        }
        Err(_) => {
            let mut v = crate::data::default_feature_names(k.saturating_sub(1));
            if k > 0 {
                v.push("y".into());
            }
            Ok(v)
        }
    }
}

/// Rows read per chunk of the file (about 8 MiB).
fn chunk_rows(k: usize) -> usize {
    ((8 << 20) / (8 * k.max(1))).max(1)
}

/// Reads a `.npy` file (see [`super::read_dataset`]).
pub(super) fn read(path: &str, want: Want) -> Result<Dataset, ReadError> {
    let file = open(path)?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut r = std::io::BufReader::new(file);
    let (n, k, offset) = header(path, &mut r)?;
    let header_names = names(path, k)?;
    let plan = columns::plan(path, &header_names, n, want)?;
    let need = n.checked_mul(k).and_then(|c| c.checked_mul(8));
    if need.is_none_or(|b| (b + offset) as u64 > size) {
        return Err(npy_err(
            path,
            format!("the file is shorter than its shape ({n}, {k}) says"),
        ));
    }
    let d = plan.d;
    let mut dest: Vec<&[Out]> = vec![&[]; k];
    for (j, outs) in &plan.uses {
        dest[*j] = outs;
    }
    let mut x = vec![0.0; n * d];
    let mut y = vec![0.0; n];
    let rows = chunk_rows(k);
    let block = columns_block(k);
    let mut buf = vec![0u8; rows * k * 8];
    for start in (0..n).step_by(rows) {
        let m = rows.min(n - start);
        let bytes = &mut buf[..m * k * 8];
        r.read_exact(bytes).map_err(|e| DataError::Io {
            path: path.into(),
            reason: e.to_string(),
        })?;
        let bad = bytes
            .par_chunks(block * k * 8)
            .zip(x[start * d..(start + m) * d].par_chunks_mut(block * d.max(1)))
            .zip(y[start..start + m].par_chunks_mut(block))
            .enumerate()
            .map(|(b, ((src, xb), yb))| {
                for (i, row) in src.chunks_exact(k * 8).enumerate() {
                    for (c, v) in row.chunks_exact(8).enumerate() {
                        if dest[c].is_empty() {
                            continue;
                        }
                        let v = f64::from_le_bytes(v.try_into().unwrap_or([0; 8]));
                        if !v.is_finite() {
                            return Some(Bad {
                                row: start + b * block + i,
                                col: c,
                                null: false,
                            });
                        }
                        for o in dest[c] {
                            match *o {
                                Out::Feature(f) => xb[i * d + f] = v,
                                Out::Target => yb[i] = v,
                            }
                        }
                    }
                }
                None
            })
            .reduce(|| None, columns::first);
        if let Some(b) = bad {
            return Err(b.error(path, &header_names).into());
        }
    }
    Ok(Dataset::new(x, y, d, plan.feature_names, plan.target_name)?)
}

/// Rows per parallel block of a chunk.
fn columns_block(k: usize) -> usize {
    (32_768 / k.max(1)).max(16)
}

/// Writes `ds` as a `.npy` array of shape (n, d + 1): the features, then the target.
pub(super) fn write<W: std::io::Write>(ds: &Dataset, mut out: W) -> std::io::Result<()> {
    let (n, d) = (ds.n(), ds.d());
    let mut dict = format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': ({n}, {}), }}",
        d + 1
    );
    // the header (magic, version, length, dictionary, newline) fills a multiple of 64 bytes
    while (10 + dict.len() + 1) % 64 != 0 {
        dict.push(' ');
    }
    dict.push('\n');
    out.write_all(MAGIC)?;
    out.write_all(&[1, 0])?;
    out.write_all(&(dict.len() as u16).to_le_bytes())?;
    out.write_all(dict.as_bytes())?;
    let mut row = Vec::with_capacity((d + 1) * 8);
    for i in 0..n {
        row.clear();
        for v in ds.row(i).iter().chain([&ds.y()[i]]) {
            row.extend_from_slice(&v.to_le_bytes());
        }
        out.write_all(&row)?;
    }
    Ok(())
}
