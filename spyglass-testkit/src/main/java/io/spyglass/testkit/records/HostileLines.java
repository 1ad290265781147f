package io.spyglass.testkit.records;

import java.io.ByteArrayOutputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random lines of JSON made to find where a reader differs from a strict one: valid records over a
 * few field names that queries read ({@code id}, {@code n}, {@code s}, {@code m} with its member
 * {@code k}, {@code b}) and others they do not ({@code z}), written in varied ways (key order,
 * whitespace, escapes, names repeated, numbers of every form); and every kind of hostile line: a
 * UTF-8-encoded surrogate in a field no query reads, names starting with byte 0xFF, UTF-16 and
 * UTF-32 text, overlong and out-of-range UTF-8, unpaired surrogate escapes, numbers of 101 to 1,001
 * characters, names of 50,001 and 65,537 bytes, -0.0 and integers beyond 2^53, byte-order marks,
 * deep nesting, NaN, NUL bytes, truncated and damaged lines. Deterministic for a seed.
 */
public final class HostileLines {
  /** One line and the kind of line it was made as (for messages). */
  public record Line(String kind, byte[] bytes) {
    public String text() {
      String t = new String(bytes, StandardCharsets.ISO_8859_1);
      return kind + ": " + (t.length() > 160 ? t.substring(0, 160) + "..." : t);
    }
  }

  /**
   * String values, as Java strings; written raw or escaped (unpaired surrogates always escaped).
   */
  static final String[] STRINGS = {
    "v", "a", "é", "x y", "", "😀", "中文", "\ud800", "\udc00\ud83d", "\ud83dA", "v\"q", "?", "a\nb"
  };

  /** Numbers as written in JSON. */
  static final String[] NUMBERS = {
    "0",
    "-0",
    "0.0",
    "-0.0",
    "0e0",
    "-0E-0",
    "1",
    "-1",
    "1.5",
    "-1.5",
    "100",
    "1e2",
    "1.0E+2",
    "9007199254740992",
    "9007199254740993",
    "9007199254740992.0",
    "9007199254740993.0",
    "9007199254740994",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "-9223372036854775809",
    "9223372036854775807.0",
    "18446744073709551616",
    "1e300",
    "1e400",
    "-1e400",
    "1e-400",
    "4.9e-324",
    "123456789012345678",
    "1234567890123456789",
    "0.1",
    "1" + "0".repeat(100),
    "-" + "9".repeat(101),
    "1." + "0".repeat(100),
    "1." + "5".repeat(100),
    "1".repeat(1_000),
    "0." + "0".repeat(997) + "1"
  };

  private final Random random;

  public HostileLines(long seed) {
    this.random = new Random(seed);
  }

  /** A random line of a random kind. */
  public Line next() {
    int k = random.nextInt(100);
    if (k < 30) {
      return new Line("record", record());
    }
    if (k < 34) {
      return surrogateInUnreadField();
    }
    if (k < 38) {
      return nameStartingWithFF();
    }
    if (k < 41) {
      return otherEncoding();
    }
    if (k < 47) {
      return badUtf8();
    }
    if (k < 52) {
      return escapes();
    }
    if (k < 56) {
      return longNumber();
    }
    if (k < 57) {
      return longName();
    }
    if (k < 62) {
      return repeated();
    }
    if (k < 65) {
      return byteOrderMark();
    }
    if (k < 68) {
      return deep();
    }
    if (k < 71) {
      return notANumber();
    }
    if (k < 74) {
      return notAnObject();
    }
    if (k < 76) {
      return nul();
    }
    if (k < 84) {
      return truncated();
    }
    return damaged();
  }

  /** {@code n} lines. */
  public List<Line> lines(int n) {
    List<Line> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(next());
    }
    return out;
  }

  // ------------------------------------------------------------------ valid records

  /** A valid record: some of the known fields, in random order, written in varied ways. */
  private byte[] record() {
    return utf8(recordText());
  }

  private String recordText() {
    List<String> fields = new ArrayList<>();
    if (random.nextInt(5) > 0) {
      fields.add(name("id") + ":" + ws() + value(random.nextInt(6) == 0 ? 2 : 0));
    }
    if (random.nextInt(3) > 0) {
      fields.add(name("n") + ":" + ws() + (random.nextInt(8) == 0 ? value(1) : number()));
    }
    if (random.nextInt(2) == 0) {
      fields.add(name("s") + ":" + ws() + string(pick(STRINGS)));
    }
    if (random.nextInt(3) == 0) {
      fields.add(
          name("m")
              + ":"
              + (random.nextInt(5) == 0 ? value(1) : "{" + name("k") + ":" + value(0) + "}"));
    }
    if (random.nextInt(4) == 0) {
      fields.add(name("b") + ":" + (random.nextBoolean() ? "true" : "false"));
    }
    if (random.nextInt(2) == 0) {
      fields.add(name("z") + ":" + value(2));
    }
    java.util.Collections.shuffle(fields, random);
    StringBuilder sb = new StringBuilder(ws()).append('{').append(ws());
    for (int i = 0; i < fields.size(); i++) {
      sb.append(i > 0 ? ws() + "," + ws() : "").append(fields.get(i));
    }
    return sb.append(ws()).append('}').append(ws()).toString();
  }

  /** A value: strings and numbers mostly, and at {@code depth} > 0 maps and lists too. */
  private String value(int depth) {
    int k = random.nextInt(depth > 0 ? 8 : 6);
    switch (k) {
      case 0, 1:
        return string(pick(STRINGS));
      case 2, 3:
        return number();
      case 4:
        return random.nextBoolean() ? (random.nextBoolean() ? "true" : "false") : "null";
      case 5:
        return string("k" + random.nextInt(3));
      case 6:
        {
          StringBuilder sb = new StringBuilder("{");
          for (int i = 0, n = random.nextInt(3); i < n; i++) {
            sb.append(i > 0 ? "," : "")
                .append(name(random.nextBoolean() ? "k" : pick(STRINGS)))
                .append(':')
                .append(value(depth - 1));
          }
          return sb.append('}').toString();
        }
      default:
        {
          StringBuilder sb = new StringBuilder("[");
          for (int i = 0, n = random.nextInt(3); i < n; i++) {
            sb.append(i > 0 ? "," + ws() : "").append(value(depth - 1));
          }
          return sb.append(']').toString();
        }
    }
  }

  private String number() {
    return pick(NUMBERS);
  }

  /** A name written as a JSON string, sometimes with escapes. */
  private String name(String name) {
    return string(name);
  }

  /** {@code s} as a JSON string: escaped where it must be, and at random elsewhere. */
  private String string(String s) {
    StringBuilder sb = new StringBuilder("\"");
    boolean freely = random.nextInt(4) == 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean unpaired =
          Character.isSurrogate(c)
              && !(Character.isHighSurrogate(c)
                  && i + 1 < s.length()
                  && Character.isLowSurrogate(s.charAt(i + 1)))
              && !(Character.isLowSurrogate(c)
                  && i > 0
                  && Character.isHighSurrogate(s.charAt(i - 1)));
      if (c == '"' || c == '\\') {
        sb.append('\\').append(c);
      } else if (c < 0x20 || unpaired || (freely && random.nextBoolean())) {
        sb.append(String.format(random.nextBoolean() ? "\\u%04x" : "\\u%04X", (int) c));
      } else {
        sb.append(c);
      }
    }
    return sb.append('"').toString();
  }

  private String ws() {
    switch (random.nextInt(6)) {
      case 0:
        return " ";
      case 1:
        return "\t\r\n ";
      default:
        return "";
    }
  }

  // ------------------------------------------------------------------ hostile lines

  /** S-1, S-3: a UTF-8-encoded surrogate (not UTF-8) in a field no query reads. */
  private Line surrogateInUnreadField() {
    byte[][] bad = {
      {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0xED, (byte) 0xBF, (byte) 0xBF}
    };
    String id = string(pick(STRINGS));
    return new Line(
        "utf8Surrogate", concat(utf8("{\"id\":" + id + ",\"z\":\"x"), pick(bad), utf8("\"}")));
  }

  /** S-2: a name starting with byte 0xFF, alone or after the name it would be read as. */
  private Line nameStartingWithFF() {
    String[] before = {"{", "{\"id\":\"a\",", "{\"\\u0078\":1,\"id\":\"a\",", "{\"n\":1,"};
    String[] names = {"id", "n", "s", "zz", ""};
    return new Line(
        "nameFF",
        concat(
            utf8(pick(before) + "\""),
            new byte[] {(byte) 0xFF},
            utf8(pick(names) + "\":" + string("v") + "}")));
  }

  /** S-4: a record in UTF-16 or UTF-32, with or without a byte-order mark. */
  private Line otherEncoding() {
    String[] charsets = {"UTF-16BE", "UTF-16LE", "UTF-16", "UTF-32BE", "UTF-32LE"};
    String name = pick(charsets);
    String text = (random.nextBoolean() ? "\ufeff" : "") + recordText();
    return new Line(name, text.getBytes(Charset.forName(name)));
  }

  /** S-5: overlong, out-of-range, stray and cut-short sequences, in a value or a name. */
  private Line badUtf8() {
    byte[][] bad = {
      {(byte) 0xE0, (byte) 0x80, (byte) 0xAF},
      {(byte) 0xC0, (byte) 0x80},
      {(byte) 0xC1, (byte) 0xBF},
      {(byte) 0xF0, (byte) 0x80, (byte) 0x80, (byte) 0xAF},
      {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
      {(byte) 0xF5, (byte) 0x80, (byte) 0x80, (byte) 0x80},
      {(byte) 0x80},
      {(byte) 0xBF},
      {(byte) 0xFE},
      {(byte) 0xC3},
      {(byte) 0xE2, (byte) 0x82},
      {(byte) 0xE9}, // Latin-1
    };
    String[][] places = {
      {"{\"id\":\"", "\"}"},
      {"{\"id\":\"/", "\",\"n\":1}"},
      {"{\"", "id\":\"v\"}"},
      {"{\"id\":\"v\",\"z\":[\"", "\"]}"},
      {"{\"m\":{\"", "k\":\"v\"}}"}
    };
    String[] place = pick(places);
    return new Line("badUtf8", concat(utf8(place[0]), pick(bad), utf8(place[1])));
  }

  /** S-6 and names: unpaired surrogate escapes, escaped names, every escape. */
  private Line escapes() {
    String[] values = {
      "\"\\ud800\"",
      "\"\\ude00\\ud83d\"",
      "\"\\ud83dA\"",
      "\"\\uD83D\\uDE00\"",
      "\"\\u0076\"",
      "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"",
      "\"\\u0000\""
    };
    String[] names = {"\"\\u0069d\"", "\"i\\u0064\"", "\"id\"", "\"\\ud800\"", "\"\\u006e\""};
    StringBuilder sb = new StringBuilder("{");
    for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
      sb.append(i > 0 ? "," : "").append(pick(names)).append(':').append(pick(values));
    }
    return new Line("escapes", utf8(sb.append('}').toString()));
  }

  /** S-7: numbers of 101 to 1,001 characters, in a field read or not. */
  private Line longNumber() {
    String[] numbers = {
      "1".repeat(101),
      "-" + "1".repeat(101),
      "1." + "1".repeat(100),
      "1".repeat(1_000),
      "1".repeat(1_001),
      "-" + "1".repeat(1_000),
      "0." + "1".repeat(999),
      "1e" + "0".repeat(998)
    };
    String field = random.nextBoolean() ? "n" : "big";
    return new Line("longNumber", utf8("{\"id\":\"v\",\"" + field + "\":" + pick(numbers) + "}"));
  }

  /** S-8: names of 50,001 bytes (allowed) and 65,537 bytes (too long). */
  private Line longName() {
    int length = random.nextBoolean() ? 50_001 : 65_537;
    String name = "N".repeat(length);
    String where =
        random.nextBoolean()
            ? "{\"" + name + "\":1,\"id\":\"v\"}"
            : "{\"id\":\"v\",\"z\":{\"" + name + "\":1}}";
    return new Line("longName", utf8(where));
  }

  /** Names repeated, at the top and in maps: the last value wins, at the place of the first. */
  private Line repeated() {
    String[] templates = {
      "{\"id\":%s,\"n\":%s,\"id\":%s}",
      "{\"n\":%s,\"id\":%s,\"n\":%s}",
      "{\"m\":{\"k\":%s,\"j\":1,\"k\":%s},\"id\":%s}",
      "{\"id\":%s,\"\\u0069d\":%s,\"s\":%s}"
    };
    return new Line("repeated", utf8(String.format(pick(templates), value(0), value(0), value(0))));
  }

  private Line byteOrderMark() {
    byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
    byte[] rec = record();
    switch (random.nextInt(3)) {
      case 0:
        return new Line("bom", concat(bom, rec));
      case 1:
        return new Line("bomAfterSpace", concat(utf8(" "), bom, rec));
      default:
        return new Line("bomInside", concat(utf8("{\"id\":\"v\","), bom, utf8("\"n\":1}")));
    }
  }

  private Line deep() {
    int levels = 62 + random.nextInt(4); // 63 and 64 levels are allowed, 65 and 66 not
    String open = random.nextBoolean() ? "[" : "{\"k\":";
    String close = open.equals("[") ? "]" : "}";
    return new Line(
        "deep",
        utf8("{\"id\":\"v\",\"z\":" + open.repeat(levels) + "1" + close.repeat(levels) + "}"));
  }

  private Line notANumber() {
    String[] words = {"NaN", "Infinity", "-Infinity", "+Infinity", "-NaN", "+1", "nan", "Inf"};
    return new Line("notANumber", utf8("{\"id\":\"v\",\"n\":" + pick(words) + "}"));
  }

  private Line notAnObject() {
    String[] texts = {
      "[" + recordText() + "]", "\"text\"", "42", "-1", "null", "true", "", "  ", "x", "}", "[1,"
    };
    return new Line("notAnObject", utf8(pick(texts)));
  }

  private Line nul() {
    byte[] b = record();
    int at = random.nextInt(b.length + 1);
    return new Line("nul", concat(slice(b, 0, at), new byte[] {0}, slice(b, at, b.length)));
  }

  /** A valid line cut anywhere, inside a character too. */
  private Line truncated() {
    byte[] b = random.nextBoolean() ? record() : escapes().bytes();
    return new Line("truncated", slice(b, 0, random.nextInt(b.length + 1)));
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
    0x1f,
    0x7f,
    (byte) 0x80,
    (byte) 0xC3,
    (byte) 0xED,
    (byte) 0xF4,
    (byte) 0xFF,
    '0',
    '-',
    '+',
    '.',
    'e',
    'N',
    'I',
    'u',
    't',
    '/'
  };

  /** A valid line with one to three bytes replaced, inserted or deleted. */
  private Line damaged() {
    byte[] b = record();
    for (int e = 0, n = 1 + random.nextInt(3); e < n; e++) {
      int at = random.nextInt(b.length + 1);
      byte x = INTERESTING[random.nextInt(INTERESTING.length)];
      switch (random.nextInt(3)) {
        case 0 -> {
          if (at < b.length) {
            b = b.clone();
            b[at] = x;
          }
        }
        case 1 -> b = concat(slice(b, 0, at), new byte[] {x}, slice(b, at, b.length));
        default -> {
          if (at < b.length) {
            b = concat(slice(b, 0, at), slice(b, at + 1, b.length));
          }
        }
      }
    }
    return new Line("damaged", b);
  }

  // ------------------------------------------------------------------ helpers

  private <T> T pick(T[] items) {
    return items[random.nextInt(items.length)];
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] slice(byte[] b, int from, int to) {
    return java.util.Arrays.copyOfRange(b, from, to);
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
