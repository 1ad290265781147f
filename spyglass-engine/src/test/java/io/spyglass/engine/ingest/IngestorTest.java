package io.spyglass.engine.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.core.SpyglassClock;
import io.spyglass.sources.RawBatch;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ingest log and its writer on a real folder: group commit, duplicates, recovery, retention.
 */
class IngestorTest {
  @TempDir Path dir;
  final AtomicLong clock = new AtomicLong(1_700_000_000_000L);

  static Ingestor.Doc doc(String id) {
    byte[] b = ("{\"id\":\"" + id + "\",\"n\":1}").getBytes(StandardCharsets.UTF_8);
    return new Ingestor.Doc(id, b, 0, b.length);
  }

  static List<Ingestor.Doc> docs(String prefix, int from, int to) {
    List<Ingestor.Doc> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(doc(prefix + i));
    }
    return out;
  }

  Ingestor open(Ingestor.Options o) throws IOException {
    return Ingestor.open(dir, o, clock::get);
  }

  static List<String> readAll(IngestLog log, long from) throws IOException {
    List<String> out = new ArrayList<>();
    try (IngestLog.Reader r = log.reader(from)) {
      RawBatch b = new RawBatch();
      while (r.read(b, 100) > 0) {
        for (int i = 0; i < b.size(); i++) {
          out.add(new String(b.data(), b.start(i), b.length(i), StandardCharsets.UTF_8));
        }
        b.clear();
      }
    }
    return out;
  }

  @Test
  void aReadersWaitForDocumentsEndsWhenTheEngineClockSaysItIsOver() throws Exception {
    // each look at the monotonic clock finds a minute gone: a wait of a minute ends at once
    AtomicLong nanos = new AtomicLong();
    SpyglassClock jumping = new SpyglassClock(clock::get, () -> nanos.addAndGet(60_000_000_000L));
    try (Ingestor in = Ingestor.open(dir, Ingestor.Options.DEFAULTS, jumping);
        IngestSource source = new IngestSource(in.log(), 0)) {
      RawBatch batch = new RawBatch();
      assertThat(source.poll(batch, 10, 60_000)).isTrue();
      assertThat(batch.size()).isZero();
      in.submit(docs("d", 0, 2)).get(10, TimeUnit.SECONDS);
      assertThat(source.poll(batch, 10, 60_000)).isTrue();
      assertThat(batch.size()).isEqualTo(2);
    }
  }

  @Test
  void concurrentRequestsShareWritesAndRepeatsAreDuplicates() throws Exception {
    try (Ingestor in = open(Ingestor.Options.DEFAULTS)) {
      List<CompletableFuture<Ingestor.Outcome>> outcomes = new ArrayList<>();
      for (int r = 0; r < 50; r++) {
        outcomes.add(in.submit(docs("d", r * 10, r * 10 + 10)));
      }
      for (CompletableFuture<Ingestor.Outcome> o : outcomes) {
        assertThat(o.get(10, TimeUnit.SECONDS)).isEqualTo(new Ingestor.Outcome(10, 0));
      }
      assertThat(in.groups()).isLessThanOrEqualTo(50);
      // a repeat, and a repeat within one request
      List<Ingestor.Doc> again = new ArrayList<>(docs("d", 495, 505));
      again.add(doc("d504"));
      assertThat(in.submit(again).get(10, TimeUnit.SECONDS)).isEqualTo(new Ingestor.Outcome(5, 6));
      assertThat(readAll(in.log(), 0)).hasSize(505).startsWith("{\"id\":\"d0\",\"n\":1}");
    }
  }

  @Test
  void aRestartRemembersTheIdsAndCutsOffATornLastRecord() throws Exception {
    long end;
    try (Ingestor in = open(Ingestor.Options.DEFAULTS)) {
      in.submit(docs("a", 0, 100)).get(10, TimeUnit.SECONDS);
      end = in.log().committedEnd();
    }
    Path segment;
    try (Stream<Path> files = Files.list(dir)) {
      segment = files.filter(p -> p.toString().endsWith(".log")).findFirst().orElseThrow();
    }
    // a crash while the next group was being written: half a record at the end
    try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.APPEND)) {
      ch.write(java.nio.ByteBuffer.wrap(new byte[] {0, 0, 0, 90, 1, 2, 3, 4, 5, 6}));
    }
    try (Ingestor in = open(Ingestor.Options.DEFAULTS)) {
      assertThat(in.log().committedEnd()).isEqualTo(end);
      assertThat(in.submit(docs("a", 90, 110)).get(10, TimeUnit.SECONDS))
          .isEqualTo(new Ingestor.Outcome(10, 10));
      assertThat(readAll(in.log(), 0)).hasSize(110);
      assertThat(readAll(in.log(), end)).hasSize(10).first().asString().contains("a100");
    }
  }

  @Test
  void segmentsRollAndRetentionKeepsIdsWithinTheHorizon() throws Exception {
    Ingestor.Options o = Ingestor.Options.DEFAULTS.withSegmentBytes(2_000).withHorizonMs(60_000);
    long firstEnd;
    try (Ingestor in = open(o)) {
      for (int r = 0; r < 10; r++) {
        in.submit(docs("s", r * 20, r * 20 + 20)).get(10, TimeUnit.SECONDS);
      }
      firstEnd = in.log().committedEnd();
      assertThat(readAll(in.log(), 0)).hasSize(200);
    }
    long logs;
    try (Stream<Path> files = Files.list(dir)) {
      logs = files.filter(p -> p.toString().endsWith(".log")).count();
    }
    assertThat(logs).isGreaterThan(3);
    // a restart reads the ids of sealed segments from their ids files
    try (Ingestor in = open(o)) {
      assertThat(in.idsKept()).isEqualTo(200);
      assertThat(in.submit(docs("s", 0, 5)).get(10, TimeUnit.SECONDS))
          .isEqualTo(new Ingestor.Outcome(0, 5));
      // once replay no longer needs them, sealed segments lose their records but keep their ids
      try (IngestLog.Reader r = in.log().reader(0)) {
        RawBatch b = new RawBatch();
        while (r.read(b, 1000) > 0) {
          b.clear();
        }
      }
      in.replayFrom(firstEnd);
      in.log().retain(firstEnd, clock.get() - 60_000, (h, l, ms) -> {});
      assertThat(in.log().start()).isGreaterThan(0);
      assertThatThrownBy(() -> in.log().reader(0)).hasMessageContaining("holds positions");
    }
    clock.addAndGet(120_000);
    try (Ingestor in = open(o)) {
      assertThat(in.idsKept()).isZero();
      in.log().retain(firstEnd, clock.get() - 60_000, (h, l, ms) -> {});
      assertThat(in.submit(docs("s", 0, 5)).get(10, TimeUnit.SECONDS))
          .isEqualTo(new Ingestor.Outcome(5, 0));
    }
  }

  @Test
  void aBacklogOverItsBoundRefusesAndKeepsNothing() throws Exception {
    try (Ingestor in = open(Ingestor.Options.DEFAULTS.withBacklogBytes(10))) {
      in.submit(docs("b", 0, 3)).get(10, TimeUnit.SECONDS); // empty backlog: taken
      assertThat(in.backlogBytes()).isGreaterThan(10);
      assertThatThrownBy(() -> in.submit(docs("b", 3, 6)))
          .isInstanceOf(Ingestor.Backlogged.class)
          .satisfies(e -> assertThat(((Ingestor.Backlogged) e).retryAfterSeconds()).isPositive());
      // the engine reads: the backlog drains and the refused documents are new
      try (IngestLog.Reader r = in.log().reader(0)) {
        r.read(new RawBatch(), 100);
      }
      assertThat(in.submit(docs("b", 3, 6)).get(10, TimeUnit.SECONDS))
          .isEqualTo(new Ingestor.Outcome(3, 0));
    }
  }

  @Test
  void reservationsHoldTheBacklogBeforeBodiesArriveAndNeverOvershootTogether() throws Exception {
    try (Ingestor in = open(Ingestor.Options.DEFAULTS.withBacklogBytes(1_000))) {
      // an empty backlog takes a request of any size; then only what fits under the bound
      Ingestor.Reservation big = in.reserve(600);
      assertThat(in.backlogBytes()).isEqualTo(600);
      assertThatThrownBy(() -> in.reserve(600)).isInstanceOf(Ingestor.Backlogged.class);
      Ingestor.Reservation small = in.reserve(300);
      assertThat(in.backlogBytes()).isEqualTo(900);
      // a reservation given back (the request was refused later, or its client left)
      small.close();
      small.close(); // idempotent
      assertThat(in.backlogBytes()).isEqualTo(600);
      // submitted: the reservation becomes the documents' bytes, whatever they come to
      List<Ingestor.Doc> three = docs("r", 0, 3);
      assertThat(in.submit(three, big).get(10, TimeUnit.SECONDS))
          .isEqualTo(new Ingestor.Outcome(3, 0));
      big.close(); // nothing left to give back: the queue owned the bytes
      // a reservation too small for its documents grows, its own bytes not counted as backlog
      try (IngestLog.Reader r = in.log().reader(0)) {
        r.read(new RawBatch(), 100);
      }
      Ingestor.Reservation tiny = in.reserve(10);
      assertThat(in.submit(docs("t", 0, 30), tiny).get(10, TimeUnit.SECONDS))
          .isEqualTo(new Ingestor.Outcome(30, 0));
      assertThat(in.backlogBytes()).isGreaterThan(1_000); // 30 documents: over the bound
      try (IngestLog.Reader r = in.log().reader(0)) {
        r.read(new RawBatch(), 100);
      }
      assertThat(in.backlogBytes()).isZero();
    }
  }

  @Test
  void concurrentReservationsStayWithinTheBound() throws Exception {
    try (Ingestor in = open(Ingestor.Options.DEFAULTS.withBacklogBytes(10_000))) {
      in.reserve(1).close();
      Ingestor.Reservation first = in.reserve(100); // the backlog is not empty from here on
      List<Ingestor.Reservation> taken = java.util.Collections.synchronizedList(new ArrayList<>());
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        Thread th =
            new Thread(
                () -> {
                  for (int i = 0; i < 200; i++) {
                    try {
                      taken.add(in.reserve(1_000));
                    } catch (Ingestor.Backlogged e) {
                      // refused: over the bound
                    }
                  }
                });
        threads.add(th);
        th.start();
      }
      for (Thread th : threads) {
        th.join();
      }
      assertThat(taken).hasSize(9); // 100 + 9 x 1,000 <= 10,000: never more
      assertThat(in.backlogBytes()).isEqualTo(9_100);
      taken.forEach(Ingestor.Reservation::close);
      first.close();
      assertThat(in.backlogBytes()).isZero();
    }
  }

  @Test
  void aDamagedRecordOfASealedSegmentIsDroppedAndSaid() throws Exception {
    try (Ingestor in = open(Ingestor.Options.DEFAULTS.withSegmentBytes(500))) {
      for (int r = 0; r < 5; r++) {
        in.submit(docs("x", r * 10, r * 10 + 10)).get(10, TimeUnit.SECONDS);
      }
    }
    Path first = dir.resolve(IngestLog.name(0) + ".log");
    Files.delete(dir.resolve(IngestLog.name(0) + ".ids"));
    byte[] b = Files.readAllBytes(first);
    b[40] ^= 0x55; // the first record's id hash
    Files.write(first, b);
    try (Ingestor in = open(Ingestor.Options.DEFAULTS)) {
      assertThat(in.log().recoveryNotices())
          .anySatisfy(
              n ->
                  assertThat(n)
                      .contains(first.getFileName().toString())
                      .contains("dropped")
                      .contains("1 document lost"));
      assertThat(readAll(in.log(), 0)).hasSize(49).doesNotContain("{\"id\":\"x0\",\"n\":1}");
      // its id is forgotten: sent again, it is taken
      assertThat(in.submit(docs("x", 0, 2)).get(10, TimeUnit.SECONDS))
          .isEqualTo(new Ingestor.Outcome(1, 1));
    }
  }

  /** Makes the {@code n}th record appended (1-based) throw {@code failure}, once. */
  static void failAppend(Ingestor in, int n, Throwable failure) {
    AtomicLong appended = new AtomicLong();
    in.log().beforeAppend =
        () -> {
          if (appended.incrementAndGet() == n) {
            if (failure instanceof Error e) {
              throw e;
            }
            throw (RuntimeException) failure;
          }
        };
  }

  @Test
  void aGroupThatFailsHalfWayLeavesNoTrace() throws Exception {
    try (Ingestor in = open(Ingestor.Options.DEFAULTS.withBacklogBytes(100_000))) {
      int round = 0;
      for (Throwable failure :
          List.of(new IllegalStateException("a bug"), new OutOfMemoryError("no heap"))) {
        String bad = "f" + round + "-";
        String good = "g" + round + "-";
        round++;
        long before = in.backlogBytes();
        failAppend(in, 3, failure);
        CompletableFuture<Ingestor.Outcome> failed = in.submit(docs(bad, 0, 5));
        assertThatThrownBy(() -> failed.get(10, TimeUnit.SECONDS))
            .hasCauseInstanceOf(IOException.class)
            .hasRootCauseMessage(failure.getMessage());
        in.log().beforeAppend = null;
        assertThat(in.backlogBytes()).as("its bytes given back").isEqualTo(before);
        assertThat(in.writeError()).isNotNull();
        // the next group is written alone: none of the failed group's records comes with it
        long end = in.log().committedEnd();
        assertThat(in.submit(docs(good, 0, 3)).get(10, TimeUnit.SECONDS))
            .isEqualTo(new Ingestor.Outcome(3, 0));
        assertThat(readAll(in.log(), end))
            .containsExactly(
                "{\"id\":\"" + good + "0\",\"n\":1}",
                "{\"id\":\"" + good + "1\",\"n\":1}",
                "{\"id\":\"" + good + "2\",\"n\":1}");
        assertThat(in.writeError()).isNull();
        // its ids were forgotten: sent again, its documents are taken
        assertThat(in.submit(docs(bad, 0, 5)).get(10, TimeUnit.SECONDS))
            .isEqualTo(new Ingestor.Outcome(5, 0));
      }
      assertThat(readAll(in.log(), 0)).hasSize(16);
    }
  }

  @Test
  void theWriterCutsItsGroupsAtTheirSize() throws Exception {
    try (Ingestor in = open(Ingestor.Options.DEFAULTS)) {
      in.groupBytes = 300;
      java.util.concurrent.CountDownLatch writing = new java.util.concurrent.CountDownLatch(1);
      java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
      in.log().beforeAppend =
          () -> {
            writing.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          };
      List<CompletableFuture<Ingestor.Outcome>> outcomes = new ArrayList<>();
      outcomes.add(in.submit(docs("c", 0, 1))); // the writer waits in this group
      assertThat(writing.await(10, TimeUnit.SECONDS)).isTrue();
      long queued = 0;
      for (int r = 0; r < 6; r++) {
        List<Ingestor.Doc> two = docs("c", 10 + r * 2, 12 + r * 2);
        for (Ingestor.Doc d : two) {
          queued +=
              d.length() + d.id().length() + IngestLog.RECORD_HEADER + IngestLog.PAYLOAD_FIXED;
        }
        outcomes.add(in.submit(two));
      }
      assertThat(queued).isGreaterThan(600);
      release.countDown();
      for (CompletableFuture<Ingestor.Outcome> o : outcomes) {
        o.get(10, TimeUnit.SECONDS);
      }
      assertThat(in.groups()).isGreaterThanOrEqualTo(1 + (queued + 299) / 300);
      assertThat(readAll(in.log(), 0)).hasSize(13);
    }
  }

  @Test
  void aBacklogBoundOverItsMostIsRefused() {
    assertThatThrownBy(() -> Ingestor.Options.DEFAULTS.withBacklogBytes(3L << 30))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--ingest-backlog")
        .hasMessageContaining("at most 1GiB");
    assertThat(Ingestor.Options.DEFAULTS.withBacklogBytes(1L << 30).backlogBytes())
        .isEqualTo(1L << 30);
  }

  @Test
  void aRequestQueuedWhileIngestionStopsIsAnswered() throws Exception {
    Ingestor in = open(Ingestor.Options.DEFAULTS);
    // the writer drains the queue for the last time between the check and the queueing
    in.beforeQueued =
        () -> {
          try {
            in.close();
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        };
    CompletableFuture<Ingestor.Outcome> late = in.submit(docs("l", 0, 2));
    assertThatThrownBy(() -> late.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(IOException.class)
        .hasMessageContaining("ingestion has stopped");
    assertThat(in.backlogBytes()).isZero();
  }

  @Test
  void aSegmentThatCannotStartLeavesTheLogWritableOnceTheDiskHasRoom() throws Exception {
    Ingestor.Options o = Ingestor.Options.DEFAULTS.withSegmentBytes(500);
    long end;
    try (Ingestor in = open(o)) {
      assertThat(in.submit(docs("r", 0, 5)).get(10, TimeUnit.SECONDS))
          .isEqualTo(new Ingestor.Outcome(5, 0));
      end = in.log().committedEnd();
      Path next = dir.resolve(IngestLog.name(end) + ".log");
      // the disk is full: the next segment's file is made, its header cannot be written
      in.log().segmentCreated =
          file -> {
            throw new IOException("No space left on device");
          };
      for (int attempt = 0; attempt < 2; attempt++) {
        CompletableFuture<Ingestor.Outcome> failed = in.submit(docs("r", 5, 10));
        assertThatThrownBy(() -> failed.get(10, TimeUnit.SECONDS))
            .hasRootCauseMessage("No space left on device");
        assertThat(next).as("no half-made segment left").doesNotExist();
        assertThat(dir.resolve(IngestLog.name(0) + ".ids")).doesNotExist();
        assertThat(in.writeError()).contains("No space left on device");
        assertThat(in.log().committedEnd()).isEqualTo(end);
      }
      // room again: the next group rolls the log, without a restart
      in.log().segmentCreated = null;
      assertThat(in.submit(docs("r", 5, 10)).get(10, TimeUnit.SECONDS))
          .isEqualTo(new Ingestor.Outcome(5, 0));
      assertThat(in.writeError()).isNull();
      assertThat(next).exists();
      assertThat(dir.resolve(IngestLog.name(0) + ".ids")).exists();
      assertThat(readAll(in.log(), 0)).hasSize(10);
    }
    try (Ingestor in = open(o)) {
      assertThat(in.log().recoveryNotices()).isEmpty();
      assertThat(readAll(in.log(), 0)).hasSize(10);
      assertThat(in.submit(docs("r", 0, 12)).get(10, TimeUnit.SECONDS))
          .isEqualTo(new Ingestor.Outcome(2, 10));
    }
  }

  @Test
  void readersDoNotWaitWhileTheManifestIsWritten() throws Exception {
    try (Ingestor in = open(Ingestor.Options.DEFAULTS.withSegmentBytes(500))) {
      for (int r = 0; r < 4; r++) {
        in.submit(docs("m", r * 5, r * 5 + 5)).get(10, TimeUnit.SECONDS);
      }
      java.util.concurrent.CountDownLatch writing = new java.util.concurrent.CountDownLatch(1);
      java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
      in.log().manifestWriting =
          file -> {
            writing.countDown();
            try {
              release.await(); // a slow disk: the fsync, the rename and the folder sync
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          };
      // the first checkpoint writes the manifest at once
      CompletableFuture<Void> checkpoint =
          CompletableFuture.runAsync(() -> in.replayFrom(in.log().committedEnd()));
      try {
        assertThat(writing.await(10, TimeUnit.SECONDS)).isTrue();
        // meanwhile the engine reads across segments, and a scrape asks where the log starts
        CompletableFuture<Integer> read =
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return readAll(in.log(), in.log().start()).size();
                  } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                });
        assertThat(read.get(10, TimeUnit.SECONDS)).isEqualTo(20);
        assertThat(checkpoint).isNotDone();
      } finally {
        release.countDown();
      }
      checkpoint.get(10, TimeUnit.SECONDS);
      assertThat(IngestLog.checkpointEvidence(dir)).contains("records a checkpoint");
    }
  }
}
