package io.subetha.cxc.eventlog;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.testing.Linearizability;
import io.subetha.cxc.testing.ProcessHandles;
import java.util.function.BiFunction;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.Test;

/**
 * The drain side of the log is linearizable across handles on one file: draining-and-folding,
 * setting the state, and reading the state and the read position, concurrently, give only histories
 * a single-threaded log ({@link Model}) could produce. Each file starts with {@link #EMITTED}
 * events emitted; the fold is order-sensitive (it appends the event as a digit), so an event folded
 * twice, skipped, or folded out of sequence order changes the state.
 *
 * <p>Emits concurrent with a drain are not part of the model, because that pairing is not
 * linearizable: a drainer folds the events emitted before it began and publishes the new state and
 * read position only at its end. Lincheck's model checker found, on a log holding one event:
 *
 * <ul>
 *   <li>{@code drain(): 1} beside {@code emit(5): true, read(): 0}: the emit completed after the
 *       drain chose what to fold, and the read after it still saw the state before the drain;
 *   <li>{@code drain(): 1} beside {@code emit(5): true, emit(6): false} on a log of capacity 2: the
 *       emitter was refused as full while the drain in flight was freeing room.
 * </ul>
 *
 * On real threads a third shows: a drainer that meets a live emitter's uncommitted reservation
 * returns after a bounded spin without the committed events behind it (documented: a stopped
 * emitter must not hold the drainer).
 */
@Param(name = "thread", gen = ThreadIdGen.class)
@Param(name = "state", gen = IntGen.class, conf = "1:9")
public class EventStateLogLinearizabilityTest {

    private static final int EMITTED = 4;
    private static final BiFunction<Long, Long, Long> FOLD = (state, event) -> state * 10 + event;
    private static final EventStateLog.Settings SETTINGS =
            new EventStateLog.Settings(8, FixedCodec.INT64, FixedCodec.INT64, 0L);

    private final ProcessHandles<EventStateLog<Long, Long>> logs =
            ProcessHandles.on(
                    "events",
                    path -> {
                        EventStateLog<Long, Long> log = EventStateLog.TYPE.create(path, SETTINGS);
                        for (long event = 1; event <= EMITTED; event++) {
                            log.emit(event);
                        }
                        return log;
                    },
                    path -> EventStateLog.TYPE.open(path, SETTINGS));

    /** How many events this drain folded. */
    @Operation
    public int drain(@Param(name = "thread") int thread) {
        return logs.of(thread).drainAndFold(FOLD);
    }

    @Operation
    public void setState(@Param(name = "thread") int thread, @Param(name = "state") int state) {
        logs.of(thread).setState((long) state);
    }

    @Operation
    public long read(@Param(name = "thread") int thread) {
        return logs.of(thread).readCurrent();
    }

    @Operation
    public long folded(@Param(name = "thread") int thread) {
        return logs.of(thread).foldedCount();
    }

    @Test
    void stress() {
        Linearizability.stress().sequentialSpecification(Model.class).check(getClass());
    }

    @Test
    void modelChecking() {
        Linearizability.modelChecking().sequentialSpecification(Model.class).check(getClass());
    }

    /** The state and how many of the emitted events it has folded. */
    public static final class Model {
        private long state;
        private int folded;

        public int drain(int thread) {
            int now = EMITTED - folded;
            for (long event = folded + 1; event <= EMITTED; event++) {
                state = FOLD.apply(state, event);
            }
            folded = EMITTED;
            return now;
        }

        public void setState(int thread, int newState) {
            state = newState;
        }

        public long read(int thread) {
            return state;
        }

        public long folded(int thread) {
            return folded;
        }
    }
}
