package io.spyglass.service.schema;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.spyglass.service.runtime.QueryRuntime;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The stream's fields, inferred live from a sample of its records: each field's path ({@code a.b}
 * for a field of a map), the types seen, the share of sampled records that have it, and a few
 * example values. "Recently" means the current period and the one before it ({@code periodMs}
 * each), so a field that stops appearing is forgotten after two periods.
 *
 * <p>The runtime hands over one record in {@code everyN} on its reader thread; the bytes are copied
 * into a small queue (dropped when it is full) and parsed on a thread of the sampler's own.
 */
public final class SchemaSampler implements AutoCloseable {
  /** BQL's names of the types a field's values have. */
  public enum Kind {
    BOOLEAN,
    LONG,
    DOUBLE,
    STRING,
    MAP,
    LIST,
    NULL
  }

  /** One field as reported: {@code share} is 0 to 1, of the sampled records. */
  public record Field(String path, List<Kind> types, double share, List<Object> examples) {}

  /** What {@code GET /api/schema} shows. */
  public record Snapshot(long records, int everyN, long periodMs, List<Field> fields) {}

  static final int MAX_FIELDS = 2_000;
  static final int MAX_DEPTH = 4;
  static final int EXAMPLES = 3;
  static final int EXAMPLE_CHARS = 64;

  private static final JsonFactory JSON = new JsonFactory();

  private final int everyN;
  private final long periodMs;
  private final LongSupplier clock;
  private final BlockingQueue<byte[]> samples = new ArrayBlockingQueue<>(256);
  private final Thread parser;
  private Period current;
  private Period previous;
  private volatile boolean closed;

  /** Counts of one period. Guarded by the sampler. */
  private static final class Period {
    final long startMs;
    long records;
    final Map<String, Stats> fields = new LinkedHashMap<>();

    Period(long startMs) {
      this.startMs = startMs;
    }
  }

  private static final class Stats {
    long count;
    final EnumMap<Kind, Long> kinds = new EnumMap<>(Kind.class);
    final Set<Object> examples = new LinkedHashSet<>();
  }

  public SchemaSampler(QueryRuntime runtime, int everyN, long periodMs, LongSupplier clock) {
    this.everyN = everyN;
    this.periodMs = periodMs;
    this.clock = clock;
    this.current = new Period(clock.getAsLong());
    this.parser = new Thread(this::parseLoop, "spyglass-schema");
    parser.setDaemon(true);
    parser.start();
    runtime.sampleRecords(
        everyN,
        (data, offset, length) -> {
          byte[] copy = new byte[length];
          System.arraycopy(data, offset, copy, 0, length);
          samples.offer(copy);
        });
  }

  private void parseLoop() {
    try {
      while (!closed) {
        byte[] record = samples.poll(200, TimeUnit.MILLISECONDS);
        if (record != null) {
          add(record);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Counts one record's fields; records that are not JSON objects are skipped. */
  void add(byte[] record) {
    Map<String, Object> seen = new LinkedHashMap<>();
    try (JsonParser p = JSON.createParser(record)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return;
      }
      readObject(p, "", 1, seen);
    } catch (IOException | RuntimeException e) {
      return; // malformed: the engine counts those
    }
    synchronized (this) {
      rotate();
      current.records++;
      for (Map.Entry<String, Object> e : seen.entrySet()) {
        Stats s = current.fields.get(e.getKey());
        if (s == null) {
          if (current.fields.size() >= MAX_FIELDS) {
            continue;
          }
          s = new Stats();
          current.fields.put(e.getKey(), s);
        }
        s.count++;
        Object v = e.getValue();
        Kind k = kindOf(v);
        s.kinds.merge(k, 1L, Long::sum);
        if (v != null && !(v instanceof Kind) && s.examples.size() < EXAMPLES) {
          s.examples.add(v);
        }
      }
    }
  }

  /** Maps a field's path to its value, or to its {@link Kind} for maps and lists. */
  private static void readObject(JsonParser p, String prefix, int depth, Map<String, Object> out)
      throws IOException {
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String path = prefix.isEmpty() ? p.currentName() : prefix + "." + p.currentName();
      JsonToken t = p.nextToken();
      switch (t) {
        case START_OBJECT -> {
          out.put(path, Kind.MAP);
          if (depth < MAX_DEPTH) {
            readObject(p, path, depth + 1, out);
          } else {
            p.skipChildren();
          }
        }
        case START_ARRAY -> {
          out.put(path, Kind.LIST);
          p.skipChildren();
        }
        case VALUE_STRING -> {
          String s = p.getText();
          out.put(path, s.length() > EXAMPLE_CHARS ? s.substring(0, EXAMPLE_CHARS) + "…" : s);
        }
        case VALUE_NUMBER_INT -> out.put(path, p.getLongValue());
        case VALUE_NUMBER_FLOAT -> out.put(path, p.getDoubleValue());
        case VALUE_TRUE, VALUE_FALSE -> out.put(path, p.getBooleanValue());
        case VALUE_NULL -> out.put(path, Kind.NULL);
        default -> p.skipChildren();
      }
    }
  }

  private static Kind kindOf(Object v) {
    if (v instanceof Kind k) {
      return k;
    } else if (v instanceof Long) {
      return Kind.LONG;
    } else if (v instanceof Double) {
      return Kind.DOUBLE;
    } else if (v instanceof Boolean) {
      return Kind.BOOLEAN;
    }
    return Kind.STRING;
  }

  private void rotate() {
    long now = clock.getAsLong();
    if (now - current.startMs >= periodMs) {
      // a period with no record at all leaves nothing "recent" behind it
      previous = now - current.startMs >= 2 * periodMs ? null : current;
      current = new Period(now);
    }
  }

  /** The fields of the current and the previous period, most common first. */
  public synchronized Snapshot snapshot() {
    rotate();
    Map<String, Stats> merged = new LinkedHashMap<>();
    long records = current.records;
    List<Period> periods = previous == null ? List.of(current) : List.of(previous, current);
    if (previous != null) {
      records += previous.records;
    }
    for (Period period : periods) {
      for (Map.Entry<String, Stats> e : period.fields.entrySet()) {
        Stats into = merged.computeIfAbsent(e.getKey(), k -> new Stats());
        into.count += e.getValue().count;
        e.getValue().kinds.forEach((k, n) -> into.kinds.merge(k, n, Long::sum));
        for (Object ex : e.getValue().examples) {
          if (into.examples.size() < EXAMPLES) {
            into.examples.add(ex);
          }
        }
      }
    }
    List<Field> fields = new ArrayList<>();
    for (Map.Entry<String, Stats> e : merged.entrySet()) {
      Stats s = e.getValue();
      List<Kind> kinds = new ArrayList<>(s.kinds.keySet());
      kinds.sort(Comparator.comparingLong((Kind k) -> -s.kinds.get(k)).thenComparing(k -> k));
      double share = records == 0 ? 0 : Math.min(1.0, (double) s.count / records);
      fields.add(new Field(e.getKey(), kinds, share, List.copyOf(s.examples)));
    }
    fields.sort(Comparator.comparingDouble((Field f) -> -f.share()).thenComparing(Field::path));
    return new Snapshot(records, everyN, periodMs, fields);
  }

  @Override
  public void close() {
    closed = true;
    parser.interrupt();
  }
}
