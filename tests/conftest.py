"""Shared by the tests that run a Spark with the plugin: the jar and a session builder."""
import os
import pathlib

import pyspark
from pyspark.sql import SparkSession

ROOT = pathlib.Path(__file__).resolve().parents[1]


def plugin_jar():
    """The plugin jar `mvn package` made."""
    return next(p for p in sorted((ROOT / "spark-plugin" / "target").glob("vecruntime-spark-*.jar"))
                if not p.name.startswith("original-"))


def plugin_session(master, app, **conf):
    """A Spark session of pyspark's own distribution (the release the plugin builds against)
    with the plugin jar and its extensions, plus `conf`."""
    os.environ["SPARK_HOME"] = os.path.dirname(pyspark.__file__)
    builder = (SparkSession.builder.master(master).appName(app)
               .config("spark.jars", str(plugin_jar()))
               .config("spark.sql.extensions", "io.vecruntime.spark.VecRuntimeExtensions"))
    for k, v in conf.items():
        builder = builder.config(k, v)
    return builder.getOrCreate()
