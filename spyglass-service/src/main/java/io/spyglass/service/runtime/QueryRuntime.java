package io.spyglass.service.runtime;

import io.spyglass.core.query.QueryStats;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.service.health.Health;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where the service's queries run: the embedded engine in this process ({@link EmbeddedRuntime}),
 * or a runtime elsewhere reached through a message bus. The service's routes only see this
 * interface: submit a query, end it, read its progress and the stream's counters. A query comes
 * checked ({@link CheckedQuery}: compiled once, under the service's limits), and runs as checked:
 * the runtime does not compile it again, and keeps to its limits.
 *
 * <p>Implementations are thread-safe. Results and ends are delivered to each query's {@link
 * ResultListener} on a thread of the runtime's, in order.
 */
public interface QueryRuntime extends AutoCloseable {
  /**
   * Starts a query over the records read from now on, its plan and limits as checked.
   *
   * @param id the query's id, unique among the running ones
   * @param listener receives its results, then its end, on a runtime thread; it must not block
   * @throws IllegalStateException when the runtime cannot take more queries or has stopped
   */
  void submit(String id, CheckedQuery query, ResultListener listener);

  /**
   * Which of a query's sinks (checked and resolved already) this runtime writes itself, better than
   * the service could from the results it reads: the Flink job writes Kafka sinks on its own
   * cluster in the transaction of its replies. The service delivers the others. None by default.
   */
  default List<io.spyglass.sinks.SinkSpec> ownSinks(List<io.spyglass.sinks.SinkSpec> sinks) {
    return List.of();
  }

  /**
   * As {@link #submit(String, CheckedQuery, ResultListener)}, the runtime also writing each result
   * to {@code own} (what {@link #ownSinks} chose). By default it has none and ignores them.
   */
  default void submit(
      String id,
      CheckedQuery query,
      ResultListener listener,
      List<io.spyglass.sinks.SinkSpec> own) {
    submit(id, query, listener);
  }

  /**
   * Ends a query now: it emits its final result, holding every record read until then, and its
   * listener's {@link ResultListener#onEnd} follows. Nothing happens when it is not running.
   */
  void kill(String id);

  /** Ends every running query as {@link #kill} does: what a shutdown does first. */
  void killAll();

  /** Counters of every running query, by id (as of the runtime's last tick). */
  Map<String, QueryStats> progress();

  /**
   * Counters of one query: while its listener receives its final result, the counters that result
   * holds. Empty when the runtime does not know the query or has not counted it yet.
   */
  Optional<QueryStats> progress(String id);

  /** Counters of the stream. */
  RuntimeStats stats();

  /**
   * Hands {@code sampler} one record in {@code everyN} as raw JSON bytes, on a runtime thread
   * (valid only during the call, which must return at once). Null stops sampling.
   */
  void sampleRecords(int everyN, RecordSampler sampler);

  /**
   * About the bytes one record of the stream takes while a query holds it in this process (a raw
   * query holds its records until it emits them), for the service's result memory; 0 when queries
   * hold nothing in this process (they run elsewhere).
   */
  default long recordBytesHeld() {
    return 0;
  }

  /**
   * What keeps the runtime from doing its job now (a thread of its own that died, a source that
   * ended), as sentences for people; empty when nothing does. Must return at once.
   */
  default List<Health.Problem> problems() {
    return List.of();
  }

  /** A short description for people, e.g. {@code embedded engine on gen (2 workers)}. */
  String describe();

  /** Stops the runtime at once; queries still running end without a final result. */
  @Override
  void close();

  /** Sees one record's bytes. */
  @FunctionalInterface
  interface RecordSampler {
    void sample(byte[] data, int offset, int length);
  }
}
