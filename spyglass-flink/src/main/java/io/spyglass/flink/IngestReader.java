package io.spyglass.flink;

import io.spyglass.sources.RawBatch;
import io.spyglass.sources.ingest.IngestLogFollower;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One reader of {@link IngestInput}, in the task's thread (the files are local: a read is short).
 * Reader 0 follows the ingest log ({@link IngestLogFollower}) and hands its committed documents on
 * in batches; every reader hands on the control log's messages, reader 0 each just before the first
 * document at or after its position. Nothing new: it looks again after {@code pollMs}.
 */
final class IngestReader implements SourceReader<RecordBatch, IngestInput.Split> {
  private static final Logger LOG = LoggerFactory.getLogger(IngestReader.class);

  private final IngestInput.Settings settings;
  private final SourceReaderContext context;
  private final RawBatch raw = new RawBatch(1 << 20, 1024);
  private final TreeMap<Long, Long> positionsByCheckpoint = new TreeMap<>();
  private IngestInput.Split split;
  private IngestLogFollower log;
  private ControlLog.Reader control;
  private ControlLog.Entry next;
  private long controlOffset;
  private IngestInput.Looks looks;
  private long nextLook;
  private java.util.concurrent.atomic.AtomicLong readPosition;
  private CompletableFuture<Void> available = new CompletableFuture<>();

  IngestReader(IngestInput.Settings settings, SourceReaderContext context) {
    this.settings = settings;
    this.context = context;
  }

  @Override
  public void start() {}

  @Override
  public InputStatus pollNext(ReaderOutput<RecordBatch> output) throws Exception {
    if (split == null) {
      return InputStatus.NOTHING_AVAILABLE;
    }
    if (next == null) {
      next = control.read(controlOffset);
    }
    if (next != null && (log == null || next.at() <= log.position())) {
      output.collect(RecordBatch.query(next.json(), 0, next.offset()));
      controlOffset = next.next();
      next = null;
      return InputStatus.MORE_AVAILABLE;
    }
    if (looks != null) {
      // a look at open windows: at once, after the documents handed on so far
      byte[] look = looks.get(nextLook);
      if (look != null) {
        nextLook = Math.max(nextLook, looks.first()) + 1;
        output.collect(RecordBatch.query(look, -1, -1));
        return InputStatus.MORE_AVAILABLE;
      }
    }
    if (log != null) {
      raw.clear();
      long limit = next == null ? Long.MAX_VALUE : next.at();
      if (log.read(raw, settings.batchRecords(), limit) > 0) {
        output.collect(copy(raw, settings.clock().getAsLong()));
        if (readPosition != null) {
          readPosition.set(log.position());
        }
        return InputStatus.MORE_AVAILABLE;
      }
    }
    available =
        CompletableFuture.runAsync(
            () -> {}, CompletableFuture.delayedExecutor(settings.pollMs(), TimeUnit.MILLISECONDS));
    return InputStatus.NOTHING_AVAILABLE;
  }

  /** The documents as one batch, back to back, without positions. */
  static RecordBatch copy(RawBatch raw, long readTimeMs) {
    RecordBatch b = new RecordBatch();
    int n = raw.size();
    b.count = n;
    b.data = Arrays.copyOf(raw.data(), raw.bytes());
    b.ends = new int[n];
    for (int i = 0; i < n; i++) {
      b.ends[i] = raw.start(i) + raw.length(i);
    }
    b.readTimeMs = readTimeMs;
    return b;
  }

  @Override
  public List<IngestInput.Split> snapshotState(long checkpointId) {
    if (split == null) {
      return List.of();
    }
    long position = log == null ? split.logPosition() : log.position();
    if (log != null) {
      positionsByCheckpoint.put(checkpointId, position);
    }
    return List.of(new IngestInput.Split(split.index(), position, controlOffset));
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) throws IOException {
    Map.Entry<Long, Long> done = positionsByCheckpoint.floorEntry(checkpointId);
    if (done == null) {
      return;
    }
    positionsByCheckpoint.headMap(checkpointId, true).clear();
    if (settings.positionFile() != null) {
      Path file = Path.of(settings.positionFile());
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, done.getValue() + "\n", StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  @Override
  public CompletableFuture<Void> isAvailable() {
    return available;
  }

  @Override
  public void addSplits(List<IngestInput.Split> splits) {
    if (splits.isEmpty()) {
      return;
    }
    if (split != null || splits.size() > 1) {
      throw new IllegalStateException(
          "a reader of the ingest log has one split; the job's parallelism must stay the same"
              + " across restores");
    }
    split = splits.get(0);
    controlOffset = split.controlOffset();
    control = new ControlLog.Reader(Path.of(settings.controlFile()));
    if (settings.runKey() != null) {
      looks = IngestInput.LOOKS.get(settings.runKey());
      nextLook = looks == null ? 0 : looks.first();
    }
    if (split.index() == 0) {
      LongSupplier writer =
          settings.writerKey() == null
              ? null
              : IngestInput.COMMITTED_ENDS.get(settings.writerKey());
      log =
          writer == null
              ? new IngestLogFollower(Path.of(settings.ingestDir()), split.logPosition())
              : new IngestLogFollower(Path.of(settings.ingestDir()), split.logPosition(), writer);
      readPosition =
          settings.runKey() == null ? null : IngestInput.READ_POSITIONS.get(settings.runKey());
      if (readPosition != null) {
        readPosition.set(log.position());
      }
      LOG.info(
          "reader {} follows the ingest log in {} from position {}",
          context.getIndexOfSubtask(),
          settings.ingestDir(),
          split.logPosition());
    }
    available.complete(null);
  }

  @Override
  public void notifyNoMoreSplits() {}

  @Override
  public void close() throws IOException {
    if (log != null) {
      log.close();
    }
    if (control != null) {
      control.close();
    }
  }
}
