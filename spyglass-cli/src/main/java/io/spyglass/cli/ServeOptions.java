package io.spyglass.cli;

import io.spyglass.flink.client.FlinkQueryClient;
import io.spyglass.service.ServiceConfig;
import io.spyglass.service.UsageLimits;
import io.spyglass.service.alerts.AlertSettings;
import io.spyglass.service.http.EdgeGuards;
import io.spyglass.service.http.EdgeSettings;
import io.spyglass.service.query.ResultLimits;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The options of {@code spyglass serve}, and the settings made of them. Each can also be given in
 * the configuration file ({@code --config}, its key the option's long name) or as an environment
 * variable ({@code SPYGLASS_} and the name in capitals, {@code -} as {@code _}): see {@link
 * ServeConfiguration}. A picocli mixin of {@link ServeCommand}.
 */
final class ServeOptions {
  @Option(
      names = "--config",
      paramLabel = "FILE",
      description =
          "a YAML file of options: keys their long names (port: 9090, max-queries: 500), a list"
              + " for one given more than once; SPYGLASS_* environment variables"
              + " (SPYGLASS_PORT=9090) override it, flags override both (docs/operations.md)")
  Path config;

  @Option(
      names = "--source",
      paramLabel = "SPEC",
      description =
          "where records come from (default: gen); see Sources below. gen without ?rate= is"
              + " paced to 10,000 records/s here (gen?rate=0: as fast as it goes). 'http' is the"
              + " documents POSTed to /api/ingest, kept durably under --data; give --source twice"
              + " to read another source beside it")
  List<String> sources = new ArrayList<>();

  @Option(
      names = "--id-field",
      paramLabel = "NAME",
      description = "with --source http: the field that holds a document's id (default: id)")
  String idField = "id";

  @Option(
      names = "--database",
      paramLabel = "JDBC_URL",
      description =
          "with --source http: where standing queries and their final windows are kept, e.g."
              + " jdbc:postgresql://HOST/DB?user=U&password=P (default: SQLite under --data)")
  String database;

  @Option(
      names = "--ingest-backlog",
      paramLabel = "BYTES",
      description =
          "with --source http: ingested bytes the engine may be behind before POST /api/ingest"
              + " answers 429 (default: 64MiB, at most 1GiB; KiB, MiB, GiB or plain bytes)")
  String ingestBacklog = "64MiB";

  @Option(
      names = "--id-horizon",
      paramLabel = "TIME",
      description =
          "with --source http: how long an accepted id is remembered, a repeat within it is a"
              + " duplicate (default: 7d)")
  String idHorizon = "7d";

  @Option(
      names = "--checkpoint-every",
      paramLabel = "TIME",
      description =
          "with --source http: how often standing queries' states are saved (default: 1s)")
  String checkpointEvery = "1s";

  @Option(names = "--port", description = "port; 0 for any free one (default: ${DEFAULT-VALUE})")
  int port = 8080;

  @Option(
      names = "--bind",
      paramLabel = "ADDRESS",
      description = "address to listen on (default: ${DEFAULT-VALUE})")
  String bind = "127.0.0.1";

  @Option(
      names = "--tokens",
      paramLabel = "FILE",
      description =
          "bearer tokens, lines TOKEN USER [admin] [ingest] [tenant=NAME ...], each token of 16"
              + " characters or more; without it the service is loopback-only (docs/api.md)")
  Path tokens;

  @Option(
      names = "--insecure",
      description = "allow --bind beyond loopback without --tokens: anyone who reaches it is in")
  boolean insecure;

  @Option(
      names = "--max-queries",
      paramLabel = "N",
      description = "most queries running at once (default: ${DEFAULT-VALUE})")
  int maxQueries = ServiceConfig.defaults().maxQueries();

  @Option(
      names = "--max-queries-per-user",
      paramLabel = "N",
      description = "most queries one user runs at once (default: ${DEFAULT-VALUE})")
  int maxQueriesPerUser = ServiceConfig.defaults().maxQueriesPerUser();

  @Option(
      names = "--data",
      paramLabel = "DIR",
      description = "where saved queries and history are kept (default: ${DEFAULT-VALUE})")
  Path data = Path.of("spyglass-data");

  @Option(
      names = "--grace",
      paramLabel = "TIME",
      description =
          "how long a query without a client runs on, for one to reattach (Last-Event-ID, the"
              + " Running page), before it ends with its final result; unless submitted detached"
              + " (default: ${DEFAULT-VALUE})")
  String grace = "60s";

  @Option(
      names = "--max-query-duration",
      paramLabel = "TIME",
      description =
          "how long a STREAM(FOREVER) query runs before the service ends it with its final"
              + " result (standing queries excepted); 0 for no end (default: ${DEFAULT-VALUE})")
  String maxQueryDuration = "24h";

  @Option(
      names = "--audit-log",
      paramLabel = "FILE",
      description =
          "where to append the audit log, a JSON line for each query started and ended and each"
              + " standing query created and deleted (who, what, why); - for standard output"
              + " (default: audit.log under --data)")
  Path auditLog;

  @Option(
      names = "--tls-cert",
      paramLabel = "FILE",
      description =
          "serve HTTPS with this certificate chain (PEM, the server's first, e.g. Let's"
              + " Encrypt's fullchain.pem); with --tls-key. A changed file is served within a"
              + " minute, without a restart (default: plain HTTP)")
  Path tlsCert;

  @Option(
      names = "--tls-key",
      paramLabel = "FILE",
      description =
          "the private key of --tls-cert (PEM: PKCS#8, or PKCS#1 for RSA; unencrypted, readable"
              + " by the service only)")
  Path tlsKey;

  @Option(
      names = "--keep",
      paramLabel = "TIME",
      description =
          "how long an ended query's results stay readable, at least 60s (default:"
              + " ${DEFAULT-VALUE})")
  String keep = "2m";

  @Option(names = "--workers", description = "filter worker threads (default: one per core)")
  Integer workers;

  @Option(
      names = "--runtime",
      description =
          "where queries run: embedded, in this process (default: ${DEFAULT-VALUE}); flink: the"
              + " Spyglass job on a Flink cluster, through --kafka; with --source http, the"
              + " standing queries on the job in this process, or with --kafka on the job on the"
              + " cluster, the documents written to its records topic (see docs/flink.md)")
  String runtime = "embedded";

  @Option(
      names = "--kafka",
      paramLabel = "HOST:PORT",
      description = "with --runtime flink: the Kafka the job reads its queries from")
  String kafka;

  @Option(
      names = "--query-topic",
      paramLabel = "TOPIC",
      description = "with --runtime flink: the job's query topic (default: ${DEFAULT-VALUE})")
  String queryTopic = FlinkQueryClient.DEFAULT_QUERY_TOPIC;

  @Option(
      names = "--records-topic",
      paramLabel = "TOPIC",
      description =
          "with --runtime flink --kafka and --source http: the job's records topic, where the"
              + " accepted documents are written before the 202 (default: ${DEFAULT-VALUE})")
  String recordsTopic = "spyglass-records";

  @Option(
      names = "--status-topic",
      paramLabel = "TOPIC",
      description = "with --runtime flink: the job's status topic (default: ${DEFAULT-VALUE})")
  String statusTopic = "spyglass-status";

  @Option(
      names = "--instance",
      paramLabel = "NAME",
      description =
          "with --runtime flink: this instance's name, unique among those sharing the job; its"
              + " results come on topic spyglass-results-NAME (default: HOST-PORT)")
  String instance;

  // Kafka client settings (docs/operations.md "Kafka")
  @Option(
      names = {"--kafka-property", "--kafka-properties"},
      paramLabel = "KEY=VALUE",
      description =
          "a Kafka client setting, e.g. security.protocol=SASL_SSL (repeatable): given, last, to"
              + " the consumer of a kafka:// --source and, with --runtime flink, to the clients of"
              + " the job's topics. In the file: kafka-properties, a mapping; as a variable:"
              + " SPYGLASS_KAFKA_PROPERTIES, one KEY=VALUE a line. Secrets are masked when the"
              + " configuration is printed (default: none)")
  Map<String, String> kafkaProperties = new LinkedHashMap<>();

  // The HTTP edge: connections, bodies, tokens and browsers (docs/api.md "Limits")

  @Option(
      names = "--max-connections",
      paramLabel = "N",
      description =
          "most connections open at once; at the limit new ones wait (default: three quarters of"
              + " the open-file limit)")
  Integer maxConnections;

  @Option(
      names = "--max-connections-per-address",
      paramLabel = "N",
      description =
          "most connections open at once from one client address; more are closed at once"
              + " (default: ${DEFAULT-VALUE})")
  int maxConnectionsPerAddress = EdgeSettings.DEFAULTS.maxConnectionsPerAddress();

  @Option(
      names = "--max-streams-per-user",
      paramLabel = "N",
      description =
          "most result streams (SSE streams and WebSockets) one user has open at once; more get"
              + " 429 (default: ${DEFAULT-VALUE})")
  int maxStreamsPerUser = EdgeSettings.DEFAULTS.maxStreamsPerUser();

  @Option(
      names = "--request-body-timeout",
      paramLabel = "TIME",
      description =
          "how long a request body may take to arrive, plus the time its size needs at"
              + " --min-request-body-rate; slower bodies get 408 (default: ${DEFAULT-VALUE})")
  String requestBodyTimeout = "10s";

  @Option(
      names = "--min-request-body-rate",
      paramLabel = "BYTES/s",
      description =
          "the slowest a request body may arrive, e.g. 64KiB/s (default: ${DEFAULT-VALUE})")
  String minRequestBodyRate = "64KiB/s";

  @Option(
      names = "--max-auth-failures-per-minute",
      paramLabel = "N",
      description =
          "wrong tokens one client address may send a minute before its further wrong ones get"
              + " 429; valid tokens are always served (default: ${DEFAULT-VALUE})")
  int maxAuthFailuresPerMinute = EdgeSettings.DEFAULTS.maxAuthFailuresPerMinute();

  @Option(
      names = "--allowed-hosts",
      paramLabel = "NAME",
      split = ",",
      description =
          "Host names the service answers to besides loopback names and the --bind address"
              + " (checked without --tokens, or always once given; * for any)")
  List<String> allowedHosts = new ArrayList<>();

  @Option(
      names = "--allowed-origins",
      paramLabel = "ORIGIN",
      split = ",",
      description =
          "web origins (e.g. https://dash.example.com) whose pages may call the API: CORS for"
              + " them; other sites' pages may only read nothing")
  List<String> allowedOrigins = new ArrayList<>();

  @Option(
      names = "--metrics-without-token",
      description = "serve /metrics without a token even with --tokens (e.g. for a scraper)")
  boolean metricsWithoutToken;

  // Reverse proxies in front, and the memory of request bodies being read (docs/api.md "Limits")

  @Option(
      names = "--trusted-proxies",
      paramLabel = "ADDR",
      split = ",",
      description =
          "IP addresses or CIDR ranges of reverse proxies in front of the service (e.g."
              + " 10.0.0.5,10.1.0.0/16): from them, Forwarded / X-Forwarded-For name the client"
              + " whose wrong tokens are counted, and their connections are not held to"
              + " --max-connections-per-address (default: none, no header believed)")
  List<String> trustedProxies = new ArrayList<>();

  @Option(
      names = "--max-request-body-memory",
      paramLabel = "SIZE",
      description =
          "memory that request bodies being read may hold at once, over all requests; a body that"
              + " does not fit gets 429 from its head (default: an eighth of the JVM's heap, at"
              + " least 64MiB; KiB, MiB, GiB or plain bytes)")
  String maxRequestBodyMemory;

  @Option(
      names = "--max-request-body-memory-per-user",
      paramLabel = "SIZE",
      description =
          "one user's share of --max-request-body-memory, at least 10MiB (default: a quarter of"
              + " it, at least 16MiB)")
  String maxRequestBodyMemoryPerUser;

  @Option(
      names = "--max-threads",
      paramLabel = "N",
      description =
          "most threads the web server runs requests on, at least 16; requests beyond them wait"
              + " in its queue. No request holds a thread while it waits on a client or a query"
              + " (default: 64, or 8 a core where that is more)")
  Integer maxThreads;

  // the memory of kept results (docs/api.md, "Limits")
  @Option(
      names = "--max-result-memory",
      paramLabel = "SIZE",
      description =
          "memory for the results kept for late and reconnecting clients, over all users and"
              + " queries, running and ended (default: a quarter of the JVM's heap, -Xmx; KiB,"
              + " MiB, GiB or plain bytes)")
  String maxResultMemory;

  @Option(
      names = "--max-result-memory-per-user",
      paramLabel = "SIZE",
      description =
          "one user's share of --max-result-memory; a user whose running queries fill it gets"
              + " 429 for new ones (default: a quarter of --max-result-memory)")
  String maxResultMemoryPerUser;

  @Option(
      names = "--max-result-size",
      paramLabel = "SIZE",
      description =
          "the most one result's JSON may take; a larger one keeps the records that fit and says"
              + " so in meta.errors (default: 8MiB, or the per-user share when smaller)")
  String maxResultSize;

  /**
   * The pace of the generator when --source is gen without ?rate=: a lively stream (a window of a
   * second holds ten thousand records) that costs a few percent of a core, so that an idle demo
   * idles.
   */
  static final long SERVE_GEN_RATE = 10_000;

  // What the start does when the data folder shows something was lost (docs/metering.md, Recovery)
  @Option(
      names = "--reset-standing-queries",
      description =
          "with --source http: start although the standing queries' database has no checkpoint"
              + " while the ingest log shows it had some (the database was lost or replaced): the"
              + " standing queries start afresh, none defined")
  boolean resetStandingQueries;

  @Option(
      names = "--accept-missing-ids",
      description =
          "with --source http: start although ids files of the ingest log within --id-horizon are"
              + " missing (with --kafka: although the id journal kafka-ids/ is missing or empty"
              + " while the records topic holds documents within --id-horizon): repeats of those"
              + " documents are then counted again")
  boolean acceptMissingIds;

  @Option(
      names = "--rebuild-kafka-ids",
      description =
          "with --runtime flink --kafka and --source http: when the id journal kafka-ids/ is"
              + " missing or empty while the records topic holds documents this instance wrote"
              + " within --id-horizon, read their ids back from the topic into the journal instead"
              + " of refusing to start")
  boolean rebuildKafkaIds;

  // what each user may keep: tenancy, standing queries, saved queries, history, disk
  // (docs/metering.md, docs/api.md)

  @Option(
      names = "--tenant-field",
      paramLabel = "NAME",
      description =
          "with --source http: the field that names a document's tenant; a token with roles"
              + " tenant=NAME ingests only their documents and reads only their rows"
              + " (default: ${DEFAULT-VALUE})")
  String tenantField = UsageLimits.DEFAULTS.tenantField();

  @Option(
      names = "--max-standing-queries-per-user",
      paramLabel = "N",
      description = "standing queries one user defines; admins are not counted (default: 10)")
  int maxStandingQueriesPerUser = UsageLimits.DEFAULTS.maxStandingQueriesPerUser();

  @Option(
      names = "--standing-queries-admin-only",
      description = "only admins define standing queries")
  boolean standingQueriesAdminOnly;

  @Option(
      names = "--max-standing-groups",
      paramLabel = "N",
      description =
          "exact groups a standing query keeps per window, beyond them the window says it is"
              + " incomplete (default: 100000)")
  int maxStandingGroups = UsageLimits.DEFAULTS.maxStandingGroups();

  @Option(
      names = "--max-standing-state",
      paramLabel = "BYTES",
      description =
          "the saved state of one standing query, checked at each checkpoint: a query over it"
              + " stops with an error (default: 64MiB)")
  String maxStandingState = "64MiB";

  @Option(
      names = "--max-saved-per-user",
      paramLabel = "N",
      description = "saved queries one user keeps (default: 1000)")
  int maxSavedPerUser = UsageLimits.DEFAULTS.maxSavedPerUser();

  @Option(
      names = "--max-saved-bytes-per-user",
      paramLabel = "BYTES",
      description = "bytes of names and text of one user's saved queries (default: 16MiB)")
  String maxSavedBytesPerUser = "16MiB";

  @Option(
      names = "--max-history-per-user",
      paramLabel = "N",
      description =
          "past queries kept per user, older ones deleted as new ones come (default: 1000)")
  int maxHistoryPerUser = UsageLimits.DEFAULTS.maxHistoryPerUser();

  @Option(
      names = "--min-free-disk",
      paramLabel = "BYTES",
      description =
          "free space kept on the disk of --data: below it, saving a query is refused with 507"
              + " (default: 256MiB)")
  String minFreeDisk = "256MiB";

  UsageLimits usageLimits() {
    return new UsageLimits(
        tenantField,
        maxStandingQueriesPerUser,
        standingQueriesAdminOnly,
        maxStandingGroups,
        OptionValues.parseBytes(maxStandingState),
        maxSavedPerUser,
        OptionValues.parseBytes(maxSavedBytesPerUser),
        maxHistoryPerUser,
        OptionValues.parseBytes(minFreeDisk));
  }

  // alerts on standing queries (docs/alerts.md)

  @Option(
      names = "--max-alerts-per-user",
      paramLabel = "N",
      description = "alerts one user defines; admins are not counted (default: 20)")
  int maxAlertsPerUser = AlertSettings.DEFAULTS.maxPerUser();

  @Option(
      names = "--max-alert-events",
      paramLabel = "N",
      description =
          "events (fired, resolved) kept per alert, its history and what it has still to send:"
              + " older ones are forgotten, those not sent counted as dropped (default: 10000)")
  int maxAlertEvents = AlertSettings.DEFAULTS.maxEventsPerAlert();

  @Option(
      names = "--public-url",
      paramLabel = "URL",
      description =
          "the service's address as people reach it (https://spyglass.example.com), for the"
              + " links in alerts (Alertmanager's generatorURL); default: links relative to it")
  String publicUrl;

  AlertSettings alertSettings() {
    return new AlertSettings(maxAlertsPerUser, maxAlertEvents, publicUrl);
  }

  EdgeSettings edgeSettings() {
    return EdgeSettings.DEFAULTS
        .withMaxConnections(maxConnections == null ? 0 : maxConnections)
        .withMaxConnectionsPerAddress(maxConnectionsPerAddress)
        .withMaxStreamsPerUser(maxStreamsPerUser)
        .withBody(
            OptionValues.duration("--request-body-timeout", requestBodyTimeout),
            OptionValues.rate(minRequestBodyRate))
        .withMaxAuthFailuresPerMinute(maxAuthFailuresPerMinute)
        .withAllowed(allowedHosts, allowedOrigins)
        .withMetricsWithoutToken(metricsWithoutToken);
  }

  EdgeGuards edgeGuards() {
    long all =
        maxRequestBodyMemory == null
            ? EdgeGuards.DEFAULTS.maxBodyMemory()
            : OptionValues.parseBytes(maxRequestBodyMemory);
    long perUser =
        maxRequestBodyMemoryPerUser == null
            ? EdgeGuards.perUser(all)
            : OptionValues.parseBytes(maxRequestBodyMemoryPerUser);
    return EdgeGuards.DEFAULTS
        .withTrustedProxies(trustedProxies)
        .withBodyMemory(all, perUser)
        .withMaxThreads(maxThreads == null ? EdgeGuards.DEFAULT_MAX_THREADS : maxThreads);
  }

  /**
   * The source {@code serve} reads for {@code spec}: the generator without a {@code rate} is paced
   * to {@value #SERVE_GEN_RATE} records/s (a demo server that nobody queries then idles; {@code
   * gen?rate=0} is as fast as it goes), any other spec as given.
   */
  static String paced(String spec) {
    if (!spec.equals("gen") && !spec.startsWith("gen?")) {
      return spec;
    }
    int q = spec.indexOf('?');
    if (q >= 0) {
      for (String param : spec.substring(q + 1).split("&")) {
        if (param.startsWith("rate=")) {
          return spec;
        }
      }
    }
    return spec + (q >= 0 ? "&" : "?") + "rate=" + SERVE_GEN_RATE;
  }

  /** The result memory's limits from the flags given (null: not given) and the heap. */
  static ResultLimits resultLimits(String all, String perUser, String size) {
    ResultLimits base =
        all == null
            ? ResultLimits.defaults()
            : ResultLimits.forBudget(OptionValues.parseBytes(all));
    long user = perUser == null ? base.maxBytesPerUser() : OptionValues.parseBytes(perUser);
    long one =
        size == null
            ? Math.min(ResultLimits.DEFAULT_RESULT_BYTES, user)
            : OptionValues.parseBytes(size);
    return new ResultLimits(base.maxBytes(), user, one);
  }
}
