package io.spyglass.core.query;

import io.spyglass.core.partial.Partial;

/** Receives the partial results a {@link FilterSet} flushes. */
@FunctionalInterface
public interface PartialSink {
  /**
   * Takes the partial of one query. The partial is valid only during this call: the filter set
   * resets and reuses it afterwards, so merge it, encode it or copy it ({@code emptyCopy()} then
   * {@code merge}) before returning.
   */
  void accept(Query query, Partial partial);
}
