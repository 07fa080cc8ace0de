package io.subetha.cxc.boot.ticker;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.LeadershipGainedEvent;
import io.subetha.cxc.boot.LeadershipLostEvent;
import io.subetha.cxc.election.ElectionParticipant;
import io.subetha.cxc.election.ElectionParticipant.TickOutcome;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.process.Pids;
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
 * leader, hands {@link LeadershipGainedEvent}/{@link LeadershipLostEvent} on the edges to the
 * events thread, then runs the {@link TickTask}s.
 *
 * <p>The leadership events are published on one dedicated daemon thread, {@code
 * cxc-leadership-events}, in the order of the edges (the first tick's too), never on the ticker's
 * thread: the ticker only queues them and never waits for a listener, so a listener that takes a
 * second to load state on gain does not stop the heartbeat and get this process deposed. A listener
 * therefore runs a little after the edge, and may find leadership already changed again (the next
 * event is then queued behind it); check {@code CxcLeadership} when that matters. On {@link
 * #stop()} the events still queued (the step-down's loss among them) are delivered, with a bounded
 * wait of {@value #EVENT_DRAIN_SECONDS} s.
 *
 * <p>Never the application's {@code TaskScheduler}: a busy or misconfigured application pool must
 * not stall the heartbeat, and a scheduler bean of ours would capture the application's
 * {@code @Scheduled} methods. The first tick runs in {@link #start()}, so leadership is settled
 * before the application's scheduled methods first run; its gain event, like every other, is
 * published on the events thread.
 *
 * <p>Runs in the last lifecycle phase, so it stops first on shutdown, before the web server: it
 * steps down (when configured) while the application is still whole, and a successor takes over
 * within one of its ticks.
 */
public final class LeaderTicker implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(LeaderTicker.class);

    /** The name of the thread that publishes the leadership events. */
    public static final String EVENTS_THREAD = "cxc-leadership-events";

    /** How long {@link #stop()} waits for the queued leadership events to be delivered. */
    static final long EVENT_DRAIN_SECONDS = 5;

    private final ElectionParticipant participant;
    private final ApplicationEventPublisher publisher;
    private final boolean stepDownOnShutdown;
    private final List<TickTask> tasks;
    private final long intervalNanos;

    /** Orders ticks against {@link #stepDown()}: the participant is single-threaded. */
    private final Object tickLock = new Object();

    private volatile @Nullable Thread thread;

    /** Publishes the leadership events, one at a time in order; null before start, after stop. */
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

    /**
     * The ticker the starter makes for this process: a participant of {@code election} with this
     * process's PID and {@code settings}' grace, tick interval and preemption; events go to {@code
     * publisher}; {@code rejoin} re-opens the file at the election's path if the mapped one is
     * deleted or replaced under this process (see {@link ElectionParticipant}).
     */
    public static LeaderTicker forLeader(
            SharedLeaderElection election,
            TickerSettings settings,
            ApplicationEventPublisher publisher,
            List<TickTask> tasks,
            ElectionParticipant.Opener rejoin) {
        return new LeaderTicker(
                new ElectionParticipant(
                        election,
                        Pids.current(),
                        settings.election().graceEpochs(),
                        settings.election().tickInterval(),
                        settings.preemption(),
                        rejoin),
                publisher,
                settings.stepDownOnShutdown(),
                tasks);
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
                            Thread t = new Thread(r, EVENTS_THREAD);
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
                if (participant.wantsPoll()) {
                    // The heir watches a vacant seat between ticks: failover within a poll.
                    if (now - nextPoll >= 0) {
                        poll();
                        nextPoll = now + pollNanos;
                    }
                    wait = Math.min(wait, Math.max(0, nextPoll - now));
                }
                LockSupport.parkNanos(this, wait);
                continue; // woken early (a poll, stop, or spuriously): check again
            }
            tick();
            // Fixed rate, but after a stall (a long GC pause, SIGSTOP) resume the pace rather than
            // firing the missed ticks back to back.
            next = Math.max(next + intervalNanos, System.nanoTime());
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
            // Queued under the lock, so the edges of ticks and step-downs keep their order.
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

    /** Between ticks, on the heir only: claims a vacant seat at once (see ElectionParticipant). */
    private void poll() {
        synchronized (tickLock) {
            if (holdOffTicks > 0) {
                return;
            }
            try {
                publishEdges(participant.poll());
            } catch (RuntimeException | Error e) {
                failed("the heir's poll", e);
            }
        }
    }

    private void publishEdges(@Nullable TickOutcome outcome) {
        if (outcome != null) {
            if (outcome.lost()) {
                publish(new LeadershipLostEvent(this, participant.pid(), outcome.lostTerm()));
            }
            if (outcome.gained()) {
                publish(new LeadershipGainedEvent(this, participant.pid(), outcome.term()));
            }
        }
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

    /**
     * Queues {@code event} for the events thread; never waits for a listener. Before start and
     * after stop (a step-down called then) it is published on the calling thread, which is then not
     * the ticker's.
     */
    private void publish(Object event) {
        ExecutorService queue = events;
        if (queue != null) {
            try {
                queue.execute(() -> deliver(event));
                return;
            } catch (RejectedExecutionException e) {
                // stopped meanwhile: publish here
            }
        }
        deliver(event);
    }

    private void deliver(Object event) {
        try {
            publisher.publishEvent(event);
        } catch (RuntimeException e) {
            logger.warn("cxc ticker: a listener of " + event + " failed", e);
        }
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
            publish(new LeadershipLostEvent(this, participant.pid(), lostTerm));
        }
        logger.info("cxc: pid " + participant.pid() + " stepped down from term " + lostTerm);
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
        drainEvents();
    }

    /** Delivers the queued leadership events, waiting at most {@value #EVENT_DRAIN_SECONDS} s. */
    private void drainEvents() {
        ExecutorService queue = events;
        if (queue == null) {
            return;
        }
        queue.shutdown();
        if (Thread.currentThread().getName().equals(EVENTS_THREAD)) {
            events = null; // stopped by a listener: it cannot wait for itself
            return;
        }
        try {
            if (!queue.awaitTermination(EVENT_DRAIN_SECONDS, TimeUnit.SECONDS)) {
                logger.warn(
                        "cxc: a leadership listener is still running after "
                                + EVENT_DRAIN_SECONDS
                                + " s; stopping without waiting for it (the events queued behind"
                                + " it follow when it returns, unless the JVM exits first)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        events = null;
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

    /** The host's leadership as this ticker runs it: reads from the election, step-down here. */
    public CxcLeadership leadership() {
        return new TickerLeadership(this);
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
