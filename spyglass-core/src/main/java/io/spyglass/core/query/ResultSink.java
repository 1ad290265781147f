package io.spyglass.core.query;

import io.spyglass.core.result.Result;

/** Receives the results a query emits. Called on the thread that drives the combiner. */
@FunctionalInterface
public interface ResultSink {
  void emit(Query query, Result result);
}
