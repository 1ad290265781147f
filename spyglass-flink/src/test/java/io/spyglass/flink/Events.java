package io.spyglass.flink;

import io.spyglass.sources.GeneratorSource;
import io.spyglass.sources.RawBatch;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Records of the engine's generator, for tests. */
final class Events {
  private Events() {}

  /** {@code count} generated records of {@code seed}, as JSON lines. */
  static List<byte[]> generate(long seed, int count) throws InterruptedException {
    GeneratorSource g =
        new GeneratorSource(
            GeneratorSource.Options.DEFAULTS.withSeed(seed).withCount(count).withRecordBytes(300));
    List<byte[]> out = new ArrayList<>(count);
    RawBatch b = new RawBatch();
    boolean more = true;
    while (more) {
      b.clear();
      more = g.poll(b, 256, 100);
      for (int i = 0; i < b.size(); i++) {
        byte[] r = new byte[b.length(i)];
        System.arraycopy(b.data(), b.start(i), r, 0, r.length);
        out.add(r);
      }
    }
    g.close();
    return out;
  }

  static Path writeFile(Path dir, long seed, int count) throws IOException, InterruptedException {
    Path file = dir.resolve("events-" + seed + ".json");
    try (OutputStream out = Files.newOutputStream(file)) {
      for (byte[] r : generate(seed, count)) {
        out.write(r);
        out.write('\n');
      }
    }
    return file;
  }
}
