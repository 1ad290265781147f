package io.spyglass.cli;

import io.spyglass.sources.GeneratorSource;
import io.spyglass.sources.RawBatch;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(
    name = "generate",
    mixinStandardHelpOptions = true,
    description =
        "Print the synthetic stream as JSON lines: records shaped like Bullet's test data (about"
            + " 1.8 KiB, ~90 fields), deterministic for a seed.",
    footer = {
      "",
      "Examples:",
      "  ./spyglass generate --count 3",
      "  ./spyglass generate --rate 1000 --count 5000 > events.json"
    })
final class GenerateCommand implements Callable<Integer> {
  @Option(
      names = "--rate",
      description = "records per second; 0 for as fast as possible (default: ${DEFAULT-VALUE})")
  long rate = 0;

  @Option(
      names = "--count",
      description = "records to print; 0 for no end (default: ${DEFAULT-VALUE})")
  long count = 0;

  @Option(names = "--seed", description = "random seed (default: ${DEFAULT-VALUE})")
  long seed = 1;

  @Option(
      names = "--size",
      description = "approximate bytes per record, 100 to 8192 (default: ${DEFAULT-VALUE})")
  int size = 1800;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException, InterruptedException {
    if (size < 100 || size > 8192) {
      throw new ParameterException(
          spec.commandLine(), "--size must be 100 to 8192 bytes, not " + size);
    }
    GeneratorSource.Options options =
        GeneratorSource.Options.DEFAULTS
            .withSeed(seed)
            .withRate(rate)
            .withCount(count)
            .withRecordBytes(size);
    try (GeneratorSource source = new GeneratorSource(options)) {
      OutputStream out = new BufferedOutputStream(System.out, 1 << 16);
      RawBatch batch = new RawBatch();
      boolean more = true;
      while (more) {
        batch.clear();
        more = source.poll(batch, 256, 100);
        for (int i = 0; i < batch.size(); i++) {
          out.write(batch.data(), batch.start(i), batch.length(i));
          out.write('\n');
        }
        out.flush();
        if (System.out.checkError()) {
          return 0; // the reader went away (e.g. | head)
        }
      }
    }
    return 0;
  }
}
