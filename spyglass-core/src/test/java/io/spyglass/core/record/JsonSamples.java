package io.spyglass.core.record;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random JSON records made to be awkward for a hand-written scanner: every kind of value, nesting,
 * names repeated in one object, numbers of every form (big, negative zero, exponents, 18 and 19
 * digits), strings with every escape, control characters, non-ASCII and supplementary characters
 * written raw or as {@code \\u} escapes, unpaired surrogates (escaped), whitespace of every kind
 * between tokens; and the same records damaged byte by byte. Deterministic for a seed.
 */
final class JsonSamples {
  /** Top-level names: few, so that names repeat and selections hit. */
  static final String[] NAMES = {"id", "a", "b", "é", "x y", "k\"q", "longer_name_1", "n", ""};

  private static final String[] STRING_PARTS = {
    "",
    "a",
    "hello",
    "x y",
    "\"",
    "\\",
    "/",
    "\b",
    "\f",
    "\n",
    "\r",
    "\t",
    "\u0000",
    "\u001f",
    "é",
    "ß",
    "中文",
    "😀",
    "\u2028",
    "\uffff",
    "\u0080",
    "abcdefghijklmnop",
    "0123456789",
    "{\"not\":[an,object]}",
    "\\\"",
    "\\u0041",
    "\ud800",
    "\udfff"
  };

  private static final String[] NUMBERS = {
    "0",
    "-0",
    "1",
    "-1",
    "42",
    "123456789012345678",
    "-123456789012345678",
    "1234567890123456789",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "123456789012345678901234567890",
    "0.0",
    "-0.0",
    "1.5",
    "-2.25",
    "3.14159265358979",
    "0.1",
    "0.30000000000000004",
    "1e3",
    "1E3",
    "1e+3",
    "1e-3",
    "-1.5e-7",
    "2.5E10",
    "1e308",
    "1e309",
    "1e-320",
    "1e-400",
    "123456789.123456789",
    "0.000001",
    "100000000000000000000.0",
    "4.9e-324",
    "1.7976931348623157e308",
    "12345678901234567",
    "7.0",
    "1.0e0",
    "0e5"
  };

  private static final String WS = " \t\n\r";

  private final Random random;

  JsonSamples(long seed) {
    this.random = new Random(seed);
  }

  /** A random object with up to {@code fields} top-level fields. */
  byte[] record(int fields) {
    StringBuilder sb = new StringBuilder();
    ws(sb);
    sb.append('{');
    int n = random.nextInt(fields + 1);
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        ws(sb);
        sb.append(',');
      }
      ws(sb);
      string(sb, NAMES[random.nextInt(NAMES.length)], true);
      ws(sb);
      sb.append(':');
      ws(sb);
      value(sb, 3);
    }
    ws(sb);
    sb.append('}');
    ws(sb);
    return utf8(sb);
  }

  /** A record damaged by one to three random edits. */
  byte[] damaged(int fields) {
    byte[] b = record(fields);
    int edits = 1 + random.nextInt(3);
    for (int e = 0; e < edits; e++) {
      b = edit(b);
    }
    return b;
  }

  /** The bytes {@code b} damaged by one to three random edits. */
  byte[] damage(byte[] b) {
    int edits = 1 + random.nextInt(3);
    for (int e = 0; e < edits; e++) {
      b = edit(b);
    }
    return b;
  }

  private static final byte[] INTERESTING = {
    '"',
    '\\',
    '{',
    '}',
    '[',
    ']',
    ',',
    ':',
    ' ',
    '\n',
    0,
    0x1f,
    0x7f,
    (byte) 0x80,
    (byte) 0xbf,
    (byte) 0xc0,
    (byte) 0xc3,
    (byte) 0xe0,
    (byte) 0xed,
    (byte) 0xf0,
    (byte) 0xf4,
    (byte) 0xf8,
    (byte) 0xff,
    '0',
    '1',
    '-',
    '+',
    '.',
    'e',
    't',
    'n',
    'u',
    'x',
    '/'
  };

  private byte[] edit(byte[] b) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int at = b.length == 0 ? 0 : random.nextInt(b.length);
    byte x = INTERESTING[random.nextInt(INTERESTING.length)];
    switch (random.nextInt(4)) {
      case 0 -> { // replace
        out.write(b, 0, b.length);
        byte[] r = out.toByteArray();
        if (r.length > 0) {
          r[at] = x;
        }
        return r;
      }
      case 1 -> { // insert
        out.write(b, 0, at);
        out.write(x);
        out.write(b, at, b.length - at);
      }
      case 2 -> { // delete
        out.write(b, 0, at);
        if (at + 1 <= b.length) {
          out.write(b, Math.min(at + 1, b.length), b.length - Math.min(at + 1, b.length));
        }
      }
      default -> out.write(b, 0, at); // truncate
    }
    return out.toByteArray();
  }

  private void value(StringBuilder sb, int depth) {
    int k = random.nextInt(depth > 0 ? 9 : 6);
    switch (k) {
      case 0, 1 -> string(sb, text(), false);
      case 2, 3 -> sb.append(NUMBERS[random.nextInt(NUMBERS.length)]);
      case 4 -> sb.append(random.nextBoolean() ? "true" : "false");
      case 5 -> sb.append("null");
      case 6, 7 -> {
        sb.append('{');
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
          if (i > 0) {
            ws(sb);
            sb.append(',');
          }
          ws(sb);
          string(sb, random.nextInt(3) == 0 ? text() : NAMES[random.nextInt(NAMES.length)], true);
          ws(sb);
          sb.append(':');
          ws(sb);
          value(sb, depth - 1);
        }
        ws(sb);
        sb.append('}');
      }
      default -> {
        sb.append('[');
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
          if (i > 0) {
            ws(sb);
            sb.append(',');
          }
          ws(sb);
          value(sb, depth - 1);
        }
        ws(sb);
        sb.append(']');
      }
    }
  }

  private String text() {
    StringBuilder sb = new StringBuilder();
    for (int i = 0, n = random.nextInt(4); i < n; i++) {
      sb.append(STRING_PARTS[random.nextInt(STRING_PARTS.length)]);
    }
    return sb.toString();
  }

  /** Writes {@code s} as a JSON string, escaping what must be and, at random, other characters. */
  private void string(StringBuilder sb, String s, boolean name) {
    sb.append('"');
    boolean escapeFreely = random.nextInt(name ? 8 : 3) == 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      // an unpaired surrogate has no UTF-8 form: it can only be written as an escape
      boolean must = c == '"' || c == '\\' || c < 0x20 || Surrogates.isUnpaired(s, i);
      if (must || (escapeFreely && random.nextInt(3) == 0)) {
        switch (c) {
          case '"' -> sb.append(random.nextBoolean() ? "\\\"" : "\\u0022");
          case '\\' -> sb.append(random.nextBoolean() ? "\\\\" : "\\u005C");
          case '\n' -> sb.append(random.nextBoolean() ? "\\n" : "\\u000a");
          case '\t' -> sb.append("\\t");
          case '\r' -> sb.append("\\r");
          case '\b' -> sb.append("\\b");
          case '\f' -> sb.append("\\f");
          case '/' -> sb.append("\\/");
          default -> sb.append(hexEscape(c));
        }
      } else {
        sb.append(c);
      }
    }
    sb.append('"');
  }

  private String hexEscape(char c) {
    String hex = String.format("%04x", (int) c);
    return "\\u" + (random.nextBoolean() ? hex : hex.toUpperCase(java.util.Locale.ROOT));
  }

  private void ws(StringBuilder sb) {
    if (random.nextInt(4) == 0) {
      for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
        sb.append(WS.charAt(random.nextInt(WS.length())));
      }
    }
  }

  private static byte[] utf8(StringBuilder sb) {
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** A random selection of top-level names, sometimes none and sometimes names never written. */
  List<String> selection() {
    List<String> out = new ArrayList<>();
    for (String name : NAMES) {
      if (random.nextInt(3) == 0) {
        out.add(name);
      }
    }
    if (random.nextInt(4) == 0) {
      out.add("absent");
    }
    return out;
  }
}
