package io.spyglass.scenarios;

import java.lang.management.ManagementFactory;

/** The machine a benchmark runs on, printed above every report so numbers keep their context. */
final class Machine {
  private Machine() {}

  static int cores() {
    return Runtime.getRuntime().availableProcessors();
  }

  /** One line: cores, physical memory, maximum heap, JVM and OS. */
  static String describe() {
    long physical = -1;
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      physical = os.getTotalMemorySize();
    }
    return String.format(
        "%d cores, %s memory, %s max heap; %s %s (%s); %s %s %s",
        cores(),
        gib(physical),
        gib(Runtime.getRuntime().maxMemory()),
        System.getProperty("java.vm.name"),
        System.getProperty("java.runtime.version"),
        System.getProperty("java.vm.vendor"),
        System.getProperty("os.name"),
        System.getProperty("os.version"),
        System.getProperty("os.arch"));
  }

  private static String gib(long bytes) {
    return bytes < 0 ? "unknown" : String.format("%.1f GiB", bytes / (double) (1L << 30));
  }
}
