package io.spyglass.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code spyglass bench} of the command's jar (and of the release's {@code bin/spyglass}): the
 * benchmarks come in a jar of their own, built from a checkout ({@code spyglass-bench-cli}); this
 * says where, and how to run them, whatever it is given.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Run a benchmark scenario: not in this jar. The benchmarks come in a jar of their own,"
          + " spyglass-bench.jar, built from a checkout of Spyglass.",
      "In a checkout: ./spyglass bench SCENARIO [OPTION...] builds it and runs it (./spyglass"
          + " bench --help lists the scenarios); or mvn -B package -DskipTests -pl"
          + " spyglass-bench-cli -am, then java -jar spyglass-bench-cli/target/spyglass-bench.jar"
          + " SCENARIO [OPTION...]."
    })
final class BenchCommand implements Callable<Integer> {
  /** What to tell whoever runs {@code spyglass bench} from the command's jar. */
  static final String ELSEWHERE =
      "the benchmarks are not in this jar (nor in the release): they come in a jar of their own,"
          + " built from a checkout of Spyglass. In a checkout, run ./spyglass bench"
          + " SCENARIO [OPTION...] (it builds spyglass-bench-cli/target/spyglass-bench.jar and runs"
          + " it), or build it with mvn -B package -DskipTests -pl spyglass-bench-cli -am and run"
          + " java -jar spyglass-bench-cli/target/spyglass-bench.jar SCENARIO [OPTION...]";

  /** Whatever was meant for the benchmarks (a scenario, its options): the answer is the same. */
  @CommandLine.Unmatched List<String> given;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().getErr().println("spyglass bench: " + ELSEWHERE);
    return 1;
  }
}
