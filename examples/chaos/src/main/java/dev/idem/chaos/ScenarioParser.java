package dev.idem.chaos;

import dev.idem.chaos.Scenario.Backend;
import dev.idem.chaos.Scenario.Duplicates;
import dev.idem.chaos.Scenario.Fault;
import dev.idem.chaos.Scenario.Load;
import dev.idem.chaos.Scenario.Mix;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.springframework.boot.convert.DurationStyle;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Reads a scenario file (YAML, see docs/chaos.md) into a {@link Scenario}. Every mistake is a
 * {@link ScenarioException} naming the file and the field ({@code faults[2].at}), and unknown
 * fields are refused rather than ignored, so a typo never silently runs another scenario. It passes
 * 400 lines by keeping every field's check beside the field, where a reader of an error message
 * finds it.
 */
public final class ScenarioParser {

  private static final YAMLMapper YAML = YAMLMapper.builder().build();

  /** How long the capacity is measured when a scenario does not say. */
  static final Duration DEFAULT_CAPACITY_WINDOW = Duration.ofSeconds(10);

  /**
   * How long the users warm the shops up before the capacity window when a scenario does not say.
   */
  static final Duration DEFAULT_WARMUP = Duration.ofSeconds(10);

  private static final Set<String> TOP =
      Set.of(
          "name",
          "load",
          "description",
          "backend",
          "instances",
          "users",
          "duration",
          "requests",
          "duplicates",
          "mix",
          "shop",
          "faults");

  private ScenarioParser() {}

  /** Reads the file at {@code path}. */
  public static Scenario read(Path path) {
    try (InputStream in = Files.newInputStream(path)) {
      return parse(path.getFileName().toString(), in);
    } catch (IOException e) {
      throw new ScenarioException(path + ": cannot read: " + e.getMessage());
    }
  }

  /** Reads the standard scenario {@code name} from {@code chaos/<name>.yml} on the classpath. */
  public static Scenario standard(String name) {
    String resource = "chaos/" + name + ".yml";
    try (InputStream in = ScenarioParser.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new ScenarioException("no standard scenario " + name + " (" + resource + ")");
      }
      return parse(name + ".yml", in);
    } catch (IOException e) {
      throw new ScenarioException(resource + ": cannot read: " + e.getMessage());
    }
  }

  /** Parses YAML text; {@code source} names it in errors. */
  public static Scenario parse(String source, InputStream yaml) {
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (JacksonException e) {
      throw new ScenarioException(source + ": not valid YAML: " + e.getOriginalMessage());
    }
    if (root == null || !root.isObject()) {
      throw new ScenarioException(source + ": expected a mapping of fields at the top");
    }
    return new Reader(source).scenario(root);
  }

  /** Walks the tree, knowing the path of the field it reads for its messages. */
  private static final class Reader {
    private final String source;

    Reader(String source) {
      this.source = source;
    }

    Scenario scenario(JsonNode root) {
      onlyKnown(root, "", TOP);
      String name = text(root, "name", null);
      if (!name.matches("[a-z0-9][a-z0-9-]{0,40}")) {
        throw fail("name", "must be lower-case letters, digits and dashes, was '" + name + "'");
      }
      String description = text(root, "description", "");
      Backend backend = backend(root);
      int instances = (int) whole(root, "instances", 1L, 1, 5);
      if (backend == Backend.EMBEDDED && instances != 1) {
        throw fail("instances", "backend embedded runs exactly one instance, was " + instances);
      }
      int users = (int) whole(root, "users", null, 1, 200);
      Duration duration = root.has("duration") ? duration(root, "duration") : Duration.ZERO;
      long requests = root.has("requests") ? whole(root, "requests", null, 1, 10_000_000) : 0;
      if (duration.isZero() == (requests == 0)) {
        throw fail("duration", "give exactly one of duration and requests");
      }
      Load load = load(root.get("load"), duration);
      Duplicates duplicates = duplicates(root.get("duplicates"));
      Mix mix = mix(root.get("mix"));
      Map<String, String> shop = shop(root.get("shop"));
      List<Fault> faults = faults(root.get("faults"), backend, instances, duration);
      return new Scenario(
          name,
          description.strip(),
          backend,
          instances,
          users,
          duration,
          requests,
          load,
          duplicates,
          mix,
          shop,
          faults);
    }

    private Backend backend(JsonNode root) {
      String value = text(root, "backend", "services");
      try {
        return Backend.valueOf(value.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw fail("backend", "must be embedded or services, was '" + value + "'");
      }
    }

    // A load bounded by time runs at half its capacity unless told otherwise; one bounded by a
    // count of operations goes as fast as it can.
    private Load load(JsonNode node, Duration duration) {
      Load fallback =
          duration.isZero()
              ? Load.FLAT_OUT
              : new Load(DEFAULT_WARMUP, DEFAULT_CAPACITY_WINDOW, 0.5);
      if (node == null) {
        return fallback;
      }
      mapping(node, "load");
      onlyKnown(node, "load.", Set.of("warmup", "capacity", "share"));
      Duration capacity =
          node.has("capacity") ? duration(node, "load.", "capacity") : DEFAULT_CAPACITY_WINDOW;
      if (capacity.isZero()) {
        for (String field : List.of("warmup", "share")) {
          if (node.has(field)) {
            throw fail("load." + field, "needs a capacity window");
          }
        }
        return Load.FLAT_OUT;
      }
      if (duration.isZero()) {
        throw fail("load.capacity", "needs a load bounded by duration, not by requests");
      }
      if (capacity.compareTo(Duration.ofSeconds(1)) < 0) {
        throw fail("load.capacity", "must be 0 or at least 1s, was " + capacity.toMillis() + "ms");
      }
      double share = node.has("share") ? share(node, "load.", "share") : 0.5;
      if (share == 0) {
        throw fail("load.share", "must be above 0");
      }
      Duration warmup = node.has("warmup") ? duration(node, "load.", "warmup") : DEFAULT_WARMUP;
      return new Load(warmup, capacity, share);
    }

    private Duplicates duplicates(JsonNode node) {
      if (node == null) {
        return new Duplicates(0, 0, Duration.ZERO, 0);
      }
      mapping(node, "duplicates");
      onlyKnown(node, "duplicates.", Set.of("rate", "concurrent", "max-delay", "other-key"));
      double rate = share(node, "duplicates.", "rate");
      double concurrent = node.has("concurrent") ? share(node, "duplicates.", "concurrent") : 0.5;
      Duration maxDelay =
          node.has("max-delay")
              ? duration(node, "duplicates.", "max-delay")
              : Duration.ofSeconds(1);
      double otherKey = node.has("other-key") ? share(node, "duplicates.", "other-key") : 0;
      return new Duplicates(rate, concurrent, maxDelay, otherKey);
    }

    private Mix mix(JsonNode node) {
      if (node == null) {
        throw fail("mix", "is required (weights of orders, card, wallet, callbacks)");
      }
      mapping(node, "mix");
      onlyKnown(node, "mix.", Set.of("orders", "card", "wallet", "callbacks"));
      Mix mix =
          new Mix(
              weight(node, "orders"),
              weight(node, "card"),
              weight(node, "wallet"),
              weight(node, "callbacks"));
      if (mix.orders() <= 0) {
        throw fail("mix.orders", "must be above 0: payments need orders to pay");
      }
      return mix;
    }

    private Map<String, String> shop(JsonNode node) {
      Map<String, String> shop = new LinkedHashMap<>();
      if (node == null) {
        return shop;
      }
      mapping(node, "shop");
      for (Map.Entry<String, JsonNode> e : node.properties()) {
        if (!e.getValue().isValueNode() || e.getValue().isNull()) {
          throw fail("shop." + e.getKey(), "must be a single value (a shop property)");
        }
        shop.put(e.getKey(), e.getValue().asString());
      }
      return shop;
    }

    private List<Fault> faults(JsonNode node, Backend backend, int instances, Duration duration) {
      List<Fault> faults = new ArrayList<>();
      if (node == null) {
        return faults;
      }
      if (!node.isArray()) {
        throw fail("faults", "must be a list of faults");
      }
      int i = 0;
      for (JsonNode f : node.values()) {
        String at = "faults[" + i++ + "].";
        if (!f.isObject()) {
          throw fail(at.substring(0, at.length() - 1), "must be a mapping (at, action, ...)");
        }
        onlyKnown(f, at, Set.of("at", "action", "instance", "latency"));
        Duration when = duration(f, at, "at");
        if (!duration.isZero() && when.compareTo(duration) >= 0) {
          throw fail(at + "at", "is not before the end of the run (" + duration + ")");
        }
        String name = text(f, at, "action", null);
        FaultAction action =
            FaultAction.ofFileName(name)
                .orElseThrow(() -> fail(at + "action", "unknown action '" + name + "'"));
        if (backend == Backend.EMBEDDED) {
          throw fail(at + "action", "backend embedded takes no faults (its data dies with it)");
        }
        int instance = 0;
        if (action == FaultAction.KILL
            || action == FaultAction.RESTART
            || action == FaultAction.PARTITION) {
          instance = (int) whole(f, at, "instance", null, 1, instances);
        } else if (f.has("instance")) {
          throw fail(at + "instance", "only kill, restart and partition name an instance");
        }
        Duration latency = Duration.ZERO;
        if (action == FaultAction.DB_LATENCY || action == FaultAction.REDIS_LATENCY) {
          latency = duration(f, at, "latency");
        } else if (f.has("latency")) {
          throw fail(at + "latency", "only db-latency and redis-latency take a latency");
        }
        faults.add(new Fault(when, action, instance, latency));
      }
      // Behind a Sentinel the shops reach whichever server is primary: no proxy stands between,
      // and there is no one server to flush or restart.
      boolean failover = faults.stream().anyMatch(f -> f.action().needsSentinel());
      for (Fault f : faults) {
        if (failover
            && (f.action().needsProxy()
                || f.action() == FaultAction.FLUSH_REDIS
                || f.action() == FaultAction.RESTART_REDIS)) {
          throw fail(
              "faults[" + faults.indexOf(f) + "].action",
              "failover-redis runs on a Sentinel: no " + f.action().fileName() + " beside it");
        }
      }
      // The shop is checked through its database after the load: it must be up by then.
      Fault lastStop = null;
      for (Fault f : faults.stream().sorted(java.util.Comparator.comparing(Fault::at)).toList()) {
        if (f.action() == FaultAction.STOP_POSTGRES) {
          lastStop = f;
        } else if (f.action() == FaultAction.START_POSTGRES) {
          lastStop = null;
        }
      }
      if (lastStop != null) {
        throw fail(
            "faults[" + faults.indexOf(lastStop) + "].action",
            "stop-postgres needs a start-postgres after it");
      }
      return faults;
    }

    private double weight(JsonNode node, String field) {
      if (!node.has(field)) {
        return 0;
      }
      JsonNode value = node.get(field);
      if (!value.isNumber() || value.asDouble() < 0) {
        throw fail(
            "mix." + field, "must be a number of at least 0, was '" + value.asString() + "'");
      }
      return value.asDouble();
    }

    private double share(JsonNode node, String prefix, String field) {
      JsonNode value = node.get(field);
      if (value == null || !value.isNumber() || value.asDouble() < 0 || value.asDouble() > 1) {
        String was = value == null ? "missing" : "'" + value.asString() + "'";
        throw fail(prefix + field, "must be a number from 0 to 1, was " + was);
      }
      return value.asDouble();
    }

    private long whole(JsonNode node, String field, Long fallback, long min, long max) {
      return whole(node, "", field, fallback, min, max);
    }

    private long whole(
        JsonNode node, String prefix, String field, Long fallback, long min, long max) {
      JsonNode value = node.get(field);
      if (value == null) {
        if (fallback == null) {
          throw fail(prefix + field, "is required");
        }
        return fallback;
      }
      if (!value.isIntegralNumber() || value.asLong() < min || value.asLong() > max) {
        throw fail(
            prefix + field,
            "must be a whole number from "
                + min
                + " to "
                + max
                + ", was '"
                + value.asString()
                + "'");
      }
      return value.asLong();
    }

    private Duration duration(JsonNode node, String field) {
      return duration(node, "", field);
    }

    private Duration duration(JsonNode node, String prefix, String field) {
      String value = text(node, prefix, field, null);
      try {
        Duration d = DurationStyle.detectAndParse(value);
        if (d.isNegative()) {
          throw new IllegalArgumentException("negative");
        }
        return d;
      } catch (IllegalArgumentException e) {
        throw fail(prefix + field, "must be a duration like 500ms, 45s or 2m, was '" + value + "'");
      }
    }

    private String text(JsonNode node, String field, String fallback) {
      return text(node, "", field, fallback);
    }

    private String text(JsonNode node, String prefix, String field, String fallback) {
      JsonNode value = node.get(field);
      if (value == null || value.isNull()) {
        if (fallback == null) {
          throw fail(prefix + field, "is required");
        }
        return fallback;
      }
      if (!value.isValueNode()) {
        throw fail(prefix + field, "must be a single value");
      }
      return value.asString();
    }

    private void mapping(JsonNode node, String field) {
      if (!node.isObject()) {
        throw fail(field, "must be a mapping of fields");
      }
    }

    private void onlyKnown(JsonNode node, String prefix, Set<String> known) {
      for (String field : node.propertyNames()) {
        if (!known.contains(field)) {
          throw fail(
              prefix + field, "unknown field (known: " + String.join(", ", sorted(known)) + ")");
        }
      }
    }

    private static List<String> sorted(Set<String> names) {
      return names.stream().sorted().toList();
    }

    private ScenarioException fail(String field, String problem) {
      return new ScenarioException(source + ": " + field + ": " + problem);
    }
  }
}
