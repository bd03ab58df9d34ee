//! Arrow IPC files (Feather v2) through `arrow-ipc`: record batches are read one at a
//! time (only the wanted columns: the reader's projection), and each batch's columns
//! are transposed into its rows of the matrix ([`super::columns::scatter`]). Written by
//! `heavydp simulate` as non-nullable float64 columns in batches of [`BATCH`] rows.

use super::columns::{self, Col, Want};
use super::{open, ReadError};
use crate::data::Dataset;
use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, Float64Array, RecordBatch};
use arrow_ipc::reader::FileReader;
use arrow_ipc::writer::FileWriter;
use arrow_schema::{DataType, Field, Schema};
use std::sync::Arc;

/// Rows per record batch written.
const BATCH: usize = 65_536;

fn format_err(path: &str, e: impl std::fmt::Display) -> ReadError {
    ReadError::Format {
        path: path.into(),
        format: "Arrow IPC",
        reason: e.to_string(),
    }
}

fn numeric(t: &DataType) -> bool {
    use DataType::*;
    matches!(
        t,
        Float16
            | Float32
            | Float64
            | Int8
            | Int16
            | Int32
            | Int64
            | UInt8
            | UInt16
            | UInt32
            | UInt64
    )
}

/// A column's values as f64: borrowed for float64, converted otherwise.
fn values(a: &ArrayRef) -> std::borrow::Cow<'_, [f64]> {
    use std::borrow::Cow::{Borrowed, Owned};
    macro_rules! conv {
        ($t:ty) => {
            Owned(
                a.as_primitive::<$t>()
                    .values()
                    .iter()
                    .map(|&v| v as f64)
                    .collect(),
            )
        };
    }
    match a.data_type() {
        DataType::Float64 => Borrowed(a.as_primitive::<Float64Type>().values()),
        DataType::Float16 => Owned(
            a.as_primitive::<Float16Type>()
                .values()
                .iter()
                .map(|v| v.to_f64())
                .collect(),
        ),
        DataType::Float32 => conv!(Float32Type),
        DataType::Int8 => conv!(Int8Type),
        DataType::Int16 => conv!(Int16Type),
        DataType::Int32 => conv!(Int32Type),
        DataType::Int64 => conv!(Int64Type),
        DataType::UInt8 => conv!(UInt8Type),
        DataType::UInt16 => conv!(UInt16Type),
        DataType::UInt32 => conv!(UInt32Type),
        DataType::UInt64 => conv!(UInt64Type),
        _ => unreachable!("the column types are checked before"),
    }
}

/// Reads an Arrow IPC file (see [`super::read_dataset`]).
pub(super) fn read(path: &str, want: Want) -> Result<Dataset, ReadError> {
    let probe =
        FileReader::try_new_buffered(open(path)?, Some(vec![])).map_err(|e| format_err(path, e))?;
    let schema = probe.schema();
    let header: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    drop(probe);
    // the number of rows is known after the last batch (the matrix grows batch by batch)
    let plan = columns::plan(path, &header, 1, want)?;
    for (j, _) in &plan.uses {
        let t = schema.field(*j).data_type();
        if !numeric(t) {
            return Err(ReadError::ColumnType {
                path: path.into(),
                column: header[*j].clone(),
                found: format!("{t}").to_lowercase(),
            });
        }
    }
    let projection: Vec<usize> = plan.uses.iter().map(|(j, _)| *j).collect();
    let reader = FileReader::try_new_buffered(open(path)?, Some(projection))
        .map_err(|e| format_err(path, e))?;
    let d = plan.d;
    let (mut x, mut y) = (Vec::new(), Vec::new());
    let mut row0 = 0;
    for batch in reader {
        let batch: RecordBatch = batch.map_err(|e| format_err(path, e))?;
        let m = batch.num_rows();
        x.resize((row0 + m) * d, 0.0);
        y.resize(row0 + m, 0.0);
        let vals: Vec<_> = batch.columns().iter().map(values).collect();
        let cols: Vec<Col> = plan
            .uses
            .iter()
            .zip(batch.columns())
            .zip(&vals)
            .map(|(((j, outs), a), v)| Col {
                vals: v,
                first_null: a.nulls().and_then(|nb| (0..m).find(|&i| nb.is_null(i))),
                file_col: *j,
                outs,
            })
            .collect();
        let (xr, yr) = (&mut x[row0 * d..(row0 + m) * d], &mut y[row0..row0 + m]);
        if let Some(b) = columns::scatter(&cols, d, xr, yr, row0) {
            return Err(b.error(path, &header).into());
        }
        row0 += m;
    }
    if row0 == 0 {
        return Err(crate::data::DataError::NoRows { path: path.into() }.into());
    }
    Ok(Dataset::new(x, y, d, plan.feature_names, plan.target_name)?)
}

/// Writes `ds` as an Arrow IPC file: one non-nullable float64 column per feature, then
/// the target.
pub(super) fn write<W: std::io::Write>(ds: &Dataset, out: W) -> Result<(), String> {
    let names = ds
        .feature_names()
        .iter()
        .map(String::as_str)
        .chain([ds.target_name()]);
    let schema = Arc::new(Schema::new(
        names
            .map(|nm| Field::new(nm, DataType::Float64, false))
            .collect::<Vec<_>>(),
    ));
    let mut w = FileWriter::try_new(out, &schema).map_err(|e| e.to_string())?;
    let (n, d) = (ds.n(), ds.d());
    for start in (0..n).step_by(BATCH) {
        let end = (start + BATCH).min(n);
        let mut cols: Vec<ArrayRef> = (0..d)
            .map(|j| {
                Arc::new(Float64Array::from_iter_values(
                    (start..end).map(|i| ds.x()[i * d + j]),
                )) as ArrayRef
            })
            .collect();
        cols.push(Arc::new(Float64Array::from(ds.y()[start..end].to_vec())));
        let batch = RecordBatch::try_new(schema.clone(), cols).map_err(|e| e.to_string())?;
        w.write(&batch).map_err(|e| e.to_string())?;
    }
    w.finish().map_err(|e| e.to_string())
}
