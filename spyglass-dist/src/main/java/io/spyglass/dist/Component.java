package io.spyglass.dist;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One third-party component that the release bundles: a Maven artifact (a jar in lib/), or an npm
 * package inside its web UI.
 *
 * @param ecosystem {@code maven} or {@code npm}
 * @param group the Maven group id; empty for npm (a scope is part of an npm package's name)
 * @param name the artifact id or the npm package's name ({@code @codemirror/view})
 * @param version its version
 * @param licences the licences it declares (SPDX ids where it gives one, else names), in its order
 * @param source the jar or the package's folder its licence and notice files are read from; null
 *     when there is none to read
 * @param hashes digests of what was bundled, by CycloneDX algorithm name ({@code SHA-512}), in hex
 */
record Component(
    String ecosystem,
    String group,
    String name,
    String version,
    List<String> licences,
    Path source,
    Map<String, String> hashes) {

  Component {
    licences = List.copyOf(licences);
    hashes = Map.copyOf(hashes);
  }

  /** {@code group:name} for Maven, the package's name for npm. */
  String id() {
    return group.isEmpty() ? name : group + ":" + name;
  }

  /** {@code group:name:version} for Maven, {@code name@version} for npm. */
  String coordinates() {
    return group.isEmpty() ? name + "@" + version : group + ":" + name + ":" + version;
  }

  /** The package URL (purl) CycloneDX and scanners name it by. */
  String purl() {
    if (ecosystem.equals("npm")) {
      return "pkg:npm/" + name.replace("@", "%40") + "@" + version;
    }
    return "pkg:maven/" + group + "/" + name + "@" + version + "?type=jar";
  }

  /** The folder under licenses/ that holds its licence files. */
  String folder() {
    return ecosystem.equals("npm") ? "npm/" + name : group + "/" + name;
  }

  Component withLicences(List<String> declared) {
    return new Component(ecosystem, group, name, version, declared, source, hashes);
  }
}
