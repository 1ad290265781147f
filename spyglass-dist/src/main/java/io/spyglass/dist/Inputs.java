package io.spyglass.dist;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/** Reads what the build knows of the bundled components. */
final class Inputs {
  static final ObjectMapper JSON = new ObjectMapper();

  private Inputs() {}

  /**
   * The artifacts of {@code mvn dependency:list -DoutputAbsoluteArtifactFilename=true}: lines
   * {@code group:artifact:type[:classifier]:version:scope:/path/to.jar[ -- module name]}.
   */
  static List<Component> artifacts(Path list) throws IOException {
    List<Component> out = new ArrayList<>();
    for (String raw : Files.readAllLines(list)) {
      String line = raw.strip();
      int module = line.indexOf(" -- module ");
      if (module >= 0) {
        line = line.substring(0, module);
      }
      int path = line.indexOf(":/");
      if (path < 0) {
        continue; // the heading, blank lines
      }
      String[] parts = line.substring(0, path).split(":");
      if (parts.length < 5) {
        throw new IOException("not an artifact in " + list + ": " + raw);
      }
      String version = parts[parts.length - 2];
      Path jar = Path.of(line.substring(path + 1));
      out.add(new Component("maven", parts[0], parts[1], version, List.of(), jar, Map.of()));
    }
    return out;
  }

  /** {@code group:artifact:version=/path/to.jar}: an artifact bundled outside the tree. */
  static Component embedded(String spec) throws IOException {
    int eq = spec.indexOf('=');
    String[] gav = spec.substring(0, Math.max(eq, 0)).split(":");
    if (eq < 0 || gav.length != 3) {
      throw new IllegalArgumentException("--embedded takes GROUP:ARTIFACT:VERSION=JAR: " + spec);
    }
    Path jar = Path.of(spec.substring(eq + 1));
    Map<String, String> hashes = Map.of("SHA-256", hex(digest("SHA-256", Files.readAllBytes(jar))));
    return new Component("maven", gav[0], gav[1], gav[2], List.of(), jar, hashes);
  }

  /**
   * The licences each Maven component of a CycloneDX SBOM declares, by {@code group:name:version}:
   * an SPDX id where the POM's licence maps to one, its name otherwise, or an SPDX expression.
   */
  static Map<String, List<String>> licences(JsonNode bom) {
    Map<String, List<String>> out = new HashMap<>();
    for (JsonNode c : bom.path("components")) {
      List<String> declared = new ArrayList<>();
      for (JsonNode l : c.path("licenses")) {
        if (l.has("expression")) {
          declared.add(l.get("expression").asText());
        } else if (l.path("license").has("id")) {
          declared.add(l.path("license").get("id").asText());
        } else if (l.path("license").has("name")) {
          declared.add(l.path("license").get("name").asText());
        }
      }
      out.put(
          c.path("group").asText()
              + ":"
              + c.path("name").asText()
              + ":"
              + c.path("version").asText(),
          declared);
    }
    return out;
  }

  /**
   * The web UI's npm packages that end up in its build: the entries of package-lock.json (version 2
   * or 3) that are not development-only.
   */
  static List<Component> npmPackages(Path lock) throws IOException {
    JsonNode packages = JSON.readTree(lock.toFile()).path("packages");
    List<Component> out = new ArrayList<>();
    for (Map.Entry<String, JsonNode> e : packages.properties()) {
      String key = e.getKey();
      JsonNode p = e.getValue();
      if (key.isEmpty()
          || p.path("dev").asBoolean(false)
          || p.path("devOptional").asBoolean(false)
          || p.path("link").asBoolean(false)) {
        continue;
      }
      String name = key.substring(key.lastIndexOf("node_modules/") + "node_modules/".length());
      List<String> licences = new ArrayList<>();
      if (p.has("license")) {
        licences.add(p.get("license").asText());
      }
      // npm's integrity is the package's tarball's digest, "sha512-" and Base64
      Map<String, String> hashes = new HashMap<>();
      String integrity = p.path("integrity").asText("");
      if (integrity.startsWith("sha512-")) {
        hashes.put("SHA-512", hex(Base64.getDecoder().decode(integrity.substring(7))));
      }
      Path folder = lock.toAbsolutePath().getParent().resolve(key);
      out.add(
          new Component(
              "npm",
              "",
              name,
              p.path("version").asText(),
              licences,
              Files.isDirectory(folder) ? folder : null,
              hashes));
    }
    return out;
  }

  /**
   * The artifacts of {@code candidates} (the shaded jar's build's own, from its {@code
   * dependency:list}) that a shaded jar holds, in their order: those whose Maven descriptor ({@code
   * META-INF/maven/GROUP/ARTIFACT/pom.properties}, which the shade keeps) it has in the same
   * version, and those built without one (Kafka's, Flink's connectors) whose first class file it
   * has. Left out: Spyglass's own ({@code io.spyglass}), and those the shade left out (Flink
   * itself, the logging API). The candidates being the build's own, a class found is that
   * version's.
   */
  static List<Component> heldIn(Path jar, List<Component> candidates) throws IOException {
    List<Component> out = new ArrayList<>();
    try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(jar.toFile())) {
      for (Component c : candidates) {
        if (c.group().equals("io.spyglass")
            || c.source() == null
            || !Files.isRegularFile(c.source())
            || !c.source().toString().endsWith(".jar")) {
          continue;
        }
        if (hasDescriptor(zip, c)) {
          out.add(c);
          continue;
        }
        String first = firstClass(c.source());
        if (first != null && zip.getEntry(first) != null) {
          out.add(c);
        }
      }
    }
    return out;
  }

  /** Whether {@code zip} holds {@code c}'s Maven descriptor, of {@code c}'s version. */
  private static boolean hasDescriptor(java.util.zip.ZipFile zip, Component c) throws IOException {
    java.util.zip.ZipEntry e =
        zip.getEntry("META-INF/maven/" + c.group() + "/" + c.name() + "/pom.properties");
    if (e == null) {
      return false;
    }
    java.util.Properties p = new java.util.Properties();
    try (java.io.InputStream in = zip.getInputStream(e)) {
      p.load(in);
    }
    return c.version().equals(p.getProperty("version"));
  }

  private static String firstClass(Path jar) throws IOException {
    try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(jar.toFile())) {
      return zip.stream()
          .map(java.util.zip.ZipEntry::getName)
          .filter(
              n ->
                  n.endsWith(".class")
                      && !n.startsWith("META-INF/")
                      && !n.endsWith("module-info.class"))
          .findFirst()
          .orElse(null);
    }
  }

  static byte[] digest(String algorithm, byte[] bytes) {
    try {
      return MessageDigest.getInstance(algorithm).digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(algorithm + " is a digest every JDK has", e);
    }
  }

  static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }
}
