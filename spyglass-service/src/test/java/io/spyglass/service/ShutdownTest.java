package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.service.ServiceFixture.Event;
import io.spyglass.service.ServiceFixture.Sse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A graceful stop: every running query ends with its final result, delivered to its streams. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShutdownTest {
  @TempDir Path data;

  @Test
  void shutdownEndsEveryQueryWithItsFinalResultAndEndsTheStreams() throws Exception {
    ServiceFixture f = ServiceFixture.start(data, b -> {});
    String a = f.submit("SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)");
    String b =
        f.submit("SELECT COUNT(*) AS n FROM STREAM(MAX, TIME) WINDOWING TUMBLING(10s, TIME)");
    try (Sse sa = f.sse(a);
        Sse sb = f.sse(b)) {
      Thread.sleep(300);
      CompletableFuture<List<Event>> ea = CompletableFuture.supplyAsync(() -> all(sa));
      CompletableFuture<List<Event>> eb = CompletableFuture.supplyAsync(() -> all(sb));
      assertThat(f.service.shutdown(10_000)).isTrue();
      for (List<Event> events :
          List.of(ea.get(10, TimeUnit.SECONDS), eb.get(10, TimeUnit.SECONDS))) {
        assertThat(events).isNotEmpty();
        Event last = events.get(events.size() - 1);
        assertThat(last.isFinal()).isTrue();
        assertThat(last.json().get("records").get(0).get("n").asLong()).isPositive();
        // it says why it ended early
        JsonNode error = last.json().get("meta").get("errors").get(0);
        assertThat(error.get("message").asText()).startsWith("The service stopped");
        assertThat(error.get("fatal").asBoolean()).isTrue();
      }
    }
    f.close();
    // the history, read after a restart, says the stop interrupted them
    ServiceFixture again = ServiceFixture.start(data, c -> {});
    try {
      JsonNode history = ServiceFixture.json(again.get("/api/history").body()).get("history");
      List<String> states = new ArrayList<>();
      for (JsonNode entry : history) {
        if (entry.get("id").asText().equals(a) || entry.get("id").asText().equals(b)) {
          states.add(entry.get("state").asText());
        }
      }
      assertThat(states).containsExactly("interrupted", "interrupted");
    } finally {
      again.close();
    }
  }

  private static List<Event> all(Sse s) {
    try {
      return s.all();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
