//! `vecruntime`: look inside Parquet files and rewrite them through the vecruntime writer.
//!
//!     vecruntime inspect FILE [--json]
//!     vecruntime rewrite IN OUT [--codec C] [--row-group-size N] [--no-dictionary]

mod convert;
mod inspect;

use std::process::ExitCode;

const USAGE: &str = "usage:
  vecruntime inspect FILE [--json]
  vecruntime rewrite IN OUT [--codec none|snappy|gzip|zstd|lz4|lz4_raw] [--row-group-size BYTES] [--no-dictionary]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("inspect") => inspect::run(&args[1..]),
        Some("rewrite") => convert::run(&args[1..]),
        Some("-h") | Some("--help") | Some("help") => {
            println!("{USAGE}");
            Ok(())
        }
        _ => Err(format!("unknown command\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vecruntime: {e}");
            ExitCode::FAILURE
        }
    }
}
