package io.spyglass.service.http;

import java.nio.file.Path;

/**
 * The certificate chain and private key of HTTPS, PEM files (as Let's Encrypt and {@code openssl}
 * write them).
 */
public record TlsFiles(Path certificate, Path privateKey) {
  public TlsFiles {
    if (certificate == null || privateKey == null) {
      throw new IllegalArgumentException(
          "HTTPS needs both a certificate (--tls-cert) and its private key (--tls-key)");
    }
  }
}
