package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ResultPrinterTest {
  private static Result result(List<Map<String, Object>> records) {
    return new Result(
        records,
        new Meta(
            "q1",
            "SELECT *\nFROM STREAM()",
            1L,
            Optional.of(2L),
            Optional.empty(),
            Map.of(),
            List.of(),
            true));
  }

  private static Map<String, Object> row(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  @Test
  void textFromTheStreamCannotBreakTheTableOrReachTheTerminal() {
    String table =
        ResultPrinter.table(
            result(
                List.of(
                    row("s", "two\nlines", "t", "\u001b[31mred\u001b[0m\tand\rmore"),
                    row("s", "\u202Eevil", "t", "\u0085\u007f"))),
            true);
    assertThat(table.lines()).hasSize(5);
    assertThat(table).doesNotContain("\u001b", "\r", "\t", "\u202E", "\u0085", "\u007f");
    assertThat(table)
        .contains("q1: SELECT *\\nFROM STREAM()")
        .contains("two\\nlines")
        .contains("\\u001b[31mred\\u001b[0m\\tand\\rmore")
        .contains("\\u202eevil")
        .contains("\\u0085\\u007f");
  }

  @Test
  void numbersAreWrittenForReading() {
    assertThat(ResultPrinter.text(17034.0)).isEqualTo("17034");
    assertThat(ResultPrinter.text(1.795423312539E12)).isEqualTo("1795423312539");
    assertThat(ResultPrinter.text(4667.999999999997)).isEqualTo("4668");
    assertThat(ResultPrinter.text(0.8495)).isEqualTo("0.8495");
    assertThat(ResultPrinter.text(22.326223224351747)).isEqualTo("22.3262232244");
    assertThat(ResultPrinter.text(-0.0)).isEqualTo("0");
    assertThat(ResultPrinter.text(1e300)).isEqualTo("1.0E300");
    assertThat(ResultPrinter.text(Double.NaN)).isEqualTo("NaN");
    assertThat(ResultPrinter.text(0.1f)).isEqualTo("0.1");
    assertThat(ResultPrinter.text(Long.MAX_VALUE)).isEqualTo("9223372036854775807");
  }

  @Test
  void mapsAndListsAreJson() {
    Map<String, Object> nested = row("a", 1L, "b", List.of("x", 2.5, true), "c", row("d", null));
    assertThat(ResultPrinter.text(nested))
        .isEqualTo("{\"a\":1,\"b\":[\"x\",2.5,true],\"c\":{\"d\":null}}");
    String table = ResultPrinter.table(result(List.of(row("m", row("k", "v\n")))), false);
    assertThat(table).contains("{\"k\":\"v\\n\"}").doesNotContain("{k=v");
  }

  @Test
  void jsonIsStreamedAsToJsonWritesIt() {
    Result r = result(List.of(row("a", 1L, "s", "é∞\n"), row("a", 2.5)));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ResultPrinter printer =
        new ResultPrinter(new PrintStream(bytes), ResultPrinter.Format.json, false);
    assertThat(printer.print(r)).isTrue();
    assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo(r.toJson() + "\n");
  }

  @Test
  void aClosedOutputIsReported() {
    OutputStream closed =
        new OutputStream() {
          @Override
          public void write(int b) throws java.io.IOException {
            throw new java.io.IOException("Broken pipe");
          }
        };
    ResultPrinter printer =
        new ResultPrinter(new PrintStream(closed), ResultPrinter.Format.table, false);
    assertThat(printer.print(result(List.of(row("a", 1L))))).isFalse();
  }
}
