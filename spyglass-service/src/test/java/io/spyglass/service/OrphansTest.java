package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.service.ServiceFixture.Event;
import io.spyglass.service.ServiceFixture.Sse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Queries outlive their clients, then end: a query whose last stream closed is an orphan, kept for
 * the grace period so that a client can reattach, then ended with its final result; {@code
 * STREAM(FOREVER)} queries end after {@code --max-query-duration}; the audit log says who started
 * and stopped what.
 */
class OrphansTest {
  private static final long GRACE_MS = 3_000;

  @TempDir Path dir;

  private static JsonNode query(ServiceFixture f, String id) {
    return ServiceFixture.json(f.get("/api/queries/" + id).body());
  }

  private static JsonNode await(ServiceFixture f, String id, Predicate<JsonNode> condition)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + 15_000;
    JsonNode q = query(f, id);
    while (!condition.test(q) && System.currentTimeMillis() < deadline) {
      Thread.sleep(50);
      q = query(f, id);
    }
    assertThat(condition.test(q)).as("query %s: %s", id, q).isTrue();
    return q;
  }

  private static List<JsonNode> audit(Path file, Predicate<JsonNode> wanted) throws Exception {
    long deadline = System.currentTimeMillis() + 10_000;
    List<JsonNode> out = new ArrayList<>();
    while (System.currentTimeMillis() < deadline) {
      out.clear();
      if (Files.exists(file)) {
        for (String line : Files.readAllLines(file)) {
          JsonNode e = ServiceFixture.json(line);
          if (wanted.test(e)) {
            out.add(e);
          }
        }
      }
      if (!out.isEmpty()) {
        return out;
      }
      Thread.sleep(50);
    }
    return out;
  }

  @Test
  void anOrphanIsKeptForTheGracePeriodForAClientToReattachThenEndsWithItsFinalResult()
      throws Exception {
    Path data = dir.resolve("data");
    try (ServiceFixture f = ServiceFixture.start(data, b -> b.graceMs = GRACE_MS)) {
      String id =
          f.submit("SELECT COUNT(*) AS n FROM STREAM(MAX, TIME) WINDOWING TUMBLING(100, TIME)");
      String lastSeen;
      try (Sse sse = f.sse(id)) {
        Event first = sse.next();
        assertThat(first.event()).isEqualTo("result");
        lastSeen = first.id();
        JsonNode reading = query(f, id);
        assertThat(reading.get("clients").asInt()).isEqualTo(1);
        assertThat(reading.get("orphanedSince").isNull()).isTrue();
        assertThat(reading.get("endsAt").isNull()).isTrue();
      }
      // the stream closed: an orphan, which says when it ends unless a client reattaches
      JsonNode orphan = await(f, id, q -> q.get("clients").asInt() == 0);
      assertThat(orphan.get("state").asText()).isEqualTo("running");
      long since = orphan.get("orphanedSince").asLong();
      assertThat(since).isPositive();
      assertThat(orphan.get("endsAt").asLong()).isEqualTo(since + GRACE_MS);
      assertThat(orphan.get("owner").asText()).isEqualTo("anonymous");

      // a client reattaches with Last-Event-ID: it reads on from there, the query is no orphan
      try (Sse again = f.sse(id, lastSeen)) {
        Event next = again.next();
        assertThat(Long.parseLong(next.id())).isEqualTo(Long.parseLong(lastSeen) + 1);
        JsonNode adopted = query(f, id);
        assertThat(adopted.get("state").asText()).isEqualTo("running");
        assertThat(adopted.get("orphanedSince").isNull()).isTrue();
        lastSeen = next.id();
      }
      // left again: ended after the grace period, with its final result, its slot freed
      JsonNode ended = await(f, id, q -> !q.get("state").asText().equals("running"));
      assertThat(ended.get("state").asText()).isEqualTo("stopped");
      assertThat(ended.get("stoppedBy").get("reason").asText()).isEqualTo("no-client");
      assertThat(ended.get("stoppedBy").get("by").asText()).isEqualTo("spyglass");
      assertThat(ended.get("orphanedSince").isNull()).isTrue();
      assertThat(ended.get("endsAt").isNull()).isTrue();
      assertThat(
              ServiceFixture.json(f.get("/api/queries").body())
                  .get("quota")
                  .get("runningAll")
                  .asInt())
          .isZero();
      try (Sse last = f.sse(id, lastSeen)) {
        List<Event> rest = last.all();
        assertThat(rest).isNotEmpty();
        assertThat(rest.get(rest.size() - 1).isFinal()).isTrue();
      }

      List<JsonNode> started =
          audit(data.resolve("audit.log"), e -> e.get("event").asText().equals("query-started"));
      assertThat(started).hasSize(1);
      assertThat(started.get(0).get("id").asText()).isEqualTo(id);
      assertThat(started.get(0).get("user").asText()).isEqualTo("anonymous");
      assertThat(started.get(0).get("query").asText()).startsWith("SELECT COUNT(*) AS n");
      List<JsonNode> endedLines =
          audit(data.resolve("audit.log"), e -> e.get("event").asText().equals("query-ended"));
      assertThat(endedLines).hasSize(1);
      assertThat(endedLines.get(0).get("reason").asText()).isEqualTo("no-client");
      assertThat(endedLines.get(0).get("by").asText()).isEqualTo("spyglass");
      assertThat(endedLines.get(0).get("state").asText()).isEqualTo("stopped");
    }
    List<JsonNode> service =
        audit(data.resolve("audit.log"), e -> e.get("event").asText().startsWith("service-"));
    assertThat(service)
        .extracting(e -> e.get("event").asText())
        .containsExactly("service-started", "service-stopped");
  }

  @Test
  void aForeverQueryEndsAfterTheLongestDurationAndTheAuditSaysWhoStoppedWhat() throws Exception {
    Path tokens = dir.resolve("tokens.txt");
    Files.writeString(tokens, "alice-0123456789abcdef alice\nroot-0123456789abcdefg root admin\n");
    Path audit = dir.resolve("logs/spyglass-audit.log");
    try (ServiceFixture f =
        ServiceFixture.start(
            dir.resolve("data"),
            b -> {
              b.tokensFile = tokens;
              b.maxForeverMs = 1_000;
              b.auditLog = audit;
            })) {
      f.token = "alice-0123456789abcdef";
      String forever = f.submit("SELECT COUNT(*) AS n FROM STREAM(FOREVER)", true);
      JsonNode running = query(f, forever);
      assertThat(running.get("endsAt").asLong())
          .isEqualTo(running.get("submitted").asLong() + 1_000);
      JsonNode ended = await(f, forever, q -> !q.get("state").asText().equals("running"));
      assertThat(ended.get("stoppedBy").get("reason").asText()).isEqualTo("max-query-duration");
      JsonNode last = ended.get("lastResult");
      assertThat(last.get("meta").get("final").asBoolean()).isTrue();
      assertThat(last.get("meta").get("errors").get(0).get("message").asText())
          .contains("--max-query-duration");

      // another's query stopped by an admin: the audit names both
      String mine = f.submit("SELECT COUNT(*) FROM STREAM(60s, TIME)", true);
      f.token = "root-0123456789abcdefg";
      assertThat(f.delete("/api/queries/" + mine).statusCode()).isEqualTo(204);
      JsonNode stopped = await(f, mine, q -> !q.get("state").asText().equals("running"));
      assertThat(stopped.get("stoppedBy").get("reason").asText()).isEqualTo("requested");
      assertThat(stopped.get("stoppedBy").get("by").asText()).isEqualTo("root");
      List<JsonNode> lines =
          audit(
              audit,
              e ->
                  e.get("event").asText().equals("query-ended")
                      && e.get("id").asText().equals(mine));
      assertThat(lines).hasSize(1);
      assertThat(lines.get(0).get("user").asText()).isEqualTo("alice");
      assertThat(lines.get(0).get("by").asText()).isEqualTo("root");
      assertThat(lines.get(0).get("reason").asText()).isEqualTo("requested");
    }
  }
}
