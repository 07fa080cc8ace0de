package io.subetha.cxc.resolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A waiter with no practical time limit waits for a live fetcher or writer of another process until
 * it is done, and the texts name that process and how long it has been fetching: the async
 * pointer's fetch and the universal set's writer lock, each held by a process that never dies.
 */
class LiveHolderWaitsTest {

    /** As long as a wait can be: {@code Duration.toNanos} overflows, the wait is unbounded. */
    static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE);

    @TempDir Path dir;

    /** Starts {@code body} on a thread and waits until it is parked or has ended. */
    static Thread parked(Runnable body) {
        Thread t = new Thread(body, "waiter");
        t.setDaemon(true);
        t.start();
        await().atMost(Duration.ofSeconds(30))
                .until(
                        () ->
                                !t.isAlive()
                                        || t.getState() == Thread.State.TIMED_WAITING
                                        || t.getState() == Thread.State.WAITING);
        assertThat(t.isAlive()).as("the waiter is still waiting").isTrue();
        return t;
    }

    @Test
    void aWaiterWithoutATimeLimitWaitsForAnotherProcesssFetchAndTheTextSaysHowLong()
            throws Exception {
        Path path = dir.resolve("p.cxc");
        try (SharedAsyncPointer<Long> pointer =
                SharedAsyncPointer.TYPE.create(
                        path, new SharedAsyncPointer.Settings<>(FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            long init = OwnerRecord.ownerWord(1, 4); // PID 1 never dies
            raw.setLongVolatile(AsyncPointerDescriptor.FETCHER_RECORD_OFFSET, init);
            raw.setLongVolatile(
                    AsyncPointerDescriptor.FETCHER_RECORD_OFFSET + OwnerRecord.HEARTBEAT_OFFSET,
                    System.nanoTime() - Duration.ofHours(1).toNanos());
            Throwable timedOut =
                    org.assertj.core.api.Assertions.catchThrowable(
                            () -> pointer.getOrFetch(() -> 1L, Duration.ofMillis(20)));
            assertThat(timedOut).isInstanceOf(CxcTimeoutException.class);
            Matcher m = Pattern.compile("fetching for (\\d+) ms").matcher(timedOut.getMessage());
            assertThat(m.find()).isTrue();
            assertThat(Long.parseLong(m.group(1)))
                    .isBetween(
                            Duration.ofHours(1).toMillis(),
                            Duration.ofHours(1).plusMinutes(10).toMillis());

            AtomicReference<Object> got = new AtomicReference<>();
            Thread waiter =
                    parked(
                            () -> {
                                try {
                                    got.set(pointer.getOrFetch(() -> 7L, FOREVER));
                                } catch (RuntimeException e) {
                                    got.set(e);
                                }
                            });
            raw.setLongVolatile(
                    AsyncPointerDescriptor.FETCHER_RECORD_OFFSET, OwnerRecord.freed(init));
            waiter.join(Duration.ofSeconds(30).toMillis());
            assertThat(got.get()).isEqualTo(7L);
            assertThat(pointer.takeovers()).isZero();

            // The same with a limit of a minute: waited for, not given up at once.
            pointer.reset();
            long again = OwnerRecord.ownerWord(1, OwnerRecord.nextGeneration(init));
            // As planted first: no identity recorded (the last claim's was this process's).
            raw.setLongVolatile(
                    AsyncPointerDescriptor.FETCHER_RECORD_OFFSET + OwnerRecord.IDENTITY_OFFSET, 0);
            raw.setLongVolatile(AsyncPointerDescriptor.FETCHER_RECORD_OFFSET, again);
            Thread minute =
                    parked(
                            () -> {
                                try {
                                    got.set(pointer.getOrFetch(() -> 8L, Duration.ofMinutes(1)));
                                } catch (RuntimeException e) {
                                    got.set(e);
                                }
                            });
            raw.setLongVolatile(
                    AsyncPointerDescriptor.FETCHER_RECORD_OFFSET, OwnerRecord.freed(again));
            minute.join(Duration.ofSeconds(30).toMillis());
            assertThat(got.get()).isEqualTo(8L);

            for (Duration bad : new Duration[] {Duration.ZERO, Duration.ofNanos(-1)}) {
                assertThatThrownBy(() -> pointer.getOrFetch(() -> 1L, bad))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessage(
                                "timeout must be positive, got "
                                        + bad
                                        + "; it bounds the wait for a fetch");
            }
        }
    }

    @Test
    void aLookUpWithoutATimeLimitWaitsForAnotherProcesssWriterAndTheTextNamesIt() throws Exception {
        Path path = dir.resolve("u.cxc");
        try (SharedUniversal<Long> set =
                SharedUniversal.TYPE.create(
                        path, new SharedUniversal.Settings<>(8, FixedCodec.INT64))) {
            set.insert(5L);
            AtomicBuffer raw = RawBody.of(path);
            long word = OwnerRecord.ownerWord(raw, UniversalDescriptor.LOCK_OFFSET);
            long held = OwnerRecord.ownerWord(1, OwnerRecord.nextGeneration(word));
            raw.setLongVolatile(UniversalDescriptor.LOCK_OFFSET, held);
            raw.setLongVolatile(
                    UniversalDescriptor.INTENT_OP_OFFSET, UniversalDescriptor.INTENT_INSERT);
            raw.getAndAddLong(UniversalDescriptor.VERSION_OFFSET, 1);

            set.waitLimit(Duration.ofMillis(20));
            assertThatThrownBy(() -> set.containsKey(5L))
                    .isInstanceOf(CxcTimeoutException.class)
                    .hasMessageContaining(": PID 1 holds the writer lock, inserting, and is alive")
                    .hasMessageNotContaining("this process");

            set.waitLimit(FOREVER);
            AtomicReference<Object> got = new AtomicReference<>();
            Thread waiter =
                    parked(
                            () -> {
                                try {
                                    got.set(set.containsKey(5L));
                                } catch (RuntimeException e) {
                                    got.set(e);
                                }
                            });
            // The writer finishes its step: nothing in flight, the version even, the lock free.
            raw.setLongVolatile(
                    UniversalDescriptor.INTENT_OP_OFFSET, UniversalDescriptor.INTENT_NONE);
            raw.getAndAddLong(UniversalDescriptor.VERSION_OFFSET, 1);
            raw.setLongVolatile(UniversalDescriptor.LOCK_OFFSET, OwnerRecord.freed(held));
            waiter.join(Duration.ofSeconds(30).toMillis());
            assertThat(got.get()).isEqualTo(true);

            // The same with a limit of a minute.
            long word2 = OwnerRecord.ownerWord(raw, UniversalDescriptor.LOCK_OFFSET);
            long held2 = OwnerRecord.ownerWord(1, OwnerRecord.nextGeneration(word2));
            raw.setLongVolatile(UniversalDescriptor.LOCK_OFFSET + OwnerRecord.IDENTITY_OFFSET, 0);
            raw.setLongVolatile(UniversalDescriptor.LOCK_OFFSET, held2);
            raw.setLongVolatile(
                    UniversalDescriptor.INTENT_OP_OFFSET, UniversalDescriptor.INTENT_INSERT);
            raw.getAndAddLong(UniversalDescriptor.VERSION_OFFSET, 1);
            set.waitLimit(Duration.ofMinutes(1));
            got.set(null);
            Thread minute =
                    parked(
                            () -> {
                                try {
                                    got.set(set.containsKey(5L));
                                } catch (RuntimeException e) {
                                    got.set(e);
                                }
                            });
            raw.setLongVolatile(
                    UniversalDescriptor.INTENT_OP_OFFSET, UniversalDescriptor.INTENT_NONE);
            raw.getAndAddLong(UniversalDescriptor.VERSION_OFFSET, 1);
            raw.setLongVolatile(UniversalDescriptor.LOCK_OFFSET, OwnerRecord.freed(held2));
            minute.join(Duration.ofSeconds(30).toMillis());
            assertThat(got.get()).isEqualTo(true);
        }
    }
}
