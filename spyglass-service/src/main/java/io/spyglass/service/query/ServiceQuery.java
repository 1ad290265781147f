package io.spyglass.service.query;

import io.spyglass.core.query.QueryStats;
import io.spyglass.core.result.Result;
import io.spyglass.service.runtime.ResultListener;
import io.spyglass.sinks.QuerySinks;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A query the service runs for someone: who submitted it, how, its results so far and its clients.
 * Thread-safe. It is its own listener in the runtime: what the runtime tells of it goes to its
 * {@link QueryManager}, which keeps its results.
 */
public final class ServiceQuery implements ResultListener {
  private final String id;
  private final String owner;
  private final String text;
  private final boolean detached;
  private final long submittedMs;
  private final long durationMs;
  private final ResultLog log;
  private final QueryManager manager;
  private volatile int clients; // through CLIENTS
  private volatile long hold; // through HOLD
  private volatile long lastClientLeftMs;
  private volatile long endedMs;
  private volatile boolean killed;
  private volatile boolean interrupted;
  private volatile String failure;
  private volatile QueryStats progress = QueryStats.NONE;
  private volatile Stop stop;
  private volatile QuerySinks sinks;

  /**
   * Why a query was ended before its own end, and by whom.
   *
   * @param reason {@code requested} (DELETE, a WebSocket {@code kill}, the Stop button), {@code
   *     no-client} (no client for the grace period), {@code max-query-duration} (a {@code
   *     STREAM(FOREVER)} query that ran its longest), {@code result-memory} (its answer outgrew its
   *     owner's share), {@code failed} (its results could not be kept) or {@code service-stop}
   * @param by the user who asked, or {@code spyglass} when the service itself ended it
   */
  public record Stop(String reason, String by) {
    /** The name that stands for the service itself in {@link #by}. */
    public static final String SERVICE = "spyglass";

    public static Stop requested(String user) {
      return new Stop("requested", user);
    }

    public static Stop byService(String reason) {
      return new Stop(reason, SERVICE);
    }
  }

  // fields updated atomically without an object of their own each (ten thousand idle queries)
  private static final VarHandle CLIENTS;
  private static final VarHandle HOLD;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      CLIENTS = l.findVarHandle(ServiceQuery.class, "clients", int.class);
      HOLD = l.findVarHandle(ServiceQuery.class, "hold", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  ServiceQuery(
      String id,
      String owner,
      String text,
      boolean detached,
      long submittedMs,
      long durationMs,
      ResultLog log,
      QueryManager manager) {
    this.id = id;
    this.owner = owner;
    this.text = text;
    this.detached = detached;
    this.submittedMs = submittedMs;
    this.durationMs = durationMs;
    this.log = log;
    this.manager = manager;
    this.lastClientLeftMs = submittedMs;
  }

  /** A result from the runtime: kept by its manager. */
  @Override
  public void onResult(Result result) {
    manager.onResult(this, result);
  }

  /** Its end in the runtime: told to its manager. */
  @Override
  public void onEnd(String error, QueryStats last) {
    manager.onEnd(this, error, last);
  }

  public String id() {
    return id;
  }

  public String owner() {
    return owner;
  }

  public String text() {
    return text;
  }

  /** Whether it runs on without clients. */
  public boolean detached() {
    return detached;
  }

  public long submittedMs() {
    return submittedMs;
  }

  /**
   * How long it runs unless ended earlier, in ms (capped at the service's longest duration); {@link
   * Long#MAX_VALUE} when it {@link #runsForever}.
   */
  public long durationMs() {
    return durationMs;
  }

  /** Whether it has no end of its own ({@code STREAM(FOREVER)}): it runs until it is stopped. */
  public boolean runsForever() {
    return durationMs == Long.MAX_VALUE;
  }

  public ResultLog log() {
    return log;
  }

  /** Where its results go besides its streams (docs/sinks.md); null when nowhere. */
  public QuerySinks sinks() {
    return sinks;
  }

  void sinks(QuerySinks s) {
    sinks = s;
  }

  public boolean isRunning() {
    return endedMs == 0;
  }

  /**
   * {@code running}, or how it ended, as its history says: {@code finished}, {@code stopped} (by
   * DELETE or for lack of clients), {@code failed} or {@code interrupted} (the service stopped).
   */
  public String state() {
    if (isRunning()) {
      return "running";
    }
    if (error() != null) {
      return "failed";
    }
    return interrupted ? "interrupted" : killed ? "stopped" : "finished";
  }

  /** When it ended (epoch ms), or 0 while it runs. */
  public long endedMs() {
    return endedMs;
  }

  /** Milliseconds since it was submitted, up to its end. */
  public long elapsedMs(long nowMs) {
    long end = endedMs == 0 ? nowMs : endedMs;
    return Math.max(0, end - submittedMs);
  }

  /** Why it failed, or null. */
  public String error() {
    String e = log.error();
    return e != null ? e : failure;
  }

  /** Why the service could not keep its results, which stopped it; null when it could. */
  String failure() {
    return failure;
  }

  void failed(String error) {
    failure = error;
  }

  /** Whether the service's stop ended it. */
  public boolean interrupted() {
    return interrupted;
  }

  void markInterrupted() {
    interrupted = true;
  }

  /** Counts what it holds of records while it runs (see {@link ResultMemory#admit}). */
  void hold(long bytes) {
    hold = bytes;
  }

  /** What it held, now given back: the second call answers 0. */
  long releaseHold() {
    return (long) HOLD.getAndSet(this, 0L);
  }

  /** Whether someone ended it (DELETE, kill, or no client left). */
  public boolean killed() {
    return killed;
  }

  /** Why and by whom it was ended before its own end; null when it was not (or not yet). */
  public Stop stop() {
    return stop;
  }

  /**
   * Since when it has had no client (epoch ms), from its submission if none ever came; 0 while a
   * client reads it or once it ended. A query without a client is an orphan: one that is not
   * detached ends after the grace period unless a client reattaches.
   */
  public long orphanedSinceMs() {
    return isRunning() && clients == 0 ? lastClientLeftMs : 0;
  }

  /** Its counters as last seen while it ran. */
  public QueryStats lastProgress() {
    return progress;
  }

  void progress(QueryStats p) {
    if (p != null) {
      progress = p;
    }
  }

  /** Streams reading its results now. */
  public int clients() {
    return clients;
  }

  long lastClientLeftMs() {
    return lastClientLeftMs;
  }

  void clientJoined() {
    CLIENTS.getAndAdd(this, 1);
  }

  void clientLeft(long nowMs) {
    if ((int) CLIENTS.getAndAdd(this, -1) == 1) {
      lastClientLeftMs = nowMs;
    }
  }

  /** Marks it ended by someone; the first reason counts. */
  synchronized void markKilled(Stop why) {
    killed = true;
    if (stop == null) {
      stop = why;
    }
  }

  /** Marks it ended; the first call counts (its final result, then the runtime's end). */
  synchronized void ended(long nowMs) {
    if (endedMs == 0) {
      endedMs = Math.max(nowMs, submittedMs + 1);
    }
  }
}
