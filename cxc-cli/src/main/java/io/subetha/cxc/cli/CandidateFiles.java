package io.subetha.cxc.cli;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The files a command looks at under a path: the path itself if it is not a directory, else every
 * entry below it, in path order, except directories themselves and the temporary files {@code
 * create} builds a new file in ({@code .NAME.creating-PID-RANDOM}: never opened under that name,
 * and harmless if a creator died and left one) and Unix domain sockets (a pass registry's wake
 * sockets, never a cxc file, in {@code NAME.wake/} beside it). Symbolic links are listed, not
 * followed (and then reported, since cxc never opens a link); a directory given as the path may
 * itself be a link. Every other entry, cxc file or not, is looked at, so a damaged file is never
 * passed over for not looking like a cxc file.
 */
final class CandidateFiles {

    /**
     * One entry to look at.
     *
     * @param name what to call it: its path relative to the directory looked in, or the path as
     *     given when that was a file
     * @param listingFailure why a directory below the root could not be listed, else null
     */
    record Candidate(Path path, String name, @Nullable IOException listingFailure) {}

    private CandidateFiles() {}

    /** Whether {@code path} names a creator's temporary file. */
    static boolean isTemporary(Path path) {
        Path name = path.getFileName();
        return name != null
                && name.toString().startsWith(".")
                && name.toString().contains(".creating-");
    }

    /** Whether {@code path} is a Unix domain socket ({@code S_IFSOCK}); false where unknown. */
    static boolean isSocket(Path path) {
        try {
            Object mode = Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            return mode instanceof Integer m && (m & 0170000) == 0140000;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    static List<Candidate> under(Path root) throws IOException {
        if (!Files.isDirectory(root)) {
            return List.of(new Candidate(root, root.toString(), null));
        }
        // A directory given by a link is followed (deliberately named); links below it are not.
        Path start = Files.isSymbolicLink(root) ? root.toRealPath() : root;
        List<Candidate> found = new ArrayList<>();
        Files.walkFileTree(
                start,
                new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                        if (!isTemporary(file) && !(attributes.isOther() && isSocket(file))) {
                            found.add(new Candidate(file, nameOf(start, file), null));
                        }
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path file, IOException e) {
                        if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
                            found.add(new Candidate(file, nameOf(start, file), e));
                        } else if (!isTemporary(file)) {
                            // Gone between listing and reading, or unreadable: inspection says.
                            found.add(new Candidate(file, nameOf(start, file), null));
                        }
                        return FileVisitResult.CONTINUE;
                    }
                });
        found.sort(Comparator.comparing(Candidate::path));
        return found;
    }

    private static String nameOf(Path start, Path file) {
        String name = start.relativize(file).toString();
        return name.isEmpty() ? "." : name;
    }
}
