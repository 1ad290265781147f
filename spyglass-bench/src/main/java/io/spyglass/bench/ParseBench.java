package io.spyglass.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import io.spyglass.core.record.JsonRecordReader;
import io.spyglass.core.record.MalformedRecordException;
import io.spyglass.core.record.Record;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Reading JSON events into records with {@link JsonRecordReader}, every field or only the three a
 * query needs ({@code id}, {@code device}, {@code duration}); and, as the ceiling, Jackson's
 * streaming parser walking the same bytes token by token without building anything. The primary
 * score is records/s; the secondary score {@code bytes} is input bytes/s.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {Bench.ADD_MODULES, Bench.XMS, Bench.XMX})
public class ParseBench {
  public enum Fields {
    ALL,
    THREE
  }

  /** The JSON events, cycled a batch at a time. */
  @State(Scope.Thread)
  public static class Input {
    List<byte[]> json;
    private int next;

    @Setup
    public void setUp() {
      json = Events.json(Events.POOL, 42);
    }

    int nextBatch() {
      int start = next;
      next = start + Events.BATCH == json.size() ? 0 : start + Events.BATCH;
      return start;
    }
  }

  /** A reader keeping all fields or three, and the record it reuses. */
  @State(Scope.Thread)
  public static class Reader {
    @Param public Fields fields;

    final JsonRecordReader reader = new JsonRecordReader();
    final Record record = new Record(32);

    @Setup
    public void setUp() {
      reader.select(fields == Fields.ALL ? null : Set.of("id", "device", "duration"));
    }
  }

  /** Input bytes, reported by JMH as a rate. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Bytes {
    public long bytes;

    @Setup(Level.Iteration)
    public void clear() {
      bytes = 0;
    }
  }

  /** A plain Jackson parser factory. */
  @State(Scope.Benchmark)
  public static class Jackson {
    final JsonFactory factory = new JsonFactory();
  }

  @Benchmark
  @OperationsPerInvocation(Events.BATCH)
  public int reader(Input input, Reader reader, Bytes counter) throws MalformedRecordException {
    int fields = 0;
    long bytes = 0;
    for (int i = input.nextBatch(), end = i + Events.BATCH; i < end; i++) {
      byte[] json = input.json.get(i);
      reader.reader.read(json, 0, json.length, reader.record);
      fields += reader.record.size();
      bytes += json.length;
    }
    counter.bytes += bytes;
    return fields;
  }

  @Benchmark
  @OperationsPerInvocation(Events.BATCH)
  public int jacksonScan(Input input, Jackson jackson, Bytes counter) throws IOException {
    int tokens = 0;
    long bytes = 0;
    for (int i = input.nextBatch(), end = i + Events.BATCH; i < end; i++) {
      byte[] json = input.json.get(i);
      try (JsonParser p = jackson.factory.createParser(json, 0, json.length)) {
        while (p.nextToken() != null) {
          tokens++;
        }
      }
      bytes += json.length;
    }
    counter.bytes += bytes;
    return tokens;
  }
}
