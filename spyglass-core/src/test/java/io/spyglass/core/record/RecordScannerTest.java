package io.spyglass.core.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
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

  /** Agrees with Jackson, and says whether the scan itself vouched. */
  private boolean agrees(String json, String... selection) {
    RecordScannerProperties.sameAsJackson(utf8(json), List.of(selection));
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
  void numbersOfEveryLengthAndWhatFollowsThemAgreeWithJackson() {
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
  void malformedRecordsGetTheParsersVerdict() {
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
            "{\"a\":1}\u0000")) {
      assertThat(agrees(bad, "a")).as(bad).isFalse();
      scanner.select(Set.of("a"));
      byte[] b = utf8(bad);
      assertThatThrownBy(() -> scanner.read(b, 0, b.length, new Record()))
          .as(bad)
          .isInstanceOf(MalformedRecordException.class);
    }
  }

  @Test
  void invalidUtf8IsLeftToTheParser() {
    byte[][] cases = {
      {'{', '"', 'a', '"', ':', '"', (byte) 0xC3, '"', '}'},
      {'{', '"', 'a', '"', ':', '"', (byte) 0xC0, (byte) 0x80, '"', '}'},
      {'{', '"', 'a', '"', ':', '"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"', '}'},
      {'{', '"', 'a', '"', ':', '"', (byte) 0xFF, '"', '}'},
      {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '{', '}'}
    };
    for (byte[] b : cases) {
      assertThat(scanner.scan(b, 0, b.length)).isFalse();
      RecordScannerProperties.sameAsJackson(b, List.of("a"));
    }
  }

  @Test
  void limitsAreLeftToTheParser() {
    String deep = "[".repeat(70) + "]".repeat(70);
    assertThat(agrees("{\"a\":" + deep + "}", "a")).isFalse();
    String shallow = "[".repeat(20) + "]".repeat(20);
    assertThat(agrees("{\"a\":" + shallow + "}", "a")).isTrue();
    String longString = "x".repeat(JsonScanner.MAX_STRING_BYTES + 1);
    assertThat(agrees("{\"a\":\"" + longString + "\"}", "a")).isFalse();
    assertThat(agrees("{\"b\":\"" + longString + "\"}", "a")).isFalse();
    String longName = "n".repeat(JsonScanner.MAX_NAME_BYTES + 1);
    assertThat(agrees("{\"" + longName + "\":1}", "a")).isFalse();
    String longNumber = "1".repeat(JsonScanner.MAX_NUMBER_CHARS + 1);
    assertThat(agrees("{\"a\":" + longNumber + "}", "a")).isFalse();
    assertThat(agrees("{\"a\":" + "1".repeat(101) + "}", "a")).isFalse();
    assertThat(agrees("{\"\\u0061\":1}", "a")).isFalse();
    assertThat(agrees("{\"a\":\"\\ud83d\\ude00\"}", "a")).isFalse();
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
