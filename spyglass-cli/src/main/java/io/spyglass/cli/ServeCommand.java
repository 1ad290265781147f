package io.spyglass.cli;

import io.spyglass.core.SpyglassClock;
import io.spyglass.engine.EngineConfig;
import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.service.MeteringStart;
import io.spyglass.service.ServiceConfig;
import io.spyglass.service.SpyglassService;
import io.spyglass.service.UsageLimits;
import io.spyglass.service.alerts.AlertSettings;
import io.spyglass.service.http.EdgeGuards;
import io.spyglass.service.http.EdgeSettings;
import io.spyglass.service.http.Listening;
import io.spyglass.service.http.TlsFiles;
import io.spyglass.service.metering.Metering;
import io.spyglass.service.metering.RecoveryOptions;
import io.spyglass.service.query.ResultLimits;
import io.spyglass.service.runtime.EmbeddedRuntime;
import io.spyglass.service.runtime.FlinkRuntime;
import io.spyglass.sinks.SinkSettings;
import io.spyglass.sources.Source;
import io.spyglass.sources.Sources;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;

@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Serve the stream over HTTP: many people and programs submit queries and stream their"
          + " results (Server-Sent Events, WebSocket). See docs/api.md.",
      "Ctrl-C (or SIGTERM) ends every query with its final result, closes the streams and exits"
          + " 0."
    },
    footer = {
      "",
      "Sources: " + Sources.FORMS,
      "",
      "Examples:",
      "  ./spyglass serve --source gen          # paced to 10,000 records/s; gen?rate=0 for all it can",
      "  ./spyglass serve --source 'gen?rate=10000' --port 9090 --data /var/lib/spyglass",
      "  ./spyglass serve --bind 0.0.0.0 --tokens tokens.txt   # lines: TOKEN USER [ROLE...]",
      "  ./spyglass serve --source http --data /var/lib/spyglass   # POST /api/ingest; docs/metering.md",
      "  ./spyglass serve --runtime flink --source http --data /var/lib/spyglass  # standing: Flink",
      "  ./spyglass serve --runtime flink --kafka k1:9092 --source http --data /var/lib/spyglass",
      "  ./spyglass serve --config /etc/spyglass/spyglass.yaml     # every option; docs/operations.md",
      "  ./spyglass serve --tls-cert fullchain.pem --tls-key privkey.pem --bind 0.0.0.0 --tokens t.txt",
      "  ./spyglass serve --sink-allow hooks.example.com --sink-dir /var/lib/spyglass/sinks   # sinks"
    })
final class ServeCommand implements Callable<Integer> {
  @CommandLine.Mixin ServeOptions o;

  // where users' queries may deliver their results besides their streams (docs/sinks.md)
  @CommandLine.Mixin SinkOptions sinkOptions;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** Where {@code SPYGLASS_*} variables are read: the process's environment, or a test's. */
  Map<String, String> env = System.getenv();

  /** The command's time, and that of everything it starts: the machine's clocks but in tests. */
  SpyglassClock clock = SpyglassClock.system();

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    ServeConfiguration effective;
    ServiceConfig config;
    Map<String, Object> kafkaProperties;
    Metering.Settings metering = null;
    String other = null;
    try {
      // the file and SPYGLASS_* variables fill in what the flags did not give, each value checked
      // and named by where it came from
      effective = ServeConfiguration.resolve(spec, env);
      kafkaProperties = KafkaProperties.of(o.kafkaProperties);
      List<String> given = o.sources.isEmpty() ? List.of("gen") : o.sources;
      if (given.size() > 2 || given.size() == 2 && !given.contains("http")) {
        throw new IllegalArgumentException(
            "--source is given once, or twice with one of them 'http' (e.g. --source"
                + " kafka:... --source http)");
      }
      for (String g : given) {
        if (!g.equals("http")) {
          other = ServeOptions.paced(g);
        }
      }
      if (given.contains("http")) {
        long horizonMs = OptionValues.duration("--id-horizon", o.idHorizon);
        metering =
            new Metering.Settings(
                o.idField,
                Ingestor.Options.DEFAULTS
                    .withBacklogBytes(OptionValues.parseBytes(o.ingestBacklog))
                    .withHorizonMs(horizonMs),
                OptionValues.positiveDuration("--checkpoint-every", o.checkpointEvery),
                o.database);
      }
      if (!o.runtime.equals("embedded") && !o.runtime.equals("flink")) {
        throw new IllegalArgumentException(
            "--runtime " + o.runtime + " is not a runtime: give embedded or flink");
      }
      // --runtime flink --source http: the standing queries on the job in this process, over the
      // ingest log's files; the other queries on the embedded engine over the same documents.
      // With --kafka: the documents to the job's records topic, every query on the job there.
      boolean meteringJob = o.runtime.equals("flink") && metering != null;
      if (meteringJob && other != null) {
        throw new IllegalArgumentException(
            o.kafka == null
                ? "--runtime flink --source http reads the ingest log only: give no other --source"
                : "--runtime flink --kafka --source http: the job reads its records topic only;"
                    + " give no other --source");
      }
      if (o.runtime.equals("flink") && o.kafka == null && !meteringJob) {
        throw new IllegalArgumentException(
            "--runtime flink needs --kafka HOST:PORT, the Kafka of the Spyglass job");
      }
      if (o.runtime.equals("flink") && effective.given("--source") && !meteringJob) {
        throw new IllegalArgumentException(
            "--source does not go with --runtime flink: the job reads its own records topic");
      }
      if ((o.tlsCert == null) != (o.tlsKey == null)) {
        throw new IllegalArgumentException(
            "HTTPS needs both --tls-cert (the certificate chain) and --tls-key (its private key)");
      }
      long graceMs = OptionValues.duration("--grace", o.grace);
      long keepMs = OptionValues.positiveDuration("--keep", o.keep);
      long maxForeverMs = OptionValues.duration("--max-query-duration", o.maxQueryDuration);
      EdgeSettings edge = o.edgeSettings();
      ResultLimits results =
          ServeOptions.resultLimits(o.maxResultMemory, o.maxResultMemoryPerUser, o.maxResultSize);
      UsageLimits usage = o.usageLimits();
      EdgeGuards guards = o.edgeGuards();
      SinkSettings sinks = sinkOptions.settings(o.runtime.equals("flink") ? o.kafka : null);
      AlertSettings alerts = o.alertSettings();
      config =
          ServiceConfig.defaults()
              .with(
                  b -> {
                    b.bind = o.bind;
                    b.port = o.port;
                    b.tokensFile = o.tokens;
                    b.insecure = o.insecure;
                    b.dataDir = o.data;
                    b.maxQueries = o.maxQueries;
                    b.maxQueriesPerUser = o.maxQueriesPerUser;
                    b.graceMs = graceMs;
                    b.keepMs = keepMs;
                    b.edge = edge;
                    b.results = results;
                    b.recovery = new RecoveryOptions(o.resetStandingQueries, o.acceptMissingIds);
                    b.usage = usage;
                    b.guards = guards;
                    b.maxForeverMs = maxForeverMs;
                    b.auditLog = o.auditLog;
                    b.tls = o.tlsCert == null ? null : new TlsFiles(o.tlsCert, o.tlsKey);
                    b.sinks = sinks;
                    b.alerts = alerts;
                  });
    } catch (IllegalArgumentException | IOException e) {
      err.println("spyglass: " + e.getMessage());
      err.flush();
      return 1;
    }
    SpyglassService service;
    Listening listening = null;
    try {
      // the port first: when it is taken, nothing else starts (no engine, no standing query)
      listening = SpyglassService.bind(config);
      if (o.runtime.equals("flink") && metering == null) {
        String name = instanceName();
        err.println("spyglass: connecting to the Spyglass job's Kafka at " + o.kafka + " ...");
        err.flush();
        service =
            SpyglassService.start(
                config,
                listening,
                FlinkRuntime.connect(
                    o.kafka, name, o.queryTopic, o.statusTopic, kafkaProperties, clock),
                null);
      } else {
        Source src =
            other == null
                ? null
                : Sources.open(other, new Sources.SourceOptions(null, kafkaProperties));
        EngineConfig engine = EngineConfig.defaults().withMaxQueries(o.maxQueries + 64);
        if (o.workers != null) {
          engine = engine.withWorkers(o.workers);
        }
        if (metering != null && o.runtime.equals("flink") && o.kafka != null) {
          service =
              MeteringOnKafka.start(
                  config,
                  listening,
                  engine,
                  metering,
                  o,
                  instanceName(),
                  kafkaProperties,
                  clock,
                  err);
        } else if (metering != null) {
          service =
              SpyglassService.startMetering(
                  config,
                  MeteringStart.of(metering)
                      .withListening(listening)
                      .withOther(src)
                      .withEngine(engine)
                      .withClock(clock)
                      .withJob(
                          o.runtime.equals("flink")
                              ? MeteringJob.starter(io.spyglass.flink.MeteringRun.Settings.DEFAULTS)
                              : null));
        } else {
          service =
              SpyglassService.start(config, listening, EmbeddedRuntime.start(src, engine), null);
        }
      }
    } catch (IOException | RuntimeException | InterruptedException e) {
      closeQuietly(listening);
      err.println("spyglass: cannot serve: " + e.getMessage());
      err.flush();
      return 1;
    }
    // once it serves: a start that fails says only why, in one line
    effective.print(out);
    out.println("Spyglass is serving " + service.url());
    out.println("  runtime: " + service.runtime().describe());
    out.println("  data:    " + o.data.toAbsolutePath().normalize());
    out.println("  audit:   " + config.auditLogPath().toAbsolutePath().normalize());
    if (service.metering() != null) {
      out.println(
          "  ingest:  POST "
              + service.url()
              + "api/ingest (id field "
              + o.idField
              + "); standing queries in "
              + service.metering().store().where());
    }
    if (service.requiresTokens()) {
      out.println(
          "  tokens:  "
              + o.tokens
              + " (every /api route needs one; /api/health answers only its status without)");
    } else if (o.insecure && !o.bind.startsWith("127.") && !o.bind.equals("localhost")) {
      out.println("  no --tokens and --insecure: anyone who reaches " + o.bind + " is in");
    } else {
      out.println(
          "  no --tokens: listening on loopback only, for this machine's users; give --tokens"
              + " FILE to serve others");
    }
    out.println("Ctrl-C ends every query with its final result and stops.");
    out.flush();

    CountDownLatch stopped = new CountDownLatch(1);
    Runnable stop =
        () -> {
          service.shutdown(10_000);
          stopped.countDown();
        };
    if (!onSignals(stop)) {
      // no signal handlers on this JVM: stop from a shutdown hook (the exit code is then the JVM's)
      Runtime.getRuntime().addShutdownHook(new Thread(stop, "spyglass-stop"));
    }
    stopped.await();
    out.println("Spyglass stopped.");
    out.flush();
    return 0;
  }

  /** This instance's name among those sharing the job: --instance, or HOST-PORT. */
  private String instanceName() {
    // a port of 0 is any free one: the process id tells instances apart then
    return o.instance != null
        ? o.instance
        : hostName() + "-" + (o.port != 0 ? o.port : ProcessHandle.current().pid());
  }

  private static void closeQuietly(Listening listening) {
    if (listening != null) {
      try {
        listening.close();
      } catch (IOException e) {
        // the port is freed when the process ends
      }
    }
  }

  private static String hostName() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName().replaceAll("[^A-Za-z0-9._-]", "-");
    } catch (java.net.UnknownHostException e) {
      return "spyglass";
    }
  }

  /**
   * Runs {@code stop} on a thread of its own at SIGINT or SIGTERM instead of exiting at once, so
   * that queries end with their final results and the command returns 0. Uses {@code
   * sun.misc.Signal} through reflection (it is not a standard API); false when it is not there.
   */
  private static boolean onSignals(Runnable stop) {
    try {
      Class<?> signal = Class.forName("sun.misc.Signal");
      Class<?> handler = Class.forName("sun.misc.SignalHandler");
      Object h =
          Proxy.newProxyInstance(
              ServeCommand.class.getClassLoader(),
              new Class<?>[] {handler},
              (proxy, method, args) -> {
                if (method.getName().equals("handle")) {
                  Thread t = new Thread(stop, "spyglass-stop");
                  t.start();
                  return null;
                }
                return method.getName().equals("hashCode")
                    ? System.identityHashCode(proxy)
                    : method.getName().equals("equals") ? proxy == args[0] : "signal handler";
              });
      for (String name : new String[] {"INT", "TERM"}) {
        Object s = signal.getConstructor(String.class).newInstance(name);
        signal.getMethod("handle", signal, handler).invoke(null, s, h);
      }
      return true;
    } catch (ClassNotFoundException
        | NoSuchMethodException
        | InstantiationException
        | IllegalAccessException
        | InvocationTargetException e) {
      return false;
    }
  }
}
