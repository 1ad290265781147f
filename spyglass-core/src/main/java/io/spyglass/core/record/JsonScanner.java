package io.spyglass.core.record;

import java.util.Arrays;

/**
 * Checks that bytes hold exactly one JSON object and finds the values of the top-level fields a
 * {@link FieldTable} names, without building anything. Strings are searched eight bytes at a time,
 * two words a step (SWAR: a {@code long} compared against a quote, a backslash, control characters
 * and non-ASCII bytes at once), names are guessed from the records before ({@link NameMemo}) with
 * the comma before them, numbers are read by words; nested values are walked and checked, not kept
 * (see {@link JsonWalk}, whose loops this one's top level is like).
 *
 * <p>This scan is the definition of a valid record: strict JSON (RFC 8259) that is one object, in
 * UTF-8 that is well formed (no overlong forms, no surrogates, nothing above U+10FFFF), optionally
 * after a UTF-8 byte-order mark, within the {@link JsonRecordReader.Limits limits} (nesting,
 * string, name and number lengths). Every byte is checked, whichever fields are looked for, so
 * whether a record is valid never depends on which queries run. When {@link #scan} returns false,
 * {@link #reason()} says why, for the first error in the bytes.
 *
 * <p>Not thread-safe.
 */
final class JsonScanner extends JsonWalk {
  private int failedAt;

  /** Decodes names written with escapes, to look them up; made on first use. */
  private JsonDecoder names;

  /** The slot of the top-level name that {@link #searchedTopName} found. */
  private int searchedSlot;

  JsonScanner() {
    limits(JsonRecordReader.Limits.DEFAULTS);
  }

  /** Per slot of the field table: what the last scan found. */
  private byte[] kinds = new byte[0];

  private int[] starts = new int[0];
  private int[] ends = new int[0];
  private long[] longs = new long[0];

  /** Slots found by the last scan, in order of first appearance. */
  private int[] order = new int[0];

  private int found;
  private byte[] bytes;
  private int offset;
  private int length;

  /** Looks for the fields of {@code table} from the next scan on. */
  void fields(FieldTable table) {
    fields = table;
    int n = table.size();
    kinds = new byte[n];
    starts = new int[n];
    ends = new int[n];
    longs = new long[n];
    order = new int[n];
    found = 0;
    memo.fields(table);
  }

  FieldTable fields() {
    return fields;
  }

  /**
   * Scans {@code b[off, off + len)}.
   *
   * @return true when the bytes are one valid JSON object; then the accessors below describe the
   *     fields of the table it holds. False when they are not: {@link #reason()} says why, and
   *     nothing else is known
   */
  boolean scan(byte[] b, int off, int len) {
    for (int i = 0; i < found; i++) {
      kinds[order[i]] = ABSENT;
    }
    found = 0;
    reason = null;
    bytes = b;
    offset = off;
    length = len;
    int end = off + len;
    int p = off;
    if (len >= 3 && b[p] == (byte) 0xEF && b[p + 1] == (byte) 0xBB && b[p + 2] == (byte) 0xBF) {
      p += 3; // a byte-order mark, which RFC 8259 lets a parser ignore
    }
    p = ws(b, p, end);
    if (p >= end || b[p] != '{') {
      reason = p >= end ? BadRecord.NOT_AN_OBJECT : notAnObject(b, p, end);
      return failed(~p, end);
    }
    p = ws(b, p + 1, end);
    if (p >= end) {
      return failed(~p, end);
    }
    if (b[p] == '}') {
      return nothingAfter(b, p + 1, end);
    }
    return members(b, p, end);
  }

  /**
   * The record's members from the first, at {@code p}: as {@link JsonWalk#object} steps over an
   * object's, but with the values of the fields looked for described, and recorded.
   */
  private boolean members(byte[] b, int p, int end) {
    NameMemo m = memo;
    long[] cells = m.cells;
    int[] slots = m.slots;
    int at = NameMemo.firstOf(m.begin());
    // the first name, compared from the byte before it (a brace or a space: not compared)
    long g = cells[at];
    int id = NameMemo.guessed(g);
    int cell = NameMemo.STRIDE * id;
    int slot;
    if (id >= 0
        && p + NameMemo.WINDOW <= end
        && (((Swar.word(b, p - 1) ^ cells[cell]) & cells[cell + 1] & ~0xFFL)
                | ((Swar.word(b, p + 7) ^ cells[cell + 2]) & cells[cell + 3])
                | (NameMemo.guessedLength(g) > 16
                    ? (Swar.word(b, p + 15) ^ cells[cell + 4]) & cells[cell + 5]
                    : 0))
            == 0) {
      p += NameMemo.guessedLength(g) - 1; // after the colon of the name guessed, before the end
      slot = slots[id];
    } else {
      p = searchedTopName(b, p, end, at);
      if (p < 0) {
        return failed(p, end);
      }
      id = searchedId;
      slot = searchedSlot;
    }
    while (true) {
      at = NameMemo.after(id);
      byte c = b[p];
      if (c <= ' ') {
        p = ws(b, p, end);
        if (p >= end) {
          return failed(~p, end);
        }
        c = b[p];
      }
      if (slot >= 0) {
        int start = p;
        if (c == '"') {
          // a string read: searched as below, and described
          int s = p + 1;
          int q = s;
          while (true) {
            if (q + 16 > end) {
              q = Swar.toLook(b, q, end);
              break;
            }
            long m0 = Swar.stringFlags(b, q);
            if (m0 != 0) {
              q += Long.numberOfTrailingZeros(m0) >>> 3;
              break;
            }
            long m1 = Swar.stringFlags(b, q + 8);
            if (m1 != 0) {
              q += 8 + (Long.numberOfTrailingZeros(m1) >>> 3);
              break;
            }
            q += 16;
          }
          if (q >= end || b[q] != '"' || q - s > maxStringBytes) {
            q = string(b, s, q, end);
            if (q < 0) {
              return failed(q, end);
            }
          } else {
            escaped = false;
          }
          kind = escaped ? ESCAPED_STRING : STRING;
          valueStart = s;
          valueEnd = q;
          p = q + 1;
        } else {
          p = value(b, p, end, id);
        }
        if (p >= end | p < 0) {
          return failed(p < 0 ? p : ~p, end);
        }
        record(slot, start, p);
        // the next member, as below
      } else {
        // a value no query reads, as in JsonWalk.object()
        if (c == '"') {
          int s = p + 1;
          int q = s;
          while (true) {
            if (q + 16 > end) {
              q = Swar.toLook(b, q, end);
              break;
            }
            long m0 = Swar.stringFlags(b, q);
            if (m0 != 0) {
              q += Long.numberOfTrailingZeros(m0) >>> 3;
              break;
            }
            long m1 = Swar.stringFlags(b, q + 8);
            if (m1 != 0) {
              q += 8 + (Long.numberOfTrailingZeros(m1) >>> 3);
              break;
            }
            q += 16;
          }
          if (q >= end || b[q] != '"' || q - s > maxStringBytes) {
            q = string(b, s, q, end);
          }
          if (q < 0) {
            return failed(q, end);
          }
          p = q + 1;
        } else if ((c >= '0' && c <= '9') || c == '-') {
          int r = -1;
          if (p + NUMBER_WORDS <= end && maxNumberChars >= NUMBER_WORDS) {
            int q = p + ((((c ^ '-') & 0xFF) - 1) >>> 31); // after a minus sign
            long w = Swar.word(b, q);
            int k = Swar.digitCount(w);
            // the word that holds the byte after the digits: read from it, not loaded again
            long x = w;
            if (k == 8) {
              x = Swar.word(b, q + 8);
              k += Swar.digitCount(x);
            }
            if (k > 0 && k < 16 && (((int) w & 0xFF) != '0' || k == 1)) {
              int a = (int) (x >>> ((k & 7) << 3)) & 0xFF;
              if (a == '.') {
                int f = q + k + 1;
                long y = Swar.word(b, f);
                int d = Swar.digitCount(y);
                if (d > 0 && d < 8 && (((int) (y >>> (d << 3)) | 0x20) & 0xFF) != 'e') {
                  r = f + d;
                }
              } else if ((a | 0x20) != 'e') {
                r = q + k;
              }
            }
          }
          if (r >= 0) {
            p = r;
          } else if ((p = number(b, p, end)) < 0) {
            return failed(p, end);
          }
        } else if (c == '{') {
          if ((p = object(b, p + 1, end, 2, id)) < 0) {
            return failed(p, end);
          }
        } else if (c == '[') {
          if ((p = array(b, p + 1, end, 2, id)) < 0) {
            return failed(p, end);
          }
        } else if ((p = literal(b, p, end)) < 0) {
          return failed(p, end);
        }
        // p <= end: the fast paths end before it
      }
      // the next member: its comma and its name guessed, compared at once
      g = cells[at];
      id = NameMemo.guessed(g);
      cell = NameMemo.STRIDE * id;
      if (id >= 0
          && p + NameMemo.WINDOW < end
          && (((Swar.word(b, p) ^ cells[cell]) & cells[cell + 1])
                  | ((Swar.word(b, p + 8) ^ cells[cell + 2]) & cells[cell + 3])
                  | (NameMemo.guessedLength(g) > 16
                      ? (Swar.word(b, p + 16) ^ cells[cell + 4]) & cells[cell + 5]
                      : 0))
              == 0) {
        p += NameMemo.guessedLength(g); // after the colon of the name guessed, before the end
        slot = slots[id];
        continue;
      }
      if (p >= end) {
        return failed(~p, end);
      }
      c = b[p];
      if (c != ',') {
        if (c == '}') {
          return nothingAfter(b, p + 1, end);
        }
        if (c > ' ') {
          return failed(~p, end);
        }
        p = ws(b, p, end);
        if (p >= end) {
          return failed(~p, end);
        }
        c = b[p];
        if (c == '}') {
          return nothingAfter(b, p + 1, end);
        }
        if (c != ',') {
          return failed(~p, end);
        }
      }
      if (++p >= end) {
        return failed(~p, end);
      }
      p = searchedTopName(b, p, end, at);
      if (p < 0) {
        return failed(p, end);
      }
      id = searchedId;
      slot = searchedSlot;
    }
  }

  /**
   * As {@link #searchedName}, at the top level: the name's slot in the field table, or -1, in
   * {@link #searchedSlot}.
   */
  private int searchedTopName(byte[] b, int p, int end, int at) {
    if (b[p] <= ' ') {
      p = ws(b, p, end);
      if (p >= end) {
        return ~p;
      }
    }
    if (b[p] != '"') {
      return ~p;
    }
    int nameStart = p + 1;
    int q = string(b, nameStart, end);
    if (q < 0) {
      return q;
    }
    if (q - nameStart > maxNameBytes) {
      return fail(BadRecord.NAME_TOO_LONG, nameStart);
    }
    int id = memo.learn(b, nameStart, q, escaped, at, fields);
    searchedId = id;
    if (NameMemo.known(id)) {
      searchedSlot = memo.slot(id);
    } else if (fields.size() > 0) {
      searchedSlot =
          escaped ? fields.slot(escapedName(b, nameStart, q)) : fields.slot(b, nameStart, q);
    } else {
      searchedSlot = -1;
    }
    return colon(b, q + 1, end);
  }

  /** Whether only whitespace follows the record's object, which ends before {@code p}. */
  private boolean nothingAfter(byte[] b, int p, int end) {
    p = ws(b, p, end);
    return p == end || failed(~p, end);
  }

  /**
   * Ends a scan that failed: {@code code} is {@code ~i} for the index i of the first error. Its
   * reason is the one set where it was found ({@link #fail}) or else, as most errors are found on
   * the way without a word, {@link BadRecord#TRUNCATED} when the bytes ended there and {@link
   * BadRecord#MALFORMED_JSON} when a byte there cannot be where it is. Returns false.
   */
  private boolean failed(int code, int end) {
    failedAt = ~code;
    if (reason == null) {
      reason = failedAt >= end ? BadRecord.TRUNCATED : BadRecord.MALFORMED_JSON;
    }
    return false;
  }

  /**
   * Why the last scan failed, for the first error in its bytes (the caller checks the bytes as a
   * whole first: see {@link RecordScanner}); null when it succeeded.
   */
  BadRecord reason() {
    return reason;
  }

  /** Where the last scan failed: an index into its bytes. */
  int failedAt() {
    return failedAt;
  }

  /** A top-level name with escapes, decoded to be looked up. */
  private String escapedName(byte[] b, int from, int to) {
    if (names == null) {
      names = new JsonDecoder();
    }
    return names.escapedString(b, from, to);
  }

  /**
   * Why text whose first byte {@code b[p]} is not '{' is not a record: a JSON value of another kind
   * (an array, a string, a number, a literal), NaN or Infinity, or not JSON.
   */
  private static BadRecord notAnObject(byte[] b, int p, int end) {
    byte c = b[p];
    if (c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9')) {
      return c == '-' && notANumber(b, p, end) ? BadRecord.NOT_A_NUMBER : BadRecord.NOT_AN_OBJECT;
    }
    if (c == 't' || c == 'f' || c == 'n') {
      return BadRecord.NOT_AN_OBJECT;
    }
    return notANumber(b, p, end) ? BadRecord.NOT_A_NUMBER : BadRecord.MALFORMED_JSON;
  }

  private void record(int slot, int start, int end) {
    if (kinds[slot] == ABSENT) {
      order[found++] = slot;
    }
    byte k = kind;
    kinds[slot] = k;
    if (k == STRING || k == ESCAPED_STRING) {
      starts[slot] = valueStart;
      ends[slot] = valueEnd;
    } else {
      starts[slot] = start;
      ends[slot] = end;
      longs[slot] = number;
    }
  }

  /** The bytes of the last scan. */
  byte[] bytes() {
    return bytes;
  }

  int offset() {
    return offset;
  }

  int length() {
    return length;
  }

  /** Fields of the table found by the last successful scan. */
  int found() {
    return found;
  }

  /** The slot of the {@code i}-th field found, in order of first appearance. */
  int foundSlot(int i) {
    return order[i];
  }

  /** The kind of the value of {@code slot}, {@link #ABSENT} when the record does not have it. */
  byte kind(int slot) {
    return kinds[slot];
  }

  /**
   * Where the value of {@code slot} starts: the first byte inside the quotes of a string, the first
   * byte of any other value.
   */
  int start(int slot) {
    return starts[slot];
  }

  /** Where the value of {@code slot} ends, exclusive (before a string's closing quote). */
  int end(int slot) {
    return ends[slot];
  }

  /** The value of an {@link #INTEGER}. */
  long longValue(int slot) {
    return longs[slot];
  }

  @Override
  public String toString() {
    return "JsonScanner" + Arrays.toString(Arrays.copyOf(order, found));
  }
}
