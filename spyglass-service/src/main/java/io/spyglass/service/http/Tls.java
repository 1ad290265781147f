package io.spyglass.service.http;

import io.spyglass.core.SpyglassClock;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTPS from PEM files, as Let's Encrypt ({@code fullchain.pem}, {@code privkey.pem}) and {@code
 * openssl} write them: a certificate chain (the server's first) and its private key (PKCS#8 {@code
 * BEGIN PRIVATE KEY}, or PKCS#1 {@code BEGIN RSA PRIVATE KEY}). Checked when loaded (the key must
 * be the certificate's), and loaded again when either file changes, so that a renewed certificate
 * is served without a restart.
 */
public final class Tls {
  private static final Logger LOG = LoggerFactory.getLogger(Tls.class);
  private static final Pattern PEM =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]*)-----END \\1-----");
  private static final String ALIAS = "spyglass";

  private final TlsFiles files;
  private final SslContextFactory.Server factory = new SslContextFactory.Server();
  private final String password;
  private FileTime certTime;
  private FileTime keyTime;

  /** The service's wall clock (epoch milliseconds): whether the certificate has expired. */
  private final LongSupplier clock;

  private Tls(TlsFiles files, LongSupplier clock) {
    this.clock = clock;
    this.files = files;
    byte[] pw = new byte[16];
    new SecureRandom().nextBytes(pw);
    this.password = HexFormat.of().formatHex(pw); // the in-memory key store's only
  }

  /**
   * Reads and checks the certificate and key; the factory that Jetty serves HTTPS with.
   *
   * @throws IllegalArgumentException when a file cannot be read or is not what it should be; the
   *     message names the file and says what to do
   */
  public static Tls load(TlsFiles files) {
    return load(files, SpyglassClock.system());
  }

  /**
   * As {@link #load(TlsFiles)}, telling whether the certificate has expired by {@code clock}, the
   * service's wall clock (epoch milliseconds).
   */
  public static Tls load(TlsFiles files, LongSupplier clock) {
    Tls tls = new Tls(files, clock);
    tls.factory.setKeyStore(tls.keyStore());
    tls.factory.setKeyStorePassword(tls.password);
    tls.factory.setKeyManagerPassword(tls.password);
    tls.factory.setCertAlias(ALIAS);
    // the Host a request names is the edge's to check (Gate): a certificate for the public name
    // still serves a client that came by address
    tls.factory.setSniRequired(false);
    return tls;
  }

  SslContextFactory.Server factory() {
    return factory;
  }

  /** Loads the files again if either changed since; keeps the old ones when the new do not load. */
  void reloadIfChanged() {
    FileTime c;
    FileTime k;
    try {
      c = Files.getLastModifiedTime(files.certificate());
      k = Files.getLastModifiedTime(files.privateKey());
    } catch (IOException e) {
      return; // being replaced: next time
    }
    synchronized (this) {
      if (c.equals(certTime) && k.equals(keyTime)) {
        return;
      }
    }
    try {
      KeyStore ks = keyStore();
      factory.reload(f -> f.setKeyStore(ks));
      LOG.info("HTTPS now serves the certificate of {}", files.certificate());
    } catch (Exception e) {
      LOG.warn(
          "the changed HTTPS certificate or key did not load ({}); the previous ones are served",
          e.getMessage());
      synchronized (this) { // not again until they change again
        certTime = c;
        keyTime = k;
      }
    }
  }

  private KeyStore keyStore() {
    FileTime c;
    FileTime k;
    try {
      c = Files.getLastModifiedTime(files.certificate());
      k = Files.getLastModifiedTime(files.privateKey());
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + e.getMessage(), e);
    }
    List<X509Certificate> chain = certificates(files.certificate());
    PrivateKey key = privateKey(files.privateKey());
    if (!matches(key, chain.get(0))) {
      throw new IllegalArgumentException(
          "the private key of --tls-key "
              + files.privateKey()
              + " is not the key of the certificate in --tls-cert "
              + files.certificate()
              + ": give the key the certificate was made for");
    }
    try {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      ks.setKeyEntry(ALIAS, key, password.toCharArray(), chain.toArray(new Certificate[0]));
      synchronized (this) {
        certTime = c;
        keyTime = k;
      }
      X509Certificate leaf = chain.get(0);
      if (leaf.getNotAfter().getTime() < clock.getAsLong()) {
        LOG.warn(
            "the HTTPS certificate {} expired on {}: clients will refuse it",
            files.certificate(),
            leaf.getNotAfter());
      }
      return ks;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException("cannot hold the HTTPS key: " + e.getMessage(), e);
    }
  }

  private static String read(Path file, String flag) {
    try {
      return Files.readString(file, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read " + flag + " " + file + ": " + e.getMessage(), e);
    }
  }

  /** The certificates of a PEM file, in their order (the server's first). */
  static List<X509Certificate> certificates(Path file) {
    String text = read(file, "--tls-cert");
    List<X509Certificate> out = new ArrayList<>();
    try {
      CertificateFactory cf = CertificateFactory.getInstance("X.509");
      Matcher m = PEM.matcher(text);
      while (m.find()) {
        if (m.group(1).equals("CERTIFICATE")) {
          out.add(
              (X509Certificate)
                  cf.generateCertificate(new ByteArrayInputStream(decode(m.group(2)))));
        }
      }
    } catch (CertificateException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "--tls-cert " + file + " holds a certificate that cannot be read: " + e.getMessage(), e);
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(
          "--tls-cert "
              + file
              + " holds no certificate: give a PEM file of '-----BEGIN CERTIFICATE-----' blocks,"
              + " the server's first (e.g. Let's Encrypt's fullchain.pem)");
    }
    return out;
  }

  /** The private key of a PEM file: PKCS#8, or PKCS#1 for RSA. */
  static PrivateKey privateKey(Path file) {
    String text = read(file, "--tls-key");
    Matcher m = PEM.matcher(text);
    while (m.find()) {
      String type = m.group(1);
      byte[] der;
      try {
        der = decode(m.group(2));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--tls-key " + file + " is not valid PEM", e);
      }
      switch (type) {
        case "PRIVATE KEY" -> {
          return pkcs8(der, file);
        }
        case "RSA PRIVATE KEY" -> {
          return pkcs8(rsaToPkcs8(der), file);
        }
        case "ENCRYPTED PRIVATE KEY" ->
            throw new IllegalArgumentException(
                "--tls-key "
                    + file
                    + " is encrypted: give the key unencrypted, readable by the service's user"
                    + " only (openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pem)");
        case "EC PRIVATE KEY" ->
            throw new IllegalArgumentException(
                "--tls-key "
                    + file
                    + " is an EC key in the SEC1 form: convert it to PKCS#8 with openssl pkcs8"
                    + " -topk8 -nocrypt -in KEY -out KEY.pem");
        default -> {
          // parameters and the like: look further
        }
      }
    }
    throw new IllegalArgumentException(
        "--tls-key "
            + file
            + " holds no private key: give a PEM file with '-----BEGIN PRIVATE KEY-----' (or"
            + " '-----BEGIN RSA PRIVATE KEY-----')");
  }

  private static byte[] decode(String base64) {
    return Base64.getMimeDecoder().decode(base64.strip());
  }

  private static PrivateKey pkcs8(byte[] der, Path file) {
    for (String algorithm : new String[] {"RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS"}) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (InvalidKeySpecException | java.security.NoSuchAlgorithmException e) {
        // another algorithm
      }
    }
    throw new IllegalArgumentException(
        "--tls-key " + file + " holds a key that is neither RSA, EC nor EdDSA, or is damaged");
  }

  /** Wraps a PKCS#1 RSA key in PKCS#8: SEQUENCE {0, {rsaEncryption, NULL}, OCTET STRING key}. */
  private static byte[] rsaToPkcs8(byte[] pkcs1) {
    byte[] algorithm = {
      0x30,
      0x0d,
      0x06,
      0x09,
      0x2a,
      (byte) 0x86,
      0x48,
      (byte) 0x86,
      (byte) 0xf7,
      0x0d,
      0x01,
      0x01,
      0x01,
      0x05,
      0x00
    };
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes(new byte[] {0x02, 0x01, 0x00});
    body.writeBytes(algorithm);
    body.write(0x04);
    body.writeBytes(derLength(pkcs1.length));
    body.writeBytes(pkcs1);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(0x30);
    out.writeBytes(derLength(body.size()));
    out.writeBytes(body.toByteArray());
    return out.toByteArray();
  }

  private static byte[] derLength(int n) {
    if (n < 0x80) {
      return new byte[] {(byte) n};
    }
    if (n < 0x100) {
      return new byte[] {(byte) 0x81, (byte) n};
    }
    if (n < 0x10000) {
      return new byte[] {(byte) 0x82, (byte) (n >> 8), (byte) n};
    }
    return new byte[] {(byte) 0x83, (byte) (n >> 16), (byte) (n >> 8), (byte) n};
  }

  /** Whether {@code key} signs what the certificate's public key verifies. */
  private static boolean matches(PrivateKey key, X509Certificate cert) {
    String algorithm =
        switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          default -> key.getAlgorithm(); // Ed25519, Ed448
        };
    try {
      byte[] probe = "spyglass".getBytes(StandardCharsets.US_ASCII);
      Signature s = Signature.getInstance(algorithm);
      s.initSign(key);
      s.update(probe);
      byte[] signed = s.sign();
      Signature v = Signature.getInstance(algorithm);
      v.initVerify(cert.getPublicKey());
      v.update(probe);
      return v.verify(signed);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }
}
