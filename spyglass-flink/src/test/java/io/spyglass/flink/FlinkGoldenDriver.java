package io.spyglass.flink;

import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.flink.client.FlinkQueryClient;
import io.spyglass.flink.client.Mark;
import io.spyglass.flink.client.RemoteQuery;
import io.spyglass.testkit.GoldenScript;
import io.spyglass.testkit.QueryTestDriver;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * Runs golden scripts on the Flink job through Kafka, with the job's clock in clock marks: a case's
 * records go to partition 0 of the records topic in order, stamped with the script's clock, each
 * {@code advance} is a clock mark then a tick mark in every partition (an {@code advance 0} ticks
 * without moving time, for event-time windows), and before a script reads results a sync mark makes
 * sure every step before it has reached the job's combiners. Cases share one job: each runs two
 * days of clock after the previous one (longer than any query lasts), and the times in its results
 * are shifted back, so a case sees its clock start at {@link QueryTestDriver#START_MS} as on the
 * embedded driver.
 */
final class FlinkGoldenDriver {
  private static final long GAP_MS = 2L * 24 * 60 * 60 * 1000;
  private static final long WAIT_S = 30;

  private final KafkaProducer<byte[], byte[]> producer;
  private final String recordsTopic;
  private final int partitions;
  private final FlinkQueryClient client;
  private long clockMs = -1;
  private long sync;
  private int cases;

  /** The client's clock must be {@link #clockMs()}: queries are received at the script's time. */
  FlinkGoldenDriver(
      KafkaProducer<byte[], byte[]> producer,
      String recordsTopic,
      int partitions,
      FlinkQueryClient client) {
    this.producer = producer;
    this.recordsTopic = recordsTopic;
    this.partitions = partitions;
    this.client = client;
  }

  long clockMs() {
    return clockMs;
  }

  /** A driver for the next case; its clock starts at START_MS, shifted. */
  GoldenScript.Driver nextCase() {
    long base = clockMs < 0 ? QueryTestDriver.START_MS : clockMs + GAP_MS;
    clockMs = base;
    mark(Mark.clock(base));
    producer.flush();
    return new Case("c" + ++cases + "-", base - QueryTestDriver.START_MS);
  }

  private void mark(Mark m) {
    for (int p = 0; p < partitions; p++) {
      ProducerRecord<byte[], byte[]> r =
          new ProducerRecord<>(recordsTopic, p, Math.max(0, clockMs), null, m.toJson());
      r.headers().add(new RecordHeader(Mark.HEADER, new byte[] {1}));
      producer.send(r);
    }
  }

  private final class Case implements GoldenScript.Driver {
    private final String prefix;
    private final long offsetMs;
    private final Map<String, RemoteQuery> queries = new LinkedHashMap<>();
    private final Map<String, List<Result>> results = new LinkedHashMap<>();
    private boolean dirty;

    Case(String prefix, long offsetMs) {
      this.prefix = prefix;
      this.offsetMs = offsetMs;
    }

    @Override
    public void submit(String id, String bql) {
      RemoteQuery q = client.submit(prefix + id, bql);
      queries.put(id, q);
      results.put(id, new ArrayList<>());
      try {
        await(q.awaitRunning(WAIT_S, TimeUnit.SECONDS), "query " + id + " did not start");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
      dirty = true;
    }

    @Override
    public void pipe(String... jsonRecords) {
      for (String r : jsonRecords) {
        // the record's time is its Kafka timestamp: the script's clock
        producer.send(
            new ProducerRecord<>(
                recordsTopic, 0, clockMs, null, r.getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
      dirty = true;
    }

    /** The clock moves by a clock mark, and ticks by a tick mark (time may not move). */
    @Override
    public void advance(long ms) {
      clockMs += ms;
      mark(Mark.clock(clockMs));
      mark(Mark.tick(++sync, partitions));
      producer.flush();
      dirty = true;
    }

    @Override
    public void finishAll() {
      sync();
      for (RemoteQuery q : queries.values()) {
        if (!q.isDone()) {
          client.finish(q.id());
        }
      }
      for (RemoteQuery q : queries.values()) {
        try {
          await(q.awaitDone(WAIT_S, TimeUnit.SECONDS), "query " + q.id() + " did not finish");
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError(e);
        }
      }
      drain();
    }

    @Override
    public List<Result> results(String id) {
      if (dirty) {
        sync();
      }
      return results.getOrDefault(id, List.of());
    }

    @Override
    public long malformed() {
      sync();
      long most = 0;
      for (RemoteQuery q : queries.values()) {
        most = Math.max(most, q.progress().malformed());
      }
      return most;
    }

    /** Waits until every step so far has reached the queries, then takes their results. */
    private void sync() {
      long s = ++sync;
      mark(Mark.sync(s, partitions));
      producer.flush();
      try {
        for (RemoteQuery q : queries.values()) {
          await(q.awaitSync(s, WAIT_S, TimeUnit.SECONDS), "no sync " + s + " for " + q.id());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
      drain();
      dirty = false;
    }

    private void drain() {
      queries.forEach(
          (id, q) -> {
            try {
              Result r;
              while ((r = q.poll(0, TimeUnit.MILLISECONDS)) != null) {
                results.get(id).add(shift(r));
              }
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
    }

    /**
     * The result as at the script's clock: its times and its query id unshifted. The times of
     * event-time windows come from the records, not the clock: they stay as they are.
     */
    private Result shift(Result r) {
      Meta m = r.meta();
      Optional<Meta.WindowMeta> w =
          m.window()
              .map(
                  x ->
                      new Meta.WindowMeta(
                          x.number(),
                          x.name(),
                          x.emitTimeMs() - offsetMs,
                          x.eventWindow().isPresent()
                              ? x.startTimeMs()
                              : x.startTimeMs() - offsetMs,
                          x.size(),
                          x.eventWindow()));
      return new Result(
          r.records(),
          new Meta(
              m.queryId().substring(prefix.length()),
              m.queryText(),
              m.receiveTimeMs() - offsetMs,
              m.finishTimeMs().map(t -> t - offsetMs),
              w,
              m.sketch(),
              m.errors(),
              m.isFinal(),
              m.badInput(),
              m.eventTime()));
    }
  }

  private static void await(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what + " within " + WAIT_S + " s", new TimeoutException());
    }
  }
}
