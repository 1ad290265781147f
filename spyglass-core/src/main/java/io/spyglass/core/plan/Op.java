package io.spyglass.core.plan;

/**
 * Operators and functions of BQL expressions, with their arity ({@code -1}: variable). Comparisons
 * have {@code _ANY} and {@code _ALL} forms whose right side is a list: {@code x = ANY list}.
 */
public enum Op {
  // arithmetic
  ADD(2),
  SUB(2),
  MUL(2),
  DIV(2),
  MOD(2),
  NEG(1),
  // comparison
  EQ(2),
  NE(2),
  LT(2),
  LE(2),
  GT(2),
  GE(2),
  EQ_ANY(2),
  NE_ANY(2),
  LT_ANY(2),
  LE_ANY(2),
  GT_ANY(2),
  GE_ANY(2),
  EQ_ALL(2),
  NE_ALL(2),
  LT_ALL(2),
  LE_ALL(2),
  GT_ALL(2),
  GE_ALL(2),
  /**
   * {@code s RLIKE 'regex'}: the regex matches the whole of s (Java's {@code Matcher.matches}), as
   * in Bullet.
   */
  RLIKE(2),
  /** {@code s RLIKE ANY list}: any regex of the list matches. */
  RLIKE_ANY(2),
  /** {@code x IN (a, b)} or {@code x IN list}: args are the value and a list. */
  IN(2),
  /** {@code x BETWEEN (lo, hi)}: args are the value, lo and hi; inclusive. */
  BETWEEN(3),
  // logic (three-valued)
  AND(-1),
  OR(-1),
  XOR(2),
  NOT(1),
  IS_NULL(1),
  IS_NOT_NULL(1),
  // collections
  /** {@code SIZEIS(c, n)}: size of a list, map or string equals n. */
  SIZEIS(2),
  /** {@code SIZEOF(c)}: size of a list, map or string. */
  SIZEOF(1),
  CONTAINSKEY(2),
  CONTAINSVALUE(2),
  /** {@code FILTER(list, mask)}: elements of list whose matching boolean in mask is true. */
  FILTER(2),
  /** {@code base[key]}, {@code base.key}: map value by key or list element by index. */
  INDEX(2),
  /** A list built from its arguments: {@code [a, b]} or the list of {@code IN (a, b)}. */
  LIST(-1),
  // functions
  TRIM(1),
  ABS(1),
  LOWER(1),
  UPPER(1),
  /** {@code SUBSTRING(s, start[, length])}, 1-based start as in SQL. */
  SUBSTRING(-1),
  /** {@code HASH(x)}: a 32-bit hash of the value, as INTEGER. */
  HASH(1),
  /** {@code IF(cond, then, else)}. */
  IF(3),
  /** {@code UNIXTIMESTAMP()}, {@code UNIXTIMESTAMP(s)}, {@code UNIXTIMESTAMP(s, pattern)}. */
  UNIXTIMESTAMP(-1),
  /**
   * {@code NOW()}: the time the record is evaluated, in epoch milliseconds, from the engine clock.
   */
  NOW(0),
  CAST(1);

  private final int arity;

  Op(int arity) {
    this.arity = arity;
  }

  /** The number of arguments, or -1 when it varies. */
  public int arity() {
    return arity;
  }

  public boolean isComparison() {
    return ordinal() >= EQ.ordinal() && ordinal() <= GE_ALL.ordinal();
  }
}
