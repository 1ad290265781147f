package io.spyglass.core.record;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * Finds a name given twice in one object of a record that {@link JsonScanner} vouched for: the
 * record's own object or any object nested in it. The reader keeps such a name's last value;
 * ingestion refuses the record instead (which value counts would be a guess). Walks the checked
 * bytes once more, looking at names only: strings are stepped over eight bytes at a time, nothing
 * is built but the names of an object that has one written with escapes, or more than {@value
 * #PAIRWISE} names.
 *
 * <p>Names compare as the strings they spell, escapes decoded ({@code "a"} and {@code "\u0061"} are
 * one name), as a strict JSON parser compares them. Not thread-safe.
 */
final class DuplicateNames {
  /** The names of an object are compared pairwise (by hash first) up to this many; a set beyond. */
  static final int PAIRWISE = 64;

  private final JsonDecoder decoder = new JsonDecoder();

  // the names of the objects being walked, innermost last: where each is, its hash, its escapes
  private int[] starts = new int[32];
  private int[] ends = new int[32];
  private int[] hashes = new int[32];
  private boolean[] escaped = new boolean[32];
  private int top;

  /** Set by {@link #name}: whether the name just walked has escapes, and its hash. */
  private boolean nameEscaped;

  private int nameHash;

  /** The name found twice, once found. */
  private String found;

  /**
   * A name given twice in one object of the record whose object starts at {@code b[p]} ('{'), as
   * the string it spells; null when there is none.
   */
  String find(byte[] b, int p) {
    top = 0;
    found = null;
    object(b, p + 1);
    return found;
  }

  // Each walk returns the index after what it walked, or -1 once a name is found twice.

  private int value(byte[] b, int p) {
    byte c = b[p];
    if (c == '{') {
      return object(b, p + 1);
    }
    if (c == '[') {
      return array(b, p + 1);
    }
    if (c == '"') {
      return stringEnd(b, p + 1) + 1;
    }
    return JsonDecoder.skip(b, p); // a number or a literal
  }

  /** {@code p} is after the '['. */
  private int array(byte[] b, int p) {
    p = JsonDecoder.ws(b, p);
    if (b[p] == ']') {
      return p + 1;
    }
    while (true) {
      p = value(b, p);
      if (p < 0) {
        return p;
      }
      p = JsonDecoder.ws(b, p);
      if (b[p] == ']') {
        return p + 1;
      }
      p = JsonDecoder.ws(b, p + 1); // after the ','
    }
  }

  /** {@code p} is after the '{'. */
  private int object(byte[] b, int p) {
    int frame = top;
    Set<String> many = null;
    p = JsonDecoder.ws(b, p);
    if (b[p] == '}') {
      return p + 1;
    }
    while (true) {
      int start = p + 1;
      int end = name(b, start);
      if (many == null) {
        if (seen(b, frame, start, end)) {
          return twice(b, start, end, nameEscaped);
        }
        push(start, end);
        if (top - frame > PAIRWISE) {
          many = new HashSet<>();
          for (int i = frame; i < top; i++) {
            many.add(string(b, starts[i], ends[i], escaped[i]));
          }
        }
      } else if (!many.add(string(b, start, end, nameEscaped))) {
        return twice(b, start, end, nameEscaped);
      }
      p = JsonDecoder.ws(b, end + 1); // at the ':'
      p = value(b, JsonDecoder.ws(b, p + 1));
      if (p < 0) {
        return p;
      }
      p = JsonDecoder.ws(b, p);
      if (b[p] == '}') {
        top = frame;
        return p + 1;
      }
      p = JsonDecoder.ws(b, p + 1); // at the next name's '"'
    }
  }

  /**
   * Whether the name {@code b[start, end)} is one of the names of the object from {@code frame}.
   */
  private boolean seen(byte[] b, int frame, int start, int end) {
    for (int i = frame; i < top; i++) {
      if (escaped[i] || nameEscaped) {
        if (string(b, starts[i], ends[i], escaped[i]).equals(string(b, start, end, nameEscaped))) {
          return true;
        }
      } else if (hashes[i] == nameHash && Arrays.equals(b, starts[i], ends[i], b, start, end)) {
        return true;
      }
    }
    return false;
  }

  private int twice(byte[] b, int start, int end, boolean esc) {
    found = string(b, start, end, esc);
    return -1;
  }

  private void push(int start, int end) {
    if (top == starts.length) {
      int n = top * 2;
      starts = Arrays.copyOf(starts, n);
      ends = Arrays.copyOf(ends, n);
      hashes = Arrays.copyOf(hashes, n);
      escaped = Arrays.copyOf(escaped, n);
    }
    starts[top] = start;
    ends[top] = end;
    hashes[top] = nameHash;
    escaped[top] = nameEscaped;
    top++;
  }

  private String string(byte[] b, int start, int end, boolean esc) {
    return esc ? decoder.escapedString(b, start, end) : JsonDecoder.plainString(b, start, end);
  }

  /**
   * The closing quote of the name whose first byte is {@code p}; sets {@link #nameHash} (of its
   * bytes) and {@link #nameEscaped}.
   */
  private int name(byte[] b, int p) {
    int h = 0;
    boolean esc = false;
    while (true) {
      byte c = b[p];
      if (c == '"') {
        nameHash = h;
        nameEscaped = esc;
        return p;
      }
      if (c == '\\') {
        esc = true;
        h = 31 * h + b[p + 1];
        p += 2;
      } else {
        h = 31 * h + c;
        p++;
      }
    }
  }

  /** The closing quote of the checked string whose first byte is {@code p}. */
  private static int stringEnd(byte[] b, int p) {
    while (true) {
      p = Swar.toLook(b, p, b.length);
      byte c = b[p];
      if (c == '"') {
        return p;
      }
      p += c == '\\' ? 2 : 1;
    }
  }
}
