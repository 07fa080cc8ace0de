package io.subetha.cxc.boot;

import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.primitive.MappedPrimitive;
import java.nio.file.Path;
import java.util.List;

/**
 * Opens the application's own primitives in {@code cxc.directory}: the one way to get a primitive
 * typed by codecs (an event log of the application's records, a vec of its values), whose types
 * properties cannot name. A primitive opened here gets what a declared one gets: its file beside
 * the election file with the same directory checks and {@code cxc.file-permissions}, a line in
 * {@code /actuator/cxc}, its {@code cxc.ops} meters, and {@code close()} when the context closes.
 *
 * <pre>{@code
 * @Bean
 * EventStateLog<Order, Totals> orders(CxcPrimitives primitives) {
 *     return primitives.open("orders", (file, options) ->
 *             EventStateLog.TYPE.openOrCreate(
 *                     file, new EventStateLog.Settings<>(4096, ORDER, TOTALS, Totals.ZERO), options));
 * }
 * }</pre>
 */
public interface CxcPrimitives {

    /**
     * Opens (or creates, as {@code opener} decides) the primitive {@code name}, in the file {@code
     * <cxc.directory>/<name>.cxc}, and registers it. Each name is opened once per context: a second
     * {@code open} of a name is refused rather than handing out a second handle on the same file.
     *
     * @param name a plain file name: letters, digits, '.', '_' or '-', not starting with '.'
     * @param opener makes the primitive from the file's path and the configured file options
     * @throws IllegalArgumentException if {@code name} is not a plain file name
     * @throws IllegalStateException if {@code name} is already open in this context, or the context
     *     is closing
     */
    <P extends MappedPrimitive> P open(String name, Opener<P> opener);

    /** The primitives opened here and not yet closed, in the order they were opened. */
    List<MappedPrimitive> opened();

    /** {@code cxc.directory}, resolved: where every file opened here lives. */
    Path directory();

    /** Makes a primitive from its file and the options cxc creates files with. */
    @FunctionalInterface
    interface Opener<P extends MappedPrimitive> {
        P open(Path file, CxcFileOptions options);
    }
}
