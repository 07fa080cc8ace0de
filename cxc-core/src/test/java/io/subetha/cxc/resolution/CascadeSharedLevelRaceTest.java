package io.subetha.cxc.resolution;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two puts of one new key at once, each thread held at an exact step: the key ends stored exactly
 * once, in the copy nearest its home slot, whatever the order of the two puts' cleanups.
 */
class CascadeSharedLevelRaceTest {

    static final long KEY = 42;

    @TempDir Path dir;
    final List<Held> held = new CopyOnWriteArrayList<>();
    Interleaving.Installed installed;

    @AfterEach
    void releaseAll() {
        held.forEach(Held::releaseAll);
        if (installed != null) {
            installed.close();
        }
    }

    CascadeSharedLevel<Long, Long> level() {
        return CascadeSharedLevel.openOrCreate(
                dir.resolve("level.cxc"),
                new CascadeSharedLevel.Settings<>(64, FixedCodec.INT64, FixedCodec.INT64));
    }

    /**
     * A holds the key's home slot mid-write, so B stores its copy in the next slot and releases it;
     * then A releases its slot and removes B's copy; then B, which already held its own copy's
     * release, goes on to its cleanup and finds A's. Before the fix each cleanup removed the
     * other's copy and the key ended absent.
     */
    @Test
    void bothCleanupsAfterBothStoresKeepExactlyTheCopyNearestHome() throws Exception {
        try (CascadeSharedLevel<Long, Long> level = level()) {
            Held a = hold("A", () -> level.insert(KEY, 1L), Point.WON);
            install();
            a.start();
            a.awaitReached(0);
            Held b = hold("B", () -> level.insert(KEY, 2L), Point.SHARED_LEVEL_STORED);
            b.start();
            b.awaitReached(0); // B stored its copy beside A's held slot and released it
            assertThat(level.copies(KEY)).as("B's copy, A's slot still held").isEqualTo(1);

            a.go(0);
            assertThat(a.result.get(30, TimeUnit.SECONDS)).isTrue(); // A cleaned up B's copy
            b.go(0);
            assertThat(b.result.get(30, TimeUnit.SECONDS)).isTrue();

            assertThat(level.copies(KEY)).isEqualTo(1);
            assertThat(level.get(KEY)).isEqualTo(1L); // A's: its copy is in the home slot
            assertThat(level.size()).isEqualTo(1);
        }
    }

    /** The other order: B's cleanup runs while A still holds its slot, then A's. */
    @Test
    void aCleanupThatFindsTheOtherCopyHeldLeavesItToTheOtherPut() throws Exception {
        try (CascadeSharedLevel<Long, Long> level = level()) {
            Held a = hold("A", () -> level.insert(KEY, 1L), Point.WON);
            install();
            a.start();
            a.awaitReached(0);
            assertThat(level.insert(KEY, 2L)).isTrue(); // B, whole, beside A's held slot
            assertThat(level.copies(KEY)).isEqualTo(1);
            a.go(0);
            assertThat(a.result.get(30, TimeUnit.SECONDS)).isTrue();

            assertThat(level.copies(KEY)).isEqualTo(1);
            assertThat(level.get(KEY)).isEqualTo(1L);
        }
    }

    /**
     * Both stored, both before their cleanups; the put whose copy is farther from home cleans up
     * first: it finds the other copy nearer home and removes its own. Before the fix it removed the
     * nearer copy, and the other put's cleanup then removed its copy: the key ended absent.
     */
    @Test
    void thePutFartherFromHomeCleaningUpFirstRemovesItsOwnCopy() throws Exception {
        try (CascadeSharedLevel<Long, Long> level = level()) {
            Held a = hold("A", () -> level.insert(KEY, 1L), Point.WON, Point.SHARED_LEVEL_STORED);
            install();
            a.start();
            a.awaitReached(0); // A holds the home slot
            Held b = hold("B", () -> level.insert(KEY, 2L), Point.SHARED_LEVEL_STORED);
            b.start();
            b.awaitReached(0); // B stored beside it
            a.go(0);
            a.awaitReached(1); // A stored in the home slot: two stable copies now
            assertThat(level.copies(KEY)).isEqualTo(2);

            b.go(0);
            assertThat(b.result.get(30, TimeUnit.SECONDS)).isTrue();
            assertThat(level.copies(KEY)).isEqualTo(1);
            assertThat(level.get(KEY)).isEqualTo(1L);
            a.go(1);
            assertThat(a.result.get(30, TimeUnit.SECONDS)).isTrue();

            assertThat(level.copies(KEY)).isEqualTo(1);
            assertThat(level.get(KEY)).isEqualTo(1L);
            // A later put of the key updates that copy in place.
            assertThat(level.insert(KEY, 4L)).isTrue();
            assertThat(level.copies(KEY)).isEqualTo(1);
            assertThat(level.get(KEY)).isEqualTo(4L);
        }
    }

    // ---------------------------------------------------------------------------------- holds

    /** A thread held at each of its points in turn (the first time it reaches each). */
    final class Held {
        final Thread thread;
        final Point[] points;
        final CountDownLatch[] reached;
        final CountDownLatch[] go;
        final AtomicInteger next = new AtomicInteger();
        final CompletableFuture<Boolean> result = new CompletableFuture<>();

        Held(String name, Supplier<Boolean> action, Point... points) {
            this.points = points;
            this.reached = new CountDownLatch[points.length];
            this.go = new CountDownLatch[points.length];
            for (int i = 0; i < points.length; i++) {
                reached[i] = new CountDownLatch(1);
                go[i] = new CountDownLatch(1);
            }
            this.thread =
                    new Thread(
                            () -> {
                                try {
                                    result.complete(action.get());
                                } catch (Throwable t) {
                                    result.completeExceptionally(t);
                                }
                            },
                            name);
            thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        void go(int step) {
            go[step].countDown();
        }

        void awaitReached(int step) throws InterruptedException {
            while (!reached[step].await(10, TimeUnit.MILLISECONDS)) {
                assertThat(result)
                        .as("%s finished before reaching %s", thread.getName(), points[step])
                        .isNotDone();
            }
        }

        void observe(Point p) {
            int step = next.get();
            if (Thread.currentThread() != thread || step >= points.length || p != points[step]) {
                return;
            }
            next.incrementAndGet();
            reached[step].countDown();
            try {
                if (!go[step].await(60, TimeUnit.SECONDS)) {
                    throw new AssertionError("held for 60 s at " + p);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void releaseAll() {
            for (CountDownLatch latch : go) {
                latch.countDown();
            }
        }
    }

    Held hold(String name, Supplier<Boolean> action, Point... points) {
        Held h = new Held(name, action, points);
        held.add(h);
        return h;
    }

    void install() {
        if (installed == null) {
            installed = Interleaving.install(p -> held.forEach(h -> h.observe(p)));
        }
    }
}
