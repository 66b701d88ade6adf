package io.vecruntime.parquet;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Zeroed off-heap memory allocated by the native library, freed on {@link #close()}. Callers read
 * and write it through checked little-endian accessors that refuse a closed buffer and any index
 * outside it; no view of the memory is handed out, so no reference can outlive it (a write
 * through a stale view of freed memory would crash the JVM). The native writer only accepts
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

  /**
   * The buffer's bytes, little-endian, position 0, for this package's own short-lived use: the
   * view must not be kept past a call, since {@link #close()} (or a column growing its values)
   * frees the memory under it.
   */
  ByteBuffer buffer() {
    checkOpen();
    if (view == null) {
      view = size == 0 ? ByteBuffer.allocate(0) : NativeBridge.view(address, size);
      view.order(ByteOrder.LITTLE_ENDIAN);
    }
    return view;
  }

  public byte getByte(long index) {
    return buffer().get(index(index, 1));
  }

  public void putByte(long index, byte value) {
    buffer().put(index(index, 1), value);
  }

  public int getInt(long index) {
    return buffer().getInt(index(index, 4));
  }

  public void putInt(long index, int value) {
    buffer().putInt(index(index, 4), value);
  }

  public long getLong(long index) {
    return buffer().getLong(index(index, 8));
  }

  public void putLong(long index, long value) {
    buffer().putLong(index(index, 8), value);
  }

  /** Copies {@code src[off..off + len)} to bytes [index, index + len). */
  public void put(long index, byte[] src, int off, int len) {
    buffer().put(index(index, len), src, off, len);
  }

  /** Copies bytes [index, index + len) to {@code dst[off..off + len)}. */
  public void get(long index, byte[] dst, int off, int len) {
    buffer().get(index(index, len), dst, off, len);
  }

  /** {@code index} as an int after checking that [index, index + width) lies in the buffer. */
  private int index(long index, int width) {
    checkOpen();
    if (index < 0 || width < 0 || index + width > size) {
      throw new IndexOutOfBoundsException(
          "bytes [" + index + ", " + (index + width) + ") outside a native buffer of " + size);
    }
    return (int) index;
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
