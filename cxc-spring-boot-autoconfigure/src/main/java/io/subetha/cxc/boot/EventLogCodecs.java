package io.subetha.cxc.boot;

import io.subetha.cxc.codec.FixedCodec;
import java.util.Objects;
import java.util.function.BiFunction;

/**
 * What an event log declared by {@code cxc.event-logs.<name>.*} holds, which properties cannot
 * name: its events' type and codec, its folded state's codec and first value, and the fold. The
 * starter opens the log's file with the codecs, folds its events into the state on the leader's
 * ticks ({@link #fold}), and checks every {@link io.subetha.cxc.boot.annotation.CxcEventListener}
 * and {@link CxcEventPublisher#publish} against {@link #eventType}. Every process sharing the file
 * gives the same codecs (the file stores their fingerprint and refuses others) and the same fold.
 *
 * <p>A declared log that no bean of this type names holds {@code long} events ({@link
 * FixedCodec#INT64}) and folds them into their count.
 *
 * <pre>{@code
 * @Bean
 * EventLogCodecs<Order, Totals> orders() {
 *     return EventLogCodecs.of("orders", Order.class, FixedCodec.record(Order.class),
 *             FixedCodec.record(Totals.class), Totals.ZERO, Totals::plus);
 * }
 * }</pre>
 *
 * @param <E> the events
 * @param <S> the folded state
 */
public interface EventLogCodecs<E, S> {

    /** The declared log's name: {@code <name>} in {@code cxc.event-logs.<name>.*}. */
    String log();

    /** The events' class: a listener's parameter and a published event must be of it. */
    Class<E> eventType();

    FixedCodec<E> eventCodec();

    FixedCodec<S> stateCodec();

    /** The state of a new log. */
    S initialState();

    /** The state after {@code event}: a pure function, the same in every process. */
    S fold(S state, E event);

    /** Events of {@code eventType}, folded into their count. */
    static <E> EventLogCodecs<E, Long> of(
            String log, Class<E> eventType, FixedCodec<E> eventCodec) {
        return of(log, eventType, eventCodec, FixedCodec.INT64, 0L, (count, event) -> count + 1);
    }

    /** Events of {@code eventType}, folded by {@code fold} from {@code initialState}. */
    static <E, S> EventLogCodecs<E, S> of(
            String log,
            Class<E> eventType,
            FixedCodec<E> eventCodec,
            FixedCodec<S> stateCodec,
            S initialState,
            BiFunction<S, E, S> fold) {
        Objects.requireNonNull(log, "log");
        Objects.requireNonNull(eventType, "eventType");
        Objects.requireNonNull(eventCodec, "eventCodec");
        Objects.requireNonNull(stateCodec, "stateCodec");
        Objects.requireNonNull(initialState, "initialState");
        Objects.requireNonNull(fold, "fold");
        return new EventLogCodecs<>() {
            @Override
            public String log() {
                return log;
            }

            @Override
            public Class<E> eventType() {
                return eventType;
            }

            @Override
            public FixedCodec<E> eventCodec() {
                return eventCodec;
            }

            @Override
            public FixedCodec<S> stateCodec() {
                return stateCodec;
            }

            @Override
            public S initialState() {
                return initialState;
            }

            @Override
            public S fold(S state, E event) {
                return fold.apply(state, event);
            }

            @Override
            public String toString() {
                return "EventLogCodecs[" + log + ": " + eventCodec.describe() + "]";
            }
        };
    }
}
