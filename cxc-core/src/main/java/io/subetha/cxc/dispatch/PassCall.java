package io.subetha.cxc.dispatch;

import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.wait.Deadline;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/** One call in progress, owned by the thread that polls it (the caller's or the completer's). */
final class PassCall {
    final long passId;
    final int entryOffset;
    final byte[] args;
    final long deadline;
    final Duration timeout;

    /** The owner word the request is addressed to. */
    final long addressed;

    final long ownerStartTime;
    final @Nullable CompletableFuture<byte[]> future;

    /** The mailbox slot's offset once the request is published, -1 before. */
    int slot = -1;

    /** The state word the request was published with: the claim every later CAS names. */
    long claimed;

    long nextCheck;

    /** The caller's waiter named in the slot (its doorbell slot + 1; 0: none yet). */
    long namedWaiter;

    PassCall(
            long passId,
            int entryOffset,
            byte[] args,
            Duration timeout,
            long addressed,
            long ownerStartTime,
            @Nullable CompletableFuture<byte[]> future) {
        this.passId = passId;
        this.entryOffset = entryOffset;
        this.args = args;
        this.timeout = timeout;
        long now = System.nanoTime();
        this.deadline = now + Math.max(0, Deadline.nanos(timeout));
        this.addressed = addressed;
        this.ownerStartTime = ownerStartTime;
        this.future = future;
    }

    long ownerPid() {
        return OwnerRecord.pid(addressed);
    }
}
