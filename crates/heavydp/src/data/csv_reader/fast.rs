//! The fast path of the CSV reader: the file is read in blocks of
//! [`BLOCK`] bytes; each block is cut at line ends into parts, the lines of every part
//! are counted, and then every part is parsed in parallel straight into its own rows of
//! the one feature matrix (and of the response). Numbers are parsed by `fast-float2`,
//! which is correctly rounded like `str::parse::<f64>`, so every value is bit-identical
//! to the reference path's (checked against it in the tests of `csv_reader`).
//!
//! The fast path reads only plain files: ASCII, no quotes, lines ending in `\n` or
//! `\r\n`, no blank lines, every cell a finite number. On anything else — including
//! every error — it gives up ([`None`]) and the caller runs the reference path (the
//! `csv` crate, one record at a time), which reads quoted fields, skips blank lines, and
//! gives the error messages with their row and column. So the fast path never changes
//! what a file means or which message it gets: it only accepts what the reference path
//! accepts, with the same values.

use rayon::prelude::*;
use std::io::Read;

/// Bytes read per block (the matrix grows block by block; the file is never whole in
/// memory).
const BLOCK: usize = 32 << 20;
/// Target size of one part of a block (one parallel task).
const PART: usize = 1 << 20;

/// Where the values of one file column go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dest {
    /// Into the feature matrix, at this feature index.
    Feature(usize),
    /// Into the response.
    Target,
    /// Checked (a number, finite) and dropped.
    Skip,
}

/// The columns' destinations, decided from the header.
pub(super) struct Plan {
    /// One destination per file column.
    pub dest: Vec<Dest>,
    /// Number of features.
    pub d: usize,
}

/// What the fast path read: `x` (rows × d, row-major) and `y` (rows; zeros when no
/// column is the target).
pub(super) struct Parsed {
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub rows: usize,
}

/// Reads `r`; `plan` turns the header's names into destinations (or `None` when the
/// header is not acceptable). `None`: the fast path gave up (see the module doc).
pub(super) fn read<R: Read + Send>(
    mut r: R,
    plan: impl FnOnce(&[String]) -> Option<Plan>,
) -> Option<Parsed> {
    let mut cur = Vec::new();
    let mut eof = fill(&mut r, &mut cur, BLOCK)?;
    let nl = memchr::memchr(b'\n', &cur)?;
    let header = header_fields(&cur[..nl])?;
    let Plan { dest, d } = plan(&header)?;
    let k = header.len();
    let mut start = nl + 1;
    let (mut x, mut y, mut rows) = (Vec::new(), Vec::new(), 0usize);
    let mut next = Vec::new();
    loop {
        let data = &cur[start..];
        let end = if eof {
            data.len()
        } else {
            // a line longer than the block: nothing to parse yet, read on
            memchr::memrchr(b'\n', data).map_or(0, |i| i + 1)
        };
        // the unfinished line starts the next block, which is read while this one is
        // parsed
        next.clear();
        next.extend_from_slice(&data[end..]);
        let block = &data[..end];
        let (xs, ys, dest) = (&mut x, &mut y, &dest);
        let mut parse = move || match end {
            0 => Some(rows),
            _ => parse_block(block, k, dest, d, xs, ys, rows),
        };
        let (parsed, read) = if eof {
            (parse(), Some(true))
        } else {
            let want = next.len() + BLOCK;
            rayon::join(parse, || fill(&mut r, &mut next, want))
        };
        rows = parsed?;
        if eof {
            break;
        }
        eof = read?;
        std::mem::swap(&mut cur, &mut next);
        start = 0;
    }
    if rows == 0 {
        return None;
    }
    x.shrink_to_fit();
    y.shrink_to_fit();
    Some(Parsed { x, y, rows })
}

/// Reads until `buf` holds `want` bytes or the input ends (then `Some(true)`).
fn fill<R: Read + Send>(r: &mut R, buf: &mut Vec<u8>, want: usize) -> Option<bool> {
    let need = want.saturating_sub(buf.len());
    let got = r.by_ref().take(need as u64).read_to_end(buf).ok()?;
    Some(got < need)
}

/// The header's names as the reference path reads them (trimmed, a leading byte-order
/// mark dropped), when the line is plain ASCII without quotes.
fn header_fields(line: &[u8]) -> Option<Vec<String>> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let (line, bom) = match line.strip_prefix("\u{feff}".as_bytes()) {
        Some(l) => (l, true),
        None => (line, false),
    };
    // (after a byte-order mark, the reference path keeps leading white space)
    let after_bom = bom && line.first().is_some_and(|&b| is_space(b));
    if after_bom || !line.is_ascii() || line.contains(&b'"') || line.contains(&b'\r') {
        return None;
    }
    let text = std::str::from_utf8(line).ok()?;
    Some(text.split(',').map(|s| s.trim().to_string()).collect())
}

/// Parses the whole lines of `block` into rows `rows..` of `x` and `y` (grown to fit);
/// returns the new number of rows.
fn parse_block(
    block: &[u8],
    k: usize,
    dest: &[Dest],
    d: usize,
    x: &mut Vec<f64>,
    y: &mut Vec<f64>,
    rows: usize,
) -> Option<usize> {
    let parts = split_parts(block);
    let counts: Vec<usize> = parts.par_iter().map(|p| count_lines(p)).collect();
    let added: usize = counts.iter().sum();
    x.resize((rows + added) * d, 0.0);
    y.resize(rows + added, 0.0);
    let (mut xs, mut ys) = (&mut x[rows * d..], &mut y[rows..]);
    let mut jobs = Vec::with_capacity(parts.len());
    for (p, &c) in parts.iter().zip(&counts) {
        let (xa, xb) = std::mem::take(&mut xs).split_at_mut(c * d);
        let (ya, yb) = std::mem::take(&mut ys).split_at_mut(c);
        jobs.push((*p, xa, ya));
        (xs, ys) = (xb, yb);
    }
    let ok = jobs
        .into_par_iter()
        .all(|(p, xa, ya)| parse_part(p, k, dest, d, xa, ya));
    ok.then_some(rows + added)
}

/// `block` cut into parts of about [`PART`] bytes, each ending at a line end (the last
/// one at the block's end).
fn split_parts(block: &[u8]) -> Vec<&[u8]> {
    let mut parts = Vec::with_capacity(block.len() / PART + 1);
    let mut rest = block;
    while rest.len() > PART {
        match memchr::memchr(b'\n', &rest[PART..]) {
            Some(i) => {
                let (a, b) = rest.split_at(PART + i + 1);
                parts.push(a);
                rest = b;
            }
            None => break,
        }
    }
    if !rest.is_empty() {
        parts.push(rest);
    }
    parts
}

/// Lines of a part: its line ends, plus an unfinished last line.
fn count_lines(p: &[u8]) -> usize {
    let n = memchr::memchr_iter(b'\n', p).count();
    n + usize::from(p.last().is_some_and(|&b| b != b'\n'))
}

/// The whitespace `str::trim` removes within a line (a `\r` ends a record for the `csv`
/// crate, so it is not trimmed here but makes the fast path give up).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | 0x0b | 0x0c)
}

/// Parses every line of `p` (k fields each) into `x` (rows × d) and `y`; false at the
/// first thing the fast path does not read.
fn parse_part(p: &[u8], k: usize, dest: &[Dest], d: usize, x: &mut [f64], y: &mut [f64]) -> bool {
    let mut rest = p;
    let mut row = 0;
    while !rest.is_empty() {
        let (line, next) = match memchr::memchr(b'\n', rest) {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        rest = next;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            return false;
        }
        let xr = &mut x[row * d..(row + 1) * d];
        let mut pos = 0;
        for (j, to) in dest.iter().enumerate() {
            while pos < line.len() && is_space(line[pos]) {
                pos += 1;
            }
            let Ok((v, used)) = fast_float2::parse_partial::<f64, _>(&line[pos..]) else {
                return false;
            };
            pos += used;
            while pos < line.len() && is_space(line[pos]) {
                pos += 1;
            }
            if j + 1 < k {
                if line.get(pos) != Some(&b',') {
                    return false;
                }
                pos += 1;
            } else if pos != line.len() {
                return false;
            }
            if !v.is_finite() {
                return false;
            }
            match *to {
                Dest::Feature(f) => xr[f] = v,
                Dest::Target => y[row] = v,
                Dest::Skip => {}
            }
        }
        row += 1;
    }
    true
}
