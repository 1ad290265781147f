package io.spyglass.dist;

import static org.assertj.core.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs commands as separate processes and collects what they print. Every wait is bounded (a loaded
 * machine starts a JVM slowly, hence the generous bound); a process still running at the end of its
 * time is destroyed and the test fails.
 */
final class Commands {
  static final long TIMEOUT_S = 180;

  private Commands() {}

  /** What a finished process printed. */
  record Run(int exitCode, String stdout, String stderr) {
    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
    }
  }

  /** Runs {@code pb} to its end, standard input closed. */
  static Run run(ProcessBuilder pb) throws IOException, InterruptedException {
    return run(pb, TIMEOUT_S);
  }

  /** Runs {@code pb} to its end, within {@code timeoutS} seconds. */
  static Run run(ProcessBuilder pb, long timeoutS) throws IOException, InterruptedException {
    try (Server p = start(pb)) {
      if (!p.process.waitFor(timeoutS, TimeUnit.SECONDS)) {
        fail("still running after " + timeoutS + " s: " + pb.command() + "\n" + p.output());
      }
      return p.output();
    }
  }

  /** Starts {@code pb}, standard input closed, its output collected as it comes. */
  static Server start(ProcessBuilder pb) throws IOException {
    pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    return new Server(pb.start());
  }

  /** A running process: wait for a line it prints, stop it with SIGTERM. */
  static final class Server implements AutoCloseable {
    final Process process;
    private final List<String> out = new CopyOnWriteArrayList<>();
    private final List<String> err = new CopyOnWriteArrayList<>();
    private final Thread outReader;
    private final Thread errReader;

    Server(Process process) {
      this.process = process;
      this.outReader = reader(process.getInputStream(), out);
      this.errReader = reader(process.getErrorStream(), err);
    }

    private static Thread reader(InputStream in, List<String> lines) {
      Thread t =
          new Thread(
              () -> {
                try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                  for (String line = r.readLine(); line != null; line = r.readLine()) {
                    lines.add(line);
                    synchronized (lines) {
                      lines.notifyAll();
                    }
                  }
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                } finally {
                  synchronized (lines) {
                    lines.notifyAll();
                  }
                }
              });
      t.setDaemon(true);
      t.start();
      return t;
    }

    /** The first line on stdout that {@code pattern} finds something in. */
    Matcher awaitLine(Pattern pattern) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
      synchronized (out) {
        while (true) {
          for (String line : out) {
            Matcher m = pattern.matcher(line);
            if (m.find()) {
              return m;
            }
          }
          long left = deadline - System.nanoTime();
          if (!process.isAlive() && !outReader.isAlive()) {
            fail("ended without printing " + pattern + ":\n" + output());
          }
          if (left <= 0) {
            fail("no line " + pattern + " within " + TIMEOUT_S + " s:\n" + output());
          }
          out.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.min(left, 1_000_000_000L))));
        }
      }
    }

    /** SIGTERM, then what it printed until it ended. */
    Run stop() throws InterruptedException {
      process.destroy();
      return awaitEnd();
    }

    /** What it printed until it ended. */
    Run awaitEnd() throws InterruptedException {
      if (!process.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
        fail("did not end within " + TIMEOUT_S + " s:\n" + output());
      }
      return output();
    }

    /** What it printed so far (all of it once it ended), and its exit code (-1 while running). */
    Run output() throws InterruptedException {
      if (!process.isAlive()) {
        outReader.join(TimeUnit.SECONDS.toMillis(10));
        errReader.join(TimeUnit.SECONDS.toMillis(10));
      }
      return new Run(
          process.isAlive() ? -1 : process.exitValue(),
          String.join("\n", out) + (out.isEmpty() ? "" : "\n"),
          String.join("\n", err) + (err.isEmpty() ? "" : "\n"));
    }

    @Override
    public void close() {
      if (process.isAlive()) {
        process.destroyForcibly();
        try {
          process.waitFor(TIMEOUT_S, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }
}
