package io.spyglass.sinks;

/**
 * One sink's counters, as of now.
 *
 * @param spec the sink as it was given
 * @param delivered documents the sink took (a webhook's 2xx, written to the file, acknowledged by
 *     Kafka)
 * @param retried attempts that failed and were tried again
 * @param dropped documents that will never be delivered: pushed out of a full buffer, given up
 *     after their attempts, or refused by the receiver (a 4xx but 408 and 429)
 * @param failing whether its last attempt failed (until one succeeds)
 * @param lastError what went wrong last; null when nothing did
 * @param pending documents buffered or being sent
 */
public record SinkStats(
    SinkSpec spec,
    long delivered,
    long retried,
    long dropped,
    boolean failing,
    String lastError,
    int pending) {}
