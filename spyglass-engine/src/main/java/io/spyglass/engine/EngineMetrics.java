package io.spyglass.engine;

import io.spyglass.core.query.QueryStats;
import java.util.Map;

/**
 * A snapshot of an engine's counters.
 *
 * @param uptimeMs milliseconds since the engine started, on the engine clock
 * @param recordsPerSecond records processed per second over the last second or more
 * @param recordsRead records the source handed to the engine
 * @param bytesRead bytes of those records
 * @param recordsProcessed records parsed and offered to the queries
 * @param malformed records that could not be read (bad JSON, invalid UTF-8, over a limit), skipped
 * @param sourceSkipped input the source itself skipped (e.g. oversize lines)
 * @param queuedBatches batches read but not yet processed: the engine's lag behind its source
 * @param lastReadToProcessedMs for the last batch, milliseconds from read to processed
 * @param runningQueries queries running now
 * @param queriesStarted queries started since the engine started
 * @param resultsEmitted results emitted since the engine started
 * @param queries per running query, its statistics summed over workers (as of the last tick)
 * @param badInput input skipped since the engine started, by {@link
 *     io.spyglass.core.record.BadRecord#key() reason}: {@code malformed} and {@code sourceSkipped}
 *     together
 */
public record EngineMetrics(
    long uptimeMs,
    double recordsPerSecond,
    long recordsRead,
    long bytesRead,
    long recordsProcessed,
    long malformed,
    long sourceSkipped,
    int queuedBatches,
    long lastReadToProcessedMs,
    int runningQueries,
    long queriesStarted,
    long resultsEmitted,
    Map<String, QueryStats> queries,
    Map<String, Long> badInput) {}
