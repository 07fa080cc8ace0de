package io.subetha.cxc.boot;

import org.apache.commons.logging.LogFactory;

/**
 * Handles the items of a fan-out declared by {@code cxc.fanouts.<name>.*}: a bean of this type,
 * naming its fan-out ({@link #fanout()}) and giving its codec, is run by the starter's worker pool
 * ({@code cxc.fanouts.<name>.workers} threads in this process): claim one item from the highest
 * non-empty level, {@link #handle}, acknowledge. One handler per fan-out in a process.
 *
 * <p><b>At least once.</b> A claimed item stays this process's until acknowledged; if the process
 * dies or goes silent beyond {@code cxc.fanouts.<name>.grace}, the item returns to its level, ahead
 * of the level's later items, and another process handles it. The starter's ticker beats the
 * process every tick, so {@link #handle} may run longer than the grace. Without the ticker ({@code
 * cxc.leader.enabled=false}) a handler longer than the grace calls {@code fanout.heartbeat()}
 * itself.
 *
 * <p><b>Failure.</b> When {@link #handle} throws, the item is held for {@code
 * cxc.fanouts.<name>.retry.backoff} (doubled for each later attempt), then returned to its level,
 * where any process may take it again. Attempts are counted in the fan-out's file, beside the item
 * ({@link FanoutItem#attempt}): every process sees the same count, and an attempt whose process
 * died mid-item counts too. The attempt numbered {@code retry.max-attempts} that throws, in
 * whichever process, is given to {@link #onDeadLetter} and acknowledged instead, so an item is
 * tried at most max-attempts times in all. (An attempt cut short by a shutdown counts as well.) The
 * back-off is waited by the process whose handler threw, for the attempt the file counted.
 *
 * <p>The fan-out bean is opened with this bean's codec, so a handler that submits follow-up items
 * takes the fan-out as an {@code ObjectProvider} (or {@code @Lazy}), not as a constructor argument.
 *
 * @param <T> the items
 */
public interface FanoutHandler<T> extends FanoutCodec<T> {

    /** Handles one item; throwing returns it to its level by the retry policy. */
    void handle(FanoutItem<T> item) throws Exception;

    /**
     * An item whose {@code retry.max-attempts}-th attempt threw, counted across processes: it is
     * acknowledged (removed from the fan-out) once this returns, or if this throws. Logs it at
     * ERROR unless overridden (keep it somewhere to run it again).
     */
    default void onDeadLetter(FanoutItem<T> item, Exception last) {
        LogFactory.getLog(FanoutHandler.class)
                .error(
                        "cxc fan-out "
                                + fanout()
                                + ": "
                                + item
                                + " failed on every attempt and is dropped (override"
                                + " FanoutHandler.onDeadLetter to keep it)",
                        last);
    }
}
