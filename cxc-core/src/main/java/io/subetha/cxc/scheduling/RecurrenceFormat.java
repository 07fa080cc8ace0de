package io.subetha.cxc.scheduling;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * A kind of {@link Recurrence} beyond core's fixed rate and delay, found through {@link
 * ServiceLoader} ({@code META-INF/services/io.subetha.cxc.scheduling.RecurrenceFormat}): the Spring
 * Boot starter's {@code cron:}. A process without a format leaves the entries of its kind to the
 * processes that have it (see {@link BackgroundScheduler#schedule}).
 */
public interface RecurrenceFormat {

    /** The prefix of the specs this format reads, before the colon. */
    String kind();

    /**
     * Reads {@code text}, the spec after its prefix.
     *
     * @throws IllegalArgumentException saying what is wrong with it
     */
    Recurrence parse(String text);

    /** The kinds on this class path beyond core's, for messages. */
    static List<String> kinds() {
        List<String> kinds = new ArrayList<>();
        for (RecurrenceFormat format : ServiceLoader.load(RecurrenceFormat.class)) {
            kinds.add(format.kind());
        }
        return kinds;
    }
}
