package io.spyglass.service.metrics;

import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.service.alerts.Alerts;
import io.spyglass.service.metering.Metering;
import io.spyglass.service.metering.StandingQueries;
import io.spyglass.service.query.QueryManager;
import io.spyglass.service.query.QueryObserver;
import io.spyglass.service.query.ResultLog;
import io.spyglass.service.query.ServiceQuery;
import io.spyglass.service.runtime.QueryRuntime;
import io.spyglass.sinks.SinkSpec;
import io.spyglass.sinks.Sinks;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The service's Prometheus metrics, in a registry of its own: the stream (records read and
 * malformed), queries (running, started, rejected by reason, failed), results emitted, the latency
 * from a result's emission to its delivery to a stream client, stream clients (connected and
 * dropped for falling behind), HTTP requests, and the JVM; with ingestion, its documents, requests,
 * backlog and log, and the standing queries and their checkpoints ({@link #metering}).
 */
public final class ServiceMetrics implements QueryObserver {
  /** The media type of {@link #scrape()}. */
  public static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final Counter started;
  private final Counter rejected;
  private final Counter failed;
  private final Counter results;
  private final Histogram resultLatency;
  private final Delivery sseDelivery;
  private final Delivery webSocketDelivery;
  private final Gauge streamClients;
  private final Counter streamClientsDropped;
  private final Counter requests;
  private volatile Counter ingestRequests;

  /** The service's wall clock (epoch milliseconds): the checkpoints' age. */
  private final LongSupplier clock;

  /**
   * @param clock the service's wall clock, in epoch milliseconds
   */
  public ServiceMetrics(QueryRuntime runtime, QueryManager queries, LongSupplier clock) {
    this.clock = clock;
    CounterWithCallback.builder()
        .name("spyglass_records_read_total")
        .help("Records read from the source")
        .callback(cb -> cb.call(runtime.stats().recordsRead()))
        .register(registry);
    CounterWithCallback.builder()
        .name("spyglass_records_malformed_total")
        .help("Records that could not be read (bad JSON, over a limit) and were skipped")
        .callback(cb -> cb.call(runtime.stats().recordsMalformed()))
        .register(registry);
    GaugeWithCallback.builder()
        .name("spyglass_records_per_second")
        .help("Records processed per second, lately")
        .callback(cb -> cb.call(runtime.stats().recordsPerSecond()))
        .register(registry);
    GaugeWithCallback.builder()
        .name("spyglass_queries_running")
        .help("Queries running now")
        .callback(cb -> cb.call(queries.running()))
        .register(registry);
    GaugeWithCallback.builder()
        .name("spyglass_result_memory_bytes")
        .help(
            "Bytes of results kept for late and reconnecting clients and for answers being"
                + " gathered, and of raw records held by running queries, over all users (bounded"
                + " by --max-result-memory)")
        .callback(cb -> cb.call(queries.memory().used()))
        .register(registry);
    started =
        Counter.builder()
            .name("spyglass_queries_started_total")
            .help("Queries started")
            .register(registry);
    rejected =
        Counter.builder()
            .name("spyglass_queries_rejected_total")
            .help(
                "Queries refused: invalid, or over max-queries, max-queries-per-user,"
                    + " max-result-memory or max-result-memory-per-user")
            .labelNames("reason")
            .register(registry);
    failed =
        Counter.builder()
            .name("spyglass_queries_failed_total")
            .help("Queries that ended with an error")
            .register(registry);
    results =
        Counter.builder()
            .name("spyglass_results_emitted_total")
            .help("Results emitted by queries")
            .register(registry);
    resultLatency =
        Histogram.builder()
            .name("spyglass_result_latency_seconds")
            .help(
                "From a result's emission by the engine to its live delivery to a stream client"
                    + " (results sent again to a late or reconnecting client are not counted)")
            .classicOnly()
            .classicUpperBounds(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)
            .labelNames("stream")
            .register(registry);
    streamClients =
        Gauge.builder()
            .name("spyglass_stream_clients")
            .help("Clients reading results now, by kind of stream")
            .labelNames("stream")
            .register(registry);
    streamClientsDropped =
        Counter.builder()
            .name("spyglass_stream_clients_dropped_total")
            .help("Stream clients dropped because they fell too far behind")
            .labelNames("stream")
            .register(registry);
    requests =
        Counter.builder()
            .name("spyglass_http_requests_total")
            .help(
                "HTTP requests answered, by method (GET, HEAD, POST, PUT, DELETE, OPTIONS, PATCH,"
                    + " else OTHER) and status")
            .labelNames("method", "status")
            .register(registry);
    for (String reason :
        new String[] {
          "invalid",
          "max-queries",
          "max-queries-per-user",
          "max-result-memory",
          "max-result-memory-per-user"
        }) {
      rejected.labelValues(reason).inc(0);
    }
    for (String s : new String[] {"sse", "websocket"}) {
      resultLatency.labelValues(s);
      streamClients.labelValues(s).set(0);
      streamClientsDropped.labelValues(s).inc(0);
    }
    sseDelivery = new Delivery(resultLatency.labelValues("sse"));
    webSocketDelivery = new Delivery(resultLatency.labelValues("websocket"));
    JvmMetrics.builder().register(registry);
  }

  @Override
  public void started(ServiceQuery q) {
    started.inc();
  }

  @Override
  public void rejected(String reason) {
    rejected.labelValues(reason).inc();
  }

  @Override
  public void result(ServiceQuery q, ResultLog.Event e) {
    results.inc();
  }

  @Override
  public void ended(ServiceQuery q) {
    if (q.error() != null) {
      failed.inc();
    }
  }

  /** A result reached a client: {@code stream} is {@code sse} or {@code websocket}. */
  public void delivered(String stream, long emitMs, long nowMs) {
    delivery(stream).delivered(emitMs, nowMs);
  }

  /**
   * Where a kind of stream ({@code sse}, {@code websocket}) counts its results' delays: a stream
   * takes it once, rather than looking its label up for each result it delivers (with a thousand
   * streams on one query, that lookup was a noticeable share of the fan-out's CPU).
   */
  public Delivery delivery(String stream) {
    return switch (stream) {
      case "sse" -> sseDelivery;
      case "websocket" -> webSocketDelivery;
      default -> new Delivery(resultLatency.labelValues(stream));
    };
  }

  /** The delays of results delivered on one kind of stream. */
  public static final class Delivery {
    private final DistributionDataPoint latency;

    private Delivery(DistributionDataPoint latency) {
      this.latency = latency;
    }

    /** A result emitted at {@code emitMs} reached a client at {@code nowMs}. */
    public void delivered(long emitMs, long nowMs) {
      latency.observe(Math.max(0, nowMs - emitMs) / 1000.0);
    }
  }

  /** Mean delay from emission to delivery on a kind of stream so far, in ms (NaN before any). */
  public double meanDeliveryMs(String stream) {
    var d = resultLatency.labelValues(stream);
    return d.getCount() == 0 ? Double.NaN : d.getSum() / d.getCount() * 1000;
  }

  public void clientConnected(String stream) {
    streamClients.labelValues(stream).inc();
  }

  public void clientDisconnected(String stream) {
    streamClients.labelValues(stream).dec();
  }

  public void clientDropped(String stream) {
    streamClientsDropped.labelValues(stream).inc();
  }

  /**
   * Counts an answered request. The method is one of {@link #METHODS}, else {@code OTHER}: a client
   * may send any token as a method, and each label value would be a series kept for good.
   */
  public void request(String method, int status) {
    requests.labelValues(methodLabel(method), Integer.toString(status)).inc();
  }

  /** The methods counted under their own name; any other is {@code OTHER}. */
  static final Set<String> METHODS =
      Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH");

  static String methodLabel(String method) {
    return method != null && METHODS.contains(method) ? method : "OTHER";
  }

  /** Adds the gauge of the bytes held by request bodies being read ({@code held}). */
  public void requestBodies(LongSupplier held) {
    GaugeWithCallback.builder()
        .name("spyglass_request_body_bytes")
        .help(
            "Bytes held for request bodies being read (429 over --max-request-body-memory or its"
                + " per-user share)")
        .callback(cb -> cb.call(held.getAsLong()))
        .register(registry);
  }

  /**
   * The sinks' counters: documents delivered, retried and dropped by type of sink ({@code webhook},
   * {@code file}, {@code kafka}), and the sinks failing now.
   */
  public void sinks(Sinks sinks) {
    String[] names = {
      "spyglass_sink_delivered_total", "spyglass_sink_retried_total", "spyglass_sink_dropped_total"
    };
    String[] helps = {
      "Result documents delivered to sinks (a webhook's 2xx, a line written, a Kafka"
          + " acknowledgement), by type of sink",
      "Attempts to deliver a document to a sink that failed and were tried again, by type of sink",
      "Result documents that will never be delivered to a sink: pushed out of a full buffer, given"
          + " up after their attempts, or refused by the receiver, by type of sink"
    };
    for (int i = 0; i < names.length; i++) {
      Sinks.Count what = Sinks.Count.values()[i];
      CounterWithCallback.builder()
          .name(names[i])
          .help(helps[i])
          .labelNames("type")
          .callback(
              cb -> {
                for (SinkSpec.Type t : SinkSpec.Type.values()) {
                  cb.call(sinks.count(t, what), t.wireName());
                }
              })
          .register(registry);
    }
    GaugeWithCallback.builder()
        .name("spyglass_sinks_failing")
        .help("Sinks whose last attempt failed, now (each query's each sink counts once)")
        .callback(cb -> cb.call(sinks.failing()))
        .register(registry);
    GaugeWithCallback.builder()
        .name("spyglass_sink_buffered_bytes")
        .help("Bytes of result documents waiting in the sinks' buffers, over all sinks")
        .callback(cb -> cb.call(sinks.bufferedBytes()))
        .register(registry);
  }

  /** Alerts on standing queries: how many in each state, the events they recorded. */
  public void alerts(Alerts alerts) {
    GaugeWithCallback.builder()
        .name("spyglass_alerts")
        .help(
            "Alerts by state: ok, firing (a group is), muted, error (its standing query is gone),"
                + " as of their last evaluation (at most a second ago)")
        .labelNames("state")
        .callback(cb -> alerts.states().forEach((state, n) -> cb.call(n, state)))
        .register(registry);
    CounterWithCallback.builder()
        .name("spyglass_alert_events_total")
        .help(
            "Events alerts recorded since the start, by state (firing, resolved); their delivery"
                + " counts in spyglass_sink_delivered_total{type} and its kin")
        .labelNames("state")
        .callback(
            cb -> {
              cb.call(alerts.events("firing"), "firing");
              cb.call(alerts.events("resolved"), "resolved");
            })
        .register(registry);
  }

  /**
   * Adds the metrics of ingestion and standing queries: documents by outcome, ingest requests by
   * status, the backlog and the log's size, standing queries by state, their documents without a
   * time and their state's size, checkpoints (taken, failed, and the age of the last one).
   */
  public void metering(Metering m) {
    Ingestor ingestor = m.ingestor();
    CounterWithCallback.builder()
        .name("spyglass_ingest_documents_total")
        .help(
            "Documents posted for ingestion, by outcome: accepted (durable, counted), duplicate"
                + " (an id accepted before), rejected (not read, never acknowledged)")
        .labelNames("outcome")
        .callback(
            cb -> {
              cb.call(m.accepted(), "accepted");
              cb.call(m.duplicates(), "duplicate");
              cb.call(m.rejected(), "rejected");
            })
        .register(registry);
    ingestRequests =
        Counter.builder()
            .name("spyglass_ingest_requests_total")
            .help("POST /api/ingest requests answered, by status (429: the backlog was full)")
            .labelNames("status")
            .register(registry);
    for (String status : new String[] {"202", "429"}) {
      ingestRequests.labelValues(status).inc(0);
    }
    GaugeWithCallback.builder()
        .name("spyglass_ingest_backlog_bytes")
        .help("Ingested bytes the engine has yet to read (429 over --ingest-backlog)")
        .callback(cb -> cb.call(ingestor.backlogBytes()))
        .register(registry);
    GaugeWithCallback.builder()
        .name("spyglass_ingest_log_bytes")
        .help("Bytes the ingest log holds on disk (from the oldest segment kept)")
        .callback(cb -> cb.call(ingestor.log().committedEnd() - ingestor.log().start()))
        .register(registry);
    StandingQueries s = m.standing();
    GaugeWithCallback.builder()
        .name("spyglass_standing_queries")
        .help("Standing queries, by state: running, or failed (stopped with an error)")
        .labelNames("state")
        .callback(
            cb -> {
              long running = s.status().stream().filter(StandingQueries.Status::running).count();
              cb.call(running, "running");
              cb.call(s.status().size() - running, "failed");
            })
        .register(registry);
    GaugeWithCallback.builder()
        .name("spyglass_standing_documents_without_time")
        .help(
            "Documents a standing query read without a readable event time: counted in no"
                + " window (as of the last checkpoint)")
        .labelNames("query")
        .callback(cb -> s.status().forEach(q -> cb.call(q.withoutTime(), q.name())))
        .register(registry);
    GaugeWithCallback.builder()
        .name("spyglass_standing_state_bytes")
        .help("Bytes of a standing query's state at the last checkpoint (--max-standing-state)")
        .labelNames("query")
        .callback(cb -> s.status().forEach(q -> cb.call(q.stateBytes(), q.name())))
        .register(registry);
    CounterWithCallback.builder()
        .name("spyglass_checkpoints_total")
        .help("Checkpoints of the standing queries written")
        .callback(cb -> cb.call(s.checkpoints()))
        .register(registry);
    CounterWithCallback.builder()
        .name("spyglass_checkpoint_failures_total")
        .help("Checkpoints of the standing queries that failed (the server's log says why)")
        .callback(cb -> cb.call(s.checkpointFailures()))
        .register(registry);
    GaugeWithCallback.builder()
        .name("spyglass_checkpoint_age_seconds")
        .help(
            "Seconds since the last checkpoint of the standing queries was written: alert when it"
                + " grows far past --checkpoint-every")
        .callback(cb -> cb.call(Math.max(0, clock.getAsLong() - s.lastCheckpointMs()) / 1000.0))
        .register(registry);
  }

  /** A POST /api/ingest was answered with {@code status}. */
  public void ingestRequest(int status) {
    Counter c = ingestRequests;
    if (c != null) {
      c.labelValues(Integer.toString(status)).inc();
    }
  }

  /** Clients dropped for falling behind, over all streams. */
  public long droppedClients() {
    return (long)
        (streamClientsDropped.labelValues("sse").get()
            + streamClientsDropped.labelValues("websocket").get());
  }

  /** Every metric in the Prometheus text format. */
  public byte[] scrape() {
    ByteArrayOutputStream out = new ByteArrayOutputStream(16 * 1024);
    try {
      PrometheusTextFormatWriter.create().write(out, registry.scrape());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
