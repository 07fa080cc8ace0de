package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassPlantedStatesTest.bind;
import static io.subetha.cxc.dispatch.PassPlantedStatesTest.entry;
import static io.subetha.cxc.dispatch.PassPlantedStatesTest.slot;
import static io.subetha.cxc.dispatch.PassRegistryDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import io.subetha.cxc.testing.StepGate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two callers race for one free mailbox slot ({@code Interleaving.Point.PASS_SLOT_JUDGED} holds the
 * first between its read of the free word and its claiming CAS): the one whose CAS loses writes
 * nothing into the slot the winner now holds, and waits for a slot of its own.
 */
class PassLostClaimTest {

    private static final Duration LONG = Duration.ofSeconds(30);

    @TempDir Path dir;
    private final List<PassRegistry> opened = new ArrayList<>();

    @AfterEach
    void closeAll() {
        opened.forEach(PassRegistry::close);
    }

    private PassRegistry open() {
        PassRegistry registry =
                PassRegistry.openOrCreate(
                        dir.resolve("calls.passes"), new PassRegistry.Settings(1, 1, 64));
        opened.add(registry);
        return registry;
    }

    @Test
    void aCallerWhoseClaimLosesWritesNothingIntoTheWinnersSlot() {
        PassRegistry loser = open();
        PassRegistry winner = open();
        AtomicBuffer raw = RawBody.of(dir.resolve("calls.passes"));
        bind(raw, entry(0, 1, 64), 7, 1, 3); // PID 1: alive, never serves
        int s = slot(entry(0, 1, 64), 0, 64);
        CompletableFuture<byte[]> won;

        try (StepGate<byte[]> held =
                StepGate.holdAt(
                        Point.PASS_SLOT_JUDGED,
                        () -> loser.execute(7, new byte[] {9, 9, 9, 9}, Duration.ofMillis(200)))) {
            won = winner.executeAsync(7, new byte[] {1, 2}, LONG);
            long request = raw.getLongVolatile(s + STATE_WORD_OFFSET);
            assertThat(request).isEqualTo(packState(STATE_REQUEST, 1, Pids.current()));

            assertThatThrownBy(held::release)
                    .isInstanceOf(CxcCapacityException.class)
                    .hasMessageContaining("all 1 mailbox slots (mailboxSlots) of pass 7");

            assertThat(raw.getLongVolatile(s + STATE_WORD_OFFSET)).isEqualTo(request);
        }
        assertThat(raw.getIntVolatile(s + LENGTH_OFFSET)).isEqualTo(2);
        byte[] payload = new byte[4];
        raw.getBytes(s + SLOT_HEADER_LENGTH, payload);
        assertThat(payload).containsExactly(1, 2, 0, 0);
        assertThat(won).isNotDone();
    }
}
