package io.spyglass.core.record;

import java.util.Arrays;

/**
 * Checks that bytes hold exactly one JSON object and finds the values of the top-level fields a
 * {@link FieldTable} names, without building anything. Strings are searched eight bytes at a time
 * (SWAR: one {@code long} compared against a quote, a backslash, control characters and non-ASCII
 * bytes at once); nested values are walked and checked, not kept.
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
final class JsonScanner {
  /** Kinds of the values found, by slot. */
  static final byte ABSENT = 0,
      STRING = 1,
      ESCAPED_STRING = 2,
      INTEGER = 3,
      BIG_INTEGER = 4,
      DECIMAL = 5,
      TRUE = 6,
      FALSE = 7,
      NULL = 8,
      OBJECT = 9,
      ARRAY = 10;

  /** Integers of at most this many digits are computed while scanning; longer ones are not. */
  private static final int LONG_DIGITS = 18;

  private FieldTable fields = FieldTable.EMPTY;

  private int maxDepth;
  private int maxStringBytes;
  private int maxNameBytes;
  private int maxNumberChars;

  /** Why the last scan failed, and where (an index into the bytes); null after a success. */
  private BadRecord reason;

  private int failedAt;

  /** Decodes names written with escapes, to look them up; made on first use. */
  private JsonDecoder names;

  /** The names of the records before, to guess the names of the next. */
  private final NameMemo memo = new NameMemo();

  JsonScanner() {
    limits(JsonRecordReader.Limits.DEFAULTS);
  }

  /** Bounds the records from the next scan on. */
  void limits(JsonRecordReader.Limits limits) {
    memo.clear(); // its names were found valid under the limits before
    maxDepth = limits.maxDepth();
    maxStringBytes = limits.maxStringLength();
    maxNameBytes = limits.maxNameBytes();
    maxNumberChars = limits.maxNumberChars();
  }

  /** Per slot of the field table: what the last scan found. */
  private byte[] kinds = new byte[0];

  private int[] starts = new int[0];
  private int[] ends = new int[0];
  private long[] longs = new long[0];

  /** Slots found by the last scan, in order of first appearance. */
  private int[] order = new int[0];

  private int found;
  private int touched;
  private byte[] bytes;
  private int offset;
  private int length;

  // Results of the last value scanned, read by the top-level loop.
  private byte kind;
  private int valueStart;
  private int valueEnd;
  private long number;
  private boolean escaped;

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
    if (ScanTuning.TOUCH) {
      int t = 0;
      for (int i = off + 64; i < end; i += 64) {
        t += b[i];
      }
      touched += t;
    }
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
    if (ScanTuning.X8) {
      return membersF(b, p, end);
    }
    if (ScanTuning.X4) {
      return membersX(b, p, end);
    }
    boolean lookUp = fields.size() > 0;
    int prev = NameMemo.firstOf(memo.begin());
    while (true) {
      int id = memo.guess(prev);
      int after = memo.member(b, p, end, id); // after the colon, when the name is the one guessed
      int slot;
      if (after >= 0) {
        p = after;
        slot = memo.slot(id);
      } else {
        if (b[p] != '"') {
          return failed(~p, end);
        }
        int nameStart = p + 1;
        int q = string(b, nameStart, end);
        if (q < 0) {
          return failed(q, end);
        }
        if (q - nameStart > maxNameBytes) {
          return failed(fail(BadRecord.NAME_TOO_LONG, nameStart), end);
        }
        id = memo.learn(b, nameStart, q, escaped, prev, fields);
        if (NameMemo.known(id)) {
          slot = memo.slot(id);
        } else if (lookUp) {
          slot = escaped ? fields.slot(escapedName(b, nameStart, q)) : fields.slot(b, nameStart, q);
        } else {
          slot = -1;
        }
        p = q + 1;
        if (p >= end) {
          return failed(~p, end);
        }
        if (b[p] != ':') {
          p = ws(b, p, end);
          if (p >= end || b[p] != ':') {
            return failed(~p, end);
          }
        }
        p++;
      }
      prev = id;
      if (p >= end) {
        return failed(~p, end);
      }
      if (b[p] <= ' ') {
        p = ws(b, p, end);
        if (p >= end) {
          return failed(~p, end);
        }
      }
      int start = p;
      p = slot >= 0 ? value(b, p, end, 1, id) : skip(b, p, end, 1, id);
      if (p < 0) {
        return failed(p, end);
      }
      if (p >= end) {
        return failed(~p, end);
      }
      if (slot >= 0) {
        record(slot, start, p);
      }
      byte c = b[p];
      if (c != ',' && c != '}') {
        p = ws(b, p, end);
        if (p >= end) {
          return failed(~p, end);
        }
        c = b[p];
      }
      if (c == '}') {
        return nothingAfter(b, p + 1, end);
      }
      if (c != ',') {
        return failed(~p, end);
      }
      if (++p >= end) {
        return failed(~p, end);
      }
      if (b[p] <= ' ') {
        p = ws(b, p, end);
        if (p >= end) {
          return failed(~p, end);
        }
      }
    }
  }

  /** The record's members from the first, at {@code p}. */
  private boolean membersX(byte[] b, int p, int end) {
    boolean lookUp = fields.size() > 0;
    int prev = NameMemo.firstOf(memo.begin());
    while (true) {
      // p < end
      int id = memo.guess(prev);
      int after = memo.member(b, p, end, id); // after the colon, when the name is the one guessed
      int slot;
      if (after >= 0) {
        p = after; // before the end
        slot = memo.slot(id);
      } else {
        if (b[p] <= ' ') {
          p = ws(b, p, end);
          if (p >= end) {
            return failed(~p, end);
          }
        }
        if (b[p] != '"') {
          return failed(~p, end);
        }
        int nameStart = p + 1;
        int q = string(b, nameStart, end);
        if (q < 0) {
          return failed(q, end);
        }
        if (q - nameStart > maxNameBytes) {
          return failed(fail(BadRecord.NAME_TOO_LONG, nameStart), end);
        }
        id = memo.learn(b, nameStart, q, escaped, prev, fields);
        if (NameMemo.known(id)) {
          slot = memo.slot(id);
        } else if (lookUp) {
          slot = escaped ? fields.slot(escapedName(b, nameStart, q)) : fields.slot(b, nameStart, q);
        } else {
          slot = -1;
        }
        p = q + 1;
        if (p >= end) {
          return failed(~p, end);
        }
        if (b[p] != ':') {
          p = ws(b, p, end);
          if (p >= end || b[p] != ':') {
            return failed(~p, end);
          }
        }
        if (++p >= end) {
          return failed(~p, end);
        }
      }
      prev = id;
      byte c = b[p];
      if (c <= ' ') {
        p = ws(b, p, end);
        if (p >= end) {
          return failed(~p, end);
        }
        c = b[p];
      }
      int start = p;
      if (slot >= 0) {
        p = value(b, p, end, 1, id);
      } else if (ScanTuning.X7 && c == '"') {
        int q = string(b, p + 1, end);
        p = q < 0 ? q : q + 1;
      } else {
        p = skipValue(b, p, end, c, 1, id);
      }
      if (p >= end | p < 0) {
        return failed(p < 0 ? p : ~p, end);
      }
      if (slot >= 0) {
        record(slot, start, p);
      }
      c = b[p];
      if (c == ',') {
        if (++p >= end) {
          return failed(~p, end);
        }
        continue;
      }
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
      if (++p >= end) {
        return failed(~p, end);
      }
    }
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

  /** An error of a reason of its own at {@code at}: returns {@code ~at}. */
  private int fail(BadRecord why, int at) {
    reason = why;
    return ~at;
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

  /**
   * Whether a value starting at {@code p} starts as {@code NaN} or {@code Infinity} do, with a sign
   * or not: numbers that JSON does not have.
   */
  private static boolean notANumber(byte[] b, int p, int end) {
    if (b[p] == '-' || b[p] == '+') {
      p++;
    }
    return p < end && (b[p] == 'N' || b[p] == 'I');
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

  // ------------------------------------------------------------------ the grammar

  // The grammar's methods return the index after what they scanned, or ~i for the index i of the
  // first error (negative), which their callers return as it is: see failed().

  /** Scans the value at {@code p}; returns the index after it. Sets {@link #kind}. */
  private int value(byte[] b, int p, int end, int depth, int name) {
    byte c = b[p];
    if (c == '"') {
      int q = string(b, p + 1, end);
      if (q < 0) {
        return q;
      }
      kind = escaped ? ESCAPED_STRING : STRING;
      valueStart = p + 1;
      valueEnd = q;
      return q + 1;
    }
    if ((c >= '0' && c <= '9') || c == '-') {
      return number(b, p, end);
    }
    switch (c) {
      case '{':
        kind = OBJECT;
        return object(b, p + 1, end, depth + 1, name);
      case '[':
        kind = ARRAY;
        return array(b, p + 1, end, depth + 1, name);
      case 't':
        kind = TRUE;
        return literal(b, p, end);
      case 'f':
        kind = FALSE;
        return literal(b, p, end);
      case 'n':
        kind = NULL;
        return literal(b, p, end);
      default:
        return notAValue(b, p, end);
    }
  }

  /**
   * Checks the value at {@code p} as {@link #value} does, without keeping anything of it: for the
   * values no query reads, which are most of a record. Returns the index after it.
   */
  private int skip(byte[] b, int p, int end, int depth, int name) {
    byte c = b[p];
    if (ScanTuning.X8) {
      return skipF(b, p, end, c, depth, name);
    }
    if (ScanTuning.X4) {
      return skipValue(b, p, end, c, depth, name);
    }
    if (c == '"') {
      int q = string(b, p + 1, end);
      return q < 0 ? q : q + 1;
    }
    if ((c >= '0' && c <= '9') || c == '-') {
      return skipNumber(b, p, end);
    }
    switch (c) {
      case '{':
        return object(b, p + 1, end, depth + 1, name);
      case '[':
        return array(b, p + 1, end, depth + 1, name);
      case 't':
      case 'f':
      case 'n':
        return literal(b, p, end);
      default:
        return notAValue(b, p, end);
    }
  }

  /** {@link #skip} of the value at {@code p}, whose first byte {@code c} is. */
  private int skipValue(byte[] b, int p, int end, byte c, int depth, int name) {
    if (c == '"') {
      int q = string(b, p + 1, end);
      return q < 0 ? q : q + 1;
    }
    if ((c >= '0' && c <= '9') || c == '-') {
      return skipNumber(b, p, end);
    }
    if (ScanTuning.X5) {
      if (c == '{') {
        return objectX(b, p + 1, end, depth + 1, name);
      }
      if (c == '[') {
        return arrayX(b, p + 1, end, depth + 1, name);
      }
      return literalX(b, p, end);
    }
    switch (c) {
      case '{':
        return objectX(b, p + 1, end, depth + 1, name);
      case '[':
        return arrayX(b, p + 1, end, depth + 1, name);
      case 't':
      case 'f':
      case 'n':
        return literal(b, p, end);
      default:
        return notAValue(b, p, end);
    }
  }

  private int objectX(byte[] b, int p, int end, int depth, int name) {
    if (depth > maxDepth) {
      return fail(BadRecord.TOO_DEEP, p - 1);
    }
    if (p >= end) {
      return ~p;
    }
    if (b[p] <= ' ') {
      p = ws(b, p, end);
      if (p >= end) {
        return ~p;
      }
    }
    if (b[p] == '}') {
      return p + 1;
    }
    int prev = NameMemo.firstOf(name);
    while (true) {
      // p < end
      int id = memo.guess(prev);
      int after = memo.member(b, p, end, id); // after the colon, when the name is the one guessed
      if (after >= 0) {
        p = after; // before the end
      } else {
        if (b[p] <= ' ') {
          p = ws(b, p, end);
          if (p >= end) {
            return ~p;
          }
        }
        if (b[p] != '"') {
          return ~p;
        }
        int q = string(b, p + 1, end);
        if (q < 0) {
          return q;
        }
        if (q - p - 1 > maxNameBytes) {
          return fail(BadRecord.NAME_TOO_LONG, p + 1);
        }
        id = memo.learn(b, p + 1, q, escaped, prev, fields);
        p = q + 1;
        if (p >= end) {
          return ~p;
        }
        if (b[p] != ':') {
          p = ws(b, p, end);
          if (p >= end || b[p] != ':') {
            return ~p;
          }
        }
        if (++p >= end) {
          return ~p;
        }
      }
      prev = id;
      byte c = b[p];
      if (c <= ' ') {
        p = ws(b, p, end);
        if (p >= end) {
          return ~p;
        }
        c = b[p];
      }
      if (ScanTuning.X7 && c == '"') {
        int q = string(b, p + 1, end);
        p = q < 0 ? q : q + 1;
      } else {
        p = skipValue(b, p, end, c, depth, id);
      }
      if (p >= end | p < 0) {
        return p < 0 ? p : ~p;
      }
      c = b[p];
      if (c == ',') {
        if (++p >= end) {
          return ~p;
        }
        continue;
      }
      if (c == '}') {
        return p + 1;
      }
      if (c > ' ') {
        return ~p;
      }
      p = ws(b, p, end);
      if (p >= end) {
        return ~p;
      }
      c = b[p];
      if (c == '}') {
        return p + 1;
      }
      if (c != ',') {
        return ~p;
      }
      if (++p >= end) {
        return ~p;
      }
    }
  }

  private int arrayX(byte[] b, int p, int end, int depth, int name) {
    if (depth > maxDepth) {
      return fail(BadRecord.TOO_DEEP, p - 1);
    }
    if (p >= end) {
      return ~p;
    }
    byte c = b[p];
    if (c <= ' ') {
      p = ws(b, p, end);
      if (p >= end) {
        return ~p;
      }
      c = b[p];
    }
    if (c == ']') {
      return p + 1;
    }
    while (true) {
      if (ScanTuning.X7 && c == '"') {
        int q = string(b, p + 1, end);
        p = q < 0 ? q : q + 1;
      } else {
        p = skipValue(b, p, end, c, depth, name);
      }
      if (p >= end | p < 0) {
        return p < 0 ? p : ~p;
      }
      c = b[p];
      if (c != ',') {
        if (c == ']') {
          return p + 1;
        }
        if (c > ' ') {
          return ~p;
        }
        p = ws(b, p, end);
        if (p >= end) {
          return ~p;
        }
        c = b[p];
        if (c == ']') {
          return p + 1;
        }
        if (c != ',') {
          return ~p;
        }
      }
      if (++p >= end) {
        return ~p;
      }
      c = b[p];
      if (c <= ' ') {
        p = ws(b, p, end);
        if (p >= end) {
          return ~p;
        }
        c = b[p];
      }
    }
  }

  // ------------------------------------------------------------------ the walk without calls

  // The values no query reads are stepped over by loops whose usual paths (a guessed name, a string
  // of ASCII, a short number, a literal) call nothing: the compiler keeps their state in registers.
  // Whatever is unusual (a name not guessed, escapes, multi-byte characters, long numbers, errors)
  // is handed to the methods above, which check it as the rest of the scan does.

  /** The id of the name that {@link #searchedName} found. */
  private int searchedId;

  /** The slot of the top-level name that {@link #searchedTopName} found. */
  private int searchedSlot;

  /**
   * The member at {@code p} (before {@code end}) of an object whose name was not guessed: its name
   * searched for and learned (its id in {@link #searchedId}) and its colon; returns the index after
   * the colon.
   */
  private int searchedName(byte[] b, int p, int end, int prev) {
    if (b[p] <= ' ') {
      p = ws(b, p, end);
      if (p >= end) {
        return ~p;
      }
    }
    if (b[p] != '"') {
      return ~p;
    }
    int q = string(b, p + 1, end);
    if (q < 0) {
      return q;
    }
    if (q - p - 1 > maxNameBytes) {
      return fail(BadRecord.NAME_TOO_LONG, p + 1);
    }
    searchedId = memo.learn(b, p + 1, q, escaped, prev, fields);
    return colon(b, q + 1, end);
  }

  /** As {@link #searchedName}, at the top level: the name's slot in {@link #searchedSlot}. */
  private int searchedTopName(byte[] b, int p, int end, int prev) {
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
    int id = memo.learn(b, nameStart, q, escaped, prev, fields);
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

  /** The colon after a name that ends before {@code p}: the index after it, before the end. */
  private static int colon(byte[] b, int p, int end) {
    if (p >= end) {
      return ~p;
    }
    if (b[p] != ':') {
      p = ws(b, p, end);
      if (p >= end || b[p] != ':') {
        return ~p;
      }
    }
    return ++p >= end ? ~p : p;
  }

  /** The record's members from the first, at {@code p}. */
  private boolean membersF(byte[] b, int p, int end) {
    NameMemo m = memo;
    int[] next = m.next;
    long[] words = m.words;
    int[] lengths = m.lengths;
    int[] slots = m.slots;
    int prev = NameMemo.firstOf(m.begin());
    while (true) {
      // p < end
      int id = next[prev];
      int slot;
      if (id >= 0
          && p + NameMemo.WINDOW < end
          && (((Swar.word(b, p) ^ words[6 * id]) & words[6 * id + 1])
                  | ((Swar.word(b, p + 8) ^ words[6 * id + 2]) & words[6 * id + 3])
                  | ((Swar.word(b, p + 16) ^ words[6 * id + 4]) & words[6 * id + 5]))
              == 0) {
        p += lengths[id]; // after the colon of the name guessed, before the end
        slot = slots[id];
      } else {
        p = searchedTopName(b, p, end, prev);
        if (p < 0) {
          return failed(p, end);
        }
        id = searchedId;
        slot = searchedSlot;
      }
      prev = id;
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
        p = value(b, p, end, 1, id);
        if (p >= end | p < 0) {
          return failed(p < 0 ? p : ~p, end);
        }
        record(slot, start, p);
      } else {
        if (c == '"') {
          int s = p + 1;
          int q = s;
          while (true) {
            if (q + 16 > end) {
              q = Swar.toLook(b, q, end);
              break;
            }
            long m0 = Swar.stringFlags(b, q);
            long m1 = Swar.stringFlags(b, q + 8);
            if ((m0 | m1) != 0) {
              int t = Long.numberOfTrailingZeros(m0);
              t += Long.numberOfTrailingZeros(m1) & -(t >>> 6); // m1's only when m0 has none
              q += t >>> 3;
              break;
            }
            q += 16;
          }
          if (q >= end || b[q] != '"' || q - s > maxStringBytes) {
            q = string(b, s, q, end);
          }
          p = q + 1; // ~error + 1 is negative too
          if (q < 0) {
            return failed(q, end);
          }
        } else if ((c >= '0' && c <= '9') || c == '-') {
          int r = -1;
          if (ScanTuning.X9) {
            r = skipNumberFast(b, p, end);
          } else if (p + NUMBER_WORDS <= end && maxNumberChars >= NUMBER_WORDS) {
            int q = p + ((((c ^ '-') & 0xFF) - 1) >>> 31); // after a minus sign
            long w = Swar.word(b, q);
            int k = Swar.digitCount(w);
            if (k == 8) {
              k += Swar.digitCount(Swar.word(b, q + 8));
            }
            if (k > 0 && k < 16 && (((int) w & 0xFF) != '0' || k == 1)) {
              int a = b[q + k];
              if (a == '.') {
                int f = q + k + 1;
                int d = Swar.digitCount(Swar.word(b, f));
                if (d > 0 && d < 8 && (b[f + d] | 0x20) != 'e') {
                  r = f + d;
                }
              } else if ((a | 0x20) != 'e') {
                r = q + k;
              }
            }
          }
          p = r >= 0 ? r : numberAt(b, p, end);
        } else if (c == '{') {
          p = objectF(b, p + 1, end, 2, id);
        } else if (c == '[') {
          p = arrayF(b, p + 1, end, 2, id);
        } else {
          p = literalAt(b, p, end);
        }
        if (p >= end | p < 0) {
          return failed(p < 0 ? p : ~p, end);
        }
      }
      c = b[p];
      if (c == ',') {
        if (++p >= end) {
          return failed(~p, end);
        }
        continue;
      }
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
      if (c != ',' || ++p >= end) {
        return failed(~p, end);
      }
    }
  }

  /** Numbers are read by words when their limit allows this many characters. */
  private static final int NUMBER_WORDS = 32;

  /** {@link #skip} by the loops below. */
  private int skipF(byte[] b, int p, int end, byte c, int depth, int name) {
    if (c == '{') {
      return objectF(b, p + 1, end, depth + 1, name);
    }
    if (c == '[') {
      return arrayF(b, p + 1, end, depth + 1, name);
    }
    if (c == '"') {
      int q = string(b, p + 1, end);
      return q < 0 ? q : q + 1;
    }
    if ((c >= '0' && c <= '9') || c == '-') {
      return numberAt(b, p, end);
    }
    return literalAt(b, p, end);
  }

  /** {@link #object} without calls on its usual paths. */
  private int objectF(byte[] b, int p, int end, int depth, int name) {
    if (depth > maxDepth) {
      return fail(BadRecord.TOO_DEEP, p - 1);
    }
    if (p >= end) {
      return ~p;
    }
    if (b[p] <= ' ') {
      p = ws(b, p, end);
      if (p >= end) {
        return ~p;
      }
    }
    if (b[p] == '}') {
      return p + 1;
    }
    NameMemo m = memo;
    int[] next = m.next;
    long[] words = m.words;
    int[] lengths = m.lengths;
    int prev = NameMemo.firstOf(name);
    while (true) {
      // p < end
      int id = next[prev];
      if (id >= 0
          && p + NameMemo.WINDOW < end
          && (((Swar.word(b, p) ^ words[6 * id]) & words[6 * id + 1])
                  | ((Swar.word(b, p + 8) ^ words[6 * id + 2]) & words[6 * id + 3])
                  | ((Swar.word(b, p + 16) ^ words[6 * id + 4]) & words[6 * id + 5]))
              == 0) {
        p += lengths[id]; // after the colon of the name guessed, before the end
      } else {
        p = searchedName(b, p, end, prev);
        if (p < 0) {
          return p;
        }
        id = searchedId;
      }
      prev = id;
      byte c = b[p];
      if (c <= ' ') {
        p = ws(b, p, end);
        if (p >= end) {
          return ~p;
        }
        c = b[p];
      }
      if (c == '"') {
        int s = p + 1;
        int q = s;
        while (true) {
          if (q + 16 > end) {
            q = Swar.toLook(b, q, end);
            break;
          }
          long m0 = Swar.stringFlags(b, q);
          long m1 = Swar.stringFlags(b, q + 8);
          if ((m0 | m1) != 0) {
            int t = Long.numberOfTrailingZeros(m0);
            t += Long.numberOfTrailingZeros(m1) & -(t >>> 6); // m1's only when m0 has none
            q += t >>> 3;
            break;
          }
          q += 16;
        }
        if (q >= end || b[q] != '"' || q - s > maxStringBytes) {
          q = string(b, s, q, end);
        }
        p = q + 1;
        if (q < 0) {
          return q;
        }
      } else if ((c >= '0' && c <= '9') || c == '-') {
        int r = -1;
        if (ScanTuning.X9) {
          r = skipNumberFast(b, p, end);
        } else if (p + NUMBER_WORDS <= end && maxNumberChars >= NUMBER_WORDS) {
          int q = p + ((((c ^ '-') & 0xFF) - 1) >>> 31); // after a minus sign
          long w = Swar.word(b, q);
          int k = Swar.digitCount(w);
          if (k == 8) {
            k += Swar.digitCount(Swar.word(b, q + 8));
          }
          if (k > 0 && k < 16 && (((int) w & 0xFF) != '0' || k == 1)) {
            int a = b[q + k];
            if (a == '.') {
              int f = q + k + 1;
              int d = Swar.digitCount(Swar.word(b, f));
              if (d > 0 && d < 8 && (b[f + d] | 0x20) != 'e') {
                r = f + d;
              }
            } else if ((a | 0x20) != 'e') {
              r = q + k;
            }
          }
        }
        p = r >= 0 ? r : numberAt(b, p, end);
      } else if (c == '{') {
        p = objectF(b, p + 1, end, depth + 1, id);
      } else if (c == '[') {
        p = arrayF(b, p + 1, end, depth + 1, id);
      } else {
        p = literalAt(b, p, end);
      }
      if (p >= end | p < 0) {
        return p < 0 ? p : ~p;
      }
      c = b[p];
      if (c == ',') {
        if (++p >= end) {
          return ~p;
        }
        continue;
      }
      if (c == '}') {
        return p + 1;
      }
      if (c > ' ') {
        return ~p;
      }
      p = ws(b, p, end);
      if (p >= end) {
        return ~p;
      }
      c = b[p];
      if (c == '}') {
        return p + 1;
      }
      if (c != ',' || ++p >= end) {
        return ~p;
      }
    }
  }

  /** {@link #array} without calls on its usual paths. */
  private int arrayF(byte[] b, int p, int end, int depth, int name) {
    if (depth > maxDepth) {
      return fail(BadRecord.TOO_DEEP, p - 1);
    }
    if (p >= end) {
      return ~p;
    }
    byte c = b[p];
    if (c <= ' ') {
      p = ws(b, p, end);
      if (p >= end) {
        return ~p;
      }
      c = b[p];
    }
    if (c == ']') {
      return p + 1;
    }
    while (true) {
      // p < end, c = b[p]
      if (c == '"') {
        int s = p + 1;
        int q = s;
        while (true) {
          if (q + 16 > end) {
            q = Swar.toLook(b, q, end);
            break;
          }
          long m0 = Swar.stringFlags(b, q);
          long m1 = Swar.stringFlags(b, q + 8);
          if ((m0 | m1) != 0) {
            int t = Long.numberOfTrailingZeros(m0);
            t += Long.numberOfTrailingZeros(m1) & -(t >>> 6); // m1's only when m0 has none
            q += t >>> 3;
            break;
          }
          q += 16;
        }
        if (q >= end || b[q] != '"' || q - s > maxStringBytes) {
          q = string(b, s, q, end);
        }
        p = q + 1;
        if (q < 0) {
          return q;
        }
      } else if ((c >= '0' && c <= '9') || c == '-') {
        int r = -1;
        if (ScanTuning.X9) {
          r = skipNumberFast(b, p, end);
        } else if (p + NUMBER_WORDS <= end && maxNumberChars >= NUMBER_WORDS) {
          int q = p + ((((c ^ '-') & 0xFF) - 1) >>> 31); // after a minus sign
          long w = Swar.word(b, q);
          int k = Swar.digitCount(w);
          if (k == 8) {
            k += Swar.digitCount(Swar.word(b, q + 8));
          }
          if (k > 0 && k < 16 && (((int) w & 0xFF) != '0' || k == 1)) {
            int a = b[q + k];
            if (a == '.') {
              int f = q + k + 1;
              int d = Swar.digitCount(Swar.word(b, f));
              if (d > 0 && d < 8 && (b[f + d] | 0x20) != 'e') {
                r = f + d;
              }
            } else if ((a | 0x20) != 'e') {
              r = q + k;
            }
          }
        }
        p = r >= 0 ? r : numberAt(b, p, end);
      } else if (c == '{') {
        p = objectF(b, p + 1, end, depth + 1, name);
      } else if (c == '[') {
        p = arrayF(b, p + 1, end, depth + 1, name);
      } else {
        p = literalAt(b, p, end);
      }
      if (p >= end | p < 0) {
        return p < 0 ? p : ~p;
      }
      c = b[p];
      if (c != ',') {
        if (c == ']') {
          return p + 1;
        }
        if (c > ' ') {
          return ~p;
        }
        p = ws(b, p, end);
        if (p >= end) {
          return ~p;
        }
        c = b[p];
        if (c == ']') {
          return p + 1;
        }
        if (c != ',') {
          return ~p;
        }
      }
      if (++p >= end) {
        return ~p;
      }
      c = b[p];
      if (c <= ' ') {
        p = ws(b, p, end);
        if (p >= end) {
          return ~p;
        }
        c = b[p];
      }
    }
  }

  /** A literal at {@code p}, or what is not a value there; returns the index after it. */
  private int literalAt(byte[] b, int p, int end) {
    if (p + 8 <= end) {
      long w = Swar.word(b, p);
      int four = (int) w;
      if (four == TRUE_QUAD || four == NULL_QUAD) {
        return p + 4;
      }
      if ((w & 0xFFFFFFFFFFL) == FALSE_WORD) {
        return p + 5;
      }
    }
    byte c = b[p];
    return c == 't' || c == 'f' || c == 'n' ? literal(b, p, end) : notAValue(b, p, end);
  }

  /**
   * The literal true, false or null whose first byte is at {@code p}; returns the index after it.
   */
  private static int literal(byte[] b, int p, int end) {
    switch (b[p]) {
      case 't':
        if (p + 3 < end && Swar.quad(b, p) == TRUE_QUAD) {
          return p + 4;
        }
        return literalError(b, p, end, TRUE_BYTES);
      case 'f':
        if (p + 4 < end && Swar.quad(b, p + 1) == ALSE_QUAD) {
          return p + 5;
        }
        return literalError(b, p, end, FALSE_BYTES);
      default:
        if (p + 3 < end && Swar.quad(b, p) == NULL_QUAD) {
          return p + 4;
        }
        return literalError(b, p, end, NULL_BYTES);
    }
  }

  /**
   * The literal true, false or null at {@code p}, told apart without a branch on which it is (they
   * come in no order a predictor learns); else what is not a value there.
   */
  private int literalX(byte[] b, int p, int end) {
    if (p + 8 <= end) {
      long w = Swar.word(b, p);
      long w4 = w & 0xFFFFFFFFL;
      int n = ((isZero(w4 ^ TRUE_QUAD) | isZero(w4 ^ NULL_QUAD)) << 2)
          + isZero((w & 0xFFFFFFFFFFL) ^ FALSE_WORD) * 5;
      if (n != 0) {
        return p + n;
      }
    }
    byte c = b[p];
    return c == 't' || c == 'f' || c == 'n' ? literal(b, p, end) : notAValue(b, p, end);
  }

  /** 1 when {@code x} is 0, else 0. */
  private static int isZero(long x) {
    return (int) (((x | -x) >>> 63) ^ 1);
  }

  private static final long FALSE_WORD = 'f' | (long) ('a' | 'l' << 8 | 's' << 16 | 'e' << 24) << 8;

  /** The literals' bytes as {@link Swar#quad} reads them: four compared at once. */
  private static final int TRUE_QUAD = 't' | 'r' << 8 | 'u' << 16 | 'e' << 24,
      ALSE_QUAD = 'a' | 'l' << 8 | 's' << 16 | 'e' << 24,
      NULL_QUAD = 'n' | 'u' << 8 | 'l' << 16 | 'l' << 24;

  private static final byte[] TRUE_BYTES = {'t', 'r', 'u', 'e'};
  private static final byte[] FALSE_BYTES = {'f', 'a', 'l', 's', 'e'};
  private static final byte[] NULL_BYTES = {'n', 'u', 'l', 'l'};

  /** Where a literal that {@link #literal} did not find whole goes wrong: ~ that index. */
  private static int literalError(byte[] b, int p, int end, byte[] word) {
    for (int i = 1; i < word.length; i++) {
      if (p + i >= end || b[p + i] != word[i]) {
        return ~(p + i);
      }
    }
    return p + word.length; // not reached: the literal is whole
  }

  /** The byte at {@code p} cannot start a value. */
  private int notAValue(byte[] b, int p, int end) {
    return notANumber(b, p, end) ? fail(BadRecord.NOT_A_NUMBER, p) : ~p;
  }

  /**
   * Checks a number, {@code -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?} of at most {@link
   * #maxNumberChars} characters, without computing it; returns the index after it.
   */
  private int skipNumber(byte[] b, int p, int end) {
    if (ScanTuning.NUMBERS) {
      return skipNumberFast(b, p, end);
    }
    if (p + 8 <= end && maxNumberChars >= 7) {
      // most numbers: an integer of one to seven digits, read from one word
      long w = Swar.word(b, p);
      int k = Swar.digitCount(w);
      if (k > 0 && k < 8) {
        int first = (int) w & 0xFF;
        int after = (int) (w >>> (8 * k)) & 0xFF;
        if ((first != '0' || k == 1) && after != '.' && (after | 0x20) != 'e') {
          return p + k;
        }
      }
    }
    int q = integerPart(b, p, end);
    return q < 0 ? q : afterIntegerPart(b, p, q, end);
  }

  private int skipNumberFast(byte[] b, int p, int end) {
    if (p + 32 <= end && maxNumberChars >= 32) {
      int q = p + ((((b[p] ^ '-') & 0xFF) - 1) >>> 31); // after a minus sign
      long w = Swar.word(b, q);
      int k = Swar.digitCount(w);
      if (k == 8) {
        k += Swar.digitCount(Swar.word(b, q + 8));
      }
      if (k > 0 && k < 16 && (((int) w & 0xFF) != '0' || k == 1)) {
        int a = b[q + k];
        if (a == '.') {
          int f = q + k + 1;
          int d = Swar.digitCount(Swar.word(b, f));
          if (d > 0 && d < 8 && (b[f + d] | 0x20) != 'e') {
            return f + d;
          }
        } else if ((a | 0x20) != 'e') {
          return q + k;
        }
      }
    }
    return numberAt(b, p, end);
  }

  private int numberAt(byte[] b, int p, int end) {
    int q = integerPart(b, p, end);
    return q < 0 ? q : afterIntegerPart(b, p, q, end);
  }

  /**
   * The sign and the digits of the integer part of the number at {@code p}; returns the index after
   * them.
   */
  private int integerPart(byte[] b, int p, int end) {
    int start = p;
    if (b[p] == '-' && ++p >= end) {
      return ~p;
    }
    int d = b[p] - '0';
    if (d == 0) {
      return p + 1;
    }
    if (d > 0 && d <= 9) {
      return Swar.digits(b, p + 1, end);
    }
    return notAValue(b, start, end);
  }

  /**
   * The fraction and the exponent, if any, of the number at {@code start} whose integer part ends
   * at {@code p}, and its length checked; returns the index after the number.
   */
  private int afterIntegerPart(byte[] b, int start, int p, int end) {
    if (p < end && b[p] == '.') {
      int first = ++p;
      p = Swar.digits(b, p, end);
      if (p == first) {
        return ~p;
      }
    }
    if (p < end && (b[p] | 0x20) == 'e') {
      p++;
      if (p < end && (b[p] == '+' || b[p] == '-')) {
        p++;
      }
      int first = p;
      p = Swar.digits(b, p, end);
      if (p == first) {
        return ~p;
      }
    }
    return p - start > maxNumberChars ? fail(BadRecord.NUMBER_TOO_LONG, start) : p;
  }

  /** {@code p} is after the '{'; the object is (in) the value of the name {@code name}. */
  private int object(byte[] b, int p, int end, int depth, int name) {
    if (depth > maxDepth) {
      return fail(BadRecord.TOO_DEEP, p - 1);
    }
    p = ws(b, p, end);
    if (p >= end) {
      return ~p;
    }
    if (b[p] == '}') {
      return p + 1;
    }
    int prev = NameMemo.firstOf(name);
    while (true) {
      int id = memo.guess(prev);
      int after = memo.member(b, p, end, id); // after the colon, when the name is the one guessed
      if (after >= 0) {
        p = after;
      } else {
        if (b[p] != '"') {
          return ~p;
        }
        int q = string(b, p + 1, end);
        if (q < 0) {
          return q;
        }
        if (q - p - 1 > maxNameBytes) {
          return fail(BadRecord.NAME_TOO_LONG, p + 1);
        }
        id = memo.learn(b, p + 1, q, escaped, prev, fields);
        p = q + 1;
        if (p >= end) {
          return ~p;
        }
        if (b[p] != ':') {
          p = ws(b, p, end);
          if (p >= end || b[p] != ':') {
            return ~p;
          }
        }
        p++;
      }
      prev = id;
      if (p >= end) {
        return ~p;
      }
      if (b[p] <= ' ') {
        p = ws(b, p, end);
        if (p >= end) {
          return ~p;
        }
      }
      p = skip(b, p, end, depth, id);
      if (p < 0 || p >= end) {
        return p < 0 ? p : ~p;
      }
      byte c = b[p];
      if (c != ',' && c != '}') {
        p = ws(b, p, end);
        if (p >= end) {
          return ~p;
        }
        c = b[p];
      }
      if (c == '}') {
        return p + 1;
      }
      if (c != ',') {
        return ~p;
      }
      if (++p >= end) {
        return ~p;
      }
      if (b[p] <= ' ') {
        p = ws(b, p, end);
        if (p >= end) {
          return ~p;
        }
      }
    }
  }

  /** {@code p} is after the '['; the array is (in) the value of the name {@code name}. */
  private int array(byte[] b, int p, int end, int depth, int name) {
    if (depth > maxDepth) {
      return fail(BadRecord.TOO_DEEP, p - 1);
    }
    p = ws(b, p, end);
    if (p >= end) {
      return ~p;
    }
    if (b[p] == ']') {
      return p + 1;
    }
    while (true) {
      p = skip(b, p, end, depth, name);
      if (p < 0 || p >= end) {
        return p < 0 ? p : ~p;
      }
      byte c = b[p];
      if (c != ',' && c != ']') {
        p = ws(b, p, end);
        if (p >= end) {
          return ~p;
        }
        c = b[p];
      }
      if (c == ']') {
        return p + 1;
      }
      if (c != ',') {
        return ~p;
      }
      if (++p >= end) {
        return ~p;
      }
      if (b[p] <= ' ') {
        p = ws(b, p, end);
        if (p >= end) {
          return ~p;
        }
      }
    }
  }

  /**
   * A number: {@code -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?}, checked as {@link #skipNumber}
   * does. Sets {@link #kind} and, for an integer of at most {@value #LONG_DIGITS} digits, {@link
   * #number}: the digits are read once to check them and once more to compute them, only then. What
   * follows is checked by the caller (a delimiter must).
   */
  private int number(byte[] b, int p, int end) {
    int q = integerPart(b, p, end);
    if (q < 0) {
      return q;
    }
    int after = afterIntegerPart(b, p, q, end);
    if (after != q) {
      if (after >= 0) {
        kind = DECIMAL; // a fraction or an exponent followed the integer part
      }
      return after;
    }
    if (q - p - (b[p] == '-' ? 1 : 0) <= LONG_DIGITS) {
      kind = INTEGER;
      number = JsonDecoder.parseLong(b, p, q);
    } else {
      kind = BIG_INTEGER;
    }
    return q;
  }

  /**
   * A string from {@code p}, just after its opening quote, to its closing quote, whose index is
   * returned. Sets {@link #escaped}. Eight bytes are tested at a time for the bytes that need a
   * look: a quote, a backslash, a control character (not allowed) or the first byte of a multi-byte
   * UTF-8 sequence (checked).
   */
  private int string(byte[] b, int p, int end) {
    return string(b, p, p, end);
  }

  /**
   * {@link #string(byte[], int, int)} of the string from {@code start}, whose bytes before {@code
   * p} need no look (none is a quote, a backslash, a control character or beyond ASCII).
   */
  private int string(byte[] b, int start, int p, int end) {
    boolean esc = false;
    while (true) {
      p = Swar.toLook(b, p, end);
      if (p >= end) {
        return ~p;
      }
      byte c = b[p];
      if (c == '"') {
        if (p - start > maxStringBytes) {
          return fail(BadRecord.TOO_LONG, start);
        }
        escaped = esc;
        return p;
      }
      if (c == '\\') {
        esc = true;
        p = escape(b, p + 1, end);
      } else if (c < 0) {
        int q = Utf8.sequence(b, p, end);
        p = q < 0 ? notUtf8(b, p, end) : q;
      } else {
        return ~p; // a control character
      }
      if (p < 0) {
        return p;
      }
    }
  }

  /** Bytes at {@code p} that are not a UTF-8 sequence: ~p, for why. */
  private int notUtf8(byte[] b, int p, int end) {
    return fail(Utf8.cutShort(b, p, end) ? BadRecord.TRUNCATED : BadRecord.INVALID_UTF8, p);
  }

  /**
   * The escape whose backslash is before {@code p}; returns the index after it. Any escape of a
   * UTF-16 code unit (u and four hex digits) is one: a surrogate, paired or not, is kept as the
   * string's code unit.
   */
  private static int escape(byte[] b, int p, int end) {
    if (p >= end) {
      return ~p;
    }
    switch (b[p]) {
      case '"':
      case '\\':
      case '/':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't':
        return p + 1;
      case 'u':
        for (int i = 1; i <= 4; i++) {
          if (p + i >= end || Swar.hex(b[p + i]) < 0) {
            return ~(p + i);
          }
        }
        return p + 5;
      default:
        return ~p;
    }
  }

  /** Skips JSON whitespace (space, tab, line feed, carriage return). */
  private static int ws(byte[] b, int p, int end) {
    while (p < end) {
      byte c = b[p];
      if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
        p++;
      } else {
        break;
      }
    }
    return p;
  }

  @Override
  public String toString() {
    return "JsonScanner" + Arrays.toString(Arrays.copyOf(order, found));
  }
}
