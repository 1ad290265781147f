package io.spyglass.sources;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * A growable byte array that JSON is written into directly: pre-encoded names and values are
 * copied, numbers are formatted without going through {@code String}. Not thread-safe.
 */
final class JsonBuffer {
  private static final byte[] MIN_LONG =
      Long.toString(Long.MIN_VALUE).getBytes(StandardCharsets.US_ASCII);
  private static final byte[] NULL = {'n', 'u', 'l', 'l'};
  private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
  private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
  private static final long[] POWERS_OF_TEN = new long[19];
  private static final byte[] DIGIT_PAIRS = new byte[200];

  static {
    long p = 1;
    for (int i = 0; i < POWERS_OF_TEN.length; i++) {
      POWERS_OF_TEN[i] = p;
      p *= 10;
    }
    for (int i = 0; i < 100; i++) {
      DIGIT_PAIRS[2 * i] = (byte) ('0' + i / 10);
      DIGIT_PAIRS[2 * i + 1] = (byte) ('0' + i % 10);
    }
  }

  byte[] buf;
  int pos;

  JsonBuffer(int capacity) {
    buf = new byte[capacity];
  }

  /** {@code "name":} as UTF-8 bytes; the name must need no escaping. */
  static byte[] key(String name) {
    return ("\"" + name + "\":").getBytes(StandardCharsets.UTF_8);
  }

  /** {@code ,"name":} as UTF-8 bytes. */
  static byte[] nextKey(String name) {
    return (",\"" + name + "\":").getBytes(StandardCharsets.UTF_8);
  }

  /** A string value with its quotes, escaped, as UTF-8 bytes. */
  static byte[] quoted(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.append('"').toString().getBytes(StandardCharsets.UTF_8);
  }

  void reset() {
    pos = 0;
  }

  void ensure(int n) {
    if (pos + n > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + n));
    }
  }

  void raw(byte[] bytes) {
    ensure(bytes.length);
    System.arraycopy(bytes, 0, buf, pos, bytes.length);
    pos += bytes.length;
  }

  void raw(byte[] bytes, int offset, int length) {
    ensure(length);
    System.arraycopy(bytes, offset, buf, pos, length);
    pos += length;
  }

  void raw(char c) {
    ensure(1);
    buf[pos++] = (byte) c;
  }

  void nullValue() {
    raw(NULL);
  }

  void bool(boolean v) {
    raw(v ? TRUE : FALSE);
  }

  void number(long v) {
    if (v < 0) {
      if (v == Long.MIN_VALUE) {
        raw(MIN_LONG);
        return;
      }
      raw('-');
      v = -v;
    }
    int len = digits(v);
    ensure(len);
    byte[] b = buf;
    int p = pos + len;
    // Two digits per division; int arithmetic once the rest fits.
    while (v > Integer.MAX_VALUE) {
      long q = v / 100;
      int r = (int) (v - q * 100) << 1;
      b[--p] = DIGIT_PAIRS[r + 1];
      b[--p] = DIGIT_PAIRS[r];
      v = q;
    }
    int i = (int) v;
    while (i >= 100) {
      int q = i / 100;
      int r = (i - q * 100) << 1;
      b[--p] = DIGIT_PAIRS[r + 1];
      b[--p] = DIGIT_PAIRS[r];
      i = q;
    }
    if (i >= 10) {
      b[--p] = DIGIT_PAIRS[(i << 1) + 1];
      b[--p] = DIGIT_PAIRS[i << 1];
    } else {
      b[--p] = (byte) ('0' + i);
    }
    pos += len;
  }

  /** Writes {@code unscaled / 10^decimals} with exactly {@code decimals} digits after the point. */
  void decimal(long unscaled, int decimals) {
    if (unscaled < 0) {
      raw('-');
      unscaled = -unscaled;
    }
    long scale = POWERS_OF_TEN[decimals];
    number(unscaled / scale);
    raw('.');
    long frac = unscaled % scale;
    ensure(decimals);
    for (int i = decimals - 1; i >= 0; i--) {
      buf[pos + i] = (byte) ('0' + (int) (frac % 10));
      frac /= 10;
    }
    pos += decimals;
  }

  /** Writes {@code v} as exactly {@code width} digits, zero-padded; {@code v} must fit. */
  void padded(long v, int width) {
    ensure(width);
    for (int i = width - 1; i >= 0; i--) {
      buf[pos + i] = (byte) ('0' + (int) (v % 10));
      v /= 10;
    }
    pos += width;
  }

  /** Any JSON-like Java value: null, Boolean, Number, CharSequence, Map, Iterable, array. */
  void value(Object v) {
    if (v == null) {
      nullValue();
    } else if (v instanceof Boolean b) {
      bool(b);
    } else if (v instanceof Long
        || v instanceof Integer
        || v instanceof Short
        || v instanceof Byte) {
      number(((Number) v).longValue());
    } else if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      if (Double.isFinite(d)) {
        raw(Double.toString(d).getBytes(StandardCharsets.US_ASCII));
      } else {
        nullValue();
      }
    } else if (v instanceof Number n) {
      raw(n.toString().getBytes(StandardCharsets.US_ASCII));
    } else if (v instanceof Map<?, ?> m) {
      raw('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!first) {
          raw(',');
        }
        first = false;
        raw(quoted(String.valueOf(e.getKey())));
        raw(':');
        value(e.getValue());
      }
      raw('}');
    } else if (v instanceof Iterable<?> it) {
      raw('[');
      boolean first = true;
      for (Object o : it) {
        if (!first) {
          raw(',');
        }
        first = false;
        value(o);
      }
      raw(']');
    } else if (v instanceof Object[] array) {
      value(Arrays.asList(array));
    } else {
      raw(quoted(v.toString()));
    }
  }

  /** Decimal digits of {@code v >= 0}. */
  static int digits(long v) {
    if (v == 0) {
      return 1;
    }
    int t = ((64 - Long.numberOfLeadingZeros(v)) * 1233) >>> 12;
    return v >= POWERS_OF_TEN[t] ? t + 1 : t;
  }
}
