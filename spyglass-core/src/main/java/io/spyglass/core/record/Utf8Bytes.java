package io.spyglass.core.record;

/** Hashing UTF-8 bytes where they lie, for tables keyed by raw JSON values. */
public final class Utf8Bytes {
  private Utf8Bytes() {}

  /**
   * A hash of {@code b[from, to)}; equal bytes hash equally wherever they lie. It is {@link
   * String#hashCode} over the bytes taken as unsigned numbers: the bytes of a string of ASCII
   * characters hash as the string does, so a table of such strings can be looked up by a record's
   * raw bytes and by a decoded string alike (whose hash the string computes once, and keeps). Four
   * bytes a step, as the same polynomial.
   */
  public static int hash(byte[] b, int from, int to) {
    int h = 0;
    int p = from;
    for (; p + 4 <= to; p += 4) {
      h =
          923_521 * h // 31^4
              + 29_791 * (b[p] & 0xFF)
              + 961 * (b[p + 1] & 0xFF)
              + 31 * (b[p + 2] & 0xFF)
              + (b[p + 3] & 0xFF);
    }
    for (; p < to; p++) {
      h = 31 * h + (b[p] & 0xFF);
    }
    return h;
  }
}
