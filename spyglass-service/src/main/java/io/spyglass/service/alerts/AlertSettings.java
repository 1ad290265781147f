package io.spyglass.service.alerts;

/**
 * What alerts may do on a service.
 *
 * @param maxPerUser most alerts one user (not an admin) defines ({@code --max-alerts-per-user})
 * @param maxEventsPerAlert the newest events kept per alert, its history and outbox ({@code
 *     --max-alert-events}): older ones are forgotten, those not yet delivered counted as dropped
 * @param publicUrl the service's address as people reach it ({@code --public-url}), for the links
 *     in alerts (Alertmanager's generatorURL); null for links relative to the service
 */
public record AlertSettings(int maxPerUser, int maxEventsPerAlert, String publicUrl) {
  /** 20 alerts per user, 10,000 events kept per alert, relative links. */
  public static final AlertSettings DEFAULTS = new AlertSettings(20, 10_000, null);

  public AlertSettings {
    if (maxPerUser < 0) {
      throw new IllegalArgumentException("--max-alerts-per-user must not be negative");
    }
    if (maxEventsPerAlert < 10) {
      throw new IllegalArgumentException("--max-alert-events must be at least 10");
    }
    if (publicUrl != null) {
      if (!publicUrl.matches("https?://[^\\s]+")) {
        throw new IllegalArgumentException(
            "--public-url must be an http:// or https:// URL, e.g. https://spyglass.example.com");
      }
      publicUrl = publicUrl.replaceAll("/+$", "");
    }
  }

  /** Where people see an alert: its page in the web UI. */
  String linkTo(String alert) {
    // a name is letters, digits, '.', '_' and '-': nothing to escape
    String path = "/#/alerts/" + alert;
    return publicUrl == null ? path : publicUrl + path;
  }
}
