package io.spyglass.scenarios;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/** The machine a benchmark runs on, printed above every report so numbers keep their context. */
final class Machine {
  private Machine() {}

  static int cores() {
    return Runtime.getRuntime().availableProcessors();
  }

  /** One line: cores and CPU model, physical memory, maximum heap, JVM and OS. */
  static String describe() {
    return String.format(
        "%d cores (%s), %s memory, %s max heap; %s %s (%s); %s %s %s",
        cores(),
        cpuModel(),
        gib(physicalMemory()),
        gib(Runtime.getRuntime().maxMemory()),
        System.getProperty("java.vm.name"),
        System.getProperty("java.runtime.version"),
        System.getProperty("java.vm.vendor"),
        System.getProperty("os.name"),
        System.getProperty("os.version"),
        System.getProperty("os.arch"));
  }

  private static long physicalMemory() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getTotalMemorySize();
    }
    return -1;
  }

  /** The CPU's model name from {@code /proc/cpuinfo}, or "unknown CPU". */
  static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"), StandardCharsets.UTF_8)) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).strip();
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: say so below
    }
    return "unknown CPU";
  }

  /** The commit the working directory is at, with "-dirty" when it has changes; or "unknown". */
  static String commit() {
    String head = git("rev-parse", "HEAD");
    if (head.isEmpty()) {
      return "unknown";
    }
    return git("status", "--porcelain", "--untracked-files=no").isEmpty() ? head : head + "-dirty";
  }

  private static String git(String... args) {
    String[] command = new String[args.length + 1];
    command[0] = "git";
    System.arraycopy(args, 0, command, 1, args.length);
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
        return "";
      }
      return out;
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  /** The system's load average over the last minute, or -1 where the OS does not say. */
  static double loadAverage() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  /** What a results file needs to be read later: the run, the commit, the machine, the JDK. */
  static String runJson(
      String scenario,
      boolean quick,
      Instant start,
      double seconds,
      double loadBefore,
      String command) {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
      g.useDefaultPrettyPrinter();
      g.writeStartObject();
      g.writeStringField("scenario", scenario);
      g.writeBooleanField("quick", quick);
      g.writeStringField("start", start.toString());
      g.writeNumberField("seconds", Math.round(seconds * 10) / 10.0);
      g.writeStringField("commit", commit());
      g.writeStringField("cpu", cpuModel());
      g.writeNumberField("cores", cores());
      g.writeNumberField("memoryBytes", physicalMemory());
      g.writeNumberField("maxHeapBytes", Runtime.getRuntime().maxMemory());
      g.writeStringField(
          "jdk",
          System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
      g.writeStringField(
          "os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
      g.writeNumberField("loadAverageBefore", Math.round(loadBefore * 100) / 100.0);
      g.writeNumberField("loadAverageAfter", Math.round(loadAverage() * 100) / 100.0);
      if (command != null) {
        g.writeStringField("command", command);
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out + "\n";
  }

  /**
   * A run's {@code run.json} as written at its start, with its end added: the time it ended, its
   * length and the load average then.
   */
  static String endRunJson(String runJson, Instant end, double loadAfter) {
    try {
      com.fasterxml.jackson.databind.ObjectMapper json =
          new com.fasterxml.jackson.databind.ObjectMapper();
      com.fasterxml.jackson.databind.node.ObjectNode run =
          (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(runJson);
      Instant start = Instant.parse(run.path("start").asText());
      run.put("end", end.toString());
      run.put(
          "seconds", Math.round(java.time.Duration.between(start, end).toMillis() / 100.0) / 10.0);
      run.put("loadAverageAfter", Math.round(loadAfter * 100) / 100.0);
      return json.writerWithDefaultPrettyPrinter().writeValueAsString(run) + "\n";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String gib(long bytes) {
    return bytes < 0 ? "unknown" : String.format("%.1f GiB", bytes / (double) (1L << 30));
  }
}
