package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web UI's pages run only the UI's own scripts and cannot be framed; no answer is sniffed or
 * sends a referrer.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SecurityHeadersTest {
  @TempDir static Path data;
  static ServiceFixture f;

  @BeforeAll
  static void start() throws Exception {
    Path tokens = data.resolve("tokens.txt");
    Files.writeString(tokens, "alice-token-0123456 alice\n");
    f = ServiceFixture.start(data.resolve("db"), b -> b.tokensFile = tokens);
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  /** A file of the UI (not part of the API: not checked against the OpenAPI document). */
  private static HttpResponse<String> file(String path) throws Exception {
    return f.http.send(f.request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private static void assertPageHeaders(HttpResponse<String> r) {
    String csp = r.headers().firstValue("Content-Security-Policy").orElse("");
    assertThat(csp)
        .contains("script-src 'self';")
        .contains("default-src 'self'")
        .contains("object-src 'none'")
        .contains("frame-ancestors 'none'")
        .doesNotContain("unsafe-eval");
    assertThat(csp.replaceAll(".*script-src ([^;]*);.*", "$1")).doesNotContain("unsafe-inline");
    assertThat(r.headers().firstValue("X-Frame-Options")).hasValue("DENY");
    assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
    assertThat(r.headers().firstValue("Referrer-Policy")).hasValue("no-referrer");
  }

  @Test
  void theUiIsServedWithAPolicyAndCannotBeFramed() throws Exception {
    HttpResponse<String> page = file("/");
    assertThat(page.statusCode()).isEqualTo(200);
    assertPageHeaders(page);
    // no inline script in the page: every script is a file of the UI
    Matcher scripts = Pattern.compile("<script([^>]*)>").matcher(page.body());
    int n = 0;
    while (scripts.find()) {
      assertThat(scripts.group(1)).contains("src=");
      n++;
    }
    assertThat(n).isPositive();
    Matcher asset = Pattern.compile("assets/[\\w.-]+\\.js").matcher(page.body());
    assertThat(asset.find()).isTrue();
    HttpResponse<String> js = file("/" + asset.group());
    assertThat(js.statusCode()).isEqualTo(200);
    assertPageHeaders(js);
    assertThat(js.headers().firstValue("Cache-Control").orElse("")).contains("immutable");
  }

  @Test
  void apiAnswersAreNotSniffedAndSendNoReferrer() throws Exception {
    f.token = null;
    for (String path : new String[] {"/api/health", "/api/queries", "/nope"}) {
      HttpResponse<String> r = file(path);
      assertThat(r.headers().firstValue("X-Content-Type-Options")).as(path).hasValue("nosniff");
      assertThat(r.headers().firstValue("Referrer-Policy")).as(path).hasValue("no-referrer");
    }
    f.token = "alice-token-0123456";
    HttpResponse<String> r = f.get("/api/queries");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
  }
}
