package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.LeadershipGainedEvent;
import io.subetha.cxc.boot.LeadershipLostEvent;
import io.subetha.cxc.ownership.ElectionParticipant;
import io.subetha.cxc.ownership.ElectionParticipant.TickOutcome;
import io.subetha.cxc.ownership.SharedLeaderElection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;

/**
 * Drives this process's {@link ElectionParticipant} on a private daemon thread: every tick it
 * advances the epoch if due, claims or keeps leadership, takes over from a dead leader, beats as
 * leader, publishes {@link LeadershipGainedEvent}/{@link LeadershipLostEvent} on the edges, then
 * runs the {@link TickTask}s.
 *
 * <p><b>Events off the ticker thread.</b> Leadership events are handed, in order, to one daemon
 * thread of their own ({@code cxc-leadership-events}) and published there; the ticker never waits
 * for a listener. A listener that loads state for seconds on a gain therefore cannot stop this
 * process's heartbeat and get it deposed; a listener sees the events in the order they happened,
 * possibly a little after the fact (check {@code CxcLeadership} or {@code
 * LeaderContext.stillLeads()} before acting on an old one).
 *
 * <p>Between ticks, the heir (the lowest live candidate, not leading) watches the leader's seat
 * five times per tick ({@link ElectionParticipant#poll()}), so a failover takes one handover and
 * stays quick.
 *
 * <p>Never the application's {@code TaskScheduler}: a busy or misconfigured application pool must
 * not stall the heartbeat, and a scheduler bean of ours would capture the application's
 * {@code @Scheduled} methods. The first tick runs in {@link #start()}, so leadership is settled
 * before the application's scheduled methods first run.
 *
 * <p>Runs in the last lifecycle phase, so it stops first on shutdown, before the web server: it
 * steps down (when configured) while the application is still whole, and a successor takes over
 * within one of its ticks.
 */
public final class LeaderTicker implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(LeaderTicker.class);

    private final ElectionParticipant participant;
    private final ApplicationEventPublisher publisher;
    private final boolean stepDownOnShutdown;
    private final List<TickTask> tasks;
    private final long intervalNanos;

    /** Orders ticks against {@link #stepDown()}: the participant is single-threaded. */
    private final Object tickLock = new Object();

    private volatile @Nullable Thread thread;
    private volatile @Nullable ExecutorService events;
    private volatile boolean running;
    private volatile long ticks;
    private volatile long failedTicks;
    private volatile @Nullable Throwable lastFailure;

    /** Ticks left during which this process does not claim, after a voluntary step-down. */
    private int holdOffTicks;

    public LeaderTicker(
            ElectionParticipant participant,
            ApplicationEventPublisher publisher,
            boolean stepDownOnShutdown,
            List<TickTask> tasks) {
        this.participant = participant;
        this.publisher = publisher;
        this.stepDownOnShutdown = stepDownOnShutdown;
        this.tasks = List.copyOf(tasks);
        this.intervalNanos = participant.tickInterval().toNanos();
    }

    @Override
    public void start() {
        if (running) {
            return;
        }
        running = true;
        events =
                Executors.newSingleThreadExecutor(
                        r -> {
                            Thread t = new Thread(r, "cxc-leadership-events");
                            t.setDaemon(true);
                            return t;
                        });
        tick();
        Thread ticker = new Thread(this::run, "cxc-leader-ticker");
        ticker.setDaemon(true);
        thread = ticker;
        ticker.start();
    }

    private void run() {
        long next = System.nanoTime() + intervalNanos;
        long pollNanos = participant.pollInterval().toNanos();
        long nextPoll = System.nanoTime() + pollNanos;
        while (running) {
            long now = System.nanoTime();
            long wait = next - now;
            if (wait > 0) {
                if (participant.isHeir()) {
                    if (nextPoll - now <= 0) {
                        poll();
                        nextPoll = now + pollNanos;
                        continue;
                    }
                    wait = Math.min(wait, nextPoll - now);
                }
                LockSupport.parkNanos(this, wait);
                continue; // woken early (stop, or spuriously): check again
            }
            tick();
            nextPoll = System.nanoTime() + pollNanos;
            // Fixed rate, but after a stall (a long GC pause, SIGSTOP) resume the pace rather than
            // firing the missed ticks back to back.
            next = Math.max(next + intervalNanos, System.nanoTime());
        }
    }

    /** Between ticks, on the heir: claims a vacant seat at once. Never throws. */
    private void poll() {
        TickOutcome outcome = null;
        synchronized (tickLock) {
            try {
                if (holdOffTicks == 0) {
                    outcome = participant.poll();
                }
            } catch (RuntimeException | Error e) {
                failed("the heir's poll", e);
            }
        }
        if (outcome != null) {
            publishEdges(outcome);
        }
    }

    private void publishEdges(TickOutcome outcome) {
        if (outcome.lost()) {
            publish(new LeadershipLostEvent(this, participant.pid(), outcome.lostTerm()));
        }
        if (outcome.gained()) {
            publish(new LeadershipGainedEvent(this, participant.pid(), outcome.term()));
        }
    }

    /** One tick: the election round, then the tasks. Never throws. */
    void tick() {
        TickOutcome outcome = null;
        synchronized (tickLock) {
            try {
                if (holdOffTicks > 0) {
                    holdOffTicks--;
                    participant.election().tickEpochIfDue(participant.tickInterval());
                } else {
                    outcome = participant.tick();
                }
                lastFailure = null;
            } catch (RuntimeException | Error e) {
                lastFailure = e;
                failed("the election round", e);
            }
        }
        if (outcome != null) {
            publishEdges(outcome);
        }
        for (TickTask task : tasks) {
            try {
                task.onTick();
            } catch (RuntimeException | Error e) {
                failed("tick task " + task, e);
            }
        }
        ticks++;
    }

    private void failed(String what, Throwable e) {
        long failures = ++failedTicks;
        // A persistent failure would log twenty times a second: the stack trace once, then a line
        // now and then.
        if (failures == 1) {
            logger.warn("cxc ticker: " + what + " failed; the next tick runs as usual", e);
        } else if (Long.bitCount(failures) == 1) {
            logger.warn("cxc ticker: " + what + " failed (" + failures + " failures so far): " + e);
        }
    }

    /** Hands {@code event} to the events thread: the caller never waits for a listener. */
    private void publish(Object event) {
        ExecutorService executor = events;
        Runnable delivery =
                () -> {
                    try {
                        publisher.publishEvent(event);
                    } catch (RuntimeException e) {
                        logger.warn("cxc ticker: a listener of " + event + " failed", e);
                    }
                };
        try {
            if (executor != null) {
                executor.execute(delivery);
                return;
            }
        } catch (RejectedExecutionException stopped) {
            // after stop(): deliver on the caller's thread, nothing else runs any more
        }
        delivery.run();
    }

    /**
     * Steps down if this process leads and holds off claiming for {@code graceEpochs + 1} ticks, so
     * another participant takes over.
     *
     * @return whether this process was the leader
     */
    public boolean stepDown() {
        long lostTerm;
        synchronized (tickLock) {
            lostTerm = participant.election().termIfLeader(participant.pid());
            if (lostTerm < 0 || !participant.stepDown()) {
                return false;
            }
            holdOffTicks = (int) Math.min(1000, participant.graceEpochs() + 1);
        }
        logger.info("cxc: pid " + participant.pid() + " stepped down from term " + lostTerm);
        publish(new LeadershipLostEvent(this, participant.pid(), lostTerm));
        return true;
    }

    @Override
    public void stop() {
        if (!running) {
            return;
        }
        running = false;
        Thread ticker = thread;
        if (ticker != null) {
            LockSupport.unpark(ticker);
            try {
                ticker.join(TimeUnit.NANOSECONDS.toMillis(intervalNanos) + 5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (stepDownOnShutdown) {
            stepDown();
        }
        ExecutorService executor = events;
        if (executor != null) {
            // Deliver what is queued (the step-down's loss among it), but never hang shutdown.
            executor.shutdown();
            try {
                if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                    logger.warn("cxc ticker: leadership listeners still running after 5 s");
                    executor.shutdownNow();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            events = null;
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Last: started after everything else, stopped before anything else. */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE;
    }

    public ElectionParticipant participant() {
        return participant;
    }

    public SharedLeaderElection election() {
        return participant.election();
    }

    public Duration tickInterval() {
        return participant.tickInterval();
    }

    /** Ticks run since start. */
    public long ticks() {
        return ticks;
    }

    /** Ticks whose election round or a task failed. */
    public long failedTicks() {
        return failedTicks;
    }

    /** Why the last election round failed, or null if it succeeded. */
    public @Nullable Throwable lastFailure() {
        return lastFailure;
    }
}
