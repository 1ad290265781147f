package io.spyglass.core.plan;

import io.spyglass.core.record.Type;

/**
 * A typed, immutable expression of a plan. There are three shapes: a {@link Literal}, a reference
 * to a top-level {@link FieldRef field} and a {@link Call} of an {@link Op operator} on arguments.
 * Nested access ({@code m.k}, {@code m['k']}, {@code list[0]}) is {@link Op#INDEX}.
 *
 * <p>Equality is structural, so two plans of the same query text are equal.
 */
public sealed interface Expr permits Literal, FieldRef, Call {
  /** The static type; {@link Type#UNKNOWN} for a schema-less field read without a type hint. */
  Type type();
}
