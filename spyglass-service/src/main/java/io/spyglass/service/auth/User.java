package io.spyglass.service.auth;

import java.util.Objects;
import java.util.Set;

/**
 * Who makes a request, and what the roles of their token let them do.
 *
 * @param name the user name from the tokens file ({@value Tokens#ANONYMOUS} without one)
 * @param admin whether the user sees and ends everyone's queries, ingests, and reads every tenant's
 *     rows
 * @param ingest whether the user may post documents to {@code /api/ingest} (admins may too)
 * @param tenants the tenants the token is bound to: when not empty, it ingests only documents of
 *     these tenants and reads only their rows of standing queries; empty for a token bound to none
 */
public record User(String name, boolean admin, boolean ingest, Set<String> tenants) {
  public User {
    Objects.requireNonNull(name, "name");
    tenants = Set.copyOf(tenants);
    if (admin && !tenants.isEmpty()) {
      throw new IllegalArgumentException("an admin reads every tenant: it is bound to none");
    }
  }

  /** A user without the ingest role, bound to no tenant. */
  public User(String name, boolean admin) {
    this(name, admin, false, Set.of());
  }

  /** Whether this user may see and end what {@code owner} started. */
  public boolean canSee(String owner) {
    return admin || name.equals(owner);
  }

  /** Whether this user may post documents for ingestion. */
  public boolean canIngest() {
    return admin || ingest;
  }

  /** Whether this user's token is bound to tenants: it sees only their documents. */
  public boolean boundToTenants() {
    return !tenants.isEmpty();
  }
}
