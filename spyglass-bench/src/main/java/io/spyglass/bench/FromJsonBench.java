package io.spyglass.bench;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.FilterSet;
import io.spyglass.core.record.MalformedRecordException;
import io.spyglass.core.record.Record;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * From JSON bytes to the queries' partial results on one thread, as a worker does: records/s, and
 * bytes/s as the secondary score {@code bytes}.
 *
 * <ul>
 *   <li>{@code PARSE_FIRST}: {@link JacksonReader} (Jackson's streaming parser, only the fields the
 *       queries read), then {@link FilterSet#process}: how workers read before.
 *   <li>{@code READ}: {@link FilterSet#read}, which scans the bytes and decodes a record only when
 *       a query can match it, then {@link FilterSet#process}.
 * </ul>
 *
 * <p>Workloads: {@code NEEDLES}, 10,000 queries {@code WHERE id = '<unique>'}, one record in 1,000
 * carrying the id of one of them (written into the pooled bytes before the record is read, a
 * different query each time); {@code GROUP_BY}, one GROUP BY of 600 groups with COUNT, SUM and AVG;
 * {@code SELECT_STAR}, one {@code SELECT *} without a filter (each record kept whole); {@code
 * EVERY_FIELD}, one projection of all 29 top-level fields (each record built whole).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {Bench.XMS, Bench.XMX})
public class FromJsonBench {
  static final int QUERIES = 10_000;
  static final int NEEDLE_EVERY = 1_000;

  /** Where the id's 13 characters are in a generated record: {@code {"id":"...} */
  static final int ID_OFFSET = 7;

  public enum Workload {
    NEEDLES,
    GROUP_BY,
    SELECT_STAR,
    EVERY_FIELD
  }

  public enum Path {
    PARSE_FIRST,
    READ
  }

  @Param public Workload workload;

  @Param public Path path;

  private List<byte[]> json;
  private int next;
  private FilterSet filters;
  private final JacksonReader reader = new JacksonReader();
  private final Record record = new Record(64);
  private byte[][] needles;
  private int untilNeedle = NEEDLE_EVERY;
  private int nextNeedle;
  private final byte[] saved = new byte[13];
  private long flushed;

  @Setup
  public void setUp() {
    json = Events.json(Events.POOL, 42);
    for (byte[] b : json) {
      if (b[ID_OFFSET - 1] != '"' || b[ID_OFFSET + 13] != '"') {
        throw new IllegalStateException("generated records must start with their id");
      }
    }
    filters = new FilterSet(QueryLimits.DEFAULTS, () -> Bench.NOW_MS, (q, p) -> flushed++);
    switch (workload) {
      case NEEDLES -> {
        SplittableRandom random = new SplittableRandom(7);
        needles = new byte[QUERIES][];
        for (int i = 0; i < QUERIES; i++) {
          String id = Events.randomId(random);
          needles[i] = id.getBytes(StandardCharsets.US_ASCII);
          filters.add(
              Bench.parse(
                  "q" + i, "SELECT * FROM STREAM(30000, TIME) WHERE id = '" + id + "' LIMIT 10"));
        }
      }
      case GROUP_BY -> filters.add(Bench.parse("g", ManyGroupByBench.IDENTICAL_QUERY));
      case SELECT_STAR -> filters.add(Bench.parse("s", "SELECT * FROM STREAM(30000, TIME)"));
      default -> {
        Record whole = Events.read(json.subList(0, 1))[0];
        filters.add(
            Bench.parse(
                "e",
                "SELECT "
                    + String.join(", ", whole.names().stream().map(n -> '"' + n + '"').toList())
                    + " FROM STREAM(30000, TIME)"));
      }
    }
  }

  @Benchmark
  @OperationsPerInvocation(Events.BATCH)
  public long filter(ByteCounters counter) throws MalformedRecordException {
    long bytes = 0;
    long cpu = Bench.cpuNs();
    boolean parseFirst = path == Path.PARSE_FIRST;
    for (int n = 0; n < Events.BATCH; n++) {
      byte[] b = json.get(next);
      next = next + 1 == json.size() ? 0 : next + 1;
      boolean needle = needles != null && --untilNeedle == 0;
      if (needle) {
        untilNeedle = NEEDLE_EVERY;
        System.arraycopy(b, ID_OFFSET, saved, 0, 13);
        System.arraycopy(needles[nextNeedle], 0, b, ID_OFFSET, 13);
        nextNeedle = nextNeedle + 1 == QUERIES ? 0 : nextNeedle + 1;
      }
      if (parseFirst) {
        reader.select(filters.referencedFields());
        reader.read(b, 0, b.length, record);
        filters.process(record);
      } else if (filters.read(b, 0, b.length, record)) {
        filters.process(record);
      }
      if (needle) {
        System.arraycopy(saved, 0, b, ID_OFFSET, 13);
      }
      bytes += b.length;
    }
    filters.endOfBatch();
    counter.bytes += bytes;
    counter.cpuNs += Bench.cpuNs() - cpu;
    return flushed;
  }
}
