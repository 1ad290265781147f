package io.spyglass.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileDeliveryTest {
  @TempDir Path dir;

  @Test
  void eachDocumentIsOneLineAndQueriesSharingAFileDoNotInterleave() throws Exception {
    try (Sinks sinks =
        new Sinks(DeliverySettings.DEFAULTS, SinkPolicy.of(List.of(), dir, List.of()))) {
      SinkSpec spec = SinkSpec.file("out/results.ndjson");
      QuerySinks a = sinks.forQuery("a", List.of(spec));
      QuerySinks b = sinks.forQuery("b", List.of(spec));
      for (int i = 1; i <= 200; i++) {
        a.offer(Results.window("a", i, i == 200));
        b.offer(Results.window("b", i, i == 200));
      }
      assertThat(sinks.awaitIdle(30_000)).isTrue();
      assertThat(a.stats().get(0).delivered()).isEqualTo(200);
      assertThat(a.stats().get(0).spec()).isEqualTo(spec);
    }
    List<String> lines =
        Files.readAllLines(dir.resolve("out/results.ndjson"), StandardCharsets.UTF_8);
    assertThat(lines).hasSize(400);
    assertThat(lines).allSatisfy(l -> assertThat(l).startsWith("{\"key\":\"").endsWith("}}"));
    assertThat(lines.stream().filter(l -> l.startsWith("{\"key\":\"a:")).toList())
        .first()
        .asString()
        .startsWith("{\"key\":\"a:1\",\"query\":\"a\",\"window\":1,");
  }

  @Test
  void aFileThatCannotBeWrittenIsTriedAgainAndSaysWhy() throws Exception {
    Path blocker = Files.writeString(dir.resolve("blocker"), "a file, not a folder");
    DeliverySettings quick = DeliverySettings.DEFAULTS.withRetries(2, 60_000, 1, 5);
    try (Sinks sinks = new Sinks(quick, SinkPolicy.unrestricted())) {
      QuerySinks q =
          sinks.forQuery("q", List.of(SinkSpec.file(blocker.resolve("x.ndjson").toString())));
      q.offer(Results.whole("q"));
      Await.until("given up", () -> q.stats().get(0).dropped() == 1);
      assertThat(q.stats().get(0).retried()).isEqualTo(1);
      assertThat(q.stats().get(0).lastError()).contains("cannot write").contains("x.ndjson");
    }
  }

  @Test
  void aSinkTheServiceNoLongerAllowsGivesEveryDocumentUp() throws Exception {
    try (Sinks sinks = new Sinks(DeliverySettings.DEFAULTS, SinkPolicy.NONE)) {
      QuerySinks q = sinks.forQuery("s", List.of(SinkSpec.file("x.ndjson")));
      q.offer(Results.whole("s"));
      Await.until("given up", () -> q.stats().get(0).dropped() == 1);
      assertThat(q.stats().get(0).lastError())
          .startsWith("not allowed here:")
          .contains("--sink-dir");
      assertThat(sinks.failing()).isEqualTo(1);
    }
  }
}
