package io.spyglass.core.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.core.syntax.BqlError;
import org.junit.jupiter.api.Test;

/** RLIKE's patterns: what compiling may cost is bounded before RE2/J expands anything. */
class RegexesTest {

  @Test
  void nestedCountedRepetitionIsRefusedBeforeCompiling() {
    // RE2/J would build a program of 10^9 instructions for this one, running the heap out
    BqlError e =
        BqlCompileTest.error(
            "SELECT COUNT(*) FROM STREAM(1s, TIME) WHERE s RLIKE '((a{1000}){1000}){1000}'");
    assertThat(e.message()).contains("too large").contains("about 2,003,003,000 instructions");
    assertThat(e.span().line() + ":" + e.span().column()).isEqualTo("1:53");
    assertThat(e.resolution()).contains("nested ones multiply");

    assertThat(
            BqlCompileTest.error(
                    "SELECT * FROM STREAM(1s, TIME) WHERE s RLIKE ANY ['x', '(a{1000}){1000}']")
                .message())
        .contains("about 2,003,000 instructions, at most 20,000");
  }

  @Test
  void realPatternsStayWellWithinTheBound() {
    for (String ok :
        new String[] {
          "[a-z]{1000}",
          ".*/news/.*",
          "https://www\\.example\\.com/news/.*",
          "(\\d{1,3}\\.){3}\\d{1,3}",
          "(?i)(chrome|firefox|safari|edge)[ /]\\d+(\\.\\d+)*",
          "[[:alpha:]]+@[^@\\s]+\\.[a-z]{2,}",
          "\\Qa.b{1000}\\E",
          "(?P<year>\\d{4})-(?P<month>\\d{2})",
          "\\p{Greek}{1,50}",
          "a{,5}",
        }) {
      assertThat(Regexes.estimate(ok)).as(ok).isLessThan(Regexes.MAX_INSTRUCTIONS);
      assertThat(Regexes.compile(ok)).as(ok).isNotNull();
    }
  }

  @Test
  void estimatesFollowRepetition() {
    assertThat(Regexes.estimate("abc")).isEqualTo(3);
    assertThat(Regexes.estimate("a|b")).isEqualTo(3);
    assertThat(Regexes.estimate("a*")).isEqualTo(2);
    // x{n,m} is m copies, x{n,} n + 1; nested ones multiply
    assertThat(Regexes.estimate("a{10}")).isGreaterThanOrEqualTo(10);
    assertThat(Regexes.estimate("a{2,10}")).isGreaterThanOrEqualTo(10);
    assertThat(Regexes.estimate("a{10,}")).isGreaterThanOrEqualTo(11);
    assertThat(Regexes.estimate("(a{100}){100}")).isGreaterThanOrEqualTo(10_000);
    assertThat(Regexes.estimate("(a{1000}){20}")).isGreaterThan(Regexes.MAX_INSTRUCTIONS);
    // a brace that is no repetition is a literal
    assertThat(Regexes.estimate("a{x}")).isEqualTo(4);
    // quoted text is literal, braces included
    assertThat(Regexes.estimate("\\Q(a{1000}){1000}\\E")).isLessThan(100);
    // an unmatched ')' does not hide what follows it
    assertThat(Regexes.estimate("a)((a{1000}){1000})")).isGreaterThan(1_000_000);
    assertThatThrownBy(() -> Regexes.compile("(a{1000}){1000}"))
        .isInstanceOf(Regexes.TooLarge.class);
  }

  @Test
  void aPatternTooLargeIsNotCompiledWhateverItsText() {
    // the estimate saturates instead of overflowing
    StringBuilder s = new StringBuilder("a");
    for (int i = 0; i < 40; i++) {
      s.insert(0, '(').append("){1000}");
    }
    assertThat(Regexes.estimate(s.toString())).isGreaterThan(Regexes.MAX_INSTRUCTIONS);
    assertThat(Regexes.estimate(s.toString())).isPositive();
  }
}
