package io.spyglass.flink.bench;

import io.spyglass.core.result.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * A runtime under test, reading one run's records topic from its start: the embedded engine or the
 * Flink job. Queries are submitted before the records become visible (they are written in a Kafka
 * transaction that commits once every query runs), so each runtime reads the whole backlog with
 * every query in place.
 */
interface Side extends AutoCloseable {
  /** A query to submit: an id and its BQL. */
  record Bql(String id, String text) {}

  /** Waits for something up to a timeout; true if it came. */
  interface Await {
    boolean await(long timeout, TimeUnit unit) throws InterruptedException;
  }

  /** Takes the next result, waiting up to a timeout; null if none came. */
  interface Poll {
    Result poll(long timeout, TimeUnit unit) throws InterruptedException;
  }

  /**
   * A submitted query, as its submitter sees it: the calls of the runtime's own handle.
   *
   * @param running waits until the query runs
   * @param results the next result, or null when none came in time or the query is done and read
   * @param done whether the query has ended
   * @param why why the query was refused or failed, or null
   */
  record Handle(Await running, Poll results, BooleanSupplier done, Supplier<String> why) {
    boolean awaitRunning(long timeout, TimeUnit unit) throws InterruptedException {
      return running.await(timeout, unit);
    }

    Result poll(long timeout, TimeUnit unit) throws InterruptedException {
      return results.poll(timeout, unit);
    }

    boolean isDone() {
      return done.getAsBoolean();
    }

    String error() {
      return why.get();
    }
  }

  /** What the tables call this runtime. */
  String label();

  /** Submits the queries, in order. */
  default List<Handle> submitAll(List<Bql> queries) {
    List<Handle> handles = new ArrayList<>();
    for (Bql q : queries) {
      handles.add(submit(q));
    }
    return handles;
  }

  Handle submit(Bql query);

  /** Every query is submitted and runs: records may flow (the embedded engine starts paused). */
  void go();

  /** Ends every query now, each with its final result. */
  void finishAll() throws Exception;

  /** Why the runtime failed during the run (and recovered), or null when it did not. */
  default String failure() throws Exception {
    return null;
  }

  @Override
  void close();
}
