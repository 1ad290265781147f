package io.spyglass.service.query;

/** Hears what happens to queries: for metrics and history. Calls must return at once. */
public interface QueryObserver {
  default void started(ServiceQuery q) {}

  /** A submission refused, e.g. for {@code invalid} text or a {@code max-queries} limit. */
  default void rejected(String reason) {}

  default void result(ServiceQuery q, ResultLog.Event e) {}

  default void ended(ServiceQuery q) {}
}
