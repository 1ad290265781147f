package io.spyglass.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release archive as an operator gets it: unpacked in a fresh folder, run with nothing but a
 * Java runtime (no Maven, no npm, no source tree: the commands on the PATH are the few the launcher
 * needs), it serves, answers a query and stops on SIGTERM.
 */
class ArchiveIT {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern SERVING = Pattern.compile("Spyglass is serving (http://\\S+/)");

  @TempDir static Path dir;
  static Path home;

  @BeforeAll
  static void unpackTheRelease() throws Exception {
    home = unpack("opt");
  }

  /**
   * The release archive unpacked with tar in a fresh folder {@code folder} under the test's own:
   * the release's folder in it.
   */
  static Path unpack(String folder) throws Exception {
    Path archive = Path.of(System.getProperty("spyglass.archive"));
    assertThat(archive).as("the release archive; run mvn package").exists();
    Path unpacked = Files.createDirectories(dir.resolve(folder));
    Commands.Run tar =
        Commands.run(
            new ProcessBuilder("tar", "-xzf", archive.toString(), "-C", unpacked.toString()));
    assertThat(tar.exitCode()).as(tar.toString()).isZero();
    return unpacked.resolve(System.getProperty("spyglass.release"));
  }

  @Test
  void holdsTheCommandTheConfigurationAndTheLegalFiles() throws Exception {
    for (String command : List.of("bin/spyglass", "bin/spyglass-cds")) {
      assertThat(Files.getPosixFilePermissions(home.resolve(command)))
          .as(command)
          .contains(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OTHERS_EXECUTE);
    }
    for (String f :
        List.of(
            "lib/spyglass.jar",
            "conf/spyglass.yaml",
            "LICENSE",
            "NOTICE",
            "THIRD-PARTY.txt",
            "sbom.cdx.json",
            "README.md")) {
      assertThat(home.resolve(f)).as(f).isRegularFile();
    }

    String version = System.getProperty("spyglass.version");
    try (ZipFile ui = new ZipFile(home.resolve("lib/spyglass-ui-" + version + ".jar").toFile())) {
      assertThat(ui.getEntry("spyglass-ui/index.html")).as("the web UI inside").isNotNull();
    }
    // java -jar lib/spyglass.jar: its manifest names every jar beside it, and only those
    List<String> classPath;
    try (JarFile launcherJar = new JarFile(home.resolve("lib/spyglass.jar").toFile())) {
      Attributes main = launcherJar.getManifest().getMainAttributes();
      assertThat(main.getValue("Main-Class")).isEqualTo("io.spyglass.cli.SpyglassCommand");
      classPath = List.of(main.getValue("Class-Path").split(" "));
    }
    try (Stream<Path> jars = Files.list(home.resolve("lib"))) {
      assertThat(
              jars.map(p -> p.getFileName().toString())
                  .filter(n -> n.endsWith(".jar") && !n.equals("spyglass.jar")))
          .containsExactlyInAnyOrderElementsOf(classPath);
    }
    assertThat(classPath.indexOf("spyglass-core-" + version + ".jar"))
        .as("spyglass-core (DataSketches 9 for Java 25) before DataSketches 6")
        .isLessThan(
            classPath.stream()
                .filter(j -> j.startsWith("datasketches-java-"))
                .findFirst()
                .map(classPath::indexOf)
                .orElseThrow());
    assertThat(Files.readString(home.resolve("LICENSE"))).contains("Apache License");

    // the bundled artifacts' notices, each text once
    String notice = Files.readString(home.resolve("NOTICE"));
    assertThat(notice)
        .startsWith("Spyglass " + version)
        .contains("org.apache.flink:flink-core:")
        .contains("Apache Flink")
        .contains("org.apache.kafka:kafka-clients:")
        .contains("com.fasterxml.jackson.core:jackson-databind:");
    // sections: the project's notice, then (the artifacts, their notice) pairs
    String[] sections = notice.split("\n={78}\n");
    Set<String> texts = new java.util.HashSet<>();
    for (int i = 2; i < sections.length; i += 2) {
      assertThat(texts.add(sections[i].strip())).as("a notice twice: " + sections[i]).isTrue();
    }
    assertThat(texts.size()).isGreaterThan(10);

    // every bundled component with its licence: Maven's from their POMs, the web UI's npm
    // packages, DataSketches 9 (inside spyglass-core for Java 25)
    String thirdParty = Files.readString(home.resolve("THIRD-PARTY.txt"));
    assertThat(thirdParty)
        .contains("  com.fasterxml.jackson.core:jackson-databind 2.")
        .contains("  org.eclipse.jetty:jetty-server 12.")
        .containsPattern("  preact \\S+: MIT")
        .containsPattern("  @codemirror/view \\S+: MIT")
        .containsPattern("  org.apache.datasketches:datasketches-java 9\\S*: Apache-2.0")
        .doesNotContain("(none declared)");
    // every third-party jar in lib/ is listed: "  group:artifact version: licences"
    Set<String> listed = new java.util.HashSet<>();
    Matcher line = Pattern.compile("(?m)^  [^ :]+:(\\S+) (\\S+): ").matcher(thirdParty);
    while (line.find()) {
      listed.add(line.group(1) + "-" + line.group(2) + ".jar");
    }
    assertThat(listed)
        .containsAll(classPath.stream().filter(j -> !j.startsWith("spyglass-")).toList());
    assertThat(home.resolve("licenses/npm/preact")).isDirectoryContaining("glob:**/LICENSE*");
    assertThat(home.resolve("licenses/org.postgresql/postgresql")).isNotEmptyDirectory();

    JsonNode sbom = JSON.readTree(home.resolve("sbom.cdx.json").toFile());
    assertThat(sbom.path("bomFormat").asText()).isEqualTo("CycloneDX");
    List<String> purls = new ArrayList<>();
    for (JsonNode c : sbom.path("components")) {
      purls.add(c.path("purl").asText());
      assertThat(c.path("licenses")).as(c.path("purl").asText() + " has a licence").isNotEmpty();
    }
    assertThat(purls)
        .anyMatch(p -> p.startsWith("pkg:maven/com.fasterxml.jackson.core/jackson-databind@"))
        .anyMatch(p -> p.startsWith("pkg:npm/preact@"))
        .anyMatch(p -> p.startsWith("pkg:maven/org.apache.datasketches/datasketches-java@9"));
  }

  @Test
  void servesAndAnswersWithJavaAloneBesideIt() throws Exception {
    Map<String, String> env = env(tools("no-java"), System.getProperty("java.home"));
    assertThat(env.get("PATH")).doesNotContain("/usr/bin");
    List<String> config = new ArrayList<>();
    Commands.Run help =
        Commands.run(pb(dir, env, home.resolve("bin/spyglass").toString(), "serve", "--help"));
    if (help.stdout().contains("--config")) {
      // the example configuration, with a free port and a data folder of the test's own
      config.addAll(List.of("--config", home.resolve("conf/spyglass.yaml").toString()));
    }
    Served served =
        serveAndQuery("java17", env, config, "SELECT COUNT(*) AS n FROM STREAM(500, TIME)");
    assertThat(served.answer().at("/records/0/n").asLong()).isPositive();
  }

  @Test
  void loadsSqlitesNativeLibraryFromTheReleaseInsteadOfExtractingIt() throws Exception {
    for (String arch : List.of("x86_64", "aarch64")) {
      assertThat(home.resolve("lib/sqlite/Linux/" + arch + "/libsqlitejdbc.so")).isNotEmptyFile();
    }
    org.junit.jupiter.api.Assumptions.assumeTrue(
        System.getProperty("os.name").equals("Linux")
            && List.of("amd64", "aarch64").contains(System.getProperty("os.arch"))
            && !Files.exists(Path.of("/lib/ld-musl-x86_64.so.1")),
        "SQLite is shipped for Linux with glibc on x86_64 and aarch64");
    // sqlite-jdbc extracts its library into the temporary folder (and removes it at exit) when it
    // does not load the release's: that folder stays empty while it serves
    Path tmp = Files.createDirectories(dir.resolve("tmp-sqlite"));
    Map<String, String> env = env(tools("sqlite"), System.getProperty("java.home"));
    env.put("SPYGLASS_JAVA_OPTS", "-Djava.io.tmpdir=" + tmp);
    env.put("SPYGLASS_CDS", "off");
    try (Commands.Server server = serve(home, "sqlite", env)) {
      URI base = base(server);
      HttpResponse<String> saved =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(base.resolve("api/saved")).build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(saved.statusCode()).as("the database answers: " + saved.body()).isEqualTo(200);
      try (Stream<Path> left = Files.list(tmp)) {
        assertThat(left.map(p -> p.getFileName().toString()))
            .noneMatch(n -> n.startsWith("sqlite-"));
      }
      Commands.Run stopped = server.stop();
      assertThat(stopped.exitCode()).as(stopped.toString()).isZero();
      assertQuiet(stopped.stdout() + stopped.stderr());
    }
  }

  @Test
  void servesOnJava25WithItsSketchesAndWithoutAWarning() throws Exception {
    Path jdk25 = Path.of(System.getProperty("jdk25.home"));
    Assumptions.assumeTrue(
        Files.isExecutable(jdk25.resolve("bin/java")), "no JDK 25 at " + jdk25 + " (-Djdk25.home)");
    // DataSketches 6 refuses Java 25: a COUNT DISTINCT answers only with DataSketches 9 loaded
    Served served =
        serveAndQuery(
            "java25",
            env(tools("java25"), jdk25.toString()),
            List.of(),
            "SELECT COUNT(DISTINCT ip_address) AS u FROM STREAM(500, TIME)");
    assertThat(served.answer().at("/records/0/u").asDouble()).isPositive();
    assertThat(served.stopped().stderr()).doesNotContain("WARNING");
    // the release's class-data archive is the build's Java's (17): Java 25 ignores it quietly
    assertQuiet(served.stopped().stdout());
  }

  record Served(JsonNode answer, Commands.Run stopped) {}

  /**
   * {@code bin/spyglass serve} of {@code release} with {@code options}, on a free port, from a
   * fresh working folder {@code serve-NAME} holding its data folder.
   */
  private static Commands.Server serve(
      Path release, String name, Map<String, String> env, String... options) throws IOException {
    Path work = Files.createDirectories(dir.resolve("serve-" + name));
    List<String> cmd =
        new ArrayList<>(List.of(release.resolve("bin/spyglass").toString(), "serve"));
    cmd.addAll(List.of(options));
    cmd.addAll(List.of("--port", "0", "--data", work.resolve("data").toString()));
    return Commands.start(pb(work, env, cmd.toArray(String[]::new)));
  }

  /** The URL {@code server} says it serves on. */
  private static URI base(Commands.Server server) throws InterruptedException {
    return URI.create(server.awaitLine(SERVING).group(1));
  }

  /**
   * bin/spyglass serve on a free port from a fresh working folder: its health, its web UI, one
   * query's answer (the last result of POST /api/query), and a stop with SIGTERM that exits 0.
   */
  private static Served serveAndQuery(
      String name, Map<String, String> env, List<String> options, String query) throws Exception {
    try (Commands.Server server = serve(home, name, env, options.toArray(String[]::new))) {
      URI base = base(server);
      HttpClient http = HttpClient.newHttpClient();

      HttpResponse<String> health =
          http.send(
              HttpRequest.newBuilder(base.resolve("api/health")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
      assertThat(JSON.readTree(health.body()).path("status").asText()).isEqualTo("UP");

      HttpResponse<String> ui =
          http.send(HttpRequest.newBuilder(base).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(ui.statusCode()).isEqualTo(200);
      assertThat(ui.body()).contains("<html");

      HttpResponse<String> answer = query(http, base, query);
      JsonNode results = JSON.readTree(answer.body());
      assertThat(results).as(answer.body()).isNotEmpty();

      Commands.Run stopped = server.stop();
      assertThat(stopped.exitCode()).as(stopped.toString()).isZero();
      return new Served(results.get(results.size() - 1), stopped);
    }
  }

  /** POST /api/query of {@code query} to the service at {@code base}: its answer, a 200. */
  private static HttpResponse<String> query(HttpClient http, URI base, String query)
      throws Exception {
    String body = JSON.writeValueAsString(Map.of("query", query));
    HttpResponse<String> answer =
        http.send(
            HttpRequest.newBuilder(base.resolve("api/query"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    return answer;
  }

  @Test
  void holdsTheFlinkJobWhoseMainClassRunsBesideFlink() throws Exception {
    Path job = home.resolve("jobs/spyglass-flink-job.jar");
    assertThat(job).as("the Flink job for flink run").isRegularFile();
    try (JarFile jar = new JarFile(job.toFile())) {
      assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
          .isEqualTo("io.spyglass.flink.SpyglassJob");
      assertThat(jar.getEntry("io/spyglass/flink/SpyglassJob.class")).isNotNull();
      assertThat(jar.getEntry("org/apache/flink/connector/kafka/source/KafkaSource.class"))
          .as("the Kafka connector inside")
          .isNotNull();
      assertThat(
              jar.getEntry(
                  "org/apache/flink/streaming/api/environment/StreamExecutionEnvironment.class"))
          .as("Flink itself is the cluster's")
          .isNull();
    }
    // its main class, with Flink on the class path as a cluster has it (lib/ holds Flink for
    // query --runtime flink): it loads, runs and says what it needs
    Commands.Run run =
        Commands.run(
            pb(
                dir,
                env(tools("job"), null),
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                job + ":" + home.resolve("lib") + "/*",
                "io.spyglass.flink.SpyglassJob"));
    assertThat(run.exitCode()).as(run.toString()).isNotZero();
    assertThat(run.stderr())
        .as(run.toString())
        .contains("Give the Kafka bootstrap servers: --spyglass.kafka HOST:PORT")
        .doesNotContain("ClassNotFoundException")
        .doesNotContain("NoClassDefFoundError");
    // what it bundles is listed with its licences
    String thirdParty = Files.readString(home.resolve("THIRD-PARTY.txt"));
    int section = thirdParty.indexOf("jobs/spyglass-flink-job.jar (the Flink job");
    assertThat(section).as("THIRD-PARTY.txt has the job's section").isNotNegative();
    String listed = thirdParty.substring(section);
    assertThat(listed)
        .contains("  org.apache.flink:flink-connector-kafka ")
        .contains("  org.apache.kafka:kafka-clients ")
        .doesNotContain("(none declared)");
    // in the versions the job's build resolved (its kafka-clients is not lib/'s), each once
    assertThat(listed)
        .contains(
            "  org.apache.kafka:kafka-clients "
                + System.getProperty("spyglass.job.kafka-clients")
                + ": ");
    Matcher artifact = Pattern.compile("(?m)^  [^ :]+:(\\S+) \\S+: ").matcher(listed);
    Set<String> once = new java.util.HashSet<>();
    while (artifact.find()) {
      assertThat(once.add(artifact.group(1))).as("listed twice: " + artifact.group(1)).isTrue();
    }
    assertThat(once).hasSizeGreaterThan(5);
  }

  @Test
  void carriesNoBenchmarkAndSaysWhereTheyAre() throws Exception {
    // spyglass bench is a jar of its own, built from a checkout: none of it ships
    String thirdParty = Files.readString(home.resolve("THIRD-PARTY.txt"));
    assertThat(thirdParty)
        .doesNotContain("org.knowm.xchart:")
        .doesNotContain("org.hdrhistogram:")
        .doesNotContain("com.yahoo.bullet:");
    try (Stream<Path> jars = Files.list(home.resolve("lib"))) {
      assertThat(jars.map(p -> p.getFileName().toString()))
          .noneMatch(n -> n.startsWith("spyglass-scenarios-"))
          .noneMatch(n -> n.startsWith("spyglass-flink-bench-"))
          .noneMatch(n -> n.startsWith("spyglass-bullet"));
    }
    Commands.Run bench =
        Commands.run(
            pb(
                dir,
                env(tools("bench"), System.getProperty("java.home")),
                home.resolve("bin/spyglass").toString(),
                "bench",
                "flink",
                "--quick"));
    assertThat(bench.exitCode()).as(bench.toString()).isEqualTo(1);
    assertThat(bench.stderr())
        .as(bench.toString())
        .contains("the benchmarks are not in this jar")
        .contains("./spyglass bench")
        .contains("spyglass-bench.jar");
  }

  @Test
  void findsTheJavaOfThePathWithoutJavaHome() throws Exception {
    Path tools = tools("with-java");
    Files.createSymbolicLink(
        tools.resolve("java"), Path.of(System.getProperty("java.home"), "bin", "java"));
    // reached through a link elsewhere, as from /usr/local/bin
    Path link = Files.createSymbolicLink(tools.resolve("spyglass"), home.resolve("bin/spyglass"));
    Commands.Run version = Commands.run(pb(dir, env(tools, null), link.toString(), "--version"));
    assertThat(version.exitCode()).as(version.toString()).isZero();
    assertThat(version.stdout()).contains(System.getProperty("spyglass.version"));
  }

  /** What the JVM says where it loads the launcher's main class from a class-data archive. */
  private static final String MAPPED =
      "io.spyglass.cli.SpyglassCommand source: shared objects file (top)";

  /** Says nothing of class-data sharing: no warning, no error, no log line of the JVM's. */
  private static void assertQuiet(String output) {
    assertThat(output)
        .doesNotContain("[warning]")
        .doesNotContain("VM warning")
        .doesNotContain("[error]")
        .doesNotContain("[cds");
  }

  @Test
  void recordsItsClassDataArchiveInTheBackgroundWhenItsFirstServeHasStarted() throws Exception {
    // with bash (the machine's PATH): the first serve starts without recording anything in its
    // own JVM (which made that start slower); bin/spyglass-cds records it in a JVM of its own
    Path release = unpack("cds-bg");
    Path lib = release.resolve("lib");
    Map<String, String> env = env(dir, System.getProperty("java.home"));
    env.put("PATH", System.getenv("PATH"));
    env.put("TMPDIR", Files.createDirectories(dir.resolve("tmp-cds-bg")).toString());
    Commands.Run first = serveOnce(release, env, "first-start-bg");
    assertQuiet(first.stdout() + first.stderr());

    // it says what it did in lib/spyglass.jsa.log, then lets its lock go as it exits
    Path log = lib.resolve("spyglass.jsa.log");
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(3);
    while (!(Files.exists(log)
        && Files.readString(log).contains("spyglass-cds: wrote")
        && !Files.exists(lib.resolve("spyglass.jsa.lock")))) {
      assertThat(System.nanoTime()).as("lib/spyglass.jsa.log said nothing").isLessThan(deadline);
      Thread.sleep(200);
    }
    assertThat(Files.readString(log))
        .contains("spyglass-cds: wrote " + lib.resolve("spyglass.jsa"));
    assertThat(lib.resolve("spyglass.jsa")).isNotEmptyFile();
    assertThat(Files.readString(lib.resolve("spyglass.jsa.fits")))
        .startsWith(release.toRealPath() + " ");
    try (Stream<Path> left = Files.list(lib)) {
      assertThat(left.map(p -> p.getFileName().toString()))
          .as("no lock, no archive half written")
          .noneMatch(n -> n.endsWith(".lock") || n.contains(".new-"));
    }
    try (Stream<Path> left = Files.list(dir.resolve("tmp-cds-bg"))) {
      assertThat(left).as("its working folder removed").isEmpty();
    }
    assertThat(version(release, env, "-Xshare:on -Xlog:class+load=info").stdout()).contains(MAPPED);
  }

  @Test
  void writesItsClassDataArchiveAtItsFirstServeWhereItIsAndForItsJava() throws Exception {
    // a release of its own, and a system without bash (bin/spyglass needs only sh): the first
    // serve's JVM writes lib/spyglass.jsa as it stops
    Path release = unpack("cds/a");
    Path jsa = release.resolve("lib/spyglass.jsa");
    assertThat(jsa).as("none in the archive: it fits one folder and one Java").doesNotExist();
    Map<String, String> env = env(tools("cds"), System.getProperty("java.home"));
    Commands.Run first = serveOnce(release, env, "first-start");
    assertQuiet(first.stdout() + first.stderr());
    assertThat(jsa).isNotEmptyFile();
    assertThat(Files.readString(release.resolve("lib/spyglass.jsa.fits")))
        .startsWith(release.toRealPath() + " ");

    // the next start maps it (-Xshare:on: it fails where it cannot), quietly by default
    assertThat(version(release, env, "-Xshare:on -Xlog:class+load=info").stdout()).contains(MAPPED);
    Commands.Run quiet = version(release, env, null);
    assertThat(quiet.stderr()).as(quiet.toString()).isEmpty();
    assertQuiet(quiet.stdout());
    assertThat(version(release, env, "-Xshare:off -Xlog:class+load=info").stdout())
        .doesNotContain("shared objects file");
    env.put("SPYGLASS_CDS", "off");
    assertThat(version(release, env, "-Xlog:class+load=info").stdout())
        .doesNotContain("shared objects file (top)");
    env.remove("SPYGLASS_CDS");

    // moved elsewhere, it starts as without it (Java 17 checks the jars' paths), without a word;
    // bin/spyglass-cds writes it anew, here for Java 25 where there is one
    Path moved = Files.move(release.getParent(), dir.resolve("cds/b"));
    release = moved.resolve(release.getFileName());
    Commands.Run elsewhere = version(release, env, "-Xlog:class+load=info");
    assertThat(elsewhere.exitCode()).as(elsewhere.toString()).isZero();
    assertThat(elsewhere.stdout()).doesNotContain(MAPPED);
    assertQuiet(elsewhere.stdout());
    assertThat(elsewhere.stderr()).isEmpty();
    Path jdk25 = Path.of(System.getProperty("jdk25.home"));
    String javaHome =
        Files.isExecutable(jdk25.resolve("bin/java"))
            ? jdk25.toString()
            : System.getProperty("java.home");
    Map<String, String> other = env(dir, javaHome);
    other.put("PATH", System.getenv("PATH")); // bash and the utilities of the machine
    other.put("TMPDIR", Files.createDirectories(dir.resolve("tmp-cds")).toString());
    Commands.Run cds = Commands.run(pb(dir, other, release.resolve("bin/spyglass-cds").toString()));
    assertThat(cds.exitCode()).as(cds.toString()).isZero();
    assertThat(cds.stderr()).contains("spyglass-cds: wrote " + release.resolve("lib/spyglass.jsa"));
    try (Stream<Path> left = Files.list(dir.resolve("tmp-cds"))) {
      assertThat(left).as("its working folder removed").isEmpty();
    }
    Map<String, String> java = env(tools("cds-other"), javaHome);
    assertThat(version(release, java, "-Xshare:on -Xlog:class+load=info").stdout())
        .contains(MAPPED);

    // an archive that does not fit its Java (damaged here) is ignored without a word
    Files.writeString(release.resolve("lib/spyglass.jsa"), "not a class-data sharing archive");
    Commands.Run damaged = version(release, java, null);
    assertThat(damaged.exitCode()).as(damaged.toString()).isZero();
    assertThat(damaged.stderr()).isEmpty();
    assertQuiet(damaged.stdout());
  }

  /** bin/spyglass --version of {@code release}, with {@code javaOpts} (null: none). */
  private static Commands.Run version(Path release, Map<String, String> env, String javaOpts)
      throws Exception {
    Map<String, String> e = new java.util.HashMap<>(env);
    if (javaOpts != null) {
      e.put("SPYGLASS_JAVA_OPTS", javaOpts);
    }
    Commands.Run run =
        Commands.run(pb(dir, e, release.resolve("bin/spyglass").toString(), "--version"));
    assertThat(run.exitCode()).as(run.toString()).isZero();
    return run;
  }

  /** bin/spyglass serve of {@code release} on a free port, one query answered, SIGTERM. */
  private static Commands.Run serveOnce(Path release, Map<String, String> env, String name)
      throws Exception {
    try (Commands.Server server = serve(release, name, env)) {
      query(
          HttpClient.newHttpClient(),
          base(server),
          "SELECT COUNT(*) AS n FROM STREAM(10s, TIME) LIMIT 1");
      Commands.Run stopped = server.stop();
      assertThat(stopped.exitCode()).as(stopped.toString()).isZero();
      return stopped;
    }
  }

  @Test
  void ignoresAClassDataArchiveThatDoesNotFitItsJava() throws Exception {
    // one written by another Java, or for the folder elsewhere: any other JVM goes on without it
    Path jsa = home.resolve("lib/spyglass.jsa");
    Path fits = home.resolve("lib/spyglass.jsa.fits");
    Path kept = Files.exists(jsa) ? Files.move(jsa, dir.resolve("kept.jsa")) : null;
    Path keptFits = Files.exists(fits) ? Files.move(fits, dir.resolve("kept.jsa.fits")) : null;
    Files.writeString(jsa, "not a class-data sharing archive of this JVM");
    Files.writeString(fits, "/elsewhere /usr/lib/jvm/another 17.0.1\n");
    try {
      Commands.Run version =
          Commands.run(
              pb(
                  dir,
                  env(tools("jsa"), System.getProperty("java.home")),
                  home.resolve("bin/spyglass").toString(),
                  "--version"));
      assertThat(version.exitCode()).as(version.toString()).isZero();
      assertThat(version.stderr()).isEmpty();
      assertQuiet(version.stdout());
    } finally {
      Files.delete(jsa);
      Files.delete(fits);
      if (kept != null) {
        Files.move(kept, jsa);
      }
      if (keptFits != null) {
        Files.move(keptFits, fits);
      }
    }
  }

  @Test
  void saysWhichJavaItNeedsWhenThereIsNone() throws Exception {
    Commands.Run run =
        Commands.run(pb(dir, env(tools("none"), null), home.resolve("bin/spyglass").toString()));
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.stderr())
        .contains("no Java")
        .contains("Java 17 or later")
        .contains("JAVA_HOME")
        .contains("apt-get install openjdk-17-jre-headless");
  }

  @Test
  void refusesAJavaTooOldWithItsVersion() throws Exception {
    Path old = Files.createDirectories(dir.resolve("jdk-11/bin"));
    Files.writeString(old.getParent().resolve("release"), "JAVA_VERSION=\"11.0.24\"\n");
    Path java = old.resolve("java");
    Files.writeString(java, "#!/bin/sh\necho 'this Java must not run' >&2\nexit 7\n");
    Files.setPosixFilePermissions(
        java, Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_EXECUTE));
    Commands.Run run =
        Commands.run(
            pb(
                dir,
                env(tools("old"), old.getParent().toString()),
                home.resolve("bin/spyglass").toString(),
                "--version"));
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.stderr()).contains("is Java 11.0.24").contains("Java 17 or later");
  }

  /**
   * A folder with links to the only commands the launcher may use (a POSIX shell and three
   * utilities): the PATH of the runs, so that neither Maven, npm nor anything else of the build
   * machine is within reach.
   */
  private static Path tools(String name) throws IOException {
    Path tools = Files.createDirectories(dir.resolve("tools-" + name));
    for (String t : List.of("sh", "dirname", "readlink", "sed")) {
      Path real = Path.of("/bin", t).toRealPath();
      Files.createSymbolicLink(tools.resolve(t), real);
    }
    return tools;
  }

  private static Map<String, String> env(Path path, String javaHome) {
    java.util.HashMap<String, String> env = new java.util.HashMap<>();
    env.put("PATH", path.toString());
    env.put("HOME", dir.toString());
    env.put("LANG", "C.UTF-8");
    if (javaHome != null) {
      env.put("JAVA_HOME", javaHome);
    }
    return env;
  }

  private static ProcessBuilder pb(Path cwd, Map<String, String> env, String... cmd) {
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile());
    pb.environment().clear();
    pb.environment().putAll(env);
    return pb;
  }
}
