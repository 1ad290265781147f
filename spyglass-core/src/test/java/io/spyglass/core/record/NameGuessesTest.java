package io.spyglass.core.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The scan guesses each name of a record from the records it scanned before ({@link NameMemo}):
 * whatever it guesses, a record is read exactly as a scanner that has seen nothing reads it. A
 * scanner kept over a stream of records that mostly repeat their names (so that guesses are taken),
 * with names changed, moved, written with escapes or whitespace, too long to be learned, selections
 * changed on the way, and records damaged byte by byte, gives the same verdict, the same reason and
 * message, and the same values and places of the selected fields as a new scanner per record.
 */
class NameGuessesTest {
  private static final List<String> SELECTION =
      List.of("id", "device", "duration", "geo", "ads", "é", "k\"q", "absent");

  @Test
  void aScannerThatHasSeenRecordsReadsEachAsANewOneDoes() {
    for (long seed = 1; seed <= 40; seed++) {
      Random random = new Random(seed);
      JsonSamples samples = new JsonSamples(seed);
      Set<String> selection = new LinkedHashSet<>(SELECTION);
      RecordScanner warm = new RecordScanner();
      warm.select(selection);
      byte[] previous = stream(random);
      for (int i = 0; i < 400; i++) {
        byte[] json;
        switch (random.nextInt(10)) {
          case 0 -> json = samples.record(6);
          case 1 -> json = samples.damaged(5);
          case 2, 3 -> json = samples.damage(previous);
          default -> json = stream(random);
        }
        if (random.nextInt(50) == 0) {
          selection = new LinkedHashSet<>(samples.selection());
          selection.add(SELECTION.get(random.nextInt(SELECTION.size())));
          warm.select(selection);
        }
        RecordScanner fresh = new RecordScanner();
        fresh.select(selection);
        assertThat(outcome(warm, json, selection))
            .as("seed %d, record %d: %s", seed, i, new String(json, StandardCharsets.UTF_8))
            .isEqualTo(outcome(fresh, json, selection));
        previous = json;
      }
    }
  }

  @Test
  void namesThatNeverRepeatAreReadAll() {
    RecordScanner scanner = new RecordScanner();
    scanner.select(Set.of("id"));
    Random random = new Random(7);
    for (int i = 0; i < 5_000; i++) {
      StringBuilder sb = new StringBuilder("{");
      for (int k = 0; k < 30; k++) {
        sb.append('"')
            .append(Long.toString(random.nextLong(), 36))
            .append("\":")
            .append(k)
            .append(',');
      }
      sb.append("\"id\":").append(i).append('}');
      byte[] json = sb.toString().getBytes(StandardCharsets.UTF_8);
      assertThat(scanner.scan(json, 0, json.length)).isTrue();
      assertThat(scanner.longValue(scanner.slot("id"))).isEqualTo(i);
    }
  }

  @Test
  void aGuessedNameIsTakenOnlyWhereItIsWrittenWhole() throws MalformedRecordException {
    RecordScanner scanner = new RecordScanner();
    scanner.select(Set.of("device", "devices"));
    Record record = new Record();
    String[] lines = {
      "{\"id\":1,\"device\":\"a\",\"n\":{\"x\":1,\"y\":2}}",
      "{\"id\":1,\"device\":\"a\",\"n\":{\"x\":1,\"y\":2}}",
      "{\"id\":1,\"devices\":\"b\",\"n\":{\"x\":1,\"y\":2}}",
      "{\"id\":1,\"device\" :\"c\",\"n\":{\"x\":1,\"y\":2}}",
      "{\"id\":1,\"\\u0064evice\":\"d\",\"n\":{\"x\":1,\"y\":2}}",
      "{\"id\":1,\"devic\":\"e\",\"device\":\"f\",\"n\":{\"y\":1,\"x\":2}}",
      "{\"id\":1,\"device\":\"g\",\"n\":{\"x\":1,\"y\":2}}",
    };
    String[] expected = {
      "{device=a}",
      "{device=a}",
      "{devices=b}",
      "{device=c}",
      "{device=d}",
      "{device=f}",
      "{device=g}"
    };
    for (int i = 0; i < lines.length; i++) {
      byte[] json = lines[i].getBytes(StandardCharsets.UTF_8);
      scanner.read(json, 0, json.length, record);
      assertThat(record.toMap()).as(lines[i]).hasToString(expected[i]);
    }
    byte[] broken =
        "{\"id\":1,\"device\":\"a\",\"n\":{\"x\":1,\"y\":2".getBytes(StandardCharsets.UTF_8);
    assertThat(scanner.scan(broken, 0, broken.length)).isFalse();
    assertThat(scanner.failure().reason()).isEqualTo(BadRecord.TRUNCATED);
  }

  /** What a scanner makes of a record: its verdict, and the selected fields or the reason. */
  private static String outcome(RecordScanner s, byte[] json, Set<String> selection) {
    if (!s.scan(json, 0, json.length)) {
      MalformedRecordException e = s.failure();
      return "refused " + e.reason() + ": " + e.getMessage();
    }
    StringBuilder out = new StringBuilder("read");
    for (String name : selection) {
      int slot = s.slot(name);
      byte kind = s.kind(slot);
      out.append(' ').append(name).append('=').append(kind);
      if (kind != RecordScanner.ABSENT) {
        out.append('@').append(s.start(slot)).append('-').append(s.end(slot));
        out.append(':').append(s.value(slot));
        if (kind == RecordScanner.INTEGER) {
          out.append('#').append(s.longValue(slot));
        }
      }
    }
    Record record = new Record();
    s.decode(record);
    return out.append(' ').append(record.toMap()).toString();
  }

  private static final String[] NAMES = {
    "id",
    "event_ts",
    "device",
    "duration",
    "geo",
    "lat",
    "lon",
    "tags",
    "ads",
    "a",
    "b",
    "é",
    "k\"q",
    "a_name_longer_than_twenty_one_bytes",
    "x",
    "",
  };

  /**
   * A record of a stream: mostly the same names in the same order, compact; sometimes a name
   * changed, whitespace, a name written with escapes, nested objects and arrays of objects.
   */
  private static byte[] stream(Random random) {
    StringBuilder sb = new StringBuilder("{");
    String[] top = {"id", "event_ts", "device", "duration", "geo", "tags", "ads", "é", "k\"q"};
    for (int i = 0; i < top.length; i++) {
      if (random.nextInt(12) == 0) {
        continue; // a field left out
      }
      if (sb.length() > 1) {
        sb.append(',');
      }
      String name = random.nextInt(15) == 0 ? NAMES[random.nextInt(NAMES.length)] : top[i];
      name(sb, name, random);
      if (random.nextInt(20) == 0) {
        sb.append(' ');
      }
      sb.append(':');
      switch (top[i]) {
        case "geo" -> object(sb, random, new String[] {"lat", "lon", "x"});
        case "ads" -> {
          sb.append('[');
          for (int k = random.nextInt(3); k > 0; k--) {
            object(sb, random, new String[] {"a", "b", "x"});
            if (k > 1) {
              sb.append(',');
            }
          }
          sb.append(']');
        }
        case "tags" -> sb.append(random.nextBoolean() ? "[\"a\",\"b\"]" : "[]");
        default -> scalar(sb, random);
      }
    }
    return sb.append('}').toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void object(StringBuilder sb, Random random, String[] names) {
    sb.append('{');
    for (int k = 0; k < names.length; k++) {
      if (k > 0) {
        sb.append(',');
      }
      name(sb, random.nextInt(10) == 0 ? NAMES[random.nextInt(NAMES.length)] : names[k], random);
      sb.append(':');
      scalar(sb, random);
    }
    sb.append('}');
  }

  private static void name(StringBuilder sb, String name, Random random) {
    sb.append('"');
    for (char c : name.toCharArray()) {
      if (c == '"') {
        sb.append("\\\"");
      } else if (random.nextInt(40) == 0) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    sb.append('"');
  }

  private static final String[] SCALARS = {
    "0",
    "-1",
    "42",
    "1234567",
    "12345678",
    "1.5",
    "-0.0e1",
    "1E5",
    "123456789012345678901",
    "true",
    "false",
    "null",
    "\"\"",
    "\"mobile\"",
    "\"desktop\"",
    "\"a\\\"b\"",
    "\"é\"",
    "\"1demsad3ci4cw\"",
    "\"https://www.example.com/news/world\"",
  };

  private static void scalar(StringBuilder sb, Random random) {
    sb.append(SCALARS[random.nextInt(SCALARS.length)]);
  }
}
