package io.spyglass.core.plan;

import io.spyglass.core.record.Type;

/**
 * A top-level field of a record, by name. {@code type} is {@link Type#UNKNOWN} unless the query
 * gave a type hint ({@code field : MAP[STRING]}); with a hint, values of another type read as NULL.
 * {@code hinted} tells whether the type came from a hint (the canonical printer writes it back).
 */
public record FieldRef(String name, Type type, boolean hinted) implements Expr {
  /**
   * The name is interned: the same few field names recur in every query, and ten thousand idle
   * queries would each hold a copy of {@code "id"} otherwise.
   */
  public FieldRef {
    name = name == null ? null : name.intern();
  }

  public static FieldRef of(String name) {
    return new FieldRef(name, Type.UNKNOWN, false);
  }
}
