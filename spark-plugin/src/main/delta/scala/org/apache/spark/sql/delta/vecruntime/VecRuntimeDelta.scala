package org.apache.spark.sql.delta.vecruntime

import io.vecruntime.spark.{TableFormatHook, VecRuntimeConf}

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.delta.{OptimisticTransaction, TransactionExecutionObserver}

/**
 * Delta Lake's writes through the native writer, for the Delta release of the shim
 * ([[DeltaRelease]]). Every Delta command that writes data files
 * (WriteIntoDelta behind save, saveAsTable, insertInto, INSERT, CTAS and RTAS; MERGE, UPDATE,
 * DELETE; OPTIMIZE; the streaming sink) starts its transaction through the thread's
 * `TransactionExecutionObserver`, and writes through the transaction's `writeFiles`. The
 * plugin's rule puts [[VecRuntimeObserver]] on the thread that runs a query, before it runs;
 * it hands each command a [[VecRuntimeTransaction]], whose `writeFiles` is Delta's with the
 * files written natively. Delta keeps its log, statistics, column mapping, constraints and
 * commit.
 */
object VecRuntimeDelta extends TableFormatHook {
  override lazy val unsupported: Option[String] = {
    val version = io.delta.VERSION
    if (DeltaRelease.Releases(version)) None
    else Some(s"Delta Lake $version is on the class path; this jar writes Delta " +
      s"${DeltaRelease.Releases.mkString(", ")} natively")
  }

  override def observeThisThread(): Unit = {
    val current = TransactionExecutionObserver.getObserver
    if (!current.isInstanceOf[VecRuntimeObserver]) {
      TransactionExecutionObserver.setObserver(new VecRuntimeObserver(current))
    }
  }
}

/**
 * The thread's transaction observer, `next` underneath: each transaction Delta starts is handed
 * on as a [[VecRuntimeTransaction]] over the same table, snapshot and catalog entry; every
 * other call goes to `next` (and the release's own, [[ReleaseObserver]]).
 */
class VecRuntimeObserver(val next: TransactionExecutionObserver)
  extends TransactionExecutionObserver with ReleaseObserver {

  override def startingTransaction(f: => OptimisticTransaction): OptimisticTransaction =
    next.startingTransaction(f) match {
      // Delta's own transaction only (another observer's subclass keeps its own), and only
      // where the session writes natively.
      case t if t.getClass == classOf[OptimisticTransaction] && pluginOn => new VecRuntimeTransaction(t)
      case t => t
    }

  private def pluginOn: Boolean =
    SparkSession.getActiveSession.exists(s => VecRuntimeConf.enabled(s.sessionState.conf))

  override def preparingCommit[T](f: => T): T = next.preparingCommit(f)

  override def beginDoCommit(): Unit = next.beginDoCommit()

  override def beginBackfill(): Unit = next.beginBackfill()

  override def beginPostCommit(): Unit = next.beginPostCommit()

  override def transactionCommitted(): Unit = next.transactionCommitted()

  override def transactionAborted(): Unit = next.transactionAborted()

  override def createChild(): TransactionExecutionObserver = next.createChild()

  override def setNextObserver(o: TransactionExecutionObserver): Unit = next.setNextObserver(o)

  override def advanceToNextThreadObserver(): Unit = {
    next.advanceToNextThreadObserver()
    VecRuntimeDelta.observeThisThread()
  }
}
