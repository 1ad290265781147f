package io.spyglass.service.http;

import io.spyglass.service.auth.User;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Stream tickets ({@code POST /api/tickets}): short-lived, single-use stand-ins for a user's token
 * in the URL of a result stream, where a browser cannot set headers ({@code EventSource}, {@code
 * WebSocket}). A ticket in a log or a proxy's history is worthless once used or 30 s old.
 * Thread-safe.
 */
final class Tickets {
  /** How long a ticket is good for. */
  static final long TTL_MS = 30_000;

  /** Most tickets one user may hold unused at once. */
  static final int MAX_PER_USER = 100;

  private record Ticket(User user, long expiresMs) {}

  /** What {@link #issue} hands out. */
  record Issued(String ticket, long expiresMs) {}

  private final SecureRandom random = new SecureRandom();
  private final Map<String, Ticket> open = new ConcurrentHashMap<>();
  private final LongSupplier clock;

  Tickets(LongSupplier clock) {
    this.clock = clock;
  }

  /** A new ticket for {@code user}; 429 when the user holds too many unused ones. */
  Issued issue(User user) {
    long now = clock.getAsLong();
    open.values().removeIf(t -> t.expiresMs() <= now);
    long held = open.values().stream().filter(t -> t.user().name().equals(user.name())).count();
    if (held >= MAX_PER_USER) {
      throw new ApiException(
              429,
              user.name() + " holds " + held + " unused tickets, the most allowed",
              "Use the tickets you asked for, or wait: each expires 30 s after it was issued")
          .with("limit", "tickets-per-user")
          .with("retryAfterSeconds", 30)
          .header("Retry-After", "30");
    }
    byte[] b = new byte[32];
    random.nextBytes(b);
    String value = Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    long expires = now + TTL_MS;
    open.put(value, new Ticket(user, expires));
    return new Issued(value, expires);
  }

  /** The user a ticket stands for, once: the ticket is gone after this call. */
  Optional<User> redeem(String ticket) {
    Ticket t = ticket == null ? null : open.remove(ticket);
    if (t == null || t.expiresMs() <= clock.getAsLong()) {
      return Optional.empty();
    }
    return Optional.of(t.user());
  }
}
