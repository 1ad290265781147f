package io.spyglass.flink.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.testkit.kafka.TestKafka;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * The standing queries' replies read as a consumer group from a real broker: a reader started again
 * goes on after what the one before took, and a reply its listener did not take is read again.
 */
@SuppressWarnings("try") // the readers are held open by their blocks
class ReplyTopicReaderTest {
  private static void send(String topic, String... ids) throws Exception {
    try (KafkaProducer<byte[], byte[]> p = TestKafka.shared().producer()) {
      for (String id : ids) {
        p.send(new ProducerRecord<>(topic, Reply.ended(id, null).encode())).get();
      }
    }
  }

  private static void await(String what, BooleanSupplier done) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!done.getAsBoolean() && System.nanoTime() < until) {
      Thread.sleep(20);
    }
    assertThat(done.getAsBoolean()).as(what).isTrue();
  }

  @Test
  void aReaderStartedAgainGoesOnAfterWhatWasTaken() throws Exception {
    String topic = "standing-replies-again";
    String bootstrap = TestKafka.shared().bootstrap();
    List<String> got = new CopyOnWriteArrayList<>();
    try (ReplyTopicReader r =
        ReplyTopicReader.start(bootstrap, topic, topic, Map.of(), x -> got.add(x.queryId()))) {
      send(topic, "a", "b");
      await("a and b", () -> got.size() == 2);
    }
    send(topic, "c"); // while no reader runs
    try (ReplyTopicReader r =
        ReplyTopicReader.start(bootstrap, topic, topic, Map.of(), x -> got.add(x.queryId()))) {
      send(topic, "d");
      await("c and d", () -> got.size() == 4);
    }
    assertThat(got).containsExactly("a", "b", "c", "d");
  }

  @Test
  void aReplyNotTakenIsReadAgain() throws Exception {
    String topic = "standing-replies-refused";
    List<String> got = new CopyOnWriteArrayList<>();
    AtomicBoolean refuse = new AtomicBoolean(true);
    try (ReplyTopicReader r =
        ReplyTopicReader.start(
            TestKafka.shared().bootstrap(),
            topic,
            topic,
            Map.of(),
            x -> {
              if (refuse.getAndSet(false)) {
                throw new IllegalStateException("the database is busy");
              }
              got.add(x.queryId());
            })) {
      send(topic, "a", "b");
      await("a and b", () -> got.size() == 2);
    }
    assertThat(got).containsExactly("a", "b");
  }

  /** The job's answers to looks (a report's open windows, a state's size) come through in order. */
  @Test
  void answersToLooksComeThroughWithTheirNumbers() throws Exception {
    String topic = "standing-replies-looks";
    Reply.Progress p = new Reply.Progress(3, 0, 0, 1);
    List<Reply> got = new CopyOnWriteArrayList<>();
    try (ReplyTopicReader r =
            ReplyTopicReader.start(
                TestKafka.shared().bootstrap(), topic, topic, Map.of(), got::add);
        KafkaProducer<byte[], byte[]> producer = TestKafka.shared().producer()) {
      producer.send(new ProducerRecord<>(topic, Reply.saved("q", 123_456, p).encode()));
      producer.send(new ProducerRecord<>(topic, Reply.inspected("q", 1L << 50, p).encode())).get();
      await("the answers", () -> got.size() == 2);
    }
    assertThat(got)
        .extracting(Reply::kind, Reply::sync)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(Reply.Kind.SAVED, 123_456L),
            org.assertj.core.groups.Tuple.tuple(Reply.Kind.INSPECTED, 1L << 50));
  }
}
