package io.spyglass.sinks;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;

/**
 * Produces each document to a Kafka topic, keyed by the document's key, through the cluster's
 * producer shared by every sink of that cluster (acks=all, idempotent). Acknowledged: delivered; a
 * retriable error (a missing topic, a leader moving, a timeout): tried again; any other (too large,
 * not authorized): given up.
 */
final class KafkaSender implements Sender {
  private final Producer<byte[], byte[]> producer;
  private final String topic;

  KafkaSender(Producer<byte[], byte[]> producer, String topic) {
    this.producer = producer;
    this.topic = topic;
  }

  @Override
  public CompletableFuture<Outcome> send(SinkDocument doc) {
    CompletableFuture<Outcome> done = new CompletableFuture<>();
    producer.send(
        new ProducerRecord<>(
            topic, doc.key().getBytes(java.nio.charset.StandardCharsets.UTF_8), doc.json()),
        (metadata, e) -> {
          if (e == null) {
            done.complete(Outcome.DELIVERED);
          } else if (e instanceof RetriableException) {
            done.complete(Outcome.retry("Kafka topic " + topic + ": " + Sender.describe(e)));
          } else {
            done.complete(Outcome.giveUp("Kafka topic " + topic + ": " + Sender.describe(e)));
          }
        });
    return done;
  }
}
