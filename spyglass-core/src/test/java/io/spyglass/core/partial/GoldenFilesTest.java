package io.spyglass.core.partial;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.plan.Aggregation.DistributionKind;
import io.spyglass.core.plan.Aggregation.Points;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Format 1 must stay readable: for each state a deterministic input is encoded and compared with
 * {@code src/test/resources/partials/<name>.v1.bin}, and the stored bytes must decode to the rows
 * and metadata of that input.
 *
 * <p>The files were written with the sketches of DataSketches 6 (and 7), whose bytes today's
 * encoding must equal. DataSketches 9 (Java 25) writes the same format but not always the same
 * bytes (it leaves an unused field of theta headers at zero): there, today's encoding must read
 * back as the input, and the files must read as on the other line.
 *
 * <p>To write the files again after a deliberate change (which then needs a new format version):
 * {@code mvn -B -pl spyglass-core test -Dtest=GoldenFilesTest -Dspyglass.regenerateGolden=true}.
 */
class GoldenFilesTest {
  private static final Path DIR = Paths.get("src", "test", "resources", "partials");

  static Stream<Arguments> states() {
    return Stream.of(
        Arguments.of("raw", (Supplier<Partial>) GoldenFilesTest::raw),
        Arguments.of("group", (Supplier<Partial>) GoldenFilesTest::group),
        Arguments.of("group-sampled", (Supplier<Partial>) GoldenFilesTest::groupSampled),
        Arguments.of("count-distinct", (Supplier<Partial>) GoldenFilesTest::countDistinct),
        Arguments.of("quantile", (Supplier<Partial>) GoldenFilesTest::quantile),
        Arguments.of("pmf", (Supplier<Partial>) GoldenFilesTest::pmf),
        Arguments.of("top-k", (Supplier<Partial>) GoldenFilesTest::topK),
        Arguments.of("event-time", (Supplier<Partial>) GoldenFilesTest::eventTime));
  }

  static Partial raw() {
    RawPartial p = new RawPartial(10);
    for (int v = 0; v < 4; v++) {
      Fixtures.feedRaw(p, v);
    }
    return p;
  }

  static Partial group() {
    GroupPartial p = Fixtures.group(512);
    Object[] scratch = new Object[2];
    for (int v = 0; v < 100; v++) {
      Fixtures.feedGroup(p, v, scratch);
    }
    return p;
  }

  /** Groups in 1 s windows of event time, some before the epoch, and records without a time. */
  static Partial eventTime() {
    EventTimePartial p = new EventTimePartial(1000, Fixtures.group(512));
    Object[] scratch = new Object[2];
    for (int v = -30; v < 60; v++) {
      Fixtures.feedGroup((GroupPartial) p.window(v * 97L).state(), v, scratch);
    }
    p.noTime();
    p.noTime();
    return p;
  }

  static Partial groupSampled() {
    GroupPartial p = Fixtures.group(5);
    Object[] scratch = new Object[2];
    for (int v = -200; v < 200; v++) {
      Fixtures.feedGroup(p, v, scratch);
    }
    return p;
  }

  static Partial countDistinct() {
    CountDistinctPartial p = Fixtures.countDistinct(32);
    for (int v = 0; v < 100; v++) {
      p.update(v);
    }
    return p;
  }

  static Partial quantile() {
    DistributionPartial p =
        Fixtures.distribution(DistributionKind.QUANTILE, new Points.Linear(5), 64);
    for (int v = 0; v < 100; v++) {
      p.update(v * 0.5);
    }
    return p;
  }

  static Partial pmf() {
    DistributionPartial p =
        Fixtures.distribution(
            DistributionKind.PMF, new Points.Manual(List.of(-1.0, 10.0, 20.5)), 32);
    for (int v = 0; v < 50; v++) {
      p.update(v);
    }
    return p;
  }

  static Partial topK() {
    TopKPartial p = Fixtures.topK(5, Optional.of(2L), 64);
    for (int v = 1; v < 200; v++) {
      Fixtures.feedTopK(p, v);
    }
    return p;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("states")
  void encodingIsStable(String name, Supplier<Partial> state) throws IOException {
    Partial expected = state.get();
    byte[] encoded = Partials.encode(expected);
    Path file = DIR.resolve(name + ".v1.bin");
    if (Boolean.getBoolean("spyglass.regenerateGolden")) {
      Files.createDirectories(DIR);
      Files.write(file, encoded);
    }
    byte[] golden;
    try (InputStream in =
        GoldenFilesTest.class.getResourceAsStream("/partials/" + name + ".v1.bin")) {
      assertThat(in)
          .as("golden file %s (regenerate with -Dspyglass.regenerateGolden=true)", file)
          .isNotNull();
      golden = in.readAllBytes();
    }
    if (Sketches.line().equals("DataSketches 6")) {
      if (!Boolean.getBoolean("spyglass.regenerateGolden")) {
        assertThat(encoded).as("encoding of %s today vs %s", name, file).isEqualTo(golden);
      }
    } else {
      Partial reread = Partials.decode(encoded);
      assertThat(reread.rows().toString()).isEqualTo(expected.rows().toString());
      assertThat(reread.metadata()).isEqualTo(expected.metadata());
    }
    Partial decoded = Partials.decode(golden);
    assertThat(decoded.kind()).isEqualTo(expected.kind());
    assertThat(decoded.rows().toString()).isEqualTo(expected.rows().toString());
    assertThat(decoded.metadata()).isEqualTo(expected.metadata());
    assertThat(decoded.isEmpty()).isFalse();
  }
}
