package io.subetha.cxc.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * docs/grafana/cxc-dashboard.json imports anywhere: valid JSON, every query panel on the templated
 * Prometheus data source with targets, panel ids unique, panels inside the 24-column grid and not
 * overlapping, and every variable a query uses defined.
 */
class GrafanaDashboardTest {

    private static final String DATASOURCE_UID = "${DS_PROMETHEUS}";

    private static final Pattern VARIABLE = Pattern.compile("\\$\\{?([A-Za-z_][A-Za-z0-9_]*)");

    private final JsonNode dashboard = OperatorFiles.dashboardJson();

    @Test
    void isValidJsonOfASchemaVersionGrafanaImports() throws Exception {
        // Strict parse of the file as it is, nothing trailing.
        JsonNode parsed = new ObjectMapper().readTree(Files.readString(OperatorFiles.dashboard()));
        assertThat(parsed.isObject()).isTrue();
        assertThat(parsed.path("schemaVersion").asInt()).isBetween(36, 41);
        assertThat(parsed.path("uid").asString()).isNotBlank();
        assertThat(parsed.path("title").asString()).isNotBlank();
    }

    @Test
    void theDataSourceIsATemplatedPrometheusVariable() {
        JsonNode datasource = variable("DS_PROMETHEUS");
        assertThat(datasource.path("type").asString()).isEqualTo("datasource");
        assertThat(datasource.path("query").asString()).isEqualTo("prometheus");
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if ("query".equals(variable.path("type").asString())) {
                assertPrometheus(variable.path("datasource"), "variable " + variable.path("name"));
            }
        }
    }

    @Test
    void hasApplicationAndInstanceVariablesOverTheApplicationLabel() {
        assertThat(variable("application").path("definition").asString())
                .isEqualTo("label_values(cxc_leader_self, application)");
        assertThat(variable("instance").path("definition").asString())
                .contains("application=\"$application\"")
                .endsWith(", instance)");
        assertThat(variable("instance").path("includeAll").asBoolean()).isTrue();
    }

    @Test
    void everyPanelHasTheDataSourceAndTargets() {
        List<JsonNode> queryPanels = new ArrayList<>();
        for (JsonNode panel : OperatorFiles.panels(dashboard)) {
            if (OperatorFiles.isRow(panel)) {
                continue;
            }
            queryPanels.add(panel);
            String name = "panel " + panel.path("id") + " " + panel.path("title");
            assertThat(panel.path("title").asString()).as(name).isNotBlank();
            assertThat(panel.path("type").asString())
                    .as(name)
                    .isIn("timeseries", "stat", "state-timeline");
            assertPrometheus(panel.path("datasource"), name);
            JsonNode targets = panel.path("targets");
            assertThat(targets.isArray() && !targets.isEmpty()).as("targets of %s", name).isTrue();
            Set<String> refIds = new HashSet<>();
            for (JsonNode target : targets) {
                assertPrometheus(target.path("datasource"), "a target of " + name);
                assertThat(target.path("expr").asString()).as("expr in %s", name).isNotBlank();
                assertThat(refIds.add(target.path("refId").asString()))
                        .as("refId %s unique in %s", target.path("refId"), name)
                        .isTrue();
            }
        }
        assertThat(queryPanels).hasSizeGreaterThanOrEqualTo(10);
    }

    @Test
    void panelIdsAreUniqueAndStable() {
        Set<Integer> ids = new HashSet<>();
        for (JsonNode panel : OperatorFiles.panels(dashboard)) {
            assertThat(panel.path("id").isInt()).as("id of %s", panel.path("title")).isTrue();
            int id = panel.path("id").asInt();
            assertThat(id).isPositive();
            assertThat(ids.add(id)).as("panel id %d unique", id).isTrue();
        }
        // Pinned so that a change that renumbers panels (and breaks links to them) is seen.
        assertThat(panelId("Leader per instance")).isEqualTo(3);
        assertThat(panelId("Op rate by primitive and op")).isEqualTo(11);
    }

    @Test
    void panelsFitTheGridWithoutOverlapping() {
        Set<String> cells = new HashSet<>();
        for (JsonNode panel : OperatorFiles.panels(dashboard)) {
            JsonNode grid = panel.path("gridPos");
            int x = grid.path("x").asInt(-1);
            int y = grid.path("y").asInt(-1);
            int w = grid.path("w").asInt(0);
            int h = grid.path("h").asInt(0);
            String name = "panel " + panel.path("id");
            assertThat(x).as("x of %s", name).isNotNegative();
            assertThat(y).as("y of %s", name).isNotNegative();
            assertThat(w).as("w of %s", name).isPositive();
            assertThat(h).as("h of %s", name).isPositive();
            assertThat(x + w).as("right edge of %s", name).isLessThanOrEqualTo(24);
            for (int row = y; row < y + h; row++) {
                for (int column = x; column < x + w; column++) {
                    assertThat(cells.add(column + "," + row))
                            .as("%s overlaps another at %d,%d", name, column, row)
                            .isTrue();
                }
            }
        }
    }

    @Test
    void everyVariableAQueryUsesIsDefined() {
        Set<String> defined = new HashSet<>();
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            defined.add(variable.path("name").asString());
        }
        List<String> queries = new ArrayList<>(OperatorFiles.dashboardTargetExpressions());
        queries.addAll(OperatorFiles.dashboardVariableQueries());
        for (String query : queries) {
            Matcher matcher = VARIABLE.matcher(query);
            while (matcher.find()) {
                assertThat(defined).as("variables, used in %s", query).contains(matcher.group(1));
            }
        }
    }

    private JsonNode variable(String name) {
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if (name.equals(variable.path("name").asString())) {
                return variable;
            }
        }
        throw new AssertionError("no template variable " + name);
    }

    private int panelId(String title) {
        for (JsonNode panel : OperatorFiles.panels(dashboard)) {
            if (title.equals(panel.path("title").asString())) {
                return panel.path("id").asInt();
            }
        }
        throw new AssertionError("no panel " + title);
    }

    private static void assertPrometheus(JsonNode datasource, String where) {
        assertThat(datasource.path("type").asString())
                .as("data source type of %s", where)
                .isEqualTo("prometheus");
        assertThat(datasource.path("uid").asString())
                .as("data source of %s", where)
                .isEqualTo(DATASOURCE_UID);
    }
}
