"""Nested columns written by the plugin, read by pyarrow, DuckDB and polars.

A local Spark writes the same structs, arrays and maps (nulls and empties at every level, depth
4, standard and legacy layouts) with the plugin and with Spark's own writer; each engine must
read our files exactly as it reads Spark's.
"""
import duckdb
import polars as pl
import pyarrow.parquet as pq
import pytest

from conftest import plugin_session

COLUMNS = [
    "id",
    "if(id % 7 = 0, null, transform(sequence(0, id % 5 - 1), i -> if((i + id) % 4 = 0, null, concat('t', i)))) as tags",
    "if(id % 5 = 0, null, map_from_arrays(transform(sequence(0, id % 3 - 1), i -> concat('k', i)),"
    " transform(sequence(0, id % 3 - 1), i -> if(i = 1, null, cast(id * i as int))))) as attrs",
    "if(id % 6 = 0, null, named_struct('x', if(id % 4 = 0, null, id / 3.0), 'pts',"
    " transform(sequence(0, id % 3 - 1), i -> cast(i * id as bigint)))) as point",
    "transform(sequence(0, id % 4 - 1), i -> if(i = 2, null, named_struct('item', id * 10 + i,"
    " 'price', cast((id + i) % 1000 / 7 as decimal(9, 2)), 'big', cast(id * 1e12 + i as decimal(30, 4)),"
    " 'note', if(i = 0, null, repeat('n', i))))) as items",
    "named_struct('a', named_struct('b', if(id % 9 = 0, null, named_struct('c',"
    " transform(sequence(0, id % 3 - 1), i -> array(i, id)))))) as deep",
    "transform(sequence(0, id % 3 - 1), i -> timestamp_micros(id * 1000003 + i)) as ts",
]


@pytest.fixture(scope="module")
def spark():
    session = plugin_session("local[2]", "vecruntime-nested-engines",
                             **{"spark.sql.session.timeZone": "UTC",
                                "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS"})
    yield session
    session.stop()


def write(spark, path, native, legacy):
    spark.conf.set("spark.vecruntime.write.columnar.enabled", str(native).lower())
    spark.conf.set("spark.sql.parquet.writeLegacyFormat", str(legacy).lower())
    spark.range(0, 3000, numPartitions=2).selectExpr(*COLUMNS).write.parquet(str(path))
    files = sorted(path.glob("*.parquet"))
    created_by = {pq.ParquetFile(f).metadata.created_by.split(" ")[0] for f in files}
    assert created_by == ({"vecruntime"} if native else {"parquet-mr"})
    return path


@pytest.mark.parametrize("legacy", [False, True])
def test_engines_read_ours_as_sparks(spark, tmp_path, legacy):
    ours = write(spark, tmp_path / "ours", True, legacy)
    theirs = write(spark, tmp_path / "spark", False, legacy)

    def arrow(d):
        return pq.read_table(d).sort_by("id").to_pylist()

    def duck(d):
        return duckdb.sql(f"SELECT * FROM read_parquet('{d}/*.parquet') ORDER BY id").fetchall()

    def polars(d):
        return pl.read_parquet(f"{d}/*.parquet").sort("id").to_dicts()

    for name, read in [("pyarrow", arrow), ("duckdb", duck), ("polars", polars)]:
        a, b = read(ours), read(theirs)
        assert len(a) == 3000, name
        assert a == b, f"{name}: first difference at row {next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)}"
