package io.spyglass.service.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Bearer tokens and the users they stand for, read from a file of lines {@code TOKEN USER
 * [ROLE...]} (blank lines and lines starting with {@code #} are skipped). The roles are {@code
 * admin} (sees and ends everyone's queries, ingests, reads every tenant's rows), {@code ingest}
 * (may post documents to {@code /api/ingest}) and {@code tenant=NAME}, once or more (the token
 * ingests only documents of these tenants and reads only their rows of standing queries; not with
 * {@code admin}). Tokens are at least {@value #MIN_LENGTH} characters; only their SHA-256 digests
 * are kept, and a token is compared with every digest in constant time.
 *
 * <p>Without a file every request is the same user, {@value #ANONYMOUS}, who is an admin: there is
 * no one else to hide anything from.
 */
public final class Tokens {
  public static final String ANONYMOUS = "anonymous";

  /** The fewest characters a token has. */
  public static final int MIN_LENGTH = 16;

  private static final String FORM =
      "TOKEN USER [admin] [ingest] [tenant=NAME ...], e.g. '3f9c1e7a5b2d48e6 alice admin'";
  private static final User EVERYONE = new User(ANONYMOUS, true, true, Set.of());

  private record Entry(byte[] digest, User user) {}

  private final List<Entry> entries;

  private Tokens(List<Entry> entries) {
    this.entries = entries;
  }

  /** No tokens: everyone is {@value #ANONYMOUS}. */
  public static Tokens none() {
    return new Tokens(null);
  }

  /**
   * Reads a tokens file.
   *
   * @throws IllegalArgumentException when a line is not {@code TOKEN USER [ROLE...]}, a role is
   *     unknown, a token is shorter than {@value #MIN_LENGTH} characters or repeated, or the file
   *     has no token; the message names the line (never the token)
   */
  public static Tokens load(Path file) throws IOException {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(
          "no tokens file " + file + ": give a file of lines " + FORM);
    }
    List<Entry> entries = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String where = file + " line " + (i + 1) + ": ";
      String[] parts = line.split("\\s+");
      if (parts.length < 2) {
        throw new IllegalArgumentException(where + "expected " + FORM);
      }
      if (parts[0].length() < MIN_LENGTH) {
        throw new IllegalArgumentException(
            where
                + "the token has "
                + parts[0].length()
                + " characters, fewer than "
                + MIN_LENGTH
                + ": a short token can be guessed; make one with e.g. 'openssl rand -hex 16'");
      }
      User user = user(parts, where);
      byte[] digest = sha256(parts[0]);
      if (!seen.add(hex(digest))) {
        throw new IllegalArgumentException(
            where + "this token is given twice; each token names one user");
      }
      entries.add(new Entry(digest, user));
    }
    if (entries.isEmpty()) {
      throw new IllegalArgumentException(file + " has no token: add lines " + FORM);
    }
    return new Tokens(List.copyOf(entries));
  }

  private static User user(String[] parts, String where) {
    boolean admin = false;
    boolean ingest = false;
    Set<String> tenants = new LinkedHashSet<>();
    for (int r = 2; r < parts.length; r++) {
      String role = parts[r];
      if (role.equals("admin")) {
        admin = true;
      } else if (role.equals("ingest")) {
        ingest = true;
      } else if (role.startsWith("tenant=") && role.length() > "tenant=".length()) {
        tenants.add(role.substring("tenant=".length()));
      } else {
        throw new IllegalArgumentException(
            where
                + "'"
                + role
                + "' is not a role: the roles are admin, ingest and tenant=NAME; expected "
                + FORM);
      }
    }
    if (admin && !tenants.isEmpty()) {
      throw new IllegalArgumentException(
          where
              + "an admin reads every tenant's rows: give a token admin, or bind it to tenants"
              + " (tenant=NAME), not both");
    }
    return new User(parts[1], admin, ingest, tenants);
  }

  /** Whether requests need a token. */
  public boolean required() {
    return entries != null;
  }

  /** The user a token stands for; without tokens, {@value #ANONYMOUS} whatever the token. */
  public Optional<User> user(String token) {
    if (entries == null) {
      return Optional.of(EVERYONE);
    }
    if (token == null) {
      return Optional.empty();
    }
    byte[] digest = sha256(token);
    User found = null;
    for (Entry e : entries) { // every entry, whichever matches: the time tells nothing
      if (MessageDigest.isEqual(e.digest(), digest)) {
        found = e.user();
      }
    }
    return Optional.ofNullable(found);
  }

  /** Tokens in the file. */
  public int size() {
    return entries == null ? 0 : entries.size();
  }

  private static byte[] sha256(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java has SHA-256", e);
    }
  }

  private static String hex(byte[] b) {
    StringBuilder s = new StringBuilder(b.length * 2);
    for (byte x : b) {
      s.append(Character.forDigit((x >> 4) & 15, 16)).append(Character.forDigit(x & 15, 16));
    }
    return s.toString();
  }
}
