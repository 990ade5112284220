package dev.idem.spring;

import java.time.Duration;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationStyle;

/**
 * The durations an {@link Idempotent} annotation sets, each null where it leaves the policy's: the
 * string attributes, placeholders resolved and parsed as Spring Boot parses duration properties, or
 * else their deprecated numeric twins.
 */
record AnnotationDurations(
    @Nullable Duration waitFor, @Nullable Duration lease, @Nullable Duration retention) {

  @SuppressWarnings("removal") // reads the numeric attributes it replaces, for their last release
  static AnnotationDurations of(
      String operation, Idempotent idempotent, UnaryOperator<String> placeholders) {
    Parser parser = new Parser(operation, placeholders);
    return new AnnotationDurations(
        parser.parse(
            "waitFor",
            idempotent.waitFor(),
            "waitMillis",
            idempotent.waitMillis() < 0 ? null : Duration.ofMillis(idempotent.waitMillis())),
        parser.parse(
            "lease",
            idempotent.lease(),
            "leaseSeconds",
            idempotent.leaseSeconds() > 0 ? Duration.ofSeconds(idempotent.leaseSeconds()) : null),
        parser.parse(
            "retention",
            idempotent.retention(),
            "retentionSeconds",
            idempotent.retentionSeconds() > 0
                ? Duration.ofSeconds(idempotent.retentionSeconds())
                : null));
  }

  boolean none() {
    return waitFor == null && lease == null && retention == null;
  }

  private record Parser(String operation, UnaryOperator<String> placeholders) {

    @Nullable Duration parse(String name, String text, String oldName, @Nullable Duration old) {
      if (text.isBlank()) {
        return old;
      }
      if (old != null) {
        throw wrong(name, text, "it is set beside the deprecated " + oldName + "; keep " + name);
      }
      String resolved;
      try {
        resolved = placeholders.apply(text).trim();
      } catch (IllegalArgumentException e) {
        throw wrong(name, text, e.getMessage());
      }
      Duration duration;
      try {
        duration = DurationStyle.detectAndParse(resolved);
      } catch (IllegalArgumentException e) {
        throw wrong(
            name, text, "'" + resolved + "' is not a duration (write 500ms, 5s, 2m or PT5S)");
      }
      if (duration.isNegative() || (duration.isZero() && !name.equals("waitFor"))) {
        throw wrong(name, text, "it must be positive" + (name.equals("waitFor") ? " or 0" : ""));
      }
      return duration;
    }

    private IllegalStateException wrong(String name, String text, @Nullable String why) {
      return new IllegalStateException(
          "@Idempotent("
              + name
              + " = \""
              + text
              + "\") of operation '"
              + operation
              + "' cannot be used: "
              + why);
    }
  }
}
