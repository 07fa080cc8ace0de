package io.subetha.cxc.chaos.crash;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Every history of a run, read back. A process SIGKILLed while writing leaves its last line torn
 * (no newline): that line is dropped and counted, since its operation was then not yet logged as
 * done. Any other line that does not parse is a broken history and fails the read.
 *
 * @param lines every whole line of every history, each history in its own order, histories by
 *     worker
 * @param tornLines last lines dropped because a kill cut them
 */
public record Histories(List<HistoryLine> lines, int tornLines) {

    public static Histories read(Path dir) {
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files =
                    list.filter(p -> p.getFileName().toString().matches("history-\\d+\\.log"))
                            .sorted(Comparator.comparingInt(Histories::worker))
                            .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<HistoryLine> lines = new ArrayList<>();
        int torn = 0;
        for (Path file : files) {
            String text;
            try {
                text = Files.readString(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            int start = 0;
            int lineNumber = 0;
            while (start < text.length()) {
                int end = text.indexOf('\n', start);
                if (end < 0) {
                    torn++; // cut by a kill: the operation was not logged as done
                    break;
                }
                lineNumber++;
                String line = text.substring(start, end);
                try {
                    lines.add(HistoryLine.parse(line));
                } catch (RuntimeException e) {
                    throw new IllegalStateException(
                            file + " line " + lineNumber + " is broken: '" + line + "'", e);
                }
                start = end + 1;
            }
        }
        return new Histories(List.copyOf(lines), torn);
    }

    private static int worker(Path file) {
        String name = file.getFileName().toString();
        return Integer.parseInt(name.substring("history-".length(), name.length() - 4));
    }

    public Stream<HistoryLine> of(Family family) {
        return lines.stream().filter(l -> l.family() == family);
    }
}
