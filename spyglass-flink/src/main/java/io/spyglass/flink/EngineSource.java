package io.spyglass.flink;

import io.spyglass.core.SpyglassClock;
import io.spyglass.sources.BadInput;
import io.spyglass.sources.RawBatch;
import io.spyglass.sources.Sources;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A source of the embedded engine ({@code gen}, {@code file:}, {@code -}, {@code kafka://}, see
 * {@link Sources}) as a Flink source of one split, read by one subtask in batches of about 64 KiB:
 * for local runs and tests. It keeps no position: after a restart it reads its source again as when
 * opened. The Kafka job reads Kafka with Flink's own connector instead.
 */
final class EngineSource implements Source<RecordBatch, EngineSource.Split, Integer> {
  private static final long serialVersionUID = 1L;
  private static final String SPLIT_ID = "0";
  private static final int BATCH_BYTES = 64 * 1024;
  private static final int BATCH_RECORDS = 512;

  private final String spec;
  private final SpyglassClock clock;

  /** Kafka client settings for a {@code kafka://} spec, applied last; serializable. */
  private final java.util.HashMap<String, String> kafkaProperties;

  EngineSource(String spec) {
    this(spec, Map.of());
  }

  EngineSource(String spec, Map<String, ?> kafkaProperties) {
    this(spec, kafkaProperties, SpyglassClock.system());
  }

  /** Reading on {@code clock}: the source's waits and pace, the batches' read time. */
  EngineSource(String spec, Map<String, ?> kafkaProperties, SpyglassClock clock) {
    this.spec = spec;
    this.clock = clock;
    this.kafkaProperties = new java.util.HashMap<>();
    kafkaProperties.forEach((k, v) -> this.kafkaProperties.put(k, String.valueOf(v)));
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Override
  public SplitEnumerator<Split, Integer> createEnumerator(SplitEnumeratorContext<Split> context) {
    return new Enumerator(context, spec, false);
  }

  @Override
  public SplitEnumerator<Split, Integer> restoreEnumerator(
      SplitEnumeratorContext<Split> context, Integer assigned) {
    return new Enumerator(context, spec, assigned != null && assigned == 1);
  }

  @Override
  public SimpleVersionedSerializer<Split> getSplitSerializer() {
    return new SplitSerializer();
  }

  @Override
  public SimpleVersionedSerializer<Integer> getEnumeratorCheckpointSerializer() {
    return new AssignedSerializer();
  }

  @Override
  public SourceReader<RecordBatch, Split> createReader(SourceReaderContext context) {
    return new Reader(context, Map.copyOf(kafkaProperties), clock);
  }

  /** The whole source: its spec. */
  record Split(String spec) implements SourceSplit {
    @Override
    public String splitId() {
      return SPLIT_ID;
    }
  }

  /** Gives the one split to subtask 0; no more splits to anyone. */
  private static final class Enumerator implements SplitEnumerator<Split, Integer> {
    private final SplitEnumeratorContext<Split> context;
    private final String spec;
    private boolean assigned;

    Enumerator(SplitEnumeratorContext<Split> context, String spec, boolean assigned) {
      this.context = context;
      this.spec = spec;
      this.assigned = assigned;
    }

    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtask, String host) {}

    @Override
    public void addSplitsBack(List<Split> splits, int subtask) {
      assigned = false;
    }

    @Override
    public void addReader(int subtask) {
      if (subtask == 0 && !assigned) {
        context.assignSplit(new Split(spec), 0);
        assigned = true;
      }
      context.signalNoMoreSplits(subtask);
    }

    @Override
    public Integer snapshotState(long checkpointId) {
      return assigned ? 1 : 0;
    }

    @Override
    public void close() {}
  }

  @SuppressWarnings("try") // SourceReaderBase.close may be interrupted; Flink handles it
  private static final class Reader
      extends SingleThreadMultiplexSourceReaderBase<RecordBatch, RecordBatch, Split, Split> {
    Reader(SourceReaderContext context, Map<String, Object> kafkaProperties, SpyglassClock clock) {
      super(
          () -> new Fetcher(kafkaProperties, clock),
          (b, out, split) -> out.collect(b),
          context.getConfiguration(),
          context);
    }

    @Override
    protected void onSplitFinished(Map<String, Split> finished) {}

    @Override
    protected Split initializedState(Split split) {
      return split;
    }

    @Override
    protected Split toSplitType(String id, Split state) {
      return state;
    }
  }

  /** Polls the engine source on the reader's fetcher thread. */
  private static final class Fetcher implements SplitReader<RecordBatch, Split> {
    private final Map<String, Object> kafkaProperties;
    private final SpyglassClock clock;
    private io.spyglass.sources.Source source;
    private Split split;
    private final RawBatch raw = new RawBatch(BATCH_BYTES + 4096, BATCH_RECORDS);
    private double recordBytes = 1024;
    private long badReported;

    Fetcher(Map<String, Object> kafkaProperties, SpyglassClock clock) {
      this.kafkaProperties = kafkaProperties;
      this.clock = clock;
    }

    @Override
    public RecordsWithSplitIds<RecordBatch> fetch() throws IOException {
      if (split == null) {
        return new RecordsBySplits<>(Map.of(), Set.of());
      }
      if (source == null) {
        source =
            Sources.open(split.spec(), new Sources.SourceOptions(null, kafkaProperties, clock));
      }
      raw.clear();
      int perBatch = (int) Math.max(1, Math.min(BATCH_RECORDS, BATCH_BYTES / recordBytes));
      boolean more;
      try {
        more = source.poll(raw, perBatch, 100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while reading " + source.describe());
      }
      Map<String, Collection<RecordBatch>> batches = Map.of();
      BadInput.Snapshot bad = source.badInput();
      boolean badChanged = bad.total() != badReported;
      if (!raw.isEmpty() || badChanged) {
        if (!raw.isEmpty()) {
          recordBytes += ((double) raw.bytes() / raw.size() - recordBytes) / 8;
        }
        RecordBatch b = copy(raw);
        if (badChanged) {
          badReported = bad.total();
          b.sourceBad = Statuses.of(bad).toJson();
        }
        batches = Map.of(SPLIT_ID, List.of(b));
      }
      if (!more) {
        source.close();
        split = null;
        return new RecordsBySplits<>(batches, Set.of(SPLIT_ID));
      }
      return new RecordsBySplits<>(batches, Set.of());
    }

    private RecordBatch copy(RawBatch raw) {
      RecordBatch b = new RecordBatch();
      int n = raw.size();
      b.count = n;
      b.data = Arrays.copyOf(raw.data(), raw.bytes());
      b.ends = new int[n];
      for (int i = 0; i < n; i++) {
        b.ends[i] = raw.start(i) + raw.length(i);
      }
      b.positions = new long[3 * n];
      for (int i = 0; i < n; i++) {
        b.positions[3 * i] = raw.partition(i);
        b.positions[3 * i + 1] = raw.offset(i);
        b.positions[3 * i + 2] = raw.timestamp(i);
      }
      b.positioned = raw.positioned();
      b.readTimeMs = clock.getAsLong();
      return b;
    }

    @Override
    public void handleSplitsChanges(SplitsChange<Split> change) {
      if (change instanceof SplitsAddition && !change.splits().isEmpty()) {
        split = change.splits().get(0);
      }
    }

    @Override
    public void wakeUp() {}

    @Override
    public void close() throws IOException {
      if (source != null) {
        source.close();
      }
    }
  }

  private static final class SplitSerializer implements SimpleVersionedSerializer<Split> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(Split split) {
      return split.spec().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public Split deserialize(int version, byte[] bytes) throws IOException {
      if (version != 1) {
        throw new IOException("unknown split version " + version);
      }
      return new Split(new String(bytes, StandardCharsets.UTF_8));
    }
  }

  private static final class AssignedSerializer implements SimpleVersionedSerializer<Integer> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(Integer assigned) {
      return ByteBuffer.allocate(4).putInt(assigned).array();
    }

    @Override
    public Integer deserialize(int version, byte[] bytes) throws IOException {
      if (version != 1 || bytes.length != 4) {
        throw new IOException("unknown enumerator state version " + version);
      }
      return ByteBuffer.wrap(bytes).getInt();
    }
  }
}
