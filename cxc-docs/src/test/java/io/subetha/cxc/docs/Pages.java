package io.subetha.cxc.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Where the repository's pages and this module's example sources are. */
final class Pages {

    private Pages() {}

    /** The repository's root: the directory above this module. */
    static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path p = dir; p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("README.md")) && Files.isDirectory(p.resolve("cxc-docs"))) {
                return p;
            }
        }
        throw new IllegalStateException("no README.md and cxc-docs above " + dir);
    }

    static Path guide() {
        return root().resolve("docs/guide");
    }

    /** README.md and every page of the guide: the pages whose Java blocks are compiled. */
    static List<Path> withExamples() {
        List<Path> pages = new ArrayList<>();
        pages.add(root().resolve("README.md"));
        pages.addAll(markdownIn(guide()));
        return pages;
    }

    /** Every Markdown page: README.md, docs/*.md and the guide's. */
    static List<Path> all() {
        List<Path> pages = new ArrayList<>();
        pages.add(root().resolve("README.md"));
        pages.addAll(markdownIn(root().resolve("docs")));
        pages.addAll(markdownIn(guide()));
        return pages;
    }

    static List<Path> markdownIn(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.toString().endsWith(".md")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** This module's test sources: the examples. */
    static Path exampleSources() {
        return root().resolve("cxc-docs/src/test/java");
    }

    static String relative(Path file) {
        return root().relativize(file).toString();
    }
}
