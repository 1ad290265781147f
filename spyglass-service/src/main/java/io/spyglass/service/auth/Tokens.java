package io.spyglass.service.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Bearer tokens and the users they stand for, read from a file of lines {@code TOKEN USER [admin]}
 * (blank lines and lines starting with {@code #} are skipped). Without a file every request is the
 * same user, {@value #ANONYMOUS}, who is an admin: there is no one else to hide anything from.
 */
public final class Tokens {
  public static final String ANONYMOUS = "anonymous";

  private final Map<String, User> byToken;

  private Tokens(Map<String, User> byToken) {
    this.byToken = byToken;
  }

  /** No tokens: everyone is {@value #ANONYMOUS}. */
  public static Tokens none() {
    return new Tokens(null);
  }

  /**
   * Reads a tokens file.
   *
   * @throws IllegalArgumentException when a line is not {@code TOKEN USER [admin]}, a token is
   *     repeated, or the file has no token; the message names the line
   */
  public static Tokens load(Path file) throws IOException {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(
          "no tokens file "
              + file
              + ": give a file of lines TOKEN USER [admin], e.g. 's3cr3t alice admin'");
    }
    Map<String, User> byToken = new HashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] parts = line.split("\\s+");
      boolean admin = parts.length == 3 && parts[2].equals("admin");
      if (parts.length < 2 || parts.length > 3 || (parts.length == 3 && !admin)) {
        throw new IllegalArgumentException(
            file + " line " + (i + 1) + ": expected TOKEN USER [admin], e.g. 's3cr3t alice admin'");
      }
      if (byToken.put(parts[0], new User(parts[1], admin)) != null) {
        throw new IllegalArgumentException(
            file + " line " + (i + 1) + ": this token is given twice; each token names one user");
      }
    }
    if (byToken.isEmpty()) {
      throw new IllegalArgumentException(
          file + " has no token: add lines TOKEN USER [admin], e.g. 's3cr3t alice admin'");
    }
    return new Tokens(Map.copyOf(byToken));
  }

  /** Whether requests need a token. */
  public boolean required() {
    return byToken != null;
  }

  /** The user a token stands for; without tokens, {@value #ANONYMOUS} whatever the token. */
  public Optional<User> user(String token) {
    if (byToken == null) {
      return Optional.of(new User(ANONYMOUS, true));
    }
    return token == null ? Optional.empty() : Optional.ofNullable(byToken.get(token));
  }

  /** Users named in the file. */
  public int size() {
    return byToken == null ? 0 : byToken.size();
  }
}
