package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Runs the real {@code spyglass} command (the shaded jar) in its own JVM, the way {@code
 * ./spyglass} does, and collects what it prints. Every wait is bounded; a process still running at
 * the end of its time is destroyed and the test fails.
 */
final class Spyglass {
  static final ObjectMapper JSON = new ObjectMapper();
  static final long TIMEOUT_S = 30;

  private Spyglass() {}

  /** What a finished run printed. */
  record Run(int exitCode, String stdout, String stderr) {
    /** Every stdout line, each a JSON object. */
    List<JsonNode> json() {
      List<JsonNode> out = new ArrayList<>();
      for (String line : stdout.split("\n")) {
        if (!line.isEmpty()) {
          out.add(parse(line));
        }
      }
      return out;
    }

    /** The results of query {@code id}, in the order printed. */
    List<JsonNode> results(String id) {
      return json().stream().filter(r -> r.at("/meta/query/id").asText().equals(id)).toList();
    }

    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
    }
  }

  static JsonNode parse(String line) {
    try {
      return JSON.readTree(line);
    } catch (IOException e) {
      throw new AssertionError("not a JSON line on stdout: " + line, e);
    }
  }

  /** The command line that runs the jar with {@code args}. */
  static List<String> command(String... args) {
    List<String> cmd = new ArrayList<>(javaCommand());
    cmd.addAll(List.of(args));
    return cmd;
  }

  /** {@code java} and its flags up to and including {@code -jar spyglass.jar}. */
  static List<String> javaCommand() {
    return javaCommand(Path.of(System.getProperty("java.home"), "bin", "java"));
  }

  /** As {@link #javaCommand()}, with another {@code java}. */
  static List<String> javaCommand(Path java) {
    String jar = System.getProperty("spyglass.jar");
    assertThat(jar).as("system property spyglass.jar (set by failsafe)").isNotNull();
    assertThat(Path.of(jar)).as("the shaded jar; run mvn verify").exists();
    return List.of(
        java.toString(),
        // short runs: the quick compiler and a small heap start faster on a busy machine
        "-XX:TieredStopAtLevel=1",
        "-Xmx512m",
        "-jar",
        jar);
  }

  /** Runs the command to its end with {@code stdin} as its standard input (null: none). */
  static Run run(Path stdin, String... args) throws IOException, InterruptedException {
    return run(new ProcessBuilder(command(args)), stdin);
  }

  static Run run(String... args) throws IOException, InterruptedException {
    return run(null, args);
  }

  /** Runs a prepared process to its end, collecting stdout and stderr through files. */
  static Run run(ProcessBuilder pb, Path stdin) throws IOException, InterruptedException {
    return run(pb, stdin, TIMEOUT_S);
  }

  /** {@link #run(ProcessBuilder, Path)} with a time limit of its own (a Flink mini cluster). */
  static Run run(ProcessBuilder pb, Path stdin, long timeoutS)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile("spyglass-out", ".txt");
    Path err = Files.createTempFile("spyglass-err", ".txt");
    try {
      pb.redirectOutput(out.toFile()).redirectError(err.toFile());
      if (stdin != null) {
        pb.redirectInput(stdin.toFile());
      }
      Process p = pb.start();
      if (stdin == null) {
        p.getOutputStream().close();
      }
      if (!p.waitFor(timeoutS, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        fail(
            "still running after %d s: %s%n--- stdout%n%s--- stderr%n%s",
            timeoutS, pb.command(), Files.readString(out), Files.readString(err));
      }
      return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /** Starts the command and reads its stdout as it comes, for tests that act while it runs. */
  static Running start(String... args) throws IOException {
    return start(java.util.Map.of(), args);
  }

  /** As {@link #start(String...)}, with {@code env} added to the command's environment. */
  static Running start(java.util.Map<String, String> env, String... args) throws IOException {
    // A JVM started with SIGINT ignored (as background jobs of a non-interactive shell are) never
    // sees Ctrl-C; restore the default so that the command behaves as it does in a terminal.
    List<String> cmd = new ArrayList<>(List.of("env", "--default-signal=INT"));
    cmd.addAll(command(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().putAll(env);
    return new Running(pb.start());
  }

  /** A command that is still running; its stdout lines are collected by a reader thread. */
  static final class Running implements AutoCloseable {
    final Process process;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final StringBuffer stderr = new StringBuffer();
    private final Thread outReader;
    private final Thread errReader;

    Running(Process process) {
      this.process = process;
      this.outReader = reader(process, true);
      this.errReader = reader(process, false);
    }

    private Thread reader(Process p, boolean out) {
      Thread t =
          new Thread(
              () -> {
                try (BufferedReader r =
                    new BufferedReader(
                        new InputStreamReader(
                            out ? p.getInputStream() : p.getErrorStream(),
                            StandardCharsets.UTF_8))) {
                  String line;
                  while ((line = r.readLine()) != null) {
                    if (out) {
                      lines.add(line);
                    } else {
                      stderr.append(line).append('\n');
                    }
                  }
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              },
              out ? "spyglass-stdout" : "spyglass-stderr");
      t.setDaemon(true);
      t.start();
      return t;
    }

    /** Stdout lines so far, parsed. */
    List<JsonNode> results() {
      return lines.stream().map(Spyglass::parse).toList();
    }

    /** Polls stdout until a result satisfies {@code condition}, for at most the timeout. */
    JsonNode awaitResult(String what, Predicate<JsonNode> condition) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
      while (System.nanoTime() < deadline) {
        for (JsonNode r : results()) {
          if (condition.test(r)) {
            return r;
          }
        }
        if (!process.isAlive() && !outReader.isAlive()) {
          break;
        }
        Thread.sleep(20);
      }
      throw new AssertionError("no result: " + what + "\n" + this);
    }

    /** Polls stdout until a line satisfies {@code condition}, for at most the timeout. */
    String awaitLine(String what, Predicate<String> condition) throws InterruptedException {
      return awaitLine(what, condition, TIMEOUT_S);
    }

    /** Polls stdout until a line satisfies {@code condition}, for at most {@code timeoutS}. */
    String awaitLine(String what, Predicate<String> condition, long timeoutS)
        throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
      while (System.nanoTime() < deadline) {
        for (String line : lines) {
          if (condition.test(line)) {
            return line;
          }
        }
        if (!process.isAlive() && !outReader.isAlive()) {
          break;
        }
        Thread.sleep(20);
      }
      throw new AssertionError("no line: " + what + "\n" + this);
    }

    /** Sends SIGINT, as Ctrl-C does. */
    void interrupt() throws IOException, InterruptedException {
      signal("INT");
    }

    /** Sends SIGTERM, as a service manager does. */
    void terminate() throws IOException, InterruptedException {
      signal("TERM");
    }

    /** Sends SIGKILL: the process ends at once, with no chance to write anything. */
    void kill9() throws IOException, InterruptedException {
      signal("KILL");
      process.waitFor(TIMEOUT_S, TimeUnit.SECONDS);
    }

    private void signal(String name) throws IOException, InterruptedException {
      Process kill =
          new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
      assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThat(kill.exitValue()).isZero();
    }

    /** Waits for the end of the process and of its output; returns the exit code. */
    int awaitExit() throws InterruptedException {
      if (!process.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("still running after " + TIMEOUT_S + " s\n" + this);
      }
      outReader.join(5_000);
      errReader.join(5_000);
      return process.exitValue();
    }

    String stderr() {
      return stderr.toString();
    }

    @Override
    public void close() {
      if (process.isAlive()) {
        process.destroyForcibly();
      }
    }

    @Override
    public String toString() {
      return "--- stdout\n" + String.join("\n", lines) + "\n--- stderr\n" + stderr;
    }
  }
}
