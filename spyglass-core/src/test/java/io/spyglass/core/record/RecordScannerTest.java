package io.spyglass.core.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RecordScannerTest {
  private final RecordScanner scanner = new RecordScanner();

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private boolean vouches(String json) {
    byte[] b = utf8(json);
    return scanner.scan(b, 0, b.length);
  }

  /** Agrees with a strict parse, and says whether the scan accepted the record. */
  private boolean agrees(String json, String... selection) {
    RecordScannerProperties.sameAsAStrictParse(utf8(json), List.of(selection));
    scanner.select(Set.of(selection));
    return vouches(json);
  }

  @Test
  void findsSelectedFieldsAndTheirRawValues() {
    scanner.select(Set.of("id", "n", "d", "m", "l", "t", "z", "e"));
    byte[] b =
        utf8(
            "{\"id\":\"abc\",\"skip\":{\"deep\":[1,{\"x\":\"}\"}]},\"n\":-42,\"d\":1.5e3,"
                + "\"m\":{\"k\":1},\"l\":[true,null],\"t\":true,\"z\":null,\"e\":\"a\\\"b\"}");
    assertThat(scanner.scan(b, 0, b.length)).isTrue();
    int id = scanner.slot("id");
    assertThat(scanner.kind(id)).isEqualTo(RecordScanner.STRING);
    assertThat(new String(b, scanner.start(id), scanner.end(id) - scanner.start(id)))
        .isEqualTo("abc");
    assertThat(scanner.kind(scanner.slot("n"))).isEqualTo(RecordScanner.INTEGER);
    assertThat(scanner.longValue(scanner.slot("n"))).isEqualTo(-42);
    assertThat(scanner.value(scanner.slot("d"))).isEqualTo(1500.0);
    assertThat(scanner.kind(scanner.slot("m"))).isEqualTo(RecordScanner.OBJECT);
    assertThat(scanner.value(scanner.slot("l"))).isEqualTo(java.util.Arrays.asList(true, null));
    assertThat(scanner.kind(scanner.slot("t"))).isEqualTo(RecordScanner.TRUE);
    assertThat(scanner.kind(scanner.slot("z"))).isEqualTo(RecordScanner.NULL);
    assertThat(scanner.kind(scanner.slot("e"))).isEqualTo(RecordScanner.ESCAPED_STRING);
    assertThat(scanner.value(scanner.slot("e"))).isEqualTo("a\"b");
    assertThat(scanner.slot("skip")).isEqualTo(-1);
  }

  @Test
  void numbersOfEveryLengthAndWhatFollowsThemAgreeWithAStrictParse() {
    // digits are stepped over eight at a time: every length across the word boundaries, each
    // followed by what ends a number, what continues it, and what makes it malformed
    String[] after = {"}", ",\"y\":1}", " }", ".5}", ".}", "e3}", "E+2}", "e}", "x}", "0}", ":}"};
    for (int n = 1; n <= 25; n++) {
      String digits = "1234567890123456789012345".substring(0, n);
      for (String a : after) {
        for (String sign : new String[] {"", "-"}) {
          for (String field : new String[] {"x", "y"}) {
            agrees("{\"x\":" + sign + digits + a, field);
            agrees("{\"x\":[" + sign + "0." + digits + "]" + a.substring(0, 0) + "}", field);
          }
        }
      }
    }
    scanner.select(Set.of("x"));
    assertThat(vouches("{\"x\":12345678901234567}")).isTrue();
    assertThat(scanner.longValue(scanner.slot("x"))).isEqualTo(12345678901234567L);
    assertThat(vouches("{\"x\":123456789012.5e-3}")).isTrue();
    assertThat(scanner.value(scanner.slot("x"))).isEqualTo(123456789.0125);
    assertThat(vouches("{\"x\":0123}")).isFalse();
    assertThat(vouches("{\"x\":12345678.}")).isFalse();
  }

  @Test
  void aNumbersKindIsSetByItsFractionExponentAndDigitsAsItIsChecked() {
    scanner.select(Set.of("x"));
    int x = scanner.slot("x");
    String[][] cases = {
      {"0", "INTEGER"},
      {"-0", "INTEGER"},
      {"7", "INTEGER"},
      {"-42", "INTEGER"},
      {"123456789012345678", "INTEGER"},
      {"-123456789012345678", "INTEGER"},
      {"1234567890123456789", "BIG_INTEGER"},
      {"-1234567890123456789", "BIG_INTEGER"},
      {"0.5", "DECIMAL"},
      {"-0.0", "DECIMAL"},
      {"1e3", "DECIMAL"},
      {"1E-3", "DECIMAL"},
      {"12345678901234567890.5", "DECIMAL"},
      {"-9e+9", "DECIMAL"}
    };
    for (String[] c : cases) {
      for (String after : new String[] {"}", " }", ",\"y\":1}"}) {
        assertThat(vouches("{\"x\":" + c[0] + after)).as(c[0] + after).isTrue();
        byte kind = scanner.kind(x);
        String name =
            kind == RecordScanner.INTEGER
                ? "INTEGER"
                : kind == RecordScanner.BIG_INTEGER ? "BIG_INTEGER" : "DECIMAL";
        assertThat(name).as(c[0]).isEqualTo(c[1]);
        if (kind == RecordScanner.INTEGER) {
          assertThat(scanner.longValue(x)).as(c[0]).isEqualTo(Long.parseLong(c[0]));
        }
        assertThat(new String(utf8("{\"x\":" + c[0] + after), scanner.start(x), c[0].length()))
            .isEqualTo(c[0]);
        assertThat(scanner.end(x) - scanner.start(x)).isEqualTo(c[0].length());
      }
    }
    for (String bad : new String[] {"-", "-x", "1.", "1.e3", "1e", "1e+", "01", "-01", "+1"}) {
      assertThat(vouches("{\"x\":" + bad + "}")).as(bad).isFalse();
    }
  }

  @Test
  void aNameGivenTwiceInAnyOneObjectIsFoundAsTheStringItSpells() {
    scanner.select(Set.of("id"));
    String[][] cases = {
      {"{}", null},
      {"{\"a\":1,\"b\":2}", null},
      {"{\"a\":1,\"a\":2}", "a"},
      {"{\"a\":1,\"\\u0061\":2}", "a"}, // escapes decoded: one name
      {"{\"\\n\":1,\"\\u000a\":2}", "\n"},
      {"{\"ab\":1,\"ba\":2,\"b\\u0061\":3}", "ba"},
      {"{\"m\":{\"k\":1,\"k\":2}}", "k"}, // nested
      {"{\"l\":[{\"k\":1},{\"k\":2}],\"k\":3}", null}, // one each, in different objects
      {
        "{\"l\":[1,\"x\\\"y\",{\"k\":{\"k\":{}}}],\"m\":{\"k\":true,\"j\":[{\"z\":null,\"z\":0}]}}",
        "z"
      },
      {"{\"s\":\"\\\",\\\"s\\\":\",\"t\":1}", null}, // a name-like string is a value
      {"{\"é\":1,\"\\u00e9\":2}", "é"},
      {"{\"\\ud800\":1,\"\\ud801\":2}", null}
    };
    for (String[] c : cases) {
      assertThat(vouches(c[0])).as(c[0]).isTrue();
      assertThat(scanner.duplicateName()).as(c[0]).isEqualTo(c[1]);
    }
    // objects of many names (compared through a set), the name found twice anywhere among them
    for (int n : new int[] {10, 64, 65, 200}) {
      for (int twice : new int[] {-1, 0, n / 2, n - 1}) {
        StringBuilder json = new StringBuilder("{\"o\":{");
        for (int i = 0; i < n; i++) {
          json.append(i == 0 ? "" : ",").append("\"f").append(i).append("\":").append(i);
        }
        if (twice >= 0) {
          json.append(",\"f").append(twice).append("\":0");
        }
        json.append("},\"f1\":1}");
        assertThat(vouches(json.toString())).isTrue();
        assertThat(scanner.duplicateName())
            .as(n + " names, twice " + twice)
            .isEqualTo(twice < 0 ? null : "f" + twice);
      }
    }
  }

  @Test
  void namesOfEveryLengthAreFoundAndOthersOfTheirLengthAreNot() {
    for (int len : new int[] {0, 1, 2, 7, 8, 9, 62, 63, 64, 65, 100}) {
      String name = "n".repeat(len);
      String other = "o".repeat(len);
      String longer = "n".repeat(len + 1);
      scanner.select(Set.of(name));
      String json = "{\"" + other + "\":1,\"" + longer + "\":2,\"" + name + "\":3}";
      assertThat(vouches(json)).as(json).isTrue();
      assertThat(scanner.longValue(scanner.slot(name))).as(json).isEqualTo(3);
      assertThat(scanner.slot(other)).isEqualTo(len == 0 ? 0 : -1);
    }
  }

  @Test
  void aFieldMissingFromTheNextRecordIsAbsent() {
    scanner.select(Set.of("a"));
    assertThat(vouches("{\"a\":1}")).isTrue();
    assertThat(vouches("{\"b\":1}")).isTrue();
    assertThat(scanner.kind(scanner.slot("a"))).isEqualTo(RecordScanner.ABSENT);
  }

  @Test
  void ordinaryRecordsAreReadByTheScan() {
    assertThat(agrees("{}")).isTrue();
    assertThat(agrees(" {\"a\" : 1 ,\t\"b\":[ ]}\r\n", "a", "b")).isTrue();
    assertThat(agrees("{\"a\":1,\"a\":\"again\"}", "a")).isTrue();
    assertThat(agrees("{\"a\":\"São Paulo 中文 😀\"}", "a")).isTrue();
    assertThat(agrees("{\"é\":{\"ü\":[\"\\u00e9\\n\\/\"]}}", "é")).isTrue();
    assertThat(agrees("{\"a\":9223372036854775807,\"b\":-9223372036854775808}", "a", "b")).isTrue();
    assertThat(agrees("{\"a\":9223372036854775808,\"b\":1e400,\"c\":-0,\"d\":-0.0}", "a", "b"))
        .isTrue();
  }

  @Test
  void malformedRecordsAreRefused() {
    for (String bad :
        List.of(
            "",
            " ",
            "[]",
            "{",
            "}",
            "{\"a\":}",
            "{\"a\" 1}",
            "{\"a\":1,}",
            "{\"a\":1}{}",
            "{\"a\":1} x",
            "{\"a\":01}",
            "{\"a\":1.}",
            "{\"a\":.5}",
            "{\"a\":+1}",
            "{\"a\":-}",
            "{\"a\":1e}",
            "{\"a\":tru}",
            "{\"a\":truex}",
            "{\"a\":NaN}",
            "{\"a\":\"x}",
            "{\"a\":\"\u0001\"}",
            "{\"a\":\"\\x\"}",
            "{\"a\":\"\\u12G4\"}",
            "{'a':1}",
            "{a:1}",
            "{\"a\":[1,]}",
            "{\"a\":[1 2]}",
            "{\"a\":{\"b\"}}",
            " \ufeff{}",
            "{\"a\":1}\u0000")) {
      assertThat(agrees(bad, "a")).as(bad).isFalse();
      scanner.select(Set.of("a"));
      byte[] b = utf8(bad);
      assertThatThrownBy(() -> scanner.read(b, 0, b.length, new Record()))
          .as(bad)
          .isInstanceOf(MalformedRecordException.class);
    }
  }

  /** The reason the scanner gives for {@code b}, selecting {@code a}. */
  private BadRecord reason(byte[] b) {
    scanner.select(Set.of("a"));
    try {
      scanner.read(b, 0, b.length, new Record());
    } catch (MalformedRecordException e) {
      return e.reason();
    }
    throw new AssertionError("read: " + new String(b, StandardCharsets.ISO_8859_1));
  }

  @Test
  void bytesThatAreNotUtf8AreRefusedWhereverTheyAre() {
    byte[][] sequences = {
      {(byte) 0xC3}, // a lead byte without its continuation
      {(byte) 0x80}, // a continuation without its lead
      {(byte) 0xC0, (byte) 0x80}, // overlong U+0000
      {(byte) 0xC1, (byte) 0xBF}, // overlong
      {(byte) 0xE0, (byte) 0x80, (byte) 0xAF}, // overlong '/'
      {(byte) 0xF0, (byte) 0x80, (byte) 0x80, (byte) 0xAF}, // overlong '/'
      {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, // a surrogate
      {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, // above U+10FFFF
      {(byte) 0xF5, (byte) 0x80, (byte) 0x80, (byte) 0x80},
      {(byte) 0xFF}
    };
    for (byte[] seq : sequences) {
      // in a value a query reads, in a value none reads, in a name, in a nested name
      for (String[] around :
          new String[][] {
            {"{\"a\":\"", "\"}"},
            {"{\"a\":1,\"z\":\"", "\"}"},
            {"{\"", "a\":1}"},
            {"{\"z\":[{\"", "\":1}],\"a\":2}"}
          }) {
        byte[] b = concat(utf8(around[0]), seq, utf8(around[1]));
        assertThat(reason(b)).as(Arrays.toString(b)).isEqualTo(BadRecord.INVALID_UTF8);
        RecordScannerProperties.sameAsAStrictParse(b, List.of("a"));
      }
    }
    // a line cut inside a character is truncated, not invalid
    assertThat(reason(concat(utf8("{\"a\":\"x"), new byte[] {(byte) 0xE2, (byte) 0x82})))
        .isEqualTo(BadRecord.TRUNCATED);
    // the bytes are checked before the JSON text: the first error there is later in the line
    assertThat(reason(concat(utf8("{\"a\":x,\"b\":\""), new byte[] {(byte) 0xFF}, utf8("\"}"))))
        .isEqualTo(BadRecord.INVALID_UTF8);
  }

  @Test
  void utf16AndUtf32AreBinary() {
    String json = "{\"a\":\"v\"}";
    for (Charset charset :
        new Charset[] {
          StandardCharsets.UTF_16BE,
          StandardCharsets.UTF_16LE,
          StandardCharsets.UTF_16,
          Charset.forName("UTF-32BE"),
          Charset.forName("UTF-32LE")
        }) {
      assertThat(reason(json.getBytes(charset))).as(charset.name()).isEqualTo(BadRecord.BINARY);
    }
  }

  @Test
  void aByteOrderMarkBeforeTheObjectIsAllowed() throws Exception {
    byte[] b = concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, utf8("{\"a\":1}"));
    scanner.select(Set.of("a"));
    Record r = new Record();
    scanner.read(b, 0, b.length, r);
    assertThat(r.get("a")).isEqualTo(1L);
    assertThat(r.toFullMap()).isEqualTo(Map.of("a", 1L));
    new JsonRecordReader().read(b, 0, b.length, r);
    assertThat(r.get("a")).isEqualTo(1L);
  }

  @Test
  void eachKindOfErrorHasItsReasonAtItsFirstError() {
    Map<String, BadRecord> shapes = new java.util.LinkedHashMap<>();
    shapes.put("", BadRecord.NOT_AN_OBJECT);
    shapes.put("  ", BadRecord.NOT_AN_OBJECT);
    shapes.put("[1,", BadRecord.NOT_AN_OBJECT);
    shapes.put("-1", BadRecord.NOT_AN_OBJECT);
    shapes.put("null", BadRecord.NOT_AN_OBJECT);
    shapes.put("NaN", BadRecord.NOT_A_NUMBER);
    shapes.put("-Infinity", BadRecord.NOT_A_NUMBER);
    shapes.put("x", BadRecord.MALFORMED_JSON);
    shapes.put("{", BadRecord.TRUNCATED);
    shapes.put("{\"a", BadRecord.TRUNCATED);
    shapes.put("{\"a\"", BadRecord.TRUNCATED);
    shapes.put("{\"a\":", BadRecord.TRUNCATED);
    shapes.put("{\"a\":tr", BadRecord.TRUNCATED);
    shapes.put("{\"a\":-", BadRecord.TRUNCATED);
    shapes.put("{\"a\":1.", BadRecord.TRUNCATED);
    shapes.put("{\"a\":1e+", BadRecord.TRUNCATED);
    shapes.put("{\"a\":\"\\u12", BadRecord.TRUNCATED);
    shapes.put("{\"a\":[1,{\"b\":2}", BadRecord.TRUNCATED);
    shapes.put("{\"a\":1,", BadRecord.TRUNCATED);
    shapes.put("{\"a\":trux}", BadRecord.MALFORMED_JSON);
    shapes.put("{\"a\":\"\\u12x4\"}", BadRecord.MALFORMED_JSON);
    shapes.put("{\"a\":1} {", BadRecord.MALFORMED_JSON);
    shapes.put("{\"a\":+1}", BadRecord.MALFORMED_JSON);
    shapes.put("{\"a\":+Infinity}", BadRecord.NOT_A_NUMBER);
    shapes.put("{\"a\":-NaN}", BadRecord.NOT_A_NUMBER);
    shapes.put("{\"a\":Infinity,\"b\":x}", BadRecord.NOT_A_NUMBER);
    shapes.put("{\"a\":x,\"b\":NaN}", BadRecord.MALFORMED_JSON);
    shapes.put("{\"a\":" + "[".repeat(64) + "]".repeat(64) + "}", BadRecord.TOO_DEEP);
    shapes.put("{\"a\":" + "[".repeat(64) + "x", BadRecord.TOO_DEEP);
    shapes.put("{\"a\":" + "[".repeat(10) + "x" + "[".repeat(60), BadRecord.MALFORMED_JSON);
    shapes.put("{\"a\":" + "1".repeat(1_001) + "}", BadRecord.NUMBER_TOO_LONG);
    shapes.put("{\"a\":[0." + "1".repeat(999) + "]}", BadRecord.NUMBER_TOO_LONG);
    shapes.put("{\"" + "n".repeat(65_537) + "\":1}", BadRecord.NAME_TOO_LONG);
    shapes.put("{\"z\":{\"" + "n".repeat(65_537) + "\":1}}", BadRecord.NAME_TOO_LONG);
    for (Map.Entry<String, BadRecord> shape : shapes.entrySet()) {
      String json = shape.getKey();
      assertThat(reason(utf8(json)))
          .as(json.length() > 80 ? json.substring(0, 80) + "..." : json)
          .isEqualTo(shape.getValue());
    }
    assertThat(reason(utf8("{\"a\":\"x\u0000\"}"))).isEqualTo(BadRecord.BINARY);
    assertThat(reason(utf8("{\"a\":\"x\u0001\"}"))).isEqualTo(BadRecord.MALFORMED_JSON);
  }

  private static byte[] concat(byte[]... parts) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  @Test
  void limitsAreGenerousAndTheSameWhateverIsSelected() {
    String deep = "[".repeat(63) + "]".repeat(63); // 64 levels with the record's own object
    assertThat(agrees("{\"a\":" + deep + "}", "a")).isTrue();
    assertThat(agrees("{\"b\":" + deep + "}", "a")).isTrue();
    String longString = "x".repeat(1 << 20);
    assertThat(agrees("{\"a\":\"" + longString + "\"}", "a")).isTrue();
    assertThat(agrees("{\"b\":\"" + longString + "\"}", "a")).isTrue();
    for (int length : new int[] {1_025, 50_001, 65_536}) {
      String name = "n".repeat(length);
      assertThat(agrees("{\"" + name + "\":1,\"a\":2}", "a", name)).as("%d", length).isTrue();
    }
    for (String number :
        List.of(
            "1".repeat(101),
            "-" + "1".repeat(101),
            "1." + "0".repeat(100),
            "1".repeat(1_000),
            "0." + "1".repeat(998),
            "1e" + "0".repeat(998))) {
      assertThat(agrees("{\"a\":" + number + "}", "a")).isTrue();
      assertThat(agrees("{\"b\":" + number + "}", "a")).isTrue();
    }
    assertThat(agrees("{\"\\u0061\":1}", "a")).isTrue();
    assertThat(agrees("{\"a\":\"\\ud83d\\ude00\"}", "a")).isTrue();
    assertThat(agrees("{\"a\":\"\\ud800\",\"b\":\"\\ude00\\ud83d\"}", "a", "b")).isTrue();
  }

  @Test
  void aNameWithEscapesIsTheNameItSpells() throws Exception {
    scanner.select(Set.of("id", "\ud800"));
    Record r = new Record();
    byte[] b = utf8("{\"id\":\"a\",\"\\u0069d\":\"b\",\"\\ud800\":1,\"?\":2}");
    scanner.read(b, 0, b.length, r);
    // the last value, at the place of the first; the unpaired surrogate is not '?'
    assertThat(r.toMap()).containsExactly(Map.entry("id", "b"), Map.entry("\ud800", 1L));
  }

  @Test
  void recordsOverTheSizeLimitAreRefused() {
    RecordScanner small = new RecordScanner(new JsonRecordReader.Limits(64, 1 << 20, 16));
    byte[] b = utf8("{\"a\":\"0123456789\"}");
    assertThat(small.scan(b, 0, b.length)).isFalse();
    assertThatThrownBy(() -> small.read(b, 0, b.length, new Record()))
        .isInstanceOf(MalformedRecordException.class);
  }

  @Test
  void decodeNeedsASuccessfulScan() {
    byte[] b = utf8("{\"a\":");
    assertThat(scanner.scan(b, 0, b.length)).isFalse();
    assertThatThrownBy(() -> scanner.decode(new Record()))
        .isInstanceOf(IllegalStateException.class);
  }
}
