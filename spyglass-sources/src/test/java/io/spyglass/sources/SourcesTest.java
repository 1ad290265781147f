package io.spyglass.sources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SourcesTest {
  @TempDir Path dir;

  @Test
  void opensTheGenerator() throws Exception {
    try (Source source = Sources.open("gen")) {
      assertThat(source).isInstanceOf(GeneratorSource.class);
      assertThat(((GeneratorSource) source).options()).isEqualTo(GeneratorSource.Options.DEFAULTS);
    }
    try (Source source = Sources.open("gen?seed=1&rate=1000&count=5000&size=1800&start=7")) {
      assertThat(((GeneratorSource) source).options())
          .isEqualTo(new GeneratorSource.Options(1, 1000, 5000, 1800, 7));
      assertThat(source.describe()).isEqualTo("gen?seed=1&rate=1000&count=5000&size=1800&start=7");
    }
  }

  @Test
  void opensFilesAndStdin() throws Exception {
    Path file = Files.writeString(dir.resolve("a?b.json"), "{\"a\":1}\n");
    try (Source source = Sources.open("file:" + file)) {
      assertThat(source).isInstanceOf(FileSource.class);
      RawBatch batch = new RawBatch();
      assertThat(source.poll(batch, 10, 10)).isTrue();
      assertThat(batch.size()).isEqualTo(1);
    }
    try (Source source = Sources.open("file://" + file + "?follow=true&maxLine=100")) {
      RawBatch batch = new RawBatch();
      assertThat(source.poll(batch, 10, 10)).isTrue();
      assertThat(source.poll(batch, 10, 10)).isTrue();
      assertThat(batch.size()).isEqualTo(1);
    }
    for (String spec : new String[] {"-", "stdin", "stdin?maxLine=10"}) {
      Sources.SourceOptions options =
          new Sources.SourceOptions(
              new ByteArrayInputStream("{\"x\":1}\n".getBytes(StandardCharsets.UTF_8)), Map.of());
      try (Source source = Sources.open(spec, options)) {
        assertThat(source.describe()).isEqualTo("stdin");
        RawBatch batch = new RawBatch();
        assertThat(source.poll(batch, 10, 10)).isTrue();
        assertThat(batch.size()).isEqualTo(1);
        assertThat(source.poll(batch, 10, 10)).isFalse();
      }
    }
  }

  @Test
  void unknownSpecsListTheAcceptedForms() {
    for (String spec : new String[] {"", "foo", "http://x", "gen!", "kafka://host", "file:"}) {
      assertThatThrownBy(() -> Sources.open(spec))
          .as(spec)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("gen[?seed=")
          .hasMessageContaining("file:PATH")
          .hasMessageContaining("stdin")
          .hasMessageContaining("kafka://HOST:PORT");
    }
  }

  @Test
  void badOptionsSayWhichAndWhy() {
    assertThatThrownBy(() -> Sources.open("gen?speed=3"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("speed");
    assertThatThrownBy(() -> Sources.open("gen?rate=fast"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rate")
        .hasMessageContaining("fast");
    assertThatThrownBy(() -> Sources.open("gen?size=5"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("size");
    assertThatThrownBy(() -> Sources.open("file:x.json?follow=maybe"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("follow");
    assertThatThrownBy(() -> Sources.open("kafka://127.0.0.1:1/t?from=yesterday"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("from");
  }
}
