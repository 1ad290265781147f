package io.spyglass.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import io.spyglass.core.record.JsonRecordReader;
import io.spyglass.core.record.MalformedRecordException;
import io.spyglass.core.record.Record;
import io.spyglass.core.record.RecordScanner;
import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
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
 * Reading JSON events into records, every field or only the three a query needs ({@code id}, {@code
 * device}, {@code duration}): with {@link JsonRecordReader} (the engine's reader: the scan, then
 * every field or the selected ones decoded) and with {@link RecordScanner} (the scan, then only the
 * selected fields decoded); the scan alone, which checks the whole record and locates the selected
 * fields; and, as the baselines, Jackson's streaming parser reading the same fields into a record
 * ({@link JacksonReader}, how the engine read records before its own scan) and walking the same
 * bytes token by token without building anything. The primary score is records/s; the secondary
 * score {@code bytes} is input bytes/s.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {Bench.XMS, Bench.XMX})
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

  /** A scanner keeping all fields or three, and the record it reuses. */
  @State(Scope.Thread)
  public static class Scanner {
    @Param public Fields fields;

    final RecordScanner scanner = new RecordScanner();
    final Record record = new Record(32);

    @Setup
    public void setUp(Input input) {
      Set<String> names = new LinkedHashSet<>();
      if (fields == Fields.ALL) {
        Record all = Events.read(input.json.subList(0, 1))[0];
        names.addAll(all.names());
      } else {
        names.addAll(List.of("id", "device", "duration"));
      }
      scanner.select(names);
    }
  }

  /** Jackson's streaming parser reading all fields or three into a record it reuses. */
  @State(Scope.Thread)
  public static class Baseline {
    @Param public Fields fields;

    final JacksonReader reader = new JacksonReader();
    final Record record = new Record(32);

    @Setup
    public void setUp() {
      reader.select(fields == Fields.ALL ? null : Set.of("id", "device", "duration"));
    }
  }

  /** A plain Jackson parser factory. */
  @State(Scope.Benchmark)
  public static class Jackson {
    final JsonFactory factory = new JsonFactory();
  }

  @Benchmark
  @OperationsPerInvocation(Events.BATCH)
  public int reader(Input input, Reader reader, ByteCounters counter)
      throws MalformedRecordException {
    int fields = 0;
    long bytes = 0;
    long cpu = Bench.cpuNs();
    for (int i = input.nextBatch(), end = i + Events.BATCH; i < end; i++) {
      byte[] json = input.json.get(i);
      reader.reader.read(json, 0, json.length, reader.record);
      fields += reader.record.size();
      bytes += json.length;
    }
    counter.bytes += bytes;
    counter.cpuNs += Bench.cpuNs() - cpu;
    return fields;
  }

  @Benchmark
  @OperationsPerInvocation(Events.BATCH)
  public int jacksonReader(Input input, Baseline reader, ByteCounters counter)
      throws MalformedRecordException {
    int fields = 0;
    long bytes = 0;
    long cpu = Bench.cpuNs();
    for (int i = input.nextBatch(), end = i + Events.BATCH; i < end; i++) {
      byte[] json = input.json.get(i);
      reader.reader.read(json, 0, json.length, reader.record);
      fields += reader.record.size();
      bytes += json.length;
    }
    counter.bytes += bytes;
    counter.cpuNs += Bench.cpuNs() - cpu;
    return fields;
  }

  @Benchmark
  @OperationsPerInvocation(Events.BATCH)
  public int scanner(Input input, Scanner scanner, ByteCounters counter)
      throws MalformedRecordException {
    int fields = 0;
    long bytes = 0;
    long cpu = Bench.cpuNs();
    for (int i = input.nextBatch(), end = i + Events.BATCH; i < end; i++) {
      byte[] json = input.json.get(i);
      scanner.scanner.read(json, 0, json.length, scanner.record);
      fields += scanner.record.size();
      bytes += json.length;
    }
    counter.bytes += bytes;
    counter.cpuNs += Bench.cpuNs() - cpu;
    return fields;
  }

  /** The structural scan alone: the record checked, the three fields located, nothing decoded. */
  @Benchmark
  @OperationsPerInvocation(Events.BATCH)
  public int scanOnly(Input input, Scanner scanner, ByteCounters counter) {
    int ok = 0;
    long bytes = 0;
    long cpu = Bench.cpuNs();
    for (int i = input.nextBatch(), end = i + Events.BATCH; i < end; i++) {
      byte[] json = input.json.get(i);
      if (scanner.scanner.scan(json, 0, json.length)) {
        ok++;
      }
      bytes += json.length;
    }
    counter.bytes += bytes;
    counter.cpuNs += Bench.cpuNs() - cpu;
    return ok;
  }

  @Benchmark
  @OperationsPerInvocation(Events.BATCH)
  public int jacksonScan(Input input, Jackson jackson, ByteCounters counter) throws IOException {
    int tokens = 0;
    long bytes = 0;
    long cpu = Bench.cpuNs();
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
    counter.cpuNs += Bench.cpuNs() - cpu;
    return tokens;
  }
}
