package io.spyglass.service.runtime;

import io.spyglass.core.query.QueryStats;
import io.spyglass.core.result.Result;
import io.spyglass.core.run.RunningQuery;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves every query's results from its {@link RunningQuery} to its {@link ResultListener}, in
 * order, on one thread of its own, whichever runtime runs it: a query signals it has news ({@link
 * RunningQuery#onUpdate}), so thousands of queries cost nothing while they are quiet. A listener
 * that throws stops its query alone; the others go on.
 */
final class ResultDispatcher {
  private static final Logger LOG = LoggerFactory.getLogger(ResultDispatcher.class);

  private final Map<String, Running> running = new ConcurrentHashMap<>();
  private final BlockingQueue<Running> news = new LinkedBlockingQueue<>();
  private final LongAdder delivered = new LongAdder();
  private final Thread thread;
  private final long idleMs;
  private final Runnable everyRound;
  private volatile boolean closed;

  /**
   * One query: its running query, its listener, and whether it waits in {@link #news} already
   * (itself, as an {@link AtomicBoolean}); run by its query when it has news.
   */
  @SuppressWarnings("serial") // never serialized
  final class Running extends AtomicBoolean implements Runnable {
    final String id;
    final RunningQuery query;
    final ResultListener listener;
    final long submittedMs;

    /** Its listener heard its end; touched by the dispatching thread (and by close, after it). */
    boolean ended;

    Running(String id, RunningQuery query, ResultListener listener, long submittedMs) {
      this.id = id;
      this.query = query;
      this.listener = listener;
      this.submittedMs = submittedMs;
    }

    @Override
    public void run() {
      signal(this);
    }
  }

  /**
   * A dispatcher; its thread runs from {@link #start}.
   *
   * @param idleMs how long it waits for news before it runs {@code everyRound} anyway
   * @param everyRound runs on the dispatching thread after each piece of news or wait (e.g. to end
   *     queries that never started); null for nothing
   */
  ResultDispatcher(String threadName, long idleMs, Runnable everyRound) {
    this.idleMs = idleMs;
    this.everyRound = everyRound;
    this.thread = new Thread(this::dispatch, threadName);
    thread.setDaemon(true);
  }

  /** Starts the dispatching thread. */
  ResultDispatcher start() {
    thread.start();
    return this;
  }

  /** Delivers {@code query}'s results to {@code listener} from now on, those queued already too. */
  void add(String id, RunningQuery query, ResultListener listener, long submittedMs) {
    Running r = new Running(id, query, listener, submittedMs);
    running.put(id, r);
    query.onUpdate(r);
    signal(r); // results queued before the listener was set
  }

  /** The query of {@code id} whose end its listener has not heard yet; null when none. */
  Running get(String id) {
    return running.get(id);
  }

  /** The queries whose end their listeners have not heard yet. */
  Collection<Running> running() {
    return running.values();
  }

  /** Results handed to listeners since the start. */
  long delivered() {
    return delivered.sum();
  }

  /** Whether the dispatching thread lives (it dies only of a failure of its own, or on close). */
  boolean isAlive() {
    return thread.isAlive();
  }

  private void signal(Running r) {
    if (r.compareAndSet(false, true)) {
      news.add(r);
    }
  }

  private void dispatch() {
    while (!closed) {
      try {
        Running r = news.poll(idleMs, TimeUnit.MILLISECONDS);
        if (r != null) {
          r.set(false); // news arriving from now on queues it again
          deliverOrFail(r);
        }
        if (everyRound != null) {
          everyRound.run();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        LOG.error("results dispatch failed; going on", e);
      }
    }
  }

  /** Delivers; when the listener throws, the query is stopped and ends with the error. */
  private void deliverOrFail(Running r) throws InterruptedException {
    try {
      deliver(r);
    } catch (InterruptedException e) {
      throw e;
    } catch (Throwable t) { // one query's failure must not stop every query's results
      failed(r, t);
    }
  }

  private void deliver(Running r) throws InterruptedException {
    if (r.ended) {
      return;
    }
    RunningQuery q = r.query;
    Result result;
    while ((result = q.poll(0, TimeUnit.MILLISECONDS)) != null) {
      delivered.increment();
      r.listener.onResult(result);
    }
    if (q.isDone()) { // results queued between the polls and the end are taken now
      while ((result = q.poll(0, TimeUnit.MILLISECONDS)) != null) {
        delivered.increment();
        r.listener.onResult(result);
      }
      end(r, q.error(), q.stats().orElse(null));
    }
  }

  /** Tells a query's listener of its end (once), here and now, and forgets the query. */
  void end(Running r, String error, QueryStats last) {
    if (r.ended) {
      return;
    }
    r.ended = true;
    running.remove(r.id, r);
    r.listener.onEnd(error, last);
  }

  /**
   * A query's listener threw: the query is stopped in its runtime and ends with the error; the
   * other queries go on.
   */
  private void failed(Running r, Throwable t) {
    LOG.error("delivering the results of {} failed; the query is stopped", r.id, t);
    if (r.ended) {
      return; // it failed in its end: nothing more to tell
    }
    r.ended = true;
    running.remove(r.id, r);
    try {
      r.query.kill();
    } catch (RuntimeException e) {
      LOG.warn("could not stop {} in its runtime: {}", r.id, e.toString());
    }
    try {
      r.listener.onEnd(ResultListener.failure(t), null);
    } catch (Throwable again) {
      LOG.error("result listener of {} failed at its end", r.id, again);
    }
  }

  /**
   * Stops the dispatching thread, then delivers, on the caller's thread, what each query still has
   * (its end, when its runtime ended it).
   */
  void close() {
    closed = true;
    thread.interrupt();
    try {
      thread.join(2_000);
      for (Running r : running.values()) {
        deliverOrFail(r);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
