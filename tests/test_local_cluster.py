"""The plugin on a Spark whose executors are separate JVMs (master local-cluster[2,1,1024]).

The Spark home is the distribution the pyspark package carries (the release the plugin builds
against); the plugin jar reaches the executors through spark.jars, and each executor loads the
native library from it. An unpartitioned and a partitioned write must equal Spark's writer's:
the same rows, the same directory tree and file count; every file ours; write tasks on both
executors, none failed or retried.
"""
import json
import urllib.request

import pyarrow.parquet as pq
import pytest

from conftest import plugin_session


@pytest.fixture(scope="module")
def spark():
    session = plugin_session("local-cluster[2,1,1024]", "vecruntime-local-cluster",
                             **{"spark.sql.shuffle.partitions": "4", "spark.task.maxFailures": "1"})
    yield session
    session.stop()


def rows(spark, n=200_000):
    return (spark.range(0, n, numPartitions=4)
            .selectExpr("id", "cast(id % 7 as int) as p",
                        "if(id % 13 = 0, null, concat('s', id % 1000)) as s",
                        "if(id % 10 = 0, null, cast(id as double) * 1.5) as d",
                        "cast(id % 100000 as decimal(12, 2)) as m",
                        "date_add(date'2020-01-01', cast(id % 400 as int)) as day"))


def write(spark, df, path, group, native, partition_by=None):
    spark.conf.set("spark.vecruntime.write.columnar.enabled", str(native).lower())
    spark.sparkContext.setJobGroup(group, group)
    writer = df.write.mode("overwrite")
    if partition_by:
        writer = writer.partitionBy(partition_by)
    writer.parquet(str(path))
    spark.sparkContext.setJobGroup("", "")


def tree(path):
    files = sorted(p.relative_to(path) for p in path.rglob("*.parquet"))
    return sorted({str(f.parent) for f in files}), len(files), files


def write_tasks(spark, group):
    """(executor id, status, attempt) of every task of the jobs of one job group."""
    ui = spark.sparkContext.uiWebUrl
    app = spark.sparkContext.applicationId

    def get(path):
        with urllib.request.urlopen(f"{ui}/api/v1/applications/{app}/{path}") as r:
            return json.load(r)

    tasks = []
    for job in get("jobs"):
        if job.get("jobGroup") != group:
            continue
        for stage in job["stageIds"]:
            for attempt in get(f"stages/{stage}"):
                tasks += get(f"stages/{stage}/{attempt['attemptId']}/taskList?length=1000")
    return [(t["executorId"], t["status"], t["attempt"]) for t in tasks]


@pytest.mark.parametrize("partition_by", [None, "p"])
def test_local_cluster_write_equals_spark(spark, tmp_path, partition_by):
    df = rows(spark)
    ours, theirs = tmp_path / "vecruntime", tmp_path / "spark"
    label = partition_by or "flat"
    write(spark, df, ours, f"native-{label}", True, partition_by)
    write(spark, df, theirs, f"spark-{label}", False, partition_by)

    a, b = spark.read.parquet(str(ours)), spark.read.parquet(str(theirs))
    assert a.schema == b.schema
    assert a.count() == b.count() == 200_000
    assert a.exceptAll(b).count() == 0 and b.exceptAll(a).count() == 0

    dirs_ours, n_ours, files = tree(ours)
    dirs_theirs, n_theirs, _ = tree(theirs)
    assert dirs_ours == dirs_theirs
    assert n_ours == n_theirs
    assert (ours / "_SUCCESS").exists()
    for f in files:
        assert pq.ParquetFile(ours / f).metadata.created_by.startswith("vecruntime"), f
    for f in tree(theirs)[2]:
        assert pq.ParquetFile(theirs / f).metadata.created_by.startswith("parquet-mr"), f

    tasks = write_tasks(spark, f"native-{label}")
    executors = {e for e, _, _ in tasks}
    assert executors == {"0", "1"}, tasks
    assert all(status == "SUCCESS" and attempt == 0 for _, status, attempt in tasks), tasks
