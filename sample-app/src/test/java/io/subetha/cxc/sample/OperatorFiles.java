package io.subetha.cxc.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The operator files in {@code docs/} (the Grafana dashboard, the Prometheus alert rules and their
 * unit tests) and the PromQL in them: which expressions they hold, which cxc metric names and which
 * recording rules those use.
 */
final class OperatorFiles {

    /**
     * A cxc metric name as written in PromQL: {@code cxc_} then name characters, not preceded by a
     * name character or a colon (so {@code app:cxc_x} or {@code my_cxc_x} are not one). Digits and
     * capitals are taken in too, so that such a name is checked whole rather than cut short.
     */
    private static final Pattern METRIC_NAME =
            Pattern.compile("(?<![A-Za-z0-9_:])cxc_[A-Za-z0-9_]+");

    /** A recording rule's name by the {@code level:metric:operations} convention. */
    private static final Pattern RECORDING_RULE_NAME =
            Pattern.compile("(?<![A-Za-z0-9_:])cxc:[A-Za-z0-9_:]+");

    /** A PromQL string literal: label values and regular expressions are not metric names. */
    private static final Pattern STRING_LITERAL =
            Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'|`[^`]*`");

    private OperatorFiles() {}

    /** {@code docs/}, found from the working directory upwards (the module's, under Maven). */
    static Path docs() {
        Path start = Path.of("").toAbsolutePath();
        for (Path directory = start; directory != null; directory = directory.getParent()) {
            if (Files.isRegularFile(directory.resolve("docs/prometheus/cxc-alerts.yml"))) {
                return directory.resolve("docs");
            }
        }
        throw new AssertionError("no docs/prometheus/cxc-alerts.yml in " + start + " or above");
    }

    static Path alertRules() {
        return docs().resolve("prometheus/cxc-alerts.yml");
    }

    static Path alertRuleTests() {
        return docs().resolve("prometheus/cxc-alerts.test.yml");
    }

    static Path dashboard() {
        return docs().resolve("grafana/cxc-dashboard.json");
    }

    static JsonNode dashboardJson() {
        try {
            return new ObjectMapper().readTree(Files.readString(dashboard()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every panel, rows and the panels inside rows included, in file order. */
    static List<JsonNode> panels(JsonNode dashboard) {
        List<JsonNode> panels = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            panels.add(panel);
            for (JsonNode nested : panel.path("panels")) {
                panels.add(nested);
            }
        }
        return panels;
    }

    static boolean isRow(JsonNode panel) {
        return "row".equals(panel.path("type").asString());
    }

    /** The PromQL of every panel's targets. */
    static List<String> dashboardTargetExpressions() {
        List<String> expressions = new ArrayList<>();
        for (JsonNode panel : panels(dashboardJson())) {
            for (JsonNode target : panel.path("targets")) {
                expressions.add(target.path("expr").asString());
            }
        }
        return expressions;
    }

    /** The queries of the template variables ({@code label_values(...)}, Grafana's, not PromQL). */
    static List<String> dashboardVariableQueries() {
        List<String> queries = new ArrayList<>();
        for (JsonNode variable : dashboardJson().path("templating").path("list")) {
            if ("query".equals(variable.path("type").asString())) {
                JsonNode query = variable.path("query");
                queries.add(query.isObject() ? query.path("query").asString() : query.asString());
            }
        }
        return queries;
    }

    /** The {@code expr} of every rule, recording or alerting, in the rules file. */
    static List<String> ruleExpressions() {
        List<String> expressions = new ArrayList<>();
        for (Map<String, Object> rule : rules()) {
            expressions.add(String.valueOf(rule.get("expr")));
        }
        return expressions;
    }

    /** The names the rules file records. */
    static Set<String> recordedNames() {
        Set<String> names = new TreeSet<>();
        for (Map<String, Object> rule : rules()) {
            if (rule.get("record") != null) {
                names.add(String.valueOf(rule.get("record")));
            }
        }
        return names;
    }

    /** The alert names the rules file defines. */
    static List<String> alertNames() {
        List<String> names = new ArrayList<>();
        for (Map<String, Object> rule : rules()) {
            if (rule.get("alert") != null) {
                names.add(String.valueOf(rule.get("alert")));
            }
        }
        return names;
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> rules() {
        List<Map<String, Object>> rules = new ArrayList<>();
        Map<String, Object> file = yaml(alertRules());
        for (Map<String, Object> group : (List<Map<String, Object>>) file.get("groups")) {
            rules.addAll((List<Map<String, Object>>) group.get("rules"));
        }
        return rules;
    }

    /** The unit tests in the rule tests file. */
    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> ruleTests() {
        return (List<Map<String, Object>>) yaml(alertRuleTests()).get("tests");
    }

    /** The series selectors the rule unit tests feed in: they should be real metric names too. */
    @SuppressWarnings("unchecked")
    static List<String> ruleTestSeries() {
        List<String> series = new ArrayList<>();
        for (Map<String, Object> test : ruleTests()) {
            Object inputs = test.get("input_series");
            if (inputs != null) {
                for (Map<String, Object> input : (List<Map<String, Object>>) inputs) {
                    series.add(String.valueOf(input.get("series")));
                }
            }
        }
        return series;
    }

    /** The cxc metric names a PromQL expression uses (string literals ignored). */
    static Set<String> metricNames(String promql) {
        return matches(METRIC_NAME, promql);
    }

    /** The {@code cxc:...} recording rules a PromQL expression uses. */
    static Set<String> recordingRuleNames(String promql) {
        return matches(RECORDING_RULE_NAME, promql);
    }

    private static Set<String> matches(Pattern pattern, String promql) {
        Set<String> names = new LinkedHashSet<>();
        Matcher matcher = pattern.matcher(STRING_LITERAL.matcher(promql).replaceAll("\"\""));
        while (matcher.find()) {
            names.add(matcher.group());
        }
        return names;
    }

    /**
     * The names of the samples in a Prometheus text exposition: what a query can select. A counter
     * {@code cxc.ops} is sampled as {@code cxc_ops_total} while its {@code # TYPE} line says {@code
     * cxc_ops}, a timer {@code cxc.x} as {@code cxc_x_seconds_count}, {@code _sum} and {@code
     * _max}: comment lines are not samples, so only the suffixed names count.
     */
    static Set<String> sampleNames(String exposition) {
        Set<String> names = new TreeSet<>();
        for (String line : exposition.split("\n")) {
            String sample = line.strip();
            if (sample.isEmpty() || sample.startsWith("#")) {
                continue;
            }
            int end = 0;
            while (end < sample.length()
                    && sample.charAt(end) != '{'
                    && !Character.isWhitespace(sample.charAt(end))) {
                end++;
            }
            names.add(sample.substring(0, end));
        }
        return names;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> yaml(Path file) {
        try {
            return (Map<String, Object>) new Yaml().load(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
