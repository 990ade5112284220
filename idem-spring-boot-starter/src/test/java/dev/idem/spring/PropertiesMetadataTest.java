package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.IdempotencyConfig;
import dev.idem.core.memory.InMemoryIdempotencyStore;
import java.io.InputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.util.unit.DataSize;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The properties metadata an IDE shows: every {@code idem.*} property has a description and a
 * default, and each default is the value the code really uses.
 */
class PropertiesMetadataTest {

  private final Map<String, JsonNode> properties = read();

  @Test
  void everyPropertyHasADescriptionAndADefault() {
    assertThat(properties).isNotEmpty();
    properties.forEach(
        (name, property) -> {
          if (property.has("deprecation") || name.equals("idem.policies")) {
            return;
          }
          assertThat(property.has("description")).as(name + " has a description").isTrue();
          assertThat(property.has("defaultValue")).as(name + " has a default").isTrue();
        });
  }

  @Test
  void theDefaultsShownAreTheOnesUsed() {
    IdempotencyConfig config = IdempotencyConfig.ofDefaults();
    assertThat(duration("idem.defaults.lease")).isEqualTo(config.lease());
    assertThat(duration("idem.defaults.retention")).isEqualTo(config.retention());
    assertThat(duration("idem.defaults.retry-after")).isEqualTo(config.retryAfter());
    assertThat(duration("idem.defaults.wait").isZero())
        .isEqualTo(config.inProgressPolicy() == dev.idem.core.InProgressPolicy.REJECT);
    assertThat(properties.get("idem.defaults.fail-open").get("defaultValue").asBoolean())
        .isEqualTo(config.failOpen());
    IdemProperties bound = new IdemProperties();
    assertThat(number("idem.http.max-records-per-caller"))
        .isEqualTo(bound.getHttp().getMaxRecordsPerCaller());
    assertThat(number("idem.tokens.max-per-caller")).isEqualTo(bound.getTokens().getMaxPerCaller());
    assertThat(number("idem.memory.max-entries"))
        .isEqualTo(InMemoryIdempotencyStore.DEFAULT_MAX_ENTRIES);
    assertThat(DataSize.parse(text("idem.memory.max-bytes")).toBytes())
        .isEqualTo(InMemoryIdempotencyStore.DEFAULT_MAX_BYTES);
    assertThat(properties.get("idem.http.paths").get("defaultValue").isEmpty()).isTrue();
  }

  private Duration duration(String name) {
    return DurationStyle.detectAndParse(text(name));
  }

  private String text(String name) {
    return properties.get(name).get("defaultValue").asString();
  }

  private long number(String name) {
    return properties.get(name).get("defaultValue").asLong();
  }

  private static Map<String, JsonNode> read() {
    try (InputStream in =
        PropertiesMetadataTest.class
            .getClassLoader()
            .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
      JsonNode root = JsonMapper.builder().build().readTree(in);
      Map<String, JsonNode> byName = new HashMap<>();
      for (JsonNode property : root.get("properties").values()) {
        byName.put(property.get("name").asString(), property);
      }
      return byName;
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
