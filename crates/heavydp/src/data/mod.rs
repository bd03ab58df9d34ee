//! Datasets: an n × d row-major feature matrix stored once, contiguously, plus a
//! response vector; the CSV reader of the CONTRACT; the papers' synthetic scenarios.

mod csv_reader;
pub mod scenarios;

pub use csv_reader::{read_csv, read_csv_bytes, read_csv_column, read_csv_features, read_csv_str};

use crate::linalg::{block_rows, dot, Rows};
use rayon::prelude::*;
use std::sync::Arc;
use thiserror::Error;

/// Errors of data loading and validation. Messages name the file, the row and the
/// column, and say what is wrong; they never contain a data value.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum DataError {
    #[error("{path}: cannot read the file: {reason}")]
    Io { path: String, reason: String },
    #[error("{path}: the file is empty (expected a header row and at least one data row)")]
    Empty { path: String },
    #[error("{path}: the file has a header but no data rows")]
    NoRows { path: String },
    #[error("{path}: the delimiter looks wrong: the header is one column '{header}', which holds {delimiter}s; heavydp reads comma-separated files (replace each {delimiter} by a comma)")]
    Delimiter {
        path: String,
        header: String,
        delimiter: &'static str,
    },
    #[error("{path}: header column {column} is empty")]
    EmptyColumnName { path: String, column: usize },
    #[error("{path}: column name '{name}' appears more than once in the header")]
    DuplicateColumn { path: String, name: String },
    #[error("{path}: target column '{target}' is not in the header (use --target to name the response column)")]
    MissingTarget { path: String, target: String },
    #[error("{path}: there are no feature columns (only the target '{target}')")]
    NoFeatures { path: String, target: String },
    #[error("{path}: data row {row} has {found} fields, but the header has {expected}")]
    Ragged {
        path: String,
        row: usize,
        expected: usize,
        found: usize,
    },
    #[error("{path}: data row {row}, column '{column}': not a number")]
    NonNumeric {
        path: String,
        row: usize,
        column: String,
    },
    #[error("{path}: data row {row}, column '{column}': NaN or infinite values are not allowed")]
    NonFinite {
        path: String,
        row: usize,
        column: String,
    },
    #[error("{path}: missing column '{column}' required by the model")]
    MissingFeature { path: String, column: String },
    #[error("{path}: malformed CSV at data row {row}: {reason}")]
    Malformed {
        path: String,
        row: usize,
        reason: String,
    },
    #[error("invalid dataset: {0}")]
    Shape(String),
    #[error("unknown scenario '{0}' (see `heavydp simulate --help` for the list)")]
    UnknownScenario(String),
    #[error("scenario {scenario}: {reason}")]
    BadScenario { scenario: String, reason: String },
}

/// A caller-owned feature buffer a [`Dataset`] can use in place of its own vector
/// (see [`Dataset::from_buffer`]): the Python package lends a NumPy array's memory this
/// way, so a fit does not copy the matrix. The buffer is borrowed for the dataset's
/// lifetime; the pipeline may overwrite it (in-place standardisation).
pub trait FeatureBuffer: Send + Sync {
    /// The n·d values, row-major.
    fn as_slice(&self) -> &[f64];
    /// The same values, writable (called only when [`FeatureBuffer::writable`] is true).
    fn as_mut_slice(&mut self) -> &mut [f64];
    /// False for a read-only loan (a NumPy array the caller did not give up): the
    /// pipeline then reads standardised features through a [`ColumnMap`] instead of
    /// overwriting them.
    fn writable(&self) -> bool {
        true
    }
}

/// The one formula of standardisation: clamp((v − c)/s, −W, W). Used by the in-place
/// path and by [`ColumnMap`], so both give the same bits.
#[inline]
pub fn standardise(v: f64, centre: f64, scale: f64, bound: f64) -> f64 {
    ((v - centre) / scale).clamp(-bound, bound)
}

/// A per-column standardisation applied when the features are read: a fit on a
/// dataset with a map sees x̃ᵢⱼ = [`standardise`](xᵢⱼ, cⱼ, sⱼ, W), computed row by row
/// into a small scratch buffer, so a lent read-only matrix (a NumPy array) is never
/// copied. Readers use [`Dataset::read_row`] and [`Dataset::block`]; the raw-slice
/// accessors ([`Dataset::x`], [`Dataset::row`], [`Dataset::rows`]) refuse a mapped
/// dataset (an internal error: the pipeline materialises the map for an algorithm that
/// does not read through it, see `PrivateAlgorithm::reads_mapped_features`).
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnMap {
    pub centre: Vec<f64>,
    pub scale: Vec<f64>,
    /// W: the winsorisation bound in scaled units (`f64::INFINITY` for none).
    pub bound: f64,
}

impl ColumnMap {
    /// `out[j] = standardise(raw[j], cⱼ, sⱼ, W)` for one row.
    #[inline]
    pub fn map_row(&self, raw: &[f64], out: &mut [f64]) {
        self.map_span(0, raw, out);
    }

    /// Columns `j0..j0 + raw.len()` of one row: `out[k] = standardise(raw[k], c_{j0+k},
    /// s_{j0+k}, W)`.
    #[inline]
    pub fn map_span(&self, j0: usize, raw: &[f64], out: &mut [f64]) {
        let j1 = j0 + raw.len();
        for (((o, v), c), s) in out
            .iter_mut()
            .zip(raw)
            .zip(&self.centre[j0..j1])
            .zip(&self.scale[j0..j1])
        {
            *o = standardise(*v, *c, *s, self.bound);
        }
    }

    /// Maps a row-major block of whole rows in place.
    pub fn map_in_place(&self, block: &mut [f64]) {
        let d = self.centre.len().max(1);
        for row in block.chunks_mut(d) {
            for ((v, c), s) in row.iter_mut().zip(&self.centre).zip(&self.scale) {
                *v = standardise(*v, *c, *s, self.bound);
            }
        }
    }
}

impl Rows for Dataset {
    fn width(&self) -> usize {
        self.d
    }
    #[inline]
    fn get<'a>(&'a self, i: usize, scratch: &'a mut [f64]) -> &'a [f64] {
        let raw = &self.x[i * self.d..(i + 1) * self.d];
        match &self.map {
            None => raw,
            Some(m) => {
                m.map_row(raw, scratch);
                scratch
            }
        }
    }
    #[inline]
    fn get_span<'a>(&'a self, i: usize, j0: usize, j1: usize, scratch: &'a mut [f64]) -> &'a [f64] {
        let raw = &self.x[i * self.d + j0..i * self.d + j1];
        match &self.map {
            None => raw,
            Some(m) => {
                let out = &mut scratch[..j1 - j0];
                m.map_span(j0, raw, out);
                out
            }
        }
    }
}

const MAPPED: &str =
    "heavydp internal error: raw feature access on a lazily standardised dataset (use read_row/block)";

/// The index of the first NaN or infinite value, scanning blocks of 2¹⁶ values in
/// parallel (the first bad block wins, so the answer is the serial scan's).
fn first_non_finite(x: &[f64]) -> Option<usize> {
    const BLOCK: usize = 1 << 16;
    x.par_chunks(BLOCK)
        .position_first(|b| !b.iter().all(|v| v.is_finite()))
        .map(|k| {
            let b = &x[k * BLOCK..((k + 1) * BLOCK).min(x.len())];
            k * BLOCK + b.iter().position(|v| !v.is_finite()).unwrap_or(0)
        })
}

/// The feature storage: an owned vector or a lent [`FeatureBuffer`], shared (not
/// copied) by the views of [`Dataset::clipped_view`]. Writing goes through
/// [`Features::unique`]: a shared or read-only storage is copied first (copy on write).
enum Features {
    Owned(Arc<Vec<f64>>),
    Lent(Arc<dyn FeatureBuffer>),
}

impl std::ops::Deref for Features {
    type Target = [f64];
    fn deref(&self) -> &[f64] {
        match self {
            Features::Owned(v) => v,
            Features::Lent(b) => b.as_slice(),
        }
    }
}

impl std::ops::DerefMut for Features {
    fn deref_mut(&mut self) -> &mut [f64] {
        self.unique();
        match self {
            Features::Owned(v) => Arc::get_mut(v).expect("unique after Features::unique"),
            Features::Lent(b) => Arc::get_mut(b)
                .expect("unique after Features::unique")
                .as_mut_slice(),
        }
    }
}

impl Features {
    fn owned(v: Vec<f64>) -> Self {
        Features::Owned(Arc::new(v))
    }

    /// Writable in place, without a copy: not shared with a view, and owned or a
    /// writable loan.
    fn writable(&self) -> bool {
        match self {
            Features::Owned(v) => Arc::strong_count(v) == 1,
            Features::Lent(b) => Arc::strong_count(b) == 1 && b.writable(),
        }
    }

    /// Makes the storage writable in place, copying it when it is not.
    fn unique(&mut self) {
        if !self.writable() {
            *self = Features::owned(self.to_vec());
        }
    }

    fn share(&self) -> Self {
        match self {
            Features::Owned(v) => Features::Owned(Arc::clone(v)),
            Features::Lent(b) => Features::Lent(Arc::clone(b)),
        }
    }
}

/// A dataset: features `x` (n × d, row-major, contiguous) and response `y`, with an
/// optional lazy [`ColumnMap`]. Cloning always gives an owned copy (also of a dataset
/// on a lent buffer; a mapped dataset's clone holds the mapped values).
pub struct Dataset {
    n: usize,
    d: usize,
    x: Features,
    map: Option<ColumnMap>,
    y: Vec<f64>,
    feature_names: Vec<String>,
    target_name: String,
}

impl Clone for Dataset {
    fn clone(&self) -> Self {
        let mut x = self.x.to_vec();
        if let Some(m) = &self.map {
            m.map_in_place(&mut x);
        }
        Dataset {
            n: self.n,
            d: self.d,
            x: Features::owned(x),
            map: None,
            y: self.y.clone(),
            feature_names: self.feature_names.clone(),
            target_name: self.target_name.clone(),
        }
    }
}

impl PartialEq for Dataset {
    fn eq(&self, o: &Self) -> bool {
        self.n == o.n
            && self.d == o.d
            && self.x[..] == o.x[..]
            && self.map == o.map
            && self.y == o.y
            && self.feature_names == o.feature_names
            && self.target_name == o.target_name
    }
}

impl std::fmt::Debug for Dataset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dataset")
            .field("n", &self.n)
            .field("d", &self.d)
            .field("lent", &matches!(self.x, Features::Lent(_)))
            .field("mapped", &self.map.is_some())
            .field("feature_names", &self.feature_names)
            .field("target_name", &self.target_name)
            .finish_non_exhaustive()
    }
}

impl Dataset {
    /// Builds a dataset, checking shapes and that every value is finite.
    pub fn new(
        x: Vec<f64>,
        y: Vec<f64>,
        d: usize,
        feature_names: Vec<String>,
        target_name: String,
    ) -> Result<Self, DataError> {
        Self::build(Features::owned(x), y, d, feature_names, target_name)
    }

    /// As [`Dataset::new`], on a lent feature buffer instead of an owned vector: the
    /// values are read (and, by an in-place standardisation, overwritten) where they are;
    /// nothing is copied. Same checks and messages as [`Dataset::new`].
    pub fn from_buffer(
        x: Box<dyn FeatureBuffer>,
        y: Vec<f64>,
        d: usize,
        feature_names: Vec<String>,
        target_name: String,
    ) -> Result<Self, DataError> {
        Self::build(
            Features::Lent(Arc::from(x)),
            y,
            d,
            feature_names,
            target_name,
        )
    }

    /// The parts `(x, y, feature_names, target_name)`, without copying an owned `x`
    /// (a lent buffer is copied out).
    pub fn into_parts(self) -> (Vec<f64>, Vec<f64>, Vec<String>, String) {
        let mut x = match self.x {
            Features::Owned(v) => Arc::try_unwrap(v).unwrap_or_else(|v| v.to_vec()),
            Features::Lent(b) => b.as_slice().to_vec(),
        };
        if let Some(m) = &self.map {
            m.map_in_place(&mut x);
        }
        (x, self.y, self.feature_names, self.target_name)
    }

    /// True when the features live in a lent [`FeatureBuffer`].
    pub fn is_lent(&self) -> bool {
        matches!(self.x, Features::Lent(_))
    }

    fn build(
        x: Features,
        y: Vec<f64>,
        d: usize,
        feature_names: Vec<String>,
        target_name: String,
    ) -> Result<Self, DataError> {
        let n = y.len();
        if n == 0 {
            return Err(DataError::Shape("no rows".into()));
        }
        if d == 0 {
            return Err(DataError::Shape("no feature columns".into()));
        }
        if x.len() != n * d {
            return Err(DataError::Shape(format!(
                "x has {} values, expected n*d = {}*{}",
                x.len(),
                n,
                d
            )));
        }
        if feature_names.len() != d {
            return Err(DataError::Shape(format!(
                "{} feature names for d = {}",
                feature_names.len(),
                d
            )));
        }
        if let Some(i) = first_non_finite(&x) {
            return Err(DataError::Shape(format!(
                "row {}, feature '{}': NaN or infinite value",
                i / d + 1,
                feature_names[i % d]
            )));
        }
        if let Some(i) = y.iter().position(|v| !v.is_finite()) {
            return Err(DataError::Shape(format!(
                "row {}, target: NaN or infinite value",
                i + 1
            )));
        }
        Ok(Dataset {
            n,
            d,
            x,
            map: None,
            y,
            feature_names,
            target_name,
        })
    }

    /// A dataset with default names `x1..xd` and target `y`.
    pub fn from_rows(x: Vec<f64>, y: Vec<f64>, d: usize) -> Result<Self, DataError> {
        Self::new(x, y, d, default_feature_names(d), "y".to_string())
    }

    /// A dataset whose rows live elsewhere (a Spark DataFrame, `docs/distributed.md`):
    /// its public shape n × d and names, no values. Only the algorithms' external
    /// row-sum path reads it ([`crate::algorithms::row_sums`]); reading a row of it is
    /// an internal error (a panic).
    pub fn remote(
        n: usize,
        d: usize,
        feature_names: Vec<String>,
        target_name: String,
    ) -> Result<Self, DataError> {
        if n == 0 {
            return Err(DataError::Shape("no rows".into()));
        }
        if d == 0 {
            return Err(DataError::Shape("no feature columns".into()));
        }
        if feature_names.len() != d {
            return Err(DataError::Shape(format!(
                "{} feature names for d = {}",
                feature_names.len(),
                d
            )));
        }
        Ok(Dataset {
            n,
            d,
            x: Features::owned(Vec::new()),
            map: None,
            y: Vec::new(),
            feature_names,
            target_name,
        })
    }

    /// True for a [`Dataset::remote`] dataset (no values here).
    pub fn is_remote(&self) -> bool {
        self.y.len() != self.n
    }

    pub fn n(&self) -> usize {
        self.n
    }
    pub fn d(&self) -> usize {
        self.d
    }
    /// The row-major feature matrix (not available on a mapped dataset: see
    /// [`ColumnMap`]).
    pub fn x(&self) -> &[f64] {
        assert!(self.map.is_none(), "{MAPPED}");
        &self.x
    }

    /// True when the features are read through a lazy [`ColumnMap`].
    pub fn is_mapped(&self) -> bool {
        self.map.is_some()
    }

    /// True when the features may be overwritten (owned, or a writable loan).
    pub fn features_writable(&self) -> bool {
        self.x.writable()
    }

    /// Standardises the features as they are read (no pass over the data now, no
    /// copy); see [`ColumnMap`]. Replaces an earlier map.
    pub fn map_lazily(&mut self, map: ColumnMap) {
        assert_eq!(map.centre.len(), self.d);
        assert_eq!(map.scale.len(), self.d);
        self.map = Some(map);
    }

    /// Applies a lazy map for good: in place when the features are writable, else into
    /// an owned copy (the one copy a read-only loan costs, for a reader that needs the
    /// raw slice). No-op without a map.
    pub fn materialise(&mut self) {
        let Some(m) = self.map.take() else { return };
        self.x.unique();
        let d = self.d.max(1);
        self.x
            .par_chunks_mut(d * block_rows(d))
            .for_each(|b| m.map_in_place(b));
    }

    /// Row `i` as the fit sees it (mapped when the dataset has a map), written into
    /// `out` (length d).
    #[inline]
    pub fn read_row(&self, i: usize, out: &mut [f64]) {
        let raw = &self.x[i * self.d..(i + 1) * self.d];
        match &self.map {
            None => out.copy_from_slice(raw),
            Some(m) => m.map_row(raw, out),
        }
    }

    /// Rows `start..end` as the fit sees them, row-major: the stored slice itself
    /// without a map, or the mapped rows written into `scratch` (resized as needed;
    /// keep one per thread and reuse it).
    #[inline]
    pub fn block<'a>(&'a self, start: usize, end: usize, scratch: &'a mut Vec<f64>) -> &'a [f64] {
        let raw = &self.x[start * self.d..end * self.d];
        match &self.map {
            None => raw,
            Some(m) => {
                scratch.clear();
                scratch.extend_from_slice(raw);
                m.map_in_place(scratch);
                scratch
            }
        }
    }

    /// Margins ⟨x̃ᵢ, w⟩ for every row, through the map when there is one (rows in
    /// parallel; each margin is one dot product, so the result does not depend on the
    /// block size or the thread count).
    pub fn margins(&self, w: &[f64]) -> Vec<f64> {
        let d = self.d.max(1);
        let br = block_rows(d);
        let mut out = vec![0.0; self.n];
        out.par_chunks_mut(br)
            .enumerate()
            .for_each_init(Vec::new, |scratch, (b, ob)| {
                let start = b * br;
                let xb = self.block(start, start + ob.len(), scratch);
                for (o, row) in ob.iter_mut().zip(xb.chunks_exact(d)) {
                    *o = dot(row, w);
                }
            });
        out
    }
    pub fn y(&self) -> &[f64] {
        &self.y
    }
    /// Mutable response (for label preparation).
    /// Features and response, both mutable (for in-place standardisation).
    pub fn x_y_mut(&mut self) -> (&mut [f64], &mut [f64]) {
        assert!(self.map.is_none(), "{MAPPED}");
        (&mut self.x[..], &mut self.y)
    }
    pub fn y_mut(&mut self) -> &mut [f64] {
        &mut self.y
    }
    pub fn row(&self, i: usize) -> &[f64] {
        assert!(self.map.is_none(), "{MAPPED}");
        &self.x[i * self.d..(i + 1) * self.d]
    }
    pub fn feature_names(&self) -> &[String] {
        &self.feature_names
    }
    pub fn target_name(&self) -> &str {
        &self.target_name
    }

    /// Rows `start..end` as borrowed slices `(x, y)`.
    pub fn rows(&self, start: usize, end: usize) -> (&[f64], &[f64]) {
        assert!(self.map.is_none(), "{MAPPED}");
        (&self.x[start * self.d..end * self.d], &self.y[start..end])
    }

    /// Clips every feature and the response to [−B, B] in place (record by record; does
    /// not change the neighbouring relation). `B` must be a public bound.
    pub fn clip_in_place(&mut self, bound: f64) {
        self.materialise();
        for v in self.x.iter_mut().chain(self.y.iter_mut()) {
            *v = v.clamp(-bound, bound);
        }
    }

    /// A copy with every feature and the response clipped to [−B, B].
    pub fn clipped(&self, bound: f64) -> Dataset {
        let mut c = self.clone();
        c.clip_in_place(bound);
        c
    }

    /// The same values as [`Dataset::clipped`] (the response clipped only when
    /// `clip_response`), without copying the features: the view shares them and clips
    /// as it reads (a [`ColumnMap`] with bound B, composed with this dataset's map:
    /// clamp(clamp(z, −W, W), −B, B) = clamp(z, −min(W, B), min(W, B)) exactly; without
    /// a map, clamp((v − 0)/1, −B, B) is v clipped, bit for bit). Only the response (n
    /// values) is copied. Readers use [`Dataset::read_row`], [`Dataset::block`] or
    /// [`Rows`].
    pub fn clipped_view(&self, bound: f64, clip_response: bool) -> Dataset {
        let map = match &self.map {
            None => ColumnMap {
                centre: vec![0.0; self.d],
                scale: vec![1.0; self.d],
                bound,
            },
            Some(m) => ColumnMap {
                bound: m.bound.min(bound),
                ..m.clone()
            },
        };
        let mut y = self.y.clone();
        if clip_response {
            y.iter_mut().for_each(|v| *v = v.clamp(-bound, bound));
        }
        Dataset {
            n: self.n,
            d: self.d,
            x: self.x.share(),
            map: Some(map),
            y,
            feature_names: self.feature_names.clone(),
            target_name: self.target_name.clone(),
        }
    }

    /// A copy with the feature columns named in `names`, in that order (`path` is used
    /// in the error when a column is missing).
    pub fn select_features(&self, names: &[String], path: &str) -> Result<Dataset, DataError> {
        let cols = column_positions(&self.feature_names, names, path)?;
        let mut x = Vec::with_capacity(self.n * cols.len());
        let mut row = vec![0.0; self.d];
        for i in 0..self.n {
            self.read_row(i, &mut row);
            x.extend(cols.iter().map(|&j| row[j]));
        }
        Ok(Dataset {
            n: self.n,
            d: cols.len(),
            x: Features::owned(x),
            map: None,
            y: self.y.clone(),
            feature_names: names.to_vec(),
            target_name: self.target_name.clone(),
        })
    }

    /// A copy with the rows in `idx` order (for data-independent permutations).
    pub fn select_rows(&self, idx: &[usize]) -> Dataset {
        let mut x = Vec::with_capacity(idx.len() * self.d);
        let mut y = Vec::with_capacity(idx.len());
        let mut row = vec![0.0; self.d];
        for &i in idx {
            self.read_row(i, &mut row);
            x.extend_from_slice(&row);
            y.push(self.y[i]);
        }
        Dataset {
            n: idx.len(),
            d: self.d,
            x: Features::owned(x),
            map: None,
            y,
            feature_names: self.feature_names.clone(),
            target_name: self.target_name.clone(),
        }
    }
}

/// `x1, …, xd`.
pub fn default_feature_names(d: usize) -> Vec<String> {
    (1..=d).map(|j| format!("x{j}")).collect()
}

/// The positions in `header` of the columns named in `names`, in that order; a name that
/// is not in the header is [`DataError::MissingFeature`] of the file `path`.
pub(crate) fn column_positions(
    header: &[String],
    names: &[String],
    path: &str,
) -> Result<Vec<usize>, DataError> {
    names
        .iter()
        .map(|nm| {
            header
                .iter()
                .position(|h| h == nm)
                .ok_or_else(|| DataError::MissingFeature {
                    path: path.into(),
                    column: nm.clone(),
                })
        })
        .collect()
}

/// Writes a dataset as CSV (features then target) with 17 significant digits, so a
/// round trip is exact.
pub fn write_csv<W: std::io::Write>(data: &Dataset, mut w: W) -> std::io::Result<()> {
    let mut header = data.feature_names.join(",");
    header.push(',');
    header.push_str(&data.target_name);
    writeln!(w, "{header}")?;
    let mut line = String::with_capacity(24 * (data.d + 1));
    let mut row = vec![0.0; data.d];
    for i in 0..data.n {
        line.clear();
        data.read_row(i, &mut row);
        for v in &row {
            line.push_str(&format_float(*v));
            line.push(',');
        }
        line.push_str(&format_float(data.y[i]));
        line.push('\n');
        w.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// Shortest representation that round-trips exactly (Rust's `Display` for `f64`).
pub fn format_float(v: f64) -> String {
    v.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dataset_rejects_bad_shapes_and_values() {
        assert!(Dataset::from_rows(vec![], vec![], 2).is_err());
        assert!(Dataset::from_rows(vec![1.0; 3], vec![1.0; 2], 2).is_err());
        let e = Dataset::from_rows(vec![1.0, f64::NAN, 0.0, 0.0], vec![1.0, 2.0], 2).unwrap_err();
        assert!(
            e.to_string().contains("row 1") && e.to_string().contains("x2"),
            "{e}"
        );
    }

    #[test]
    fn clipping_and_round_trip() {
        let d = Dataset::from_rows(vec![3.0, -0.5, 0.1, -7.0], vec![2.0, -0.25], 2).unwrap();
        let c = d.clipped(1.0);
        assert_eq!(c.x(), &[1.0, -0.5, 0.1, -1.0]);
        assert!(!d.is_lent());
        assert_eq!(c.y(), &[1.0, -0.25]);
        let mut buf = Vec::new();
        write_csv(&d, &mut buf).unwrap();
        let back = read_csv_str(std::str::from_utf8(&buf).unwrap(), "mem", "y").unwrap();
        assert_eq!(back, d);
        let x = 0.1f64 + 0.2;
        assert_eq!(format_float(x).parse::<f64>().unwrap(), x);
    }

    /// A lent buffer (in the Python package, a NumPy array's memory).
    struct Lender(Vec<f64>);
    impl FeatureBuffer for Lender {
        fn as_slice(&self) -> &[f64] {
            &self.0
        }
        fn as_mut_slice(&mut self) -> &mut [f64] {
            &mut self.0
        }
    }

    #[test]
    fn lent_buffer_is_used_in_place_and_checked_like_an_owned_one() {
        let values = vec![3.0, -0.5, 0.1, -7.0];
        let ptr = values.as_ptr();
        let mut lent = Dataset::from_buffer(
            Box::new(Lender(values)),
            vec![2.0, -0.25],
            2,
            default_feature_names(2),
            "y".into(),
        )
        .unwrap();
        assert!(lent.is_lent());
        assert_eq!(lent.x().as_ptr(), ptr, "the lent values are not copied");
        let owned = Dataset::from_rows(vec![3.0, -0.5, 0.1, -7.0], vec![2.0, -0.25], 2).unwrap();
        assert_eq!(lent, owned);
        assert_eq!(lent.row(1), owned.row(1));
        let copy = lent.clone();
        assert!(!copy.is_lent());
        assert_ne!(copy.x().as_ptr(), ptr);
        // in-place writes go to the lent memory, the clone is untouched
        lent.clip_in_place(1.0);
        assert_eq!(lent.x().as_ptr(), ptr);
        assert_eq!(lent.x(), &[1.0, -0.5, 0.1, -1.0]);
        let (x, _) = lent.x_y_mut();
        x[0] = 0.5;
        assert_eq!(lent.x()[0], 0.5);
        assert_eq!(copy.x(), &[3.0, -0.5, 0.1, -7.0]);
        // into_parts: an owned x moves out, a lent one is copied out
        let cptr = copy.x().as_ptr();
        let (cx, cy, names, target) = copy.into_parts();
        assert_eq!(
            (cx.as_ptr(), cy, names, target.as_str()),
            (cptr, vec![2.0, -0.25], default_feature_names(2), "y")
        );
        let (lx, ..) = lent.into_parts();
        assert_eq!(lx, vec![0.5, -0.5, 0.1, -1.0]);
        // the same checks and messages as Dataset::new
        let e = Dataset::from_buffer(
            Box::new(Lender(vec![1.0, f64::NAN])),
            vec![1.0],
            2,
            default_feature_names(2),
            "y".into(),
        )
        .unwrap_err();
        assert_eq!(
            e,
            Dataset::from_rows(vec![1.0, f64::NAN], vec![1.0], 2).unwrap_err()
        );
        assert!(Dataset::from_buffer(
            Box::new(Lender(vec![1.0; 3])),
            vec![1.0; 2],
            2,
            default_feature_names(2),
            "y".into()
        )
        .is_err());
    }

    fn mapped_pair() -> (Dataset, Dataset, ColumnMap) {
        let x = vec![3.0, -0.5, 0.1, -70.0, 2.5, 1e6];
        let map = ColumnMap {
            centre: vec![1.0, -2.0],
            scale: vec![0.5, 3.0],
            bound: 10.0,
        };
        let mut lazy = Dataset::from_buffer(
            Box::new(crate::test_support::ReadOnlyLoan(x.clone())),
            vec![1.0, 2.0, 3.0],
            2,
            default_feature_names(2),
            "y".into(),
        )
        .unwrap();
        assert!(!lazy.features_writable());
        lazy.map_lazily(map.clone());
        let mut eager = Dataset::from_rows(x, vec![1.0, 2.0, 3.0], 2).unwrap();
        let (xe, _) = eager.x_y_mut();
        for row in xe.chunks_mut(2) {
            for (j, v) in row.iter_mut().enumerate() {
                *v = standardise(*v, map.centre[j], map.scale[j], map.bound);
            }
        }
        (lazy, eager, map)
    }

    #[test]
    fn a_lazy_map_reads_the_same_values_as_the_standardised_copy() {
        let (lazy, eager, _) = mapped_pair();
        assert!(lazy.is_mapped() && !eager.is_mapped());
        assert_eq!(eager.x()[5], 10.0, "winsorised at W");
        let (mut a, mut b) = (vec![0.0; 2], Vec::new());
        for i in 0..3 {
            lazy.read_row(i, &mut a);
            assert_eq!(a, eager.row(i));
            let mut scratch = [0.0; 2];
            assert_eq!(Rows::get(&lazy, i, &mut scratch), eager.row(i));
        }
        assert_eq!(lazy.block(1, 3, &mut b), &eager.x()[2..6]);
        assert_eq!(
            eager.block(1, 3, &mut b).as_ptr(),
            eager.x()[2..].as_ptr(),
            "no map: borrowed in place"
        );
        assert_eq!(lazy.margins(&[0.5, -2.0]), eager.margins(&[0.5, -2.0]));
        assert_eq!(lazy.clone(), eager, "a clone holds the mapped values");
        assert_eq!(lazy.select_rows(&[2, 0]), eager.select_rows(&[2, 0]));
        let mut m = lazy;
        m.materialise();
        assert!(
            !m.is_mapped() && !m.is_lent(),
            "a read-only loan is copied once"
        );
        assert_eq!(m, eager);
        let (lazy, ..) = mapped_pair();
        assert_eq!(lazy.into_parts().0, eager.x());
    }

    #[test]
    #[should_panic(expected = "internal error")]
    fn raw_access_to_a_mapped_dataset_is_refused() {
        let (lazy, ..) = mapped_pair();
        let _ = lazy.x();
    }

    #[test]
    fn a_clipped_view_shares_the_features_and_reads_the_clipped_values() {
        let d = Dataset::from_rows(
            vec![3.0, -0.5, 0.1, -7.0, -0.0, 2.0],
            vec![2.0, -0.25, 9.0],
            2,
        )
        .unwrap();
        let v = d.clipped_view(1.0, true);
        assert!(v.is_mapped());
        assert!(!d.features_writable(), "shared with the view");
        assert_eq!(v.clone(), d.clipped(1.0), "bit for bit, -0.0 included");
        assert_eq!(v.clone().x()[4].to_bits(), (-0.0f64).to_bits());
        let kept = d.clipped_view(1.0, false);
        assert_eq!(kept.y(), d.y());
        // on a lazily standardised dataset: the two clamps compose
        let (lazy, eager, _) = mapped_pair();
        assert_eq!(lazy.clipped_view(2.0, true).clone(), eager.clipped(2.0));
        // writing a shared dataset copies it first (the view keeps its values)
        let mut w = d;
        w.clip_in_place(0.5);
        assert_eq!(
            v.clone(),
            Dataset::from_rows(
                vec![3.0, -0.5, 0.1, -7.0, -0.0, 2.0],
                vec![2.0, -0.25, 9.0],
                2
            )
            .unwrap()
            .clipped(1.0)
        );
        assert!(w.features_writable());
    }
}
