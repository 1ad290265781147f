package io.spyglass.testkit.records;

import io.spyglass.core.record.BadRecord;
import io.spyglass.core.record.JsonRecordReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A reference reader of records, written plainly from the specifications for tests to compare the
 * engine's reader with: the bytes are decoded as UTF-8 by the table of well-formed byte sequences
 * of the Unicode standard (table 3-7), then parsed as JSON (RFC 8259) by recursive descent, one
 * character at a time. It gives the map a record is (a name given twice keeps its last value at the
 * place of its first; integers that fit in a long are Long, other numbers Double), or the one
 * reason it is refused, as docs/results.md defines it: {@code tooLong} over the size limit, else
 * {@code binary} for a NUL byte, else {@code invalidUtf8} for bytes that are not UTF-8, else the
 * reason of the first error in the JSON text. Slow, and meant to be obviously right.
 */
public final class StrictJson {
  /** What a line is: a record, or the reason it is refused. */
  public record Verdict(Map<String, Object> record, BadRecord refused) {
    public boolean accepted() {
      return record != null;
    }
  }

  /** Stands for bytes at the end of a line that start a character the end cuts short. */
  private static final int CUT = -1;

  private final JsonRecordReader.Limits limits;

  public StrictJson() {
    this(JsonRecordReader.Limits.DEFAULTS);
  }

  public StrictJson(JsonRecordReader.Limits limits) {
    this.limits = limits;
  }

  public Verdict read(byte[] b) {
    if (b.length > limits.maxRecordBytes()) {
      return new Verdict(null, BadRecord.TOO_LONG);
    }
    for (byte x : b) {
      if (x == 0) {
        return new Verdict(null, BadRecord.BINARY);
      }
    }
    int[] text = decode(b);
    if (text == null) {
      return new Verdict(null, BadRecord.INVALID_UTF8);
    }
    try {
      return new Verdict(new Parser(text).record(), null);
    } catch (Refused r) {
      return new Verdict(null, r.reason);
    }
  }

  /**
   * The code points of {@code b}, ending with {@link #CUT} when the last bytes start a character
   * that the end cuts short; null when the bytes are not UTF-8.
   */
  private static int[] decode(byte[] b) {
    int[] out = new int[b.length];
    int n = 0;
    int i = 0;
    while (i < b.length) {
      int c = b[i] & 0xFF;
      int need;
      int lo = 0x80;
      int hi = 0xBF;
      int cp;
      if (c <= 0x7F) {
        out[n++] = c;
        i++;
        continue;
      } else if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
        cp = c & 0x1F;
      } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        cp = c & 0x0F;
        if (c == 0xE0) {
          lo = 0xA0;
        } else if (c == 0xED) {
          hi = 0x9F;
        }
      } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        cp = c & 0x07;
        if (c == 0xF0) {
          lo = 0x90;
        } else if (c == 0xF4) {
          hi = 0x8F;
        }
      } else {
        return null;
      }
      for (int k = 1; k <= need; k++) {
        if (i + k >= b.length) {
          out[n++] = CUT; // well formed so far, and cut short by the end
          return java.util.Arrays.copyOf(out, n);
        }
        int x = b[i + k] & 0xFF;
        if (x < (k == 1 ? lo : 0x80) || x > (k == 1 ? hi : 0xBF)) {
          return null;
        }
        cp = cp << 6 | (x & 0x3F);
      }
      out[n++] = cp;
      i += need + 1;
    }
    return java.util.Arrays.copyOf(out, n);
  }

  private static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final transient BadRecord reason;

    Refused(BadRecord reason) {
      super(reason.key(), null, false, false);
      this.reason = reason;
    }
  }

  private final class Parser {
    private final int[] s;
    private int p;

    Parser(int[] s) {
      this.s = s;
    }

    private boolean atEnd() {
      return p >= s.length;
    }

    private int peek() {
      return s[p];
    }

    private Refused refuse(BadRecord reason) {
      return new Refused(reason);
    }

    /** Refuses for whatever is at {@code p}: the end (truncated) or a character (malformed). */
    private Refused unexpected() {
      return refuse(atEnd() ? BadRecord.TRUNCATED : BadRecord.MALFORMED_JSON);
    }

    private void ws() {
      while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) {
        p++;
      }
    }

    Map<String, Object> record() {
      if (s.length > 0 && s[0] == 0xFEFF) {
        p = 1; // a byte-order mark, which RFC 8259 lets a parser ignore
      }
      ws();
      if (atEnd()) {
        throw refuse(BadRecord.NOT_AN_OBJECT);
      }
      int c = peek();
      if (c != '{') {
        if (startsNotANumber()) {
          throw refuse(BadRecord.NOT_A_NUMBER);
        }
        if (c == '['
            || c == '"'
            || c == '-'
            || (c >= '0' && c <= '9')
            || c == 't'
            || c == 'f'
            || c == 'n') {
          throw refuse(BadRecord.NOT_AN_OBJECT);
        }
        throw refuse(BadRecord.MALFORMED_JSON);
      }
      Map<String, Object> m = object(1);
      ws();
      if (!atEnd()) {
        throw refuse(BadRecord.MALFORMED_JSON);
      }
      return m;
    }

    /** Whether the text at {@code p} starts as NaN or Infinity, signed or not. */
    private boolean startsNotANumber() {
      int q = p;
      if (s[q] == '-' || s[q] == '+') {
        q++;
      }
      return q < s.length && (s[q] == 'N' || s[q] == 'I');
    }

    /** At '{', at nesting {@code depth}. */
    private Map<String, Object> object(int depth) {
      if (depth > limits.maxDepth()) {
        throw refuse(BadRecord.TOO_DEEP);
      }
      p++;
      Map<String, Object> m = new LinkedHashMap<>();
      ws();
      if (atEnd()) {
        throw unexpected();
      }
      if (peek() == '}') {
        p++;
        return m;
      }
      while (true) {
        if (atEnd() || peek() != '"') {
          throw unexpected();
        }
        int nameStart = p + 1;
        String name = string();
        if (utf8Length(nameStart, p - 1) > limits.maxNameBytes()) {
          throw refuse(BadRecord.NAME_TOO_LONG);
        }
        ws();
        if (atEnd() || peek() != ':') {
          throw unexpected();
        }
        p++;
        ws();
        Object v = value(depth);
        m.put(name, v); // a repeated name keeps its first place and takes the last value
        ws();
        if (atEnd()) {
          throw unexpected();
        }
        if (peek() == '}') {
          p++;
          return m;
        }
        if (peek() != ',') {
          throw unexpected();
        }
        p++;
        ws();
      }
    }

    private List<Object> array(int depth) {
      if (depth > limits.maxDepth()) {
        throw refuse(BadRecord.TOO_DEEP);
      }
      p++;
      List<Object> l = new ArrayList<>();
      ws();
      if (atEnd()) {
        throw unexpected();
      }
      if (peek() == ']') {
        p++;
        return l;
      }
      while (true) {
        l.add(value(depth));
        ws();
        if (atEnd()) {
          throw unexpected();
        }
        if (peek() == ']') {
          p++;
          return l;
        }
        if (peek() != ',') {
          throw unexpected();
        }
        p++;
        ws();
      }
    }

    /** A value at {@code p}, inside a container at {@code depth}. */
    private Object value(int depth) {
      if (atEnd()) {
        throw unexpected();
      }
      int c = peek();
      switch (c) {
        case '"':
          return string();
        case '{':
          return object(depth + 1);
        case '[':
          return array(depth + 1);
        case 't':
          word("true");
          return Boolean.TRUE;
        case 'f':
          word("false");
          return Boolean.FALSE;
        case 'n':
          word("null");
          return null;
        default:
          if (c == '-' || (c >= '0' && c <= '9')) {
            return number();
          }
          throw refuse(startsNotANumber() ? BadRecord.NOT_A_NUMBER : BadRecord.MALFORMED_JSON);
      }
    }

    private void word(String w) {
      for (int i = 0; i < w.length(); i++) {
        if (atEnd() || peek() != w.charAt(i)) {
          throw unexpected();
        }
        p++;
      }
    }

    private boolean digit() {
      return !atEnd() && peek() >= '0' && peek() <= '9';
    }

    private Object number() {
      int start = p;
      boolean integral = true;
      if (peek() == '-') {
        p++;
        if (atEnd()) {
          throw unexpected();
        }
        if (!digit()) {
          throw refuse(
              peek() == 'N' || peek() == 'I' ? BadRecord.NOT_A_NUMBER : BadRecord.MALFORMED_JSON);
        }
      }
      if (peek() == '0') {
        p++;
      } else {
        while (digit()) {
          p++;
        }
      }
      if (!atEnd() && peek() == '.') {
        integral = false;
        p++;
        if (!digit()) {
          throw unexpected();
        }
        while (digit()) {
          p++;
        }
      }
      if (!atEnd() && (peek() == 'e' || peek() == 'E')) {
        integral = false;
        p++;
        if (!atEnd() && (peek() == '+' || peek() == '-')) {
          p++;
        }
        if (!digit()) {
          throw unexpected();
        }
        while (digit()) {
          p++;
        }
      }
      if (p - start > limits.maxNumberChars()) {
        throw refuse(BadRecord.NUMBER_TOO_LONG);
      }
      String text = new String(s, start, p - start);
      if (integral) {
        try {
          return Long.parseLong(text);
        } catch (NumberFormatException tooLarge) {
          return Double.parseDouble(text);
        }
      }
      return Double.parseDouble(text);
    }

    /** At the opening quote; leaves {@code p} after the closing one. */
    private String string() {
      p++;
      int start = p;
      StringBuilder out = new StringBuilder();
      while (true) {
        if (atEnd()) {
          throw unexpected();
        }
        int c = peek();
        if (c == '"') {
          if (utf8Length(start, p) > limits.maxStringLength()) {
            throw refuse(BadRecord.TOO_LONG);
          }
          p++;
          return out.toString();
        }
        if (c == '\\') {
          p++;
          if (atEnd()) {
            throw unexpected();
          }
          int e = peek();
          p++;
          switch (e) {
            case '"', '\\', '/' -> out.append((char) e);
            case 'b' -> out.append('\b');
            case 'f' -> out.append('\f');
            case 'n' -> out.append('\n');
            case 'r' -> out.append('\r');
            case 't' -> out.append('\t');
            case 'u' -> {
              int unit = 0;
              for (int i = 0; i < 4; i++) {
                if (atEnd()) {
                  throw unexpected();
                }
                int h = hex(peek());
                if (h < 0) {
                  throw refuse(BadRecord.MALFORMED_JSON);
                }
                unit = unit << 4 | h;
                p++;
              }
              out.append((char) unit); // a surrogate, paired or not, is kept as it is
            }
            default -> {
              p--;
              throw refuse(BadRecord.MALFORMED_JSON);
            }
          }
          continue;
        }
        if (c == CUT) {
          p++; // a character cut short: the string cannot end
          continue;
        }
        if (c < 0x20) {
          throw refuse(BadRecord.MALFORMED_JSON);
        }
        out.appendCodePoint(c);
        p++;
      }
    }

    private static int hex(int c) {
      if (c >= '0' && c <= '9') {
        return c - '0';
      }
      if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
      }
      return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    }

    /** The bytes of {@code s[from, to)} in UTF-8. */
    private int utf8Length(int from, int to) {
      int n = 0;
      for (int i = from; i < to; i++) {
        int c = s[i];
        n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
      }
      return n;
    }
  }
}
