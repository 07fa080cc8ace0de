package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The metadata an IDE completes {@code cxc.*} from, as the build wrote it. */
class ConfigurationMetadataTest {

    private static String metadata() throws IOException {
        try (InputStream in =
                ConfigurationMetadataTest.class.getResourceAsStream(
                        "/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("the generated metadata").isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static Map<String, Map<String, Object>> byName(String section) throws IOException {
        List<Map<String, Object>> items = JsonPath.read(metadata(), "$." + section);
        return items.stream()
                .collect(
                        Collectors.toMap(
                                p -> (String) p.get("name"), p -> p, (first, second) -> first));
    }

    @Test
    void theHealthSwitchAndTheNewLeaderSettingsAreDescribedWithDefaults() throws IOException {
        Map<String, Map<String, Object>> properties = byName("properties");
        assertThat(properties.get("management.health.cxc.enabled"))
                .containsEntry("defaultValue", true)
                .extractingByKey("description")
                .asString()
                .contains("503");
        assertThat(properties.get("cxc.leader.shutdown-timeout"))
                .containsEntry("defaultValue", "10s");
        assertThat(properties.get("cxc.leader.observations")).containsEntry("defaultValue", false);
    }

    /**
     * A declared primitive's map is one property for the processor: its description, from the
     * javadoc, must name every setting of the typed class it holds (the settings' defaults and
     * limits are core's, not restated).
     */
    @Test
    void declaredPrimitivesNameTheSettingsOfTheirTypedClass() throws IOException {
        Map<String, Map<String, Object>> properties = byName("properties");
        for (DeclaredKind<?, ?, ?> kind : DeclaredPrimitivesRegistrar.DECLARABLE) {
            Map<String, Object> property = properties.get("cxc." + kind.plural);
            assertThat(property).as("cxc." + kind.plural).isNotNull();
            assertThat((String) property.get("type")).contains(kind.propertiesType.getSimpleName());
            assertThat((String) property.get("description"))
                    .as("cxc." + kind.plural)
                    .contains(kind.settingNames());
        }
        // A nested settings class's settings too: cxc.fanouts.<name>.retry.*
        assertThat((String) properties.get("cxc.fanouts").get("description"))
                .contains("retry (max-attempts, backoff)");
        assertThat((String) properties.get("cxc.schedulers").get("description"))
                .contains(
                        "retry.max-attempts",
                        "retry.initial-backoff",
                        "retry.multiplier",
                        "retry.max-backoff");
        Map<String, Map<String, Object>> hints = byName("hints");
        assertThat(hints)
                .containsKeys("cxc.barriers.keys", "cxc.watchdogs.keys", "cxc.event-logs.keys");
        assertThat(properties.get("cxc.listeners.copy-name"))
                .as("cxc.listeners.copy-name")
                .isNotNull()
                .extractingByKey("description")
                .asString()
                .contains("unique per copy");
        assertThat(hints.get("cxc.file-permissions").toString()).contains("rw-------", "rw-r-----");
    }

    /** Every cxc property is described once, from CxcProperties' javadoc, not by hand. */
    @Test
    void noCxcPropertyIsDescribedByHand() throws IOException {
        try (InputStream in =
                ConfigurationMetadataTest.class.getResourceAsStream(
                        "/META-INF/additional-spring-configuration-metadata.json")) {
            List<String> names =
                    JsonPath.read(
                            new String(in.readAllBytes(), StandardCharsets.UTF_8),
                            "$.properties[*].name");
            assertThat(names).noneMatch(name -> name.startsWith("cxc."));
        }
    }

    @Test
    void descriptionsArePlainText() throws IOException {
        for (Map<String, Object> property : byName("properties").values()) {
            Object description = property.get("description");
            if (description != null && property.get("name").toString().startsWith("cxc.")) {
                assertThat(description.toString())
                        .as(property.get("name").toString())
                        .doesNotContain("{@", "<p>", "<code>");
            }
        }
    }
}
