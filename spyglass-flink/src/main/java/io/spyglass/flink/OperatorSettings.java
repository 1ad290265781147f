package io.spyglass.flink;

import java.io.Serializable;

/**
 * What the filter and the combiner need to know of the job's configuration: plain values, checked
 * when the job is built (see {@link JobOptions}).
 *
 * @param clock where time comes from
 * @param tickMs with the wall clock, how often the filters flush and move time on
 * @param batchRecords records a filter takes before it hands raw matches on
 * @param batchMs longest a raw match waits in a filter before it is handed on
 * @param maxQueries most queries running at once; more are refused
 * @param progressMs how often queries that asked for progress get a progress reply
 * @param feedbackTopic where the combiner tells the filters that a query ended early (the query
 *     topic); null when the job has none
 * @param statusTopic where each filter subtask tells what it read ({@link
 *     io.spyglass.flink.client.JobStatus}) about once a second; null for none
 * @param virtualFields whether records get the fields {@code _read_ms} (and from Kafka {@code
 *     _kafka_partition}, {@code _kafka_offset}, {@code _kafka_timestamp}), as in the embedded
 *     engine
 */
public record OperatorSettings(
    JobOptions.Clock clock,
    long tickMs,
    int batchRecords,
    long batchMs,
    int maxQueries,
    long progressMs,
    String feedbackTopic,
    String statusTopic,
    boolean virtualFields)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  public OperatorSettings {
    if (tickMs < 1 || batchMs < 1 || batchRecords < 1 || maxQueries < 1 || progressMs < 1) {
      throw new IllegalArgumentException(
          "tick, batch, max queries and progress settings must be positive");
    }
  }

  /** The job's defaults (see {@link JobOptions}), without a feedback topic. */
  public static OperatorSettings defaults() {
    return new OperatorSettings(
        JobOptions.Clock.WALL, 100, 64, 10, 20_000, 1_000, null, null, true);
  }
}
