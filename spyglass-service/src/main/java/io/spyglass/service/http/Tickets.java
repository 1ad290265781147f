package io.spyglass.service.http;

import io.spyglass.service.auth.User;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Stream tickets ({@code POST /api/tickets}): short-lived, single-use stand-ins for a user's token
 * in the URL of a result stream, where a browser cannot set headers ({@code EventSource}, {@code
 * WebSocket}). A ticket in a log or a proxy's history is worthless once used or 30 s old. A user
 * holds at most {@value #MAX_PER_USER} unused ones, counted and added in one step. Thread-safe;
 * every call is O(1) but for forgetting expired tickets, each once.
 */
final class Tickets {
  /** How long a ticket is good for. */
  static final long TTL_MS = 30_000;

  /** Most tickets one user may hold unused at once. */
  static final int MAX_PER_USER = 100;

  private record Ticket(String value, User user, long expiresMs) {}

  /** What {@link #issue} hands out. */
  record Issued(String ticket, long expiresMs) {}

  private final SecureRandom random = new SecureRandom();
  private final LongSupplier clock;
  // guarded by this: tickets not used yet, those in order of expiry, unused ones per user
  private final Map<String, Ticket> open = new HashMap<>();
  private final ArrayDeque<Ticket> byExpiry = new ArrayDeque<>();
  private final Map<String, Integer> held = new HashMap<>();

  Tickets(LongSupplier clock) {
    this.clock = clock;
  }

  /** A new ticket for {@code user}; 429 when the user holds too many unused ones. */
  Issued issue(User user) {
    byte[] b = new byte[32];
    random.nextBytes(b);
    String value = Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    synchronized (this) {
      long now = clock.getAsLong();
      forgetExpired(now);
      int mine = held.getOrDefault(user.name(), 0);
      if (mine >= MAX_PER_USER) {
        throw new ApiException(
                429,
                user.name() + " holds " + mine + " unused tickets, the most allowed",
                "Use the tickets you asked for, or wait: each expires 30 s after it was issued")
            .with("limit", "tickets-per-user")
            .with("retryAfterSeconds", 30)
            .header("Retry-After", "30");
      }
      Ticket t = new Ticket(value, user, now + TTL_MS);
      open.put(value, t);
      byExpiry.addLast(t); // the same lifetime for all: issued in order, they expire in order
      held.merge(user.name(), 1, Integer::sum);
      return new Issued(value, t.expiresMs());
    }
  }

  /** The user a ticket stands for, once: the ticket is gone after this call. */
  synchronized Optional<User> redeem(String ticket) {
    Ticket t = ticket == null ? null : open.remove(ticket);
    if (t == null) {
      return Optional.empty();
    }
    release(t.user());
    return t.expiresMs() <= clock.getAsLong() ? Optional.empty() : Optional.of(t.user());
  }

  /** Unused tickets {@code user} holds now. */
  synchronized int held(User user) {
    forgetExpired(clock.getAsLong());
    return held.getOrDefault(user.name(), 0);
  }

  private void forgetExpired(long now) {
    while (!byExpiry.isEmpty() && byExpiry.peekFirst().expiresMs() <= now) {
      Ticket t = byExpiry.removeFirst();
      if (open.remove(t.value()) != null) {
        release(t.user());
      }
    }
  }

  private void release(User user) {
    held.computeIfPresent(user.name(), (k, n) -> n <= 1 ? null : n - 1);
  }
}
