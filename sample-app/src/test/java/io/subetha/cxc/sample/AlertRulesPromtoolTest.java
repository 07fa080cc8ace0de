package io.subetha.cxc.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * docs/prometheus checked by the real promtool: the rules load, their unit tests pass, each alert
 * is tested both firing and not firing, and the dashboard's PromQL parses. Without promtool the
 * tests that run it are skipped, saying how to enable them, except in CI (see {@link SystemTool}).
 */
class AlertRulesPromtoolTest {

    @TempDir Path temp;

    @Test
    void promtoolChecksTheAlertRules() throws Exception {
        Promtool.Result result =
                Promtool.run(OperatorFiles.docs(), "check", "rules", "prometheus/cxc-alerts.yml");
        System.out.println(result);
        assertThat(result.exitCode()).as("%s", result).isZero();
        assertThat(result.output())
                .as("%s", result)
                .contains("SUCCESS: " + OperatorFiles.rules().size() + " rules found");
    }

    @Test
    void promtoolRunsTheAlertRuleUnitTests() throws Exception {
        Promtool.Result result =
                Promtool.run(
                        OperatorFiles.docs(), "test", "rules", "prometheus/cxc-alerts.test.yml");
        System.out.println(result);
        assertThat(result.exitCode()).as("%s", result).isZero();
        assertThat(result.output()).as("%s", result).contains("SUCCESS").doesNotContain("FAILED");
    }

    /** The runner reads promtool's verdict: one wrong expectation makes it exit 1, FAILED. */
    @Test
    void aWrongExpectationFailsThePromtoolRun() throws Exception {
        Files.copy(OperatorFiles.alertRules(), temp.resolve("cxc-alerts.yml"));
        String tests = Files.readString(OperatorFiles.alertRuleTests());
        String wrong =
                tests.replace(
                        "summary: \"cxc-sample reports 2 cxc leaders\"",
                        "summary: \"cxc-sample reports 3 cxc leaders\"");
        assertThat(wrong).isNotEqualTo(tests);
        Files.writeString(temp.resolve("cxc-alerts.test.yml"), wrong);

        Promtool.Result result = Promtool.run(temp, "test", "rules", "cxc-alerts.test.yml");

        assertThat(result.exitCode()).as("%s", result).isEqualTo(1);
        assertThat(result.output()).as("%s", result).contains("FAILED");
    }

    /**
     * Each alert has a case where it fires and one where it does not: an {@code alert_rule_test}
     * with alerts expected and one with {@code exp_alerts} empty.
     */
    @Test
    @SuppressWarnings("unchecked")
    void everyAlertIsTestedFiringAndNotFiring() {
        Set<String> firing = new TreeSet<>();
        Set<String> silent = new TreeSet<>();
        for (Map<String, Object> test : OperatorFiles.ruleTests()) {
            Object cases = test.get("alert_rule_test");
            if (cases == null) {
                continue;
            }
            for (Map<String, Object> alertCase : (List<Map<String, Object>>) cases) {
                String alert = String.valueOf(alertCase.get("alertname"));
                Object expected = alertCase.get("exp_alerts");
                if (expected instanceof List<?> list && !list.isEmpty()) {
                    firing.add(alert);
                } else {
                    silent.add(alert);
                }
            }
        }
        List<String> alerts = OperatorFiles.alertNames();
        assertThat(alerts).hasSize(5).doesNotHaveDuplicates();
        assertThat(firing).as("alerts tested firing").containsExactlyInAnyOrderElementsOf(alerts);
        assertThat(silent)
                .as("alerts tested not firing")
                .containsExactlyInAnyOrderElementsOf(alerts);
    }

    /** Every alert has a severity label and summary and description annotations. */
    @Test
    @SuppressWarnings("unchecked")
    void everyAlertHasASeverityASummaryAndADescription() {
        for (Map<String, Object> rule : OperatorFiles.rules()) {
            if (rule.get("alert") == null) {
                continue;
            }
            Map<String, Object> labels = (Map<String, Object>) rule.get("labels");
            Map<String, Object> annotations = (Map<String, Object>) rule.get("annotations");
            assertThat(labels).as("labels of %s", rule.get("alert")).isNotNull();
            assertThat(labels.get("severity"))
                    .as("severity of %s", rule.get("alert"))
                    .isIn("critical", "warning");
            assertThat(annotations).as("annotations of %s", rule.get("alert")).isNotNull();
            assertThat(String.valueOf(annotations.get("summary")))
                    .as("summary of %s", rule.get("alert"))
                    .isNotBlank()
                    .isNotEqualTo("null");
            assertThat(String.valueOf(annotations.get("description")))
                    .as("description of %s", rule.get("alert"))
                    .isNotBlank()
                    .isNotEqualTo("null");
        }
    }

    /**
     * The dashboard's queries, with its variables filled in, parse as PromQL: promtool checks them
     * as recording rules of a throw-away rules file.
     */
    @Test
    void theDashboardsQueriesParseAsPromQl() throws Exception {
        List<String> expressions = OperatorFiles.dashboardTargetExpressions();
        assertThat(expressions).isNotEmpty();
        List<Map<String, Object>> rules = new ArrayList<>();
        for (int i = 0; i < expressions.size(); i++) {
            String expr =
                    expressions
                            .get(i)
                            .replace("$application", "cxc-sample")
                            .replace("$instance", ".*");
            assertThat(expr).as("a variable left in %s", expr).doesNotContain("$");
            Map<String, Object> rule = new LinkedHashMap<>();
            rule.put("record", "dashboard:query_" + i);
            rule.put("expr", expr);
            rules.add(rule);
        }
        Map<String, Object> group = new LinkedHashMap<>();
        group.put("name", "dashboard");
        group.put("rules", rules);
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        Files.writeString(
                temp.resolve("dashboard.yml"),
                new Yaml(options).dump(Map.of("groups", List.of(group))));

        Promtool.Result result = Promtool.run(temp, "check", "rules", "dashboard.yml");

        assertThat(result.exitCode()).as("%s", result).isZero();
        assertThat(result.output())
                .as("%s", result)
                .contains("SUCCESS: " + expressions.size() + " rules found");
    }
}
