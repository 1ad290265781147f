package io.spyglass.dist;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Writes the legal files of the release archive, which the shaded jar cannot keep (each of its
 * artifacts has a META-INF/NOTICE and a META-INF/LICENSE, and a jar holds one of each):
 *
 * <ul>
 *   <li>{@code NOTICE}: the project's notice, then every bundled artifact's notice as it ships it
 *       (a text that several carry, once, under all their names);
 *   <li>{@code THIRD-PARTY.txt}: each bundled component with its version and the licences it
 *       declares (its POM, through the SBOM; package-lock.json for the web UI's npm packages);
 *   <li>{@code licenses/GROUP/ARTIFACT/} and {@code licenses/npm/NAME/}: the licence files each
 *       carries;
 *   <li>{@code sbom.cdx.json}: the CycloneDX SBOM of the Maven build with what its dependency tree
 *       does not show: the web UI's npm packages and artifacts embedded otherwise ({@code
 *       --embedded}).
 * </ul>
 *
 * <p>A shaded jar the release carries besides lib/ ({@code --job jobs/spyglass-flink-job.jar=JAR}:
 * the Flink job an operator submits to a cluster) gets a section of THIRD-PARTY.txt of its own,
 * made from the artifacts its own build resolved ({@code --job-artifacts
 * jobs/spyglass-flink-job.jar=LIST}, that module's {@code dependency:list}) that the jar holds, in
 * the versions it holds (the job's kafka-clients is not lib/'s); one that lib/ does not hold in the
 * same version is added to the lists, the licence files and the SBOM.
 *
 * <p>Usage: {@code LegalFiles --name Spyglass --version V --artifacts LIST --sbom BOM.json
 * [--embedded G:A:V=JAR ...] [--npm-lock package-lock.json] [--job PATH=JAR --job-artifacts
 * PATH=LIST ...] --out DIR}.
 */
public final class LegalFiles {
  /** Licence and notice files, at a jar's root, under META-INF/ or at an npm package's top. */
  private static final Pattern LEGAL =
      Pattern.compile("(?i)(?:META-INF/(?:.*/)?)?(LICEN[CS]E|NOTICE|COPYING)[^/]*");

  private static final Pattern NOTICE = Pattern.compile("(?i)(?:.*/)?NOTICE[^/]*");
  private static final Pattern RECOGNISED = Pattern.compile("(\\S+) \\(its .+ file\\)");
  private static final String RULE = "=".repeat(78);

  private final String name;
  private final String version;
  private final Path out;

  private LegalFiles(String name, String version, Path out) {
    this.name = name;
    this.version = version;
    this.out = out;
  }

  public static void main(String[] args) throws IOException {
    Map<String, List<String>> options = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("expected an --option, got " + args[i]);
      }
      options.computeIfAbsent(args[i].substring(2), k -> new ArrayList<>()).add(args[i + 1]);
    }
    Path out = Path.of(one(options, "out"));
    LegalFiles files = new LegalFiles(one(options, "name"), one(options, "version"), out);
    JsonNode bom = Inputs.JSON.readTree(Path.of(one(options, "sbom")).toFile());
    Map<String, List<String>> declared = Inputs.licences(bom);

    List<Component> maven = new ArrayList<>();
    for (Component c : Inputs.artifacts(Path.of(one(options, "artifacts")))) {
      maven.add(c.withLicences(declared.getOrDefault(c.coordinates(), List.of())));
    }
    List<Component> embedded = new ArrayList<>();
    for (String spec : options.getOrDefault("embedded", List.of())) {
      embedded.add(Inputs.embedded(spec));
    }
    List<Component> npm = new ArrayList<>();
    for (String lock : options.getOrDefault("npm-lock", List.of())) {
      npm.addAll(Inputs.npmPackages(Path.of(lock)));
    }
    List<Component> all = new ArrayList<>(maven);
    all.addAll(embedded);
    all.addAll(npm);
    // the shaded jars beside lib/: what each holds (the artifacts its build resolved that it
    // carries, in their versions), and what of it lib/ does not
    Map<String, Path> jobLists = new LinkedHashMap<>();
    for (String spec : options.getOrDefault("job-artifacts", List.of())) {
      int eq = spec.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException(
            "--job-artifacts takes PATH_IN_THE_RELEASE=LIST (the job's dependency:list): " + spec);
      }
      jobLists.put(spec.substring(0, eq), Path.of(spec.substring(eq + 1)));
    }
    Map<String, List<String>> jobs = new LinkedHashMap<>();
    List<Component> jobOnly = new ArrayList<>();
    for (String spec : options.getOrDefault("job", List.of())) {
      int eq = spec.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("--job takes PATH_IN_THE_RELEASE=JAR: " + spec);
      }
      String path = spec.substring(0, eq);
      Path jar = Path.of(spec.substring(eq + 1));
      Path list = jobLists.get(path);
      if (list == null) {
        throw new IllegalArgumentException(
            "give --job-artifacts "
                + path
                + "=LIST too: the artifacts the job's build resolved (mvn dependency:list"
                + " -DoutputAbsoluteArtifactFilename=true), whose versions the job bundles");
      }
      List<Component> held = Inputs.heldIn(jar, Inputs.artifacts(list));
      jobs.put(path, held.stream().map(Component::coordinates).toList());
      for (Component c : held) {
        String gav = c.coordinates();
        if (all.stream().noneMatch(a -> a.coordinates().equals(gav))
            && jobOnly.stream().noneMatch(a -> a.coordinates().equals(gav))) {
          List<String> licences = declared.getOrDefault(gav, List.of());
          if (licences.isEmpty()) { // another version of it in lib/: its licence
            licences =
                all.stream()
                    .filter(a -> a.group().equals(c.group()) && a.name().equals(c.name()))
                    .findFirst()
                    .map(Component::licences)
                    .orElse(List.of());
          }
          jobOnly.add(c.withLicences(licences));
        }
      }
    }
    all.addAll(jobOnly);
    all.sort(Comparator.comparing(Component::ecosystem).thenComparing(Component::coordinates));

    Files.createDirectories(out);
    Map<Component, Map<String, String>> legal = new LinkedHashMap<>();
    for (int i = 0; i < all.size(); i++) {
      Component c = all.get(i);
      Map<String, String> texts = legalTexts(c);
      if (c.licences().isEmpty()) {
        // a POM that inherits its licence from a parent the SBOM did not read: its licence file
        c = c.withLicences(recognised(texts));
        all.set(i, c);
      }
      legal.put(c, texts);
    }
    Map<String, Component> known = new HashMap<>();
    all.forEach(c -> known.put(c.coordinates(), c));
    embedded.replaceAll(c -> known.get(c.coordinates()));
    npm.replaceAll(c -> known.get(c.coordinates()));
    jobOnly.replaceAll(c -> known.get(c.coordinates()));
    files.writeLicences(legal);
    files.writeNotice(legal);
    files.writeThirdParty(all, jobs, known);
    files.writeSbom((ObjectNode) bom, all, embedded, npm, jobOnly);
  }

  private static String one(Map<String, List<String>> options, String key) {
    List<String> values = options.get(key);
    if (values == null || values.size() != 1) {
      throw new IllegalArgumentException("give --" + key + " once");
    }
    return values.get(0);
  }

  /**
   * The licences that a component's licence files are the text of, for the two most components
   * carry, marked as read from the file: {@code Apache-2.0 (its LICENSE file)}.
   */
  static List<String> recognised(Map<String, String> texts) {
    for (Map.Entry<String, String> f : texts.entrySet()) {
      if (NOTICE.matcher(f.getKey()).matches()) {
        continue;
      }
      String text = f.getValue().replaceAll("\\s+", " ");
      String file = f.getKey().substring(f.getKey().lastIndexOf('/') + 1);
      if (text.contains("Apache License") && text.contains("Version 2.0")) {
        return List.of("Apache-2.0 (its " + file + " file)");
      }
      if (text.contains("Permission is hereby granted, free of charge")) {
        return List.of("MIT (its " + file + " file)");
      }
    }
    return List.of();
  }

  /** The licence and notice files a component carries: path inside it, text. */
  static Map<String, String> legalTexts(Component c) throws IOException {
    Map<String, String> texts = new TreeMap<>();
    if (c.source() == null) {
      return texts;
    }
    if (Files.isDirectory(c.source())) {
      try (Stream<Path> files = Files.list(c.source())) {
        for (Path f : files.sorted().toList()) {
          String n = f.getFileName().toString();
          if (Files.isRegularFile(f) && LEGAL.matcher(n).matches()) {
            texts.put(n, Files.readString(f, StandardCharsets.UTF_8));
          }
        }
      }
      return texts;
    }
    try (ZipFile zip = new ZipFile(c.source().toFile())) {
      for (ZipEntry e : zip.stream().toList()) {
        if (!e.isDirectory()
            && LEGAL.matcher(e.getName()).matches()
            && !e.getName().endsWith(".class")) {
          try (InputStream in = zip.getInputStream(e)) {
            texts.put(e.getName(), new String(in.readAllBytes(), StandardCharsets.UTF_8));
          }
        }
      }
    }
    return texts;
  }

  /** licenses/FOLDER/FILE for each licence file (notices go to NOTICE). */
  private void writeLicences(Map<Component, Map<String, String>> legal) throws IOException {
    for (Map.Entry<Component, Map<String, String>> e : legal.entrySet()) {
      for (Map.Entry<String, String> f : e.getValue().entrySet()) {
        if (NOTICE.matcher(f.getKey()).matches()) {
          continue;
        }
        String path = f.getKey().startsWith("META-INF/") ? f.getKey().substring(9) : f.getKey();
        Path target = out.resolve("licenses").resolve(e.getKey().folder()).resolve(path);
        Files.createDirectories(target.getParent());
        Files.writeString(target, f.getValue(), StandardCharsets.UTF_8);
      }
    }
  }

  private void writeNotice(Map<Component, Map<String, String>> legal) throws IOException {
    // each distinct text once, under every component that carries it, in the components' order
    Map<String, List<String>> byText = new LinkedHashMap<>();
    for (Map.Entry<Component, Map<String, String>> e : legal.entrySet()) {
      for (Map.Entry<String, String> f : e.getValue().entrySet()) {
        if (NOTICE.matcher(f.getKey()).matches()) {
          String text = normalize(f.getValue());
          if (!text.isEmpty()) {
            List<String> who = byText.computeIfAbsent(text, k -> new ArrayList<>());
            String c = e.getKey().coordinates();
            if (!who.contains(c)) {
              who.add(c);
            }
          }
        }
      }
    }
    StringBuilder b = new StringBuilder();
    b.append(name).append(' ').append(version).append('\n');
    b.append("Copyright 2026 The ").append(name).append(" Authors\n\n");
    b.append("This product is licensed under the Apache License, Version 2.0 (LICENSE).\n\n");
    b.append("This release bundles third-party software, each part under its own licence:\n");
    b.append("THIRD-PARTY.txt lists them with their versions and licences, and licenses/ holds\n");
    b.append("the licence files they carry. The notices they carry follow, as they ship them.\n");
    for (Map.Entry<String, List<String>> e : byText.entrySet()) {
      b.append('\n').append(RULE).append('\n');
      for (String c : e.getValue()) {
        b.append(c).append('\n');
      }
      b.append(RULE).append("\n\n").append(e.getKey()).append('\n');
    }
    Files.writeString(out.resolve("NOTICE"), b.toString(), StandardCharsets.UTF_8);
  }

  private static String normalize(String text) {
    return text.replace("\r\n", "\n").replace('\r', '\n').strip();
  }

  private void writeThirdParty(
      List<Component> all, Map<String, List<String>> jobs, Map<String, Component> known)
      throws IOException {
    Map<String, Integer> byLicence = new TreeMap<>();
    for (Component c : all) {
      for (String l : c.licences().isEmpty() ? List.of("(none declared)") : c.licences()) {
        byLicence.merge(l, 1, Integer::sum);
      }
    }
    StringBuilder b = new StringBuilder();
    b.append("Third-party software in ").append(name).append(' ').append(version).append("\n\n");
    b.append(
        "lib/ holds the Maven artifacts below, one jar each (and DataSketches 9 for Java 25\n");
    b.append(
        "inside spyglass-core's jar); the web UI in spyglass-ui's jar holds the npm packages.\n");
    b.append("Licences are as each declares them: its POM for Maven artifacts, its\n");
    b.append("package.json for npm packages; several for one component mean a choice or a\n");
    b.append("combination, as the component states. The licence files the components carry are\n");
    b.append(
        "under licenses/; the Apache License 2.0 is LICENSE. sbom.cdx.json is the same list\n");
    b.append("as a CycloneDX SBOM.\n\n");
    b.append("Components by licence:\n");
    byLicence.forEach((l, n) -> b.append(String.format("  %4d  %s%n", n, l)));
    section(b, "Maven artifacts (group:artifact version: licences)", all, "maven");
    section(b, "npm packages of the web UI (name version: licences)", all, "npm");
    for (Map.Entry<String, List<String>> job : jobs.entrySet()) {
      b.append('\n')
          .append(job.getKey())
          .append(" (the Flink job, for a Flink cluster) holds these of the above, with Spyglass's")
          .append("\nown classes (group:artifact version: licences):\n");
      for (String gav : job.getValue().stream().sorted().toList()) {
        Component c = known.get(gav);
        String licences =
            c == null || c.licences().isEmpty()
                ? "(none declared)"
                : String.join(", ", c.licences());
        b.append("  ").append(c.id()).append(' ').append(c.version()).append(": ");
        b.append(licences).append('\n');
      }
    }
    Files.writeString(out.resolve("THIRD-PARTY.txt"), b.toString(), StandardCharsets.UTF_8);
  }

  private static void section(StringBuilder b, String title, List<Component> all, String eco) {
    b.append('\n').append(title).append(":\n");
    for (Component c : all) {
      if (c.ecosystem().equals(eco)) {
        String licences =
            c.licences().isEmpty() ? "(none declared)" : String.join(", ", c.licences());
        b.append("  ").append(c.id()).append(' ').append(c.version()).append(": ");
        b.append(licences).append('\n');
      }
    }
  }

  /**
   * The Maven SBOM with the components its dependency tree does not show, each a dependency of the
   * module that bundles it: embedded artifacts of spyglass-core, npm packages of spyglass-ui.
   */
  private void writeSbom(
      ObjectNode bom,
      List<Component> all,
      List<Component> embedded,
      List<Component> npm,
      List<Component> jobOnly)
      throws IOException {
    ArrayNode components = bom.withArray("components");
    ArrayNode dependencies = bom.withArray("dependencies");
    // the licences read from the licence files of components whose POM gave none
    Map<String, Component> byCoordinates = new HashMap<>();
    all.forEach(c -> byCoordinates.put(c.coordinates(), c));
    for (JsonNode c : components) {
      String gav = c.path("group").asText() + ":" + c.path("name").asText();
      Component known = byCoordinates.get(gav + ":" + c.path("version").asText());
      if (known != null && c.path("licenses").isEmpty()) {
        licences(((ObjectNode) c).putArray("licenses"), known.licences());
      }
    }
    attach(components, dependencies, "spyglass-core", embedded);
    attach(components, dependencies, "spyglass-ui", npm);
    attach(components, dependencies, "spyglass-flink", jobOnly);
    Inputs.JSON
        .writerWithDefaultPrettyPrinter()
        .writeValue(out.resolve("sbom.cdx.json").toFile(), bom);
  }

  /**
   * CycloneDX licences: an SPDX id as {@code id}, any other name as {@code name}; one recognised
   * from its text ({@code Apache-2.0 (its LICENSE file)}) is {@code concluded}, not declared.
   */
  private static void licences(ArrayNode array, List<String> licences) {
    for (String l : licences) {
      Matcher recognised = RECOGNISED.matcher(l);
      ObjectNode licence = array.addObject().putObject("license");
      if (recognised.matches()) {
        licence.put("id", recognised.group(1));
        licence.put("acknowledgement", "concluded");
      } else if (l.matches("[A-Za-z0-9.+-]+")) {
        licence.put("id", l);
      } else {
        licence.put("name", l);
      }
    }
  }

  private static void attach(
      ArrayNode components, ArrayNode dependencies, String owner, List<Component> added) {
    String ownerRef = null;
    for (JsonNode c : components) {
      if (c.path("group").asText().equals("io.spyglass") && c.path("name").asText().equals(owner)) {
        ownerRef = c.path("bom-ref").asText();
      }
    }
    ArrayNode dependsOn = null;
    for (JsonNode d : dependencies) {
      if (d.path("ref").asText().equals(ownerRef)) {
        dependsOn = ((ObjectNode) d).withArray("dependsOn");
      }
    }
    for (Component c : added) {
      ObjectNode n = components.addObject();
      n.put("type", "library");
      n.put("bom-ref", c.purl());
      if (!c.group().isEmpty()) {
        n.put("group", c.group());
      }
      n.put("name", c.name());
      n.put("version", c.version());
      n.put("scope", "required");
      if (!c.hashes().isEmpty()) {
        ArrayNode hashes = n.putArray("hashes");
        new TreeMap<>(c.hashes())
            .forEach((alg, hex) -> hashes.addObject().put("alg", alg).put("content", hex));
      }
      licences(n.putArray("licenses"), c.licences());
      n.put("purl", c.purl());
      dependencies.addObject().put("ref", c.purl()).putArray("dependsOn");
      if (dependsOn != null) {
        dependsOn.add(c.purl());
      }
    }
  }
}
