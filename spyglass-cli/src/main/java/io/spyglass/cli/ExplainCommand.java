package io.spyglass.cli;

import io.spyglass.core.plan.Bql;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.Explain;
import io.spyglass.core.syntax.BqlException;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(
    name = "explain",
    mixinStandardHelpOptions = true,
    description =
        "Show how a query runs: canonical text, aggregation, window, fields read, and whether the"
            + " query index routes records to it.",
    footer = {"", "Example:", "  ./spyglass explain \"SELECT * FROM STREAM() WHERE id = 'x'\""})
final class ExplainCommand implements Callable<Integer> {
  @Parameters(paramLabel = "BQL", description = "the query")
  String bql;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    try {
      spec.commandLine()
          .getOut()
          .print(Explain.of(Bql.compile(bql, QueryLimits.DEFAULTS), QueryLimits.DEFAULTS));
      spec.commandLine().getOut().flush();
      return 0;
    } catch (BqlException e) {
      Errors.print(spec.commandLine().getErr(), "", bql, e);
      return SpyglassCommand.BAD_QUERY;
    }
  }
}
