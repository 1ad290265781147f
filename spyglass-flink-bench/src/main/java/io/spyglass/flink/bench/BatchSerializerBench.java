package io.spyglass.flink.bench;

import io.spyglass.flink.RecordBatch;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Field;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * What a record costs on its way from the job's source task to its filter task: a batch of one
 * record (as the Kafka source makes them) serialized and read back, by the job's own serializer and
 * by Flink's POJO serializer, alternated in one JVM, CPU time of the thread per batch.
 *
 * <pre>{@code
 * java -cp spyglass-bench-cli/target/spyglass-bench.jar io.spyglass.flink.bench.BatchSerializerBench 64 1843
 * }</pre>
 */
public final class BatchSerializerBench {
  private static final int BATCHES = 2_000_000;
  private static final int ROUNDS = 10;

  private BatchSerializerBench() {}

  public static void main(String[] args) throws Exception {
    TypeSerializer<RecordBatch> own =
        TypeInformation.of(RecordBatch.class).createSerializer(new SerializerConfigImpl());
    TypeSerializer<RecordBatch> pojo = pojoSerializer();
    for (String arg : args.length == 0 ? new String[] {"64", "1843"} : args) {
      int bytes = Integer.parseInt(arg);
      RecordBatch[] pool = new RecordBatch[256];
      Random random = new Random(1);
      for (int i = 0; i < pool.length; i++) {
        byte[] json = new byte[bytes];
        random.nextBytes(json);
        pool[i] = RecordBatch.one(json, i % 2, i, 1_700_000_000_000L + i, i);
      }
      // the first half of the rounds warms up; the second half is reported
      for (int round = 0; round < ROUNDS; round++) {
        for (TypeSerializer<RecordBatch> s : List.of(pojo, own)) {
          double ns = nanosPerBatch(s, pool, bytes);
          if (round >= ROUNDS / 2) {
            System.out.printf(
                "%-24s %5d B records: %6.1f ns per batch%n",
                s.getClass().getSimpleName(), bytes, ns);
          }
        }
      }
    }
  }

  private static double nanosPerBatch(TypeSerializer<RecordBatch> s, RecordBatch[] pool, int bytes)
      throws Exception {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    DataOutputSerializer out = new DataOutputSerializer(bytes * 2 + 256);
    DataInputDeserializer in = new DataInputDeserializer();
    long read = 0;
    long start = threads.getCurrentThreadCpuTime();
    for (int i = 0; i < BATCHES; i++) {
      out.clear();
      s.serialize(pool[i & (pool.length - 1)], out);
      in.setBuffer(out.getSharedBuffer(), 0, out.length());
      read += s.deserialize(in).count;
    }
    long cpu = threads.getCurrentThreadCpuTime() - start;
    if (read != BATCHES) {
      throw new IllegalStateException("read " + read + " records of " + BATCHES);
    }
    return (double) cpu / BATCHES;
  }

  /** Flink's POJO serializer of the batch's public fields, as it was used before the job's own. */
  private static TypeSerializer<RecordBatch> pojoSerializer() {
    Map<String, TypeInformation<?>> fields = new HashMap<>();
    for (Field f : RecordBatch.class.getFields()) {
      fields.put(f.getName(), TypeInformation.of(f.getType()));
    }
    return Types.POJO(RecordBatch.class, fields).createSerializer(new SerializerConfigImpl());
  }
}
