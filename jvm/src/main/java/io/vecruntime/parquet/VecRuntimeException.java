package io.vecruntime.parquet;

/** A failure inside the native writer or its library (not a problem with the caller's input). */
public class VecRuntimeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public VecRuntimeException(String message) {
    super(message);
  }

  public VecRuntimeException(String message, Throwable cause) {
    super(message, cause);
  }
}
