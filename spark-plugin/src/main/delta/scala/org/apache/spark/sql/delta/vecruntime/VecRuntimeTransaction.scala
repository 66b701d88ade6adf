package org.apache.spark.sql.delta.vecruntime

import io.vecruntime.spark.{DelegatingVectorFormat, SparkParquetLayout, VecRuntimeConf, VectorWriteFilesExec, VectorWriteRule}
import io.vecruntime.spark.shims.{SparkShims, WriteFilesNode}
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.mapreduce.{TaskAttemptContext, TaskAttemptID}
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl

import org.apache.spark.sql.{Dataset, SparkSession}
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.delta.{DeltaOptions, IdentityColumn, OptimisticTransaction}
import org.apache.spark.sql.delta.actions.{AddFile, FileAction}
import org.apache.spark.sql.delta.constraints.{Constraint, Constraints, DeltaInvariantCheckerExec}
import org.apache.spark.sql.delta.files.{DelayedCommitProtocol, DeltaFileFormatWriter, TransactionalWrite}
import org.apache.spark.sql.delta.hooks.AutoCompact
import org.apache.spark.sql.delta.perf.DeltaOptimizedWriterExec
import org.apache.spark.sql.delta.schema.InnerInvariantViolationException
import org.apache.spark.sql.delta.sources.DeltaSQLConf
import org.apache.spark.sql.execution.{ProjectExec, SparkPlan, SQLExecution}
import org.apache.spark.sql.execution.datasources.{BasicWriteJobStatsTracker, FileFormatWriter, V1WritesUtils, WriteJobStatsTracker}
import org.apache.spark.sql.execution.datasources.vecruntime.{SparkWriteShim, TableTaskSetup}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.types.DataType
import org.apache.spark.util.SerializableConfiguration

/**
 * Delta's transaction over `txn`'s table, snapshot and catalog entry, whose `writeFiles` writes
 * the data files natively. It takes the Delta release's steps in Delta's order, through the
 * transaction's own members (normalisation, CDC partition, constraints, statistics and identity
 * trackers, the committer, optimized writes, the write options Delta keeps), where the
 * releases differ through the shim's [[DeltaRelease]], and hands
 * `DeltaFileFormatWriter` the table's file format wrapped in [[DelegatingVectorFormat]]: Delta's
 * `prepareWrite` sets the job up, its data writers feed the statistics trackers, and the files'
 * bytes come from the native writer, and their statistics from its column chunks where Delta's
 * would be the same ([[NativeDeltaStats]]). With the plugin off for the session, it
 * is Delta's own `writeFiles`.
 */
class VecRuntimeTransaction(txn: OptimisticTransaction)
  extends OptimisticTransaction(txn.deltaLog, txn.catalogTable, txn.snapshot) {

  override def writeFiles(
      inputData: Dataset[_],
      writeOptions: Option[DeltaOptions],
      isOptimize: Boolean,
      additionalConstraints: Seq[Constraint]): Seq[FileAction] = {
    val session = inputData.sparkSession
    if (!VecRuntimeConf.enabled(session.sessionState.conf)) {
      super.writeFiles(inputData, writeOptions, isOptimize, additionalConstraints)
    } else {
      writeNatively(session, inputData, writeOptions, isOptimize, additionalConstraints)
    }
  }

  private def writeNatively(
      session: SparkSession,
      inputData: Dataset[_],
      writeOptions: Option[DeltaOptions],
      isOptimize: Boolean,
      additionalConstraints: Seq[Constraint]): Seq[FileAction] = {
    hasWritten = true
    // CDC rows get the `__is_cdc` partition, which routes them to `_change_data`.
    val (data, partitionSchema) = performCDCPartition(inputData)
    val outputPath = deltaLog.dataPath
    val (queryExecution, output, generatedColumnConstraints, trackedByData) =
      normalizeData(deltaLog, writeOptions, data)
    val trackIdentity = trackHighWaterMarks.getOrElse(trackedByData)
    val partitioningColumns = getPartitioningColumns(partitionSchema, output)
    val committer = getCommitter(outputPath)
    val (statsDataSchema, _) = getStatsSchema(output, partitionSchema)
    val (deltaStats, _) =
      getOptionalStatsTrackerAndStatsCollection(output, outputPath, partitionSchema, data)
    val statsTracker = deltaStats.map { t =>
      if (VecRuntimeConf.deltaNativeStatistics(session.sessionState.conf)) NativeDeltaStats.tracker(t)
      else t
    }
    val constraints =
      Constraints.getAll(metadata, session) ++ generatedColumnConstraints ++ additionalConstraints
    DeltaRelease.validateCheckConstraints(session, constraints, deltaLog, metadata.schema)
    val identityTracker = IdentityColumn.createIdentityColumnStatsTracker(session,
      deltaLog.newDeltaHadoopConf(), outputPath, metadata.schema, statsDataSchema, trackIdentity)

    SQLExecution.withNewExecutionId(queryExecution, Option("deltaTransactionalWrite")) {
      val historyTracker = historyStatsTracker(session)
      try {
        val trackers = statsTracker.toSeq ++ historyTracker.toSeq ++ identityTracker.toSeq
        val options = writerOptions(session, writeOptions)
        val format = new DelegatingVectorFormat(deltaLog.fileFormat(protocol, metadata),
          manyFiles = partitioningColumns.nonEmpty, tableFormat = "Delta")
        val plan = writePlan(session, queryExecution.executedPlan, partitioningColumns,
          constraints, writeOptions, isOptimize)
        val written = nativeWritePlan(session, plan, format, partitioningColumns, output,
          trackers, constraints, options)
        VecRuntimeTransaction.lastNativeWrite = written match {
          case v: VectorWriteFilesExec =>
            Some(NativeWriteNode(v.openFiles, v.columnarInput, v.metrics))
          case _ => None
        }
        DeltaFileFormatWriter.write(
          sparkSession = session,
          plan = written,
          fileFormat = format,
          committer = committer,
          outputSpec = FileFormatWriter.OutputSpec(outputPath.toString, Map.empty, output),
          // scalastyle:off deltahadoopconfiguration
          hadoopConf =
            session.sessionState.newHadoopConfWithOptions(metadata.configuration ++ deltaLog.options),
          // scalastyle:on deltahadoopconfiguration
          partitionColumns = partitioningColumns,
          bucketSpec = None,
          statsTrackers = trackers,
          options = options)
      } catch {
        case InnerInvariantViolationException(violation) => throw violation
        case e: Throwable => throw DeltaRelease.writeError(e, metadata)
      }
      historyTracker.foreach { t =>
        IdentityColumn.logTableWrite(snapshot, trackIdentity,
          t.driverSideMetrics.get("numOutputRows").map(_.value))
      }
    }

    val files = addedFiles(committer, statsTracker)
    if (files.nonEmpty && !isOptimize) registerPostCommitHook(AutoCompact)
    identityTracker.foreach(t => updatedIdentityHighWaterMarks.appendAll(t.highWaterMarks.toSeq))
    files ++ committer.changeFiles
  }

  /**
   * The plan the files are written from: partition strings emptied to null where constraints
   * read them, the constraints checked, and (unless OPTIMIZE, whose files are balanced already)
   * an optimized write's shuffle where the write, session or table asks for one.
   */
  private def writePlan(
      session: SparkSession,
      executed: SparkPlan,
      partitioningColumns: Seq[Attribute],
      constraints: Seq[Constraint],
      writeOptions: Option[DeltaOptions],
      isOptimize: Boolean): SparkPlan = {
    val checked = DeltaRelease.invariantChecker(session,
      convertEmptyToNullIfNeeded(executed, partitioningColumns, constraints), constraints)
    // TransactionalWrite's own shouldOptimizeWrite is private; this is its body.
    val optimizeWrite = writeOptions.flatMap(_.optimizeWrite).getOrElse(
      TransactionalWrite.shouldOptimizeWrite(metadata, session.sessionState.conf))
    if (!isOptimize && optimizeWrite) {
      DeltaOptimizedWriterExec(checked, metadata.partitionColumns, deltaLog)
    } else {
      checked
    }
  }

  /**
   * `plan` under the native write node, which Delta's writer runs as a planned write
   * (`DeltaFileFormatWriter`'s `WriteFiles` branch: Delta's job, committer and statistics), the
   * task write Delta's ([[DeltaTaskSetup]]), where it saves the rows' way to the files, as for
   * plain writes ([[VectorWriteFilesExec]]):
   *  - a partitioned write hands its files whole input rows, split by partition natively, with a
   *    file open per partition in place of Delta's sort; not where a tracker cannot read whole
   *    rows (Delta's own or the identity columns'), nor with a Variant column (Delta's task
   *    writer takes its statistics from the footer);
   *  - an unpartitioned write of a columnar scan (OPTIMIZE's) without constraints is read batch
   *    by batch.
   * Else `plan` as it is.
   */
  private def nativeWritePlan(
      session: SparkSession,
      plan: SparkPlan,
      format: DelegatingVectorFormat,
      partitioningColumns: Seq[Attribute],
      output: Seq[Attribute],
      trackers: Seq[WriteJobStatsTracker],
      constraints: Seq[Constraint],
      options: Map[String, String]): SparkPlan = {
    val conf = session.sessionState.conf
    val variant = output.exists(a => SparkParquetLayout.holds(a.dataType)(SparkShims.isVariant))
    def node(input: SparkPlan, columnar: Boolean) =
      VectorWriteFilesExec(WriteFilesNode.over(input, format, partitioningColumns, options),
        format, partitioningColumns, None, options, Map.empty, columnarInput = columnar,
        openFiles = partitioningColumns.nonEmpty, maxOpenFiles = VecRuntimeConf.maxOpenFiles(conf),
        tableTask = Some(DeltaTaskSetup(partitioningColumns.map(a => a.name -> a.dataType).toMap)))
    if (variant) plan
    else if (partitioningColumns.isEmpty) {
      // Delta's check of no constraints passes its child's rows on as they are.
      val unchecked = plan match {
        case c: DeltaInvariantCheckerExec if constraints.isEmpty => c.child
        case other => other
      }
      VectorWriteRule.columnarChild(unchecked, conf).fold(plan)(node(_, columnar = true))
    } else if (SparkWriteShim.readWholeRows(trackers, output)) {
      // Delta's writer turns empty partition strings to null itself only on its own way (not
      // for a planned write node).
      val projectList = V1WritesUtils.convertEmptyToNull(plan.output, partitioningColumns)
      node(if (projectList.nonEmpty) ProjectExec(projectList, plan) else plan, columnar = false)
    } else {
      plan
    }
  }

  /** Spark's write statistics for the table history's operation metrics, where kept. */
  private def historyStatsTracker(session: SparkSession): Option[BasicWriteJobStatsTracker] =
    if (!session.conf.get(DeltaSQLConf.DELTA_HISTORY_METRICS_ENABLED)) None
    else {
      val tracker = new BasicWriteJobStatsTracker(
        new SerializableConfiguration(deltaLog.newDeltaHadoopConf()),
        BasicWriteJobStatsTracker.metrics)
      registerSQLMetrics(session, tracker.driverSideMetrics)
      Some(tracker)
    }

  /**
   * The write options Delta passes its file format ([[DeltaRelease.writerOptions]]): those of
   * the write's options Delta keeps (lower case, as the options' case-insensitive map iterates
   * them) and what the release adds from the table.
   */
  private def writerOptions(
      session: SparkSession,
      writeOptions: Option[DeltaOptions]): Map[String, String] = {
    val given = writeOptions.fold(Map.empty[String, String])(_.options.iterator.filter {
      case (k, _) => DeltaRelease.KeptWriteOptions.exists(_.equalsIgnoreCase(k))
    }.toMap)
    DeltaRelease.writerOptions(session, given, protocol, metadata)
  }

  /**
   * The files the committer added, with the statistics the tracker recorded for each; files
   * known to hold no row are dropped (an empty MERGE or DELETE source writes such files), and
   * each file is tagged with the IcebergCompat version where the release tags one.
   */
  private def addedFiles(
      committer: DelayedCommitProtocol,
      statsTracker: Option[WriteJobStatsTracker]): Seq[FileAction] = {
    val withStats = statsTracker.map(NativeDeltaStats.recorded) match {
      case Some(stats) => committer.addedStatuses.map(a => a.copy(stats = stats(a.toPath.getName)))
      case None => committer.addedStatuses
    }
    val nonEmpty: Seq[FileAction] = withStats.filter(_.numLogicalRecords.forall(_ > 0)).toSeq
    DeltaRelease.icebergCompatTag(metadata) match {
      case Some(version) => nonEmpty.map {
        case a: AddFile => a.copy(tags = Option(a.tags).getOrElse(Map.empty[String, String]) +
          (AddFile.Tags.ICEBERG_COMPAT_VERSION.name -> version))
        case other => other
      }
      case None => nonEmpty
    }
  }
}

object VecRuntimeTransaction {
  /**
   * The native write node of the last Delta write in this JVM, if it had one: what it does and
   * its metrics, not its plan (tests ask).
   */
  @volatile var lastNativeWrite: Option[NativeWriteNode] = None
}

/** A Delta write's native write node ([[VectorWriteFilesExec]]): its ways and its metrics. */
case class NativeWriteNode(
    openFiles: Boolean,
    columnarInput: Boolean,
    metrics: Map[String, SQLMetric])

/**
 * Delta's task write where it differs from Spark's (`DeltaFileFormatWriter.executeTask`): a
 * partitioned write's task attempt context carries the partition columns' types, which Delta's
 * committer reads to write timestamp partition values.
 */
case class DeltaTaskSetup(partitionTypes: Map[String, DataType]) extends TableTaskSetup {
  override def taskAttemptContext(conf: Configuration, id: TaskAttemptID): TaskAttemptContext =
    if (partitionTypes.isEmpty) new TaskAttemptContextImpl(conf, id)
    else new DeltaFileFormatWriter.PartitionedTaskAttemptContextImpl(conf, id, partitionTypes)
}
