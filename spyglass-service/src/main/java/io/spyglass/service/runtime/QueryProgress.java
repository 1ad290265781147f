package io.spyglass.service.runtime;

/**
 * Counters of one running query.
 *
 * @param recordsSeen records read while it ran, whether they matched or not
 * @param recordsMatched records that passed its filter
 */
public record QueryProgress(long recordsSeen, long recordsMatched) {
  public static final QueryProgress NONE = new QueryProgress(0, 0);
}
