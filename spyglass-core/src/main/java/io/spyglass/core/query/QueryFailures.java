package io.spyglass.core.query;

import io.spyglass.core.result.Meta;

/** The error a query ends with when its own processing throws. */
final class QueryFailures {
  private QueryFailures() {}

  static Meta.QueryError internal(Throwable error) {
    String what = error.getClass().getSimpleName();
    String message = error.getMessage();
    return new Meta.QueryError(
        "The query failed: " + (message == null ? what : what + ": " + message),
        "This is a bug in Spyglass, not in the query: please report it with the query text."
            + " Other queries were not affected",
        true);
  }
}
