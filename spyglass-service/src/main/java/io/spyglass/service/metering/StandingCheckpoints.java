package io.spyglass.service.metering;

import io.spyglass.service.runtime.QueryRuntime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the standing queries' checkpoints are taken and what follows each: one every period (none
 * while one is being taken), their counters, the hooks run after each written, and the bound on a
 * query's state, checked at each (a query over it stops for good). The protocol itself is the
 * {@link Checkpointer}'s.
 *
 * <p>Taken on the thread that owns the standing queries; the counters are read from any.
 */
final class StandingCheckpoints {
  private static final Logger LOG = LoggerFactory.getLogger(StandingCheckpoints.class);

  private final Checkpointer checkpointer;
  private final Map<String, StandingQuery> queries;
  private final QueryRuntime runtime;
  private final StandingStore store;
  private final StandingWindows windows;
  private final long maxStateBytes;
  private final LongSupplier clock;

  private volatile long taken;
  private volatile long failures;
  private volatile long lastMs;
  private volatile boolean closed;

  /** What runs after each checkpoint written. */
  private final List<Runnable> after = new CopyOnWriteArrayList<>();

  StandingCheckpoints(
      Checkpointer checkpointer,
      Map<String, StandingQuery> queries,
      QueryRuntime runtime,
      StandingStore store,
      StandingWindows windows,
      long maxStateBytes,
      LongSupplier clock) {
    this.checkpointer = checkpointer;
    this.queries = queries;
    this.runtime = runtime;
    this.store = store;
    this.windows = windows;
    this.maxStateBytes = maxStateBytes;
    this.clock = clock;
    this.lastMs = clock.getAsLong();
  }

  long taken() {
    return taken;
  }

  long failures() {
    return failures;
  }

  long lastMs() {
    return lastMs;
  }

  void after(Runnable r) {
    after.add(r);
  }

  /** From now on, failures are not counted: the service stops. */
  void closing() {
    closed = true;
  }

  /** The periodic checkpoint: none while one is being taken (the next period takes the next). */
  void periodic() {
    if (!closed && !checkpointer.busy()) {
      take(null, null);
    }
  }

  /**
   * Takes a checkpoint and writes it: with {@code added} started at its cut, and {@code removed}
   * forgotten; a query whose state is over its bound stops. A failure is counted, but for a query
   * that could not start for another reason than a running query not saved.
   *
   * @return completes on the owning thread with the states written, by name
   */
  CompletableFuture<Map<String, byte[]>> take(StandingQuery added, String removed) {
    return checkpointer
        .take(queries, added, removed)
        .whenComplete(
            (states, error) -> {
              if (error != null) {
                Throwable cause = Checkpointer.unwrap(error);
                if (!closed && (added == null || cause instanceof Checkpointer.NotSaved)) {
                  failures++;
                  LOG.warn("standing queries' checkpoint failed: {}", cause.toString());
                }
              } else {
                written(states);
              }
            });
  }

  private void written(Map<String, byte[]> states) {
    taken++;
    lastMs = clock.getAsLong();
    for (Runnable r : after) {
      r.run();
    }
    states.forEach(
        (name, state) -> {
          StandingQuery q = queries.get(name);
          if (q == null) {
            return;
          }
          q.stateBytes = state == null ? 0 : state.length;
          if (q.stateBytes > maxStateBytes) {
            stop(q, state);
          }
        });
    windows.lookAtEventTimes(queries.values());
  }

  /**
   * Stops a query whose state just grew over its bound, for good: its state and windows as of this
   * checkpoint stay, readable with the error; the others go on.
   */
  private void stop(StandingQuery q, byte[] state) {
    String error =
        "Its state grew to "
            + state.length
            + " bytes, over the "
            + maxStateBytes
            + " a standing query may keep (--max-standing-state): it stopped at the checkpoint of "
            + java.time.Instant.ofEpochMilli(clock.getAsLong())
            + ", its windows are as of then. Define it again with fewer groups (a narrower GROUP"
            + " BY) or shorter windows, or ask the operator to raise the bound";
    q.error = error;
    runtime.cancel(q.id());
    LOG.warn("standing query {} stopped: {}", q.name(), error);
    store.fail(q.name(), error);
    windows.openWindowsOf(q, state);
  }
}
