//! `vecruntime inspect`: schema, row groups and per chunk encodings, sizes, statistics, page
//! index and bloom filter presence, read with the arrow-rs `parquet` crate.

use parquet::file::metadata::{PageIndexPolicy, ParquetMetaDataOptions, ParquetMetaDataReader};
use std::fmt::Write;

fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A readable rendering of a statistics bound of the given physical type.
fn show(ty: parquet::basic::Type, b: &[u8]) -> String {
    use parquet::basic::Type as T;
    match (ty, b.len()) {
        (T::BOOLEAN, 1) => (b[0] != 0).to_string(),
        (T::INT32, 4) => i32::from_le_bytes(b.try_into().unwrap()).to_string(),
        (T::INT64, 8) => i64::from_le_bytes(b.try_into().unwrap()).to_string(),
        (T::FLOAT, 4) => f32::from_le_bytes(b.try_into().unwrap()).to_string(),
        (T::DOUBLE, 8) => f64::from_le_bytes(b.try_into().unwrap()).to_string(),
        (T::BYTE_ARRAY, _) => match std::str::from_utf8(b) {
            Ok(s) => s.to_string(),
            Err(_) => format!("0x{}", hex(b)),
        },
        _ => format!("0x{}", hex(b)),
    }
}

pub fn run(args: &[String]) -> Result<(), String> {
    let path = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .ok_or("inspect needs a FILE")?;
    let json = args.iter().any(|a| a == "--json");
    let file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    let md = ParquetMetaDataReader::new()
        .with_page_index_policy(PageIndexPolicy::Optional)
        .with_metadata_options(Some(
            ParquetMetaDataOptions::new().with_encoding_stats_as_mask(false),
        ))
        .parse_and_finish(&file)
        .map_err(|e| format!("{path}: {e}"))?;
    let fm = md.file_metadata();
    let schema = fm.schema_descr();
    let mut out = String::new();
    if json {
        out.push('{');
        let _ = write!(
            out,
            "\"file\":{},\"num_rows\":{},\"created_by\":{},",
            json_str(path),
            fm.num_rows(),
            json_str(fm.created_by().unwrap_or(""))
        );
        out.push_str("\"columns\":[");
        for (i, c) in schema.columns().iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let lt = c
                .logical_type_ref()
                .map(|l| format!("{l:?}"))
                .unwrap_or_default();
            let _ = write!(
                out,
                "{{\"path\":{},\"physical_type\":{},\"logical_type\":{},\"optional\":{}}}",
                json_str(&c.path().string()),
                json_str(&c.physical_type().to_string()),
                json_str(&lt),
                c.self_type().is_optional()
            );
        }
        out.push_str("],\"key_value_metadata\":{");
        for (i, kv) in fm.key_value_metadata().into_iter().flatten().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(
                out,
                "{}:{}",
                json_str(&kv.key),
                json_str(kv.value.as_deref().unwrap_or(""))
            );
        }
        out.push_str("},\"row_groups\":[");
    } else {
        let _ = writeln!(
            out,
            "file: {path}\nrows: {}\ncreated_by: {}",
            fm.num_rows(),
            fm.created_by().unwrap_or("-")
        );
        let _ = writeln!(out, "schema ({}):", schema.name());
        for c in schema.columns() {
            let lt = c
                .logical_type_ref()
                .map(|l| format!(" {l:?}"))
                .unwrap_or_default();
            let rep = if c.self_type().is_optional() {
                "optional"
            } else {
                "required"
            };
            let _ = writeln!(
                out,
                "  {rep} {} {}{lt}",
                c.physical_type(),
                c.path().string()
            );
        }
        for kv in fm.key_value_metadata().into_iter().flatten() {
            let _ = writeln!(
                out,
                "metadata {} = {}",
                kv.key,
                kv.value.as_deref().unwrap_or("")
            );
        }
    }
    for (g, rg) in md.row_groups().iter().enumerate() {
        let pi = md.page_index_for_row_group(g);
        if json {
            if g > 0 {
                out.push(',');
            }
            let _ = write!(
                out,
                "{{\"num_rows\":{},\"total_byte_size\":{},\"compressed_size\":{},\"columns\":[",
                rg.num_rows(),
                rg.total_byte_size(),
                rg.compressed_size()
            );
        } else {
            let _ = writeln!(
                out,
                "row group {g}: {} rows, {} bytes ({} compressed)",
                rg.num_rows(),
                rg.total_byte_size(),
                rg.compressed_size()
            );
        }
        for (c, cc) in rg.columns().iter().enumerate() {
            let ty = cc.column_type();
            let mut encs: Vec<String> = Vec::new();
            if let Some(stats) = cc.page_encoding_stats() {
                for s in stats {
                    encs.push(format!("{:?}:{:?}x{}", s.page_type, s.encoding, s.count));
                }
            }
            let st = cc.statistics();
            let (min, max) = st
                .and_then(|s| Some((show(ty, s.min_bytes_opt()?), show(ty, s.max_bytes_opt()?))))
                .unzip();
            let nulls = st.and_then(|s| s.null_count_opt());
            let has_ci = cc.column_index_offset().is_some();
            let pages = pi.offset_index(c).map(|o| o.page_locations().len());
            let bloom = cc.bloom_filter_offset().is_some();
            if json {
                if c > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{{\"path\":{},\"codec\":{},\"pages\":[{}],\"num_values\":{},\"compressed_size\":{},\"uncompressed_size\":{},\"null_count\":{},\"min\":{},\"max\":{},\"dictionary_page\":{},\"column_index\":{},\"offset_index_pages\":{},\"bloom_filter\":{}}}",
                    json_str(&cc.column_path().string()), json_str(&cc.compression().to_string()),
                    encs.iter().map(|e| json_str(e)).collect::<Vec<_>>().join(","),
                    cc.num_values(), cc.compressed_size(), cc.uncompressed_size(),
                    nulls.map_or("null".into(), |n| n.to_string()),
                    min.as_deref().map_or("null".into(), json_str), max.as_deref().map_or("null".into(), json_str),
                    cc.dictionary_page_offset().is_some(), has_ci, pages.map_or("null".into(), |p| p.to_string()), bloom);
            } else {
                let _ = writeln!(out, "  {}: {} | {} | {} values, {} bytes ({} compressed) | nulls {} | min {} | max {} | dict page {} | column index {} | pages {} | bloom filter {}",
                    cc.column_path().string(), cc.compression(), encs.join(" "), cc.num_values(), cc.uncompressed_size(), cc.compressed_size(),
                    nulls.map_or("-".into(), |n| n.to_string()), min.as_deref().unwrap_or("-"), max.as_deref().unwrap_or("-"),
                    if cc.dictionary_page_offset().is_some() { "yes" } else { "no" }, if has_ci { "yes" } else { "no" },
                    pages.map_or("-".into(), |p| p.to_string()), if bloom { "yes" } else { "no" });
            }
        }
        if json {
            out.push_str("]}");
        }
    }
    if json {
        out.push_str("]}");
    }
    println!("{out}");
    Ok(())
}
