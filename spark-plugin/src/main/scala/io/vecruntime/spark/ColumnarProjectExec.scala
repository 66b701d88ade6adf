package io.vecruntime.spark

import org.apache.spark.{SparkException, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, AttributeReference, Expression, MutableProjection, NamedExpression, SortOrder, SubqueryExpression}
import org.apache.spark.sql.catalyst.plans.physical.{Partitioning, UnknownPartitioning}
import org.apache.spark.sql.execution.{ExecSubqueryExpression, SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.vectorized.{MutableColumnarRow, OnHeapColumnVector, WritableColumnVector}
import org.apache.spark.sql.types._
import org.apache.spark.sql.vectorized.{ColumnarBatch, ColumnVector}

/**
 * Spark's `ProjectExec` over a columnar child, batches kept: a column the projection passes on
 * is the child's vector; a computed one is Spark's own expression, evaluated row by row into a
 * vector of its own (Spark's `MutableProjection` into a `MutableColumnarRow`, as its vectorized
 * hash map fills vectors). So a write of a scan with computed columns (`withColumn`, a CTAS's
 * expressions) reads the scan's batches instead of every column turned into rows.
 */
case class ColumnarProjectExec(projectList: Seq[NamedExpression], child: SparkPlan)
  extends UnaryExecNode {
  override def output: Seq[Attribute] = projectList.map(_.toAttribute)

  // Put in place after the plan's requirements are met: it claims nothing (the child's would
  // name columns the projection may drop).
  override def outputPartitioning: Partitioning =
    UnknownPartitioning(child.outputPartitioning.numPartitions)

  override def outputOrdering: Seq[SortOrder] = Nil

  override def supportsColumnar: Boolean = true

  override protected def doExecute(): RDD[InternalRow] =
    throw SparkException.internalError(s"$nodeName reads batches only")

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    val inputs = child.output
    // Per output column: the child's ordinal it passes on, or -1 (computed).
    val passed = projectList.map(e => ColumnarProjectExec.passedOn(e, inputs)).toArray
    val computed = projectList.zip(passed).collect { case (e, -1) => e: Expression }
    child.executeColumnar().mapPartitionsWithIndex { (index, batches) =>
      val vectors: Array[WritableColumnVector] =
        computed.map(e => new OnHeapColumnVector(ColumnarProjectExec.Capacity, e.dataType)).toArray
      // Closed once the partition's batches are read (a coalesced task reads many partitions;
      // the writer is done with a batch before it asks for the next), or when the task fails.
      def close(): Unit = vectors.foreach(_.close())
      Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => close()))
      val target = new MutableColumnarRow(vectors)
      val project: MutableProjection = MutableProjection.create(computed, inputs)
      project.initialize(index)
      project.target(target)
      new Iterator[ColumnarBatch] {
        private var done = false

        override def hasNext: Boolean = !done && {
          done = !batches.hasNext
          if (done) close()
          !done
        }

        override def next(): ColumnarBatch = {
          val batch = batches.next()
          val n = batch.numRows
          if (vectors.nonEmpty) {
            vectors.foreach { v => v.reset(); v.reserve(n) }
            var r = 0
            while (r < n) {
              target.rowId = r
              project(batch.getRow(r))
              r += 1
            }
          }
          var k = 0
          val columns = passed.map { i =>
            if (i >= 0) batch.column(i) else { k += 1; vectors(k - 1): ColumnVector }
          }
          new ColumnarBatch(columns, n)
        }
      }
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): ColumnarProjectExec =
    copy(child = newChild)
}

object ColumnarProjectExec {
  private val Capacity = 4096

  /** The child's ordinal of a column the projection passes on as it is, or -1. */
  private def passedOn(e: NamedExpression, inputs: Seq[Attribute]): Int = e match {
    case a: AttributeReference => inputs.indexWhere(_.exprId == a.exprId)
    case Alias(a: AttributeReference, _) => inputs.indexWhere(_.exprId == a.exprId)
    case _ => -1
  }

  /**
   * Whether the projection can run over batches: each computed column of a fixed-width type a
   * `MutableColumnarRow` holds and `ColumnarCopy` copies (decimals up to 18 digits: a wider
   * decimal's null comes as `setDecimal(null)`, which `MutableColumnarRow` does not take), and
   * no subquery.
   */
  def supports(projectList: Seq[NamedExpression], inputs: Seq[Attribute]): Boolean =
    projectList.forall { e =>
      val fixed = e.dataType match {
        case BooleanType | ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType |
            DateType | TimestampType | TimestampNTZType => true
        case d: DecimalType => d.precision <= Decimal.MAX_LONG_DIGITS
        case _ => false
      }
      (passedOn(e, inputs) >= 0 || fixed) && !e.exists {
        case _: SubqueryExpression | _: ExecSubqueryExpression => true
        case _ => false
      }
    }
}
