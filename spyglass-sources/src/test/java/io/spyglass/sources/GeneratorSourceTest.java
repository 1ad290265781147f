package io.spyglass.sources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.spyglass.core.SpyglassClock;
import io.spyglass.core.record.JsonRecordReader;
import io.spyglass.core.record.Record;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class GeneratorSourceTest {
  private static final JsonFactory JSON = new JsonFactory();
  private static final GeneratorSource.Options FIXED =
      GeneratorSource.Options.DEFAULTS.withStartMs(1_700_000_000_000L);

  @Test
  void sameSeedGivesSameRecords() throws Exception {
    assertThat(read(FIXED.withSeed(7).withCount(200)))
        .isEqualTo(read(FIXED.withSeed(7).withCount(200)))
        .isNotEqualTo(read(FIXED.withSeed(8).withCount(200)));
  }

  @Test
  void recordsAreValidJsonOfAboutTheTargetSizeWithAboutNinetyFields() throws Exception {
    List<String> records = read(FIXED.withCount(2000));
    assertThat(records).hasSize(2000);
    JsonRecordReader reader = new JsonRecordReader();
    Record record = new Record();
    long bytes = 0;
    long fields = 0;
    for (String json : records) {
      reader.read(json, record);
      assertThat(record.has("id")).isTrue();
      assertThat((String) record.get("id")).matches("[0-9a-z]{13}");
      assertThat(record.get("demographics")).isInstanceOf(Map.class);
      assertThat(record.get("test_scores")).isInstanceOf(Map.class);
      bytes += json.getBytes(StandardCharsets.UTF_8).length;
      fields += countFields(json);
    }
    double avgBytes = bytes / 2000.0;
    double avgFields = fields / 2000.0;
    assertThat(avgBytes).isBetween(1700.0, 1950.0);
    assertThat(avgFields).isBetween(80.0, 100.0);
  }

  @Test
  void oneRecordInAThousandHasTheValuesOfBullets() throws Exception {
    List<String> records = read(FIXED.withCount(2500));
    JsonRecordReader reader = new JsonRecordReader();
    Record record = new Record();
    List<Integer> examples = new ArrayList<>();
    for (int i = 0; i < records.size(); i++) {
      reader.read(records.get(i), record);
      if (GeneratorSource.EXAMPLE_ID.equals(record.get("id"))) {
        assertThat(record.get("browser-id")).isEqualTo(GeneratorSource.EXAMPLE_BROWSER_ID);
        examples.add(i);
      } else {
        assertThat(record.get("browser-id")).isNotEqualTo(GeneratorSource.EXAMPLE_BROWSER_ID);
      }
    }
    assertThat(examples).containsExactly(999, 1999);
  }

  @Test
  void smallAndLargeTargetsChangeTheSize() throws Exception {
    for (int size : new int[] {100, 400, 4096, 8192}) {
      List<String> records = read(FIXED.withRecordBytes(size).withCount(300));
      double avg =
          records.stream()
              .mapToInt(r -> r.getBytes(StandardCharsets.UTF_8).length)
              .average()
              .orElseThrow();
      assertThat(avg).as("size %d", size).isBetween(size * 0.8, size * 1.2);
      for (String r : records) {
        countFields(r);
      }
    }
  }

  @Test
  void needlesAppearOnceEachWithTheirFields() throws Exception {
    GeneratorSource source = new GeneratorSource(FIXED.withCount(1000));
    RawBatch batch = new RawBatch();
    List<String> all = new ArrayList<>();
    int polls = 0;
    while (true) {
      if (polls == 3) {
        source.insertNeedle(Map.of("id", "needle-1", "status", 599));
        source.insertNeedle(
            Map.of("id", "needle-2", "marker", Map.of("a", List.of(1, "x")), "nothing", "q\"z"));
      }
      batch.clear();
      boolean more = source.poll(batch, 100, 100);
      for (int i = 0; i < batch.size(); i++) {
        all.add(new String(batch.data(), batch.start(i), batch.length(i), StandardCharsets.UTF_8));
      }
      polls++;
      if (!more) {
        break;
      }
    }
    assertThat(all).hasSize(1002);
    assertThat(all.get(300)).contains("\"id\":\"needle-1\"").contains("\"status\":599");
    assertThat(all.get(301)).contains("\"marker\":{\"a\":[1,\"x\"]}");
    assertThat(all.stream().filter(r -> r.contains("needle-"))).hasSize(2);
    JsonRecordReader reader = new JsonRecordReader();
    Record record = new Record();
    reader.read(all.get(301), record);
    assertThat(record.get("nothing")).isEqualTo("q\"z");
    assertThat(record.get("demographics")).isInstanceOf(Map.class);
  }

  @Test
  void boundedCountEndsTheSource() throws Exception {
    GeneratorSource source = new GeneratorSource(FIXED.withCount(250));
    RawBatch batch = new RawBatch();
    assertThat(source.poll(batch, 100, 10)).isTrue();
    assertThat(source.poll(batch, 100, 10)).isTrue();
    assertThat(source.poll(batch, 100, 10)).isTrue();
    assertThat(batch.size()).isEqualTo(250);
    assertThat(source.poll(batch, 100, 10)).isFalse();
    assertThat(source.emitted()).isEqualTo(250);
  }

  @Test
  void aPacedSourceReleasesRecordsAsItsClockMovesNotAsTimePasses() throws Exception {
    AtomicLong nanos = new AtomicLong(5_000_000_000L);
    SpyglassClock clock = new SpyglassClock(() -> 1_700_000_000_000L, nanos::get);
    GeneratorSource source = new GeneratorSource(FIXED.withRate(2000).withCount(0), clock);
    RawBatch batch = new RawBatch();
    source.poll(batch, 5000, 0);
    assertThat(batch.size()).isZero(); // none due yet, and no wait asked for
    nanos.addAndGet(500_000_000L);
    source.poll(batch, 5000, 0);
    assertThat(batch.size()).isEqualTo(1000); // half a second at 2000 records/s
    nanos.addAndGet(10_000_000_000L);
    batch.clear();
    source.poll(batch, 50_000, 0);
    assertThat(batch.size()).isEqualTo(2000); // a debt over one second is forgiven
  }

  @Test
  void recordsWithoutAStartAreStampedWithTheClocksTime() throws Exception {
    long at = 1_712_345_678_901L;
    SpyglassClock clock = new SpyglassClock(() -> at, System::nanoTime);
    GeneratorSource.Options unstamped = GeneratorSource.Options.DEFAULTS.withSeed(3).withCount(1);
    RawBatch batch = new RawBatch();
    try (GeneratorSource source = new GeneratorSource(unstamped, clock)) {
      source.poll(batch, 10, 0);
    }
    assertThat(batch.size()).isEqualTo(1);
    String stamped =
        new String(batch.data(), batch.start(0), batch.length(0), StandardCharsets.UTF_8);
    assertThat(List.of(stamped)).isEqualTo(read(unstamped.withStartMs(at)));
  }

  @Test
  void invalidOptionsAreRejected() {
    assertThatThrownBy(() -> FIXED.withRecordBytes(10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("size");
    assertThatThrownBy(() -> FIXED.withRate(-1)).isInstanceOf(IllegalArgumentException.class);
  }

  private static List<String> read(GeneratorSource.Options options) throws Exception {
    List<String> out = new ArrayList<>();
    try (GeneratorSource source = new GeneratorSource(options)) {
      RawBatch batch = new RawBatch();
      while (true) {
        batch.clear();
        boolean more = source.poll(batch, 128, 10);
        for (int i = 0; i < batch.size(); i++) {
          out.add(
              new String(batch.data(), batch.start(i), batch.length(i), StandardCharsets.UTF_8));
        }
        if (!more) {
          return out;
        }
      }
    }
  }

  /** Object keys at any depth; fails on malformed JSON. */
  private static int countFields(String json) throws IOException {
    int n = 0;
    try (JsonParser p = JSON.createParser(json)) {
      JsonToken t;
      while ((t = p.nextToken()) != null) {
        if (t == JsonToken.FIELD_NAME) {
          n++;
        }
      }
    }
    return n;
  }
}
