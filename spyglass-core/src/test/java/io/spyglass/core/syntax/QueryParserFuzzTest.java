package io.spyglass.core.syntax;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.core.plan.Bql;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** Bad input never crashes: it is always a {@link BqlException} with a span inside the text. */
class QueryParserFuzzTest {

  private static void rejects(String text) {
    try {
      Bql.compile(text);
    } catch (BqlException e) {
      assertThat(e.errors()).isNotEmpty();
      for (BqlError error : e.errors()) {
        assertThat(error.span()).isNotNull();
        assertThat(error.span().line()).isPositive();
        assertThat(error.span().column()).isPositive();
        assertThat(error.span().start()).isBetween(0, text.length());
        assertThat(error.message()).isNotBlank();
        assertThat(error.resolution()).isNotBlank();
      }
    }
  }

  @Provide
  Arbitrary<String> garbage() {
    Arbitrary<String> tokens =
        Arbitraries.of(
            "SELECT",
            "*",
            "FROM",
            "STREAM",
            "(",
            ")",
            "[",
            "]",
            ",",
            "WHERE",
            "a",
            "'s'",
            "1",
            "1.5",
            "=",
            "AND",
            "NOT",
            "GROUP",
            "BY",
            "COUNT",
            "TOP",
            "QUANTILE",
            "LINEAR",
            "LIMIT",
            "WINDOWING",
            "EVERY",
            "TIME",
            "RECORD",
            "'",
            "\"",
            "#",
            ":",
            "MAP",
            ".",
            "LATERAL",
            "VIEW",
            "EXPLODE",
            "AS",
            "HAVING",
            "ORDER",
            "-",
            "IN",
            "BETWEEN",
            "5s");
    return Arbitraries.oneOf(
        Arbitraries.strings().ofMaxLength(60),
        tokens.list().ofMaxSize(25).map(l -> String.join(" ", l)),
        tokens.list().ofMaxSize(25).map(l -> "SELECT " + String.join(" ", l)));
  }

  @Property(tries = 2000)
  void garbageIsRejectedWithASpan(@ForAll("garbage") String text) {
    rejects(text);
  }

  @Test
  void deepParenthesesAreRefusedNotOverflowed() {
    String deep = "(".repeat(10_000) + "a" + ")".repeat(10_000);
    assertThatThrownBy(() -> Bql.compile("SELECT * FROM STREAM() WHERE " + deep))
        .isInstanceOf(BqlException.class)
        .hasMessageContaining("nested");
  }

  @Test
  void deepBracketsAndPrefixChainsAreRefused() {
    rejects("SELECT " + "[".repeat(10_000) + " FROM STREAM()");
    rejects("SELECT * FROM STREAM() WHERE " + "NOT ".repeat(10_000) + "a");
    rejects("SELECT * FROM STREAM() WHERE a = " + "- ".repeat(10_000) + "1");
    rejects("SELECT * FROM STREAM() WHERE " + "a.".repeat(10_000) + "b = 1");
  }

  @Test
  void longTextIsRejected() {
    rejects("SELECT * FROM STREAM() WHERE " + "a = 1 AND ".repeat(20_000) + "b = 2");
    rejects("x".repeat(100_000));
  }

  @Test
  void invalidCharacters() {
    for (String text :
        new String[] {
          "SELECT \u0000 FROM STREAM()",
          "SELECT é FROM STREAM()",
          "\uD83D\uDE00",
          "",
          " ",
          ";",
          "SELECT * FROM STREAM() ;;"
        }) {
      assertThatThrownBy(() -> Bql.compile(text)).isInstanceOf(BqlException.class);
      rejects(text);
    }
  }

  @Test
  void nestingWithinTheLimitParses() {
    String nested = "(".repeat(60) + "a = 1" + ")".repeat(60);
    assertThat(Bql.compile("SELECT * FROM STREAM() WHERE " + nested).where()).isPresent();
  }
}
