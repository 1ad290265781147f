package io.spyglass.core.syntax;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.core.plan.Bql;
import io.spyglass.core.plan.QueryPlan;
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

  /** Rejected for being nested too deep, at the token or expression where the limit is passed. */
  private static void tooDeep(String text, int column) {
    assertThatThrownBy(() -> Bql.compile(text))
        .isInstanceOfSatisfying(
            BqlException.class,
            e -> {
              assertThat(e.errors()).hasSize(1);
              assertThat(e.errors().get(0).message()).contains("nested more than 128 deep");
              assertThat(e.errors().get(0).span().column()).isEqualTo(column);
            });
  }

  @Test
  void deepBracketsAndPrefixChainsAreRefused() {
    String where = "SELECT * FROM STREAM() WHERE ";
    tooDeep("SELECT " + "[".repeat(10_000) + " FROM STREAM()", 8 + 128);
    // the 129th NOT, whatever the count beyond: deterministic, not where the stack ends
    for (int n : new int[] {129, 2_600, 2_800, 10_000}) {
      tooDeep(where + "NOT ".repeat(n) + "a", where.length() + 1 + 128 * 4);
    }
    tooDeep(where + "a = " + "- ".repeat(10_000) + "1", where.length() + 5 + 128 * 2);
    tooDeep(where + "NOT (".repeat(100) + "a" + ")".repeat(100), where.length() + 1 + 64 * 5);
    tooDeep(where + "a" + " IS NULL".repeat(200) + " = TRUE", where.length() + 1);
  }

  @Test
  void nestingJustWithinTheLimitIsAccepted() {
    String where = "SELECT * FROM STREAM() WHERE ";
    assertThat(Bql.compile(where + "NOT ".repeat(127) + "a").where()).isPresent();
    assertThat(Bql.compile(where + "a" + ".b".repeat(100) + " = 1").where()).isPresent();
  }

  @Test
  void flatChainsAreListsNotDepth() {
    String where = "SELECT * FROM STREAM() WHERE ";
    for (String op : new String[] {" OR ", " AND "}) {
      String chain = String.join(op, java.util.Collections.nCopies(5_000, "a = 1"));
      QueryPlan plan = Bql.compile(where + chain);
      assertThat(((io.spyglass.core.plan.Call) plan.where().get()).args()).hasSize(5_000);
      // the canonical form prints the chain flat, and is valid again
      String canonical = Bql.print(plan);
      assertThat(Bql.compile(canonical)).isEqualTo(plan);
      assertThat(Bql.print(Bql.compile(canonical))).isEqualTo(canonical);
    }
  }

  @Test
  void longTextIsRejected() {
    String text = "SELECT * FROM STREAM() WHERE " + "a = 1 AND ".repeat(20_000) + "b = 2";
    assertThatThrownBy(() -> Bql.compile(text))
        .isInstanceOfSatisfying(
            BqlException.class,
            e -> {
              assertThat(e.errors().get(0).message())
                  .contains(text.length() + " characters long, longer than the maximum of 65536");
              assertThat(e.errors().get(0).span().start()).isEqualTo(65_536);
            });
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
