package io.spyglass.flink;

import io.spyglass.flink.client.Reply;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A process of its own running {@link MeteringRun} as the service would, its replies appended to a
 * file (one encoded reply a line): what {@link MeteringKillITCase} kills with SIGKILL.
 *
 * <p>Arguments: the ingest log's folder, the job's folder, the replies file, and the ingest log
 * position to submit the query {@code q} at (none: submit nothing).
 */
public final class MeteringProcess {
  private MeteringProcess() {}

  public static void main(String[] args) throws Exception {
    Path replies = Path.of(args[2]);
    OutputStream out =
        Files.newOutputStream(replies, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    MeteringRun run =
        MeteringRun.start(
            Path.of(args[0]),
            Path.of(args[1]),
            MeteringDocs.SETTINGS,
            r -> {
              synchronized (out) {
                try {
                  out.write(Base64.getEncoder().encode(r.encode()));
                  out.write('\n');
                  out.flush();
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              }
            });
    if (args.length > 3) {
      run.submit("q", MeteringDocs.checked(), MeteringDocs.T0, Long.parseLong(args[3]));
    }
    Thread.sleep(Long.MAX_VALUE);
  }

  /** The replies a process wrote to {@code file} so far (a line cut short by the kill is left). */
  static List<Reply> read(Path file) throws IOException {
    List<Reply> out = new ArrayList<>();
    if (!Files.exists(file)) {
      return out;
    }
    String text = Files.readString(file, StandardCharsets.ISO_8859_1);
    int end = text.lastIndexOf('\n');
    if (end < 0) {
      return out;
    }
    for (String line : text.substring(0, end).split("\n")) {
      out.add(Reply.decode(Base64.getDecoder().decode(line)));
    }
    return out;
  }
}
