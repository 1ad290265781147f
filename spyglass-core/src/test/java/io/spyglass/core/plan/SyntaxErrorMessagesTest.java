package io.spyglass.core.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.syntax.BqlError;
import org.junit.jupiter.api.Test;

/** A syntax error's fix says what could come in words a person uses. */
class SyntaxErrorMessagesTest {

  @Test
  void whereAnExpressionMayStartTheFixSaysSoInsteadOfListingTokens() {
    BqlError e = BqlCompileTest.error("SELECT device\nFROM STREAM(10s, TIME)\nWHERE status >>= 5");
    assertThat(e.span().line() + ":" + e.span().column()).isEqualTo("3:15");
    assertThat(e.message()).isEqualTo("Unexpected '>='");
    assertThat(e.resolution()).isEqualTo("Expected a value, a field or a function");

    assertThat(BqlCompileTest.error("SELECT FROM STREAM(10s, TIME)").resolution())
        .startsWith("Expected a value, a field or a function, or ")
        .contains("*")
        .doesNotContain("CUMFREQ");
  }

  @Test
  void otherPlacesStillListWhatCouldCome() {
    assertThat(BqlCompileTest.error("SELECT * FROM STREAM(10s, TIME) LIMIT").resolution())
        .isEqualTo("Expected one of: -, a number");
  }

  @Test
  void lookAlikeCharactersAreNamedWithWhatToWrite() {
    BqlError e = BqlCompileTest.error("SELECT * FROM STREAM(10s, TIME) WHERE device \uff1d 'x'");
    assertThat(e.message()).isEqualTo("Unexpected character '\uff1d'");
    assertThat(e.resolution())
        .isEqualTo("Write = instead: '\uff1d' (U+FF1D FULLWIDTH EQUALS SIGN) only looks like it");
    assertThat(
            BqlCompileTest.error("SELECT * FROM STREAM(10s, TIME) WHERE id = \u2018a\u2019")
                .resolution())
        .startsWith("Write ' instead: '\u2018' (U+2018");
    assertThat(BqlCompileTest.error("SELECT *\u00a0FROM STREAM(10s, TIME)").resolution())
        .startsWith("Write a plain space instead");
    assertThat(
            BqlCompileTest.error("SELECT * FROM STREAM(10s, TIME) WHERE n \u2264 3").resolution())
        .startsWith("Write <= instead");
  }

  @Test
  void aGroupedFieldCloseToAnUngroupedOneIsNamedAsALikelyTypo() {
    BqlError e =
        BqlCompileTest.error("SELECT device, COUNT(*) AS n FROM STREAM(10s, TIME) GROUP BY devise");
    assertThat(e.message())
        .isEqualTo("The field device is neither grouped nor aggregated (GROUP BY names devise)");
    assertThat(e.resolution()).startsWith("Did you mean GROUP BY device? Else add it to GROUP BY");
    assertThat(
            BqlCompileTest.error("SELECT os, COUNT(*) AS n FROM STREAM(10s, TIME) GROUP BY device")
                .resolution())
        .startsWith("Add it to GROUP BY");
  }
}
