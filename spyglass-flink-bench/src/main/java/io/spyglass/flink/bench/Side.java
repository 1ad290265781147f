package io.spyglass.flink.bench;

import io.spyglass.core.result.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A runtime under test, reading one run's records topic from its start: the embedded engine or the
 * Flink job. Queries are submitted before the records become visible (they are written in a Kafka
 * transaction that commits once every query runs), so each runtime reads the whole backlog with
 * every query in place.
 */
interface Side extends AutoCloseable {
  /** A query to submit: an id and its BQL. */
  record Bql(String id, String text) {}

  /** A submitted query, as its submitter sees it. */
  interface Handle {
    boolean awaitRunning(long timeout, TimeUnit unit) throws InterruptedException;

    /** The next result, or null when none came in time or the query is done and read. */
    Result poll(long timeout, TimeUnit unit) throws InterruptedException;

    boolean isDone();

    /** Why the query was refused or failed, or null. */
    String error();
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

  @Override
  void close();
}
