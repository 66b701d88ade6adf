package io.vecruntime.parquet;

/**
 * Bloom filter settings of one column, as parquet-java's {@code parquet.bloom.filter.*} keys:
 * expected distinct values (null: sized from the data, up to the maximum bytes), false positive
 * probability, adaptive sizing and its candidate count.
 */
public final class BloomFilterSettings {
  final Long expectedNdv;
  final double fpp;
  final boolean adaptive;
  final int candidates;

  public BloomFilterSettings(Long expectedNdv, double fpp, boolean adaptive, int candidates) {
    if (expectedNdv != null && expectedNdv < 0) {
      throw new IllegalArgumentException("expected NDV " + expectedNdv + " is negative");
    }
    if (!(fpp > 0 && fpp < 1)) {
      throw new IllegalArgumentException("bloom filter fpp must be in (0, 1), got " + fpp);
    }
    if (candidates < 1) {
      throw new IllegalArgumentException("bloom filter candidates must be at least 1, got " + candidates);
    }
    this.expectedNdv = expectedNdv;
    this.fpp = fpp;
    this.adaptive = adaptive;
    this.candidates = candidates;
  }

  /** parquet-java's defaults: no NDV, fpp 0.01, not adaptive, 5 candidates. */
  public static BloomFilterSettings defaults() {
    return new BloomFilterSettings(null, 0.01, false, 5);
  }

  public static BloomFilterSettings withNdv(long ndv) {
    return new BloomFilterSettings(ndv, 0.01, false, 5);
  }
}
