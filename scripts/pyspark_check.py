"""The plugin jar in pyspark's own Spark distribution: flat, nested and partitioned writes go
native (the footers name vecruntime) and read back, with both Spark readers, equal to the files
Spark's writer makes from the same rows.

    python scripts/pyspark_check.py <plugin jar>
"""
import os
import pathlib
import sys
import tempfile

import pyspark
from pyspark.sql import SparkSession


def footers_name_vecruntime(path):
    files = list(pathlib.Path(path).rglob("*.parquet"))
    # created_by sits in the footer, within the file's last bytes.
    return bool(files) and all(b"vecruntime version" in f.read_bytes()[-65536:] for f in files)


def main():
    os.environ["SPARK_HOME"] = os.path.dirname(pyspark.__file__)
    spark = (SparkSession.builder.master("local[2]").appName("pyspark-check")
             .config("spark.jars", sys.argv[1])
             .config("spark.sql.extensions", "io.vecruntime.spark.VecRuntimeExtensions")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").getOrCreate())
    df = spark.range(0, 100000, 1, 2).selectExpr(
        "id", "cast(id % 37 as int) as p", "case when id % 7 = 0 then null else cast(id as string) end as s",
        "id * 1.5 as d", "date_add(date'2020-01-01', cast(id % 1000 as int)) as dt",
        "timestamp_seconds(id * 977) as ts", "cast(id as decimal(20, 2)) as dec",
        "array(id, case when id % 5 = 0 then null else id + 1 end) as arr",
        "named_struct('a', id, 'm', map(cast(id % 3 as string), id)) as st")
    cases = {"flat": lambda w: w, "partitioned": lambda w: w.partitionBy("p")}
    with tempfile.TemporaryDirectory() as tmp:
        for name, shape in cases.items():
            ours, theirs = f"{tmp}/{name}-ours", f"{tmp}/{name}-spark"
            shape(df.write).parquet(ours)
            spark.conf.set("spark.vecruntime.write.columnar.enabled", "false")
            shape(df.write).parquet(theirs)
            spark.conf.set("spark.vecruntime.write.columnar.enabled", "true")
            assert footers_name_vecruntime(ours), f"{name}: not written natively"
            assert not footers_name_vecruntime(theirs), f"{name}: the plugin did not switch off"
            for vectorized in ["true", "false"]:
                spark.conf.set("spark.sql.parquet.enableVectorizedReader", vectorized)
                a, b = spark.read.parquet(ours), spark.read.parquet(theirs)
                assert a.schema == b.schema, (name, a.schema, b.schema)
                # Set operations take no maps: the struct holding one is compared as JSON.
                a, b = (t.withColumn("st", t["st"].cast("string")) for t in (a, b))
                assert a.count() == b.count() == df.count()
                assert a.exceptAll(b).count() == 0 and b.exceptAll(a).count() == 0, (name, vectorized)
            print(f"Spark {spark.version}: {name} write native, read back equal to Spark's writer's")
    spark.stop()


if __name__ == "__main__":
    main()
