"""Generate TPC-DS store_sales with dsdgen (DuckDB's tpcds extension from PyPI, no network).

    python benchmarks/tpcds.py [--sf 1] [--out benchmarks/data/store_sales.parquet]

The *_sk and quantity columns are cast to INT, as Spark's TPC-DS schema has them; prices stay
DECIMAL(7,2). Written with DuckDB's own Parquet writer (the input of the benchmarks).
"""
import argparse
import os
import pathlib
import time

import duckdb
import duckdb_extension_tpcds


def extension_path() -> str:
    base = pathlib.Path(duckdb_extension_tpcds.__file__).parent / "extensions"
    found = sorted(base.rglob("tpcds.duckdb_extension"))
    if not found:
        raise SystemExit(f"no tpcds.duckdb_extension under {base}")
    return str(found[-1])


INT_COLUMNS = [
    "ss_sold_date_sk", "ss_sold_time_sk", "ss_item_sk", "ss_customer_sk", "ss_cdemo_sk",
    "ss_hdemo_sk", "ss_addr_sk", "ss_store_sk", "ss_promo_sk", "ss_quantity",
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", type=float, default=1)
    ap.add_argument("--out", default=str(pathlib.Path(__file__).parent / "data" / "store_sales.parquet"))
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    if out.exists():
        print(f"{out} exists")
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    t = time.time()
    con = duckdb.connect()
    con.execute(f"INSTALL '{extension_path()}'")
    con.execute("LOAD tpcds")
    con.execute(f"CALL dsdgen(sf={a.sf})")
    cols = [r[0] for r in con.execute("DESCRIBE store_sales").fetchall()]
    select = ", ".join(f"CAST({c} AS INTEGER) AS {c}" if c in INT_COLUMNS else c for c in cols)
    tmp = str(out) + ".tmp"
    con.execute(f"COPY (SELECT {select} FROM store_sales) TO '{tmp}' (FORMAT parquet, COMPRESSION zstd)")
    os.replace(tmp, out)
    n = con.execute(f"SELECT count(*) FROM '{out}'").fetchone()[0]
    print(f"wrote {out}: {n} store_sales rows in {time.time() - t:.1f}s")


if __name__ == "__main__":
    main()
