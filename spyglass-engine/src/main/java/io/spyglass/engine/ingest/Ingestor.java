package io.spyglass.engine.ingest;

import io.spyglass.core.SpyglassClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes documents into the {@link IngestLog}, each once: a writer thread takes every request
 * waiting, drops the documents whose id was accepted within the horizon (or earlier in the same
 * group), appends the others, forces them to the disk once for the whole group (group commit), and
 * only then completes each request. A request refused because of the backlog leaves nothing behind.
 *
 * <pre>{@code
 * Ingestor in = Ingestor.open(dataDir.resolve("ingest"), Ingestor.Options.DEFAULTS, clock);
 * Ingestor.Outcome o = in.submit(List.of(new Ingestor.Doc("a1", bytes, 0, bytes.length))).get();
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class Ingestor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Ingestor.class);

  /**
   * @param backlogBytes bytes accepted or waiting to be written that the engine has not read yet,
   *     beyond which requests are refused ({@link Backlogged}) until it catches up
   * @param horizonMs how long an accepted id is remembered (a repeat within it is a duplicate)
   * @param segmentBytes about how large one file of the log grows
   */
  public record Options(long backlogBytes, long horizonMs, long segmentBytes) {
    /** 64 MiB of backlog, ids kept 7 days, segments of 64 MiB. */
    public static final Options DEFAULTS = new Options(64L << 20, 7L * 24 * 3600 * 1000, 64L << 20);

    /**
     * The largest backlog bound: 1 GiB. The documents of requests waiting to be written are held in
     * memory, up to the bound.
     */
    public static final long MAX_BACKLOG_BYTES = 1L << 30;

    public Options {
      if (backlogBytes < 0 || horizonMs < 0 || segmentBytes < 1) {
        throw new IllegalArgumentException(
            "the ingest backlog and horizon must not be negative, segments must be positive");
      }
      if (backlogBytes > MAX_BACKLOG_BYTES) {
        throw new IllegalArgumentException(
            "the ingest backlog (--ingest-backlog) is at most 1GiB ("
                + MAX_BACKLOG_BYTES
                + " bytes): the documents waiting to be written are held in memory; "
                + backlogBytes
                + " bytes is over it. Give 1GiB or less");
      }
    }

    public Options withBacklogBytes(long v) {
      return new Options(v, horizonMs, segmentBytes);
    }

    public Options withHorizonMs(long v) {
      return new Options(backlogBytes, v, segmentBytes);
    }

    public Options withSegmentBytes(long v) {
      return new Options(backlogBytes, horizonMs, v);
    }
  }

  /**
   * One document: its id and its JSON bytes, {@code data[offset, offset + length)}, which must not
   * change until the request completes.
   */
  public record Doc(String id, byte[] data, int offset, int length) {}

  /** What became of a request's documents: how many were taken and how many were repeats. */
  public record Outcome(int accepted, int duplicates) {}

  /** Refused: the backlog is over its bound; nothing of the request was kept. */
  public static final class Backlogged extends Exception {
    private static final long serialVersionUID = 1L;
    private final long retryAfterSeconds;
    private final long backlogBytes;

    Backlogged(long backlogBytes, long requestBytes, long bound, long retryAfterSeconds) {
      super(
          "The ingestion backlog is "
              + backlogBytes
              + " bytes; with this request's "
              + requestBytes
              + " it would be over its bound of "
              + bound
              + " bytes: the engine is behind");
      this.retryAfterSeconds = retryAfterSeconds;
      this.backlogBytes = backlogBytes;
    }

    /** When to try again, in seconds: about how long the backlog takes to drain. */
    public long retryAfterSeconds() {
      return retryAfterSeconds;
    }

    public long backlogBytes() {
      return backlogBytes;
    }
  }

  private record Request(List<Doc> docs, long bytes, CompletableFuture<Outcome> done) {}

  /**
   * The most bytes of requests the writer puts in one group (one write and one {@code fsync}); a
   * request larger than that is a group of its own.
   */
  static final long GROUP_BYTES = 64L << 20;

  /**
   * The largest request taken: a group of its own must fit in {@link IngestLog#MAX_GROUP_BYTES}.
   */
  static final long MAX_REQUEST_BYTES = 512L << 20;

  /** The group size the writer cuts at ({@link #GROUP_BYTES}; smaller in tests). */
  volatile long groupBytes = GROUP_BYTES;

  /** Test hook: runs in {@link #submit} after it checked that ingestion runs; null normally. */
  volatile Runnable beforeQueued;

  private final Options options;
  private final IngestLog log;
  private final IdIndex ids;
  private final LongSupplier clock;
  private final BlockingQueue<Request> queue = new LinkedBlockingQueue<>();

  /** Bytes queued to be written plus bytes reserved by requests still arriving. */
  private final AtomicLong pendingBytes = new AtomicLong();

  private final Thread writer;
  private volatile boolean closed;
  private volatile long replayFrom;
  private volatile String writeError;
  private long lastRetainMs;

  // counters, for metrics
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private final AtomicLong groups = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();

  // the drain rate, for Retry-After: read position and time of the last look
  private long rateAtMs;
  private long rateAtPosition;
  private volatile double drainBytesPerS;

  private Ingestor(Options options, IngestLog log, IdIndex ids, LongSupplier clock) {
    this.options = options;
    this.log = log;
    this.ids = ids;
    this.clock = clock;
    this.replayFrom = log.start();
    this.writerIdsSize = ids.size();
    this.rateAtMs = clock.getAsLong();
    this.rateAtPosition = log.readPosition();
    this.writer = new Thread(this::write, "spyglass-ingest");
    writer.setDaemon(true);
    writer.start();
  }

  /**
   * Opens (and recovers) the log in {@code dir}, with the ids accepted within the horizon.
   *
   * @throws IOException when the log cannot be read; the message says which file and what to do
   */
  public static Ingestor open(Path dir, Options options, LongSupplier clock) throws IOException {
    return open(dir, options, clock, IngestLog.Recovery.NONE);
  }

  /**
   * As {@link #open(Path, Options, LongSupplier)}, knowing the standing queries' checkpoint: no
   * recovery cuts what it covers.
   */
  public static Ingestor open(
      Path dir, Options options, LongSupplier clock, IngestLog.Recovery recovery)
      throws IOException {
    IdIndex ids = new IdIndex();
    IngestLog log =
        IngestLog.open(
            dir,
            options.segmentBytes(),
            ids,
            clock.getAsLong() - options.horizonMs(),
            recovery,
            SpyglassClock.ofWall(clock));
    return new Ingestor(options, log, ids, clock);
  }

  public IngestLog log() {
    return log;
  }

  public Options options() {
    return options;
  }

  /**
   * Bytes the engine has yet to read: accepted and not read, waiting to be written, and reserved by
   * requests still arriving ({@link #reserve}). Requests are refused while taking them would put it
   * over {@link Options#backlogBytes()}.
   */
  public long backlogBytes() {
    return pendingBytes.get() + lagBytes();
  }

  private long lagBytes() {
    long read = log.readPosition();
    LongSupplier other = otherReader;
    if (other != null) {
      long p = other.getAsLong();
      if (p >= 0) {
        read = Math.min(read, p);
      }
    }
    return Math.max(0, log.committedEnd() - read);
  }

  /** Another reader of the log whose lag bounds the backlog too; null for none. */
  private volatile LongSupplier otherReader;

  /**
   * Counts the lag of another reader of the log in the backlog as well (the Flink job that runs the
   * standing queries of {@code serve --runtime flink --source http}): the backlog is then the
   * larger lag of the two. {@code position} gives how far it has read, -1 while not known.
   */
  public void alsoReadBy(LongSupplier position) {
    this.otherReader = position;
  }

  /**
   * Holds {@code bytes} of the backlog for a request before its body is read, so that bodies are
   * not buffered only to be refused, and concurrent requests cannot together overshoot the bound.
   * Give it to {@link #submit(List, Reservation)}, or close it when the request will not be
   * submitted.
   *
   * @throws Backlogged when the bytes would put the backlog over its bound (a request is taken
   *     whatever its size when the backlog is empty)
   */
  public Reservation reserve(long bytes) throws Backlogged {
    take(Math.max(0, bytes), 0);
    return new Reservation(Math.max(0, bytes));
  }

  /**
   * Adds {@code bytes} to the pending bytes, atomically with the check against the bound, for a
   * request that holds {@code own} of them already (its own bytes do not make the backlog
   * non-empty).
   */
  private void take(long bytes, long own) throws Backlogged {
    while (true) {
      long pending = pendingBytes.get();
      long backlog = pending + lagBytes();
      long others = backlog - own;
      if (others > 0 && backlog + bytes > options.backlogBytes()) {
        refused.incrementAndGet();
        throw new Backlogged(
            others, own + bytes, options.backlogBytes(), retryAfter(backlog + bytes));
      }
      if (pendingBytes.compareAndSet(pending, pending + bytes)) {
        return;
      }
    }
  }

  /**
   * Backlog bytes held for one request ({@link #reserve}); closing it gives back what {@link
   * #submit(List, Reservation)} did not use. Thread-safe, idempotent.
   */
  public final class Reservation implements AutoCloseable {
    private long bytes;

    private Reservation(long bytes) {
      this.bytes = bytes;
    }

    /** Bytes held now. */
    public synchronized long bytes() {
      return bytes;
    }

    /** Turns the reservation into {@code needed} bytes: gives back the rest or takes more. */
    private synchronized void resize(long needed) throws Backlogged {
      if (needed > bytes) {
        take(needed - bytes, bytes);
      } else {
        pendingBytes.addAndGet(needed - bytes);
      }
      bytes = needed;
    }

    /** Hands the bytes over to a queued request: they are the queue's from then on. */
    private synchronized void handOver() {
      bytes = 0;
    }

    @Override
    public synchronized void close() {
      pendingBytes.addAndGet(-bytes);
      bytes = 0;
    }
  }

  /**
   * Queues documents to be taken; the future completes once those accepted are durable, or fails
   * with the {@link IOException} that kept them from the disk (then none of them was taken).
   *
   * @throws Backlogged when the backlog is over its bound; nothing was kept
   */
  public CompletableFuture<Outcome> submit(List<Doc> docs) throws Backlogged {
    try (Reservation r = new Reservation(0)) {
      return submit(docs, r);
    }
  }

  /**
   * As {@link #submit(List)}, with the backlog bytes held by {@code reservation}: they become the
   * documents' (more are taken if the documents need more, which may be refused; what they do not
   * need is given back).
   *
   * @throws Backlogged when the documents need more than was reserved and the backlog cannot take
   *     it; nothing was kept, and the reservation still holds what it held
   */
  public CompletableFuture<Outcome> submit(List<Doc> docs, Reservation reservation)
      throws Backlogged {
    if (closed) {
      return CompletableFuture.failedFuture(new IOException("ingestion has stopped"));
    }
    long bytes = 0;
    for (Doc d : docs) {
      bytes += d.length() + d.id().length() + IngestLog.RECORD_HEADER + IngestLog.PAYLOAD_FIXED;
    }
    if (bytes > MAX_REQUEST_BYTES) {
      throw new IllegalArgumentException(
          "a request of "
              + bytes
              + " bytes is over the most one write takes ("
              + MAX_REQUEST_BYTES
              + "): send its documents in smaller requests");
    }
    CompletableFuture<Outcome> done = new CompletableFuture<>();
    if (docs.isEmpty()) {
      done.complete(new Outcome(0, 0));
      return done;
    }
    synchronized (reservation) {
      if (reservation.bytes() == 0) {
        take(bytes, 0);
      } else {
        reservation.resize(bytes);
      }
      reservation.handOver();
    }
    Runnable hook = beforeQueued;
    if (hook != null) {
      hook.run();
    }
    Request request = new Request(List.copyOf(docs), bytes, done);
    queue.add(request);
    if (closed && queue.remove(request)) {
      // stopped meanwhile: the writer may have drained the queue for the last time already
      pendingBytes.addAndGet(-bytes);
      done.completeExceptionally(new IOException("ingestion has stopped"));
    }
    return done;
  }

  private long retryAfter(long backlog) {
    double rate = drainBytesPerS;
    long excess = Math.max(1, backlog - options.backlogBytes());
    long s = rate > 0 ? (long) Math.ceil(excess / rate) : 1;
    return Math.max(1, Math.min(30, s));
  }

  /**
   * Records that no restart will replay the log before {@code position} (a checkpoint covers it):
   * sealed segments before it may go.
   */
  public void replayFrom(long position) {
    this.replayFrom = position;
    try {
      log.checkpointed(position);
    } catch (IOException e) {
      LOG.warn("the ingest log's manifest could not be written: {}", e.toString());
    }
  }

  private void write() {
    List<Request> group = new ArrayList<>();
    List<long[]> added = new ArrayList<>();
    while (!closed) {
      try {
        Request first = queue.poll(100, TimeUnit.MILLISECONDS);
        group.clear();
        if (first == null) {
          housekeeping();
          continue;
        }
        group.add(first);
        long bytes = first.bytes();
        long cap = groupBytes;
        Request next;
        // the writer is the queue's only taker: what it peeks is what it polls
        while ((next = queue.peek()) != null && bytes + next.bytes() <= cap) {
          group.add(queue.poll());
          bytes += next.bytes();
        }
        commit(group, added);
        housekeeping();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (RuntimeException | Error e) {
        LOG.error("ingestion writer failed", e);
        for (Request r : group) {
          if (r.done.completeExceptionally(e)) {
            pendingBytes.addAndGet(-r.bytes());
          }
        }
      }
    }
    Request r;
    while ((r = queue.poll()) != null) {
      pendingBytes.addAndGet(-r.bytes());
      r.done.completeExceptionally(new IOException("ingestion has stopped"));
    }
  }

  /**
   * Writes one group. Whatever fails on the way (the disk, a bug, memory), the group leaves no
   * trace: its records are dropped from the log's buffer, its ids forgotten, its bytes given back
   * to the backlog, and each of its requests fails; the next group is written as if it had not
   * been.
   */
  private void commit(List<Request> group, List<long[]> added) {
    long now = clock.getAsLong();
    long since = now - options.horizonMs();
    int[] acceptedBy = new int[group.size()];
    int[] duplicatesBy = new int[group.size()];
    added.clear();
    long bytes = 0;
    for (Request r : group) {
      bytes += r.bytes();
    }
    try {
      for (int i = 0; i < group.size(); i++) {
        for (Doc d : group.get(i).docs()) {
          byte[] id = d.id().getBytes(StandardCharsets.UTF_8);
          long[] h = IdIndex.hash(id);
          long seen = ids.get(h[0], h[1]);
          if (seen >= since && seen != -1) {
            duplicatesBy[i]++;
            continue;
          }
          added.add(h);
          ids.put(h[0], h[1], now);
          log.append(now, h, id, d.data(), d.offset(), d.length());
          acceptedBy[i]++;
        }
      }
      log.commitGroup();
    } catch (IOException | RuntimeException | Error e) {
      log.abortGroup();
      for (long[] h : added) {
        ids.remove(h[0], h[1], now);
      }
      pendingBytes.addAndGet(-bytes);
      writeError = e.getMessage() == null ? e.toString() : e.getMessage();
      LOG.error("ingest log write failed; {} requests answered with the error", group.size(), e);
      IOException failure =
          e instanceof IOException io
              ? io
              : new IOException("the documents could not be written to the ingest log", e);
      for (Request r : group) {
        r.done.completeExceptionally(failure);
      }
      return;
    }
    writeError = null;
    pendingBytes.addAndGet(-bytes);
    groups.incrementAndGet();
    writerIdsSize = ids.size();
    for (int i = 0; i < group.size(); i++) {
      accepted.addAndGet(acceptedBy[i]);
      duplicates.addAndGet(duplicatesBy[i]);
      group.get(i).done.complete(new Outcome(acceptedBy[i], duplicatesBy[i]));
    }
  }

  /** Between groups: the drain rate, and at most every 10 s the retention of old segments. */
  private void housekeeping() {
    long now = clock.getAsLong();
    if (now - rateAtMs >= 1000) {
      long pos = log.readPosition();
      double rate = (pos - rateAtPosition) * 1000.0 / (now - rateAtMs);
      drainBytesPerS = drainBytesPerS == 0 ? rate : 0.5 * drainBytesPerS + 0.5 * rate;
      rateAtMs = now;
      rateAtPosition = pos;
    }
    if (now - lastRetainMs >= 10_000) {
      lastRetainMs = now;
      try {
        log.retain(replayFrom, now - options.horizonMs(), ids::remove);
      } catch (IOException e) {
        LOG.warn("ingest log retention failed: {}", e.toString());
      }
    }
  }

  /**
   * Why the last write to the log failed, or null when it succeeded (or none was tried): while it
   * is set, submissions are answered with the error and nothing is acknowledged.
   */
  public String writeError() {
    return writeError;
  }

  /** Documents accepted since the start. */
  public long accepted() {
    return accepted.get();
  }

  /** Documents refused as repeats since the start. */
  public long duplicates() {
    return duplicates.get();
  }

  /** Groups written (one {@code fsync} each) since the start. */
  public long groups() {
    return groups.get();
  }

  /** Requests refused because of the backlog since the start. */
  public long refused() {
    return refused.get();
  }

  /** Ids remembered now. */
  public int idsKept() {
    return writerIdsSize;
  }

  private volatile int writerIdsSize;

  /** Stops taking documents; those queued are answered with an error. */
  @Override
  public void close() throws IOException {
    closed = true; // the writer sees it within 100 ms (interrupting it would close the log's file)
    try {
      writer.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    log.close();
  }
}
