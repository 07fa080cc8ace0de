package io.subetha.cxc.claim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.CxcTimeoutException;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The intent lock's turns: a holder re-taking the lock in a loop lets a waiting thread in, and a
 * waiter's flag never blocks the lock once its thread is gone, frozen or has given up.
 */
class IntentLockTurnTest {

    static final int BASE = 64;
    static final long LONG_WAIT = TimeUnit.SECONDS.toNanos(60);

    /** Holder re-acquisitions in the loop; without turns the waiter saw none of its windows. */
    static final int RELOCKS = Integer.getInteger("cxc.intentlock.relocks", 100_000);

    final AtomicBuffer body =
            new AtomicBuffer(ByteBuffer.allocateDirect(1024).order(ByteOrder.LITTLE_ENDIAN));

    IntentLock newLock(String what) {
        return new IntentLock(body, BASE, 4, 16, what);
    }

    long waiterWord() {
        return body.getLongVolatile(BASE + IntentLock.WAITER_OFFSET);
    }

    @Test
    void aHolderReTakingTheLockInALoopLetsTheWaiterInAtItsNextRelease() throws Exception {
        IntentLock holder = newLock("holder's view");
        IntentLock waiter = newLock("waiter's view");
        AtomicLong relocks = new AtomicLong();
        AtomicLong relocksWhenWaiterGotIt = new AtomicLong(-1);
        holder.lock(LONG_WAIT);
        CompletableFuture<Void> waiting =
                CompletableFuture.runAsync(
                        () -> {
                            waiter.lock(LONG_WAIT);
                            relocksWhenWaiterGotIt.set(relocks.get());
                            waiter.unlock();
                        });
        try {
            // The waiter has spun, parked and asked for the next turn.
            await().atMost(Duration.ofSeconds(60)).until(() -> waiterWord() != 0);
            for (int i = 0; i < RELOCKS; i++) {
                holder.unlock();
                holder.lock(LONG_WAIT);
                relocks.incrementAndGet();
            }
        } finally {
            holder.unlock();
        }
        waiting.get(60, TimeUnit.SECONDS);
        // The flag was up before the first release: the holder's first re-take waited its turn.
        assertThat(relocksWhenWaiterGotIt.get()).isZero();
        assertThat(waiterWord()).as("the waiter cleared its flag").isZero();
    }

    @Test
    void aDeadWaitersFlagIsClearedByTheNextClaimant() throws Exception {
        long dead = IntentLockTest.deadPid();
        body.setLongVolatile(BASE + IntentLock.WAITER_OFFSET, (7L << 32) | dead);
        IntentLock lock = newLock("lock");
        lock.lock(LONG_WAIT);
        lock.unlock();
        assertThat(waiterWord()).isZero();
    }

    @Test
    void aLiveWaiterThatNeverTakesItsTurnIsPassedOverAfterTheCourtesy() {
        // PID 1 is alive and never waits on this lock: a frozen waiter, or a dead one's PID reused.
        body.setLongVolatile(BASE + IntentLock.WAITER_OFFSET, (7L << 32) | 1);
        IntentLock lock = newLock("lock");
        lock.lock(LONG_WAIT);
        assertThat(waiterWord()).isZero();
        lock.unlock();
    }

    @Test
    void aWaiterThatTimesOutLeavesNoFlag() {
        IntentLockTest.plantHolder(body, 1); // alive, never ours
        IntentLock lock = newLock("lock");
        assertThatThrownBy(() -> lock.lock(50_000_000L))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("held by live PID 1");
        assertThat(waiterWord()).isZero();
    }

    @Test
    void aTimeoutOnAFreeLockLeftToAnotherWaiterNamesThatWaiter() {
        // A live waiter (PID 1) is owed the turn; a claimant whose wait is shorter than the
        // courtesy times out naming it rather than a holder.
        body.setLongVolatile(BASE + IntentLock.WAITER_OFFSET, (7L << 32) | 1);
        IntentLock lock = newLock("lock");
        assertThatThrownBy(() -> lock.lock(50_000_000L))
                .isInstanceOf(CxcTimeoutException.class)
                .hasMessageContaining("free but left to the waiting PID 1");
        assertThat(waiterWord()).as("another waiter's flag stays").isEqualTo((7L << 32) | 1);
    }
}
