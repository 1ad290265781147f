package io.spyglass.flink;

import static io.spyglass.flink.MeteringDocs.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.engine.ingest.Ingestor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the metering ITs share: the service's folders under one ({@code ingest/}, the job's {@code
 * flink/}), the ingest log open for writing, the documents written to it in phases, and the check
 * that the job's windows are the embedded engine's over the same phases.
 */
final class MeteringLog implements AutoCloseable {
  final Path ingestDir;
  final Path flinkDir;
  final Ingestor in;
  private final List<List<String>> phases = new ArrayList<>();

  MeteringLog(Path data) throws IOException {
    this.ingestDir = data.resolve("ingest");
    this.flinkDir = data.resolve("flink");
    this.in = Ingestor.open(ingestDir, Ingestor.Options.DEFAULTS, () -> T0);
  }

  /** The log's committed end: where a query defined now starts counting. */
  long committedEnd() {
    return in.log().committedEnd();
  }

  /** Writes {@code docs} as the next phase (acknowledged when it returns). */
  void write(List<String> docs) throws Exception {
    phases.add(docs);
    MeteringDocs.ingest(in, docs);
  }

  /**
   * Writes the documents of each hour from {@code from} to {@code to} (exclusive), a phase each.
   */
  void writeHours(int from, int to) throws Exception {
    for (int h = from; h < to; h++) {
      write(MeteringDocs.hour(h));
    }
  }

  /**
   * Waits until {@code got} has every window the embedded engine closes over the phases written
   * (query {@code id}), then checks that they are the engine's, each once.
   */
  Map<String, String> awaitEnginesWindows(MeteringDocs.Collected got, String id)
      throws InterruptedException {
    Map<String, String> expected = MeteringDocs.embedded(phases);
    MeteringDocs.await(
        "every window the engine closed",
        () -> got.windows(id).keySet().containsAll(expected.keySet()),
        got);
    assertThat(got.windows(id)).isEqualTo(expected);
    return expected;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
