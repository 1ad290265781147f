package io.spyglass.core.record;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Finds whether a JSON object's bytes, with some numbers written anew, are exactly what decoding
 * them ({@link WholeRecord}) and writing the result back as compact JSON would give: then a record
 * can be written by copying its bytes. Numbers are written anew as decoding and writing write them
 * ({@code 1.50} as {@code 1.5}, {@code 1e3} as {@code 1000.0}, {@code -0} as {@code 0}); anything
 * else must already be so: no whitespace between tokens, no escape in a string, no name twice in an
 * object (decoding keeps one), no number too large for a double. Anything else, or anything
 * unexpected, is "not canonical", and the caller decodes.
 *
 * <p>Not thread-safe.
 */
final class CanonicalJson {

  /** Numbers written anew: start, end of each; their new text in {@link #newNumbers}. */
  private int[] edits = new int[2 * 16];

  private String[] newNumbers = new String[16];
  private int editCount;

  /** Deeper nesting is left to the decoder. */
  private static final int MAX_DEPTH = 64;

  private static final int MAX_INTEGER_DIGITS = 18;

  private static final int FAIL = -1;

  private byte[] b;
  private int end;

  /** Top-level fields: name start, name end (the closing quote), value end; 3 ints each. */
  private int[] fields = new int[3 * 64];

  private int fieldCount;

  /** Open-addressing table of name indexes for the duplicate check of one object. */
  private int[] seen = new int[64];

  /** Name positions of the object being checked (start, end; 2 ints each), per depth in turn. */
  private int[] names = new int[2 * 64];

  /**
   * Checks {@code bytes[0, length)}, one JSON object.
   *
   * @return true when the bytes are canonical; then {@link #fields()} and the accessors describe
   *     its top-level fields
   */
  boolean check(byte[] bytes, int length) {
    b = bytes;
    end = length;
    fieldCount = 0;
    namesMark = 0;
    editCount = 0;
    if (length < 2 || bytes[0] != '{') {
      return false;
    }
    return object(0, 0, true) == length;
  }

  /** Top-level fields of the object checked last. */
  int fields() {
    return fieldCount;
  }

  /** Where the name of top-level field {@code i} starts: just after its opening quote. */
  int nameStart(int i) {
    return fields[3 * i];
  }

  /** Where the name of top-level field {@code i} ends: its closing quote. */
  int nameEnd(int i) {
    return fields[3 * i + 1];
  }

  /** Where the value of top-level field {@code i} starts: after the name's quote and colon. */
  int valueStart(int i) {
    return fields[3 * i + 1] + 2;
  }

  /** Where the value of top-level field {@code i} ends, exclusive. */
  int valueEnd(int i) {
    return fields[3 * i + 2];
  }

  /**
   * The canonical text of {@code bytes[from, to)} of the object checked last: its bytes with the
   * numbers in it written anew. {@code from} and {@code to} must not be inside a number.
   */
  String text(int from, int to) {
    StringBuilder out = null;
    int p = from;
    for (int e = 0; e < editCount; e++) {
      int start = edits[2 * e];
      if (start < from) {
        continue;
      }
      if (start >= to) {
        break;
      }
      if (out == null) {
        out = new StringBuilder(to - from + 16);
      }
      out.append(new String(b, p, start - p, StandardCharsets.UTF_8)).append(newNumbers[e]);
      p = edits[2 * e + 1];
    }
    String rest = new String(b, p, to - p, StandardCharsets.UTF_8);
    return out == null ? rest : out.append(rest).toString();
  }

  /** Whether top-level field {@code i} is named {@code name}, given as UTF-8. */
  boolean named(int i, byte[] name) {
    int s = nameStart(i);
    return Arrays.equals(b, s, nameEnd(i), name, 0, name.length);
  }

  /** {@code p} is at the '{'; returns the index after the '}', or FAIL. */
  private int object(int p, int depth, boolean top) {
    if (depth > MAX_DEPTH) {
      return FAIL;
    }
    p++;
    if (p < end && b[p] == '}') {
      return p + 1;
    }
    int base = namesMark;
    while (true) {
      if (p >= end || b[p] != '"') {
        return FAIL;
      }
      int nameStart = p + 1;
      int nameEnd = string(nameStart);
      if (nameEnd < 0 || nameEnd + 1 >= end || b[nameEnd + 1] != ':') {
        return FAIL;
      }
      pushName(nameStart, nameEnd);
      int after = value(nameEnd + 2, depth);
      if (after < 0 || after >= end) {
        return FAIL;
      }
      if (top) {
        addField(nameStart, nameEnd, after);
      }
      byte c = b[after];
      if (c == '}') {
        boolean unique = unique(base);
        namesMark = base;
        return unique ? after + 1 : FAIL;
      }
      if (c != ',') {
        return FAIL;
      }
      p = after + 1;
    }
  }

  /** Names of the objects being checked, innermost last: {@link #names} up to here. */
  private int namesMark;

  private void pushName(int start, int nameEnd) {
    if (namesMark + 2 > names.length) {
      names = Arrays.copyOf(names, names.length * 2);
    }
    names[namesMark++] = start;
    names[namesMark++] = nameEnd;
  }

  private void addField(int nameStart, int nameEnd, int valueEnd) {
    if (3 * fieldCount + 3 > fields.length) {
      fields = Arrays.copyOf(fields, fields.length * 2);
    }
    int f = 3 * fieldCount++;
    fields[f] = nameStart;
    fields[f + 1] = nameEnd;
    fields[f + 2] = valueEnd;
  }

  /** Whether the names pushed since {@code base} are all different. */
  private boolean unique(int base) {
    int n = (namesMark - base) / 2;
    if (n < 2) {
      return true;
    }
    if (n <= 8) {
      for (int i = base; i < namesMark; i += 2) {
        for (int j = i + 2; j < namesMark; j += 2) {
          if (sameName(i, j)) {
            return false;
          }
        }
      }
      return true;
    }
    int size = Integer.highestOneBit(n * 2) << 1;
    if (seen.length < size) {
      seen = new int[size];
    }
    Arrays.fill(seen, 0, size, -1);
    int mask = size - 1;
    for (int i = base; i < namesMark; i += 2) {
      int h = hash(names[i], names[i + 1]) & mask;
      while (seen[h] >= 0) {
        if (sameName(seen[h], i)) {
          return false;
        }
        h = (h + 1) & mask;
      }
      seen[h] = i;
    }
    return true;
  }

  private boolean sameName(int i, int j) {
    return Arrays.equals(b, names[i], names[i + 1], b, names[j], names[j + 1]);
  }

  private int hash(int from, int to) {
    int h = to - from;
    for (int p = from; p < to; p++) {
      h = 31 * h + b[p];
    }
    return h ^ (h >>> 16);
  }

  /** The value at {@code p}; returns the index after it, or FAIL. */
  private int value(int p, int depth) {
    if (p >= end) {
      return FAIL;
    }
    byte c = b[p];
    if (c == '"') {
      int q = string(p + 1);
      return q < 0 ? FAIL : q + 1;
    }
    if ((c >= '0' && c <= '9') || c == '-') {
      return number(p);
    }
    switch (c) {
      case '{':
        return object(p, depth + 1, false);
      case '[':
        return array(p, depth + 1);
      case 't':
        return literal(p, "true");
      case 'f':
        return literal(p, "false");
      case 'n':
        return literal(p, "null");
      default:
        return FAIL;
    }
  }

  private int literal(int p, String word) {
    int n = word.length();
    if (p + n > end) {
      return FAIL;
    }
    for (int i = 1; i < n; i++) {
      if (b[p + i] != word.charAt(i)) {
        return FAIL;
      }
    }
    return p + n;
  }

  /** {@code p} is at the '['. */
  private int array(int p, int depth) {
    if (depth > MAX_DEPTH) {
      return FAIL;
    }
    p++;
    if (p < end && b[p] == ']') {
      return p + 1;
    }
    while (true) {
      int after = value(p, depth);
      if (after < 0 || after >= end) {
        return FAIL;
      }
      byte c = b[after];
      if (c == ']') {
        return after + 1;
      }
      if (c != ',') {
        return FAIL;
      }
      p = after + 1;
    }
  }

  /**
   * A string from just after its opening quote: returns the index of its closing quote, or FAIL
   * when it has an escape, a control character or UTF-8 that is not well formed.
   */
  private int string(int p) {
    while (true) {
      p = Swar.toLook(b, p, end);
      if (p >= end) {
        return FAIL;
      }
      byte c = b[p];
      if (c == '"') {
        return p;
      }
      if (c < 0) {
        p = Utf8.sequence(b, p, end);
        if (p < 0) {
          return FAIL;
        }
      } else {
        return FAIL; // a control character or an escape
      }
    }
  }

  /**
   * A number at {@code p}: returns the index after it, or FAIL. When decoding and writing it would
   * write it otherwise (an integer as a long, or else as a double), its new text is kept.
   */
  private int number(int p) {
    int start = p;
    boolean integer = true;
    while (p < end && isNumberByte(b[p])) {
      byte c = b[p++];
      integer &= c != '.' && c != 'e' && c != 'E';
    }
    int length = p - start;
    if (length == 0 || length > 64) {
      return FAIL;
    }
    if (integer
        && length <= MAX_INTEGER_DIGITS
        && (b[start] != '-' || (length > 1 && b[start + 1] != '0'))) {
      return p; // as a long writes it (a JSON integer has no leading zero; -0 is written 0)
    }
    String text = new String(b, start, length, StandardCharsets.ISO_8859_1);
    String canonical;
    try {
      if (integer) {
        canonical = canonicalInteger(text);
      } else {
        double d = Double.parseDouble(text);
        canonical = Double.isFinite(d) ? Double.toString(d) : null;
      }
    } catch (NumberFormatException e) {
      return FAIL;
    }
    if (canonical == null) {
      return FAIL;
    }
    if (!canonical.equals(text)) {
      edit(start, p, canonical);
    }
    return p;
  }

  /**
   * An integer as decoding writes it: as a long when it fits, else as a double; null if neither.
   */
  private static String canonicalInteger(String text) {
    try {
      return Long.toString(Long.parseLong(text));
    } catch (NumberFormatException e) {
      double d = Double.parseDouble(text);
      return Double.isFinite(d) ? Double.toString(d) : null;
    }
  }

  private void edit(int start, int after, String text) {
    if (editCount == newNumbers.length) {
      newNumbers = Arrays.copyOf(newNumbers, editCount * 2);
      edits = Arrays.copyOf(edits, editCount * 4);
    }
    edits[2 * editCount] = start;
    edits[2 * editCount + 1] = after;
    newNumbers[editCount++] = text;
  }

  private static boolean isNumberByte(byte c) {
    return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
  }
}
