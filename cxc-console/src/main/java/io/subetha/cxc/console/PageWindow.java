package io.subetha.cxc.console;

import java.util.List;

/**
 * Which part of a filtered list one page shows: every paged view of the console (jobs, timetable,
 * history) checks its page and size here, so ten thousand rows never cross the wire at once.
 *
 * @param page from 0
 * @param size rows a page holds, 1..{@link #MAX_SIZE}
 * @param total rows that match the filter
 * @param pages pages they fill, at least 1
 */
public record PageWindow(int page, int size, long total, int pages) {

    /** The most rows one page holds. */
    public static final int MAX_SIZE = 200;

    /**
     * The window onto {@code total} rows of {@code what} ("jobs", "runs"...).
     *
     * @throws ConsoleRequestException 400 for a size outside 1..{@value #MAX_SIZE}, a negative page
     *     or a page past the last
     */
    public static PageWindow of(int total, int page, int size, String what) {
        requireValid(page, size);
        int pages = Math.max(1, (total + size - 1) / size);
        if (page >= pages) {
            throw ConsoleRequestException.badRequest(
                    "page "
                            + page
                            + " is past the last page, "
                            + (pages - 1)
                            + " ("
                            + total
                            + " "
                            + what
                            + ", "
                            + size
                            + " a page)");
        }
        return new PageWindow(page, size, total, pages);
    }

    /** {@link #of}'s checks that need no total: made before the rows are read. */
    public static void requireValid(int page, int size) {
        if (size < 1 || size > MAX_SIZE) {
            throw ConsoleRequestException.badRequest(
                    "size must be in 1.." + MAX_SIZE + ", got " + size);
        }
        if (page < 0) {
            throw ConsoleRequestException.badRequest("page must be 0 or more, got " + page);
        }
    }

    /** This page's rows of {@code all}, the list the window was made for. */
    public <T> List<T> of(List<T> all) {
        int from = page * size;
        return all.subList(Math.min(from, all.size()), Math.min(all.size(), from + size));
    }
}
