package io.spyglass.scenarios;

import java.util.ArrayList;
import java.util.List;

/**
 * The realistic mix of the scenarios: mostly needle lookups (RAW, {@code WHERE id = .. LIMIT 10}),
 * the rest aggregations filtered by country, GROUP BY, COUNT DISTINCT, QUANTILE and TOP K in turn.
 * {@code query-kinds} runs it beside each kind alone; {@code flink} on the Flink job.
 */
public final class QueryMix {
  /** The share of needle lookups in the mix. */
  public static final double NEEDLE_SHARE = 0.6;

  private static final String[] COUNTRIES = {"US", "IN", "BR", "GB", "DE", "FR", "JP", "CA"};

  private static final QueryKindsScenario.Kind[] AGGREGATIONS = {
    QueryKindsScenario.Kind.GROUP_BY,
    QueryKindsScenario.Kind.COUNT_DISTINCT,
    QueryKindsScenario.Kind.QUANTILE,
    QueryKindsScenario.Kind.TOP_K
  };

  private QueryMix() {}

  /** How many of {@code n} queries of the mix are needle lookups. */
  public static int needles(int n) {
    return (int) Math.round(n * NEEDLE_SHARE);
  }

  /**
   * The aggregations of a mix of {@code n} queries ({@code n - needles(n)} of them), each filtered
   * by a country: BQL with {@code %d} for the duration in ms.
   */
  public static List<String> aggregations(int n) {
    List<String> queries = new ArrayList<>();
    for (int i = 0; i < n - needles(n); i++) {
      String country = COUNTRIES[i % COUNTRIES.length];
      queries.add(
          AGGREGATIONS[i % AGGREGATIONS.length].template.replace(
              "FROM STREAM(%d, TIME)",
              "FROM STREAM(%d, TIME) WHERE demographics.country = '" + country + "'"));
    }
    return queries;
  }
}
