package io.spyglass.engine;

import io.spyglass.core.query.QueryCombiner;
import io.spyglass.engine.Engine.AtCut;
import io.spyglass.engine.Engine.Checkpoint;
import io.spyglass.engine.Engine.QueryState;
import io.spyglass.sources.Source;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * The engine's checkpoints and looks at merged state. A checkpoint is a barrier served by the
 * reader between two polls of the source (or by the caller when nothing reads): it waits until
 * every batch read is back in the pool, runs the checkpoint's {@link AtCut}, and keeps reading
 * paused until the combiner has merged every partial and saved the queries named. A look waits only
 * for the merge. Both fail when the engine stops first.
 */
final class Barriers {
  private record Barrier(AtCut atCut, CompletableFuture<Checkpoint> done) {}

  private final Closing closing;
  private final BatchPool batches;
  private final Source source;
  private final CombinerInbox combiner;
  private final Queue<Barrier> waiting = new ConcurrentLinkedQueue<>();

  /** Futures that complete on the combiner's thread, failed at once when the engine stops. */
  private final Set<CompletableFuture<?>> pending = ConcurrentHashMap.newKeySet();

  private final Object lock = new Object();

  /** Whether a reader thread serves the barriers; otherwise whoever asks does. */
  private volatile boolean readerRunning;

  /**
   * @param closing whether the engine closes: what waits then fails
   * @param batches the batch pool, all back when every record read was processed
   * @param source the source, for its position at a cut
   * @param combiner the combiner's inbox, for looks after a flush of every worker
   */
  Barriers(Closing closing, BatchPool batches, Source source, CombinerInbox combiner) {
    this.closing = closing;
    this.batches = batches;
    this.source = source;
    this.combiner = combiner;
  }

  /** See {@link Engine#checkpoint}. */
  CompletableFuture<Checkpoint> checkpoint(AtCut atCut) {
    CompletableFuture<Checkpoint> done = new CompletableFuture<>();
    waiting.add(new Barrier(atCut, done));
    if (!readerRunning) {
      serveWaiting(); // no reader thread to do it: nothing is being read anyway
    }
    if (closing.isSet()) {
      failAll();
    }
    return done;
  }

  /** See {@link Engine#inspect}. */
  <T> CompletableFuture<T> inspect(String queryId, Function<QueryCombiner, T> look) {
    CompletableFuture<T> done = new CompletableFuture<>();
    pending.add(done);
    combiner.afterFlush(
        running -> {
          pending.remove(done);
          Combiner.Running r = running.get(queryId);
          try {
            done.complete(r == null ? null : look.apply(Combiner.combiner(r)));
          } catch (RuntimeException e) {
            done.completeExceptionally(e);
          }
        });
    if (closing.isSet()) {
      failAll();
    }
    return done;
  }

  /** The reader thread starts: from now on it serves the barriers between polls. */
  void readerStarted() {
    synchronized (lock) {
      readerRunning = true;
    }
  }

  /** The reader's end: checkpoints asked for from now on are served by whoever asks. */
  void readerEnded() {
    synchronized (lock) {
      readerRunning = false;
    }
    serveWaiting();
  }

  /** Serves the checkpoints asked for: on the reader thread between polls, or on the caller's. */
  void serveWaiting() {
    if (waiting.isEmpty()) {
      return;
    }
    synchronized (lock) {
      Barrier b;
      while ((b = waiting.poll()) != null) {
        serve(b);
      }
    }
  }

  private void serve(Barrier b) {
    try {
      // every batch back in the pool: every record read was processed by a worker
      while (!batches.everyBatchReturned() && !closing.isSet()) {
        LockSupport.parkNanos(100_000);
      }
      if (closing.isSet()) {
        b.done().completeExceptionally(stoppedException());
        return;
      }
      long position = source.position();
      Collection<String> ids = b.atCut().at(position);
      CompletableFuture<Checkpoint> merged = new CompletableFuture<>();
      pending.add(merged);
      combiner.afterCut(
          running -> {
            Map<String, QueryState> states = new HashMap<>();
            for (String id : ids) {
              Combiner.Running r = running.get(id);
              QueryCombiner c = r == null ? null : Combiner.combiner(r);
              if (c != null && !c.isDone()) {
                states.put(id, new QueryState(c.snapshot(), Combiner.handle(r).emitted()));
              }
            }
            pending.remove(merged);
            merged.complete(new Checkpoint(position, Map.copyOf(states)));
          });
      // reading stays paused until the workers' flush is done: a batch read meanwhile would be
      // merged before the cut
      while (!merged.isDone()) {
        try {
          merged.get(50, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
          if (closing.isSet()) {
            merged.completeExceptionally(stoppedException());
          }
        }
      }
      b.done().complete(merged.join());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      b.done().completeExceptionally(e);
    } catch (ExecutionException e) {
      b.done().completeExceptionally(e.getCause());
    } catch (RuntimeException e) {
      b.done().completeExceptionally(e);
    }
  }

  private static IllegalStateException stoppedException() {
    return new IllegalStateException("The engine stopped before the checkpoint was taken");
  }

  /** Fails every checkpoint and look still waiting: the engine stopped. */
  void failAll() {
    Barrier b;
    while ((b = waiting.poll()) != null) {
      b.done().completeExceptionally(stoppedException());
    }
    for (CompletableFuture<?> f : pending) {
      f.completeExceptionally(stoppedException());
    }
    pending.clear();
  }
}
