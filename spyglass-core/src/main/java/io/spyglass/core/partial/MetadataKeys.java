package io.spyglass.core.partial;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntToDoubleFunction;

/** Names of sketch metadata entries: Bullet's sketch concepts, in camelCase. */
public final class MetadataKeys {
  public static final String WAS_ESTIMATED = "wasEstimated";
  public static final String FAMILY = "family";

  /** Serialized size of the sketch, in bytes. */
  public static final String SIZE = "size";

  public static final String THETA = "theta";
  public static final String UNIQUES_ESTIMATE = "uniquesEstimate";

  /** {"1": {upperBound, lowerBound}, "2": ..., "3": ...}: bounds at 1, 2 and 3 deviations. */
  public static final String STANDARD_DEVIATIONS = "standardDeviations";

  public static final String UPPER_BOUND = "upperBound";
  public static final String LOWER_BOUND = "lowerBound";
  public static final String NORMALIZED_RANK_ERROR = "normalizedRankError";
  public static final String ITEMS_SEEN = "itemsSeen";
  public static final String MINIMUM_VALUE = "minimumValue";
  public static final String MAXIMUM_VALUE = "maximumValue";
  public static final String MAXIMUM_COUNT_ERROR = "maximumCountError";
  public static final String ACTIVE_ITEMS = "activeItems";

  /** The columns whose value is an estimate in some row (per-group COUNT DISTINCT). */
  public static final String ESTIMATED_COLUMNS = "estimatedColumns";

  public static final String FAMILY_THETA = "THETA";
  public static final String FAMILY_TUPLE = "TUPLE";
  public static final String FAMILY_QUANTILES = "QUANTILES";
  public static final String FAMILY_FREQUENCY = "FREQUENCY";

  private MetadataKeys() {}

  static Map<String, Object> standardDeviations(
      IntToDoubleFunction upper, IntToDoubleFunction lower) {
    Map<String, Object> all = new LinkedHashMap<>();
    for (int sd = 1; sd <= 3; sd++) {
      Map<String, Object> bounds = new LinkedHashMap<>();
      bounds.put(UPPER_BOUND, upper.applyAsDouble(sd));
      bounds.put(LOWER_BOUND, lower.applyAsDouble(sd));
      all.put(Integer.toString(sd), bounds);
    }
    return all;
  }
}
