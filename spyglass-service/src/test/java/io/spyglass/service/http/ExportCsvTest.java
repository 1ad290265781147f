package io.spyglass.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The cells of a CSV export: RFC 4180 quoting, nested values as JSON, formulas defused. */
class ExportCsvTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static String cell(String json) throws Exception {
    return ExportStream.field(ExportStream.cell(JSON.readTree(json)));
  }

  @Test
  void valuesAsCells() throws Exception {
    assertThat(cell("3")).isEqualTo("3");
    assertThat(cell("-3")).as("numbers stay numbers").isEqualTo("-3");
    assertThat(cell("2.5")).isEqualTo("2.5");
    assertThat(cell("true")).isEqualTo("true");
    assertThat(cell("null")).isEmpty();
    assertThat(cell("\"plain\"")).isEqualTo("plain");
    assertThat(cell("\"a,b\"")).isEqualTo("\"a,b\"");
    assertThat(cell("\"say \\\"hi\\\"\"")).isEqualTo("\"say \"\"hi\"\"\"");
    assertThat(cell("\"two\\nlines\"")).isEqualTo("\"two\nlines\"");
    assertThat(cell("\" edge\"")).isEqualTo("\" edge\"");
    assertThat(cell("{\"a\":[1,2]}")).isEqualTo("\"{\"\"a\"\":[1,2]}\"");
    assertThat(ExportStream.cell(null)).isEmpty();
  }

  @Test
  void textThatASpreadsheetWouldRunIsDefused() throws Exception {
    assertThat(cell("\"=1+2\"")).isEqualTo("'=1+2");
    assertThat(cell("\"+1\"")).isEqualTo("'+1");
    assertThat(cell("\"-1\"")).as("text, not a number").isEqualTo("'-1");
    assertThat(cell("\"@SUM(A1)\"")).isEqualTo("'@SUM(A1)");
    assertThat(cell("\"\\tx\"")).isEqualTo("'\tx");
    assertThat(ExportStream.defuse("=cmd|' /C calc'!A0")).isEqualTo("'=cmd|' /C calc'!A0");
  }
}
