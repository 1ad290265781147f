package io.spyglass.service.query;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One query's results as they were emitted, numbered from 1, for every stream that reads them: a
 * late subscriber reads from the first, a reconnecting one from after the last it saw. Holds the
 * newest {@code maxEvents} results and at most about {@code maxBytes} of them (at least the last),
 * each once, as the bytes of its Server-Sent Event; what it holds is counted on a {@link Meter}
 * (its owner's share of the service's result memory), which may make it {@link #trimOldest drop old
 * results} or {@link #release drop them all} sooner.
 *
 * <p>Thread-safe. One writer (the runtime's thread) appends; subscribers are woken after each
 * append and at the end (on the writer's thread, and on delivery threads too when there are many of
 * them), and read at their own pace with {@link #after} or {@link #next}. What a stream that keeps
 * up reads at each result (the newest result, its number, the oldest kept, the end) is published in
 * volatile fields and read without the log's lock: a result fanned out to a thousand streams on
 * several threads at once had them all take turns at the lock, five times a stream.
 */
public final class ResultLog {
  private static final Logger LOG = LoggerFactory.getLogger(ResultLog.class);

  /** Bytes counted for a result beside its own: the objects that hold it. */
  static final int EVENT_OVERHEAD = 64;

  /**
   * Reads the log when woken; {@link #wake} must return at once. One that throws is unsubscribed
   * (and the error logged): the query and its other subscribers go on without it.
   */
  public interface Subscriber {
    void wake();
  }

  /** Where a log counts the bytes it holds; called without the log's lock, must not block. */
  public interface Meter {
    Meter NONE = bytes -> {};

    void add(long bytes);
  }

  /**
   * One result: its number, its JSON (exactly as {@code spyglass query --format json} prints it),
   * whether it is the query's last, and when the runtime emitted it (epoch ms). Held once, as the
   * bytes of its Server-Sent Event.
   */
  public static final class Event {
    private final long id;
    private final byte[] sse;
    private final int jsonStart;
    private final boolean isFinal;
    private final long emitMs;

    Event(long id, byte[] json, boolean isFinal, long emitMs) {
      this.id = id;
      byte[] head = ("id: " + id + "\nevent: result\ndata: ").getBytes(StandardCharsets.UTF_8);
      this.sse = new byte[head.length + json.length + 2];
      System.arraycopy(head, 0, sse, 0, head.length);
      System.arraycopy(json, 0, sse, head.length, json.length);
      sse[sse.length - 2] = '\n';
      sse[sse.length - 1] = '\n';
      this.jsonStart = head.length;
      this.isFinal = isFinal;
      this.emitMs = emitMs;
    }

    public long id() {
      return id;
    }

    /** The result's JSON, decoded anew at each call. */
    public String json() {
      return new String(sse, jsonStart, jsonLength(), StandardCharsets.UTF_8);
    }

    /** The length of its JSON in UTF-8 bytes. */
    public int jsonLength() {
      return sse.length - 2 - jsonStart;
    }

    /** Copies its JSON, in UTF-8, into {@code to} from {@code at}; returns the index after it. */
    public int copyJson(byte[] to, int at) {
      int n = jsonLength();
      System.arraycopy(sse, jsonStart, to, at, n);
      return at + n;
    }

    public boolean isFinal() {
      return isFinal;
    }

    public long emitMs() {
      return emitMs;
    }

    /**
     * The event as Server-Sent Events bytes, the same array for every stream that sends it: callers
     * must not change it.
     */
    public byte[] sse() {
      return sse;
    }

    /** The bytes it is counted for. */
    long cost() {
      return sse.length + EVENT_OVERHEAD;
    }
  }

  /** About the bytes a result of {@code jsonBytes} of JSON is counted for once in a log. */
  static long cost(long jsonBytes) {
    return jsonBytes + 48 + EVENT_OVERHEAD;
  }

  private final int maxEvents;
  private final long maxBytes;
  private final Meter meter;

  /** The results kept from {@link #head} on; {@link #NO_EVENTS} until the first (idle queries). */
  private List<Event> events = NO_EVENTS;

  private static final List<Event> NO_EVENTS = List.of();

  // the one subscriber, or an array of none or of two or more: copied on write, under this;
  // nothing held for a query without a reader, no array for one with one (ten thousand idle
  // queries with their streams), and read without a lock at each append
  private volatile Object subscribers = NO_SUBSCRIBERS;

  private static final Subscriber[] NO_SUBSCRIBERS = new Subscriber[0];
  private int head;
  private long bytes;

  // written under this, read without it (see the class's comment)
  private volatile long lastId;
  private volatile boolean ended;
  private volatile boolean released;
  private volatile String error;
  private volatile Event newest; // the newest kept, null when none is
  private volatile long firstKept = 1; // the number of the oldest kept, lastId + 1 when none is

  public ResultLog(int maxEvents, long maxBytes) {
    this(maxEvents, maxBytes, Meter.NONE);
  }

  public ResultLog(int maxEvents, long maxBytes, Meter meter) {
    if (maxEvents < 1 || maxBytes < 1) {
      throw new IllegalArgumentException("a result log keeps at least one result");
    }
    this.maxEvents = maxEvents;
    this.maxBytes = maxBytes;
    this.meter = meter;
  }

  /** Appends a result and wakes every subscriber. */
  public Event append(String json, boolean isFinal, long emitMs) {
    return append(json.getBytes(StandardCharsets.UTF_8), isFinal, emitMs);
  }

  /** Appends a result, its JSON in UTF-8, and wakes every subscriber. */
  public Event append(byte[] json, boolean isFinal, long emitMs) {
    Event e;
    long delta;
    synchronized (this) {
      e = new Event(++lastId, json, isFinal, emitMs);
      if (events == NO_EVENTS) {
        events = new ArrayList<>();
      }
      events.add(e);
      bytes += e.cost();
      delta = e.cost();
      if (released) {
        delta -= dropOldest(Long.MAX_VALUE, 0); // forgotten: it keeps nothing more
      } else {
        while (events.size() - head > 1 && (events.size() - head > maxEvents || bytes > maxBytes)) {
          delta -= dropHead();
        }
      }
      compact();
      publish();
    }
    meter.add(delta);
    wakeAll();
    return e;
  }

  private long dropHead() {
    long c = events.get(head).cost();
    bytes -= c;
    events.set(head++, null);
    return c;
  }

  /** Drops the oldest results until {@code want} bytes are freed or {@code keep} are left. */
  private long dropOldest(long want, int keep) {
    long freed = 0;
    while (events.size() - head > keep && freed < want) {
      freed += dropHead();
    }
    return freed;
  }

  private void compact() {
    if (head > 0 && ((head > 1024 && head > events.size() / 2) || head == events.size())) {
      events.subList(0, head).clear();
      head = 0;
    }
  }

  /** What readers read without the lock, after a change; under the lock. */
  private void publish() {
    boolean any = events.size() > head;
    newest = any ? events.get(events.size() - 1) : null;
    firstKept = any ? events.get(head).id : lastId + 1;
  }

  /**
   * Drops the oldest results, keeping the newest {@code keep}, until about {@code want} bytes are
   * freed; returns the bytes freed. Streams that had not read them yet fall behind.
   */
  public long trimOldest(long want, int keep) {
    long freed;
    synchronized (this) {
      freed = dropOldest(want, keep);
      compact();
      publish();
    }
    meter.add(-freed);
    return freed;
  }

  /**
   * Drops every result, now and from now on (the query is forgotten); returns the bytes freed.
   * Streams still reading find the results gone when they next read. Subscribers are not woken:
   * this may be called under locks that their {@link Subscriber#wake} takes.
   */
  public long release() {
    long freed;
    synchronized (this) {
      released = true;
      freed = dropOldest(Long.MAX_VALUE, 0);
      compact();
      publish();
    }
    meter.add(-freed);
    return freed;
  }

  /** Whether its results were dropped for good ({@link #release}). */
  public boolean isReleased() {
    return released;
  }

  /** The bytes it holds now. */
  public synchronized long keptBytes() {
    return bytes;
  }

  /** The bytes of its newest result, which it keeps whatever the pressure; 0 before the first. */
  public synchronized long newestBytes() {
    return events.size() > head ? events.get(events.size() - 1).cost() : 0;
  }

  /** Marks the log complete: no result follows. {@code error} says why it ended early, or null. */
  public void end(String error) {
    synchronized (this) {
      if (ended) {
        return;
      }
      this.error = error; // before ended: one who sees it ended sees why
      ended = true;
    }
    wakeAll();
  }

  /**
   * Wakes every subscriber. Many (a result fanned out to {@value #FAN_OUT_SLICE} streams or more)
   * are woken in slices on the {@link #DELIVERY} threads, one slice here: each wake writes to a
   * connection, and a thousand of them in a row on one thread made the last stream wait for the
   * other 999 writes (p99 of 554 ms from a window's emission to its event, 1,000 clients on one
   * query). A subscriber reads the log at its own cursor under its own lock, so wakes on several
   * threads keep each stream's order.
   */
  private void wakeAll() {
    Object now = subscribers;
    if (now instanceof Subscriber one) {
      wake(one);
      return;
    }
    Subscriber[] all = (Subscriber[]) now;
    if (all.length < FAN_OUT_SLICE * 2) {
      for (Subscriber s : all) {
        wake(s);
      }
      return;
    }
    int slices = Math.min(DELIVERY_THREADS + 1, (all.length + FAN_OUT_SLICE - 1) / FAN_OUT_SLICE);
    int per = (all.length + slices - 1) / slices;
    for (int from = per; from < all.length; from += per) {
      int start = from;
      int end = Math.min(all.length, from + per);
      try {
        DELIVERY.execute(
            () -> {
              for (int i = start; i < end; i++) {
                wake(all[i]);
              }
            });
      } catch (java.util.concurrent.RejectedExecutionException e) {
        for (int i = start; i < end; i++) {
          wake(all[i]);
        }
      }
    }
    for (int i = 0; i < Math.min(per, all.length); i++) {
      wake(all[i]);
    }
  }

  /** Subscribers woken by one thread at least, before a fan-out is sliced. */
  static final int FAN_OUT_SLICE = 32;

  /** The threads that wake slices of a large fan-out, besides the appending one. */
  static final int DELIVERY_THREADS = Math.max(1, Runtime.getRuntime().availableProcessors() - 1);

  private static final java.util.concurrent.ExecutorService DELIVERY =
      java.util.concurrent.Executors.newFixedThreadPool(
          DELIVERY_THREADS,
          new java.util.concurrent.ThreadFactory() {
            private final java.util.concurrent.atomic.AtomicInteger n =
                new java.util.concurrent.atomic.AtomicInteger();

            @Override
            public Thread newThread(Runnable r) {
              Thread t = new Thread(r, "spyglass-deliver-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            }
          });

  /** Wakes one subscriber; one that throws reads no more, and the others are not disturbed. */
  private void wake(Subscriber s) {
    try {
      s.wake();
    } catch (Throwable t) {
      unsubscribe(s);
      LOG.error("a reader of a query's results failed; it is unsubscribed, the others go on", t);
    }
  }

  /**
   * Up to {@code max} events after the one numbered {@code afterId}, oldest first. When results
   * after it are no longer kept, the list starts with the oldest kept (its id tells the gap).
   */
  public synchronized List<Event> after(long afterId, int max) {
    int size = events.size() - head;
    if (size == 0 || afterId >= lastId) {
      return List.of();
    }
    long firstId = events.get(head).id;
    int from = (int) Math.max(0, afterId + 1 - firstId);
    int to = (int) Math.min(size, (long) from + max);
    return new ArrayList<>(events.subList(head + from, head + to));
  }

  /**
   * The result after the one numbered {@code afterId}, or the oldest kept when results after it are
   * no longer kept (its id tells the gap); null when there is none yet. Allocates nothing: for a
   * stream that sends one result at a time.
   */
  public Event next(long afterId) {
    Event n = newest;
    if (n != null && n.id == afterId + 1) {
      return n; // a stream that keeps up: the newest, without the lock
    }
    if (afterId >= lastId) {
      return null;
    }
    return nextLocked(afterId);
  }

  private synchronized Event nextLocked(long afterId) {
    int size = events.size() - head;
    if (size == 0 || afterId >= lastId) {
      return null;
    }
    long firstId = events.get(head).id;
    return events.get(head + (int) Math.max(0, afterId + 1 - firstId));
  }

  /** The number of the newest result, 0 before the first. */
  public long lastId() {
    return lastId;
  }

  /** The newest result, or null before the first (or once released). */
  public Event last() {
    return newest;
  }

  /** The number of the oldest result kept, or {@code lastId() + 1} when none is. */
  public long firstKeptId() {
    return firstKept;
  }

  public boolean isEnded() {
    return ended;
  }

  /** Why the query ended early, or null. */
  public String error() {
    return error;
  }

  /** Adds a subscriber and wakes it at once (see {@link Subscriber} for one that throws). */
  public void subscribe(Subscriber s) {
    synchronized (this) {
      Object now = subscribers;
      if (now == NO_SUBSCRIBERS) {
        subscribers = s;
      } else if (now instanceof Subscriber one) {
        subscribers = new Subscriber[] {one, s};
      } else {
        Subscriber[] all = (Subscriber[]) now;
        Subscriber[] more = java.util.Arrays.copyOf(all, all.length + 1);
        more[all.length] = s;
        subscribers = more;
      }
    }
    wake(s);
  }

  public void unsubscribe(Subscriber s) {
    synchronized (this) {
      Object now = subscribers;
      if (now == s) {
        subscribers = NO_SUBSCRIBERS;
        return;
      }
      if (!(now instanceof Subscriber[] all)) {
        return;
      }
      for (int i = 0; i < all.length; i++) {
        if (all[i] == s) {
          if (all.length == 2) {
            subscribers = all[1 - i];
            return;
          }
          Subscriber[] fewer = new Subscriber[all.length - 1];
          System.arraycopy(all, 0, fewer, 0, i);
          System.arraycopy(all, i + 1, fewer, i, all.length - i - 1);
          subscribers = fewer;
          return;
        }
      }
    }
  }

  /** How many subscribers it wakes now. */
  public int subscribers() {
    Object now = subscribers;
    return now instanceof Subscriber ? 1 : ((Subscriber[]) now).length;
  }
}
