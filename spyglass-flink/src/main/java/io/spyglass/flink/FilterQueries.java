package io.spyglass.flink;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.FilterSet;
import io.spyglass.core.query.Query;
import io.spyglass.core.syntax.BqlError;
import io.spyglass.core.syntax.BqlException;
import io.spyglass.flink.client.ControlMessage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.BasicTypeInfo;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queries running on one filter subtask: which are installed, when each ends, which wait for
 * the records to reach their time (clock marks), and their query messages in the operator's
 * broadcast state. Installing a query checks it (a query the core cannot take is rejected to its
 * combiner, never failing the job), and announces it to its combiner when asked.
 */
final class FilterQueries {
  private static final Logger LOG = LoggerFactory.getLogger(FilterQueries.class);

  /**
   * The running queries: id to query message, the same in every subtask: packed ({@link
   * QueryMessages}) since state version 2 of the filter, JSON before (both are restored).
   */
  static final MapStateDescriptor<String, byte[]> QUERIES =
      new MapStateDescriptor<>(
          "spyglass-queries",
          BasicTypeInfo.STRING_TYPE_INFO,
          PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);

  static final QueryLimits LIMITS = QueryLimits.DEFAULTS;

  /** What the queries need of their filter subtask. */
  interface Host {
    /** The filter's clock ({@link FilterOperator}'s). */
    long nowMs();

    /** The filter's watermark: the last tick or clock mark passed by every partition. */
    long clockMs();

    /** With clock marks: the time of the records whose partials the filter holds. */
    long epochMs();

    /** Malformed records counted since the subtask started. */
    long malformed();

    /** Bad input counted since the subtask started, the source's included. */
    long badTotal();

    /** Sends a message to the combiners (held until the operator is open). */
    void emit(FilterMessage m);
  }

  /** A query running here; {@code malformedBase} counts malformed records before it started. */
  record Installed(ControlMessage message, long endTimeMs, long malformedBase) {}

  /** When an installed query ends. */
  private record Ending(long endTimeMs, String id) {}

  /** With clock marks: a query whose receive time the records here have not reached yet. */
  record Waiting(Query query, byte[] json, boolean announce) {}

  private final OperatorSettings settings;
  private final FilterSet filters;
  private final BroadcastState<String, byte[]> stored;
  private final Host host;
  private final int subtask;
  private final int subtasks;
  private final Map<String, Installed> installed = new LinkedHashMap<>();

  /**
   * The installed queries by end time, soonest first (a query dropped meanwhile stays until its
   * time, and is then passed over): each tick looks at those due, not at every query.
   */
  private final PriorityQueue<Ending> ends =
      new PriorityQueue<>(Comparator.comparingLong(Ending::endTimeMs));

  private final List<Waiting> waiting = new ArrayList<>();

  private final QueryMessages.Packer packer = new QueryMessages.Packer();

  FilterQueries(
      OperatorSettings settings,
      FilterSet filters,
      BroadcastState<String, byte[]> stored,
      Host host,
      int subtask,
      int subtasks) {
    this.settings = settings;
    this.filters = filters;
    this.stored = stored;
    this.host = host;
    this.subtask = subtask;
    this.subtasks = subtasks;
  }

  /** The installed queries, in the order they were installed. */
  Map<String, Installed> installed() {
    return installed;
  }

  /** The queries waiting for the records to reach their time. */
  List<Waiting> waiting() {
    return waiting;
  }

  /** The stored query messages (JSON) by id, as restored. */
  Map<String, byte[]> stored() throws Exception {
    Map<String, byte[]> entries = new LinkedHashMap<>();
    for (Map.Entry<String, byte[]> e : stored.entries()) {
      entries.put(e.getKey(), QueryMessages.unpack(e.getValue()));
    }
    return entries;
  }

  /** Frees the compressor. */
  void close() {
    packer.close();
  }

  /** Starts a query here; {@code announce} tells its combiner. */
  void install(ControlMessage m, byte[] json, boolean announce) {
    String id = m.queryId();
    if (installed.containsKey(id)) {
      return;
    }
    boolean jobTime = m.receiveTimeMs() == ControlMessage.JOB_TIME;
    long clockMs = host.clockMs();
    Query query;
    try {
      // under the limits it was checked with where it was submitted, else the defaults
      query =
          Query.parse(
              id, m.bql(), m.limitsOr(LIMITS), jobTime ? Math.max(0, clockMs) : m.receiveTimeMs());
    } catch (BqlException e) {
      reject(id, json, describe(e));
      return;
    } catch (RuntimeException e) {
      // one query the core cannot take must not fail the job and every other query with it
      LOG.warn("query {} cannot run", id, e);
      reject(id, json, "The query cannot run: " + e);
      return;
    }
    // the combiner times a query the job starts: it ends here when the combiner says so
    long end = jobTime ? Long.MAX_VALUE : query.endTimeMs(query.limitsOr(LIMITS));
    if (announce && end <= clockMs) {
      reject(id, json, "The query arrived after its end time; submit it again");
      return;
    }
    if (installed.size() >= settings.maxQueries()) {
      reject(
          id,
          json,
          "Too many queries: "
              + settings.maxQueries()
              + " are running; wait for some to finish or raise spyglass.max-queries");
      return;
    }
    installed.put(id, new Installed(m, end, host.malformed()));
    if (end != Long.MAX_VALUE) {
      ends.add(new Ending(end, id));
    }
    try {
      stored.put(id, packer.pack(json));
    } catch (Exception e) {
      throw new IllegalStateException("cannot keep query " + id + " in broadcast state", e);
    }
    if (settings.clock() == JobOptions.Clock.MARKS
        && query.receiveTimeMs() > Math.max(host.epochMs(), clockMs)) {
      // with clock marks a query sees the records of its time and later: older ones may still
      // be on their way here
      waiting.add(new Waiting(query, json, announce));
    } else {
      activate(query, json, announce);
    }
  }

  private void activate(Query query, byte[] json, boolean announce) {
    filters.add(query);
    if (announce) {
      FilterMessage m = FilterMessage.of(FilterMessage.START, query.id(), subtask, subtasks, json);
      m.clockMs = host.nowMs();
      // the bad input counted before the query started here, which its results leave out
      m.malformed = host.badTotal();
      host.emit(m);
    }
  }

  /** Starts the waiting queries received at {@code timeMs} or before. */
  void activateUntil(long timeMs) {
    if (waiting.isEmpty()) {
      return;
    }
    for (Iterator<Waiting> it = waiting.iterator(); it.hasNext(); ) {
      Waiting w = it.next();
      if (w.query().receiveTimeMs() <= timeMs) {
        it.remove();
        if (installed.containsKey(w.query().id())) {
          activate(w.query(), w.json(), w.announce());
        }
      }
    }
  }

  private void reject(String id, byte[] json, String why) {
    FilterMessage m = FilterMessage.of(FilterMessage.REJECTED, id, subtask, subtasks, json);
    m.clockMs = host.nowMs();
    m.error = why;
    host.emit(m);
  }

  private static String describe(BqlException e) {
    StringBuilder sb = new StringBuilder();
    for (BqlError err : e.errors()) {
      if (sb.length() > 0) {
        sb.append("; ");
      }
      sb.append("line ")
          .append(err.span().line())
          .append(", column ")
          .append(err.span().column())
          .append(": ")
          .append(err.message())
          .append(". ")
          .append(err.resolution());
    }
    return sb.toString();
  }

  /** Stops a query here; false when it was not running. */
  boolean uninstall(String id) {
    if (installed.remove(id) == null) {
      return false;
    }
    if (ends.size() > 2 * installed.size() + 1_024) {
      // many queries ended before their time: forget their places in the queue
      ends.clear();
      installed.forEach(
          (k, i) -> {
            if (i.endTimeMs() != Long.MAX_VALUE) {
              ends.add(new Ending(i.endTimeMs(), k));
            }
          });
    }
    filters.remove(id);
    drop(id);
    return true;
  }

  /** Ends the queries whose end time is {@code t} or before. */
  void endUntil(long t) {
    while (!ends.isEmpty() && ends.peek().endTimeMs() <= t) {
      Ending e = ends.poll();
      Installed i = installed.get(e.id());
      if (i != null && i.endTimeMs() == e.endTimeMs()) {
        installed.remove(e.id());
        filters.remove(e.id());
        drop(e.id());
      }
    }
  }

  private void drop(String id) {
    try {
      stored.remove(id);
    } catch (Exception e) {
      throw new IllegalStateException("cannot drop query " + id + " from broadcast state", e);
    }
  }
}
