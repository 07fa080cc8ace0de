package io.subetha.cxc.resolution;

import static io.subetha.cxc.resolution.AsyncPointerDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.primitive.PrimitiveView;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fetcher record's claim in one process, with the dead fetcher's state planted in the file (its
 * owner word given a PID above every kernel's pid_max, so {@code /proc} proves it dead): a dead
 * fetcher replaced by one CAS from the judged word and counted as a takeover; one killed after
 * publishing left alone; a claimant that finds the cell resolved after winning (held at {@code
 * WON}); a claimant that loses its CAS (held at {@code JUDGED}) waiting on the winner; the words a
 * fetch and a release leave; a corrupt resolved value; the epoch's wrap; body checks.
 */
class AsyncPointerFetchClaimTest {

    static final long DEAD_PID = Pids.MAX_PID - 1;
    static final long PID = ProcessHandle.current().pid();
    static final Duration LONG = Duration.ofSeconds(60);

    @TempDir Path dir;

    static void at(Point point, Runnable action, Runnable body) {
        AtomicBoolean fired = new AtomicBoolean();
        try (Interleaving.Installed hook =
                Interleaving.install(
                        p -> {
                            if (p == point && fired.compareAndSet(false, true)) {
                                action.run();
                            }
                        })) {
            body.run();
        }
        assertThat(fired).isTrue();
    }

    @Test
    void aDeadFetchersClaimIsTakenOverOnceUnderTheNextKeyAndReleased() {
        Path path = dir.resolve("p.cxc");
        try (SharedAsyncPointer<Long> pointer =
                SharedAsyncPointer.TYPE.create(
                        path, new SharedAsyncPointer.Settings<>(FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            long dead = OwnerRecord.ownerWord(DEAD_PID, 5);
            raw.setLongVolatile(FETCHER_RECORD_OFFSET, dead);
            raw.setLongVolatile(
                    FETCHER_RECORD_OFFSET + OwnerRecord.HEARTBEAT_OFFSET, System.nanoTime());
            assertThat(pointer.fetcher()).hasValue(DEAD_PID);
            assertThat(pointer.describe())
                    .containsEntry("state", "FETCHING")
                    .containsEntry("fetcherPid", DEAD_PID);
            AtomicInteger calls = new AtomicInteger();
            long[] ownerDuringFetch = new long[1];
            assertThat(
                            pointer.getOrFetch(
                                    () -> {
                                        calls.incrementAndGet();
                                        ownerDuringFetch[0] =
                                                raw.getLongVolatile(FETCHER_RECORD_OFFSET);
                                        return 7L;
                                    },
                                    LONG))
                    .isEqualTo(7L);
            assertThat(calls).hasValue(1);
            assertThat(ownerDuringFetch[0]).isEqualTo(OwnerRecord.ownerWord(PID, 6));
            assertThat(raw.getLongVolatile(FETCHER_RECORD_OFFSET))
                    .isEqualTo(OwnerRecord.freed(OwnerRecord.ownerWord(PID, 6)));
            assertThat(raw.getLongVolatile(STATE_OFFSET)).isEqualTo(stateWord(0, RESOLVED));
            assertThat(pointer.takeovers()).isEqualTo(1);
            assertThat(pointer.fetches()).isEqualTo(1);
            assertThat(pointer.fetcher()).isEmpty();
            // The next fetch (after a reset) claims a free record: no takeover.
            pointer.reset();
            assertThat(pointer.fetcher()).isEmpty();
            assertThat(pointer.getOrFetch(() -> 8L, LONG)).isEqualTo(8L);
            assertThat(pointer.takeovers()).isEqualTo(1);
            assertThat(pointer.fetches()).isEqualTo(2);
            assertThat(raw.getLongVolatile(STATE_OFFSET)).isEqualTo(stateWord(1, RESOLVED));
            assertThat(raw.getLongVolatile(FETCHER_RECORD_OFFSET))
                    .isEqualTo(OwnerRecord.freed(OwnerRecord.ownerWord(PID, 7)));
            assertThat(pointer.describe())
                    .containsEntry("state", "RESOLVED")
                    .containsEntry("epoch", 1L)
                    .containsEntry("fetcherPid", 0L)
                    .containsEntry("fetches", 2L)
                    .containsEntry("failedFetches", 0L)
                    .containsEntry("takeovers", 1L)
                    .containsEntry("resets", 1L)
                    .containsEntry("valueBytes", 8);
        }
    }

    @Test
    void aFetcherKilledAfterPublishingIsLeftAloneAndItsValueRead() {
        Path path = dir.resolve("p.cxc");
        try (SharedAsyncPointer<Long> pointer =
                SharedAsyncPointer.TYPE.create(
                        path, new SharedAsyncPointer.Settings<>(FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            long dead = OwnerRecord.ownerWord(DEAD_PID, 3);
            FixedCodec.INT64.write(raw, VALUE_OFFSET, 42L);
            raw.setLongVolatile(STATE_OFFSET, stateWord(0, RESOLVED));
            raw.setLongVolatile(FETCHER_RECORD_OFFSET, dead);
            assertThat(pointer.getOrFetch(() -> 1L, LONG)).isEqualTo(42L);
            assertThat(pointer.tryGet()).contains(42L);
            assertThat(pointer.isResolved()).isTrue();
            assertThat(pointer.fetcher()).isEmpty();
            assertThat(pointer.describe())
                    .containsEntry("state", "RESOLVED")
                    .containsEntry("fetcherPid", 0L);
            assertThat(raw.getLongVolatile(FETCHER_RECORD_OFFSET)).isEqualTo(dead);
            assertThat(pointer.fetches()).isZero();
            pointer.reset();
            assertThat(pointer.getOrFetch(() -> 2L, LONG)).isEqualTo(2L);
            assertThat(pointer.takeovers()).isEqualTo(1);
        }
    }

    @Test
    void aClaimantThatFindsTheCellResolvedAfterWinningFetchesNothingAndReleases() {
        Path path = dir.resolve("p.cxc");
        try (SharedAsyncPointer<Long> pointer =
                SharedAsyncPointer.TYPE.create(
                        path, new SharedAsyncPointer.Settings<>(FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            AtomicInteger calls = new AtomicInteger();
            at(
                    Point.WON,
                    () -> {
                        // Another fetcher published between this caller's look and its claim.
                        FixedCodec.INT64.write(raw, VALUE_OFFSET, 99L);
                        raw.setLongVolatile(STATE_OFFSET, stateWord(0, RESOLVED));
                    },
                    () ->
                            assertThat(pointer.getOrFetch(() -> 1L + calls.incrementAndGet(), LONG))
                                    .isEqualTo(99L));
            assertThat(calls).hasValue(0);
            assertThat(pointer.fetches()).isZero();
            assertThat(OwnerRecord.pid(raw.getLongVolatile(FETCHER_RECORD_OFFSET))).isZero();
            assertThat(pointer.takeovers()).isZero();
        }
    }

    @Test
    void aClaimantThatLosesItsCasWaitsOnTheWinnerAndItsTimeoutNamesIt() {
        Path path = dir.resolve("p.cxc");
        try (SharedAsyncPointer<Long> pointer =
                SharedAsyncPointer.TYPE.create(
                        path, new SharedAsyncPointer.Settings<>(FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            AtomicInteger calls = new AtomicInteger();
            at(
                    Point.JUDGED,
                    () -> {
                        // Another thread of this process won the record first: it is alive.
                        raw.setLongVolatile(FETCHER_RECORD_OFFSET, OwnerRecord.ownerWord(PID, 1));
                        raw.setLongVolatile(
                                FETCHER_RECORD_OFFSET + OwnerRecord.HEARTBEAT_OFFSET,
                                System.nanoTime());
                    },
                    () ->
                            assertThatThrownBy(
                                            () ->
                                                    pointer.getOrFetch(
                                                            () -> 1L + calls.incrementAndGet(),
                                                            Duration.ofMillis(50)))
                                    .isInstanceOf(CxcTimeoutException.class)
                                    .hasMessageContaining("timed out after PT0.05S")
                                    .hasMessageContaining(
                                            "by PID " + PID + " (this process, another thread)")
                                    .hasMessageContaining("ms and still alive"));
            assertThat(calls).hasValue(0);
            assertThat(pointer.fetches()).isZero();
            assertThat(raw.getLongVolatile(FETCHER_RECORD_OFFSET))
                    .isEqualTo(OwnerRecord.ownerWord(PID, 1));
            assertThat(pointer.fetcher()).hasValue(PID);
            assertThat(pointer.describe())
                    .containsEntry("state", "FETCHING")
                    .containsEntry("fetcherPid", PID);
        }
    }

    @Test
    void aFetcherInAnotherLiveProcessIsWaitedForNotReplaced() {
        Path path = dir.resolve("p.cxc");
        try (SharedAsyncPointer<Long> pointer =
                SharedAsyncPointer.TYPE.create(
                        path, new SharedAsyncPointer.Settings<>(FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            long init = OwnerRecord.ownerWord(1, 4); // PID 1 is always alive
            raw.setLongVolatile(FETCHER_RECORD_OFFSET, init);
            // An hour-old fetch is not stale: a fetch is replaced only when its process dies.
            raw.setLongVolatile(
                    FETCHER_RECORD_OFFSET + OwnerRecord.HEARTBEAT_OFFSET,
                    System.nanoTime() - Duration.ofHours(1).toNanos());
            assertThatThrownBy(() -> pointer.getOrFetch(() -> 1L, Duration.ofMillis(20)))
                    .isInstanceOf(CxcTimeoutException.class)
                    .hasMessageContaining("by PID 1, fetching for ")
                    .hasMessageNotContaining("this process");
            assertThat(raw.getLongVolatile(FETCHER_RECORD_OFFSET)).isEqualTo(init);
            assertThat(pointer.takeovers()).isZero();
        }
    }

    @Test
    void aResolvedValueTheCodecCannotReadIsReportedCorrupt() {
        Path path = dir.resolve("p.cxc");
        try (SharedAsyncPointer<String> pointer =
                SharedAsyncPointer.TYPE.create(
                        path, new SharedAsyncPointer.Settings<>(FixedCodec.string(8)))) {
            AtomicBuffer raw = RawBody.of(path);
            assertThat(pointer.getOrFetch(() -> "abc", LONG)).isEqualTo("abc");
            raw.setIntVolatile(VALUE_OFFSET, 9);
            assertThatThrownBy(pointer::tryGet)
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining("the value resolved in " + path + " cannot be read by")
                    .hasMessageContaining("stores a length of 9 bytes")
                    .hasMessageContaining("Reset the pointer to fetch again");
            assertThatThrownBy(() -> pointer.getOrFetch(() -> "x", LONG))
                    .isInstanceOf(CxcFormatException.class);
            pointer.reset();
            assertThat(pointer.getOrFetch(() -> "def", LONG)).isEqualTo("def");
            assertThat(pointer.tryGet()).contains("def");
        }
    }

    @Test
    void aResetMovesTheEpochInItsWrapAroundAndCountsOnce() {
        Path path = dir.resolve("p.cxc");
        try (SharedAsyncPointer<Long> pointer =
                SharedAsyncPointer.TYPE.create(
                        path, new SharedAsyncPointer.Settings<>(FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            raw.setLongVolatile(STATE_OFFSET, stateWord(0xFFFF_FFFFL, RESOLVED));
            pointer.reset();
            assertThat(raw.getLongVolatile(STATE_OFFSET)).isEqualTo(stateWord(0, EMPTY));
            pointer.reset(); // an empty cell's reset still moves the epoch
            assertThat(raw.getLongVolatile(STATE_OFFSET)).isEqualTo(stateWord(1, EMPTY));
            assertThat(pointer.describe())
                    .containsEntry("resets", 2L)
                    .containsEntry("state", "EMPTY");
            assertThat(epoch(stateWord(0x1_2345_6789L, RESOLVED))).isEqualTo(0x2345_6789L);
            assertThat(state(stateWord(3, RESOLVED))).isEqualTo(RESOLVED);
            assertThat(state(0xFFFF_FFFF_0000_0001L)).isEqualTo(1);
            assertThat(epoch(0xFFFF_FFFF_0000_0001L)).isEqualTo(0xFFFF_FFFFL);
        }
    }

    @Test
    void aFetchThatThrowsIsCountedAndReleasesTheRecord() {
        Path path = dir.resolve("p.cxc");
        try (SharedAsyncPointer<Long> pointer =
                SharedAsyncPointer.TYPE.create(
                        path, new SharedAsyncPointer.Settings<>(FixedCodec.INT64))) {
            AtomicBuffer raw = RawBody.of(path);
            assertThatThrownBy(() -> pointer.getOrFetch(() -> null, LONG))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessage("the fetch of " + path + " returned null; a value is required");
            assertThatThrownBy(
                            () ->
                                    pointer.getOrFetch(
                                            () -> {
                                                throw new AssertionError("boom");
                                            },
                                            LONG))
                    .isInstanceOf(AssertionError.class);
            assertThat(pointer.describe())
                    .containsEntry("failedFetches", 2L)
                    .containsEntry("fetches", 2L)
                    .containsEntry("state", "EMPTY");
            assertThat(OwnerRecord.pid(raw.getLongVolatile(FETCHER_RECORD_OFFSET))).isZero();
            assertThat(raw.getLongVolatile(STATE_OFFSET)).isEqualTo(stateWord(0, EMPTY));
            // A timeout too long for nanoseconds waits as long as it can: here not at all.
            assertThat(pointer.getOrFetch(() -> 5L, Duration.ofSeconds(Long.MAX_VALUE)))
                    .isEqualTo(5L);
        }
    }

    @Test
    void theBodyIsCheckedAndSizedFromTheCodec() {
        Path path = dir.resolve("p.cxc");
        SharedAsyncPointer.TYPE
                .create(path, new SharedAsyncPointer.Settings<>(FixedCodec.INT64))
                .close();
        AtomicBuffer raw = RawBody.of(path);
        raw.setLongVolatile(STATE_OFFSET, stateWord(0, 2));
        assertThatThrownBy(
                        () ->
                                SharedAsyncPointer.open(
                                        path, new SharedAsyncPointer.Settings<>(FixedCodec.INT64)))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("state 2 at body offset 128, expected 0 or 1");
        raw.setLongVolatile(STATE_OFFSET, stateWord(9, RESOLVED));
        try (SharedAsyncPointer<Long> opened =
                SharedAsyncPointer.open(
                        path, new SharedAsyncPointer.Settings<>(FixedCodec.INT64))) {
            assertThat(opened.isResolved()).isTrue();
        }
        assertThat(bodyLength(1)).isEqualTo(256);
        assertThat(bodyLength(64)).isEqualTo(256);
        assertThat(bodyLength(65)).isEqualTo(320);
        assertThat(bodyLength(9)).isEqualTo(256);
        assertThatThrownBy(
                        () -> new SharedAsyncPointer.Settings<>(FixedCodec.string(MAX_VALUE_BYTES)))
                .hasMessageContaining("codec must be 1.." + MAX_VALUE_BYTES);
        assertThat(new SharedAsyncPointer.Settings<>(FixedCodec.INT64).codec())
                .isEqualTo(FixedCodec.INT64);
        try (PrimitiveView view =
                SharedAsyncPointer.TYPE.observe(path, CxcFileOptions.defaults())) {
            assertThat(view.describe()).containsEntry("state", "RESOLVED");
        }
    }
}
