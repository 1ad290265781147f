package io.spyglass.cli;

import io.spyglass.core.plan.Bql;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.syntax.BqlException;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(
    name = "validate",
    mixinStandardHelpOptions = true,
    description = "Check a query and print its canonical form; exit 2 with the errors if invalid.",
    footer = {"", "Example:", "  ./spyglass validate 'SELECT COUNT(*) FROM STREAM(10s, TIME)'"})
final class ValidateCommand implements Callable<Integer> {
  @Parameters(paramLabel = "BQL", description = "the query")
  String bql;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    try {
      spec.commandLine().getOut().println(Bql.print(Bql.compile(bql, QueryLimits.DEFAULTS)));
      return 0;
    } catch (BqlException e) {
      Errors.print(spec.commandLine().getErr(), "", bql, e);
      return SpyglassCommand.BAD_QUERY;
    }
  }
}
