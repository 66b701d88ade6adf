"""Delta Lake tables written as a pyspark user writes them, read by delta-rs.

pyspark's own Spark with Delta Lake 4.4 (the jars `mvn package` resolved into the local Maven
repository) and the plugin jar: a partitioned table written with the plugin off (Delta's
writer) and on, then appended to and MERGEd into. delta-rs (the `deltalake` package, an
independent reader of the log and the files) must read the same rows from both, the log must
record the same files and statistics, and every data file of the plugin's table must be the
native writer's.
"""
import os
import pathlib

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pyspark
import pytest
from deltalake import DeltaTable
from pyspark.sql import SparkSession

from conftest import plugin_jar

M2 = pathlib.Path.home() / ".m2" / "repository" / "io" / "delta"
DELTA_JARS = [M2 / "delta-spark_4.2_2.13" / "4.4.0" / "delta-spark_4.2_2.13-4.4.0.jar",
              M2 / "delta-storage" / "4.4.0" / "delta-storage-4.4.0.jar"]


@pytest.fixture(scope="module")
def spark():
    missing = [str(j) for j in DELTA_JARS if not j.exists()]
    assert not missing, f"run `mvn package` first (it resolves Delta): {missing}"
    os.environ["SPARK_HOME"] = os.path.dirname(pyspark.__file__)
    session = (SparkSession.builder.master("local[2]").appName("vecruntime-delta")
               .config("spark.jars", ",".join(str(j) for j in [plugin_jar(), *DELTA_JARS]))
               .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension,"
                       "io.vecruntime.spark.VecRuntimeExtensions")
               .config("spark.sql.catalog.spark_catalog",
                       "org.apache.spark.sql.delta.catalog.DeltaCatalog")
               .config("spark.sql.shuffle.partitions", "2")
               .getOrCreate())
    yield session
    session.stop()


def build(spark, path, native):
    spark.conf.set("spark.vecruntime.write.columnar.enabled", str(native).lower())
    rows = (spark.range(0, 30_000, numPartitions=2)
            .selectExpr("id", "cast(id % 5 as int) as p",
                        "if(id % 13 = 0, null, concat('s', id % 1000)) as s",
                        "if(id % 10 = 0, null, cast(id as double) * 1.5) as d",
                        "cast(id % 100000 as decimal(12, 2)) as m",
                        "date_add(date'2020-01-01', cast(id % 400 as int)) as day"))
    rows.write.format("delta").partitionBy("p").save(str(path))
    rows.where("id < 3000").selectExpr("id + 30000 as id", "p", "s", "d", "m", "day") \
        .write.format("delta").mode("append").save(str(path))
    rows.where("id % 9 = 0").selectExpr("id", "p", "'merged' as s", "d", "m", "day") \
        .createOrReplaceTempView("changes")
    spark.sql(f"""MERGE INTO delta.`{path}` t USING changes c ON t.id = c.id
                  WHEN MATCHED THEN UPDATE SET t.s = c.s""")
    spark.conf.unset("spark.vecruntime.write.columnar.enabled")


def test_delta_rs_reads_the_plugins_table_as_deltas(spark, tmp_path):
    theirs, ours = tmp_path / "delta", tmp_path / "ours"
    build(spark, theirs, native=False)
    build(spark, ours, native=True)
    t, o = DeltaTable(str(theirs)), DeltaTable(str(ours))
    assert o.version() == t.version() == 2
    key = [("id", "ascending")]
    rows_t = t.to_pyarrow_table().sort_by(key)
    rows_o = o.to_pyarrow_table().sort_by(key)
    assert rows_o.num_rows == 33_000
    assert rows_o.equals(rows_t)
    assert pc.sum(pc.equal(rows_o["s"], "merged")).as_py() == 3334
    # The log: the same files by partition and statistics.
    def actions(table):
        a = pa.table(table.get_add_actions(flatten=True)).to_pylist()
        return sorted((x["partition.p"], x["num_records"],
                       tuple(sorted((k, str(v)) for k, v in x.items()
                                    if k.startswith(("min.", "max.", "null_count.")))))
                      for x in a)
    assert actions(o) == actions(t)
    for f in o.file_uris():
        created_by = pq.ParquetFile(f.removeprefix("file://")).metadata.created_by
        assert created_by.startswith("vecruntime version"), (f, created_by)
    for f in t.file_uris():
        assert pq.ParquetFile(f.removeprefix("file://")).metadata.created_by.startswith("parquet-mr")
