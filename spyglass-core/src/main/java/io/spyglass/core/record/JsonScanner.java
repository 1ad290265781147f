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
    int start = p;
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
