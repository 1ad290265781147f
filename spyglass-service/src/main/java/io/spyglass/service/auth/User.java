package io.spyglass.service.auth;

/**
 * Who makes a request.
 *
 * @param name the user name from the tokens file ({@value Tokens#ANONYMOUS} without one)
 * @param admin whether the user sees and ends everyone's queries
 */
public record User(String name, boolean admin) {
  /** Whether this user may see and end what {@code owner} started. */
  public boolean canSee(String owner) {
    return admin || name.equals(owner);
  }
}
