package io.spyglass.service.runtime;

import io.spyglass.core.query.QueryStats;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.service.health.Health;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

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

  // Standing queries: queries without end that survive restarts, their state saved at checkpoints.
  // A runtime that does not run them yet says so (the defaults).

  /**
   * Starts a standing query over the records read from now on, resuming from the state {@code
   * options} carries: before the runtime reads (at a start), every record after the state's
   * checkpoint reaches it. Its results are never dropped (see {@link ResultListener#ready}).
   *
   * @throws IllegalStateException when the runtime cannot take more queries or has stopped
   * @throws UnsupportedOperationException when this runtime does not run standing queries
   */
  default void submitStanding(
      String id, CheckedQuery query, StandingOptions options, ResultListener listener) {
    throw notHere("run standing queries");
  }

  /**
   * Waits until a query runs everywhere the runtime reads: records read from then on reach it. True
   * when it does within the timeout, or has ended, or is unknown.
   */
  default boolean awaitRunning(String id, long timeout, TimeUnit unit) throws InterruptedException {
    return true;
  }

  /**
   * Takes a checkpoint: the stream is cut between two records, {@code startAtCut} start exactly
   * there (they see the records after it), and the state of each of {@code save} that still runs,
   * and of each started, is taken at the cut. Each such query's listener then gets the checkpoint's
   * {@link CheckpointMarker} in order with its results: what it got before the marker is what the
   * state has seen. Its results after the cut wait for the marker (the others' do not).
   *
   * @param save ids of running standing queries whose state to take
   * @param startAtCut standing queries to start at the cut (none: an empty list)
   * @return completes with the cut once the states are taken (their markers follow in each stream),
   *     or fails when the runtime stops first or a query could not start (then none of {@code
   *     startAtCut} runs)
   * @throws UnsupportedOperationException when this runtime does not run standing queries
   */
  default CompletableFuture<CheckpointCut> checkpoint(
      Collection<String> save, List<StandingStart> startAtCut) {
    throw notHere("take checkpoints of standing queries");
  }

  /**
   * Looks at a running query's merged state, as of every record read until the look (reading goes
   * on meanwhile).
   *
   * @param nowMs the time its open windows are shown at
   * @param windows whether to take its open windows ({@link OpenWindows#windows()}); without, the
   *     look is cheaper and gives its event time only
   * @return completes with the look, with null when the query is not running, or fails when the
   *     runtime stops first
   * @throws UnsupportedOperationException when this runtime does not show a query's state
   */
  default CompletableFuture<OpenWindows> inspect(String id, long nowMs, boolean windows) {
    throw notHere("show a running query's open windows");
  }

  /**
   * Delivers again to a query's listener that was not {@link ResultListener#ready ready} and now
   * is. Nothing happens when the query is not running.
   */
  default void resumeDelivery(String id) {}

  /**
   * Stops a query at once, without a final result: it emits nothing more, and its listener's {@link
   * ResultListener#onEnd} follows. Nothing happens when it is not running. By default, as {@link
   * #kill} (a runtime that cannot stop a query without its final result).
   */
  default void cancel(String id) {
    kill(id);
  }

  /** The refusal of a runtime that does not do {@code what} yet. */
  private UnsupportedOperationException notHere(String what) {
    return new UnsupportedOperationException(
        "The "
            + describe()
            + " does not "
            + what
            + " yet: run the service with the embedded runtime (--runtime embedded) for standing"
            + " queries");
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
