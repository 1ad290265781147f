package io.spyglass.service.runtime;

/**
 * Counters of a runtime's stream.
 *
 * @param recordsRead records read from the source
 * @param recordsMalformed records that could not be read (bad JSON, over a limit) and were skipped
 * @param recordsPerSecond records processed per second, lately
 * @param runningQueries queries running now
 * @param resultsEmitted results emitted since the start
 * @param sourceError why the source failed, or null
 */
public record RuntimeStats(
    long recordsRead,
    long recordsMalformed,
    double recordsPerSecond,
    int runningQueries,
    long resultsEmitted,
    String sourceError) {}
