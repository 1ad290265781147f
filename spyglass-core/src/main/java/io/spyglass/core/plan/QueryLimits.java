package io.spyglass.core.plan;

/**
 * Defaults and maxima that bound what one query may ask for; the binder applies them when it builds
 * a plan, so a plan's sizes are always within them. Defaults follow Bullet's.
 *
 * @param defaultDurationMs duration of {@code STREAM()}
 * @param maxDurationMs longest duration; {@code STREAM(MAX, TIME)} and longer ones are capped to it
 * @param defaultRawLimit records per window of a raw query without LIMIT
 * @param maxRawLimit largest LIMIT of a raw query
 * @param maxGroups most groups a GROUP BY keeps exactly; more are sampled uniformly
 * @param maxExactGroups most groups per window of a query whose groups are exact (see {@link
 *     QueryPlan#exactGroups()}); a window with more says so in its errors
 * @param countDistinctEntries nominal entries of COUNT DISTINCT theta sketches (a power of 2)
 * @param distributionEntries k of the quantiles sketch (a power of 2)
 * @param maxDistributionPoints most points a QUANTILE/FREQ/CUMFREQ may ask for
 * @param topKEntries maximum map size of the frequent-items sketch (a power of 2)
 * @param maxTopK largest k of TOP
 * @param minWindowEmitMs shortest time between emits of a time window
 * @param maxQueryLength longest query text, in characters
 * @param maxEmitsPerSecond a query emitting faster than this is stopped with an error
 */
public record QueryLimits(
    long defaultDurationMs,
    long maxDurationMs,
    int defaultRawLimit,
    int maxRawLimit,
    int maxGroups,
    int maxExactGroups,
    int countDistinctEntries,
    int distributionEntries,
    int maxDistributionPoints,
    int topKEntries,
    int maxTopK,
    long minWindowEmitMs,
    int maxQueryLength,
    int maxEmitsPerSecond) {

  public static final QueryLimits DEFAULTS =
      new QueryLimits(
          30_000L,
          24L * 60 * 60 * 1000,
          100,
          10_000,
          512,
          1_000_000,
          16_384,
          1_024,
          100,
          1_024,
          1_000,
          100L,
          64 * 1024,
          500);

  /** These limits with another {@link #maxExactGroups()}. */
  public QueryLimits withMaxExactGroups(int groups) {
    return new QueryLimits(
        defaultDurationMs,
        maxDurationMs,
        defaultRawLimit,
        maxRawLimit,
        maxGroups,
        groups,
        countDistinctEntries,
        distributionEntries,
        maxDistributionPoints,
        topKEntries,
        maxTopK,
        minWindowEmitMs,
        maxQueryLength,
        maxEmitsPerSecond);
  }
}
