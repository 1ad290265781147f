package io.spyglass.sources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSourceTest {
  private static final String MIXED =
      "{\"a\":1}\n\n{\"b\":2}\r\n   \n\r\n{\"c\":\"x y\"}\n\t\n{\"d\":4}";

  @TempDir Path dir;

  @Test
  void readsPlainFileSkippingBlankLinesAndCarriageReturns() throws Exception {
    Path file = write("events.json", MIXED.getBytes(StandardCharsets.UTF_8));
    try (FileSource source = new FileSource(file, FileSource.Options.DEFAULTS)) {
      assertThat(readAll(source))
          .containsExactly("{\"a\":1}", "{\"b\":2}", "{\"c\":\"x y\"}", "{\"d\":4}");
      assertThat(source.skipped()).isZero();
      assertThat(source.lines()).isEqualTo(4);
      assertThat(source.describe()).isEqualTo("file:" + file);
    }
  }

  @Test
  void readsGzipByMagicBytesWhateverTheName() throws Exception {
    Path file = write("events.log", gzip(MIXED));
    try (FileSource source = new FileSource(file, FileSource.Options.DEFAULTS)) {
      assertThat(readAll(source)).hasSize(4).startsWith("{\"a\":1}").endsWith("{\"d\":4}");
    }
  }

  @Test
  void readsStreamsPlainAndGzip() throws Exception {
    for (byte[] bytes : List.of(MIXED.getBytes(StandardCharsets.UTF_8), gzip(MIXED))) {
      try (FileSource source =
          new FileSource(new ByteArrayInputStream(bytes), "stdin", FileSource.Options.DEFAULTS)) {
        assertThat(readAll(source))
            .containsExactly("{\"a\":1}", "{\"b\":2}", "{\"c\":\"x y\"}", "{\"d\":4}");
      }
    }
  }

  @Test
  void emptyInputEndsAtOnce() throws Exception {
    try (FileSource source =
        new FileSource(
            new ByteArrayInputStream(new byte[0]), "stdin", FileSource.Options.DEFAULTS)) {
      RawBatch batch = new RawBatch();
      assertThat(source.poll(batch, 10, 10)).isFalse();
      assertThat(batch.size()).isZero();
    }
  }

  @Test
  void oversizeLinesAreSkippedAndCounted() throws Exception {
    String big = "{\"big\":\"" + "x".repeat(5000) + "\"}";
    String text = "{\"a\":1}\n" + big + "\n{\"b\":2}\n" + big + "\r\n{\"c\":3}\n" + big;
    FileSource.Options options =
        FileSource.Options.DEFAULTS.withMaxLineBytes(1000).withReadBufferBytes(64);
    Path file = write("big.json", text.getBytes(StandardCharsets.UTF_8));
    try (FileSource source = new FileSource(file, options)) {
      assertThat(readAll(source)).containsExactly("{\"a\":1}", "{\"b\":2}", "{\"c\":3}");
      assertThat(source.skipped()).isEqualTo(3);
    }
    // A line read whole in one buffer is held to the same limit.
    options = FileSource.Options.DEFAULTS.withMaxLineBytes(1000);
    try (FileSource source = new FileSource(file, options)) {
      assertThat(readAll(source)).hasSize(3);
      assertThat(source.skipped()).isEqualTo(3);
    }
  }

  @Test
  void linesAcrossSmallBuffersAreReassembledExactly() throws Exception {
    Random random = new Random(42);
    List<String> expected = new ArrayList<>();
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 3000; i++) {
      String line = "{\"i\":" + i + ",\"s\":\"" + "y".repeat(random.nextInt(300)) + "\"}";
      expected.add(line);
      text.append(line).append(random.nextBoolean() ? "\n" : "\r\n");
    }
    Path file = write("many.json", text.toString().getBytes(StandardCharsets.UTF_8));
    FileSource.Options options = FileSource.Options.DEFAULTS.withReadBufferBytes(100);
    try (FileSource source = new FileSource(file, options)) {
      assertThat(readAll(source)).isEqualTo(expected);
    }
  }

  @Test
  void missingFileIsReported() {
    assertThatThrownBy(() -> new FileSource(dir.resolve("nope.json"), FileSource.Options.DEFAULTS))
        .isInstanceOf(NoSuchFileException.class);
  }

  @Test
  void gzipCannotBeFollowed() throws Exception {
    Path file = write("events.json.gz", gzip(MIXED));
    assertThatThrownBy(
            () -> new FileSource(file, FileSource.Options.DEFAULTS.withFollow(true)).close())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("gzip");
  }

  @Test
  void followSeesAppendedLinesAndCompletesPartialLines() throws Exception {
    Path file = write("live.json", "{\"a\":1}\n{\"b\":2}\n".getBytes(StandardCharsets.UTF_8));
    try (FileSource source = new FileSource(file, FileSource.Options.DEFAULTS.withFollow(true))) {
      assertThat(poll(source, 50)).containsExactly("{\"a\":1}", "{\"b\":2}");
      assertThat(poll(source, 30)).isEmpty();

      append(file, "{\"c\":3}\n{\"d\":");
      assertThat(poll(source, 50)).containsExactly("{\"c\":3}");
      assertThat(poll(source, 30)).isEmpty();

      append(file, "4}\r\n\n");
      assertThat(poll(source, 50)).containsExactly("{\"d\":4}");
      assertThat(source.skipped()).isZero();
    }
  }

  @Test
  void followReadsATruncatedOrReplacedFileFromTheStart() throws Exception {
    Path file = write("live.json", "{\"a\":1}\n{\"b\":2}\n".getBytes(StandardCharsets.UTF_8));
    try (FileSource source = new FileSource(file, FileSource.Options.DEFAULTS.withFollow(true))) {
      assertThat(poll(source, 50)).hasSize(2);

      // Truncated in place (copytruncate), then written again.
      Files.write(file, "{\"t\":1}\n".getBytes(StandardCharsets.UTF_8));
      assertThat(poll(source, 100)).containsExactly("{\"t\":1}");

      // Replaced by a new file at the same path (rename rotation), longer than the old one.
      Path next =
          write("next.json", "{\"r\":1}\n{\"r\":2}\n{\"r\":3}\n".getBytes(StandardCharsets.UTF_8));
      Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      assertThat(poll(source, 100)).containsExactly("{\"r\":1}", "{\"r\":2}", "{\"r\":3}");
      append(file, "{\"r\":4}\n");
      assertThat(poll(source, 100)).containsExactly("{\"r\":4}");
    }
  }

  /** What {@link FileSource} logs while {@code body} runs: level and message, one a line. */
  private static List<String> logged(ThrowingRunnable body) throws Exception {
    List<String> out = new java.util.concurrent.CopyOnWriteArrayList<>();
    org.apache.logging.log4j.core.Logger logger =
        (org.apache.logging.log4j.core.Logger)
            org.apache.logging.log4j.LogManager.getLogger(FileSource.class);
    org.apache.logging.log4j.core.appender.AbstractAppender capture =
        new org.apache.logging.log4j.core.appender.AbstractAppender(
            "capture",
            null,
            null,
            true,
            org.apache.logging.log4j.core.config.Property.EMPTY_ARRAY) {
          @Override
          public void append(org.apache.logging.log4j.core.LogEvent e) {
            out.add(e.getLevel() + " " + e.getMessage().getFormattedMessage());
          }
        };
    capture.start();
    logger.addAppender(capture);
    try {
      body.run();
    } finally {
      logger.removeAppender(capture);
      capture.stop();
    }
    return out;
  }

  @FunctionalInterface
  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  @Test
  void followSaysEachRotationAndWhatATruncationSkipped() throws Exception {
    Path file = write("live.json", "{\"a\":1}\n{\"b\":2}\n".getBytes(StandardCharsets.UTF_8));
    try (FileSource source = new FileSource(file, FileSource.Options.DEFAULTS.withFollow(true))) {
      assertThat(poll(source, 50)).hasSize(2);
      append(file, "{\"p\":");
      assertThat(poll(source, 30)).isEmpty();
      List<String> log =
          logged(
              () -> {
                // copytruncate: what was read is copied away, the file cut to nothing, then written
                Files.write(file, "{\"t\":1}\n".getBytes(StandardCharsets.UTF_8));
                assertThat(poll(source, 100)).containsExactly("{\"t\":1}");
              });
      assertThat(log)
          .singleElement()
          .asString()
          .startsWith("WARN file:" + file + " was truncated in place")
          .contains("to 8 bytes after 21 bytes were read")
          .contains("lines written after byte 21 before the truncation, if any, were never read")
          .contains("unfinished last line (5 bytes) is skipped");
      assertThat(source.rotations()).isEqualTo(1);

      // a rename: the writer adds a line to the old file before it opens the new one
      Path old = dir.resolve("live.json.1");
      List<String> renamed =
          logged(
              () -> {
                Files.move(file, old);
                append(old, "{\"late\":1}\n");
                write("live.json", "{\"r\":1}\n".getBytes(StandardCharsets.UTF_8));
                List<String> got = new ArrayList<>(poll(source, 100));
                while (got.size() < 2) {
                  List<String> more = poll(source, 100);
                  assertThat(more).as("lines after the rename, so far " + got).isNotEmpty();
                  got.addAll(more);
                }
                assertThat(got).containsExactly("{\"late\":1}", "{\"r\":1}");
              });
      assertThat(renamed)
          .singleElement()
          .asString()
          .startsWith("INFO file:" + file + " was replaced (rotated)")
          .contains("read to its end (19 bytes)");
    }
  }

  @Test
  void withoutFollowEndOfFileEndsTheSource() throws Exception {
    Path file = write("done.json", "{\"a\":1}\n".getBytes(StandardCharsets.UTF_8));
    try (FileSource source = new FileSource(file, FileSource.Options.DEFAULTS)) {
      RawBatch batch = new RawBatch();
      assertThat(source.poll(batch, 10, 10)).isTrue();
      assertThat(batch.size()).isEqualTo(1);
      assertThat(source.poll(batch, 10, 10)).isFalse();
      assertThat(source.poll(batch, 10, 10)).isFalse();
      assertThat(batch.size()).isEqualTo(1);
    }
  }

  /** Polls until something arrives or the time is up; each poll waits at most 20 ms. */
  private static List<String> poll(FileSource source, long totalMs) throws Exception {
    RawBatch batch = new RawBatch();
    long end = System.nanoTime() + totalMs * 1_000_000;
    do {
      assertThat(source.poll(batch, 100, 20)).isTrue();
    } while (batch.isEmpty() && System.nanoTime() < end);
    return strings(batch);
  }

  private static List<String> readAll(Source source) throws Exception {
    List<String> out = new ArrayList<>();
    RawBatch batch = new RawBatch(64, 4);
    boolean more = true;
    while (more) {
      batch.clear();
      more = source.poll(batch, 7, 10);
      out.addAll(strings(batch));
    }
    return out;
  }

  private static List<String> strings(RawBatch batch) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      out.add(new String(batch.data(), batch.start(i), batch.length(i), StandardCharsets.UTF_8));
    }
    return out;
  }

  private Path write(String name, byte[] bytes) throws IOException {
    return Files.write(dir.resolve(name), bytes);
  }

  private static void append(Path file, String text) throws IOException {
    Files.write(file, text.getBytes(StandardCharsets.UTF_8), StandardOpenOption.APPEND);
  }

  private static byte[] gzip(String text) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (OutputStream out = new GZIPOutputStream(bytes)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
    return bytes.toByteArray();
  }
}
