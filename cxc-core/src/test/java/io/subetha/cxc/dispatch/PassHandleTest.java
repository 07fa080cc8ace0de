package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassPlantedStatesTest.entry;
import static io.subetha.cxc.dispatch.PassRegistryDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What one handle keeps across its passes and calls: one wake socket for every pass it registers
 * (so a call to any of them wakes its one blocked dispatcher), none for a handle that only calls,
 * and a cached entry per id that is only a hint (an id that moved is found again).
 */
class PassHandleTest {

    private static final Duration LIMIT = Duration.ofSeconds(20);
    private static final Duration HOUR = Duration.ofHours(1);

    @TempDir Path dir;
    private final List<PassRegistry> opened = new ArrayList<>();

    @AfterEach
    void closeAll() {
        opened.forEach(PassRegistry::close);
    }

    private Path file() {
        return dir.resolve("calls.passes");
    }

    private PassRegistry open(PassWaiting waiting) {
        PassRegistry registry =
                PassRegistry.openOrCreate(
                        file(), new PassRegistry.Settings(3, 1, 64).withWaiting(waiting));
        opened.add(registry);
        return registry;
    }

    @Test
    void everyPassOfAHandleNamesItsOneWakeSocketAndACallToEachWakesItsDispatcher() {
        PassWaiting blockAtOnce = new PassWaiting(Duration.ZERO, Duration.ZERO, HOUR, HOUR);
        PassRegistry owner = open(blockAtOnce);
        owner.register(1, args -> PassChild.bytes(PassChild.value(args) + 1));
        owner.register(2, args -> PassChild.bytes(PassChild.value(args) + 2));
        PassRegistry caller = open(blockAtOnce);
        AtomicBuffer raw = RawBody.of(file());
        long first = raw.getLongVolatile(entry(0, 1, 64) + WAKE_ADDRESS_OFFSET);

        assertThat(first).isNotZero();
        assertThat(raw.getLongVolatile(entry(1, 1, 64) + WAKE_ADDRESS_OFFSET)).isEqualTo(first);
        assertThat(owner.describe().get("wakeSocket"))
                .isEqualTo(
                        String.valueOf(WakeServer.socketOf(WakeServer.directory(file()), first)));
        assertThat(caller.describe()).containsEntry("wakeSocket", "none");
        // Every wait of both sides is an hour: only the pokes through that socket serve these.
        assertTimeoutPreemptively(
                LIMIT,
                () -> {
                    for (int i = 0; i < 20; i++) {
                        long pass = 1 + i % 2;
                        assertThat(PassChild.value(caller.execute(pass, PassChild.bytes(i), HOUR)))
                                .isEqualTo(i + pass);
                    }
                });
    }

    /**
     * The caller last found id 5 in entry 0; it is re-registered into entry 1 meanwhile (entry 0
     * now serves id 6): the caller's next call finds it there.
     */
    @Test
    void aCallFindsAnIdThatMovedToAnotherEntrySinceItsLastCall() {
        PassRegistry owner = open(PassWaiting.DEFAULT);
        PassRegistry caller = open(PassWaiting.DEFAULT);
        owner.register(5, args -> new byte[] {5});
        assertThat(caller.execute(5, new byte[0], LIMIT)).containsExactly(5);
        owner.unregister(5);
        owner.register(6, args -> new byte[] {6});
        owner.register(5, args -> new byte[] {55});
        AtomicBuffer raw = RawBody.of(file());
        assertThat(raw.getLongVolatile(entry(0, 1, 64) + PASS_ID_OFFSET)).isEqualTo(6);
        assertThat(raw.getLongVolatile(entry(1, 1, 64) + PASS_ID_OFFSET)).isEqualTo(5);

        assertThat(caller.execute(5, new byte[0], LIMIT)).containsExactly(55);
        assertThat(caller.isRegistered(5)).isTrue();
        assertThat(caller.execute(6, new byte[0], LIMIT)).containsExactly(6);
    }
}
