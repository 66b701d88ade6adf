package io.vecruntime.spark

import java.io.{ByteArrayOutputStream, File}

import scala.jdk.CollectionConverters._

import org.apache.parquet.column.page.{DataPageV1, DataPageV2}
import org.apache.parquet.column.statistics.Statistics
import org.apache.parquet.column.values.bloomfilter.BlockSplitBloomFilter

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.FileSourceScanExec

/**
 * What parquet-java reads of each column chunk, ours against Spark's writer for the same rows:
 * row-group cuts, encodings, chunk statistics, column and offset indexes (page cuts, long strings
 * truncated), bloom filter bitsets; and reads that skip row groups, pages and bloom-filtered row
 * groups, which must return the rows a full read returns and skip what Spark's files let skip.
 */
class ChunkParitySuite extends VecRuntimeSparkSession with AllTypesData {

  /**
   * Parquet-java's choices to the byte: v2 pages as ours, its level runs, DELTA_BINARY_PACKED
   * integers (ours are PLAIN for Spark's reader by default), small cuts. Uncompressed: a row
   * group ends by the size of its compressed pages, and snappy-java's bytes are not the snap
   * crate's.
   */
  val exact: Map[String, String] = Map(
    "compression" -> "none",
    "parquet.writer.version" -> "v2",
    SparkParquetLayout.DeltaBinaryPacked -> "true",
    "vecruntime.rle.parquet-java-runs" -> "true",
    "parquet.block.size" -> "262144",
    "parquet.page.size" -> "8192")

  /**
   * Long null runs (8 to 63 at the start of every 100 rows, and 6,000 crossing page and
   * row-group cuts), strings longer than the column index keeps (multi-byte characters across
   * the cut, bytes 0xFF that cannot be rounded up), NaN and signed zeros, ascending ids.
   */
  def runsDf(): DataFrame = spark.range(0, 60000, 1, 2).selectExpr(
    "id",
    "if(id % 100 < 8 + (id div 100) % 56, null, id * 7) as runs",
    "if(id between 21000 and 27000, null, cast(id % 1000 as int)) as gap",
    "concat(repeat('k', 70), lpad(cast(id % 500 as string), 6, '0')) as long_s",
    "if(id % 3 = 0, null, concat(repeat('日', 21), cast(id % 300 as string))) as utf",
    "cast(concat(repeat('é', 40), cast(id % 70 as string)) as binary) as utf_bin",
    "concat(unhex(repeat('FF', 70)), cast(cast(id % 50 as string) as binary)) as ff",
    "case id % 9 when 0 then double('NaN') when 1 then -0.0d when 2 then 0.0d else id / 7.0d end as dbl",
    "id % 5 = 0 as flag")

  def hex(b: Array[Byte]): String = b.map(x => f"${x & 0xff}%02x").mkString

  /** A short digest of bytes compared whole (pages, bitsets). */
  def sha(b: Array[Byte]): String = hex(java.security.MessageDigest.getInstance("SHA-256").digest(b)).take(16)

  def statsText(s: Statistics[_]): String =
    if (s == null) "none"
    else if (s.isEmpty) "empty"
    else s"nulls ${s.getNumNulls}" + (if (s.hasNonNullValue) s" min ${hex(s.getMinBytes)} max ${hex(s.getMaxBytes)}" else "")

  /**
   * Per file (job uuid taken out of the name), row group and column chunk: each aspect as text,
   * so that a difference names where it is.
   */
  def chunks(dir: String, aspects: Set[String]): Map[String, String] = dataFiles(dir).flatMap { f =>
    // (Spark names a file of a partition `<job uuid>.c000`, other files `<job uuid>-c000`.)
    val name = f.getName.replaceAll("part-(\\d+)-.*[-.](c\\d+)", "part-$1-$2")
    val r = openParquet(f)
    try r.getFooter.getBlocks.asScala.zipWithIndex.flatMap { case (block, g) =>
      Seq(s"$name rg$g rows" -> block.getRowCount.toString) ++ block.getColumns.asScala.flatMap { c =>
        val at = s"$name rg$g ${c.getPath.toDotString}"
        lazy val columnIndex = Option(r.readColumnIndex(c))
        lazy val offsetIndex = Option(r.readOffsetIndex(c))
        def all: Map[String, () => String] = Map(
          "values" -> (() => c.getValueCount.toString),
          "statistics" -> (() => statsText(c.getStatistics)),
          "encodings" -> (() => c.getEncodings.asScala.map(_.name).toSeq.sorted.mkString(",")),
          "encoding stats" -> (() => Option(c.getEncodingStats).map(e =>
            (e.getDictionaryEncodings.asScala.map(x => s"dict $x ${e.getNumDictionaryPagesEncodedAs(x)}") ++
              e.getDataEncodings.asScala.map(x => s"data $x ${e.getNumDataPagesEncodedAs(x)}")).toSeq.sorted
              .mkString(",")).getOrElse("none")),
          "column index" -> (() => columnIndex.map { i =>
            s"${i.getBoundaryOrder} nullPages ${i.getNullPages.asScala.mkString(",")} " +
              s"nulls ${Option(i.getNullCounts).map(_.asScala.mkString(",")).getOrElse("-")} " +
              s"min ${i.getMinValues.asScala.map(b => hex(bytes(b))).mkString(",")} " +
              s"max ${i.getMaxValues.asScala.map(b => hex(bytes(b))).mkString(",")}"
          }.getOrElse("none")),
          "page rows" -> (() => offsetIndex.map(o =>
            (0 until o.getPageCount).map(p => o.getFirstRowIndex(p)).mkString(",")).getOrElse("none")),
          "bloom filter" -> (() => Option(r.readBloomFilter(c)).map { b =>
            val out = new ByteArrayOutputStream()
            b.asInstanceOf[BlockSplitBloomFilter].writeTo(out)
            s"${b.getBitsetSize} bytes ${b.getHashStrategy} ${b.getAlgorithm} ${b.getCompression} " +
              sha(out.toByteArray)
          }.getOrElse("none")))
        all.filter(a => aspects(a._1)).map { case (k, v) => s"$at $k" -> v() }
      }
    } ++ (if (aspects("pages")) pages(name, f) else Nil)
    finally r.close()
  }.toMap

  /**
   * Every page of `f` decompressed (compressors differ: snappy-java's bytes are not the snap
   * crate's), by row group and column: its header's counts and statistics, and its bytes.
   */
  def pages(name: String, f: File): Seq[(String, String)] = {
    val r = openParquet(f)
    try {
      val columns = r.getFooter.getFileMetaData.getSchema.getColumns.asScala
      Iterator.continually(r.readNextRowGroup()).takeWhile(_ != null).zipWithIndex.flatMap { case (group, g) =>
        columns.map { c =>
          val pages = group.getPageReader(c)
          val dictionary = Option(pages.readDictionaryPage()).map(d =>
            s"dictionary ${d.getEncoding} ${d.getDictionarySize} ${sha(d.getBytes.toByteArray)}").getOrElse("")
          val data = Iterator.continually(pages.readPage()).takeWhile(_ != null).map {
            case p: DataPageV2 =>
              s"v2 rows ${p.getRowCount} values ${p.getValueCount} nulls ${p.getNullCount} ${p.getDataEncoding} " +
                s"${p.getUncompressedSize} ${statsText(p.getStatistics)} " +
                sha(p.getRepetitionLevels.toByteArray ++ p.getDefinitionLevels.toByteArray ++ p.getData.toByteArray)
            case p: DataPageV1 =>
              s"v1 values ${p.getValueCount} ${p.getValueEncoding} ${p.getUncompressedSize} " +
                s"${statsText(p.getStatistics)} ${sha(p.getBytes.toByteArray)}"
          }.mkString("; ")
          s"$name rg$g ${c.getPath.mkString(".")} pages" -> s"$dictionary; $data"
        }
      }.toList
    } finally r.close()
  }

  def bytes(b: java.nio.ByteBuffer): Array[Byte] = {
    val d = b.duplicate()
    val out = new Array[Byte](d.remaining())
    d.get(out)
    out
  }

  /** The chunks of `ours` and `theirs` agree on `aspects`; the differences are listed if not. */
  def assertSameChunks(ours: String, theirs: String, aspects: Set[String], except: String => Boolean = _ => false)
      : Map[String, String] = {
    val o = chunks(ours, aspects).filter(e => !except(e._1))
    val t = chunks(theirs, aspects).filter(e => !except(e._1))
    val diffs = (o.keySet ++ t.keySet).toSeq.sorted.filter(k => o.get(k) != t.get(k))
    assert(diffs.isEmpty, s"${diffs.size} differences, ours against Spark's:\n" +
      diffs.take(12).map(k => s"$k:\n  ${o.getOrElse(k, "-").take(400)}\n  ${t.getOrElse(k, "-").take(400)}").mkString("\n"))
    assert(o.nonEmpty)
    o
  }

  val everything = Set("values", "statistics", "encodings", "encoding stats", "column index",
    "page rows", "pages", "bloom filter")

  // BOOLEAN pages are PLAIN, where parquet-java's v2 writer makes them RLE (docs/user-guide.md says why).
  def booleanBytes(k: String): Boolean =
    Seq(" b ", " flag ").exists(c => k.contains(c)) &&
      Seq("encodings", "encoding stats", "pages").exists(a => k.endsWith(a))

  def write(options: Map[String, String]): (DataFrame, String) => Unit =
    (df, dir) => df.write.options(options).parquet(dir)

  /**
   * `df` written by both writers with `options`, not read back: Spark's vectorized reader
   * misreads uncompressed v2 pages of strings (VectorWriteSuite), which `exact` writes.
   */
  def writeBoth(name: String, options: Map[String, String])(df: DataFrame): (String, String) = {
    val ours = newDir(s"$name-ours")
    val theirs = newDir(s"$name-spark")
    assert(usesVecRuntime(planOf(df.write.options(options).parquet(ours))))
    withConf(VecRuntimeConf.ENABLED -> "false") {
      df.write.options(options).parquet(theirs)
    }
    (ours, theirs)
  }

  test("row groups, pages, statistics, encodings and indexes as Spark's writer makes them") {
    for ((name, df) <- Seq("all-types" -> allTypesDf(3000), "runs" -> runsDf())) {
      val (ours, theirs) = writeBoth(s"exact-$name", exact)(df)
      val seen = assertSameChunks(ours, theirs, everything, booleanBytes)
      assert(seen.count(_._1.endsWith(" rows")) > 2, s"$name: several row groups")
      assert(seen.exists(e => e._1.endsWith("page rows") && e._2.count(_ == ',') > 3), s"$name: several pages")
      val b = chunks(ours, Set("encodings")).filter(e => booleanBytes(e._1)).values.toSet
      assert(b == Set("PLAIN"), s"$name: booleans PLAIN: $b")
    }
    // A column index cut elsewhere than at 64 bytes, and chunk statistics truncated too.
    val truncated = exact ++ Map("parquet.columnindex.truncate.length" -> "9",
      "parquet.statistics.truncate.length" -> "20")
    val (ours, theirs) = writeBoth("truncated", truncated)(runsDf())
    val index = assertSameChunks(ours, theirs, everything, booleanBytes)
    val longS = index.find(_._1.endsWith("long_s column index")).get._2
    def values(what: String) = longS.split(s"$what ")(1).takeWhile(_ != ' ').split(",").toSet
    assert(values("min") == Set("6b" * 9) && values("max") == Set("6b" * 8 + "6c"), longS)
  }

  test("first pages' dictionaries, kept, given up or outgrown mid-page, as Spark's writer's") {
    // A column's dictionary is decided by its first page, whose values the native writer puts
    // in the dictionary when the page is cut; files among many (partitioned) build it in the
    // memory of the last one given up. Small dictionary pages make `spread` outgrow its
    // dictionary in the middle of its first page.
    val df = runsDf().selectExpr("*", "id % 3 as part",
      "cast(id * 2654435761 % 1000003 as int) as spread", "cast((id % 97) * 7919 as int) as few",
      "if(id % 7 = 0, null, id * 2654435761 % 1000003) as spread_long")
    for ((name, options) <- Seq("default" -> exact,
        "small-dictionary" -> (exact + ("parquet.dictionary.page.size" -> "4096")))) {
      val (ours, theirs) = writeBoth(s"first-pages-$name", options)(df.drop("part"))
      assertSameChunks(ours, theirs, everything, booleanBytes)
      val (partsOurs, partsTheirs) = (newDir(s"first-pages-$name-p"), newDir(s"first-pages-$name-ps"))
      assert(usesVecRuntime(planOf(df.write.options(options).partitionBy("part").parquet(partsOurs))))
      withConf(VecRuntimeConf.ENABLED -> "false") {
        df.write.options(options).partitionBy("part").parquet(partsTheirs)
      }
      val parts = new File(partsOurs).listFiles().filter(_.isDirectory).map(_.getName).sorted.toSeq
      assert(parts == Seq("part=0", "part=1", "part=2"))
      assert(new File(partsTheirs).listFiles().filter(_.isDirectory).map(_.getName).sorted.toSeq == parts)
      val encodings = parts.flatMap { p =>
        assertSameChunks(s"$partsOurs/$p", s"$partsTheirs/$p", everything, booleanBytes)
      }
      def stats(column: String) = encodings.filter(_._1.endsWith(s" $column encoding stats")).map(_._2)
      // Given up in every file, at the first page's cut or (small dictionary pages) before it.
      assert(stats("spread").size >= 6 && stats("spread").forall(e => !e.contains("dict")), stats("spread"))
      assert(stats("few").size >= 6 && stats("few").forall(e => !e.contains("data PLAIN")), stats("few"))
    }
  }

  test("first pages whose dictionary wins or loses by a few bytes, as Spark's writer's") {
    // 1,000 rows: s distinct values, then zeros. The ids of the s values take their bit width
    // each; the zeros, one run. From s = 760 (INT32) and s = 864 (INT64) the dictionary
    // stops beating the plain page by a few bytes: the native writer may give a dictionary up
    // before the cut only where the whole page could not have kept it.
    val ints = (745 to 775).map(s => s"cast(if(id < $s, id + 1, 0) as int) as i$s")
    val longs = (850 to 880).map(s => s"if(id < $s, id + 1, 0) as l$s")
    val df = spark.range(0, 1000, 1, 1).selectExpr(ints ++ longs: _*)
    // One row group of one page.
    val options = exact ++ Map("parquet.block.size" -> (128 << 20).toString, "parquet.page.size" -> (1 << 20).toString)
    val (ours, theirs) = writeBoth("first-page-ties", options)(df)
    val encodings = assertSameChunks(ours, theirs, everything)
    assert(encodings.filter(_._1.endsWith(" page rows")).values.toSet == Set("0"), "one page a chunk")
    assert(!encodings.keys.exists(_.contains(" rg1 ")), "one row group")
    for (prefix <- Seq("i", "l")) {
      // Kept up to a point, given up past it, in the order of s.
      val kept = encodings.toSeq.collect {
        case (k, v) if k.endsWith(" encoding stats") && k.split(" ")(2).startsWith(prefix) =>
          k.split(" ")(2).drop(1).toInt -> v.contains("dict")
      }.sorted.map(_._2)
      assert(kept.size == 31 && kept.head && !kept.last && kept == kept.sorted.reverse, s"$prefix: $kept")
    }
  }

  test("statistics, encodings and dictionaries as Spark's writer makes them, at its defaults") {
    // Ours: definition level runs of its own (so its own page and row-group cuts), v2 pages;
    // theirs with v2 pages. Whatever the cuts, a chunk's statistics and encodings agree.
    val v2 = Map("parquet.writer.version" -> "v2", SparkParquetLayout.DeltaBinaryPacked -> "true")
    for ((name, df) <- Seq("all-types" -> allTypesDf(3000), "runs" -> runsDf())) {
      val (ours, theirs) = compareWriters(s"defaults-$name", write(v2))(df)
      assertSameChunks(ours, theirs, Set("values", "statistics", "encodings"), booleanBytes)
    }
  }

  test("bloom filters as Spark's writer makes them: ndv and fpp, the size cap, adaptive") {
    val settings = Seq(
      "ndv" -> Map("parquet.bloom.filter.enabled#id" -> "true",
        "parquet.bloom.filter.expected.ndv#id" -> "20000", "parquet.bloom.filter.fpp#id" -> "0.05",
        "parquet.bloom.filter.enabled#long_s" -> "true", "parquet.bloom.filter.expected.ndv#long_s" -> "700",
        "parquet.bloom.filter.enabled#dbl" -> "true", "parquet.bloom.filter.expected.ndv#dbl" -> "70000",
        "parquet.enable.dictionary#long_s" -> "false"),
      "capped" -> Map("parquet.bloom.filter.enabled" -> "true", "parquet.bloom.filter.max.bytes" -> "16384",
        "parquet.enable.dictionary" -> "false"),
      "adaptive" -> Map("parquet.bloom.filter.enabled" -> "true",
        "parquet.bloom.filter.adaptive.enabled" -> "true", "parquet.bloom.filter.candidates.number" -> "4",
        "parquet.enable.dictionary" -> "false"))
    for ((name, options) <- settings) {
      val (ours, theirs) = writeBoth(s"bloom-$name", exact ++ options)(runsDf())
      val seen = assertSameChunks(ours, theirs, Set("bloom filter"))
      assert(seen.count(_._2 != "none") >= 3, s"$name: bloom filters written: $seen")
    }
  }

  /** Rows of `cond` read from `dir` (as text), and the rows its scan gave the filter. */
  def scan(dir: String, cond: String, vectorized: Boolean, conf: (String, String)*): (Seq[String], Long) =
    withConf(Seq("spark.sql.parquet.enableVectorizedReader" -> vectorized.toString) ++ conf: _*) {
      val df = spark.read.parquet(dir).where(cond)
      val rows = canonical(df).map(_.toSeq.map(show).mkString("|"))
      val scanned = nodesOf(df.queryExecution.executedPlan).collect {
        case s: FileSourceScanExec => s.metrics("numOutputRows").value
      }.sum
      (rows, scanned)
    }

  val skipping = Map(
    "row-group statistics" -> "parquet.filter.stats.enabled",
    "column index" -> "parquet.filter.columnindex.enabled",
    "bloom filter" -> "parquet.filter.bloom.enabled")

  test("reads that skip row groups, pages and bloom-filtered row groups: the rows of a full read", Slow) {
    // Our files as the plugin writes them by default, bloom filters on two columns.
    val write = (df: DataFrame, dir: String) => df.write.options(Map(
      "parquet.block.size" -> "262144", "parquet.page.size" -> "8192",
      "parquet.bloom.filter.enabled#runs" -> "true", "parquet.enable.dictionary#runs" -> "false",
      "parquet.bloom.filter.expected.ndv#runs" -> "60000", "parquet.bloom.filter.enabled#long_s" -> "true",
      "parquet.enable.dictionary#long_s" -> "false")).parquet(dir)
    val (ours, _) = compareWriters("pushdown", write)(runsDf())
    // (condition, what lets the reader skip: it skips fewer rows with that switched off)
    val conditions = Seq(
      "id between 30100 and 30150" -> Some("row-group statistics"),
      "gap = 7" -> Some("column index"),
      "runs = 210630" -> Some("column index"),
      "runs = 210351" -> Some("bloom filter"), // between two values of a page: no such value
      "long_s = concat(repeat('k', 70), '000123')" -> None,
      "long_s > concat(repeat('k', 70), '000498')" -> None,
      "utf like '日日%' and id < 3000" -> Some("column index"),
      "utf_bin < cast(repeat('é', 41) as binary)" -> None,
      "dbl > 8000.0" -> None, // pages holding NaN: no column index, as parquet-java's
      "dbl = 0.0" -> None,
      "ff < unhex(repeat('FF', 71))" -> None,
      "gap is null and id > 26990" -> Some("column index"),
      "runs is not null and id < 200" -> Some("row-group statistics"))
    for ((cond, by) <- conditions; vectorized <- Seq(true, false)) {
      val what = s"$cond, vectorized=$vectorized"
      val (full, _) = scan(ours, cond, vectorized, "spark.sql.parquet.filterPushdown" -> "false")
      val (rows, _) = scan(ours, cond, vectorized)
      assert(rows == full, s"$what: rows with pushdown on and off")
      by.foreach { how =>
        // Row groups the statistics skip, the column index would skip too: it is off for them.
        val base = if (how == "row-group statistics") Seq(skipping("column index") -> "false") else Nil
        val (_, on) = scan(ours, cond, vectorized, base: _*)
        val (_, off) = scan(ours, cond, vectorized, base :+ (skipping(how) -> "false"): _*)
        assert(on < off, s"$what: $how skipped nothing ($on rows scanned, $off without it)")
      }
    }
  }

  test("Spark's vectorized reader misreads DELTA_BINARY_PACKED pages it skips into before 4.3") {
    // Why the plugin writes integers PLAIN unless the oldest Spark reading the files is 4.3:
    // Spark's own writer's v2 files read wrong on the earlier lines. If this fails before 4.3,
    // that line's reader is fixed and the setting's threshold can move.
    val dir = newDir("spark-delta")
    withConf(VecRuntimeConf.ENABLED -> "false") {
      runsDf().write.options(exact ++ Map("compression" -> "snappy",
        "parquet.enable.dictionary#runs" -> "false")).parquet(dir)
    }
    val cond = "gap is null and id > 26990"
    val (full, _) = scan(dir, cond, vectorized = true, "spark.sql.parquet.filterPushdown" -> "false")
    val (skipped, _) = scan(dir, cond, vectorized = true)
    assert(full.size == 10)
    if (sparkAtLeast("4.3")) assert(skipped == full, "Spark 4.3's vectorized reader misreads")
    else assert(skipped != full, "Spark's vectorized reader now reads these pages right")
    val (rows, _) = scan(dir, cond, vectorized = false)
    assert(rows == full)
  }

  test("oldestSparkReader 4.3: DELTA_BINARY_PACKED integers, as parquet-java's v2 writer's") {
    val df = runsDf().selectExpr("id", "gap", "cast(runs as int) as runs32")
    val noDictionary = Map("parquet.enable.dictionary" -> "false", "compression" -> "snappy",
      "parquet.block.size" -> "262144", "parquet.page.size" -> "8192")
    def encodings(dir: String): Map[String, Set[String]] = {
      val blocks = dataFiles(dir).flatMap(f => footer(f).getBlocks.asScala)
      blocks.flatMap(_.getColumns.asScala).groupBy(_.getPath.toDotString)
        .map { case (c, chunks) => c -> chunks.flatMap(_.getEncodings.asScala.map(_.name)).toSet }
    }
    for ((oldest, delta) <- Seq(None -> false, Some("4.2") -> false, Some("4.3") -> true,
        Some("5.0.1") -> true)) {
      val dir = newDir("oldest-reader")
      val options = noDictionary ++ oldest.map(VecRuntimeConf.OLDEST_SPARK_READER -> _)
      assert(usesVecRuntime(planOf(df.write.options(options).parquet(dir))))
      val values = if (delta) "DELTA_BINARY_PACKED" else "PLAIN"
      Seq("id", "gap", "runs32").foreach(c => assert(encodings(dir)(c).contains(values), (oldest, c)))
      if (delta) {
        // Spark 4.3 reads them right where the column index skips pages; earlier lines do not.
        val cond = "gap is null and id > 26990"
        val (full, _) = scan(dir, cond, vectorized = true, "spark.sql.parquet.filterPushdown" -> "false")
        val (skipped, _) = scan(dir, cond, vectorized = true)
        assert(full.size == 10 && (skipped == full) == sparkAtLeast("4.3"), (skipped, full))
      }
    }
    // The same as a session setting, checked when the write is planned.
    withConf(VecRuntimeConf.OLDEST_SPARK_READER -> "4.3") {
      val dir = newDir("oldest-reader-session")
      df.write.options(noDictionary).parquet(dir)
      assert(encodings(dir)("gap").contains("DELTA_BINARY_PACKED"))
    }
    withConf(VecRuntimeConf.OLDEST_SPARK_READER -> "latest") {
      val e = intercept[IllegalArgumentException](df.write.parquet(newDir("oldest-reader-bad")))
      assert(e.getMessage.contains(
        s"${VecRuntimeConf.OLDEST_SPARK_READER} must be a Spark release such as 3.5 or 4.3, got 'latest'"))
    }
  }
}
