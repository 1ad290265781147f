package io.spyglass.sinks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SinkPolicyTest {
  @TempDir Path dir;

  private static SinkSpecException refused(SinkPolicy p, SinkSpec s) {
    try {
      p.check(s, "sinks[0]");
    } catch (SinkSpecException e) {
      return e;
    }
    throw new AssertionError(s + " was allowed");
  }

  @Test
  void aWebhookGoesOnlyToAHostOnTheList() {
    SinkPolicy p =
        SinkPolicy.of(
            List.of("hooks.example.com", "127.0.0.1:9400", "[::1]:8080"), null, List.of());
    assertThat(p.check(SinkSpec.webhook("https://hooks.example.com/x"), "s")).isNotNull();
    assertThat(p.check(SinkSpec.webhook("http://HOOKS.example.com.:8123/x"), "s")).isNotNull();
    assertThat(p.check(SinkSpec.webhook("http://127.0.0.1:9400/x"), "s")).isNotNull();
    assertThat(p.check(SinkSpec.webhook("http://[::1]:8080/x"), "s")).isNotNull();

    SinkSpecException e = refused(p, SinkSpec.webhook("http://127.0.0.1:9401/x"));
    assertThat(e.refused()).isTrue();
    assertThat(e.field()).isEqualTo("sinks[0].url");
    assertThat(e.getMessage()).contains("127.0.0.1:9401").contains("--sink-allow");
    assertThat(e.resolution()).contains("--sink-allow 127.0.0.1:9401");
    // the address of a name on the list, or another name for the same host, is not the name
    assertThat(refused(p, SinkSpec.webhook("http://169.254.169.254/latest")).refused()).isTrue();
    assertThat(refused(p, SinkSpec.webhook("http://localhost:9400/x")).refused()).isTrue();
    // 127.0.0.1 written as a number is another host as written
    assertThat(refused(p, SinkSpec.webhook("http://2130706433:9400/x")).refused()).isTrue();
    // a host on the list with a port: only that port (80 by default for http)
    assertThat(refused(p, SinkSpec.webhook("http://127.0.0.1/x")).refused()).isTrue();
  }

  @Test
  void withoutAListNoWebhookIsAllowed() {
    SinkSpecException e = refused(SinkPolicy.NONE, SinkSpec.webhook("https://hooks.example.com/x"));
    assertThat(e.getMessage()).contains("allowed no host");
    assertThat(e.resolution()).contains("--sink-allow HOST[:PORT]");
  }

  @Test
  void aBadEntryOfTheListIsRefusedAtTheStart() {
    assertThatThrownBy(() -> SinkPolicy.of(List.of("http://x/"), null, List.of()))
        .hasMessageContaining("--sink-allow takes HOST or HOST:PORT");
    assertThatThrownBy(() -> SinkPolicy.of(List.of("a:b"), null, List.of()))
        .hasMessageContaining("--sink-allow takes HOST or HOST:PORT");
  }

  @Test
  void aFileGoesOnlyUnderTheSinkFolder() throws IOException {
    assertThat(refused(SinkPolicy.NONE, SinkSpec.file("x.ndjson")).getMessage())
        .contains("--sink-dir");
    SinkPolicy p = SinkPolicy.of(List.of(), dir, List.of());
    assertThat(p.check(SinkSpec.file("a/b.ndjson"), "s").target())
        .isEqualTo(dir.toAbsolutePath().normalize().resolve("a/b.ndjson").toString());
    assertThat(p.check(SinkSpec.file(dir.resolve("c.ndjson").toString()), "s").target())
        .isEqualTo(dir.resolve("c.ndjson").toAbsolutePath().normalize().toString());
    assertThat(refused(p, SinkSpec.file("../escape.ndjson")).refused()).isTrue();
    assertThat(refused(p, SinkSpec.file("a/../../escape.ndjson")).refused()).isTrue();
    assertThat(refused(p, SinkSpec.file("/etc/passwd")).refused()).isTrue();
    assertThat(refused(p, SinkSpec.file(".")).refused()).isTrue();
  }

  @Test
  void aLinkInsideTheFolderDoesNotLeadOutOfIt() throws IOException {
    Path sinkDir = Files.createDirectories(dir.resolve("sinks"));
    Path outside = Files.createDirectories(dir.resolve("outside"));
    Files.createSymbolicLink(sinkDir.resolve("out"), outside);
    Files.createSymbolicLink(sinkDir.resolve("f.ndjson"), outside.resolve("f.ndjson"));
    SinkPolicy p = SinkPolicy.of(List.of(), sinkDir, List.of());
    Path viaLink = Path.of(p.check(SinkSpec.file("out/x.ndjson"), "s").target());
    assertThatThrownBy(() -> p.prepareFile(viaLink)).hasMessageContaining("outside --sink-dir");
    Path link = Path.of(p.check(SinkSpec.file("f.ndjson"), "s").target());
    assertThatThrownBy(() -> p.prepareFile(link)).hasMessageContaining("is a link");
    p.prepareFile(Path.of(p.check(SinkSpec.file("new/y.ndjson"), "s").target()));
    assertThat(sinkDir.resolve("new")).isDirectory();
  }

  @Test
  void kafkaGoesOnlyToTheClustersNamed() {
    assertThat(refused(SinkPolicy.NONE, SinkSpec.kafka(null, "t")).getMessage())
        .contains("--sink-kafka");
    SinkPolicy p = SinkPolicy.of(List.of(), null, List.of("k1:9092", "k2:9092"));
    assertThat(p.check(SinkSpec.kafka(null, "t"), "s").bootstrap()).isEqualTo("k1:9092");
    assertThat(p.check(SinkSpec.kafka("k2:9092", "t"), "s").bootstrap()).isEqualTo("k2:9092");
    SinkSpecException e = refused(p, SinkSpec.kafka("evil:9092", "t"));
    assertThat(e.field()).isEqualTo("sinks[0].bootstrap");
    assertThat(e.resolution()).contains("k1:9092");
  }

  @Test
  void theCommandLineAllowsEverythingWellWritten() {
    SinkPolicy p = SinkPolicy.unrestricted();
    assertThat(p.check(SinkSpec.webhook("http://10.0.0.1/x"), "s")).isNotNull();
    assertThat(Path.of(p.check(SinkSpec.file("rel.ndjson"), "s").target())).isAbsolute();
    assertThat(p.check(SinkSpec.kafka("k:1", "t"), "s").bootstrap()).isEqualTo("k:1");
  }
}
