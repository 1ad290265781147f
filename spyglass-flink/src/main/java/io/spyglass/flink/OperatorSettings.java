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
 */
public record OperatorSettings(
    JobOptions.Clock clock,
    long tickMs,
    int batchRecords,
    long batchMs,
    int maxQueries,
    long progressMs,
    String feedbackTopic)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  public OperatorSettings {
    if (tickMs < 1 || batchMs < 1 || batchRecords < 1 || maxQueries < 1 || progressMs < 1) {
      throw new IllegalArgumentException(
          "tick, batch, max queries and progress settings must be positive");
    }
  }

  public static OperatorSettings defaults() {
    return new OperatorSettings(JobOptions.Clock.WALL, 100, 64, 10, 20_000, 1_000, null);
  }

  public OperatorSettings withClock(JobOptions.Clock c) {
    return new OperatorSettings(
        c, tickMs, batchRecords, batchMs, maxQueries, progressMs, feedbackTopic);
  }

  public OperatorSettings withFeedbackTopic(String topic) {
    return new OperatorSettings(
        clock, tickMs, batchRecords, batchMs, maxQueries, progressMs, topic);
  }
}
