//! Parquet through the `parquet` crate's column readers (no Arrow layer): each row
//! group's wanted columns are decoded a few at a time in parallel (each task with its
//! own file handle), then transposed into the row group's rows of the matrix
//! ([`super::columns::scatter`]). Written by `heavydp simulate` as required float64
//! columns, uncompressed, in row groups of [`ROW_GROUP`] rows.

use super::columns::{self, Bad, Col, Want};
use super::{open, ReadError};
use crate::data::Dataset;
use parquet::basic::{ConvertedType, LogicalType, Repetition, Type as Physical};
use parquet::column::reader::ColumnReader;
use parquet::file::properties::{ReaderProperties, WriterProperties};
use parquet::file::reader::{FileReader, RowGroupReader};
use parquet::file::serialized_reader::{SerializedFileReader, SerializedRowGroupReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{ColumnDescriptor, Type};
use rayon::prelude::*;
use std::sync::Arc;

/// Rows per row group written.
const ROW_GROUP: usize = 65_536;
/// Columns decoded at once (all of them in parallel tasks): bounds the decoded values
/// held besides the matrix to `WAVE` × the rows of a row group.
const WAVE: usize = 16;

fn format_err(path: &str, e: impl std::fmt::Display) -> ReadError {
    let mut reason = e.to_string();
    if reason.contains("Disabled feature") {
        reason += " (heavydp reads uncompressed and Snappy-compressed Parquet: rewrite the \
                   file with compression='snappy')";
    }
    ReadError::Format {
        path: path.into(),
        format: "Parquet",
        reason,
    }
}

/// The type a column holds, when heavydp does not read it.
fn unreadable(c: &ColumnDescriptor) -> Option<String> {
    if c.max_rep_level() > 0 || c.path().parts().len() > 1 {
        return Some("a nested or list column".into());
    }
    let logical = c.logical_type_ref();
    let plain_int = matches!(logical, None | Some(LogicalType::Integer(_)))
        && matches!(
            c.converted_type(),
            ConvertedType::NONE
                | ConvertedType::INT_8
                | ConvertedType::INT_16
                | ConvertedType::INT_32
                | ConvertedType::INT_64
                | ConvertedType::UINT_8
                | ConvertedType::UINT_16
                | ConvertedType::UINT_32
                | ConvertedType::UINT_64
        );
    match c.physical_type() {
        Physical::DOUBLE | Physical::FLOAT if logical.is_none() => None,
        Physical::INT32 | Physical::INT64 if plain_int => None,
        p => Some(match logical {
            // the name of the logical type, without its parameters
            Some(l) => format!("{l:?}")
                .split([' ', '{', '('])
                .next()
                .unwrap_or("")
                .to_lowercase(),
            None if p == Physical::BYTE_ARRAY => "binary or string".into(),
            None => format!("{p}").to_lowercase(),
        }),
    }
}

/// Decodes a whole column chunk (`m` rows) into `out` (cleared first; its capacity is
/// reused from one row group to the next, so the decoded values do not cost fresh pages
/// each time): returns the first missing row.
fn decode(
    rg: &dyn RowGroupReader,
    j: usize,
    m: usize,
    unsigned: bool,
    out: &mut Vec<f64>,
) -> parquet::errors::Result<Option<usize>> {
    let mut def: Vec<i16> = Vec::new();
    out.clear();
    out.reserve(m);
    macro_rules! read_all {
        ($r:expr, $conv:expr) => {{
            let mut vals = Vec::with_capacity(m.min(1 << 16));
            let mut rows = 0;
            while rows < m {
                vals.clear();
                let before = def.len();
                let (recs, _, _) =
                    $r.read_records((m - rows).min(1 << 16), Some(&mut def), None, &mut vals)?;
                if recs == 0 {
                    break;
                }
                // with no nulls possible no levels are written: every record has a value
                if def.len() == before || vals.len() == recs {
                    out.extend(vals.iter().map($conv));
                } else {
                    out.extend(vals.iter().map($conv));
                    let first = def[before..].iter().position(|&l| l == 0).unwrap_or(0);
                    return Ok(Some(rows + first));
                }
                rows += recs;
            }
        }};
    }
    match rg.get_column_reader(j)? {
        ColumnReader::DoubleColumnReader(mut r) => read_all!(r, |v: &f64| *v),
        ColumnReader::FloatColumnReader(mut r) => read_all!(r, |v: &f32| f64::from(*v)),
        ColumnReader::Int32ColumnReader(mut r) if unsigned => {
            read_all!(r, |v: &i32| f64::from(*v as u32))
        }
        ColumnReader::Int32ColumnReader(mut r) => read_all!(r, |v: &i32| f64::from(*v)),
        ColumnReader::Int64ColumnReader(mut r) if unsigned => {
            read_all!(r, |v: &i64| *v as u64 as f64)
        }
        ColumnReader::Int64ColumnReader(mut r) => read_all!(r, |v: &i64| *v as f64),
        _ => unreachable!("the column types are checked before"),
    }
    if out.len() < m {
        return Err(parquet::errors::ParquetError::General(
            "a column chunk has fewer values than its row group".into(),
        ));
    }
    Ok(None)
}

/// Reads a Parquet file (see [`super::read_dataset`]).
pub(super) fn read(path: &str, want: Want) -> Result<Dataset, ReadError> {
    let reader = SerializedFileReader::new(open(path)?).map_err(|e| format_err(path, e))?;
    let meta = reader.metadata();
    let schema = meta.file_metadata().schema_descr();
    let header: Vec<String> = schema.columns().iter().map(|c| c.path().string()).collect();
    let n = usize::try_from(meta.file_metadata().num_rows()).unwrap_or(0);
    let plan = columns::plan(path, &header, n, want)?;
    for (j, _) in &plan.uses {
        if let Some(found) = unreadable(&schema.columns()[*j]) {
            return Err(ReadError::ColumnType {
                path: path.into(),
                column: header[*j].clone(),
                found,
            });
        }
    }
    let d = plan.d;
    let mut x = vec![0.0; n * d];
    let mut y = vec![0.0; n];
    let props = Arc::new(ReaderProperties::builder().build());
    // one buffer per task of a wave, reused by every wave and row group
    let mut bufs: Vec<Vec<f64>> = (0..WAVE.min(plan.uses.len())).map(|_| Vec::new()).collect();
    let mut row0 = 0;
    for rg_meta in meta.row_groups() {
        let m = usize::try_from(rg_meta.num_rows()).unwrap_or(0);
        if row0 + m > n {
            return Err(format_err(path, "row groups hold more rows than the file"));
        }
        let (xr, yr) = (&mut x[row0 * d..(row0 + m) * d], &mut y[row0..row0 + m]);
        for wave in plan.uses.chunks(WAVE) {
            let nulls: Vec<Option<usize>> = wave
                .par_iter()
                .zip(bufs.par_iter_mut())
                .map(|((j, _), buf)| {
                    let file = Arc::new(open(path)?);
                    let rg = SerializedRowGroupReader::new(file, rg_meta, None, props.clone())
                        .map_err(|e| format_err(path, e))?;
                    let unsigned = matches!(
                        schema.columns()[*j].converted_type(),
                        ConvertedType::UINT_32 | ConvertedType::UINT_64
                    ) || matches!(
                        schema.columns()[*j].logical_type_ref(),
                        Some(LogicalType::Integer(t)) if !t.is_signed
                    );
                    decode(&rg, *j, m, unsigned, buf).map_err(|e| format_err(path, e))
                })
                .collect::<Result<_, _>>()?;
            let cols: Vec<Col> = wave
                .iter()
                .zip(bufs.iter().zip(&nulls))
                .map(|((j, outs), (vals, first_null))| Col {
                    vals,
                    first_null: *first_null,
                    file_col: *j,
                    outs,
                })
                .collect();
            let bad: Option<Bad> = columns::scatter(&cols, d, xr, yr, row0);
            if let Some(b) = bad {
                return Err(b.error(path, &header).into());
            }
        }
        row0 += m;
    }
    if row0 != n {
        return Err(format_err(path, "row groups hold fewer rows than the file"));
    }
    Ok(Dataset::new(x, y, d, plan.feature_names, plan.target_name)?)
}

/// Writes `ds` as Parquet: one required float64 column per feature, then the target.
pub(super) fn write<W: std::io::Write + Send>(ds: &Dataset, out: W) -> Result<(), String> {
    let e = |e: parquet::errors::ParquetError| e.to_string();
    let names: Vec<&str> = ds
        .feature_names()
        .iter()
        .map(String::as_str)
        .chain([ds.target_name()])
        .collect();
    let fields = names
        .iter()
        .map(|nm| {
            Type::primitive_type_builder(nm, Physical::DOUBLE)
                .with_repetition(Repetition::REQUIRED)
                .build()
                .map(Arc::new)
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(e)?;
    let schema = Arc::new(
        Type::group_type_builder("schema")
            .with_fields(fields)
            .build()
            .map_err(e)?,
    );
    let props = Arc::new(
        WriterProperties::builder()
            .set_dictionary_enabled(false)
            .set_max_row_group_row_count(Some(ROW_GROUP))
            .build(),
    );
    let mut w = SerializedFileWriter::new(out, schema, props).map_err(e)?;
    let (n, d) = (ds.n(), ds.d());
    let mut col = Vec::with_capacity(ROW_GROUP.min(n));
    for start in (0..n).step_by(ROW_GROUP) {
        let end = (start + ROW_GROUP).min(n);
        let mut rg = w.next_row_group().map_err(e)?;
        for j in 0..=d {
            col.clear();
            if j < d {
                col.extend((start..end).map(|i| ds.x()[i * d + j]));
            } else {
                col.extend_from_slice(&ds.y()[start..end]);
            }
            let mut cw = rg.next_column().map_err(e)?.ok_or("too few columns")?;
            cw.typed::<parquet::data_type::DoubleType>()
                .write_batch(&col, None, None)
                .map_err(e)?;
            cw.close().map_err(e)?;
        }
        rg.close().map_err(e)?;
    }
    w.close().map_err(e)?;
    Ok(())
}
