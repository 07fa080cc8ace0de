package io.subetha.cxc.cli;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code --json} form of {@code inspect}: one object, its field names part of the tool's
 * contract (listed in the README; a field is added, never renamed or removed).
 *
 * <pre>
 * {"path": "...", "graceEpochs": 3, "files": [
 *   {"path": "...", "name": "leader.cxc", "kind": "leader-election", "kindCode": 1,
 *    "layoutVersion": 2, "creatorPid": 4242, "createdAt": "2026-...Z", "size": 192,
 *    "sound": true, "problem": null, "state": {...}}]}
 * </pre>
 *
 * Written by hand (the values are numbers, strings, booleans, lists and maps of those), so the jar
 * needs no JSON library.
 */
final class JsonView {

    private JsonView() {}

    static String render(Path root, long graceEpochs, List<FileReport> reports) {
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("path", root.toString());
        document.put("graceEpochs", graceEpochs);
        document.put("files", reports.stream().map(JsonView::file).toList());
        StringBuilder json = new StringBuilder();
        write(json, document, "");
        return json.append('\n').toString();
    }

    private static Map<String, Object> file(FileReport report) {
        FileReport.Header header = report.header();
        Map<String, Object> file = new LinkedHashMap<>();
        file.put("path", report.path().toString());
        file.put("name", report.name());
        file.put("kind", header == null ? null : header.kind());
        file.put("kindCode", header == null ? null : Integer.toUnsignedLong(header.kindCode()));
        file.put(
                "layoutVersion",
                header == null ? null : Integer.toUnsignedLong(header.layoutVersion()));
        file.put("creatorPid", header == null ? null : header.creatorPid());
        file.put("createdAt", header == null ? null : header.createdAt().toString());
        file.put("size", report.size() < 0 ? null : report.size());
        file.put("sound", report.isSound());
        file.put("problem", report.problem());
        file.put("state", report.state());
        return file;
    }

    private static void write(StringBuilder json, Object value, String indent) {
        if (value == null) {
            json.append("null");
        } else if (value instanceof Map<?, ?> map) {
            if (map.isEmpty()) {
                json.append("{}");
                return;
            }
            String inner = indent + "  ";
            json.append("{\n");
            int i = 0;
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                json.append(inner);
                string(json, String.valueOf(entry.getKey()));
                json.append(": ");
                write(json, entry.getValue(), inner);
                json.append(++i < map.size() ? ",\n" : "\n");
            }
            json.append(indent).append('}');
        } else if (value instanceof List<?> list) {
            if (list.isEmpty()) {
                json.append("[]");
                return;
            }
            String inner = indent + "  ";
            json.append("[\n");
            for (int i = 0; i < list.size(); i++) {
                json.append(inner);
                write(json, list.get(i), inner);
                json.append(i + 1 < list.size() ? ",\n" : "\n");
            }
            json.append(indent).append(']');
        } else if (value instanceof Boolean
                || value instanceof Integer
                || value instanceof Long
                || value instanceof Short
                || value instanceof Byte) {
            json.append(value);
        } else if (value instanceof Number number && Double.isFinite(number.doubleValue())) {
            json.append(number);
        } else {
            string(json, String.valueOf(value));
        }
    }

    private static void string(StringBuilder json, String text) {
        json.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format("\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        json.append('"');
    }
}
