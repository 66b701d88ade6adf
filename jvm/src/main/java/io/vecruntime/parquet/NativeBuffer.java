package io.vecruntime.parquet;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Zeroed off-heap memory allocated by the native library, readable and writable through a
 * little-endian {@link ByteBuffer}, freed on {@link #close()}. The native writer only accepts
 * ranges inside live buffers of this kind.
 */
public final class NativeBuffer implements AutoCloseable {
  private final long address;
  private final long size;
  private ByteBuffer view;
  private boolean closed;

  private NativeBuffer(long address, long size) {
    this.address = address;
    this.size = size;
  }

  /** Allocates {@code size} zeroed bytes (at most 2 GiB - 1, what one ByteBuffer can view). */
  public static NativeBuffer allocate(long size) {
    if (size < 0 || size > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("buffer size " + size + " is out of range 0.." + Integer.MAX_VALUE);
    }
    return new NativeBuffer(NativeBridge.allocate(size), size);
  }

  public long address() {
    checkOpen();
    return address;
  }

  public long size() {
    return size;
  }

  /** The buffer's bytes, little-endian, position 0. Invalid after {@link #close()}. */
  public ByteBuffer buffer() {
    checkOpen();
    if (view == null) {
      view = size == 0 ? ByteBuffer.allocate(0) : NativeBridge.view(address, size);
      view.order(ByteOrder.LITTLE_ENDIAN);
    }
    return view;
  }

  public boolean isClosed() {
    return closed;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("native buffer is closed");
    }
  }

  /** Bytes held by all live native buffers of this process. */
  public static long allocatedBytes() {
    return NativeBridge.allocatedBytes();
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      view = null;
      NativeBridge.free(address);
    }
  }
}
