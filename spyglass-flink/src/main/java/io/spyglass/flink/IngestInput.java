package io.spyglass.flink;

import io.spyglass.core.SpyglassClock;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The job's source over the ingest log of {@code serve --source http} and the standing queries'
 * {@link ControlLog}: reader 0 follows the log's committed documents and hands them to the filter
 * chained to it in batches; every reader reads the whole control log and hands each message on as
 * an element of its own (a query message, as the Kafka job's query topic), reader 0 just before the
 * first document at or after the message's position. Each reader's split holds its positions (the
 * log's and the control log's), so a checkpoint holds them with the filter's queries of the same
 * moment.
 *
 * <p>The parallelism must stay the same across restores (each reader has one split of its own).
 */
final class IngestInput implements Source<RecordBatch, IngestInput.Split, TreeSet<Integer>> {
  private static final long serialVersionUID = 1L;

  /**
   * What the source reads.
   *
   * @param ingestDir the ingest log's folder
   * @param controlFile the control log
   * @param from where a job without a checkpoint starts reading the log
   * @param positionFile where reader 0 writes the log position each completed checkpoint covers
   *     (what the log must keep for a restore); null for nowhere
   * @param batchRecords most documents in one batch
   * @param pollMs how long a reader that found nothing new waits before it looks again
   * @param clock the wall clock, for the documents' read time
   * @param writerKey where reader 0 finds the ingest log writer's committed end in {@link
   *     #COMMITTED_ENDS} (the writer in this process); null, or not there: bounded by the commit
   *     markers alone
   * @param runKey where the readers find the run's looks at open windows ({@link #LOOKS}) and where
   *     reader 0 tells how far it has read ({@link #READ_POSITIONS}); null for none
   */
  record Settings(
      String ingestDir,
      String controlFile,
      long from,
      String positionFile,
      int batchRecords,
      long pollMs,
      SpyglassClock clock,
      String writerKey,
      String runKey)
      implements Serializable {
    private static final long serialVersionUID = 1L;

    Settings {
      Objects.requireNonNull(ingestDir);
      Objects.requireNonNull(controlFile);
      Objects.requireNonNull(clock);
      if (batchRecords < 1 || pollMs < 1) {
        throw new IllegalArgumentException("batch records and poll interval must be positive");
      }
    }
  }

  /**
   * A reader's positions: {@code index} (0 reads the log), the next position in the ingest log and
   * the next offset in the control log.
   */
  record Split(int index, long logPosition, long controlOffset) implements SourceSplit {
    @Override
    public String splitId() {
      return "ingest-" + index;
    }
  }

  /**
   * The committed end of ingest log writers in this process, by key: a job on a mini cluster in the
   * writer's process reads nothing beyond it.
   */
  static final Map<String, LongSupplier> COMMITTED_ENDS = new ConcurrentHashMap<>();

  /** The looks at open windows of runs in this process, by run key: handed on, never kept. */
  static final Map<String, Looks> LOOKS = new ConcurrentHashMap<>();

  /** How far reader 0 of runs in this process has read the ingest log, by run key. */
  static final Map<String, java.util.concurrent.atomic.AtomicLong> READ_POSITIONS =
      new ConcurrentHashMap<>();

  /**
   * The {@code inspect} messages of one run, in the order they were made, for every reader to hand
   * on at once (each to its filter, apart from the control log: nothing of them is durable or in a
   * checkpoint). The latest {@value #KEEP} are kept: a reader that starts (a restore) hands on
   * those it finds, and a look whose answer came already is answered again (the service takes the
   * first).
   */
  static final class Looks {
    /** How many looks are kept at least: the oldest go first. */
    static final int KEEP = 4096;

    private final java.util.ArrayList<byte[]> kept = new java.util.ArrayList<>();
    private long first;

    /** Adds a look; drops the oldest {@link #KEEP} once twice as many are kept. */
    synchronized void add(byte[] message) {
      kept.add(message);
      if (kept.size() >= 2 * KEEP) {
        kept.subList(0, KEEP).clear();
        first += KEEP;
      }
    }

    /** The number of the oldest look kept. */
    synchronized long first() {
      return first;
    }

    /** The look numbered {@code n}; null when there is none (yet); the oldest kept when gone. */
    synchronized byte[] get(long n) {
      long i = Math.max(n, first) - first;
      return i < kept.size() ? kept.get((int) i) : null;
    }
  }

  private final Settings settings;

  IngestInput(Settings settings) {
    this.settings = settings;
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Override
  public SplitEnumerator<Split, TreeSet<Integer>> createEnumerator(
      SplitEnumeratorContext<Split> context) {
    return new Enumerator(context, settings.from(), new TreeSet<>());
  }

  @Override
  public SplitEnumerator<Split, TreeSet<Integer>> restoreEnumerator(
      SplitEnumeratorContext<Split> context, TreeSet<Integer> assigned) {
    return new Enumerator(context, settings.from(), assigned);
  }

  @Override
  public SimpleVersionedSerializer<Split> getSplitSerializer() {
    return new SplitSerializer();
  }

  @Override
  public SimpleVersionedSerializer<TreeSet<Integer>> getEnumeratorCheckpointSerializer() {
    return new AssignedSerializer();
  }

  @Override
  public SourceReader<RecordBatch, Split> createReader(SourceReaderContext context) {
    return new IngestReader(settings, context);
  }

  /**
   * Gives reader i the split i, once: from then on the split and its positions live in the reader's
   * state (a split given back after a failure is given to its reader again).
   */
  private static final class Enumerator implements SplitEnumerator<Split, TreeSet<Integer>> {
    private final SplitEnumeratorContext<Split> context;
    private final long from;
    private final TreeSet<Integer> assigned;
    private final Map<Integer, Split> returned = new HashMap<>();

    Enumerator(SplitEnumeratorContext<Split> context, long from, TreeSet<Integer> assigned) {
      this.context = context;
      this.from = from;
      this.assigned = new TreeSet<>(assigned);
    }

    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtask, String host) {}

    @Override
    public void addSplitsBack(List<Split> splits, int subtask) {
      for (Split s : splits) {
        returned.put(s.index(), s);
      }
    }

    @Override
    public void addReader(int subtask) {
      Split back = returned.remove(subtask);
      if (back != null) {
        context.assignSplit(back, subtask);
      } else if (assigned.add(subtask)) {
        context.assignSplit(new Split(subtask, from, ControlLog.HEADER), subtask);
      }
    }

    @Override
    public TreeSet<Integer> snapshotState(long checkpointId) {
      return new TreeSet<>(assigned);
    }

    @Override
    public void close() {}
  }

  /** Version 1: index (4 bytes), log position (8), control offset (8). */
  static final class SplitSerializer implements SimpleVersionedSerializer<Split> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(Split s) throws IOException {
      ByteArrayOutputStream b = new ByteArrayOutputStream(20);
      DataOutputStream out = new DataOutputStream(b);
      out.writeInt(s.index());
      out.writeLong(s.logPosition());
      out.writeLong(s.controlOffset());
      out.flush();
      return b.toByteArray();
    }

    @Override
    public Split deserialize(int version, byte[] bytes) throws IOException {
      if (version != 1 || bytes.length != 20) {
        throw new IOException(
            "an ingest log split of version "
                + version
                + " ("
                + bytes.length
                + " bytes): this job reads version 1; restore it with the job's version that"
                + " wrote it");
      }
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
      return new Split(in.readInt(), in.readLong(), in.readLong());
    }
  }

  /** Version 1: count (4 bytes), then each reader given its split (4 bytes each). */
  static final class AssignedSerializer implements SimpleVersionedSerializer<TreeSet<Integer>> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(TreeSet<Integer> assigned) throws IOException {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(b);
      out.writeInt(assigned.size());
      for (int i : assigned) {
        out.writeInt(i);
      }
      out.flush();
      return b.toByteArray();
    }

    @Override
    public TreeSet<Integer> deserialize(int version, byte[] bytes) throws IOException {
      if (version != 1) {
        throw new IOException(
            "an ingest log enumerator state of version "
                + version
                + ": this job reads version 1; restore it with the job's version that wrote it");
      }
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
      int n = in.readInt();
      List<Integer> all = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        all.add(in.readInt());
      }
      return new TreeSet<>(all);
    }
  }
}
