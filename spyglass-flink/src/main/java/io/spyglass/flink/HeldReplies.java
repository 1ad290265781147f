package io.spyglass.flink;

import io.spyglass.flink.client.Reply;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The replies of the queries that one shared partial reached (identical queries that started
 * together, {@link FilterMessage#sharers}), held while the combiner merges it into each, then sent:
 * the queries whose replies are their result then their end, with the same records, to the same
 * topic and instance, as one message ({@link Reply#encodeEndedTogether}); every other reply as it
 * was, each query's in its order. A query that ended has no reply after its end, so a message keyed
 * by another query of the group cannot be overtaken by one of its own.
 */
final class HeldReplies {
  /**
   * The most one message for several queries holds past the records, about (each query's id, text
   * and meta): copies of a long query would otherwise make a message larger than Kafka takes (1 MiB
   * by default), failing the job's sink; more copies go in more messages.
   */
  static final int MAX_SHARED_META_BYTES = 256 * 1024;

  private final Map<CombinerQuery, List<Reply>> byQuery = new LinkedHashMap<>();

  void add(CombinerQuery q, Reply r) {
    byQuery.computeIfAbsent(q, k -> new ArrayList<>(2)).add(r);
  }

  /** What makes results go as one message: where they go and their records' bytes. */
  private record Together(String topic, String instance, ByteBuffer records) {}

  /** Sends what is held, as {@link Outgoing} messages. */
  void send(Consumer<Outgoing> out) {
    Map<Together, List<CombinerQuery>> groups = new LinkedHashMap<>();
    for (Map.Entry<CombinerQuery, List<Reply>> e : byQuery.entrySet()) {
      List<Reply> rs = e.getValue();
      if (rs.size() == 2
          && rs.get(0).kind() == Reply.Kind.RESULT
          && rs.get(1).kind() == Reply.Kind.ENDED) {
        CombinerQuery q = e.getKey();
        Together key =
            new Together(
                q.message.replyTo(),
                q.message.instance(),
                ByteBuffer.wrap(Reply.recordBytes(rs.get(0).result())));
        groups.computeIfAbsent(key, k -> new ArrayList<>()).add(q);
      }
    }
    for (List<CombinerQuery> group : groups.values()) {
      if (group.size() < 2) {
        continue;
      }
      int from = 0;
      long bytes = 0;
      for (int i = 0; i < group.size(); i++) {
        long meta = metaBytes(group.get(i));
        if (i > from && bytes + meta > MAX_SHARED_META_BYTES) {
          sendTogether(group.subList(from, i), out);
          from = i;
          bytes = 0;
        }
        bytes += meta;
      }
      sendTogether(group.subList(from, group.size()), out);
    }
    for (Map.Entry<CombinerQuery, List<Reply>> e : byQuery.entrySet()) {
      CombinerQuery q = e.getKey();
      for (Reply r : e.getValue()) {
        out.accept(Outgoing.of(q.message.replyTo(), q.id(), q.message.instance(), r.encode()));
      }
    }
    byQuery.clear();
  }

  /** About what a query adds to a message for several: its id, its text and the rest of a meta. */
  private static long metaBytes(CombinerQuery q) {
    String text = q.message.bql();
    return 3L * (q.id().length() + (text == null ? 0 : text.length())) + 128;
  }

  /** One message for queries of a group (one alone: its own replies, as they were). */
  private void sendTogether(List<CombinerQuery> queries, Consumer<Outgoing> out) {
    List<Reply> results = new ArrayList<>(queries.size());
    List<String> errors = new ArrayList<>(queries.size());
    for (CombinerQuery q : queries) {
      List<Reply> rs = byQuery.remove(q);
      results.add(rs.get(0));
      errors.add(rs.get(1).error());
    }
    CombinerQuery first = queries.get(0);
    if (queries.size() == 1) {
      for (Reply r : List.of(results.get(0), Reply.ended(first.id(), errors.get(0)))) {
        out.accept(
            Outgoing.of(first.message.replyTo(), first.id(), first.message.instance(), r.encode()));
      }
      return;
    }
    out.accept(
        Outgoing.of(
            first.message.replyTo(),
            first.id(),
            first.message.instance(),
            Reply.encodeEndedTogether(results, errors)));
  }
}
