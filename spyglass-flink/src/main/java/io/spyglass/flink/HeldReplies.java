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
      List<Reply> results = new ArrayList<>(group.size());
      List<String> errors = new ArrayList<>(group.size());
      for (CombinerQuery q : group) {
        List<Reply> rs = byQuery.remove(q);
        results.add(rs.get(0));
        errors.add(rs.get(1).error());
      }
      CombinerQuery first = group.get(0);
      out.accept(
          Outgoing.of(
              first.message.replyTo(),
              first.id(),
              first.message.instance(),
              Reply.encodeEndedTogether(results, errors)));
    }
    for (Map.Entry<CombinerQuery, List<Reply>> e : byQuery.entrySet()) {
      CombinerQuery q = e.getKey();
      for (Reply r : e.getValue()) {
        out.accept(Outgoing.of(q.message.replyTo(), q.id(), q.message.instance(), r.encode()));
      }
    }
    byQuery.clear();
  }
}
