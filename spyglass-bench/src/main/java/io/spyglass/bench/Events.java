package io.spyglass.bench;

import io.spyglass.core.record.JsonRecordReader;
import io.spyglass.core.record.MalformedRecordException;
import io.spyglass.core.record.Record;
import io.spyglass.sources.EventGenerator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The benchmarks' records: made by the engine's {@link EventGenerator} (the records of the {@code
 * gen} source and of the scenarios, shaped like Bullet's performance study: about 1.8 KiB, 29
 * top-level and about 90 fields in all), as JSON bytes and as records read from those bytes by
 * {@link JsonRecordReader} (so field names are interned as in a running engine).
 *
 * <p>Values the benchmark queries rely on (measured over 100,000 records of seed 42): {@code
 * device} is {@code mobile} for 42%, {@code tablet} for 10%; {@code demographics.country} takes 50
 * values ({@code US} 26%), and with {@code device} makes 600 groups; {@code duration} (ms) has a
 * median of 2,400 and exceeds 2,900,000 in 1% of records; {@code id} is a random 13-character
 * string, distinct per record.
 */
public final class Events {
  /**
   * Records pre-built per benchmark: cycled, so the working set stays the same in every run. Small
   * enough (about 0.5 MB of JSON) to stay in a core's L2 cache: a runtime filters each record right
   * after parsing it, while it is still in cache, and a pool of thousands of records would measure
   * memory latency instead of the filter. {@code -Dspyglass.bench.pool=4096} (a multiple of {@link
   * #BATCH}) measures that case: pass it with {@code -jvmArgsAppend}.
   */
  public static final int POOL = Integer.getInteger("spyglass.bench.pool", 256);

  /** Records handed to the engine per benchmark invocation, followed by an end of batch. */
  public static final int BATCH = 256;

  /** Event time of the first record; records are 10 ms apart. */
  static final long START_MS = 1_700_000_000_000L;

  /** The most frequent devices, most frequent first. */
  static final String[] DEVICES = {"mobile", "desktop", "tablet", "smart_tv"};

  /** The most frequent countries, most frequent first. */
  static final String[] COUNTRIES = {"US", "IN", "BR", "GB", "DE", "FR", "JP", "CA"};

  /** Browser names. */
  static final String[] BROWSERS = {"chrome", "safari", "edge", "firefox", "samsung_internet"};

  private Events() {}

  /** {@code count} generated records of the default size as JSON objects, one array each. */
  public static List<byte[]> json(int count, long seed) {
    EventGenerator generator = new EventGenerator(seed, EventGenerator.DEFAULT_RECORD_BYTES);
    List<byte[]> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int length = generator.next(START_MS + 10L * i);
      out.add(Arrays.copyOf(generator.buffer(), length));
    }
    return out;
  }

  /** The records of {@link #json} read into records. */
  public static Record[] records(int count, long seed) {
    return read(json(count, seed));
  }

  /** Reads every JSON object into a record of its own. */
  public static Record[] read(List<byte[]> json) {
    JsonRecordReader reader = new JsonRecordReader();
    Record[] out = new Record[json.size()];
    try {
      for (int i = 0; i < out.length; i++) {
        byte[] bytes = json.get(i);
        out[i] = new Record(32);
        reader.read(bytes, 0, bytes.length, out[i]);
      }
    } catch (MalformedRecordException e) {
      throw new IllegalStateException("generated JSON must be well formed", e);
    }
    return out;
  }

  /** Mean size of the JSON objects, in bytes. */
  public static double meanBytes(List<byte[]> json) {
    long total = 0;
    for (byte[] b : json) {
      total += b.length;
    }
    return (double) total / json.size();
  }

  /** A random identifier shaped like the generated ids ({@code btsg8l9b234ha}). */
  public static String randomId(SplittableRandom random) {
    char[] c = new char[13];
    for (int i = 0; i < c.length; i++) {
      c[i] = Character.forDigit(random.nextInt(36), 36);
    }
    return new String(c);
  }
}
