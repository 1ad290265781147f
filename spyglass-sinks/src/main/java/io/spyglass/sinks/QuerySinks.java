package io.spyglass.sinks;

import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import java.util.ArrayList;
import java.util.List;

/**
 * One query's sinks: each result becomes one {@link SinkDocument}, offered to every sink, in the
 * order the query emitted them.
 *
 * <p>A document's key is {@code "<query id>:<window>"}: the window is {@code meta.window.number},
 * or, for a result without a window, the number after the last window's (1 for a query without
 * windows). A late update of an event-time window (no records, {@code meta.window.lateUpdate})
 * keeps the window's number and has its own key, {@code "<query id>:<window>:late-<L>"}, {@code L}
 * the query's late records so far ({@code meta.late}), so that it is not taken for the window's
 * result. A document's {@code final} is {@code meta.final}: whether it is the query's last result.
 *
 * <p>Thread-safe; {@link #offer} returns at once.
 */
public final class QuerySinks {
  private final String queryId;
  private final List<Delivery> deliveries;
  private long lastWindow;

  QuerySinks(String queryId, List<Delivery> deliveries) {
    this.queryId = queryId;
    this.deliveries = List.copyOf(deliveries);
  }

  /**
   * The documents of a query's results, keyed as its sinks key them, for a writer of its own (the
   * Flink job writes its Kafka sinks with its replies): no delivery.
   */
  public static QuerySinks keysOnly(String queryId) {
    return new QuerySinks(queryId, List.of());
  }

  /** The query's id in its documents. */
  public String queryId() {
    return queryId;
  }

  public List<Delivery> deliveries() {
    return deliveries;
  }

  public boolean isEmpty() {
    return deliveries.isEmpty();
  }

  /** Offers a result to every sink, its JSON written here. */
  public void offer(Result result) {
    if (!deliveries.isEmpty()) {
      offer(result.meta(), SinkDocument.resultJson(result));
    }
  }

  /**
   * Offers a result to every sink as its JSON ({@code {"records": [...], "meta": {...}}}, UTF-8),
   * as the caller keeps and streams it.
   */
  public void offer(Meta meta, byte[] resultJson) {
    if (deliveries.isEmpty()) {
      return;
    }
    SinkDocument doc = document(meta, resultJson);
    for (Delivery d : deliveries) {
      d.offer(doc);
    }
  }

  /**
   * The document of a result, its JSON ({@code {"records": [...], "meta": {...}}}, UTF-8) as given,
   * with its key (see the class's description). Results must come in the order the query emitted
   * them.
   */
  public synchronized SinkDocument document(Meta meta, byte[] resultJson) {
    long window;
    String key;
    if (meta.window().isPresent()) {
      Meta.WindowMeta w = meta.window().get();
      window = w.number();
      lastWindow = window;
      boolean late = w.eventWindow().map(Meta.EventWindow::lateUpdate).orElse(false);
      key = queryId + ":" + window;
      if (late) {
        key += ":late-" + meta.eventTime().map(Meta.EventTimeMeta::late).orElse(0L);
      }
    } else {
      window = lastWindow + 1;
      key = queryId + ":" + window;
    }
    return SinkDocument.ofResult(key, queryId, window, meta.isFinal(), resultJson);
  }

  /** Each sink's counters, in the order given. */
  public List<SinkStats> stats() {
    List<SinkStats> out = new ArrayList<>();
    for (Delivery d : deliveries) {
      out.add(d.stats());
    }
    return out;
  }

  /**
   * What is wrong with the sinks that fail now, a sentence each, for a result's {@code
   * meta.errors}; empty when none fails.
   */
  public List<String> failures() {
    List<String> out = List.of();
    for (Delivery d : deliveries) {
      if (!d.failing()) { // each result asks: no copy of the counters of a sink that works
        continue;
      }
      if (out.isEmpty()) {
        out = new ArrayList<>();
      }
      SinkStats s = d.stats();
      if (s.failing()) {
        out.add(
            "Sink "
                + s.spec()
                + " is failing ("
                + s.lastError()
                + "); "
                + s.delivered()
                + " delivered, "
                + s.dropped()
                + " dropped so far");
      }
    }
    return out;
  }

  /**
   * The query was forgotten: each sink is forgotten once it delivered what it holds (which goes on,
   * within the bounds).
   */
  public void release() {
    deliveries.forEach(Delivery::release);
  }
}
