package io.vecruntime.spark

import java.io.{ByteArrayOutputStream, File}
import java.nio.{ByteBuffer, ByteOrder}

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData

import org.apache.spark.sql.DataFrame

/**
 * GEOMETRY and GEOGRAPHY columns written natively (Spark 4.2, the first Spark whose writer
 * writes them), against Spark's own writer: values read back by both readers, the Parquet
 * schema with its CRS and edge algorithm, and per column chunk the statistics, the column
 * index and the geospatial statistics (bounding box and geometry types) parquet-java gathers.
 * The input WKB is what users hand Spark: either byte order per nested geometry, bytes after
 * the geometry, empty points, Z and M, and a Z that is NaN.
 */
class GeospatialWriteSuite extends VecRuntimeSparkSession {

  /** WKB of random geometries, each part in a random byte order. */
  class WkbGen(r: Random, geography: Boolean) {
    private def order(): ByteOrder = if (r.nextBoolean()) ByteOrder.LITTLE_ENDIAN else ByteOrder.BIG_ENDIAN

    private def coordinate(z: Boolean, m: Boolean): Seq[Double] = {
      def round(v: Double) = math.rint(v * 1000) / 1000
      val x = if (r.nextInt(40) == 0) -0.0 else round(r.nextDouble() * 360 - 180)
      val y = if (r.nextInt(40) == 0) 0.0 else round(r.nextDouble() * 180 - 90)
      Seq(x, y) ++ (if (z) Seq(round(r.nextGaussian() * 100)) else Nil) ++
        (if (m) Seq(round(r.nextDouble() * 1e6)) else Nil)
    }

    private class Out(o: ByteOrder) {
      val bytes = new ByteArrayOutputStream()
      private val buf = ByteBuffer.allocate(8).order(o)
      def header(code: Int): Out = {
        bytes.write(if (o == ByteOrder.LITTLE_ENDIAN) 1 else 0); int(code)
      }
      def int(v: Int): Out = { buf.clear(); buf.putInt(v); bytes.write(buf.array(), 0, 4); this }
      def doubles(vs: Seq[Double]): Out = {
        vs.foreach { v => buf.clear(); buf.putDouble(v); bytes.write(buf.array(), 0, 8) }
        this
      }
      def raw(b: Array[Byte]): Out = { bytes.write(b); this }
    }

    /** A geometry of type `base` (1-7, random when 0) and dimensions z, m. */
    def geometry(base: Int, z: Boolean, m: Boolean, depth: Int = 0): Array[Byte] = {
      val kind = if (base > 0) base else 1 + r.nextInt(if (depth > 1) 6 else 7)
      val code = kind + (if (z && m) 3000 else if (m) 2000 else if (z) 1000 else 0)
      val out = new Out(order()).header(code)
      val dims = 2 + (if (z) 1 else 0) + (if (m) 1 else 0)
      kind match {
        case 1 =>
          r.nextInt(12) match {
            case 0 => out.doubles(Seq.fill(dims)(Double.NaN)) // POINT EMPTY
            case 1 if z => out.doubles(coordinate(false, false) ++ Seq(Double.NaN) ++ (if (m) Seq(1.0) else Nil))
            case _ => out.doubles(coordinate(z, m))
          }
        case 2 =>
          val n = if (r.nextInt(10) == 0) 0 else 2 + r.nextInt(6)
          out.int(n).doubles(Seq.fill(n)(coordinate(z, m)).flatten)
        case 3 =>
          val rings = r.nextInt(3)
          out.int(rings)
          for (_ <- 0 until rings) {
            val pts = Seq.fill(3 + r.nextInt(4))(coordinate(z, m))
            // Closed in X and Y; the last point's Z and M may differ from the first's.
            val last = pts.head.take(2) ++ coordinate(z, m).drop(2)
            out.int(pts.size + 1).doubles((pts :+ last).flatten)
          }
        case k =>
          val n = r.nextInt(4)
          out.int(n)
          for (_ <- 0 until n) out.raw(geometry(if (k == 7) 0 else k - 3, z, m, depth + 1))
      }
      out.bytes.toByteArray
    }

    /** A top-level value: any kind and dimensions, at times with bytes after it. */
    def value(): Array[Byte] = {
      val (z, m) = (r.nextInt(3) == 0, r.nextInt(4) == 0)
      val g = geometry(0, z, m)
      if (r.nextInt(15) == 0) g ++ Array[Byte](7, 7, 7) else g
    }
  }

  /** Rows of random WKB (a tenth null), as geometries of three SRIDs and as geographies. */
  def frame(n: Int, seed: Int, slices: Int = 2): DataFrame = {
    val r = new Random(seed)
    val gen = new WkbGen(r, geography = true)
    val rows = (0 until n).map(i => (i.toLong, if (r.nextInt(10) == 0) null else gen.value(),
      gen.value()))
    spark.createDataFrame(rows).toDF("id", "wkb", "other").repartition(slices).selectExpr(
      "id",
      "st_geomfromwkb(wkb) AS g",
      "st_geomfromwkb(wkb, 4326) AS g4326",
      "st_geomfromwkb(other, 3857) AS g3857",
      "st_geogfromwkb(wkb) AS geog",
      "named_struct('shape', st_geomfromwkb(other), 'id', id) AS st",
      "IF(id % 7 = 0, NULL, array(st_geomfromwkb(wkb), NULL, st_geomfromwkb(other))) AS arr",
      "map('a', st_geogfromwkb(other)) AS m")
  }

  /** Everything parquet-java reads of a chunk's statistics, doubles by their bits. */
  private def chunkStatistics(c: ColumnChunkMetaData): Seq[Any] = {
    val s = c.getStatistics
    val minMax = if (s != null && s.hasNonNullValue) {
      Seq(s.getMinBytes.toSeq, s.getMaxBytes.toSeq)
    } else Nil
    // parquet-java 1.17's GeospatialStatistics (by reflection: older parquet-java has none).
    def call(o: AnyRef, m: String): AnyRef = o.getClass.getMethod(m).invoke(o)
    val geo = Option(classOf[ColumnChunkMetaData].getMethod("getGeospatialStatistics").invoke(c)).map { g =>
      val box = Option(call(g, "getBoundingBox")).map(b =>
        Seq("getXMin", "getXMax", "getYMin", "getYMax", "getZMin", "getZMax", "getMMin", "getMMax")
          .map(m => java.lang.Double.doubleToLongBits(call(b, m).asInstanceOf[Double])))
      val types = Option(call(g, "getGeospatialTypes")).map(t =>
        call(t, "getTypes").asInstanceOf[java.util.Set[Integer]].asScala.map(_.intValue).toSeq.sorted)
      (box, types)
    }
    Seq(c.getPath.toDotString, c.getValueCount, Option(s).map(_.getNumNulls), minMax, geo)
  }

  private def columnIndexes(f: File): Seq[Any] = {
    val reader = openParquet(f)
    try reader.getFooter.getBlocks.asScala.flatMap(_.getColumns.asScala).map { c =>
      Option(reader.readColumnIndex(c)).map(i => (i.getNullPages.asScala.toSeq,
        i.getMinValues.asScala.map(b => b.array().toSeq), i.getMaxValues.asScala.map(_.array().toSeq),
        i.getBoundaryOrder))
    }.toSeq finally reader.close()
  }

  private def assertSameChunks(ours: String, theirs: String): Unit = {
    val (o, t) = (dataFiles(ours), dataFiles(theirs))
    assert(o.size == t.size)
    o.zip(t).foreach { case (a, b) =>
      def chunks(f: File) = footer(f).getBlocks.asScala.flatMap(_.getColumns.asScala).map(chunkStatistics)
      val (ca, cb) = (chunks(a), chunks(b))
      assert(ca.size == cb.size, s"$a: ${ca.size} chunks against Spark's ${cb.size}")
      ca.zip(cb).foreach { case (x, y) => assert(x == y, s"$a: chunk ours $x against Spark's $y") }
      assert(columnIndexes(a) == columnIndexes(b), s"$a: column indexes")
    }
  }

  testSince("4.2")("GEOMETRY and GEOGRAPHY at the top and nested, as Spark's writer writes them") {
    val df = frame(4000, seed = 1)
    val (ours, theirs) = compareWriters("geo")(df)
    assertSameChunks(ours, theirs)
    val schema = footer(dataFiles(ours).head).getFileMetaData.getSchema.toString
    Seq("optional binary g (GEOMETRY(SRID:0))", "optional binary g3857 (GEOMETRY(EPSG:3857))",
      "optional binary geog (GEOGRAPHY(OGC:CRS84,SPHERICAL))").foreach(s =>
      assert(schema.contains(s), s"$s in\n$schema"))
    // The geospatial statistics were gathered: a box with Z and M, every type and dimension.
    val stats = footer(dataFiles(ours).head).getBlocks.get(0).getColumns.asScala
      .map(chunkStatistics).find(_.head == "g").get
    stats.last match {
      case Some((Some(box: Seq[_]), Some(types: Seq[_]))) =>
        assert(box.forall(b => !java.lang.Double.longBitsToDouble(b.asInstanceOf[Long]).isNaN), box)
        assert(Seq(1, 2, 3, 4, 5, 6, 7, 1001, 2001, 3001, 3007).forall(types.contains), types)
      case other => fail(s"no geospatial statistics: $other")
    }
    // WKB read back as Spark reads it: little-endian, no bytes after the geometry.
    val back = spark.read.parquet(ours).selectExpr("id", "hex(st_asbinary(g))", "st_srid(g3857)")
    val source = df.selectExpr("id", "hex(st_asbinary(g))", "st_srid(g3857)")
    assert(firstDifference(canonical(back), canonical(source)).isEmpty)
  }

  testSince("4.2")("geospatial statistics per row group and page, statistics off, uncompressed") {
    val df = frame(6000, seed = 2, slices = 1)
    val small = (d: DataFrame, dir: String) => d.write.option("parquet.block.row.count.limit", "1000")
      .option("parquet.page.size", "8192").parquet(dir)
    val (ours, theirs) = compareWriters("geo-row-groups", small)(df)
    assert(footer(dataFiles(ours).head).getBlocks.size > 2)
    assertSameChunks(ours, theirs)
    val off = (d: DataFrame, dir: String) =>
      d.write.option("parquet.column.statistics.enabled", "false").parquet(dir)
    val (o2, t2) = compareWriters("geo-no-stats", off)(df.limit(500))
    assertSameChunks(o2, t2)
    // Uncompressed byte-string columns get v1 pages (see SparkParquetLayout.defaultWriterVersion).
    val plain = (d: DataFrame, dir: String) => d.write.option("compression", "none").parquet(dir)
    val (o3, t3) = compareWriters("geo-uncompressed", plain, pages = 1)(df.limit(800))
    assertSameChunks(o3, t3)
  }

  testSince("4.2")("only nulls and empty geometries: no bounding box, as parquet-java") {
    val df = spark.range(0, 300, 1, 2).selectExpr("id",
      "IF(id % 2 = 0, NULL, st_geomfromwkb(X'0101000000000000000000F87F000000000000F87F')) AS g",
      "st_geomfromwkb(CAST(NULL AS BINARY), 4326) AS n",
      "st_geomfromwkb(X'010700000000000000') AS empty_collection")
    val (ours, theirs) = compareWriters("geo-empty")(df)
    assertSameChunks(ours, theirs)
  }
}
