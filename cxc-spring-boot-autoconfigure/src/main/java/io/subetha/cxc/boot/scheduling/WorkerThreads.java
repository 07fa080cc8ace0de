package io.subetha.cxc.boot.scheduling;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;

/**
 * One worker pool's threads in this process: started together, each running the pool's loop until
 * it returns; stopped by giving running work a timeout to finish, then interrupting what still
 * runs. Non-daemon, so a worker-only application stays up while its pool runs.
 */
final class WorkerThreads {

    /** How long interrupted threads get to end before shutdown goes on without them. */
    static final Duration INTERRUPTED_GRACE = Duration.ofSeconds(1);

    private final String namePrefix;
    private final List<Thread> threads = new ArrayList<>();

    /**
     * @param namePrefix each thread's name before its index: "cxc-scheduler-jobs-"
     */
    WorkerThreads(String namePrefix) {
        this.namePrefix = namePrefix;
    }

    /** Starts {@code count} threads, each running {@code loop} once. */
    synchronized void start(int count, Runnable loop) {
        threads.clear();
        for (int i = 0; i < count; i++) {
            Thread thread = new Thread(loop, namePrefix + i);
            thread.setDaemon(false);
            threads.add(thread);
            thread.start();
        }
    }

    synchronized int size() {
        return threads.size();
    }

    /** Whether none of the threads started is still running (true before any was started). */
    synchronized boolean allEnded() {
        return threads.stream().noneMatch(Thread::isAlive);
    }

    /**
     * Waits up to {@code timeout} for every thread to end (their loops told to stop first), then
     * interrupts each one still running, logging "{@code pool}: {thread} {@code stillRunning}" at
     * WARN, and gives the interrupted ones up to {@link #INTERRUPTED_GRACE} to hand their work back
     * and end, so none is left running once the context has closed (unless it ignores interrupts).
     */
    synchronized void awaitStopped(Duration timeout, Log logger, String pool, String stillRunning) {
        joinAll(timeout);
        boolean interrupted = false;
        for (Thread thread : threads) {
            if (thread.isAlive()) {
                logger.warn(pool + ": " + thread.getName() + " " + stillRunning);
                thread.interrupt();
                interrupted = true;
            }
        }
        if (interrupted) {
            joinAll(INTERRUPTED_GRACE);
            for (Thread thread : threads) {
                if (thread.isAlive()) {
                    logger.warn(
                            pool
                                    + ": "
                                    + thread.getName()
                                    + " ignores its interruption and is left running");
                }
            }
        }
    }

    /** Waits up to {@code timeout} in all for every thread to end. */
    private void joinAll(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread thread : threads) {
            long left = deadline - System.nanoTime();
            try {
                if (left > 0) {
                    thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
