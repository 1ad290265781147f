package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults injected into the data folder of {@code spyglass serve --source http}, run as a user runs
 * it: a second service on the same folder, a group torn by a crash, a byte flipped inside
 * acknowledged data before and after the checkpoint, the log's end cut under the checkpoint. Every
 * acknowledged document is counted once, or the start is refused with the cause, changing nothing.
 */
class DataFolderFaultsIT {
  static final String COUNT = MeteringIT.COUNT;

  @TempDir Path data;

  String[] serveArgs(String... more) {
    return MeteringServe.args(data, more);
  }

  Spyglass.Running serve(String... more) throws Exception {
    return MeteringServe.serve(data, more);
  }

  static HttpResponse<String> post(String url, int request) throws Exception {
    return MeteringServe.ingest(url, MeteringIT.body(request));
  }

  /**
   * The standing query's count once it has read everything before request {@code sentinel}, sent
   * now: the log is read in order, so once the sentinel's quantities show in the total, every
   * document before it was counted (and one counted twice would show).
   */
  long exactDocs(String url, int sentinel) throws Exception {
    HttpResponse<String> r = post(url, sentinel);
    assertThat(r.body()).contains("\"accepted\":" + MeteringIT.PER_REQUEST);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (total(url) < expectedTotal + sentinelTotal()) {
      assertThat(System.nanoTime()).as("the sentinel counted within 30 s").isLessThan(deadline);
      Thread.sleep(50);
    }
    expectedTotal += sentinelTotal();
    return MeteringServe.counted(url, "usage")[0] - MeteringIT.PER_REQUEST;
  }

  static long total(String url) throws Exception {
    return MeteringServe.counted(url, "usage")[1];
  }

  /** Σ quantity of the documents counted so far as the test expects them. */
  long expectedTotal;

  static long sentinelTotal() {
    return (long) MeteringIT.PER_REQUEST * (MeteringIT.PER_REQUEST + 1) / 2;
  }

  static String url(Spyglass.Running s) throws InterruptedException {
    return MeteringServe.url(s);
  }

  Path activeSegment() throws Exception {
    try (Stream<Path> files = Files.list(data.resolve("ingest"))) {
      return files.filter(p -> p.toString().endsWith(".log")).sorted().reduce((a, b) -> b).get();
    }
  }

  /** Starts, defines the standing query, sends requests {@code 0..n-1}; the running service. */
  Spyglass.Running fill(int n, String... more) throws Exception {
    Spyglass.Running s = serve(more);
    String url = url(s);
    MeteringServe.define(url, "usage", COUNT);
    for (int q = 0; q < n; q++) {
      assertThat(post(url, q).statusCode()).isEqualTo(202);
    }
    return s;
  }

  @Test
  void aSecondServeOnTheSameDataFolderExitsNamingTheFirst() throws Exception {
    try (Spyglass.Running first = serve()) {
      String url = url(first);
      Spyglass.Run second = Spyglass.run(serveArgs());
      assertThat(second.exitCode()).as(second.toString()).isEqualTo(1);
      assertThat(second.stderr())
          .contains("is in use by another Spyglass (pid " + first.process.pid())
          .contains("Stop that one first, or give this one another --data folder");
      assertThat(post(url, 0).body()).contains("\"accepted\":" + MeteringIT.PER_REQUEST);
      MeteringServe.stop(first);
    }
    try (Spyglass.Running again = serve()) {
      assertThat(post(url(again), 0).body()).contains("\"duplicates\":" + MeteringIT.PER_REQUEST);
      MeteringServe.stop(again);
    }
  }

  // --- recovery matrix

  /** A record as the log writes it, by hand (docs/metering.md, "On disk"). */
  static byte[] record(String id, String doc) throws Exception {
    byte[] idb = id.getBytes(StandardCharsets.UTF_8);
    byte[] d = doc.getBytes(StandardCharsets.UTF_8);
    byte[] hash = MessageDigest.getInstance("SHA-256").digest(idb);
    int len = 28 + idb.length + d.length;
    ByteBuffer b = ByteBuffer.allocate(8 + len);
    b.putInt(len).putInt(0).putLong(System.currentTimeMillis()).put(hash, 0, 16);
    b.putInt(idb.length).put(idb).put(d);
    CRC32C c = new CRC32C();
    c.update(b.array(), 8, len);
    b.putInt(4, (int) c.getValue());
    return b.array();
  }

  @Test
  void aGroupTornByACrashIsCutAndItsDocumentsCountOnceWhenSentAgain() throws Exception {
    int n = 5;
    try (Spyglass.Running s = fill(n)) {
      MeteringServe.stop(s);
    }
    // the writer killed in the middle of a group: two whole records and a third cut short
    String torn = MeteringIT.body(100);
    String[] lines = torn.split("\n");
    byte[] third = record("u100-2", lines[2]);
    try (FileChannel ch = FileChannel.open(activeSegment(), StandardOpenOption.APPEND)) {
      ch.write(ByteBuffer.wrap(record("u100-0", lines[0])));
      ch.write(ByteBuffer.wrap(record("u100-1", lines[1])));
      ch.write(ByteBuffer.wrap(Arrays.copyOf(third, third.length / 2)));
    }
    expectedTotal = n * sentinelTotal();
    try (Spyglass.Running s = serve()) {
      String url = url(s);
      assertThat(s.stderr()).contains("were cut off").contains("never acknowledged");
      assertThat(exactDocs(url, 900)).isEqualTo(n * MeteringIT.PER_REQUEST);
      // the client got no 202 and sends its request again: all ten counted, once
      assertThat(post(url, 100).body()).contains("\"accepted\":" + MeteringIT.PER_REQUEST);
      expectedTotal += sentinelTotal();
      assertThat(exactDocs(url, 901)).isEqualTo((n + 2) * MeteringIT.PER_REQUEST);
      MeteringServe.stop(s);
    }
  }

  /** Flips one byte of document {@code id}'s JSON in the active segment. */
  void flip(String id) throws Exception {
    Path seg = activeSegment();
    byte[] b = Files.readAllBytes(seg);
    byte[] t = ("{\"id\":\"" + id + "\"").getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i + t.length <= b.length; i++) {
      if (Arrays.equals(b, i, i + t.length, t, 0, t.length)) {
        b[i + t.length + 3] ^= 0x01;
        Files.write(seg, b);
        return;
      }
    }
    throw new AssertionError(id + " is not in " + seg);
  }

  @Test
  void aFlippedByteAfterTheCheckpointDropsOneDocumentSaysWhichAndItCountsOnceSentAgain()
      throws Exception {
    int n = 6;
    try (Spyglass.Running s = fill(n, "--checkpoint-every", "1h")) {
      s.kill9(); // the checkpoint is the one taken when the query was defined: before them all
    }
    flip("u3-4");
    expectedTotal = n * sentinelTotal() - 5;
    try (Spyglass.Running s = serve()) {
      String url = url(s);
      assertThat(exactDocs(url, 900)).isEqualTo(n * MeteringIT.PER_REQUEST - 1);
      assertThat(s.stderr())
          .contains("do not read back (a record whose checksum does not match)")
          .contains("1 document lost (id \"u3-4\")")
          .contains("send it again");
      try (Stream<Path> q = Files.list(data.resolve("ingest").resolve("quarantine"))) {
        assertThat(q.count()).isEqualTo(1);
      }
      assertThat(post(url, 3).body()).contains("\"accepted\":1,\"duplicates\":9");
      expectedTotal += 5;
      assertThat(exactDocs(url, 901)).isEqualTo((n + 1) * MeteringIT.PER_REQUEST);
      MeteringServe.stop(s);
    }
  }

  @Test
  void aFlippedByteBeforeTheCheckpointIsSaidAndNothingIsCountedTwice() throws Exception {
    int n = 4;
    try (Spyglass.Running s = fill(n)) {
      MeteringServe.stop(s); // the last checkpoint covers everything
    }
    flip("u1-2");
    expectedTotal = n * sentinelTotal();
    try (Spyglass.Running s = serve()) {
      String url = url(s);
      assertThat(s.stderr())
          .contains("1 document lost (id \"u1-2\")")
          .contains("counted by the standing queries before");
      assertThat(post(url, 1).body()).contains("\"accepted\":0,\"duplicates\":10");
      assertThat(exactDocs(url, 900)).isEqualTo(n * MeteringIT.PER_REQUEST);
      MeteringServe.stop(s);
    }
  }

  @Test
  void theLogCutUnderTheCheckpointRefusesTheStartAndChangesNothing() throws Exception {
    try (Spyglass.Running s = fill(3)) {
      MeteringServe.stop(s);
    }
    Path seg = activeSegment();
    try (FileChannel ch = FileChannel.open(seg, StandardOpenOption.WRITE)) {
      ch.truncate(ch.size() - 5);
    }
    byte[] before = Files.readAllBytes(seg);
    Spyglass.Run r = Spyglass.run(serveArgs());
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
    assertThat(r.stderr())
        .contains("beyond the end of the log")
        .contains("Restore the ingest folder from a copy");
    assertThat(Files.readAllBytes(seg)).isEqualTo(before);
  }
}
