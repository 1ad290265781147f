package io.spyglass.service.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.engine.EngineConfig;
import io.spyglass.service.ServiceConfig;
import io.spyglass.service.SpyglassService;
import io.spyglass.service.runtime.EmbeddedRuntime;
import io.spyglass.sources.GeneratorSource;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTPS with {@code --tls-cert} and {@code --tls-key}: a self-signed certificate made by the JDK's
 * keytool, a real TLS client (the JDK's HttpClient trusting that certificate only), the API, a
 * Server-Sent Events stream and a WebSocket over it.
 */
class TlsTest {
  @TempDir Path dir;

  /** A key pair and self-signed certificate for localhost and 127.0.0.1, as PEM files. */
  record Pem(Path cert, Path key, X509Certificate certificate) {}

  static Pem selfSigned(Path dir, String name, String keyalg, boolean pkcs1) throws Exception {
    Path store = dir.resolve(name + ".p12");
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    Process p =
        new ProcessBuilder(
                keytool.toString(),
                "-genkeypair",
                "-alias",
                "s",
                "-keyalg",
                keyalg,
                "-dname",
                "CN=localhost",
                "-ext",
                "SAN=dns:localhost,ip:127.0.0.1",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                store.toString(),
                "-storepass",
                "changeit",
                "-keypass",
                "changeit")
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      ks.load(in, "changeit".toCharArray());
    }
    PrivateKey key = (PrivateKey) ks.getKey("s", "changeit".toCharArray());
    X509Certificate cert = (X509Certificate) ks.getCertificate("s");
    Path certFile = dir.resolve(name + "-cert.pem");
    Path keyFile = dir.resolve(name + "-key.pem");
    Files.writeString(certFile, pem("CERTIFICATE", cert.getEncoded()));
    byte[] pkcs8 = key.getEncoded();
    Files.writeString(
        keyFile, pkcs1 ? pem("RSA PRIVATE KEY", innerKey(pkcs8)) : pem("PRIVATE KEY", pkcs8));
    return new Pem(certFile, keyFile, cert);
  }

  static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  /** The key inside a PKCS#8 structure (for RSA: PKCS#1), read with a minimal DER walk. */
  private static byte[] innerKey(byte[] pkcs8) {
    int[] at = {0};
    header(pkcs8, at); // SEQUENCE: into it
    int version = header(pkcs8, at); // INTEGER
    at[0] += version;
    int algorithm = header(pkcs8, at); // SEQUENCE
    at[0] += algorithm;
    int n = header(pkcs8, at); // OCTET STRING
    return Arrays.copyOfRange(pkcs8, at[0], at[0] + n);
  }

  private static int header(byte[] der, int[] at) {
    at[0]++; // tag
    int b = der[at[0]++] & 0xff;
    if (b < 0x80) {
      return b;
    }
    int n = 0;
    for (int i = 0; i < (b & 0x7f); i++) {
      n = (n << 8) | (der[at[0]++] & 0xff);
    }
    return n;
  }

  static HttpClient trusting(X509Certificate cert) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("spyglass", cert);
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, tmf.getTrustManagers(), null);
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .sslContext(ssl)
        .connectTimeout(Duration.ofSeconds(10))
        .build();
  }

  private SpyglassService start(Pem pem) throws IOException {
    EmbeddedRuntime runtime =
        EmbeddedRuntime.start(
            new GeneratorSource(
                GeneratorSource.Options.DEFAULTS.withRate(2_000).withRecordBytes(300)),
            EngineConfig.defaults().withWorkers(1).withTickMs(20));
    ServiceConfig config =
        ServiceConfig.defaults()
            .with(
                b -> {
                  b.port = 0;
                  b.dataDir = dir.resolve("data");
                  b.tls = new TlsFiles(pem.cert(), pem.key());
                });
    Listening listening = SpyglassService.bind(config);
    return SpyglassService.start(config, listening, runtime, null);
  }

  @Test
  void theApiServerSentEventsAndWebSocketsAreServedOverHttps() throws Exception {
    Pem pem = selfSigned(dir, "ec", "EC", false);
    try (SpyglassService s = start(pem)) {
      assertThat(s.url()).startsWith("https://");
      String base = "https://127.0.0.1:" + s.port();
      HttpClient http = trusting(pem.certificate());
      HttpResponse<String> health =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "/api/health")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.sslSession()).isPresent();
      assertThat(health.sslSession().get().getPeerCertificates()[0]).isEqualTo(pem.certificate());

      // a result stream over TLS
      HttpResponse<String> submitted =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "/api/queries"))
                  .header("Content-Type", "text/plain")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "SELECT COUNT(*) AS n FROM STREAM(600, TIME)"
                              + " WINDOWING TUMBLING(200, TIME)"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(submitted.statusCode()).isEqualTo(201);
      String id = LiveService.JSON.readTree(submitted.body()).get("id").asText();
      HttpResponse<InputStream> stream =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "/api/queries/" + id + "/results"))
                  .header("Accept", "text/event-stream")
                  .build(),
              HttpResponse.BodyHandlers.ofInputStream());
      assertThat(stream.statusCode()).isEqualTo(200);
      boolean sawFinal = false;
      int results = 0;
      try (BufferedReader r =
          new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          if (line.startsWith("data: ")) {
            results++;
            JsonNode result = LiveService.JSON.readTree(line.substring(6));
            sawFinal |= result.get("meta").get("final").asBoolean();
          }
        }
      }
      assertThat(results).isGreaterThanOrEqualTo(2);
      assertThat(sawFinal).as("the stream ends with the final result").isTrue();

      // a WebSocket over TLS (wss://)
      BlockingQueue<String> messages = new LinkedBlockingQueue<>();
      WebSocket ws =
          http.newWebSocketBuilder()
              .buildAsync(
                  URI.create("wss://127.0.0.1:" + s.port() + "/api/ws"),
                  new WebSocket.Listener() {
                    private final StringBuilder text = new StringBuilder();

                    @Override
                    public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                      text.append(data);
                      if (last) {
                        messages.add(text.toString());
                        text.setLength(0);
                      }
                      w.request(1);
                      return null;
                    }
                  })
              .get(30, TimeUnit.SECONDS);
      ws.sendText(
          "{\"type\": \"submit\", \"query\": \"SELECT COUNT(*) AS n FROM STREAM(300, TIME)\"}",
          true);
      String accepted = messages.poll(30, TimeUnit.SECONDS);
      assertThat(accepted).contains("\"accepted\"");
      String end = null;
      for (String m = messages.poll(30, TimeUnit.SECONDS);
          m != null;
          m = messages.poll(30, TimeUnit.SECONDS)) {
        if (m.contains("\"type\":\"end\"")) {
          end = m;
          break;
        }
      }
      assertThat(end).as("the WebSocket delivers the query's results and end").isNotNull();
      ws.sendClose(WebSocket.NORMAL_CLOSURE, "").get(10, TimeUnit.SECONDS);

      // nothing is answered in the clear on the HTTPS port
      try (Socket plain = new Socket("127.0.0.1", s.port())) {
        plain.setSoTimeout(10_000);
        plain
            .getOutputStream()
            .write(
                "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
        byte[] answer = plain.getInputStream().readNBytes(12);
        assertThat(new String(answer, StandardCharsets.ISO_8859_1)).doesNotContain("200");
      } catch (IOException e) {
        // closed: as good
      }
    }
  }

  @Test
  void aRenewedCertificateIsServedWithoutARestartAndAnRsaKeyInPkcs1Loads() throws Exception {
    Pem first = selfSigned(dir, "first", "EC", false);
    try (SpyglassService s = start(first)) {
      String base = "https://127.0.0.1:" + s.port();
      Pem renewed = selfSigned(dir, "renewed", "RSA", true);
      Files.copy(renewed.cert(), first.cert(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      Files.copy(renewed.key(), first.key(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      FileTime later = FileTime.fromMillis(System.currentTimeMillis() + 5_000);
      Files.setLastModifiedTime(first.cert(), later);
      Files.setLastModifiedTime(first.key(), later);
      s.server().tls().reloadIfChanged(); // what the server does every minute
      HttpResponse<String> health =
          trusting(renewed.certificate())
              .send(
                  HttpRequest.newBuilder(URI.create(base + "/api/health")).build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(200);
      Certificate served = health.sslSession().orElseThrow().getPeerCertificates()[0];
      assertThat(served).isEqualTo(renewed.certificate());
    }
  }

  @Test
  void aKeyThatIsNotTheCertificatesOrNoKeyAtAllStopsTheStartSayingWhich() throws Exception {
    Pem a = selfSigned(dir, "a", "EC", false);
    Pem b = selfSigned(dir, "b", "EC", false);
    assertThatThrownBy(() -> Tls.load(new TlsFiles(a.cert(), b.key())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is not the key of the certificate")
        .hasMessageContaining(b.key().toString());
    assertThatThrownBy(() -> Tls.load(new TlsFiles(a.key(), a.key())))
        .hasMessageContaining("--tls-cert")
        .hasMessageContaining("holds no certificate");
    assertThatThrownBy(() -> Tls.load(new TlsFiles(a.cert(), a.cert())))
        .hasMessageContaining("--tls-key")
        .hasMessageContaining("holds no private key");
    Path encrypted = dir.resolve("enc.pem");
    Files.writeString(encrypted, pem("ENCRYPTED PRIVATE KEY", new byte[] {1, 2, 3}));
    assertThatThrownBy(() -> Tls.load(new TlsFiles(a.cert(), encrypted)))
        .hasMessageContaining("is encrypted");
    ServiceConfig config =
        ServiceConfig.defaults()
            .with(
                c -> {
                  c.port = 0;
                  c.dataDir = dir.resolve("data");
                  c.tls = new TlsFiles(a.cert(), dir.resolve("missing.pem"));
                });
    assertThatThrownBy(() -> SpyglassService.bind(config))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot read");
  }
}
