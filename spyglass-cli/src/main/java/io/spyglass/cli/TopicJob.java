package io.spyglass.cli;

import io.spyglass.core.run.CheckedQuery;
import io.spyglass.flink.client.ControlMessage;
import io.spyglass.flink.client.IngestTopicWriter;
import io.spyglass.flink.client.Reply;
import io.spyglass.flink.client.ReplyTopicReader;
import io.spyglass.service.metering.JobReplies;
import io.spyglass.service.metering.JobStanding;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The standing queries of {@code serve --runtime flink --kafka HOST:PORT --source http} on the
 * Spyglass job on a Flink cluster, which reads the records topic the service writes the accepted
 * documents to ({@link IngestTopicWriter}).
 *
 * <p>A query is defined with {@link IngestTopicWriter#define}: its message to the query topic and a
 * start mark to every partition of the records topic in one Kafka transaction, so that on the job
 * it counts exactly the documents acknowledged after its definition (the log positions {@link
 * JobStanding} gives are not used). Its replies go to the instance's standing topic ({@code
 * spyglass-standing-INSTANCE}), read as a consumer group whose offsets are committed once each
 * reply is in the database: a service started again reads what the job sent meanwhile. The job
 * keeps the query in its checkpoints; a deletion kills it through the query topic.
 */
final class TopicJob implements JobStanding.Job {
  private final IngestTopicWriter writer;
  private final String queryTopic;
  private final String standingTopic;
  private final String bootstrap;
  private final ReplyTopicReader replies;

  private TopicJob(
      IngestTopicWriter writer,
      String bootstrap,
      String queryTopic,
      String standingTopic,
      ReplyTopicReader replies) {
    this.writer = writer;
    this.bootstrap = bootstrap;
    this.queryTopic = queryTopic;
    this.standingTopic = standingTopic;
    this.replies = replies;
  }

  /** The topic of instance {@code instance}'s standing queries' replies. */
  static String standingTopicOf(String instance) {
    return "spyglass-standing-" + instance;
  }

  /**
   * Starts reading the replies of the standing queries of {@code instance}, which are defined and
   * killed through {@code writer} on {@code queryTopic}.
   */
  static JobStanding.Starter starter(
      IngestTopicWriter writer,
      String bootstrap,
      String queryTopic,
      String instance,
      Map<String, Object> kafkaProperties) {
    return (Path ingestDir,
        Path jobDir,
        Consumer<JobReplies.Reply> out,
        LongSupplier committedEnd) -> {
      String topic = standingTopicOf(instance);
      ReplyTopicReader reader =
          ReplyTopicReader.start(bootstrap, topic, topic, kafkaProperties, r -> forward(r, out));
      return new TopicJob(writer, bootstrap, queryTopic, topic, reader);
    };
  }

  /** The job's results and ends, as the service takes them; its other replies say nothing here. */
  private static void forward(Reply r, Consumer<JobReplies.Reply> out) {
    switch (r.kind()) {
      case RESULT -> out.accept(JobReplies.Reply.result(r.queryId(), r.result()));
      case ENDED, REJECTED -> out.accept(JobReplies.Reply.ended(r.queryId(), r.error()));
      default -> {}
    }
  }

  /** Defines the query among the documents: {@code fromPosition} is not used (see the class). */
  @Override
  public void submit(String id, CheckedQuery query, long receiveTimeMs, long fromPosition)
      throws IOException {
    byte[] json =
        ControlMessage.query(id, query.text(), receiveTimeMs, standingTopic, null)
            .withLimits(query.limits())
            .toJson();
    try {
      writer.define(queryTopic, id, json);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while defining " + id, e);
    }
  }

  @Override
  public void kill(String id) throws IOException {
    try {
      writer.control(queryTopic, id, ControlMessage.kill(id).toJson());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while deleting " + id, e);
    }
  }

  /** No ingest log: the job's checkpoints hold the positions in the records topic. */
  @Override
  public long checkpointedPosition() {
    return -1;
  }

  @Override
  public String describe() {
    return "the Flink job via Kafka at " + bootstrap + " (replies on " + standingTopic + ")";
  }

  /**
   * Stops reading replies and closes the writer: the job goes on, and a start reads what it sent
   * meanwhile.
   */
  @Override
  public void close() {
    replies.close();
    writer.close();
  }
}
