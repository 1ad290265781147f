package io.spyglass.bullet.diff;

/**
 * The documented differences from Bullet a generated query may meet. Each is an entry of {@code
 * known-differences.txt}, which points at its item in docs/bql.md.
 */
enum Difference {
  AGGREGATES_SKIP,
  CAST_TO_BOOLEAN,
  STRING_CONCAT,
  TYPED_KEYS,
  EMPTY_STRING_KEY,
  LIMIT_AFTER_ORDER,
  STRICTER,
  NULL_LOGIC,
  NULL_FIELDS,
  IF_TYPES,
  SAME_AGGREGATE_TWICE,
  MAP_ORDER
}
