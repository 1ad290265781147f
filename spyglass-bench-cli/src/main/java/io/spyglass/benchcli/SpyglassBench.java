package io.spyglass.benchcli;

import io.spyglass.scenarios.BenchCommand;
import picocli.CommandLine;

/**
 * {@code spyglass bench} in a jar of its own ({@code spyglass-bench.jar}): {@code java -jar
 * spyglass-bench.jar SCENARIO [OPTION...]} is {@code ./spyglass bench SCENARIO [OPTION...]} of a
 * checkout, which builds this jar and runs it. The benchmarks (the scenarios, the Flink job's, the
 * Bullet referee, their charts) stay out of the spyglass command's jar and out of the release.
 */
public final class SpyglassBench {
  /** The command's name in its usage and messages. */
  static final String NAME = "spyglass bench";

  private SpyglassBench() {}

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new BenchCommand());
    cl.setCommandName(NAME);
    cl.getCommandSpec().versionProvider(new Version());
    cl.setExecutionExceptionHandler(
        (e, cmd, parsed) -> {
          cmd.getErr().println(NAME + ": " + e.getMessage());
          return 1;
        });
    // a bad scenario or option (some found by the scenario itself, on a command line of its own):
    // the message, then this command's usage, on this command's error stream
    cl.setParameterExceptionHandler(
        (e, args) -> {
          cl.getErr().println(e.getMessage());
          cl.usage(cl.getErr());
          return cl.getCommandSpec().exitCodeOnInvalidInput();
        });
    return cl;
  }

  /** This jar's version, as {@code spyglass -V} says the command's. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = SpyglassBench.class.getPackage().getImplementationVersion();
      return new String[] {"spyglass " + (v == null ? "development build" : v)};
    }
  }
}
