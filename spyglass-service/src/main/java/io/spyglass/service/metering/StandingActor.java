package io.spyglass.service.metering;

import io.spyglass.core.query.QueryStats;
import io.spyglass.core.result.Result;
import io.spyglass.service.runtime.CheckpointMarker;
import io.spyglass.service.runtime.QueryRuntime;
import io.spyglass.service.runtime.ResultListener;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that owns the standing queries ({@code spyglass-standing}): every change, result and
 * step of a checkpoint runs on it, one at a time, so that their bookkeeping needs no lock. Callers
 * off it wait for what they ask ({@link #call}); each standing query's results, checkpoint markers
 * and end come to it from the runtime's dispatcher through its {@link #listener}, in order, without
 * ever blocking the dispatcher: past {@link #MAX_WAITING} of a query's results waiting here, its
 * listener is not ready, and the runtime holds the rest (stopping its source rather than dropping
 * them) until this thread has taken some.
 */
final class StandingActor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StandingActor.class);

  /** A standing query's results waiting for this thread, at most. */
  static final int MAX_WAITING = 256;

  /** How long a caller waits for what it asked. */
  static final long CALL_TIMEOUT_S = 120;

  /** What the owning thread does with what a standing query's stream brings besides results. */
  interface Stream {
    /** A checkpoint's marker, after every result before its cut. */
    void marked(StandingQuery q, CheckpointMarker marker);

    /** The query ended, after its last result and marker. */
    void ended(StandingQuery q, String error);
  }

  private final QueryRuntime runtime;
  private final ScheduledExecutorService owner;
  private volatile boolean closed;

  StandingActor(QueryRuntime runtime) {
    this.runtime = runtime;
    this.owner =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "spyglass-standing");
              t.setDaemon(true);
              return t;
            });
  }

  @FunctionalInterface
  interface Task<T> {
    T run() throws Exception;
  }

  /**
   * Runs {@code task} on the owning thread and waits for it.
   *
   * @throws StandingQueries.Refused 503 when the service is stopping or it takes over 120 s
   */
  <T> T call(Task<T> task) {
    return callAndAwait(() -> CompletableFuture.completedFuture(task.run()));
  }

  /**
   * Runs {@code task} on the owning thread, then waits for the future it gives (a checkpoint, which
   * completes on the owning thread later), 120 s in all.
   */
  <T> T callAndAwait(Task<CompletableFuture<T>> task) {
    if (closed) {
      throw new StandingQueries.Refused(503, "The service is stopping");
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    try {
      owner.execute(
          () -> {
            try {
              task.run()
                  .whenComplete(
                      (v, e) -> {
                        if (e != null) {
                          result.completeExceptionally(e);
                        } else {
                          result.complete(v);
                        }
                      });
            } catch (Throwable e) {
              result.completeExceptionally(e);
            }
          });
      return result.get(CALL_TIMEOUT_S, TimeUnit.SECONDS);
    } catch (RejectedExecutionException e) {
      throw new StandingQueries.Refused(503, "The service is stopping");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StandingQueries.Refused(503, "Interrupted");
    } catch (TimeoutException e) {
      throw new StandingQueries.Refused(
          503, "The standing queries did not answer within " + CALL_TIMEOUT_S + " s");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
        cause = cause.getCause();
      }
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(cause);
    }
  }

  /** Runs {@code r} on the owning thread later; nothing once it stops. */
  void execute(Runnable r) {
    try {
      owner.execute(() -> logged(r));
    } catch (RejectedExecutionException e) {
      // stopping: nothing more is taken
    }
  }

  /** Runs {@code r} on the owning thread in {@code delayMs}; null once it stops. */
  ScheduledFuture<?> schedule(Runnable r, long delayMs) {
    try {
      return owner.schedule(() -> logged(r), delayMs, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      return null;
    }
  }

  /** Runs {@code r} on the owning thread every {@code periodMs}, the first in a period. */
  void every(Runnable r, long periodMs) {
    owner.scheduleWithFixedDelay(() -> logged(r), periodMs, periodMs, TimeUnit.MILLISECONDS);
  }

  private static void logged(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      LOG.error("standing queries: a task failed; going on", e);
    }
  }

  /** Whether it has stopped. */
  boolean closed() {
    return closed;
  }

  /** The listener of {@code q} on the runtime: its stream, handed to the owning thread. */
  ResultListener listener(StandingQuery q, Stream stream) {
    return new Listener(q, stream);
  }

  /** The standing query of a listener of {@link #listener}; null for another listener. */
  static StandingQuery queryOf(ResultListener l) {
    return l instanceof Listener own ? own.q : null;
  }

  /** One standing query's listener: called on the runtime's dispatcher, returns at once. */
  private final class Listener implements ResultListener {
    private final StandingQuery q;
    private final Stream stream;

    /** Its results handed to the owning thread, not taken yet. */
    private final AtomicInteger waiting = new AtomicInteger();

    Listener(StandingQuery q, Stream stream) {
      this.q = q;
      this.stream = stream;
    }

    @Override
    public boolean ready() {
      return closed || waiting.get() < MAX_WAITING;
    }

    @Override
    public void onResult(Result result) {
      waiting.incrementAndGet();
      execute(
          () -> {
            try {
              q.apply(result);
            } finally {
              if (waiting.decrementAndGet() == MAX_WAITING - 1) {
                runtime.resumeDelivery(q.id()); // it said it was not ready: it is
              }
            }
          });
    }

    @Override
    public void onCheckpoint(CheckpointMarker marker) {
      execute(() -> stream.marked(q, marker));
    }

    @Override
    public void onEnd(String error, QueryStats last) {
      execute(() -> stream.ended(q, error));
    }
  }

  /** Stops the owning thread: what waits for it is dropped. */
  @Override
  public void close() {
    closed = true;
    owner.shutdownNow();
    try {
      owner.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
