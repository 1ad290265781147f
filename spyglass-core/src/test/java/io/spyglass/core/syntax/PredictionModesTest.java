package io.spyglass.core.syntax;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.syntax.internal.BqlLexer;
import io.spyglass.core.syntax.internal.BqlParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.antlr.v4.runtime.CharStreams;
import org.antlr.v4.runtime.CommonTokenStream;
import org.antlr.v4.runtime.atn.PredictionMode;
import org.antlr.v4.runtime.tree.Trees;
import org.junit.jupiter.api.Test;

/**
 * The parser tries the fast SLL prediction first and falls back to full LL on a syntax error: the
 * fast path must give the tree full LL gives, and must never accept what full LL rejects.
 */
class PredictionModesTest {
  private static final List<String> RULES = Arrays.asList(BqlParser.ruleNames);

  /** The tree in one mode, "error" when the text is not valid BQL, or null when SLL gave up. */
  private static String tree(String text, PredictionMode mode) {
    BqlLexer lexer = new BqlLexer(CharStreams.fromString(text));
    lexer.removeErrorListeners();
    CommonTokenStream tokens = new CommonTokenStream(lexer);
    tokens.fill();
    try {
      BqlParser.StatementContext statement = QueryParser.statement(tokens, mode);
      return statement == null ? null : Trees.toStringTree(statement, RULES);
    } catch (BqlException e) {
      return "error";
    }
  }

  private static void agree(String text) {
    String ll = tree(text, PredictionMode.LL);
    String sll = tree(text, PredictionMode.SLL);
    if (sll != null) {
      assertThat(sll).as(text).isEqualTo(ll);
    }
  }

  @Test
  void theRoundTripCorpusParsesInSllToTheSameTrees() throws IOException {
    List<String> lines =
        Files.readAllLines(Path.of("src/test/resources/bql/roundtrip.bql"), StandardCharsets.UTF_8);
    int queries = 0;
    for (String line : lines) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      queries++;
      String sll = tree(line, PredictionMode.SLL);
      assertThat(sll).as("SLL parses " + line).isNotNull().isEqualTo(tree(line, PredictionMode.LL));
    }
    assertThat(queries).isGreaterThan(20);
  }

  @Provide
  Arbitrary<String> nearlyBql() {
    Arbitrary<String> tokens =
        Arbitraries.of(
            "a",
            "b.c",
            "m['k']",
            "1",
            "-2",
            "1.5",
            "'s'",
            "NULL",
            "TRUE",
            "(",
            ")",
            "[",
            "]",
            ",",
            "NOT",
            "SIZEOF",
            "IS NULL",
            "IS NOT NULL",
            "AND",
            "OR",
            "XOR",
            "=",
            "!=",
            "<",
            ">=",
            "+",
            "-",
            "*",
            "/",
            "RLIKE",
            "IN",
            "NOT IN",
            "BETWEEN",
            "ANY",
            "ALL",
            ":",
            "LONG",
            "COUNT(*)",
            "SUM(x)",
            "CAST(a AS LONG)",
            "IF(a, b, c)",
            "AS",
            "DISTINCT");
    Arbitrary<String> expression =
        tokens.list().ofMinSize(1).ofMaxSize(9).map(l -> String.join(" ", l));
    return Arbitraries.oneOf(
        expression.map(e -> "SELECT * FROM STREAM() WHERE " + e),
        expression.map(e -> "SELECT " + e + " FROM STREAM()"),
        expression.map(e -> "SELECT a, COUNT(*) FROM STREAM() GROUP BY a HAVING " + e),
        expression.map(e -> "SELECT " + e + " AS x FROM STREAM() GROUP BY " + e));
  }

  @Property(tries = 2_000)
  void sllGivesTheTreeOfFullLlOrGivesUp(@ForAll("nearlyBql") String text) {
    agree(text);
  }
}
