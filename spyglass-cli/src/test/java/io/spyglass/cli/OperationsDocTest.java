package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The table of every option of {@code serve} in docs/operations.md is made from picocli's model of
 * the command, so that it cannot drift: this test makes it again and compares. After changing an
 * option, run it with {@code -Dspyglass.docs.write=true} to write the table into the document.
 */
class OperationsDocTest {
  static final Path DOC = Path.of("..", "docs", "operations.md");
  static final String BEGIN = "<!-- serve options: made by OperationsDocTest from the command -->";
  static final String END = "<!-- end of serve options -->";

  /** The table: key (and flag, variable), default, what it does. */
  static String table() {
    CommandLine cl = new CommandLine(new ServeCommand());
    StringBuilder out = new StringBuilder();
    out.append("| key / flag / variable | default | what |\n");
    out.append("|---|---|---|\n");
    for (OptionSpec o : ServeConfiguration.configurable(cl.getCommandSpec())) {
      String key = ServeConfiguration.key(o);
      String label = o.paramLabel();
      boolean flag = o.type() == boolean.class || o.type() == Boolean.class;
      String what =
          String.join(" ", o.description()).replace("${DEFAULT-VALUE}", o.defaultValueString());
      String dflt = ServeConfiguration.defaultText(o);
      if (dflt != null) {
        int at = what.indexOf("(default: " + dflt + ")");
        int end = at + "(default: ".length() + dflt.length() + 1;
        what = (what.substring(0, at).stripTrailing() + what.substring(end)).strip();
      }
      if (dflt == null) {
        dflt = flag ? "false" : o.isMultiValue() ? "none" : "-";
      }
      out.append("| `")
          .append(key)
          .append("`<br>`--")
          .append(key)
          .append(flag ? "" : " " + label)
          .append("`<br>`")
          .append(ServeConfiguration.environmentName(o))
          .append("` | ")
          .append(cell(dflt))
          .append(" | ")
          .append(cell(what))
          .append(" |\n");
    }
    return out.toString();
  }

  private static String cell(String s) {
    return s.replace("|", "\\|");
  }

  @Test
  void theDocumentHasEveryOptionOfServeAsTheCommandHasIt() throws Exception {
    String doc = Files.readString(DOC);
    Matcher m =
        Pattern.compile(Pattern.quote(BEGIN) + "\n(.*?)" + Pattern.quote(END), Pattern.DOTALL)
            .matcher(doc);
    assertThat(m.find()).as("docs/operations.md has the markers of the options table").isTrue();
    String expected = table();
    if (Boolean.getBoolean("spyglass.docs.write") && !m.group(1).equals(expected)) {
      Files.writeString(DOC, doc.substring(0, m.start(1)) + expected + doc.substring(m.end(1)));
      return;
    }
    assertThat(m.group(1))
        .as(
            "the options table of docs/operations.md is not the command's: run this test with"
                + " -Dspyglass.docs.write=true to write it")
        .isEqualTo(expected);
  }
}
