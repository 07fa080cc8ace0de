package io.subetha.cxc.eventlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildServer;
import io.subetha.cxc.testing.PointFreeze;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the reader table promises: a reader name's position survives its holder (a closed seat, a
 * killed process), one live holder per name, a namer killed half-way leaves a slot the next one
 * reuses, and bad names and a full table are refused saying why.
 */
class NamedReadersTest {

    private static final Duration START = Duration.ofSeconds(60);

    @TempDir Path dir;

    private NamedReaders table(int capacity) {
        return NamedReaders.TYPE.openOrCreate(
                dir.resolve("orders.readers"), new NamedReaders.Settings(capacity));
    }

    @Test
    void aNewNameStartsAtTheFirstPositionAndASavedOneSurvivesItsHolder() {
        try (NamedReaders readers = table(4)) {
            try (NamedReaders.Seat seat = readers.claim("copy-1", () -> 7)) {
                assertThat(seat.position()).isEqualTo(7);
                seat.save(12);
            }
            assertThat(readers.readers())
                    .containsExactly(new NamedReaders.ReaderInfo("copy-1", 0, 12));
        }
        try (NamedReaders readers = table(4);
                NamedReaders.Seat seat = readers.claim("copy-1", () -> 0)) {
            assertThat(seat.position()).isEqualTo(12);
            assertThat(readers.readers())
                    .containsExactly(new NamedReaders.ReaderInfo("copy-1", Pids.current(), 12));
        }
    }

    @Test
    void aNameHeldByALiveProcessIsRefusedNamingIt() {
        try (NamedReaders readers = table(4);
                NamedReaders.Seat seat = readers.claim("copy-1", () -> 0)) {
            assertThatThrownBy(() -> readers.claim("copy-1", () -> 0))
                    .isInstanceOf(ReaderNameTakenException.class)
                    .hasMessageContaining("reader 'copy-1'")
                    .hasMessageContaining("held by live PID " + Pids.current() + " (this process)")
                    .hasMessageContaining("Give each reader its own name");
            try (NamedReaders.Seat other = readers.claim("copy-2", () -> 0)) {
                assertThat(other.name()).isEqualTo("copy-2");
            }
        }
    }

    @Test
    void aKilledHoldersNameIsTakenOverWithItsSavedPosition() {
        Path file = dir.resolve("orders.readers");
        try (ChildJvm child = ChildJvm.start("holder", Holder.class, file.toString(), "save")) {
            child.awaitPrefixed("saved", START);
            try (NamedReaders readers = table(1)) {
                assertThatThrownBy(() -> readers.claim("copy-1", () -> 0))
                        .isInstanceOf(ReaderNameTakenException.class)
                        .hasMessageContaining("held by live PID " + child.pid());
                child.kill();
                try (NamedReaders.Seat seat = readers.claim("copy-1", () -> 0)) {
                    assertThat(seat.position()).isEqualTo(41);
                }
            }
        }
    }

    @Test
    void aNamerKilledBeforeItPublishedTheNameLeavesASlotTheNextNamerReuses() {
        Path file = dir.resolve("orders.readers");
        try (ChildJvm child = ChildJvm.start("namer", Holder.class, file.toString(), "freeze")) {
            child.awaitPrefixed("frozen", START);
            child.kill();
        }
        try (NamedReaders readers = table(1)) {
            assertThat(readers.readers()).isEmpty();
            try (NamedReaders.Seat seat = readers.claim("copy-2", () -> 3)) {
                assertThat(seat.position()).isEqualTo(3);
            }
            assertThat(readers.readers())
                    .containsExactly(new NamedReaders.ReaderInfo("copy-2", 0, 3));
        }
    }

    @Test
    void badNamesAndAFullTableAreRefusedSayingWhy() {
        try (NamedReaders readers = table(1)) {
            assertThatThrownBy(() -> readers.claim("", () -> 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("a reader name is 1..88 UTF-8 bytes, got 0");
            assertThatThrownBy(() -> readers.claim("x".repeat(89), () -> 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("got 89");
            readers.claim("copy-1", () -> 0).close();
            assertThatThrownBy(() -> readers.claim("copy-2", () -> 0))
                    .isInstanceOf(CxcCapacityException.class)
                    .hasMessageContaining("holds 1 reader names (its capacity)");
            NamedReaders.Seat seat = readers.claim("copy-1", () -> 0);
            seat.close();
            assertThatThrownBy(() -> seat.save(1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("is no longer held here");
        }
    }

    /** Claims "copy-1" and saves 41, or freezes while naming it; then waits to be killed. */
    public static final class Holder {
        public static void main(String[] args) {
            Path file = Path.of(args[0]);
            if (args[1].equals("freeze")) {
                PointFreeze.install(Point.READER_SLOT_CLAIMED, 1, "frozen");
            }
            NamedReaders readers =
                    NamedReaders.TYPE.openOrCreate(file, new NamedReaders.Settings(1));
            NamedReaders.Seat seat = readers.claim("copy-1", () -> 0);
            seat.save(41);
            ChildServer.say("saved");
            while (true) {
                LockSupport.park();
            }
        }
    }
}
