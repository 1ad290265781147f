package io.spyglass.service;

import io.spyglass.core.SpyglassClock;
import io.spyglass.engine.EngineConfig;
import io.spyglass.service.http.Listening;
import io.spyglass.service.metering.JobStanding;
import io.spyglass.service.metering.Metering;
import io.spyglass.service.runtime.QueryRuntime;
import io.spyglass.sources.Source;
import java.util.Objects;

/**
 * How {@link SpyglassService#startMetering(ServiceConfig, MeteringStart)} starts a service with
 * ingestion and standing queries: {@link #of} and the {@code with...} methods.
 *
 * <ul>
 *   <li>embedded ({@code serve --source http}): the ingest log under the data folder, every query
 *       on the embedded engine over it (and over {@code other});
 *   <li>{@link #withJob} ({@code serve --runtime flink --source http}): the standing queries on the
 *       Flink job the starter starts over the ingest log's files;
 *   <li>{@link #withJob} and {@link #withRuntime} and {@link #withForward} ({@code serve --runtime
 *       flink --kafka HOST:PORT --source http}): the accepted documents written to the job's
 *       records topic instead of the ingest log, the standing queries on the job on the cluster,
 *       the other queries on the given runtime (the job too).
 * </ul>
 *
 * @param listening the socket bound by {@link SpyglassService#bind}; null to bind the configured
 *     port last
 * @param other a source the embedded engine reads beside the ingested documents; null for none
 * @param engine the embedded engine's settings; its clock is {@code clock}, whatever these say
 * @param settings ingestion's and the standing queries' settings
 * @param job starts the Flink job the standing queries run on; null: on the embedded engine
 * @param runtime the other queries' runtime instead of the embedded engine; null: embedded
 * @param forward where accepted documents are written instead of the ingest log; null: the log
 * @param clock where the service, ingestion, the standing queries and the embedded engine take
 *     their time: one clock, from here down
 */
public record MeteringStart(
    Listening listening,
    Source other,
    EngineConfig engine,
    Metering.Settings settings,
    JobStanding.Starter job,
    QueryRuntime runtime,
    Metering.Forward forward,
    SpyglassClock clock) {
  public MeteringStart {
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(clock, "clock");
  }

  /** Embedded, with {@code settings}, the engine's defaults, the machine's clocks. */
  public static MeteringStart of(Metering.Settings settings) {
    return new MeteringStart(
        null, null, EngineConfig.defaults(), settings, null, null, null, SpyglassClock.system());
  }

  public MeteringStart withListening(Listening l) {
    return new MeteringStart(l, other, engine, settings, job, runtime, forward, clock);
  }

  public MeteringStart withOther(Source s) {
    return new MeteringStart(listening, s, engine, settings, job, runtime, forward, clock);
  }

  public MeteringStart withEngine(EngineConfig e) {
    return new MeteringStart(listening, other, e, settings, job, runtime, forward, clock);
  }

  public MeteringStart withJob(JobStanding.Starter j) {
    return new MeteringStart(listening, other, engine, settings, j, runtime, forward, clock);
  }

  public MeteringStart withRuntime(QueryRuntime r) {
    return new MeteringStart(listening, other, engine, settings, job, r, forward, clock);
  }

  public MeteringStart withForward(Metering.Forward f) {
    return new MeteringStart(listening, other, engine, settings, job, runtime, f, clock);
  }

  public MeteringStart withClock(SpyglassClock c) {
    return new MeteringStart(listening, other, engine, settings, job, runtime, forward, c);
  }
}
