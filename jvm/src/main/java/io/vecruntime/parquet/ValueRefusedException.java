package io.vecruntime.parquet;

/**
 * A valid value the writer was configured to refuse: a date or timestamp older than the rebase
 * mode EXCEPTION allows ({@link ColumnarParquetWriter#configureRebase}). The writer is failed.
 */
public class ValueRefusedException extends VecRuntimeException {
  private static final long serialVersionUID = 1L;

  public ValueRefusedException(String message) {
    super(message);
  }

  /** The column path the native message names ({@code column 'a.b': ...}), or null. */
  public String column() {
    String m = getMessage();
    if (m == null || !m.startsWith("column '")) {
      return null;
    }
    int end = m.indexOf("': ");
    return end < 0 ? null : m.substring("column '".length(), end);
  }
}
