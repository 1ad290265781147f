package io.spyglass.core.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * The scanner reads every record as Jackson's parser does ({@link JsonRecordReader} with the same
 * selection): the same fields, values, types and order, the same records refused. On awkward valid
 * records and on the same records damaged byte by byte; the seed of each try is printed by jqwik on
 * failure.
 */
class RecordScannerProperties {
  private static long vouched;
  private static long tried;

  @Property(tries = 3_000)
  void validRecordsReadAsJacksonReadsThem(@ForAll long seed) {
    JsonSamples samples = new JsonSamples(seed);
    byte[] json = samples.record(6);
    sameAsJackson(json, samples.selection());
  }

  @Property(tries = 3_000)
  void damagedRecordsGetJacksonsVerdict(@ForAll long seed) {
    JsonSamples samples = new JsonSamples(seed);
    byte[] json = samples.damaged(5);
    sameAsJackson(json, samples.selection());
  }

  @AfterContainer
  static void theFastPathWasTaken() {
    // most valid records (and many damaged ones that are still JSON) are read by the scan itself
    assertThat(vouched).as("records the scan vouched for, of " + tried).isGreaterThan(tried / 4);
  }

  /** Reads {@code json} both ways, in the middle of a larger array, and compares. */
  static void sameAsJackson(byte[] json, List<String> names) {
    Set<String> selection = new LinkedHashSet<>(names);
    byte[] padded = new byte[json.length + 16];
    java.util.Arrays.fill(padded, (byte) '"');
    System.arraycopy(json, 0, padded, 5, json.length);
    String text = new String(json, StandardCharsets.UTF_8);

    JsonRecordReader jackson = new JsonRecordReader();
    jackson.select(selection);
    Record expected = new Record();
    String expectedError = null;
    try {
      jackson.read(padded, 5, json.length, expected);
    } catch (MalformedRecordException e) {
      expectedError = e.getMessage();
    }

    RecordScanner scanner = new RecordScanner();
    scanner.select(selection);
    boolean fast = scanner.scan(padded, 5, json.length);
    tried++;
    if (fast) {
      vouched++;
      assertThat(expectedError)
          .as("the scan vouched for a record Jackson refuses: " + text)
          .isNull();
    }
    Record actual = new Record();
    String actualError = null;
    try {
      scanner.read(padded, 5, json.length, actual);
    } catch (MalformedRecordException e) {
      actualError = e.getMessage();
    }
    assertThat(actualError).as(text).isEqualTo(expectedError);
    if (expectedError == null) {
      assertThat(actual.names()).as(text).containsExactlyElementsOf(expected.names());
      for (int i = 0; i < expected.size(); i++) {
        if (expected.valueAt(i) instanceof java.util.Map<?, ?> whole) {
          // members one by one first, before anything decodes the whole object
          java.util.Map<?, ?> lazy = (java.util.Map<?, ?>) actual.valueAt(i);
          for (Object key : whole.keySet()) {
            assertThat(lazy.containsKey(key)).as(text).isTrue();
            assertThat(String.valueOf(lazy.get(key)))
                .as(text)
                .isEqualTo(String.valueOf(whole.get(key)));
          }
          assertThat(lazy.get("absent")).isEqualTo(whole.get("absent"));
        }
        assertThat(actual.typeAt(i)).as(text).isEqualTo(expected.typeAt(i));
        assertThat(actual.valueAt(i)).as(text).isEqualTo(expected.valueAt(i));
        // the same order inside maps, and the same number types inside lists and maps
        assertThat(String.valueOf(actual.valueAt(i)))
            .as(text)
            .isEqualTo(String.valueOf(expected.valueAt(i)));
      }
      assertThat(actual.isPartial()).isEqualTo(expected.isPartial());
      assertThat(actual.toFullMap()).as(text).isEqualTo(expected.toFullMap());
    }
  }
}
