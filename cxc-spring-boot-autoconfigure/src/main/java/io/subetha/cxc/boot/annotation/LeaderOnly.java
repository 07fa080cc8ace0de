package io.subetha.cxc.boot.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated bean method only while this process is the cxc leader, checked at call time
 * (one volatile read of the mapped election file); otherwise the call is skipped or refused, as
 * {@link #onNotLeader()} says. Typically beside {@code @Scheduled}: every instance schedules the
 * job, only the leader runs it.
 *
 * <pre>{@code
 * @Scheduled(fixedDelay = 10_000)
 * @LeaderOnly
 * public void rotateSnapshots() {
 *     long fencingToken = LeaderContext.requireCurrentTerm();
 *     store.rotate(fencingToken); // the store rejects terms older than the newest it has seen
 * }
 * }</pre>
 *
 * <p>While the method runs, {@link io.subetha.cxc.boot.LeaderContext#currentTerm()} gives the term
 * it was let through under. The method must be called through its Spring proxy (not from its own
 * class) and may not return a primitive type other than {@code void}: a skipped call has no value
 * to return, so such a method is rejected at startup.
 *
 * <p><b>Leadership is checked once, on entry.</b> A call that was let through runs to its end even
 * if this process loses leadership meanwhile; it is not interrupted unless {@link
 * #interruptOnLoss()} says so. A long job checks {@link
 * io.subetha.cxc.boot.LeaderContext#stillLeads()} between its steps (true only while this process
 * still leads under the term the call started under; {@code CxcLeadership.isLeader()} alone also
 * says true after the seat was re-taken under a new term) and stops when it answers false. Only the
 * term handed to downstream writes, checked there, keeps a deposed leader's late writes out.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderOnly {

    /** What to do when this process does not lead. */
    OnNotLeader onNotLeader() default OnNotLeader.SKIP;

    /**
     * Interrupts the call's thread once this process no longer leads under the term the call was
     * let through under (deposed, stepped down, or the seat re-taken under a newer term), as the
     * ticker sees on its next tick: within about one {@code cxc.leader.tick-interval}. Only code
     * that answers interruption stops (sleeps, waits, {@code lockInterruptibly}, interruptible
     * channels, a loop checking {@link Thread#isInterrupted()}); the rest runs on. The interrupt is
     * cleared when the call returns, so it never reaches the thread's next task. Off by default: an
     * interrupt in the middle of a write the job was not written to abandon can do more harm than
     * the late write the term already fences.
     */
    boolean interruptOnLoss() default false;
}
