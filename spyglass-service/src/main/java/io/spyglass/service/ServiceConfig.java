package io.spyglass.service;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.service.alerts.AlertSettings;
import io.spyglass.service.http.EdgeGuards;
import io.spyglass.service.http.EdgeSettings;
import io.spyglass.service.http.StreamSettings;
import io.spyglass.service.http.TlsFiles;
import io.spyglass.service.metering.RecoveryOptions;
import io.spyglass.service.query.ResultLimits;
import io.spyglass.sinks.SinkSettings;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Settings of a {@link SpyglassService}, checked when built.
 *
 * @param bind address to listen on; without tokens it must be a loopback address unless {@code
 *     insecure}
 * @param port port to listen on; 0 for any free one
 * @param tokensFile lines {@code TOKEN USER [admin] [ingest] [tenant=NAME ...]}; null for no tokens
 *     (one anonymous admin)
 * @param insecure allow binding beyond loopback without tokens
 * @param dataDir where the database lives
 * @param maxQueries most queries running at once, over all users
 * @param maxQueriesPerUser most queries one user runs at once
 * @param graceMs how long a query runs on after its last client left (unless detached)
 * @param keepMs how long an ended query's results stay readable (at least 60 s)
 * @param keepResults most results kept per query for late and reconnecting clients
 * @param keepBytes about the most bytes of results kept per query
 * @param streams how result streams treat slow clients
 * @param headerTimeoutMs how long a request head may take to arrive
 * @param sampleEveryN one record in how many feeds the live schema
 * @param schemaPeriodMs how long a field stays in the live schema after it was last seen (one to
 *     two periods)
 * @param queryLimits what one query may ask for
 * @param edge what one connection, address, user or web page may do at the HTTP edge
 * @param results how much memory kept results may take, in all, per user and per result
 * @param recovery how the start goes on when the data folder shows something was lost
 * @param usage what each user may keep: tenancy, standing queries, saved queries, history, disk
 * @param guards which proxies the HTTP edge believes about a client's address; the memory request
 *     bodies being read may hold
 * @param maxForeverMs how long a {@code STREAM(FOREVER)} query runs before the service ends it
 *     (standing queries excepted); 0 for no end
 * @param auditLog where the audit log (who started and stopped what) is appended; null for {@code
 *     audit.log} under the data folder, {@code -} for standard output
 * @param tls the certificate and key to serve HTTPS with; null for plain HTTP
 * @param sinks where queries' results may be delivered besides their streams (webhook hosts, the
 *     file folder, Kafka clusters), and the bounds of delivery (docs/sinks.md)
 * @param alerts what alerts on standing queries may do: per-user cap, events kept, links
 */
public record ServiceConfig(
    String bind,
    int port,
    Path tokensFile,
    boolean insecure,
    Path dataDir,
    int maxQueries,
    int maxQueriesPerUser,
    long graceMs,
    long keepMs,
    int keepResults,
    long keepBytes,
    StreamSettings streams,
    long headerTimeoutMs,
    int sampleEveryN,
    long schemaPeriodMs,
    QueryLimits queryLimits,
    EdgeSettings edge,
    ResultLimits results,
    RecoveryOptions recovery,
    UsageLimits usage,
    EdgeGuards guards,
    long maxForeverMs,
    Path auditLog,
    TlsFiles tls,
    SinkSettings sinks,
    AlertSettings alerts) {

  public ServiceConfig {
    require(port >= 0 && port <= 65535, "port must be 0 to 65535: " + port);
    require(maxQueries >= 1, "max-queries must be at least 1: " + maxQueries);
    require(
        maxQueriesPerUser >= 1, "max-queries-per-user must be at least 1: " + maxQueriesPerUser);
    require(graceMs >= 0, "the grace period must not be negative");
    require(keepMs >= 60_000, "results must be kept at least 60 s after a query ends");
    require(keepResults >= 1 && keepBytes >= 1, "at least one result must be kept per query");
    require(headerTimeoutMs >= 100, "the request head timeout must be at least 100 ms");
    require(sampleEveryN >= 1, "the schema sample must be at least 1 in 1");
    require(schemaPeriodMs >= 1, "the schema period must be positive");
    require(
        dataDir != null
            && bind != null
            && streams != null
            && queryLimits != null
            && edge != null
            && results != null,
        "bind, data folder, stream settings, query, edge and result limits are required");
    require(recovery != null, "the recovery options are required");
    require(usage != null, "the usage limits are required");
    require(guards != null, "the edge's guards are required");
    require(maxForeverMs >= 0, "max-query-duration must not be negative");
    require(sinks != null, "the sink settings are required");
    require(alerts != null, "the alert settings are required");
  }

  /** Where the audit log goes: the file given, else {@code audit.log} in the data folder. */
  public Path auditLogPath() {
    return auditLog != null ? auditLog : dataDir.resolve("audit.log");
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  /**
   * Loopback on 8080, no tokens, data in {@code ./spyglass-data}, 1,000 queries at most (100 per
   * user), 60 s of grace, {@code STREAM(FOREVER)} queries ended after 24 h, results kept 2 minutes
   * (the last 2,000 or 8 MiB per query), streams dropped 1,000 results or 30 s behind, request
   * heads within 10 s, 1 record in 100 sampled, kept results within a quarter of the heap (a
   * quarter of that per user, 8 MiB a result), the audit log in the data folder, plain HTTP, no
   * sink allowed.
   */
  public static ServiceConfig defaults() {
    return new ServiceConfig(
        "127.0.0.1",
        8080,
        null,
        false,
        Path.of("spyglass-data"),
        1_000,
        100,
        DEFAULT_GRACE_MS,
        120_000,
        2_000,
        8L << 20,
        StreamSettings.DEFAULTS,
        10_000,
        100,
        30_000,
        QueryLimits.DEFAULTS,
        EdgeSettings.DEFAULTS,
        ResultLimits.defaults(),
        RecoveryOptions.DEFAULTS,
        UsageLimits.DEFAULTS,
        EdgeGuards.DEFAULTS,
        DEFAULT_MAX_FOREVER_MS,
        null,
        null,
        SinkSettings.DEFAULTS,
        AlertSettings.DEFAULTS);
  }

  /** How long a query without a client runs on by default, for one to reattach. */
  public static final long DEFAULT_GRACE_MS = 60_000;

  /** How long a {@code STREAM(FOREVER)} query runs by default before the service ends it. */
  public static final long DEFAULT_MAX_FOREVER_MS = 24 * 3_600_000L;

  /** A copy with some settings changed, e.g. {@code c.with(b -> b.port = 0)}. */
  public ServiceConfig with(Consumer<Builder> change) {
    Builder b = new Builder(this);
    change.accept(b);
    return b.build();
  }

  /** The settings, mutable, for {@link #with}. */
  public static final class Builder {
    public String bind;
    public int port;
    public Path tokensFile;
    public boolean insecure;
    public Path dataDir;
    public int maxQueries;
    public int maxQueriesPerUser;
    public long graceMs;
    public long keepMs;
    public int keepResults;
    public long keepBytes;
    public StreamSettings streams;
    public long headerTimeoutMs;
    public int sampleEveryN;
    public long schemaPeriodMs;
    public QueryLimits queryLimits;
    public EdgeSettings edge;
    public ResultLimits results;
    public RecoveryOptions recovery;
    public UsageLimits usage;
    public EdgeGuards guards;
    public long maxForeverMs;
    public Path auditLog;
    public TlsFiles tls;
    public SinkSettings sinks;
    public AlertSettings alerts;

    Builder(ServiceConfig c) {
      bind = c.bind;
      port = c.port;
      tokensFile = c.tokensFile;
      insecure = c.insecure;
      dataDir = c.dataDir;
      maxQueries = c.maxQueries;
      maxQueriesPerUser = c.maxQueriesPerUser;
      graceMs = c.graceMs;
      keepMs = c.keepMs;
      keepResults = c.keepResults;
      keepBytes = c.keepBytes;
      streams = c.streams;
      headerTimeoutMs = c.headerTimeoutMs;
      sampleEveryN = c.sampleEveryN;
      schemaPeriodMs = c.schemaPeriodMs;
      queryLimits = c.queryLimits;
      edge = c.edge;
      results = c.results;
      recovery = c.recovery;
      usage = c.usage;
      guards = c.guards;
      maxForeverMs = c.maxForeverMs;
      auditLog = c.auditLog;
      tls = c.tls;
      sinks = c.sinks;
      alerts = c.alerts;
    }

    ServiceConfig build() {
      return new ServiceConfig(
          bind,
          port,
          tokensFile,
          insecure,
          dataDir,
          maxQueries,
          maxQueriesPerUser,
          graceMs,
          keepMs,
          keepResults,
          keepBytes,
          streams,
          headerTimeoutMs,
          sampleEveryN,
          schemaPeriodMs,
          queryLimits,
          edge,
          results,
          recovery,
          usage,
          guards,
          maxForeverMs,
          auditLog,
          tls,
          sinks,
          alerts);
    }
  }
}
