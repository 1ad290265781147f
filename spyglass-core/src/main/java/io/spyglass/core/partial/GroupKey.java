package io.spyglass.core.partial;

import java.util.Arrays;

/**
 * An immutable tuple of codec values (see {@link ValueCodec}), compared element-wise with {@code
 * equals}; the item type of the frequent-items sketch of {@link TopKPartial}.
 */
public final class GroupKey {
  private final Object[] values;
  private final int hash;

  private GroupKey(Object[] values) {
    this.values = values;
    long h = Hashing.hash(values);
    this.hash = (int) (h ^ (h >>> 32));
  }

  /** A key over a copy of {@code values}. */
  public static GroupKey of(Object... values) {
    return new GroupKey(values.clone());
  }

  /** A key that takes ownership of {@code values}: the caller must not change the array later. */
  static GroupKey wrap(Object[] values) {
    return new GroupKey(values);
  }

  public int size() {
    return values.length;
  }

  public Object get(int i) {
    return values[i];
  }

  /** A copy of the values. */
  public Object[] toArray() {
    return values.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o == this
        || (o instanceof GroupKey
            && ((GroupKey) o).hash == hash
            && Arrays.equals(((GroupKey) o).values, values));
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return Arrays.toString(values);
  }
}
