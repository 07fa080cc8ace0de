package io.subetha.cxc.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Runs {@code cxc} in-process through picocli's {@code execute}, its output captured. */
record CxcRun(int exitCode, String out, String err) {

    static CxcRun run(String... args) {
        return run(false, args);
    }

    static CxcRun run(boolean terminal, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code =
                Cxc.commandLine(new Cxc(terminal), new PrintWriter(out), new PrintWriter(err))
                        .execute(args);
        return new CxcRun(code, out.toString(), err.toString());
    }

    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- out ---\n" + out + "--- err ---\n" + err;
    }

    /**
     * Every entry under {@code root} (and {@code root} itself) with its type, bytes and times: what
     * a read-only command must leave exactly as it was.
     */
    static Map<String, String> tree(Path root) throws IOException {
        Map<String, String> tree = new TreeMap<>();
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.toList()) {
                BasicFileAttributes a =
                        Files.readAttributes(
                                path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                String content =
                        a.isRegularFile()
                                ? Arrays.toString(Files.readAllBytes(path))
                                : a.isSymbolicLink() ? "-> " + Files.readSymbolicLink(path) : "";
                tree.put(
                        root.relativize(path).toString(),
                        (a.isDirectory() ? "dir " : a.isSymbolicLink() ? "link " : "file ")
                                + "mtime "
                                + a.lastModifiedTime().toMillis()
                                + " ctime "
                                + Files.getAttribute(path, "unix:ctime", LinkOption.NOFOLLOW_LINKS)
                                + " "
                                + content);
            }
        }
        return tree;
    }
}
