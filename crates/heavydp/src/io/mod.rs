//! File formats: CSV, Parquet, Arrow IPC (Feather v2) and NumPy
//! `.npy`, chosen by the file's extension, read into the one contiguous row-major
//! feature matrix of a [`Dataset`] and written by `heavydp simulate`.
//!
//! | extension | format | column names |
//! |---|---|---|
//! | `.parquet` | Apache Parquet (uncompressed or Snappy) | the schema's |
//! | `.arrow`, `.ipc`, `.feather` | Arrow IPC file (Feather v2; uncompressed or LZ4) | the schema's |
//! | `.npy` | NumPy array: 2-D, float64, little-endian, C order | `x1, …, x(k−1), y` (the last column is the target `y`), or the names in the sidecar `FILE.npy.columns` (one comma-separated line) |
//! | anything else | CSV with a header row | the header's |
//!
//! Every format is checked as CSV is, with the same messages ([`DataError`]): no
//! columns, empty or repeated column names, no rows, the target or a model's feature
//! missing, and per cell — null (as CSV's empty cell: "not a number") and NaN or
//! infinite — naming the data row (1-based) and the column. Columns of another type
//! than floating point or integer are rejected as [`ReadError::ColumnType`]. Columns not
//! needed (a model's predictions read only its features) are not read.
//!
//! Columnar data is transposed straight into the final matrix, in parallel by blocks of
//! rows ([`columns::scatter`]); no rows-of-vectors, no second copy.

#[cfg(feature = "columnar")]
mod arrow;
pub mod columns;
mod npy;
#[cfg(feature = "columnar")]
mod parquet;

use crate::data::{self, DataError, Dataset};
use thiserror::Error;

/// Errors of reading or writing a data file: a [`DataError`] (the messages CSV gives),
/// or one only the typed formats can meet. Messages never contain a data value.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ReadError {
    #[error(transparent)]
    Data(#[from] DataError),
    #[error("{path}: column '{column}': not a number (its type is {found}; heavydp reads floating-point and integer columns)")]
    ColumnType {
        path: String,
        column: String,
        found: String,
    },
    #[error("{path}: not a readable {format} file: {reason}")]
    Format {
        path: String,
        format: &'static str,
        reason: String,
    },
    #[error("{path}: {reason}")]
    Npy { path: String, reason: String },
    #[error("{path}: cannot write: {reason}")]
    Write { path: String, reason: String },
}

/// The error of a Parquet or Arrow file in a build without the `columnar` feature.
#[cfg(not(feature = "columnar"))]
fn without_columnar(path: &str, f: Format) -> ReadError {
    ReadError::Format {
        path: path.into(),
        format: f.name(),
        reason: "this build of heavydp has no Parquet/Arrow support (the `columnar` feature; the CLI has it)".into(),
    }
}

/// A data file's format, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Csv,
    Parquet,
    ArrowIpc,
    Npy,
}

impl Format {
    /// The format of `path`: `.parquet`, `.arrow` / `.ipc` / `.feather`, `.npy`
    /// (any case); CSV otherwise.
    pub fn of(path: &str) -> Format {
        let ext = std::path::Path::new(path)
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        match ext.as_str() {
            "parquet" => Format::Parquet,
            "arrow" | "ipc" | "feather" => Format::ArrowIpc,
            "npy" => Format::Npy,
            _ => Format::Csv,
        }
    }

    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "CSV",
            Format::Parquet => "Parquet",
            Format::ArrowIpc => "Arrow IPC",
            Format::Npy => "NumPy .npy",
        }
    }
}

/// Reads a data file, its format chosen by [`Format::of`]:
///
/// - `target` names the response column (`None`: the response is 0, as for predictions
///   and means);
/// - `features` names the feature columns, in that order (`None`: every column but the
///   target).
///
/// `fit` reads `(Some(target), None)`, `evaluate` `(Some(target), Some(model's))`,
/// `predict` `(None, Some(model's))`, `mean` `(None, None)`.
pub fn read_dataset(
    path: &str,
    target: Option<&str>,
    features: Option<&[String]>,
) -> Result<Dataset, ReadError> {
    let want = columns::Want { target, features };
    match Format::of(path) {
        Format::Csv => read_csv(path, want),
        #[cfg(feature = "columnar")]
        Format::Parquet => parquet::read(path, want),
        #[cfg(feature = "columnar")]
        Format::ArrowIpc => arrow::read(path, want),
        #[cfg(not(feature = "columnar"))]
        f @ (Format::Parquet | Format::ArrowIpc) => Err(without_columnar(path, f)),
        Format::Npy => npy::read(path, want),
    }
}

/// CSV through [`data::read_csv`] / [`data::read_csv_features`] (their fast parallel
/// path for plain files).
fn read_csv(path: &str, want: columns::Want) -> Result<Dataset, ReadError> {
    Ok(match (want.target, want.features) {
        (Some(t), None) => data::read_csv(path, t)?,
        (None, f) => data::read_csv_features(path, f)?,
        (Some(t), Some(f)) => {
            let ds = data::read_csv(path, t)?;
            // the common case (the model's features in the file's order) needs no copy
            if ds.feature_names() == f {
                ds
            } else {
                ds.select_features(f, path)?
            }
        }
    })
}

/// Writes `ds` (features, then the target as the last column) to `out` in `format`.
/// CSV as [`data::write_csv`]; the typed formats hold float64 columns.
pub fn write_dataset<W: std::io::Write + Send>(
    ds: &Dataset,
    format: Format,
    out: W,
    path: &str,
) -> Result<(), ReadError> {
    let err = |e: String| ReadError::Write {
        path: path.into(),
        reason: e,
    };
    match format {
        Format::Csv => data::write_csv(ds, out).map_err(|e| err(e.to_string())),
        #[cfg(feature = "columnar")]
        Format::Parquet => parquet::write(ds, out).map_err(err),
        #[cfg(feature = "columnar")]
        Format::ArrowIpc => arrow::write(ds, out).map_err(err),
        #[cfg(not(feature = "columnar"))]
        f @ (Format::Parquet | Format::ArrowIpc) => {
            let _ = out;
            Err(without_columnar(path, f))
        }
        Format::Npy => npy::write(ds, out).map_err(|e| err(e.to_string())),
    }
}

/// Opens `path` for reading, as the CSV reader does (a folder is an error).
fn open(path: &str) -> Result<std::fs::File, ReadError> {
    let io = |reason: String| DataError::Io {
        path: path.into(),
        reason,
    };
    let f = std::fs::File::open(path).map_err(|e| io(e.to_string()))?;
    if f.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(io("it is a folder, not a file".into()).into());
    }
    Ok(f)
}
