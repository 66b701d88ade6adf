"""The demo: store_sales rewritten by vecruntime, compared row by row with the source."""
import pathlib
import subprocess
import time

import pyarrow.parquet as pq

ROOT = pathlib.Path(__file__).resolve().parents[1]
CLI = ROOT / "target" / "release" / "vecruntime"
SRC = ROOT / "benchmarks" / "data" / "store_sales.parquet"
OUT = ROOT / "benchmarks" / "data" / "demo"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    src = pq.read_table(SRC)
    print(f"store_sales: {src.num_rows:,} rows, {src.num_columns} columns (dsdgen sf=1)")
    for codec in ["snappy", "zstd", "none"]:
        out = OUT / f"store_sales.{codec}.parquet"
        t = time.time()
        subprocess.run([str(CLI), "rewrite", str(SRC), str(out), "--codec", codec], check=True, capture_output=True)
        wall = time.time() - t
        ours = pq.read_table(out)
        assert ours.num_rows == src.num_rows
        same = all(ours[c].equals(src[c]) for c in src.column_names)
        t = time.time()
        ref = OUT / f"store_sales.pyarrow.{codec}.parquet"
        pq.write_table(src, ref, compression=codec if codec != "none" else "NONE", data_page_version="2.0")
        pa_write = time.time() - t
        print(
            f"{codec:7s} vecruntime rewrite (read + write) {wall:6.2f}s  {out.stat().st_size / 1e6:7.1f} MB"
            f" | pyarrow write alone {pa_write:6.2f}s  {ref.stat().st_size / 1e6:7.1f} MB"
            f" | rows equal: {'yes' if same else 'NO'}"
        )
        if not same:
            raise SystemExit("row-by-row comparison failed")
    print(f"created_by: {pq.ParquetFile(out).metadata.created_by}")


if __name__ == "__main__":
    main()
