package io.spyglass.core.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every line of {@code bql/roundtrip.bql} compiles, prints, and compiles back to an equal plan. */
class BqlRoundTripTest {

  static Stream<String> corpus() throws IOException {
    try (InputStream in = BqlRoundTripTest.class.getResourceAsStream("/bql/roundtrip.bql")) {
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return Arrays.stream(text.split("\n"))
          .map(String::strip)
          .filter(line -> !line.isEmpty() && !line.startsWith("#"))
          .toList()
          .stream();
    }
  }

  @ParameterizedTest
  @MethodSource("corpus")
  void printsToTextThatCompilesToAnEqualPlan(String query) {
    QueryPlan plan = Bql.compile(query);
    String printed = Bql.print(plan);
    assertThat(Bql.compile(printed)).as(printed).isEqualTo(plan);
    // Printing is canonical: the printed text prints as itself.
    assertThat(Bql.print(Bql.compile(printed))).isEqualTo(printed);
  }

  @ParameterizedTest
  @MethodSource("corpus")
  void formatsToTextThatCompilesToAnEqualPlanAndIsNoLongerThanTheCanonical(String query) {
    QueryPlan plan = Bql.compile(query);
    String formatted = Bql.format(plan, QueryLimits.DEFAULTS);
    assertThat(Bql.compile(formatted)).as(formatted).isEqualTo(plan);
    assertThat(formatted.length()).isLessThanOrEqualTo(Bql.print(plan).length());
    assertThat(Bql.format(Bql.compile(formatted), QueryLimits.DEFAULTS)).isEqualTo(formatted);
  }
}
