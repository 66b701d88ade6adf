package io.vecruntime.spark

import java.time.Instant
import java.util.TimeZone

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import io.vecruntime.parquet.ColumnarParquetWriter
import io.vecruntime.parquet.ColumnarParquetWriter.RebaseMode
import io.vecruntime.spark.shims.SparkShims

import org.apache.spark.sql.catalyst.util.RebaseDateTime
import org.apache.spark.sql.execution.datasources.DataSourceUtils
import org.apache.spark.sql.execution.datasources.vecruntime.SparkWriteShim
import org.apache.spark.sql.internal.{LegacyBehaviorPolicy, SQLConf}

/**
 * Spark's calendar rebase in write, as `ParquetWriteSupport` takes it from the task's SQL
 * configuration: `datetime` for dates and timestamps, `int96` for INT96 timestamps, LEGACY
 * timestamps in the session time zone. The native writer rebases (see `native/kernels`'s
 * `rebase`) with the zone's table from Spark's own `gregorian-julian-rebase-micros.json`, or,
 * for a zone Spark has no table for, by Spark's calendar path ([[SparkRebase.tableFor]]).
 */
case class SparkRebase(
    datetime: LegacyBehaviorPolicy.Value,
    int96: LegacyBehaviorPolicy.Value,
    timeZone: String) {
  import SparkRebase._

  def corrected: Boolean =
    datetime == LegacyBehaviorPolicy.CORRECTED && int96 == LegacyBehaviorPolicy.CORRECTED

  /** Whether dates and (not INT96) timestamps are rebased: LEGACY. */
  def legacyDatetime: Boolean = datetime == LegacyBehaviorPolicy.LEGACY

  /** Whether values change: LEGACY for dates and timestamps, or for INT96 timestamps. */
  def legacy: Boolean = legacyDatetime || int96 == LegacyBehaviorPolicy.LEGACY

  /** The footer keys `ParquetWriteSupport` adds in LEGACY modes. */
  def footer: Seq[(String, String)] = {
    val tz = SparkWriteShim.TimeZoneKey -> timeZone
    val dt = if (datetime == LegacyBehaviorPolicy.LEGACY) {
      Seq(SparkWriteShim.LegacyDateTimeKey -> "", tz)
    } else Nil
    val i96 = if (int96 == LegacyBehaviorPolicy.LEGACY) {
      Seq(SparkWriteShim.LegacyInt96Key -> "", tz)
    } else Nil
    (dt ++ i96).distinct
  }

  /** Hands the modes, and the session zone's table when LEGACY, to the writer. */
  def configure(writer: ColumnarParquetWriter): Unit = if (!corrected) {
    val table = if (legacy) tableFor(timeZone) else None
    val (zoneOffset, calendarOffset) = ancientOffsets(timeZone)
    writer.configureRebase(mode(datetime), mode(int96), table.map(_._1).orNull,
      table.map(_._2).orNull, zoneOffset, calendarOffset, RebaseDateTime.lastSwitchGregorianTs)
  }
}

object SparkRebase {
  def ofSession(conf: SQLConf): SparkRebase = {
    val (datetime, int96) = SparkShims.rebaseModesInWrite(conf)
    SparkRebase(datetime, int96, conf.sessionLocalTimeZone)
  }

  private def mode(m: LegacyBehaviorPolicy.Value): RebaseMode = m match {
    case LegacyBehaviorPolicy.LEGACY => RebaseMode.LEGACY
    case LegacyBehaviorPolicy.EXCEPTION => RebaseMode.EXCEPTION
    case _ => RebaseMode.CORRECTED
  }

  /**
   * Spark's tables by zone id: switches and diffs in micros (the file holds seconds), read from
   * the resource Spark's `RebaseDateTime` reads.
   */
  lazy val tables: Map[String, (Array[Long], Array[Long])] = {
    val in = RebaseDateTime.getClass.getClassLoader
      .getResourceAsStream("gregorian-julian-rebase-micros.json")
    try {
      new ObjectMapper().readTree(in).elements().asScala.map { r =>
        def micros(field: String) = r.get(field).elements().asScala.map(_.asLong * 1000000L).toArray
        r.get("tz").asText -> (micros("switches"), micros("diffs"))
      }.toMap
    } finally in.close()
  }

  /**
   * The table the native writer rebases LEGACY timestamps in zone `tz` by: Spark's, or for a
   * zone Spark has none for, which Spark's calendar path rebases below `lastSwitchGregorianTs`
   * (1900-01-01Z), one the native calendar path gives the same values by:
   *  - an empty one for a zone of one fixed offset (`GMT+05:00`; also an id `java.util.TimeZone`
   *    does not parse, such as `+05:00`, which it and so Spark's rebase take as GMT);
   *  - a single switch at 1900 for a zone whose clocks first changed after it
   *    (`America/Ciudad_Juarez`, newer than the table): below it the calendar path reads the
   *    local time by java.time's local mean time, and the instant by java.util.TimeZone's raw
   *    offset, which it keeps up to 1900-01-01Z (its zone data start there). Where local mean
   *    time is ahead of the raw offset, the instants of the last minutes before 1900 would
   *    cross that start, so such a zone is not taken.
   * None for the zones not taken.
   */
  def tableFor(tz: String): Option[(Array[Long], Array[Long])] = tables.get(tz).orElse {
    val zone = TimeZone.getTimeZone(tz)
    val rules = zone.toZoneId.getRules
    if (rules.isFixedOffset) {
      Some((Array.emptyLongArray, Array.emptyLongArray))
    } else {
      val last = RebaseDateTime.lastSwitchGregorianTs
      // A day past the switch: no local time of the calendar path reaches a change.
      val first = rules.nextTransition(Ancient)
      val unchanged = first == null ||
        first.getInstant.isAfter(Instant.ofEpochSecond(last / 1000000L + 86400L))
      val raw = Seq(Ancient, Instant.parse("1582-10-15T00:00:00Z"),
        Instant.parse("1800-01-01T00:00:00Z"), Instant.ofEpochMilli(last / 1000L - 1))
        .map(i => zone.getOffset(i.toEpochMilli)).distinct
      val (byTime, byCalendar) = ancientOffsets(tz)
      if (unchanged && raw.size == 1 && byTime <= byCalendar) Some((Array(last), Array(0L)))
      else None
    }
  }

  private val Ancient = Instant.ofEpochSecond(-62135596800L - 400L * 366 * 86400)

  /** Whether LEGACY timestamps in zone `tz` can be written natively. */
  def rebasesNatively(tz: String): Boolean = tableFor(tz).isDefined

  /**
   * The zone's offsets (micros) before any transition, by `java.time` (local mean time) and by
   * `java.util.TimeZone` (its raw offset): Spark's calendar path, which it takes below the
   * table, reads the local time with the one and the Julian instant with the other.
   */
  private def ancientOffsets(tz: String): (Long, Long) = {
    val zone = TimeZone.getTimeZone(tz)
    val byTime = zone.toZoneId.getRules.getOffset(Ancient).getTotalSeconds * 1000000L
    (byTime, zone.getOffset(Ancient.toEpochMilli) * 1000L)
  }

  /** The error Spark's writer fails a task with for a value EXCEPTION mode refuses. */
  def refused(int96Column: Boolean): Throwable =
    DataSourceUtils.newRebaseExceptionInWrite(if (int96Column) "Parquet INT96" else "Parquet")
}
