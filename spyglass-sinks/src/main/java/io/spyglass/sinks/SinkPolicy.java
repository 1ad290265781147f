package io.spyglass.sinks;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Which sinks a service may deliver to, so that a user cannot make the server call addresses of the
 * operator's network, write anywhere on its disk, or produce to any Kafka: webhooks only to the
 * hosts (and ports) the operator lists ({@code serve --sink-allow}), files only under the folder
 * the operator names ({@code --sink-dir}), Kafka only to the clusters the operator names ({@code
 * --sink-kafka}, and the service's own {@code --kafka}). The command ({@code spyglass query
 * --sink}) runs as its user, with {@link #unrestricted()}.
 *
 * <p>A webhook's host is compared as written in its URL, before any name is resolved: a name on the
 * list is trusted as the operator's choice (whatever it resolves to), and a name or address not on
 * it is refused whatever it resolves to.
 *
 * @param webhookHosts {@code HOST} (any port) or {@code HOST:PORT} entries, lower case; {@code
 *     [::1]:8080} for an IPv6 address
 * @param fileDir the folder file sinks are written under; null for no file sink
 * @param kafkaClusters the {@code HOST:PORT[,...]} of the clusters Kafka sinks may write to, the
 *     first the default; empty for none
 * @param allowAll whether anything well written is allowed (the command line's policy)
 */
public record SinkPolicy(
    List<String> webhookHosts, Path fileDir, List<String> kafkaClusters, boolean allowAll) {

  public SinkPolicy {
    List<String> hosts = new ArrayList<>();
    for (String h : webhookHosts) {
      hosts.add(normalizeEntry(h));
    }
    webhookHosts = List.copyOf(hosts);
    kafkaClusters = List.copyOf(kafkaClusters);
    fileDir = fileDir == null ? null : fileDir.toAbsolutePath().normalize();
  }

  /** What the command line allows: every sink well written (the user's own process). */
  public static SinkPolicy unrestricted() {
    return new SinkPolicy(List.of(), null, List.of(), true);
  }

  /** Nothing: a service whose operator allowed no sink. */
  public static final SinkPolicy NONE = new SinkPolicy(List.of(), null, List.of(), false);

  /**
   * The policy of a service.
   *
   * @throws IllegalArgumentException when an entry is not {@code HOST} or {@code HOST:PORT}
   */
  public static SinkPolicy of(List<String> webhookHosts, Path fileDir, List<String> kafkaClusters) {
    return new SinkPolicy(webhookHosts, fileDir, kafkaClusters, false);
  }

  private static String normalizeEntry(String entry) {
    String e = entry.strip().toLowerCase(Locale.ROOT);
    URI u;
    try {
      u = new URI("http://" + e + "/");
    } catch (java.net.URISyntaxException ex) {
      u = null;
    }
    if (e.isEmpty() || u == null || u.getHost() == null || !(u.getRawAuthority().equals(e))) {
      throw new IllegalArgumentException(
          "--sink-allow takes HOST or HOST:PORT (an IPv6 address in brackets: [::1]:8080), not '"
              + entry
              + "'");
    }
    return host(u.getHost()) + (u.getPort() >= 0 ? ":" + u.getPort() : "");
  }

  /** A host as compared: lower case, without a trailing dot. */
  private static String host(String h) {
    String s = h.toLowerCase(Locale.ROOT);
    return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
  }

  /**
   * Checks a sink against this policy and gives it as it is delivered: a file's path made absolute
   * (under {@link #fileDir()}), a Kafka sink's cluster filled in.
   *
   * @param field where it was written, for the error ({@code sinks[0]})
   * @throws SinkSpecException ({@link SinkSpecException#refused()}) when it is not allowed here
   */
  public SinkSpec check(SinkSpec spec, String field) {
    return switch (spec.type()) {
      case WEBHOOK -> {
        if (!allowAll) {
          checkWebhook(spec.target(), field + ".url");
        }
        yield spec;
      }
      case FILE -> spec.withTarget(filePath(spec.target(), field + ".path").toString());
      case KAFKA -> spec.withBootstrap(cluster(spec, field + ".bootstrap"));
    };
  }

  private void checkWebhook(String url, String field) {
    URI u = SinkSpec.webhookUri(url, field);
    String host = host(u.getHost());
    int port = u.getPort() >= 0 ? u.getPort() : u.getScheme().equalsIgnoreCase("https") ? 443 : 80;
    for (String e : webhookHosts) {
      if (e.equals(host) || e.equals(host + ":" + port)) {
        return;
      }
    }
    if (webhookHosts.isEmpty()) {
      throw new SinkSpecException(
          "This service sends to no webhook: its operator allowed no host (serve --sink-allow)",
          "Ask the operator to allow the receiver's host with --sink-allow HOST[:PORT], or use a"
              + " file or Kafka sink",
          field,
          true);
    }
    throw new SinkSpecException(
        "The webhook's host "
            + host
            + ":"
            + port
            + " is not one this service may send to (serve --sink-allow)",
        "Send to an allowed host ("
            + String.join(", ", webhookHosts)
            + "), or ask the operator to add --sink-allow "
            + host
            + (u.getPort() >= 0 ? ":" + port : ""),
        field,
        true);
  }

  /**
   * The file a file sink writes: as given for the command line; for a service, under {@link
   * #fileDir()} (a relative path from it, or an absolute one inside it), never outside it.
   */
  private Path filePath(String target, String field) {
    Path p;
    try {
      p = Path.of(target);
    } catch (InvalidPathException e) {
      throw new SinkSpecException(
          "'" + target + "' is not a file path: " + e.getReason(),
          "Give a path such as results/my-query.ndjson",
          field);
    }
    if (allowAll) {
      return p.toAbsolutePath().normalize();
    }
    if (fileDir == null) {
      throw new SinkSpecException(
          "This service writes no file sink: its operator named no folder for them (serve"
              + " --sink-dir)",
          "Ask the operator for --sink-dir DIR, or use a webhook or Kafka sink",
          field,
          true);
    }
    Path resolved = fileDir.resolve(p).normalize();
    if (!resolved.startsWith(fileDir) || resolved.equals(fileDir)) {
      throw new SinkSpecException(
          "The file sink '" + target + "' is outside the folder this service writes sinks to",
          "Give a path inside it, relative to it, e.g. results/my-query.ndjson (no '..')",
          field,
          true);
    }
    return resolved;
  }

  /**
   * Makes the folders of a file sink's path and checks, now that they exist, that they really are
   * inside {@link #fileDir()} (a link inside it may point out of it). For the sender, before it
   * opens the file (which it opens without following a link).
   *
   * @throws IOException when a folder cannot be made, or the path leads out of the folder
   */
  void prepareFile(Path file) throws IOException {
    Path parent = file.getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    if (allowAll || fileDir == null) {
      return;
    }
    Path realDir = fileDir.toRealPath();
    Path realParent = parent == null ? null : parent.toRealPath();
    if (realParent == null || !realParent.startsWith(realDir)) {
      throw new IOException(
          "the file sink's folder leads outside --sink-dir (through a link): " + file);
    }
    if (Files.isSymbolicLink(file)) {
      throw new IOException("the file sink is a link, which is not followed: " + file);
    }
    if (Files.exists(file, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(file)) {
      throw new IOException("the file sink is not a regular file: " + file);
    }
  }

  private String cluster(SinkSpec spec, String field) {
    if (allowAll) {
      if (spec.bootstrap() == null) {
        throw new SinkSpecException(
            "A Kafka sink here needs its cluster", "Write kafka://HOST:PORT/TOPIC", field);
      }
      return spec.bootstrap();
    }
    if (kafkaClusters.isEmpty()) {
      throw new SinkSpecException(
          "This service writes to no Kafka: its operator named no cluster for sinks (serve"
              + " --sink-kafka, or --kafka)",
          "Ask the operator for --sink-kafka HOST:PORT, or use a webhook or file sink",
          field,
          true);
    }
    if (spec.bootstrap() == null) {
      return kafkaClusters.get(0);
    }
    for (String c : kafkaClusters) {
      if (c.equalsIgnoreCase(spec.bootstrap().strip())) {
        return c;
      }
    }
    throw new SinkSpecException(
        "This service does not write to the Kafka at " + spec.bootstrap(),
        "Leave \"bootstrap\" out to use "
            + kafkaClusters.get(0)
            + ", or name one of "
            + String.join("; ", kafkaClusters),
        field,
        true);
  }
}
