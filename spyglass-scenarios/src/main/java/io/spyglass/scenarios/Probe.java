package io.spyglass.scenarios;

import java.util.List;

/**
 * One measured run of the engine: a source at a rate, some workers, needle queries and other
 * queries, for a while. Immutable; the {@code with} methods return changed copies.
 *
 * @param source where records come from
 * @param rate records per second the source is paced to, or 0 for as fast as the engine reads
 * @param recordBytes target size of the generated records
 * @param workers filter worker threads
 * @param needleQueries queries {@code SELECT <needleSelect> ... WHERE id = '<unique>' LIMIT
 *     <needlesPerQuery>}, each of which is sent exactly that many matching records during the run
 * @param needlesPerQuery matching records per needle query
 * @param needleSelect the select list of the needle queries, e.g. {@code *}
 * @param queries other queries (BQL with a {@code %d} for their duration in ms), run alongside
 * @param warmupMs time run before measuring (compilation, queues filling)
 * @param durationMs time measured
 */
record Probe(
    SourceKind source,
    long rate,
    int recordBytes,
    int workers,
    int needleQueries,
    int needlesPerQuery,
    String needleSelect,
    List<String> queries,
    long warmupMs,
    long durationMs) {

  enum SourceKind {
    /** The generator, making each record on the reader thread as it is read. */
    GEN,
    /** Records generated before the run and replayed from memory. */
    REPLAY;

    String label() {
      return this == GEN ? "generator" : "replay";
    }
  }

  static Probe of(Settings s) {
    return new Probe(
        SourceKind.GEN,
        0,
        s.recordBytes(),
        Machine.cores(),
        0,
        10,
        "*",
        List.of(),
        s.warmupMs(),
        s.probeMs());
  }

  Probe withSource(SourceKind v) {
    return new Probe(
        v,
        rate,
        recordBytes,
        workers,
        needleQueries,
        needlesPerQuery,
        needleSelect,
        queries,
        warmupMs,
        durationMs);
  }

  Probe withRate(long v) {
    return new Probe(
        source,
        v,
        recordBytes,
        workers,
        needleQueries,
        needlesPerQuery,
        needleSelect,
        queries,
        warmupMs,
        durationMs);
  }

  Probe withRecordBytes(int v) {
    return new Probe(
        source,
        rate,
        v,
        workers,
        needleQueries,
        needlesPerQuery,
        needleSelect,
        queries,
        warmupMs,
        durationMs);
  }

  Probe withWorkers(int v) {
    return new Probe(
        source,
        rate,
        recordBytes,
        v,
        needleQueries,
        needlesPerQuery,
        needleSelect,
        queries,
        warmupMs,
        durationMs);
  }

  Probe withNeedleQueries(int v) {
    return new Probe(
        source,
        rate,
        recordBytes,
        workers,
        v,
        needlesPerQuery,
        needleSelect,
        queries,
        warmupMs,
        durationMs);
  }

  Probe withNeedleSelect(String v) {
    return new Probe(
        source,
        rate,
        recordBytes,
        workers,
        needleQueries,
        needlesPerQuery,
        v,
        queries,
        warmupMs,
        durationMs);
  }

  Probe withQueries(List<String> v) {
    return new Probe(
        source,
        rate,
        recordBytes,
        workers,
        needleQueries,
        needlesPerQuery,
        needleSelect,
        List.copyOf(v),
        warmupMs,
        durationMs);
  }

  Probe withDurationMs(long v) {
    return new Probe(
        source,
        rate,
        recordBytes,
        workers,
        needleQueries,
        needlesPerQuery,
        needleSelect,
        queries,
        warmupMs,
        v);
  }
}
