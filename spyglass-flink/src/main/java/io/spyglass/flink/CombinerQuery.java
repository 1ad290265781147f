package io.spyglass.flink;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryCombiner;
import io.spyglass.core.record.BadRecord;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.flink.client.ControlMessage;
import io.spyglass.flink.client.Reply;
import io.spyglass.sources.BadInput;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One query's combining state in the {@link CombinerOperator}: its message, which filter subtasks
 * run it and finish it, its core {@link QueryCombiner}, the filters' counters, the sync marks in
 * flight and, with clock marks, the partials waiting for the watermark. {@link CombinerState}
 * writes and reads it for checkpoints.
 */
final class CombinerQuery {
  static final QueryLimits LIMITS = QueryLimits.DEFAULTS;

  /** What a query needs of the operator that combines it. */
  interface Host {
    /** The combiner's clock (the wall clock, or the last clock mark's time). */
    long nowMs();

    /** Sends a reply to the topic the query names. */
    void reply(CombinerQuery q, Reply r);

    /** Sends a message of the query's Kafka sinks, in the replies' transaction. */
    void emit(Outgoing o);

    /** The bad input a filter subtask counted last (its latest snapshot). */
    BadInput.Snapshot badOf(int subtask);
  }

  /** A partial waiting for the watermark to reach its time. */
  record Pending(long timeMs, byte[] partial) {}

  private final Host host;

  final ControlMessage message;

  /** The message's JSON, as the state holds it (made once). */
  private byte[] messageJson;

  /** The message packed, as the state holds it (made once). */
  private byte[] packedMessage;

  /** The parsed query; null for a refused one, which only keeps the query from starting again. */
  Query query;

  QueryCombiner combiner;
  final BitSet started = new BitSet();
  final BitSet finishing = new BitSet();
  int subtasks;
  boolean runningSent;
  boolean ended;
  String fatalError;
  long forgetAtMs;
  Reply.Progress[] stats = new Reply.Progress[0];
  final BitSet statsRound = new BitSet();
  final Map<Long, Integer> syncs = new HashMap<>();

  /**
   * Per filter subtask, the bad input it had counted when it started the query: a snapshot, or (a
   * Long) the count its start message told, until a snapshot of that count arrives. Bad input
   * travels on another channel than the start, so either may come first. Not kept in state.
   */
  final Map<Integer, Object> badBase = new HashMap<>();

  /** The bad input since the start that results have told so far. */
  private BadInput.Snapshot badTold = BadInput.Snapshot.EMPTY;

  /** With clock marks: partials ahead of the watermark, in the order of their times. */
  final List<Pending> pending = new ArrayList<>();

  /** Its Kafka sinks; null without any. */
  private final SinkWriter sinkWriter;

  CombinerQuery(Host host, ControlMessage message, Query query) {
    this.host = host;
    this.message = message;
    this.query = query;
    this.sinkWriter = SinkWriter.of(message);
  }

  String id() {
    return message.queryId();
  }

  byte[] messageJson() {
    if (messageJson == null) {
      messageJson = message.toJson();
    }
    return messageJson;
  }

  /** The message as the state holds it since version 3: packed ({@link QueryMessages}). */
  byte[] packedMessage() {
    if (packedMessage == null) {
      packedMessage = QueryMessages.pack(messageJson());
    }
    return packedMessage;
  }

  /** The query of a message, under the limits it was checked with where it was submitted. */
  static Query parse(ControlMessage m) {
    // under the limits it was checked with where it was submitted, else the defaults
    return Query.parse(m.queryId(), m.bql(), m.limitsOr(LIMITS), m.receiveTimeMs());
  }

  QueryCombiner newCombiner() {
    return new QueryCombiner(query, query.limitsOr(LIMITS), this::onResult, host::nowMs);
  }

  QueryCombiner restoreCombiner(byte[] snapshot) {
    return QueryCombiner.restore(
        query, query.limitsOr(LIMITS), this::onResult, host::nowMs, snapshot);
  }

  private void onResult(Query q, Result result) {
    Result r = result;
    BadInput.Snapshot now = badSinceStart();
    if (now.total() != badTold.total()) {
      r = new Result(r.records(), r.meta().withBadInput(now.since(badTold)));
      badTold = now;
    }
    for (Meta.QueryError e : r.meta().errors()) {
      if (e.fatal() && fatalError == null) {
        fatalError = e.message() + ". " + e.resolution();
      }
    }
    host.reply(this, Reply.result(q.id(), r));
    if (sinkWriter != null) { // its Kafka sinks, in the replies' transaction
      sinkWriter.messages(r).forEach(host::emit);
    }
  }

  /** The bad input the filter subtasks counted since each of them started the query. */
  private BadInput.Snapshot badSinceStart() {
    BadInput.Snapshot sum = BadInput.Snapshot.EMPTY;
    for (Map.Entry<Integer, Object> e : badBase.entrySet()) {
      BadInput.Snapshot latest = host.badOf(e.getKey());
      if (e.getValue() instanceof Long count) {
        if (count == 0) {
          e.setValue(BadInput.Snapshot.EMPTY);
        } else if (latest.total() >= count) {
          e.setValue(latest);
        } else {
          continue;
        }
      }
      BadInput.Snapshot base = (BadInput.Snapshot) e.getValue();
      sum = sum.plus(subtract(latest, base));
    }
    return sum;
  }

  /** {@code later} less {@code earlier}, reason by reason (places: the later ones). */
  private static BadInput.Snapshot subtract(BadInput.Snapshot later, BadInput.Snapshot earlier) {
    if (earlier.isEmpty()) {
      return later;
    }
    Map<BadRecord, Long> counts = new EnumMap<>(BadRecord.class);
    later
        .counts()
        .forEach(
            (reason, n) -> {
              long d = n - earlier.counts().getOrDefault(reason, 0L);
              if (d > 0) {
                counts.put(reason, d);
              }
            });
    return counts.isEmpty()
        ? BadInput.Snapshot.EMPTY
        : new BadInput.Snapshot(counts, later.places());
  }

  void keepStats(int subtask, Reply.Progress p) {
    if (subtask >= stats.length) {
      stats = Arrays.copyOf(stats, Math.max(subtask + 1, subtasks));
    }
    stats[subtask] = p;
  }

  Reply.Progress statsSum() {
    Reply.Progress sum = Reply.Progress.NONE;
    for (Reply.Progress p : stats) {
      if (p != null) {
        sum = sum.plus(p);
      }
    }
    return sum;
  }

  /** Keeps a partial until the watermark reaches its time, in the order of the times. */
  void await(long timeMs, byte[] partial) {
    int at = pending.size();
    while (at > 0 && pending.get(at - 1).timeMs() > timeMs) {
      at--;
    }
    pending.add(at, new Pending(timeMs, partial));
  }
}
