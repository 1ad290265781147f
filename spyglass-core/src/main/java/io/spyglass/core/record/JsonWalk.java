package io.spyglass.core.record;

/**
 * The grammar of the scan ({@link JsonScanner}): strings, numbers, literals, and the loops that
 * step over nested objects and arrays, checking every byte and keeping nothing.
 *
 * <p>The loops call nothing on their usual paths (a name guessed by the {@link NameMemo}, a string
 * of ASCII, a number of at most 15 integer and 7 fraction digits, a literal), so that the compiler
 * keeps their state in registers: a call in a loop makes it spill and reload everything around
 * every call, and the methods it inlines are limited. What is not usual (a name not guessed,
 * escapes, multi-byte characters, longer numbers, whitespace, errors) is handed to the methods
 * below, which check it as a search from the start would. Each step is exact: a guess or a fast
 * path is taken only when the bytes are what the search would have found and checked, so the walk
 * accepts and refuses the same bytes, with the same reasons at the same places.
 *
 * <p>The grammar's methods return the index after what they scanned, or {@code ~i} for the index i
 * of the first error (negative), which their callers return as it is (see {@link
 * JsonScanner#reason()}).
 */
abstract class JsonWalk {
  /** Kinds of values, as the scan reports those of the fields it looks for. */
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

  /**
   * Numbers are read by words (sign, integer part, fraction, from two or three words) when their
   * limit allows this many characters and as many bytes are left: the longest they read is 24.
   */
  static final int NUMBER_WORDS = 32;

  int maxDepth;
  int maxStringBytes;
  int maxNameBytes;
  int maxNumberChars;

  /** Why the last scan failed (where: see {@link JsonScanner#failedAt()}); null when it did not. */
  BadRecord reason;

  /** The names of the records before, to guess the names of the next. */
  final NameMemo memo = new NameMemo();

  /** The field table of the scan, for the memo to learn the slots of the names. */
  FieldTable fields = FieldTable.EMPTY;

  // Results of the last value or name scanned, read by their callers.
  byte kind;
  int valueStart;
  int valueEnd;
  long number;
  boolean escaped;
  int searchedId;

  /** Bounds the records from the next scan on. */
  void limits(JsonRecordReader.Limits limits) {
    memo.clear(); // its names were found valid under the limits before
    maxDepth = limits.maxDepth();
    maxStringBytes = limits.maxStringLength();
    maxNameBytes = limits.maxNameBytes();
    maxNumberChars = limits.maxNumberChars();
  }

  /** An error of a reason of its own at {@code at}: returns {@code ~at}. */
  final int fail(BadRecord why, int at) {
    reason = why;
    return ~at;
  }

  // ------------------------------------------------------------------ nested values

  /**
   * The members of an object whose '{' is before {@code p}, stepped over; the object is (in) the
   * value of the name {@code name}. Returns the index after its '}'.
   */
  final int object(byte[] b, int p, int end, int depth, int name) {
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
    long[] cells = memo.cells;
    int at = NameMemo.firstOf(name);
    // the first name, compared from the byte before it (a brace or a space: not compared)
    long g = cells[at];
    int id = NameMemo.guessed(g);
    int cell = NameMemo.STRIDE * id;
    if (id >= 0
        && p + NameMemo.WINDOW <= end
        && (((Swar.word(b, p - 1) ^ cells[cell]) & cells[cell + 1] & ~0xFFL)
                | ((Swar.word(b, p + 7) ^ cells[cell + 2]) & cells[cell + 3])
                | (NameMemo.guessedLength(g) > 16
                    ? (Swar.word(b, p + 15) ^ cells[cell + 4]) & cells[cell + 5]
                    : 0))
            == 0) {
      p += NameMemo.guessedLength(g) - 1; // after the colon of the name guessed, before the end
    } else {
      p = searchedName(b, p, end, at);
      if (p < 0) {
        return p;
      }
      id = searchedId;
    }
    while (true) {
      at = NameMemo.after(id);
      byte c = b[p];
      if (c <= ' ') {
        p = ws(b, p, end);
        if (p >= end) {
          return ~p;
        }
        c = b[p];
      }
      // the value, as in array() and in the scanner's top-level loop
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
        p = q + 1;
        if (q < 0) {
          return q;
        }
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
          return p;
        }
      } else if (c == '{') {
        if ((p = object(b, p + 1, end, depth + 1, id)) < 0) {
          return p;
        }
      } else if (c == '[') {
        if ((p = array(b, p + 1, end, depth + 1, id)) < 0) {
          return p;
        }
      } else if ((p = literal(b, p, end)) < 0) {
        return p;
      }
      // p <= end (the fast paths end before it); the next member: its comma and its name guessed,
      // compared at once (the window ends before the end)
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
        continue;
      }
      if (p >= end) {
        return ~p;
      }
      c = b[p];
      if (c != ',') {
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
      }
      if (++p >= end) {
        return ~p;
      }
      p = searchedName(b, p, end, at);
      if (p < 0) {
        return p;
      }
      id = searchedId;
    }
  }

  /**
   * The values of an array whose '[' is before {@code p}, stepped over; the array is (in) the value
   * of the name {@code name}. Returns the index after its ']'.
   */
  final int array(byte[] b, int p, int end, int depth, int name) {
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
      // p < end, c = b[p]; the value, as in object()
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
        p = q + 1;
        if (q < 0) {
          return q;
        }
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
          return p;
        }
      } else if (c == '{') {
        if ((p = object(b, p + 1, end, depth + 1, name)) < 0) {
          return p;
        }
      } else if (c == '[') {
        if ((p = array(b, p + 1, end, depth + 1, name)) < 0) {
          return p;
        }
      } else if ((p = literal(b, p, end)) < 0) {
        return p;
      }
      if (p >= end) {
        return ~p;
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

  /**
   * The member at {@code p} (before {@code end}) of an object whose name was not guessed: its name
   * searched for and learned (its id in {@link #searchedId}) and its colon; returns the index after
   * the colon, before the end.
   */
  final int searchedName(byte[] b, int p, int end, int at) {
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
    searchedId = memo.learn(b, p + 1, q, escaped, at, fields);
    return colon(b, q + 1, end);
  }

  /** The colon after a name that ends before {@code p}: the index after it, before the end. */
  static int colon(byte[] b, int p, int end) {
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

  // ------------------------------------------------------------------ values

  /**
   * The value at {@code p} (before {@code end}, not whitespace), in the value of the top-level name
   * {@code name}, checked and described: sets {@link #kind} and, for a string, {@link #valueStart}
   * and {@link #valueEnd}, for an integer, {@link #number}. Returns the index after it.
   */
  final int value(byte[] b, int p, int end, int name) {
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
      return numberOf(b, p, end);
    }
    switch (c) {
      case '{':
        kind = OBJECT;
        return object(b, p + 1, end, 2, name);
      case '[':
        kind = ARRAY;
        return array(b, p + 1, end, 2, name);
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
   * The literal true, false or null at {@code p} (four or five bytes compared at once), or what is
   * not a value there; returns the index after it.
   */
  final int literal(byte[] b, int p, int end) {
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
    switch (b[p]) {
      case 't':
        return literalError(b, p, end, TRUE_BYTES);
      case 'f':
        return literalError(b, p, end, FALSE_BYTES);
      case 'n':
        return literalError(b, p, end, NULL_BYTES);
      default:
        return notAValue(b, p, end);
    }
  }

  /** The literals' bytes as {@link Swar#word} reads them. */
  private static final int TRUE_QUAD = 't' | 'r' << 8 | 'u' << 16 | 'e' << 24,
      NULL_QUAD = 'n' | 'u' << 8 | 'l' << 16 | 'l' << 24;

  private static final long FALSE_WORD = 'f' | (long) ('a' | 'l' << 8 | 's' << 16 | 'e' << 24) << 8;

  private static final byte[] TRUE_BYTES = {'t', 'r', 'u', 'e'};
  private static final byte[] FALSE_BYTES = {'f', 'a', 'l', 's', 'e'};
  private static final byte[] NULL_BYTES = {'n', 'u', 'l', 'l'};

  /**
   * Where a literal that starts as {@code word} does goes wrong, or the index after it when it is
   * whole (at the end of the bytes, where the words of {@link #literal} are not read).
   */
  private static int literalError(byte[] b, int p, int end, byte[] word) {
    for (int i = 1; i < word.length; i++) {
      if (p + i >= end || b[p + i] != word[i]) {
        return ~(p + i);
      }
    }
    return p + word.length;
  }

  /** The byte at {@code p} cannot start a value. */
  final int notAValue(byte[] b, int p, int end) {
    return notANumber(b, p, end) ? fail(BadRecord.NOT_A_NUMBER, p) : ~p;
  }

  /**
   * Whether a value starting at {@code p} starts as {@code NaN} or {@code Infinity} do, with a sign
   * or not: numbers that JSON does not have.
   */
  static boolean notANumber(byte[] b, int p, int end) {
    if (b[p] == '-' || b[p] == '+') {
      p++;
    }
    return p < end && (b[p] == 'N' || b[p] == 'I');
  }

  /**
   * Checks a number, {@code -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?} of at most {@link
   * #maxNumberChars} characters, without computing it; returns the index after it.
   */
  final int number(byte[] b, int p, int end) {
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

  /**
   * A number, checked as {@link #number} does, and described: sets {@link #kind} and, for an
   * integer of at most {@value #LONG_DIGITS} digits, {@link #number} (the digits are read once to
   * check them and once more to compute them, only then). What follows is checked by the caller (a
   * delimiter must).
   */
  private int numberOf(byte[] b, int p, int end) {
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
  final int string(byte[] b, int p, int end) {
    return string(b, p, p, end);
  }

  /**
   * {@link #string(byte[], int, int)} of the string from {@code start}, whose bytes before {@code
   * p} need no look (none is a quote, a backslash, a control character or beyond ASCII).
   */
  final int string(byte[] b, int start, int p, int end) {
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
  static int ws(byte[] b, int p, int end) {
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
}
