package io.spyglass.sources;

import io.spyglass.core.SpyglassClock;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The synthetic event stream ({@code gen}): records from an {@link EventGenerator}, as fast as
 * possible or paced to a rate, unbounded or up to a count.
 *
 * <p>Needles: {@link #insertNeedle} queues a record with chosen fields, which the next poll emits
 * before any other record, so a test or a benchmark can look for it. Needles do not count towards
 * {@link Options#count()} and are not paced.
 *
 * <p>One generated record in {@value #EXAMPLE_EVERY} carries the values that Bullet's documented
 * examples look for ({@code id} {@value #EXAMPLE_ID}, {@code "browser-id"} {@value
 * #EXAMPLE_BROWSER_ID}), so that they find something here as written; the random stream is the same
 * as without them.
 *
 * <p>Polled from one thread; {@link #insertNeedle} and {@link #close} may be called from any.
 */
public final class GeneratorSource implements Source {
  /** One record in this many carries the values of Bullet's examples. */
  public static final int EXAMPLE_EVERY = 1000;

  public static final String EXAMPLE_ID = "btsg8l9b234ha";
  public static final String EXAMPLE_BROWSER_ID = "2siknmdd6kaqm";

  /** Nominal spacing of event times when unpaced with a fixed start: 10 records per ms. */
  private static final long UNPACED_RECORDS_PER_SECOND = 10_000;

  /**
   * @param seed the random stream; with a fixed {@code startMs} the same seed gives the same
   *     records
   * @param recordsPerSecond pace, or 0 for as fast as possible
   * @param count records to emit before the source ends, or 0 for unbounded
   * @param recordBytes target size of a record (see {@link EventGenerator})
   * @param startMs event time of the first record, after which records are spaced by the pace (10
   *     per ms when unpaced); or -1 to stamp records with the wall clock when they are generated
   */
  public record Options(
      long seed, long recordsPerSecond, long count, int recordBytes, long startMs) {
    public static final Options DEFAULTS =
        new Options(1, 0, 0, EventGenerator.DEFAULT_RECORD_BYTES, -1);

    public Options {
      if (recordsPerSecond < 0) {
        throw new IllegalArgumentException("rate must be >= 0 records/s, not " + recordsPerSecond);
      }
      if (count < 0) {
        throw new IllegalArgumentException("count must be >= 0, not " + count);
      }
      if (recordBytes < EventGenerator.MIN_RECORD_BYTES
          || recordBytes > EventGenerator.MAX_RECORD_BYTES) {
        throw new IllegalArgumentException(
            "size must be between "
                + EventGenerator.MIN_RECORD_BYTES
                + " and "
                + EventGenerator.MAX_RECORD_BYTES
                + " bytes, not "
                + recordBytes);
      }
      if (startMs < -1) {
        throw new IllegalArgumentException("start must be an epoch ms or -1, not " + startMs);
      }
    }

    public Options withSeed(long v) {
      return new Options(v, recordsPerSecond, count, recordBytes, startMs);
    }

    public Options withRate(long v) {
      return new Options(seed, v, count, recordBytes, startMs);
    }

    public Options withCount(long v) {
      return new Options(seed, recordsPerSecond, v, recordBytes, startMs);
    }

    public Options withRecordBytes(int v) {
      return new Options(seed, recordsPerSecond, count, v, startMs);
    }

    public Options withStartMs(long v) {
      return new Options(seed, recordsPerSecond, count, recordBytes, v);
    }
  }

  private final Options options;
  private final EventGenerator generator;
  private final Queue<Map<String, Object>> needles = new ConcurrentLinkedQueue<>();
  private volatile boolean closed;
  private final Pacer pacer;
  private final SpyglassClock clock;
  private long emitted;

  public GeneratorSource(Options options) {
    this(options, SpyglassClock.system());
  }

  /** Paced by {@code clock}, and records stamped by it when {@code startMs} is -1. */
  public GeneratorSource(Options options, SpyglassClock clock) {
    this.options = options;
    this.clock = clock;
    this.generator = new EventGenerator(options.seed(), options.recordBytes());
    this.pacer = new Pacer(options.recordsPerSecond(), clock);
  }

  public Options options() {
    return options;
  }

  /**
   * Queues a record made of a generated record with these top-level fields replaced or added; the
   * next poll emits it first. The map is copied. Thread-safe.
   */
  public void insertNeedle(Map<String, Object> fields) {
    needles.add(new LinkedHashMap<>(fields));
  }

  /** Generated records emitted so far, needles not counted. */
  public long emitted() {
    return emitted;
  }

  @Override
  public boolean poll(RawBatch batch, int maxRecords, long maxWaitMs) throws InterruptedException {
    if (closed) {
      return false;
    }
    int n = 0;
    Map<String, Object> needle;
    while (n < maxRecords && (needle = needles.poll()) != null) {
      int len = generator.next(eventTime(), needle);
      batch.add(generator.buffer(), 0, len);
      n++;
    }
    long remaining = options.count() == 0 ? Long.MAX_VALUE : options.count() - emitted;
    if (remaining == 0) {
      return n > 0 || !needles.isEmpty();
    }
    int want = pacer.take((int) Math.min(maxRecords - n, remaining), n > 0 ? 0 : maxWaitMs);
    for (int i = 0; i < want; i++) {
      int len = generator.next(eventTime());
      if (emitted % EXAMPLE_EVERY == EXAMPLE_EVERY - 1) {
        byte[] example = withExampleValues(generator.buffer(), len);
        batch.add(example, 0, example.length);
      } else {
        batch.add(generator.buffer(), 0, len);
      }
      emitted++;
    }
    return true;
  }

  /** The record with the values of Bullet's examples in place of its own. */
  private static byte[] withExampleValues(byte[] buffer, int length) {
    String json = new String(buffer, 0, length, StandardCharsets.UTF_8);
    json = json.replaceFirst("^\\{\"id\":\"[0-9a-z]*\"", "{\"id\":\"" + EXAMPLE_ID + "\"");
    json =
        json.replaceFirst(
            ",\"browser-id\":\"[0-9a-f]*\"", ",\"browser-id\":\"" + EXAMPLE_BROWSER_ID + "\"");
    return json.getBytes(StandardCharsets.UTF_8);
  }

  private long eventTime() {
    if (options.startMs() < 0) {
      return clock.millis();
    }
    long rate =
        options.recordsPerSecond() > 0 ? options.recordsPerSecond() : UNPACED_RECORDS_PER_SECOND;
    return options.startMs() + emitted * 1000 / rate;
  }

  @Override
  public String describe() {
    StringBuilder sb = new StringBuilder("gen?seed=").append(options.seed());
    if (options.recordsPerSecond() > 0) {
      sb.append("&rate=").append(options.recordsPerSecond());
    }
    if (options.count() > 0) {
      sb.append("&count=").append(options.count());
    }
    sb.append("&size=").append(options.recordBytes());
    if (options.startMs() >= 0) {
      sb.append("&start=").append(options.startMs());
    }
    return sb.toString();
  }

  @Override
  public void close() {
    closed = true;
  }
}
