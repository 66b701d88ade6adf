//! libvecruntime: the JNI entry points of `io.vecruntime.parquet.NativeBridge`.
//!
//! Entry points only: they convert handles and buffers, check every address, length and offset
//! that comes from Java, run the writer of `vecruntime-parquet`, and turn every error and panic
//! into a Java exception (see [`errors`]). No encoding logic lives here.

pub mod batch;
pub mod errors;
pub mod memory;
pub mod schema_spec;
pub mod session;
pub mod split_spec;
pub mod summary_codec;

use errors::{argument, entry, JniError, JniResult};
use jni::objects::{JByteArray, JClass, JIntArray, JLongArray, JObject, JObjectArray, JString};
use jni::sys::{jboolean, jbyteArray, jint, jintArray, jlong, jobject, jobjectArray, jstring};
use jni::JNIEnv;
use schema_spec::{row_type_code, row_types};
use session::{Output, Session};
use vecruntime_kernels::rebase::Rebases;
use vecruntime_kernels::rebase::{Rebase, ZoneRebase};
use vecruntime_kernels::spark_type::SparkType;
use vecruntime_kernels::split::Splitter;
use vecruntime_kernels::transpose::RowTransposer;
use vecruntime_parquet::{Batch, Field, FileWriter, PhysicalType, WriterOptions, CREATED_BY};

fn strings(env: &mut JNIEnv, arr: &JObjectArray, what: &str) -> JniResult<Vec<String>> {
    if arr.is_null() {
        return Ok(Vec::new());
    }
    let n = env.get_array_length(arr)?;
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..n {
        let o = env.get_object_array_element(arr, i)?;
        if o.is_null() {
            return Err(argument(format!("{what}[{i}] is null")));
        }
        let s: String = env.get_string(&JString::from(o))?.into();
        out.push(s);
    }
    Ok(out)
}

fn ints(env: &mut JNIEnv, arr: &JIntArray) -> JniResult<Vec<i32>> {
    if arr.is_null() {
        return Err(argument("int array is null"));
    }
    let mut v = vec![0; env.get_array_length(arr)? as usize];
    env.get_int_array_region(arr, 0, &mut v)?;
    Ok(v)
}

fn longs(env: &mut JNIEnv, arr: &JLongArray) -> JniResult<Vec<i64>> {
    if arr.is_null() {
        return Err(argument("long array is null"));
    }
    let mut v = vec![0; env.get_array_length(arr)? as usize];
    env.get_long_array_region(arr, 0, &mut v)?;
    Ok(v)
}

fn pairs(keys: Vec<String>, values: Vec<String>, what: &str) -> JniResult<Vec<(String, String)>> {
    if keys.len() != values.len() {
        return Err(argument(format!(
            "{what}: {} keys but {} values",
            keys.len(),
            values.len()
        )));
    }
    Ok(keys.into_iter().zip(values).collect())
}

/// A row batch's bytes and its `num_rows + 1` offsets, checked against live buffers.
fn row_batch(
    pin: &memory::Pin,
    rows: jlong,
    rows_len: jlong,
    offsets: jlong,
    num_rows: jlong,
) -> JniResult<(&[u8], &[i32])> {
    if !(0..=i32::MAX as i64).contains(&num_rows) {
        return Err(argument(format!("row count {num_rows} is out of range")));
    }
    let data = pin.bytes(rows, rows_len, &|| "row batch bytes".to_string())?;
    let offs = pin.values::<i32>(offsets, 4 * (num_rows + 1), &|| {
        "row batch offsets".to_string()
    })?;
    Ok((data, offs))
}

/// The writer's `created_by` (library version and build).
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_createdBy<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
) -> jstring {
    entry(&mut env, std::ptr::null_mut(), |env| {
        Ok(env.new_string(CREATED_BY)?.into_raw())
    })
}

/// The schema spec's codes (`schema_spec::CODES`) as `NAME=value` lines, for the test that ties
/// the Java constants to them.
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_schemaCodes<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
) -> jstring {
    entry(&mut env, std::ptr::null_mut(), |env| {
        let lines: Vec<String> = schema_spec::CODES
            .iter()
            .map(|(name, code)| format!("{name}={code}"))
            .collect();
        Ok(env.new_string(lines.join("\n"))?.into_raw())
    })
}

/// The physical type code (`schema_spec`) and FIXED_LEN_BYTE_ARRAY width that hold a decimal
/// of `precision` digits: decided once, in `Field::decimal`.
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_decimalLayout<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    precision: jint,
) -> jintArray {
    entry(&mut env, std::ptr::null_mut(), |env| {
        let p = u32::try_from(precision)
            .ok()
            .filter(|p| (1..=38).contains(p))
            .ok_or_else(|| argument(format!("decimal precision {precision} is not valid")))?;
        let (code, width) = match Field::decimal("d", p, 0, true).physical {
            PhysicalType::Int32 => (schema_spec::PHYSICAL_INT32, 0),
            PhysicalType::Int64 => (schema_spec::PHYSICAL_INT64, 0),
            PhysicalType::FixedLenByteArray(w) => {
                (schema_spec::PHYSICAL_FIXED_LEN_BYTE_ARRAY, w as i32)
            }
            other => {
                return Err(JniError::Runtime(format!(
                    "decimal({p}) laid out as {other:?}"
                )))
            }
        };
        let out = env.new_int_array(2)?;
        env.set_int_array_region(&out, 0, &[code, width])?;
        Ok(out.into_raw())
    })
}

/// Opens a writer; returns its handle.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_open<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    root: JString<'l>,
    names: JObjectArray<'l>,
    spec: JIntArray<'l>,
    option_keys: JObjectArray<'l>,
    option_values: JObjectArray<'l>,
    meta_keys: JObjectArray<'l>,
    meta_values: JObjectArray<'l>,
) -> jlong {
    entry(&mut env, 0, |env| {
        if root.is_null() {
            return Err(argument("schema root name is null"));
        }
        let root: String = env.get_string(&root)?.into();
        let names = strings(env, &names, "column names")?;
        let spec = ints(env, &spec)?;
        let schema = schema_spec::decode(root, names, &spec)?;
        let opts = pairs(
            strings(env, &option_keys, "option keys")?,
            strings(env, &option_values, "option values")?,
            "options",
        )?;
        let mut options = WriterOptions::from_properties(opts)?;
        options.key_value_metadata = pairs(
            strings(env, &meta_keys, "metadata keys")?,
            strings(env, &meta_values, "metadata values")?,
            "key/value metadata",
        )?;
        let writer = FileWriter::new(Output::default(), schema, options)?;
        Ok(session::register(Session {
            writer,
            rows: None,
            kernel_nanos: 0,
        }))
    })
}

/// Appends a batch; returns the output bytes now pending (a finished row group).
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_write<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    num_rows: jlong,
    buffers: JLongArray<'l>,
) -> jlong {
    entry(&mut env, -1, |env| {
        let spec = longs(env, &buffers)?;
        session::with(handle, |s| {
            let pin = memory::pin();
            let batch = batch::decode(&pin, s.writer.schema(), num_rows, &spec)?;
            write_batch(&mut s.writer, &batch)?;
            Ok(s.writer.sink_mut().pending() as jlong)
        })
    })
}

/// The row types of a schema's columns (`SparkType::of_column`), asked for by the JVM instead of
/// working them out from Spark's types again: `[code, precision]` per column, `[-1, 0]` for a
/// leaf of a nested field (read by the row kernel's shredder, not by type).
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_rowTypes<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    root: JString<'l>,
    names: JObjectArray<'l>,
    spec: JIntArray<'l>,
) -> jintArray {
    entry(&mut env, std::ptr::null_mut(), |env| {
        if root.is_null() {
            return Err(argument("schema root name is null"));
        }
        let root: String = env.get_string(&root)?.into();
        let names = strings(env, &names, "column names")?;
        let spec = ints(env, &spec)?;
        let schema = schema_spec::decode(root, names, &spec)?;
        // Checks that rows can fill every column, naming the first that cannot.
        RowTransposer::for_schema(&schema).map_err(argument)?;
        let mut codes = Vec::new();
        for c in schema.columns() {
            let top_level_leaf = c.path.len() == 1 && c.is_flat();
            match SparkType::of_column(c).filter(|_| top_level_leaf) {
                Some(t) => codes.extend(row_type_code(t)),
                None => codes.extend([-1, 0]),
            }
        }
        let out = env.new_int_array(codes.len() as i32)?;
        env.set_int_array_region(&out, 0, &codes)?;
        Ok(out.into_raw())
    })
}

/// Prepares the writer for `writeRows`: each field of the rows is read as its Parquet node says.
/// With `positions` (else null), the rows have `row_fields` fields and field `i` of the schema
/// is at `positions[i]`. With `many_files`, the writer is one of many open on its thread, which
/// share the row kernel's column buffers and free the dictionaries they give up at once.
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_configureRows<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    row_fields: jint,
    positions: JIntArray<'l>,
    many_files: jboolean,
) {
    entry(&mut env, (), |env| {
        let positions = if positions.is_null() {
            None
        } else {
            let p = ints(env, &positions)?;
            let p: Option<Vec<usize>> = p.iter().map(|&i| usize::try_from(i).ok()).collect();
            Some(p.ok_or_else(|| argument("a negative field position".to_string()))?)
        };
        let row_fields = usize::try_from(row_fields)
            .map_err(|_| argument(format!("row field count {row_fields} is negative")))?;
        session::with(handle, |s| {
            let mut rows = RowTransposer::for_schema(s.writer.schema()).map_err(argument)?;
            if let Some(p) = &positions {
                rows = rows.reading_positions(row_fields, p).map_err(argument)?;
            }
            if many_files != 0 {
                rows = rows.sharing_buffers();
                s.writer.release_abandoned_dictionaries();
            }
            s.rows = Some(rows);
            Ok(())
        })
    })
}

/// The calendar rebase in write of the rows' datetime values: `datetime` for dates and
/// timestamps, `int96` for INT96 timestamps, each a `schema_spec::REBASE_*` code (CORRECTED: as
/// they are, LEGACY, EXCEPTION). LEGACY timestamps need the session zone's table (`switches`, `diffs` in micros;
/// empty for a fixed-offset zone) and its offsets before its first transition by java.time and
/// java.util.TimeZone; EXCEPTION
/// refuses timestamps before `threshold` micros. Call after `configureRows`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_configureRebase<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    datetime: jint,
    int96: jint,
    switches: JLongArray<'l>,
    diffs: JLongArray<'l>,
    zone_offset: jlong,
    calendar_offset: jlong,
    threshold: jlong,
) {
    entry(&mut env, (), |env| {
        let zone = if switches.is_null() {
            None
        } else {
            let (sw, df) = (longs(env, &switches)?, longs(env, &diffs)?);
            Some(ZoneRebase::new(sw, df, zone_offset, calendar_offset).map_err(argument)?)
        };
        let mode = |code: jint| -> JniResult<Option<Rebase>> {
            match code {
                schema_spec::REBASE_CORRECTED => Ok(None),
                schema_spec::REBASE_LEGACY => Ok(Some(Rebase::Legacy(zone.clone()))),
                schema_spec::REBASE_EXCEPTION => Ok(Some(Rebase::Exception {
                    micros_threshold: threshold,
                })),
                other => Err(argument(format!("unknown rebase mode code {other}"))),
            }
        };
        let rebases = Rebases {
            datetime: mode(datetime)?,
            int96: mode(int96)?,
        };
        session::with(handle, |s| {
            let rows = s
                .rows
                .as_mut()
                .ok_or_else(|| JniError::State("configureRebase before configureRows".into()))?;
            rows.set_rebases(rebases);
            Ok(())
        })
    })
}

/// Appends a batch. Input rejected before anything was written (IllegalArgumentException)
/// leaves the writer usable; an error once writing began (a page too large to encode) leaves it
/// failed, and is a VecRuntimeException so that the Java side releases it.
fn write_batch(writer: &mut FileWriter<Output>, batch: &Batch) -> JniResult<()> {
    writer.write_batch(batch).map_err(|e| {
        if writer.is_failed() {
            JniError::Runtime(e.to_string())
        } else {
            e.into()
        }
    })
}

/// Appends `num_rows` UnsafeRows: their bytes at `rows` (`rows_len` bytes) and `num_rows + 1`
/// i32 offsets at `offsets`. Returns the output bytes now pending.
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_writeRows<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    rows: jlong,
    rows_len: jlong,
    offsets: jlong,
    num_rows: jlong,
) -> jlong {
    entry(&mut env, -1, |_| {
        session::with(handle, |s| {
            let Session {
                writer,
                rows: layout,
                kernel_nanos,
            } = s;
            let layout = layout
                .as_mut()
                .ok_or_else(|| JniError::State("writeRows before configureRows".into()))?;
            let pin = memory::pin();
            let (data, offs) = row_batch(&pin, rows, rows_len, offsets, num_rows)?;
            let started = std::time::Instant::now();
            let batch = layout.transpose(data, offs)?;
            *kernel_nanos += started.elapsed().as_nanos() as u64;
            write_batch(writer, &batch)?;
            drop(batch);
            if layout.shares_buffers() {
                layout.release_buffers();
            }
            Ok(writer.sink_mut().pending() as jlong)
        })
    })
}

/// Turns a row batch into column buffers and drops them: the row path alone, without encoding,
/// for measurements. Returns a value that depends on the work (rows plus buffer bytes), so
/// that it cannot be optimised away.
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_transposeRows<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    codes: JIntArray<'l>,
    rows: jlong,
    rows_len: jlong,
    offsets: jlong,
    num_rows: jlong,
) -> jlong {
    entry(&mut env, -1, |env| {
        let codes = ints(env, &codes)?;
        let names: Vec<String> = (0..codes.len() / 2).map(|i| format!("field {i}")).collect();
        let types = row_types(&codes, &names)?;
        let mut transposer = RowTransposer::new(names, types);
        let pin = memory::pin();
        let (data, offs) = row_batch(&pin, rows, rows_len, offsets, num_rows)?;
        let batch = transposer.transpose(data, offs)?;
        Ok(batch.num_rows as jlong + transposer.buffered_bytes() as jlong)
    })
}

/// Splits a batch of whole input rows of `num_fields` fields by the file each goes to
/// ([`Splitter`]): partition values and bucket id. `spec` holds `INTS_PER_KEY` ints per key
/// column (`names` in the same order): role, field position, row type code, precision, scale;
/// `hash` is a `HASH_*` code and `buckets` the bucket count (0 without bucket columns). The rows
/// are copied grouped by file into `out` (`out_len` bytes) and `out_offsets` (room for
/// `num_rows + 1` offsets); `groups` receives four ints per group, in the order groups first
/// appear: bucket id (-1 without buckets), the input index of its first row, its first row in
/// the copy, its row count. Returns the group count.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_splitRows<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    num_fields: jint,
    names: JObjectArray<'l>,
    spec: JIntArray<'l>,
    hash: jint,
    buckets: jint,
    rows: jlong,
    rows_len: jlong,
    offsets: jlong,
    num_rows: jlong,
    out: jlong,
    out_len: jlong,
    out_offsets: jlong,
    groups: JIntArray<'l>,
) -> jint {
    entry(&mut env, -1, |env| {
        let names = strings(env, &names, "key column names")?;
        let spec = ints(env, &spec)?;
        let mut splitter = split_spec::decode(num_fields, &names, &spec, hash, buckets)?;
        if groups.is_null() {
            return Err(argument("groups array is null"));
        }
        let flat = split_batch(
            &mut splitter,
            [rows, rows_len, offsets, num_rows],
            [out, out_len, out_offsets],
        )?;
        // (A groups array too small for them is Java's ArrayIndexOutOfBoundsException.)
        env.set_int_array_region(&groups, 0, &flat)?;
        Ok((flat.len() / 4) as jint)
    })
}

/// Splits the row batch at `batch` (rows, their length, offsets, row count) into `out` (bytes,
/// their length, offsets): four ints per group, as `splitRows` returns them.
fn split_batch(splitter: &mut Splitter, batch: [i64; 4], out: [i64; 3]) -> JniResult<Vec<i32>> {
    let [rows, rows_len, offsets, num_rows] = batch;
    let pin = memory::pin();
    let (data, offs) = row_batch(&pin, rows, rows_len, offsets, num_rows)?;
    let bytes = pin.bytes_mut(out[0], out[1], &|| "grouped row bytes".to_string())?;
    let out_offs = pin.values_mut::<i32>(out[2], 4 * (num_rows + 1), &|| {
        "grouped row offsets".to_string()
    })?;
    let found = splitter.split(data, offs, bytes, out_offs)?;
    Ok(found
        .iter()
        .flat_map(|g| [g.bucket, g.first as i32, g.start as i32, g.len as i32])
        .collect())
}

/// Whether the native split hashes a bucket column of this row type (code and precision) as
/// Spark does with this `HASH_*` hash (`spark_hash::hashable`): the JVM asks before it plans a
/// native split, so a refused column's rows are split by Spark's projections instead.
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_hashable<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    code: jint,
    precision: jint,
    hash: jint,
) -> jboolean {
    entry(&mut env, 0, |_| {
        let ty = schema_spec::row_type(code, precision)
            .ok_or_else(|| argument(format!("unknown row type code {code} / {precision}")))?;
        let hash = split_spec::bucket_hash(hash)?;
        Ok(vecruntime_kernels::spark_hash::hashable(ty, hash) as jboolean)
    })
}

/// The writer's option keys (`properties::KEYS`): `key` for a key of the file, `key#` for a
/// key of a column, both for a key of either; the JVM passes a configuration's pairs of these.
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_optionKeys<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
) -> jobjectArray {
    entry(&mut env, std::ptr::null_mut(), |env| {
        use vecruntime_parquet::properties::{KeyScope, KEYS};
        let mut keys = Vec::new();
        for &(k, scope) in KEYS {
            if scope != KeyScope::Column {
                keys.push(k.to_string());
            }
            if scope != KeyScope::File {
                keys.push(format!("{k}#"));
            }
        }
        let out = env.new_object_array(keys.len() as i32, "java/lang/String", JObject::null())?;
        for (i, k) in keys.iter().enumerate() {
            let s = env.new_string(k)?;
            env.set_object_array_element(&out, i as i32, s)?;
        }
        Ok(out.into_raw())
    })
}

/// Reads option pairs as a writer opening with them would (the error names the key) and
/// returns the codec they choose, by parquet-java's name.
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_checkOptions<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    option_keys: JObjectArray<'l>,
    option_values: JObjectArray<'l>,
) -> jstring {
    entry(&mut env, std::ptr::null_mut(), |env| {
        let opts = pairs(
            strings(env, &option_keys, "option keys")?,
            strings(env, &option_values, "option values")?,
            "options",
        )?;
        let options = WriterOptions::from_properties(opts)?;
        options.validate()?;
        Ok(env.new_string(options.codec.name())?.into_raw())
    })
}

/// Copies pending output into `dst` from its start; returns the count (0 when none is left).
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_drain<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    dst: JByteArray<'l>,
) -> jint {
    entry(&mut env, -1, |env| {
        if dst.is_null() {
            return Err(argument("drain buffer is null"));
        }
        let cap = env.get_array_length(&dst)? as usize;
        session::with(handle, |s| {
            let out = s.writer.sink_mut();
            let chunk = out.peek(cap);
            // SAFETY: u8 and i8 (jbyte) have the same size and alignment; the slice is only read.
            let signed =
                unsafe { std::slice::from_raw_parts(chunk.as_ptr() as *const i8, chunk.len()) };
            env.set_byte_array_region(&dst, 0, signed)?;
            let n = chunk.len();
            out.advance(n);
            Ok(n as jint)
        })
    })
}

/// Ends the open row group early (memory is short); returns the output bytes now pending.
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_endRowGroup<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    entry(&mut env, -1, |_| {
        session::with(handle, |s| {
            s.writer.end_row_group()?;
            Ok(s.writer.sink_mut().pending() as jlong)
        })
    })
}

/// Finishes the file (indexes, bloom filters, footer become pending output); returns the
/// encoded footer summary.
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_close<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jbyteArray {
    entry(&mut env, std::ptr::null_mut(), |env| {
        let bytes = session::with(handle, |s| {
            let summary = s.writer.close()?;
            Ok(summary_codec::encode(&summary))
        })?;
        Ok(env.byte_array_from_slice(&bytes)?.into_raw())
    })
}

/// Drops a writer and all its native memory.
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_release<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    entry(&mut env, (), |_| session::release(handle))
}

/// Native bytes held by a writer (buffered row group and untaken output).
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_nativeBytes<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    entry(&mut env, -1, |_| {
        session::with(handle, |s| Ok(s.native_bytes() as jlong))
    })
}

/// Nanoseconds a writer spent in the row kernel (UnsafeRow batches into columns).
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_rowKernelNanos<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    entry(&mut env, -1, |_| {
        session::with(handle, |s| Ok(s.kernel_nanos as jlong))
    })
}

/// Writers open in this process.
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_openWriters<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
) -> jlong {
    entry(&mut env, -1, |_| Ok(session::open_count()))
}

/// Allocates zeroed off-heap memory (64-byte aligned); returns its address.
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_allocate<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    size: jlong,
) -> jlong {
    entry(&mut env, 0, |_| memory::allocate(size))
}

#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_free<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    address: jlong,
) {
    entry(&mut env, (), |_| memory::free(address))
}

/// A direct ByteBuffer over `size` bytes at `address`, which must lie in a live allocation.
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_view<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    address: jlong,
    size: jlong,
) -> jobject {
    entry(&mut env, std::ptr::null_mut(), |env| {
        let pin = memory::pin();
        let bytes = pin.bytes(address, size, &|| "view".to_string())?;
        if bytes.is_empty() {
            return Err(argument("cannot view an empty range"));
        }
        // SAFETY: the range lies in a live allocation; the Java side drops the buffer before it
        // frees the allocation (VectorBuffers closes its views first).
        let buf = unsafe { env.new_direct_byte_buffer(bytes.as_ptr() as *mut u8, bytes.len()) }?;
        Ok(JObject::from(buf).into_raw())
    })
}

/// Bytes held by live allocations.
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_allocatedBytes<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
) -> jlong {
    entry(&mut env, -1, |_| Ok(memory::allocated_bytes()))
}

/// Raises a panic inside an entry point: lets the Java tests prove a panic becomes an
/// exception and leaves the JVM running.
#[no_mangle]
pub extern "system" fn Java_io_vecruntime_parquet_NativeBridge_panicForTest<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
) {
    entry(&mut env, (), |_| -> JniResult<()> {
        let v: Vec<u8> = Vec::new();
        let i = v.len() + 3;
        Err(JniError::Runtime(format!("unreachable {}", v[i])))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use schema_spec::ROW_INT;
    use split_spec::KEY_PARTITION;

    /// A batch of two one-field rows in buffers the JVM would allocate, split into buffers of
    /// exactly its size.
    #[test]
    fn batches_are_split_into_buffers_of_their_size() {
        let names = ["k0".to_string()];
        let mut s =
            split_spec::decode(1, &names, &[KEY_PARTITION, 0, ROW_INT, 0, 0], 0, 0).unwrap();
        let rows = memory::allocate(48).unwrap();
        let offsets = memory::allocate(16).unwrap();
        let out = memory::allocate(48).unwrap();
        let out_offsets = memory::allocate(16).unwrap();
        {
            let pin = memory::pin();
            let r = pin.bytes_mut(rows, 48, &String::new).unwrap();
            for (i, v) in [5u8, 6, 5].iter().enumerate() {
                r[16 * i + 8] = *v;
            }
            let o = pin.values_mut::<i32>(offsets, 16, &String::new).unwrap();
            o.copy_from_slice(&[0, 16, 32, 48]);
        }
        let groups = split_batch(&mut s, [rows, 48, offsets, 3], [out, 48, out_offsets]).unwrap();
        assert_eq!(groups, vec![-1, 0, 0, 2, -1, 1, 2, 1]);
        {
            let pin = memory::pin();
            let o = pin.values::<i32>(out_offsets, 16, &String::new).unwrap();
            assert_eq!(o, &[0, 16, 32, 48]);
            let b = pin.bytes(out, 48, &String::new).unwrap();
            assert_eq!([b[8], b[24], b[40]], [5, 5, 6]);
        }
        // The copy may not be the batch itself, nor smaller than it.
        assert!(split_batch(&mut s, [rows, 48, offsets, 3], [rows, 48, out_offsets]).is_err());
        assert!(split_batch(&mut s, [rows, 48, offsets, 3], [out, 40, out_offsets]).is_err());
        for a in [rows, offsets, out, out_offsets] {
            memory::free(a).unwrap();
        }
    }
}
