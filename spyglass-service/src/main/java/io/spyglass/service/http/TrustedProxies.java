package io.spyglass.service.http;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.eclipse.jetty.server.Request;

/**
 * The reverse proxies whose word on the client's address is believed ({@code --trusted-proxies}),
 * and the client address of a request: from a connection of a trusted proxy, the last address in
 * {@code Forwarded} ({@code for=}) or else {@code X-Forwarded-For} that is not itself a trusted
 * proxy (what comes before it, the client could have written); from any other connection, the
 * connection's own address, whatever the headers say. Addresses and ranges are IP literals and CIDR
 * ranges only: no name is looked up. Immutable, thread-safe.
 */
final class TrustedProxies {
  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
  private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f]*:[0-9A-Fa-f:.]*");

  /** None: no header is believed. */
  static final TrustedProxies NONE = new TrustedProxies(List.of());

  private record Range(byte[] network, int bits) {
    boolean contains(InetAddress a) {
      byte[] b = a.getAddress();
      if (b.length != network.length) {
        return false;
      }
      int full = bits / 8;
      for (int i = 0; i < full; i++) {
        if (b[i] != network[i]) {
          return false;
        }
      }
      int rest = bits % 8;
      if (rest == 0) {
        return true;
      }
      int mask = (0xff << (8 - rest)) & 0xff;
      return (b[full] & mask) == (network[full] & mask);
    }
  }

  private final List<Range> ranges;

  private TrustedProxies(List<Range> ranges) {
    this.ranges = ranges;
  }

  /**
   * The proxies written as IP addresses ({@code 10.0.0.5}, {@code ::1}) or CIDR ranges ({@code
   * 10.0.0.0/8}, {@code fd00::/8}).
   *
   * @throws IllegalArgumentException for anything else, e.g. a host name
   */
  static TrustedProxies of(List<String> specs) {
    List<Range> ranges = new ArrayList<>();
    for (String spec : specs) {
      String s = spec.strip();
      if (s.isEmpty()) {
        continue;
      }
      int slash = s.indexOf('/');
      InetAddress a = literal(slash < 0 ? s : s.substring(0, slash));
      int max = a == null ? 0 : a.getAddress().length * 8;
      int bits = max;
      if (a != null && slash >= 0) {
        try {
          bits = Integer.parseInt(s.substring(slash + 1));
        } catch (NumberFormatException e) {
          bits = -1;
        }
      }
      if (a == null || bits < 0 || bits > max) {
        throw new IllegalArgumentException(
            "a trusted proxy is an IP address or a CIDR range (e.g. 10.0.0.5, 10.0.0.0/8,"
                + " fd00::/8), never a name: '"
                + spec
                + "' is not");
      }
      ranges.add(new Range(a.getAddress(), bits));
    }
    return ranges.isEmpty() ? NONE : new TrustedProxies(List.copyOf(ranges));
  }

  boolean none() {
    return ranges.isEmpty();
  }

  /** Whether {@code a} is a trusted proxy. */
  boolean trusts(InetAddress a) {
    if (a == null) {
      return false;
    }
    for (Range r : ranges) {
      if (r.contains(a)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The client address of a request, as a key for counting per client (see the class comment): an
   * IPv4 address, or an IPv6 client's /64 network (one client commonly has all of it), or the text
   * a trusted proxy gave when it is no address ({@code unknown}, an obfuscated name).
   */
  String client(Request req) {
    SocketAddress s = req.getConnectionMetaData().getRemoteSocketAddress();
    InetAddress peer = s instanceof InetSocketAddress i ? i.getAddress() : null;
    if (peer == null) {
      return Request.getRemoteAddr(req);
    }
    if (!trusts(peer)) {
      return key(peer);
    }
    List<String> hops = forwardedFor(req);
    for (int i = hops.size() - 1; i >= 0; i--) {
      String hop = hops.get(i);
      InetAddress a = literal(hop);
      if (a == null) {
        return "hop:" + hop.toLowerCase(Locale.ROOT);
      }
      if (!trusts(a) || i == 0) {
        return key(a);
      }
    }
    return key(peer); // a trusted proxy that named no client
  }

  /** The hops a request names, oldest first: {@code Forwarded}'s {@code for=}, else XFF's. */
  private static List<String> forwardedFor(Request req) {
    List<String> out = new ArrayList<>();
    List<String> forwarded = req.getHeaders().getValuesList("Forwarded");
    if (!forwarded.isEmpty()) {
      for (String element : String.join(",", forwarded).split(",")) {
        String hop = "unknown";
        for (String pair : element.split(";")) {
          int eq = pair.indexOf('=');
          if (eq > 0 && pair.substring(0, eq).strip().equalsIgnoreCase("for")) {
            hop = host(unquote(pair.substring(eq + 1).strip()));
          }
        }
        out.add(hop);
      }
      return out;
    }
    for (String line : req.getHeaders().getValuesList("X-Forwarded-For")) {
      for (String hop : line.split(",")) {
        if (!hop.isBlank()) {
          out.add(host(hop.strip()));
        }
      }
    }
    return out;
  }

  private static String unquote(String v) {
    return v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")
        ? v.substring(1, v.length() - 1)
        : v;
  }

  /** The address of a hop without its port: {@code [v6]:port}, {@code v4:port}, as given. */
  private static String host(String hop) {
    if (hop.startsWith("[")) {
      int end = hop.indexOf(']');
      return end > 0 ? hop.substring(1, end) : hop;
    }
    int colon = hop.indexOf(':');
    if (colon > 0 && colon == hop.lastIndexOf(':')) {
      return hop.substring(0, colon); // IPv4 with a port
    }
    return hop;
  }

  /** An address as a key: IPv4 as written, IPv6 by its /64 network. */
  private static String key(InetAddress a) {
    if (a instanceof Inet6Address) {
      byte[] b = a.getAddress();
      for (int i = 8; i < 16; i++) {
        b[i] = 0;
      }
      try {
        return InetAddress.getByAddress(b).getHostAddress() + "/64";
      } catch (UnknownHostException e) {
        return a.getHostAddress();
      }
    }
    return a.getHostAddress();
  }

  /**
   * The address written as {@code s} when it is an IP literal (IPv4 dotted, or IPv6 without a
   * zone); null for anything else. Never a lookup: only text made of an address's characters
   * reaches {@link InetAddress#getByName}, which then parses it.
   */
  static InetAddress literal(String s) {
    try {
      if (IPV4.matcher(s).matches()) {
        String[] parts = s.split("\\.");
        byte[] b = new byte[4];
        for (int i = 0; i < 4; i++) {
          int v = Integer.parseInt(parts[i]);
          if (v > 255) {
            return null;
          }
          b[i] = (byte) v;
        }
        return InetAddress.getByAddress(b);
      }
      if (IPV6.matcher(s).matches()) {
        return InetAddress.getByName(s);
      }
    } catch (UnknownHostException | SecurityException e) {
      return null;
    }
    return null;
  }
}
