package io.spyglass.sources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.core.record.BadRecord;
import io.spyglass.testkit.kafka.TestKafka;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Against a real single-node KRaft broker of its own ({@link TestKafka}), started once for the
 * class.
 */
class KafkaSourceTest {
  private static final long T0 = 1_700_000_000_000L;
  private static TestKafka kafka;
  private static KafkaProducer<byte[], byte[]> producer;
  private static String bootstrap;

  /** What a produced record should look like when read back. */
  private record Sent(int partition, long offset, long timestamp, String value) {}

  @BeforeAll
  static void startBroker() {
    kafka = TestKafka.start();
    bootstrap = kafka.bootstrap();
    kafka.createTopics(
        Map.ofEntries(
            Map.entry("earliest", 3),
            Map.entry("latest", 2),
            Map.entry("times", 1),
            Map.entry("grouped", 2),
            Map.entry("spec", 1),
            Map.entry("idle", 1),
            Map.entry("doomed", 1),
            Map.entry("grown", 1),
            Map.entry("tombstones", 1),
            Map.entry("codec-none", 2),
            Map.entry("codec-gzip", 2),
            Map.entry("codec-lz4", 2),
            Map.entry("codec-zstd", 2),
            Map.entry("codec-snappy", 2)));
    producer = kafka.producer();
  }

  @AfterAll
  static void stopBroker() {
    if (producer != null) {
      producer.close();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void readsFromEarliestWithPartitionOffsetAndTimestamp() throws Exception {
    List<Sent> sent = produce("earliest", 30, 3, T0);
    try (KafkaSource source =
        new KafkaSource(
            bootstrap,
            "earliest",
            KafkaSource.Options.DEFAULTS.withFrom(KafkaSource.StartAt.earliest()))) {
      assertThat(read(source, 30)).containsExactlyInAnyOrderElementsOf(sent);
      assertThat(source.describe()).isEqualTo("kafka://" + bootstrap + "/earliest");
    }
  }

  @Test
  void readsFromLatestOnlyWhatIsProducedAfterOpening() throws Exception {
    produce("latest", 10, 2, T0);
    try (KafkaSource source = new KafkaSource(bootstrap, "latest", KafkaSource.Options.DEFAULTS)) {
      List<Sent> later = produce("latest", 7, 2, T0 + 1000);
      List<Sent> got = read(source, 7);
      assertThat(got).containsExactlyInAnyOrderElementsOf(later);
      assertThat(read(source, 0)).isEmpty();
    }
  }

  @Test
  void readsFromATimestamp() throws Exception {
    List<Sent> sent = produce("times", 10, 1, T0);
    try (KafkaSource source =
        new KafkaSource(
            bootstrap,
            "times",
            KafkaSource.Options.DEFAULTS.withFrom(KafkaSource.StartAt.timestamp(T0 + 6)))) {
      assertThat(read(source, 4)).containsExactlyElementsOf(sent.subList(6, 10));
    }
  }

  @Test
  void readsWithAConsumerGroup() throws Exception {
    List<Sent> sent = produce("grouped", 12, 2, T0);
    try (KafkaSource source =
        new KafkaSource(
            bootstrap,
            "grouped",
            KafkaSource.Options.DEFAULTS
                .withFrom(KafkaSource.StartAt.earliest())
                .withGroup("spyglass-test"))) {
      assertThat(read(source, 12)).containsExactlyInAnyOrderElementsOf(sent);
    }
  }

  @Test
  void opensFromASpec() throws Exception {
    List<Sent> sent = produce("spec", 5, 1, T0);
    try (Source source = Sources.open("kafka://" + bootstrap + "/spec?from=earliest")) {
      assertThat(source).isInstanceOf(KafkaSource.class);
      assertThat(read(source, 5)).containsExactlyElementsOf(sent);
    }
    try (Source source = Sources.open("kafka://" + bootstrap + "/spec?from=" + (T0 + 3))) {
      assertThat(read(source, 2)).containsExactlyElementsOf(sent.subList(3, 5));
    }
  }

  @Test
  void aMissingTopicIsAClearError() {
    assertThatThrownBy(
            () -> new KafkaSource(bootstrap, "no-such-topic", KafkaSource.Options.DEFAULTS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no-such-topic")
        .hasMessageContaining("does not exist");
  }

  @Test
  void readsPartitionsAddedAfterOpening() throws Exception {
    try (KafkaSource source =
        new KafkaSource(
            bootstrap,
            "grown",
            KafkaSource.Options.DEFAULTS.withConsumerProperties(
                Map.of(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 200)))) {
      List<Sent> before = produce("grown", 3, 1, T0);
      assertThat(read(source, 3)).containsExactlyInAnyOrderElementsOf(before);
      try (var admin = kafka.admin()) {
        admin
            .createPartitions(Map.of("grown", NewPartitions.increaseTo(2)))
            .all()
            .get(30, TimeUnit.SECONDS);
      }
      List<Sent> after = produce("grown", 6, 2, T0 + 100);
      assertThat(after).anyMatch(sent -> sent.partition() == 1);
      assertThat(read(source, 6)).containsExactlyInAnyOrderElementsOf(after);
    }
  }

  @Test
  void aDeletedTopicIsSaidWhileItIsGoneAndReadingResumesWhenItIsBack() throws Exception {
    try (KafkaSource source =
        new KafkaSource(
            bootstrap,
            "doomed",
            KafkaSource.Options.DEFAULTS.withConsumerProperties(
                Map.of(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 200)))) {
      List<Sent> before = produce("doomed", 2, 1, T0);
      assertThat(read(source, 2)).containsExactlyElementsOf(before);
      assertThat(source.problem()).isNull();
      try (var admin = kafka.admin()) {
        admin.deleteTopics(List.of("doomed")).all().get(30, TimeUnit.SECONDS);
      }
      RawBatch batch = new RawBatch();
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (source.problem() == null && System.nanoTime() < end) {
        source.poll(batch, 10, 100);
      }
      assertThat(source.problem()).contains("'doomed'").contains("does not exist");
      try (var admin = kafka.admin()) {
        admin
            .createTopics(List.of(new NewTopic("doomed", 1, (short) 1)))
            .all()
            .get(30, TimeUnit.SECONDS);
      }
      // the consumer finds the new topic, resets its position to the end, and reads what comes
      end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      batch.clear();
      while (batch.isEmpty() && System.nanoTime() < end) {
        produceQuietly("doomed", T0 + 10);
        source.poll(batch, 10, 200);
      }
      assertThat(batch.size()).isPositive();
      assertThat(source.problem()).isNull();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "gzip", "lz4", "zstd", "snappy"})
  void valuesHandedOnWithoutCopiesStayIntactWhileLaterPollsGoOn(String codec) throws Exception {
    // values are referenced where the consumer fetched them (uncompressed) or decompressed them:
    // every batch is kept, never cleared, while many more fetches come, and must still read right
    String topic = "codec-" + codec;
    List<Sent> sent = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> compressing =
        kafka.producer(
            Map.of(
                ProducerConfig.COMPRESSION_TYPE_CONFIG,
                codec,
                ProducerConfig.BATCH_SIZE_CONFIG,
                8192,
                ProducerConfig.LINGER_MS_CONFIG,
                5))) {
      List<CompletableFuture<RecordMetadata>> acks = new ArrayList<>();
      List<String> values = new ArrayList<>();
      for (int i = 0; i < 400; i++) {
        String value = "{\"i\":" + i + ",\"pad\":\"" + "abcdefgh".repeat(i % 97 * 3) + "\"}";
        values.add(value);
        CompletableFuture<RecordMetadata> ack = new CompletableFuture<>();
        compressing.send(
            new ProducerRecord<>(
                topic,
                i % 2,
                T0 + i,
                ("key" + i).getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8)),
            (meta, e) -> {
              if (e != null) {
                ack.completeExceptionally(e);
              } else {
                ack.complete(meta);
              }
            });
        acks.add(ack);
      }
      compressing.flush();
      for (int i = 0; i < acks.size(); i++) {
        RecordMetadata meta = acks.get(i).get(30, TimeUnit.SECONDS);
        sent.add(new Sent(meta.partition(), meta.offset(), meta.timestamp(), values.get(i)));
      }
    }
    try (KafkaSource source =
        new KafkaSource(
            bootstrap,
            topic,
            KafkaSource.Options.DEFAULTS
                .withFrom(KafkaSource.StartAt.earliest())
                // many small fetches
                .withConsumerProperties(
                    Map.of(
                        ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4096,
                        ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 8192)))) {
      List<RawBatch> kept = new ArrayList<>();
      int n = 0;
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (n < sent.size() && System.nanoTime() < end) {
        RawBatch batch = new RawBatch(64, 4);
        assertThat(source.poll(batch, 7, 100)).isTrue();
        n += batch.size();
        kept.add(batch);
      }
      List<Sent> got = new ArrayList<>();
      for (RawBatch batch : kept) {
        for (int i = 0; i < batch.size(); i++) {
          got.add(
              new Sent(
                  batch.partition(i),
                  batch.offset(i),
                  batch.timestamp(i),
                  new String(
                      batch.array(i), batch.start(i), batch.length(i), StandardCharsets.UTF_8)));
        }
      }
      assertThat(got).containsExactlyInAnyOrderElementsOf(sent);
      assertThat(source.badInput().total()).isZero();
    }
  }

  @Test
  void recordsWithoutAValueAreCountedAndSkipped() throws Exception {
    List<Sent> first = produce("tombstones", 1, 1, T0);
    RecordMetadata tombstone =
        producer
            .send(new ProducerRecord<>("tombstones", 0, T0 + 1, "k".getBytes(), (byte[]) null))
            .get(30, TimeUnit.SECONDS);
    List<Sent> last = produce("tombstones", 1, 1, T0 + 2);
    try (KafkaSource source =
        new KafkaSource(
            bootstrap,
            "tombstones",
            KafkaSource.Options.DEFAULTS.withFrom(KafkaSource.StartAt.earliest()))) {
      assertThat(read(source, 2)).containsExactly(first.get(0), last.get(0));
      BadInput.Snapshot bad = source.badInput();
      assertThat(bad.counts()).isEqualTo(Map.of(BadRecord.NO_VALUE, 1L));
      assertThat(bad.places().get(BadRecord.NO_VALUE))
          .containsExactly("partition 0 offset " + tombstone.offset());
    }
  }

  /** Produces one record, if the topic takes it (it may still be being created). */
  private static void produceQuietly(String topic, long timestamp) {
    try {
      producer
          .send(new ProducerRecord<>(topic, 0, timestamp, null, "{\"back\":1}".getBytes()))
          .get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      // not yet
    }
  }

  @Test
  void closeWakesAWaitingPoll() throws Exception {
    KafkaSource source = new KafkaSource(bootstrap, "idle", KafkaSource.Options.DEFAULTS);
    CompletableFuture<Boolean> polled =
        CompletableFuture.supplyAsync(() -> source.poll(new RawBatch(), 10, 30_000));
    Thread.sleep(100);
    long start = System.nanoTime();
    source.close();
    assertThat(polled.get(10, TimeUnit.SECONDS)).isFalse();
    assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(10));
    assertThat(source.poll(new RawBatch(), 10, 10)).isFalse();
  }

  /** Produces {@code n} records spread over partitions, with timestamps {@code t0 + i}. */
  private static List<Sent> produce(String topic, int n, int partitions, long t0) throws Exception {
    List<Sent> sent = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String value = "{\"topic\":\"" + topic + "\",\"i\":" + i + ",\"t\":" + (t0 + i) + "}";
      RecordMetadata meta =
          producer
              .send(
                  new ProducerRecord<>(
                      topic, i % partitions, t0 + i, null, value.getBytes(StandardCharsets.UTF_8)))
              .get(30, TimeUnit.SECONDS);
      sent.add(new Sent(meta.partition(), meta.offset(), meta.timestamp(), value));
    }
    return sent;
  }

  /**
   * Polls until {@code n} records arrived (or 40 s passed: joining a group takes long on a busy
   * machine), then once more briefly to catch anything extra.
   */
  private static List<Sent> read(Source source, int n) throws Exception {
    List<Sent> got = new ArrayList<>();
    RawBatch batch = new RawBatch();
    // generous: the loop ends as soon as n records are in; a consumer group's first join can
    // take long on a busy machine
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    boolean last = false;
    while (!last) {
      last = got.size() >= n || System.nanoTime() > end;
      batch.clear();
      assertThat(source.poll(batch, 4, last ? 200 : 100)).isTrue();
      for (int i = 0; i < batch.size(); i++) {
        assertThat(batch.positioned()).isTrue();
        got.add(
            new Sent(
                batch.partition(i),
                batch.offset(i),
                batch.timestamp(i),
                new String(batch.data(), batch.start(i), batch.length(i), StandardCharsets.UTF_8)));
      }
    }
    return got;
  }
}
