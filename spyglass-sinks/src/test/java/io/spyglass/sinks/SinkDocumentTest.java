package io.spyglass.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.result.Result;
import io.spyglass.core.result.ResultJson;
import java.util.List;
import org.junit.jupiter.api.Test;

class SinkDocumentTest {
  @Test
  void aResultsDocumentIsItsKeyThenTheResultsJsonByteForByte() {
    Result r = Results.window("q1", 3, false);
    SinkDocument d = SinkDocument.ofResult("q1:3", "q1", 3, false, SinkDocument.resultJson(r));
    assertThat(d.key()).isEqualTo("q1:3");
    assertThat(d.text())
        .isEqualTo(
            "{\"key\":\"q1:3\",\"query\":\"q1\",\"window\":3,\"final\":false,"
                + ResultJson.write(r).substring(1));
    assertThat(d.text()).doesNotContain("\n");
  }

  @Test
  void keysAreTheQueryAndItsWindow() {
    QuerySinks q = new QuerySinks("abc", List.of());
    assertThat(doc(q, Results.window("abc", 1, false)).key()).isEqualTo("abc:1");
    assertThat(doc(q, Results.window("abc", 2, true)).text())
        .startsWith(
            "{\"key\":\"abc:2\",\"query\":\"abc\",\"window\":2,\"final\":true,\"records\":");
    // a result without a window after windows (a query ended by an error) takes the next number
    assertThat(doc(q, Results.whole("abc")).key()).isEqualTo("abc:3");
    assertThat(doc(new QuerySinks("w", List.of()), Results.whole("w")).key()).isEqualTo("w:1");
  }

  @Test
  void aLateUpdateHasAKeyOfItsOwn() {
    QuerySinks q = new QuerySinks("s", List.of());
    assertThat(doc(q, Results.lateUpdate("s", 4, 9)).key()).isEqualTo("s:4:late-9");
    assertThat(doc(q, Results.lateUpdate("s", 4, 12)).key()).isEqualTo("s:4:late-12");
    assertThat(doc(q, Results.lateUpdate("s", 4, 12)).text()).contains("\"window\":4");
  }

  private static SinkDocument doc(QuerySinks q, Result r) {
    return q.document(r.meta(), SinkDocument.resultJson(r));
  }
}
