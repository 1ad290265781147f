package io.spyglass.core.record;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes values that a {@link JsonScanner} has checked into the values {@link JsonRecordReader}
 * makes of them: strings, {@code Long} for integers that fit (others as {@code Double}), {@code
 * Double}, booleans, null, {@code LinkedHashMap} and {@code ArrayList}. A name given twice in an
 * object keeps its last value at the place of its first. Escapes of surrogates give those UTF-16
 * code units, paired or not. Names inside objects are interned through a small cache so a repeated
 * name is not decoded twice.
 *
 * <p>Only for bytes the scanner vouched for: malformed input gives undefined results. Not
 * thread-safe.
 */
final class JsonDecoder {
  private static final int CACHE = 512;
  private static final double[] POWERS = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22
  };

  private static final ThreadLocal<JsonDecoder> LOCAL = ThreadLocal.withInitial(JsonDecoder::new);

  /** A decoder of this thread's own, for a value decoded now and then (a whole record, a map). */
  static JsonDecoder local() {
    return LOCAL.get();
  }

  /** Names decoded before, by a hash of their bytes; made on first use. */
  private byte[][] cachedBytes;

  private String[] cachedNames;
  private char[] chars = new char[64];

  /** The end of the value decoded last by {@link #value}. */
  private int pos;

  /** A string without escapes: its UTF-8 bytes {@code b[from, to)}. */
  static String plainString(byte[] b, int from, int to) {
    return new String(b, from, to - from, StandardCharsets.UTF_8);
  }

  /** A string with escapes: the bytes between its quotes. */
  String escapedString(byte[] b, int from, int to) {
    if (chars.length < to - from) {
      chars = new char[Math.max(to - from, chars.length * 2)];
    }
    char[] c = chars;
    int n = 0;
    int p = from;
    while (p < to) {
      byte x = b[p];
      if (x == '\\') {
        byte e = b[p + 1];
        p += 2;
        switch (e) {
          case 'b' -> c[n++] = '\b';
          case 'f' -> c[n++] = '\f';
          case 'n' -> c[n++] = '\n';
          case 'r' -> c[n++] = '\r';
          case 't' -> c[n++] = '\t';
          case 'u' -> {
            c[n++] =
                (char)
                    ((Swar.hex(b[p]) << 12)
                        | (Swar.hex(b[p + 1]) << 8)
                        | (Swar.hex(b[p + 2]) << 4)
                        | Swar.hex(b[p + 3]));
            p += 4;
          }
          default -> c[n++] = (char) e; // " \ /
        }
      } else if (x >= 0) {
        c[n++] = (char) x;
        p++;
      } else {
        int run = p;
        while (p < to && b[p] < 0) {
          p++;
        }
        String s = new String(b, run, p - run, StandardCharsets.UTF_8);
        s.getChars(0, s.length(), c, n);
        n += s.length();
      }
    }
    return new String(c, 0, n);
  }

  /** A number the scanner found: LONG when integral and in range, else DOUBLE, as Jackson reads. */
  static Object number(byte[] b, int from, int to, boolean integral) {
    if (integral) {
      String text = new String(b, from, to - from, StandardCharsets.ISO_8859_1);
      try {
        return Long.parseLong(text);
      } catch (NumberFormatException tooLarge) {
        return Double.parseDouble(text);
      }
    }
    return parseDouble(b, from, to);
  }

  /**
   * A decimal number, correctly rounded: exactly computed when its digits fit in 2^53 and its power
   * of ten is small (Clinger's fast path), else by {@link Double#parseDouble}.
   */
  static double parseDouble(byte[] b, int from, int to) {
    int p = from;
    boolean negative = b[p] == '-';
    if (negative) {
      p++;
    }
    long mantissa = 0;
    int digits = 0;
    int exponent = 0;
    int d;
    while (p < to && (d = b[p] - '0') >= 0 && d <= 9) {
      if (mantissa != 0 || d != 0) {
        mantissa = mantissa * 10 + d;
        digits++;
      }
      p++;
    }
    if (p < to && b[p] == '.') {
      p++;
      while (p < to && (d = b[p] - '0') >= 0 && d <= 9) {
        if (mantissa != 0 || d != 0) {
          mantissa = mantissa * 10 + d;
          digits++;
        }
        exponent--;
        p++;
      }
    }
    if (p < to) {
      p++; // e or E
      boolean negativeExponent = b[p] == '-';
      if (negativeExponent || b[p] == '+') {
        p++;
      }
      int written = 0;
      while (p < to) {
        written = written * 10 + (b[p] - '0');
        if (written > 10_000) {
          return slow(b, from, to);
        }
        p++;
      }
      exponent += negativeExponent ? -written : written;
    }
    if (digits > 15) {
      return slow(b, from, to);
    }
    double v;
    if (mantissa == 0) {
      v = 0;
    } else if (exponent >= 0 && exponent < POWERS.length) {
      v = mantissa * POWERS[exponent];
    } else if (exponent < 0 && -exponent < POWERS.length) {
      v = mantissa / POWERS[-exponent];
    } else {
      return slow(b, from, to);
    }
    return negative ? -v : v;
  }

  private static double slow(byte[] b, int from, int to) {
    return Double.parseDouble(new String(b, from, to - from, StandardCharsets.ISO_8859_1));
  }

  /**
   * The value starting at {@code p} (its first byte), which the scanner checked; {@link #end()} is
   * then the index after it.
   */
  Object value(byte[] b, int p) {
    switch (b[p]) {
      case '"':
        {
          int q = stringEnd(b, p + 1);
          String s = hasEscape(b, p + 1, q) ? escapedString(b, p + 1, q) : plainString(b, p + 1, q);
          pos = q + 1;
          return s;
        }
      case '{':
        return object(b, p + 1);
      case '[':
        return array(b, p + 1);
      case 't':
        pos = p + 4;
        return Boolean.TRUE;
      case 'f':
        pos = p + 5;
        return Boolean.FALSE;
      case 'n':
        pos = p + 4;
        return null;
      default:
        {
          int q = p + 1;
          boolean integral = true;
          while (true) {
            byte c = b[q];
            if (c >= '0' && c <= '9') {
              q++;
            } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
              integral = false;
              q++;
            } else {
              break;
            }
          }
          pos = q;
          if (integral && q - p <= 18) {
            return parseLong(b, p, q);
          }
          return number(b, p, q, integral);
        }
    }
  }

  /** The index after the value decoded last. */
  int end() {
    return pos;
  }

  private Map<String, Object> object(byte[] b, int p) {
    Map<String, Object> m = new LinkedHashMap<>();
    p = ws(b, p);
    if (b[p] == '}') {
      pos = p + 1;
      return m;
    }
    while (true) {
      int q = stringEnd(b, p + 1);
      String name = name(b, p + 1, q);
      p = ws(b, q + 1);
      p = ws(b, p + 1); // past ':'
      m.put(name, value(b, p));
      p = ws(b, pos);
      if (b[p] == '}') {
        pos = p + 1;
        return m;
      }
      p = ws(b, p + 1); // past ','
    }
  }

  private List<Object> array(byte[] b, int p) {
    List<Object> l = new ArrayList<>();
    p = ws(b, p);
    if (b[p] == ']') {
      pos = p + 1;
      return l;
    }
    while (true) {
      l.add(value(b, p));
      p = ws(b, pos);
      if (b[p] == ']') {
        pos = p + 1;
        return l;
      }
      p = ws(b, p + 1);
    }
  }

  /** A name inside an object, interned through the cache. */
  private String name(byte[] b, int from, int to) {
    if (hasEscape(b, from, to)) {
      return escapedString(b, from, to).intern();
    }
    int h = 0;
    for (int i = from; i < to; i++) {
      h = 31 * h + b[i];
    }
    if (cachedBytes == null) {
      cachedBytes = new byte[CACHE][];
      cachedNames = new String[CACHE];
    }
    int slot = (h ^ (h >>> 9)) & (CACHE - 1);
    byte[] cached = cachedBytes[slot];
    if (cached != null && Arrays.equals(cached, 0, cached.length, b, from, to)) {
      return cachedNames[slot];
    }
    String name = plainString(b, from, to).intern();
    cachedBytes[slot] = Arrays.copyOfRange(b, from, to);
    cachedNames[slot] = name;
    return name;
  }

  /** Digits of a checked integer of at most 18 digits, with an optional sign. */
  static long parseLong(byte[] b, int from, int to) {
    boolean negative = b[from] == '-';
    long v = 0;
    for (int i = negative ? from + 1 : from; i < to; i++) {
      v = v * 10 + (b[i] - '0');
    }
    return negative ? -v : v;
  }

  /**
   * The value of an object's member starting at {@code p}, for {@link JsonObjectMap}: as {@link
   * #value} reads it, except that an object is kept as a {@link JsonObjectMap} of a copy of its
   * bytes.
   */
  static Object member(byte[] b, int p) {
    if (b[p] == '{') {
      return new JsonObjectMap(java.util.Arrays.copyOfRange(b, p, skip(b, p)));
    }
    return new JsonDecoder().value(b, p);
  }

  /** The index after the checked value starting at {@code p}. */
  static int skip(byte[] b, int p) {
    byte c = b[p];
    if (c == '"') {
      return stringEnd(b, p + 1) + 1;
    }
    if (c == '{' || c == '[') {
      int depth = 0;
      while (true) {
        c = b[p];
        if (c == '"') {
          p = stringEnd(b, p + 1) + 1;
          continue;
        }
        if (c == '{' || c == '[') {
          depth++;
        } else if ((c == '}' || c == ']') && --depth == 0) {
          return p + 1;
        }
        p++;
      }
    }
    // a number or a literal: up to the delimiter
    while (true) {
      c = b[p];
      if (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t') {
        return p;
      }
      p++;
    }
  }

  /** The closing quote of a checked string whose first byte is {@code p}. */
  static int stringEnd(byte[] b, int p) {
    while (true) {
      byte c = b[p];
      if (c == '"') {
        return p;
      }
      p += c == '\\' ? 2 : 1;
    }
  }

  static boolean hasEscape(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] == '\\') {
        return true;
      }
    }
    return false;
  }

  /**
   * Where the object of a record the scanner vouched for starts ('{'), given where its bytes start:
   * after a byte-order mark and whitespace.
   */
  static int objectStart(byte[] b, int p) {
    if (b[p] == (byte) 0xEF) {
      p += 3;
    }
    return ws(b, p);
  }

  static int ws(byte[] b, int p) {
    while (true) {
      byte c = b[p];
      if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
        p++;
      } else {
        return p;
      }
    }
  }
}
