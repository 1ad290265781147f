package io.spyglass.core.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The scan reads its bytes eight and sixteen at a time (strings, numbers, literals, guessed names):
 * whatever it reads a word at a time reads the same wherever the word boundaries fall. Values of
 * every kind (strings with escapes, multi-byte and invalid UTF-8 and control characters at every
 * place, numbers of every form and length, literals whole and cut) are put at every offset from a
 * word boundary, in a value a query reads, in one no query reads and nested; each record is read as
 * a strict parse reads it, and gives the same verdict, reason and message, the same fields at the
 * same places, wherever it lies in its array and whatever bytes follow its end (which the scan must
 * not use), whole and cut short at every length.
 */
class ScanAtEveryOffsetTest {
  /** Bytes that would change a verdict if the scan used a byte after the record's end. */
  private static final byte[][] AFTER = {
    {}, {'"'}, {'}'}, {'0'}, {'e'}, {'.'}, {'\\'}, {' '}, {(byte) 0x80}, {'a', 'l', 's', 'e'}
  };

  /** Lengths around the words' sizes: 0 to 2, 7 to 9, 15 to 17, 31 to 33. */
  private static final int[] AROUND_WORDS = {0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33};

  private static final List<String> VALUES = values();

  private static List<String> values() {
    List<String> v = new ArrayList<>();
    for (int n = 0; n <= 34; n++) {
      v.add("\"" + "abcdefghijklmnopqrstuvwxyz0123456789".substring(0, n) + "\"");
    }
    for (int n : AROUND_WORDS) {
      String s = "abcdefghijklmnopqrstuvwxyz0123456789".substring(0, n);
      for (String odd : new String[] {"\\\"", "\\\\", "\\u00e9", "\\n", "é", "€", "😀"}) {
        v.add("\"" + s.substring(0, n / 2) + odd + s.substring(n / 2) + "\"");
        v.add("\"" + s + odd + "\"");
      }
      if (n > 0) {
        v.add("\"" + s.substring(0, n - 1) + "\u0001\""); // a control character
        v.add("\"" + s.substring(0, n - 1) + "\\x\""); // a bad escape
      }
    }
    for (int digits : new int[] {1, 2, 7, 8, 9, 14, 15, 16, 17, 20}) {
      String d = "98765432109876543210".substring(0, digits);
      for (String sign : new String[] {"", "-"}) {
        v.add(sign + d);
        v.add(sign + "0" + d); // a leading zero
        for (int f : new int[] {0, 1, 6, 7, 8}) {
          String frac = "1234567890".substring(0, f);
          v.add(sign + d + "." + frac);
          v.add(sign + d + "." + frac + "e" + (f % 3 == 0 ? "-" : "+") + f);
          v.add(sign + d + "." + frac + "E");
          v.add(sign + "0." + frac);
        }
        v.add(sign + d + "e" + digits);
        v.add(sign + d + "x");
        // what follows the digits is read from the word that holds them: a point with no
        // fraction, a byte beyond ASCII, one after a fraction
        v.add(sign + d + ".");
        v.add(sign + d + "é");
        v.add(sign + d + ".25é");
      }
    }
    v.addAll(List.of("-", "-x", "-0", "0", "00", "1.", ".5", "+1", "-.5", "1e", "1e+", "-0.0"));
    v.addAll(
        List.of(
            "true",
            "false",
            "null",
            "t",
            "tr",
            "tru",
            "truex",
            "trUe",
            "f",
            "fa",
            "fals",
            "falsy",
            "fAlse",
            "n",
            "nu",
            "nul",
            "nulll",
            "nil",
            "x",
            "[]",
            "{}",
            "[true,false,null]",
            "{\"k\":false,\"l\":null}"));
    return v;
  }

  @Test
  void valuesAtEveryOffsetReadAsAStrictParseReadsThemWhereverTheyLie() {
    RecordScanner warm = new RecordScanner();
    Random random = new Random(15);
    for (String value : VALUES) {
      for (int pad = 0; pad <= 16; pad++) {
        byte[] json =
            utf8(
                "{\"p\":\""
                    + "_".repeat(pad)
                    + "\",\"v\":"
                    + value
                    + ",\"w\":["
                    + value
                    + ",{\"u\":"
                    + value
                    + "}],\"z\":"
                    + value
                    + "}");
        for (List<String> selection : List.of(List.of("v"), List.of("w", "z"), List.<String>of())) {
          RecordScannerProperties.sameAsAStrictParse(json, selection);
          sameWhereverItLies(warm, json, selection, random, 16);
        }
        if (pad % 4 != 0) {
          continue; // the place of the end, not of the words, tells the cuts apart
        }
        // cut short at every length across the values (read at the top level, stepped over there,
        // in an array and in an object): a record ending inside a word
        int from = utf8("{\"p\":\"" + "_".repeat(pad) + "\",\"v\":").length;
        int to = json.length - utf8(value).length - 1;
        for (int len = from; len < to; len++) {
          byte[] cut = java.util.Arrays.copyOf(json, len);
          sameWhereverItLies(warm, cut, List.of(), random, 1);
          if (len < from + utf8(value).length + 2) {
            sameWhereverItLies(warm, cut, List.of("v"), random, 1);
          }
        }
      }
    }
  }

  @Test
  void aControlCharacterOrAByteNotUtf8IsFoundAtItsPlaceInAnyWord() {
    RecordScanner scanner = new RecordScanner();
    scanner.select(Set.of("v"));
    for (int at = 0; at < 40; at++) {
      for (boolean read : new boolean[] {true, false}) {
        String name = read ? "v" : "s";
        String head = "{\"" + name + "\":\"" + "y".repeat(at);
        byte[] control = concat(utf8(head), new byte[] {0x1F}, utf8("tail\"}"));
        assertThat(scanner.scan(control, 0, control.length)).isFalse();
        assertThat(scanner.failure().getMessage())
            .isEqualTo("Malformed JSON at byte " + head.length());
        byte[] notUtf8 =
            concat(utf8(head), new byte[] {(byte) 0xE2, 0x28, (byte) 0xA1}, utf8("\"}"));
        assertThat(scanner.scan(notUtf8, 0, notUtf8.length)).isFalse();
        assertThat(scanner.failure().reason()).isEqualTo(BadRecord.INVALID_UTF8);
        assertThat(scanner.failure().getMessage())
            .isEqualTo("Invalid UTF-8 at byte " + head.length());
        byte[] whole = utf8(head + "é€😀\"}");
        int[] starts = {0, 2, 5, 9}; // of the characters after the head
        for (int len = head.length(); len < whole.length - 2; len++) {
          // cut inside the string: truncated, at the end or at the character it cuts short
          int cutAt = head.length();
          for (int start : starts) {
            if (head.length() + start <= len) {
              cutAt = head.length() + start;
            }
          }
          assertThat(scanner.scan(whole, 0, len)).as("%d", len).isFalse();
          assertThat(scanner.failure().getMessage())
              .as("%d", len)
              .isEqualTo("Truncated JSON: the input ends inside the record at byte " + cutAt);
        }
      }
    }
  }

  @Test
  void numbersAndLiteralsCutAtTheEndOfTheRecordAreTruncated() {
    RecordScanner scanner = new RecordScanner();
    for (String value :
        List.of("-1234567.123456", "12345678901234.5e-7", "false", "true", "null")) {
      for (int pad = 0; pad <= 16; pad++) {
        String head = "{\"p\":\"" + "_".repeat(pad) + "\",\"q\":[";
        byte[] json = utf8(head + value + "]}");
        assertThat(scanner.scan(json, 0, json.length)).isTrue();
        for (int len = head.length(); len < head.length() + value.length(); len++) {
          assertThat(scanner.scan(json, 0, len)).isFalse();
          assertThat(scanner.failure().reason())
              .as("%s cut at %d", value, len)
              .isEqualTo(BadRecord.TRUNCATED);
          assertThat(scanner.failure().getMessage()).endsWith("at byte " + len);
        }
      }
    }
  }

  @Test
  void namesOfEveryLengthAreGuessedAsTheyAreSearchedFor() {
    // a guess compares ",\"name\":" with two words up to 16 bytes, three up to 24 (names of 20
    // bytes); longer names are always searched for
    for (int len = 0; len <= 24; len++) {
      String name = "abcdefghijklmnopqrstuvwxyz".substring(0, len);
      String other = "n" + name;
      List<String> selection = List.of(name, other);
      String[] records = {
        "{\"" + name + "\":1,\"" + other + "\":{\"" + name + "\":[{\"" + name + "\":true}]}}",
        "{\"" + other + "\":2,\"" + name + "\":\"x\"}",
        "{\"" + name + "\":3, \"" + other + "\":{\"" + other + "\":null,\"" + name + "\":4}}",
        "{\"" + name + "\":5,\"" + other + "\" :6}",
        "{\"" + name + "\":7,\"" + name + "\":8,\"" + other + "\":9}"
      };
      RecordScanner warm = new RecordScanner();
      warm.select(Set.copyOf(selection));
      for (int round = 0; round < 3; round++) {
        for (String record : records) {
          byte[] json = utf8(record);
          RecordScanner fresh = new RecordScanner();
          fresh.select(Set.copyOf(selection));
          assertThat(outcome(warm, json, 0, json.length, selection))
              .as(record)
              .isEqualTo(outcome(fresh, json, 0, json.length, selection));
          RecordScannerProperties.sameAsAStrictParse(json, selection);
        }
      }
    }
  }

  /**
   * {@code json} gives the same outcome in an array of its own and at offsets from 1 to 16 of a
   * larger one (every one, or some at random), with bytes before it and any bytes after its end.
   */
  private static void sameWhereverItLies(
      RecordScanner scanner, byte[] json, List<String> selection, Random random, int shifts) {
    scanner.select(Set.copyOf(selection));
    String expected = outcome(scanner, json, 0, json.length, selection);
    for (int i = 1; i <= shifts; i++) {
      int shift = shifts == 16 ? i : 1 + random.nextInt(16);
      byte[] after = AFTER[random.nextInt(AFTER.length)];
      byte[] array = new byte[shift + json.length + after.length];
      java.util.Arrays.fill(array, 0, shift, (byte) '{');
      System.arraycopy(json, 0, array, shift, json.length);
      System.arraycopy(after, 0, array, shift + json.length, after.length);
      assertThat(outcome(scanner, array, shift, json.length, selection))
          .as(
              "at %d, then %s: %s",
              shift, new String(after, StandardCharsets.ISO_8859_1), text(json))
          .isEqualTo(expected);
    }
  }

  /** The verdict, and the places and kinds of the fields, or the reason and message. */
  private static String outcome(
      RecordScanner scanner, byte[] b, int off, int len, List<String> selection) {
    if (!scanner.scan(b, off, len)) {
      MalformedRecordException e = scanner.failure();
      return "refused " + e.reason() + ": " + e.getMessage();
    }
    StringBuilder sb = new StringBuilder("read");
    for (String name : selection) {
      int slot = scanner.slot(name);
      byte kind = scanner.kind(slot);
      sb.append(' ').append(name).append('=').append(kind);
      if (kind != RecordScanner.ABSENT) {
        sb.append('[')
            .append(scanner.start(slot) - off)
            .append(',')
            .append(scanner.end(slot) - off)
            .append(']');
        if (kind == RecordScanner.INTEGER) {
          sb.append(scanner.longValue(slot));
        }
      }
    }
    return sb.toString();
  }

  private static String text(byte[] json) {
    return new String(json, StandardCharsets.UTF_8);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
