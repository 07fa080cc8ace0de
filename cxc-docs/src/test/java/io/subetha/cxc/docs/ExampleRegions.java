package io.subetha.cxc.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The tagged regions of the example sources: the lines between {@code // docs:begin NAME} and
 * {@code // docs:end NAME}, without the marker lines of regions nested in them, and without their
 * common indentation. A line ending in {@code // docs:hide} is compiled but not shown.
 */
final class ExampleRegions {

    private static final Pattern BEGIN = Pattern.compile("^\\s*// docs:begin (\\S+)\\s*$");
    private static final Pattern END = Pattern.compile("^\\s*// docs:end (\\S+)\\s*$");
    private static final String HIDE = "// docs:hide";

    /** A region's text and where it was found. */
    record Region(String name, Path source, int line, String text) {}

    private ExampleRegions() {}

    static Map<String, Region> in(Path sources) {
        Map<String, Region> regions = new LinkedHashMap<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                for (Region region : in(file, Files.readAllLines(file))) {
                    Region before = regions.putIfAbsent(region.name(), region);
                    if (before != null) {
                        throw new IllegalStateException(
                                "example region '" + region.name() + "' is tagged twice: in "
                                        + before.source() + ":" + before.line() + " and "
                                        + file + ":" + region.line() + "; rename one");
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return regions;
    }

    /**
     * A file's regions; a name tagged several times in one file is one region, its parts joined in
     * order (imports at the top of the file, the statements in a method).
     */
    static List<Region> in(Path file, List<String> lines) {
        Map<String, Integer> open = new LinkedHashMap<>();
        Map<String, Region> regions = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher begin = BEGIN.matcher(lines.get(i));
            Matcher end = END.matcher(lines.get(i));
            if (begin.matches()) {
                if (open.putIfAbsent(begin.group(1), i) != null) {
                    throw new IllegalStateException(file + ":" + (i + 1) + ": region '"
                            + begin.group(1) + "' begins again before it ends");
                }
            } else if (end.matches()) {
                Integer from = open.remove(end.group(1));
                if (from == null) {
                    throw new IllegalStateException(file + ":" + (i + 1) + ": region '"
                            + end.group(1) + "' ends but never began");
                }
                String part = text(lines.subList(from + 1, i));
                regions.merge(end.group(1), new Region(end.group(1), file, from + 1, part),
                        (first, next) -> new Region(first.name(), file, first.line(),
                                first.text() + next.text()));
            }
        }
        if (!open.isEmpty()) {
            throw new IllegalStateException(file + ": region(s) " + open.keySet() + " never end");
        }
        return List.copyOf(regions.values());
    }

    private static String text(List<String> lines) {
        List<String> shown = lines.stream()
                .filter(l -> !BEGIN.matcher(l).matches() && !END.matcher(l).matches())
                .filter(l -> !l.stripTrailing().endsWith(HIDE))
                .toList();
        int indent = shown.stream().filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        StringBuilder text = new StringBuilder();
        for (String line : shown) {
            text.append(line.isBlank() ? "" : line.substring(indent).stripTrailing()).append('\n');
        }
        return text.toString();
    }
}
