package io.spyglass.service.query;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One query's results as they were emitted, numbered from 1, for every stream that reads them: a
 * late subscriber reads from the first, a reconnecting one from after the last it saw. Holds the
 * newest {@code maxEvents} results and at most about {@code maxBytes} of them (at least the last).
 *
 * <p>Thread-safe. One writer (the runtime's thread) appends; subscribers are woken after each
 * append and at the end, and read at their own pace with {@link #after}.
 */
public final class ResultLog {
  /** Reads the log when woken; {@link #wake} must return at once. */
  public interface Subscriber {
    void wake();
  }

  /**
   * One result: its number, its JSON (exactly as {@code spyglass query --format json} prints it),
   * whether it is the query's last, and when the runtime emitted it (epoch ms).
   */
  public static final class Event {
    private final long id;
    private final String json;
    private final boolean isFinal;
    private final long emitMs;
    private volatile byte[] sse;

    Event(long id, String json, boolean isFinal, long emitMs) {
      this.id = id;
      this.json = json;
      this.isFinal = isFinal;
      this.emitMs = emitMs;
    }

    public long id() {
      return id;
    }

    public String json() {
      return json;
    }

    public boolean isFinal() {
      return isFinal;
    }

    public long emitMs() {
      return emitMs;
    }

    /** The event as Server-Sent Events bytes, encoded once for every stream that sends it. */
    public byte[] sse() {
      byte[] b = sse;
      if (b == null) {
        b =
            ("id: " + id + "\nevent: result\ndata: " + json + "\n\n")
                .getBytes(StandardCharsets.UTF_8);
        sse = b;
      }
      return b;
    }
  }

  private final int maxEvents;
  private final long maxBytes;
  private final List<Event> events = new ArrayList<>();
  private final List<Subscriber> subscribers = new CopyOnWriteArrayList<>();
  private int head;
  private long bytes;
  private long lastId;
  private boolean ended;
  private String error;

  public ResultLog(int maxEvents, long maxBytes) {
    if (maxEvents < 1 || maxBytes < 1) {
      throw new IllegalArgumentException("a result log keeps at least one result");
    }
    this.maxEvents = maxEvents;
    this.maxBytes = maxBytes;
  }

  /** Appends a result and wakes every subscriber. */
  public Event append(String json, boolean isFinal, long emitMs) {
    Event e;
    synchronized (this) {
      e = new Event(++lastId, json, isFinal, emitMs);
      events.add(e);
      bytes += json.length();
      while (events.size() - head > 1 && (events.size() - head > maxEvents || bytes > maxBytes)) {
        bytes -= events.get(head).json.length();
        events.set(head++, null);
      }
      if (head > 1024 && head > events.size() / 2) {
        events.subList(0, head).clear();
        head = 0;
      }
    }
    wakeAll();
    return e;
  }

  /** Marks the log complete: no result follows. {@code error} says why it ended early, or null. */
  public void end(String error) {
    synchronized (this) {
      if (ended) {
        return;
      }
      ended = true;
      this.error = error;
    }
    wakeAll();
  }

  private void wakeAll() {
    for (Subscriber s : subscribers) {
      s.wake();
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

  /** The number of the newest result, 0 before the first. */
  public synchronized long lastId() {
    return lastId;
  }

  /** The newest result, or null before the first. */
  public synchronized Event last() {
    return events.size() > head ? events.get(events.size() - 1) : null;
  }

  /** The number of the oldest result kept, or {@code lastId() + 1} when none is. */
  public synchronized long firstKeptId() {
    return events.size() > head ? events.get(head).id : lastId + 1;
  }

  public synchronized boolean isEnded() {
    return ended;
  }

  /** Why the query ended early, or null. */
  public synchronized String error() {
    return error;
  }

  public void subscribe(Subscriber s) {
    subscribers.add(s);
    s.wake();
  }

  public void unsubscribe(Subscriber s) {
    subscribers.remove(s);
  }
}
