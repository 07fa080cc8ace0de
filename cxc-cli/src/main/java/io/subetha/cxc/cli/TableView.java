package io.subetha.cxc.cli;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The text form of {@code inspect} and {@code watch}: per file a title line (name, kind, layout
 * version, creator PID, size, creation time), then its state as aligned "key value" lines, each
 * list of records as a small table whose columns are the records' keys. Keys are the JSON's, so
 * what a person reads is what a script greps. Rendered from {@code describe()}'s keys alone: a new
 * primitive shows up with no change here.
 */
final class TableView {

    private static final String INDENT = "  ";

    private TableView() {}

    static String render(List<FileReport> reports) {
        StringBuilder text = new StringBuilder();
        for (FileReport report : reports) {
            if (text.length() > 0) {
                text.append('\n');
            }
            title(text, report);
            if (report.problem() != null) {
                text.append(INDENT).append(report.problem()).append('\n');
            } else {
                state(text, report.state());
            }
        }
        long problems = reports.stream().filter(r -> !r.isSound()).count();
        if (reports.isEmpty()) {
            text.append("no files\n");
        } else {
            text.append('\n')
                    .append(reports.size())
                    .append(reports.size() == 1 ? " file" : " files")
                    .append(": ")
                    .append(reports.size() - problems)
                    .append(" sound, ")
                    .append(problems)
                    .append(problems == 1 ? " with a problem" : " with problems")
                    .append('\n');
        }
        return text.toString();
    }

    private static void title(StringBuilder text, FileReport report) {
        List<String> parts = new ArrayList<>();
        parts.add(report.name());
        FileReport.Header header = report.header();
        if (header != null) {
            parts.add(
                    header.kind() != null
                            ? header.kind()
                            : "kind " + Integer.toUnsignedString(header.kindCode()));
            parts.add("layout " + Integer.toUnsignedString(header.layoutVersion()));
            parts.add("creator pid " + header.creatorPid());
        }
        if (report.size() >= 0) {
            parts.add(report.size() + " bytes");
        }
        if (header != null) {
            parts.add("created " + header.createdAt());
        }
        if (report.problem() != null) {
            parts.add("PROBLEM");
        }
        text.append(String.join("  ", parts)).append('\n');
    }

    private static void state(StringBuilder text, Map<String, Object> state) {
        int width = state.keySet().stream().mapToInt(String::length).max().orElse(0);
        for (Map.Entry<String, Object> field : state.entrySet()) {
            Object value = field.getValue();
            text.append(INDENT).append(pad(field.getKey(), width));
            if (value instanceof List<?> list && list.stream().allMatch(Map.class::isInstance)) {
                text.append("  ").append(list.size()).append('\n');
                records(text, list);
            } else {
                text.append("  ").append(scalar(value)).append('\n');
            }
        }
    }

    /** A list of records as a table: one column per key any record has, in first-seen order. */
    private static void records(StringBuilder text, List<?> records) {
        if (records.isEmpty()) {
            return;
        }
        Set<String> columns = new LinkedHashSet<>();
        for (Object record : records) {
            for (Object key : ((Map<?, ?>) record).keySet()) {
                columns.add(String.valueOf(key));
            }
        }
        List<String> header = List.copyOf(columns);
        List<List<String>> rows = new ArrayList<>();
        rows.add(header);
        for (Object record : records) {
            Map<?, ?> map = (Map<?, ?>) record;
            List<String> row = new ArrayList<>();
            for (String column : header) {
                row.add(map.containsKey(column) ? scalar(map.get(column)) : "-");
            }
            rows.add(row);
        }
        int[] widths = new int[header.size()];
        for (List<String> row : rows) {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder(INDENT).append(INDENT);
            for (int i = 0; i < row.size(); i++) {
                line.append(i == row.size() - 1 ? row.get(i) : pad(row.get(i), widths[i]) + "  ");
            }
            text.append(line.toString().stripTrailing()).append('\n');
        }
    }

    private static String scalar(Object value) {
        if (value instanceof List<?> list) {
            List<String> items = new ArrayList<>();
            list.forEach(item -> items.add(scalar(item)));
            return String.join(", ", items);
        }
        return String.valueOf(value);
    }

    private static String pad(String text, int width) {
        return text + " ".repeat(Math.max(0, width - text.length()));
    }
}
