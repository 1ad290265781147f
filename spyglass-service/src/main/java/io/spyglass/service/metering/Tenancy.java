package io.spyglass.service.metering;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.spyglass.core.plan.Aggregation;
import io.spyglass.core.plan.FieldRef;
import io.spyglass.core.plan.NamedExpr;
import io.spyglass.core.plan.QueryPlan;
import java.io.UncheckedIOException;
import java.util.Set;

/**
 * Which rows of a standing query a token bound to tenants reads: those whose tenant column holds
 * one of its tenants. A query has a tenant column when it groups by the tenant field and keeps it
 * under its own name; any other query mixes tenants in its rows, and such a token reads none of it.
 */
final class Tenancy {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Tenancy() {}

  /**
   * Whether every row of {@code plan}'s results belongs to one tenant, named in its column {@code
   * field}: the query groups by the document's top-level {@code field} (no lateral view, outer
   * query or computation renames or replaces it), and keeps it.
   */
  static boolean hasTenantColumn(QueryPlan plan, String field) {
    if (plan.outer().isPresent()
        || !(plan.aggregation() instanceof Aggregation.Group g)
        || plan.postAggregation().culled().contains(field)) {
      return false;
    }
    for (QueryPlan.LateralView v : plan.lateralViews()) {
      if (v.alias().equals(field) || v.valueAlias().filter(field::equals).isPresent()) {
        return false;
      }
    }
    for (NamedExpr c : plan.postAggregation().computations()) {
      if (c.name().equals(field)) {
        return false;
      }
    }
    for (NamedExpr k : g.keys()) {
      if (k.name().equals(field) && k.expr() instanceof FieldRef f && f.name().equals(field)) {
        return true;
      }
    }
    return false;
  }

  /** The rows of {@code records} (a JSON array of objects) whose {@code field} is in {@code of}. */
  static String rowsOf(String records, String field, Set<String> of) {
    try {
      ArrayNode out = JSON.createArrayNode();
      for (JsonNode row : JSON.readTree(records)) {
        JsonNode v = row.get(field);
        if (v != null && (v.isTextual() || v.isIntegralNumber()) && of.contains(v.asText())) {
          out.add(row);
        }
      }
      return JSON.writeValueAsString(out);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
