package io.spyglass.service.http;

import io.spyglass.service.auth.User;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Stream tickets: a browser cannot give a WebSocket or an EventSource an {@code Authorization}
 * header, and a token in a URL ends up in proxies' logs. The page asks {@code POST /api/tickets}
 * (with its header) for a ticket, then opens {@code /api/ws?ticket=T}. A ticket stands for its
 * user, is good once, and expires {@link #TTL_MS} after it is issued.
 */
final class StreamTickets {
  static final long TTL_MS = 30_000;

  /** Tickets held at most; past it the oldest expire first (each is good for 30 s anyway). */
  static final int MAX_OPEN = 100_000;

  record Ticket(String value, long expiresMs) {}

  private record Held(User user, long expiresMs) {}

  private final SecureRandom random = new SecureRandom();
  private final Map<String, Held> open = new ConcurrentHashMap<>();
  private final LongSupplier clock;

  StreamTickets(LongSupplier clock) {
    this.clock = clock;
  }

  Ticket issue(User user) {
    long now = clock.getAsLong();
    if (open.size() >= MAX_OPEN / 2) {
      open.values().removeIf(h -> h.expiresMs <= now);
    }
    if (open.size() >= MAX_OPEN) {
      throw new ApiException(429, "Too many stream tickets are open", "Retry in 30 s")
          .header("Retry-After", "30");
    }
    byte[] b = new byte[32];
    random.nextBytes(b);
    String value = Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    long expires = now + TTL_MS;
    open.put(value, new Held(user, expires));
    return new Ticket(value, expires);
  }

  /** The ticket's user if it is open and not expired; it is spent either way. */
  Optional<User> redeem(String value) {
    Held h = value == null ? null : open.remove(value);
    return h != null && h.expiresMs > clock.getAsLong() ? Optional.of(h.user) : Optional.empty();
  }
}
