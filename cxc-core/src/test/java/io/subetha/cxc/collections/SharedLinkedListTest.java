package io.subetha.cxc.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.codec.FixedCodec;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedLinkedListTest {

    @TempDir Path dir;

    @Test
    void randomOpsFollowAnArrayDequeAndNodesAreReused() {
        try (SharedLinkedList<Long> list =
                SharedLinkedList.TYPE.create(
                        dir.resolve("l.cxc"),
                        new SharedLinkedList.Settings<>(8, FixedCodec.INT64))) {
            Deque<Long> model = new ArrayDeque<>();
            Random random = new Random(42);
            for (long v = 0; v < 5_000; v++) {
                switch (random.nextInt(4)) {
                    case 0 -> {
                        if (model.size() < 8) {
                            list.pushHead(v);
                            model.addFirst(v);
                        }
                    }
                    case 1 -> {
                        if (model.size() < 8) {
                            list.pushTail(v);
                            model.addLast(v);
                        }
                    }
                    case 2 ->
                            assertThat(list.popHead())
                                    .isEqualTo(java.util.Optional.ofNullable(model.pollFirst()));
                    default ->
                            assertThat(list.popTail())
                                    .isEqualTo(java.util.Optional.ofNullable(model.pollLast()));
                }
                assertThat(list.size()).isEqualTo(model.size());
            }
            List<Long> content = new ArrayList<>();
            assertThat(list.checkIntegrity(content)).isNull();
            assertThat(content).containsExactlyElementsOf(model);
        }
    }

    @Test
    void fullIsACapacityExceptionNamingTheCapacity() {
        try (SharedLinkedList<Long> list =
                SharedLinkedList.TYPE.create(
                        dir.resolve("l.cxc"),
                        new SharedLinkedList.Settings<>(2, FixedCodec.INT64))) {
            list.pushHead(1L);
            list.pushTail(2L);
            assertThatThrownBy(() -> list.pushHead(3L))
                    .isInstanceOf(CxcCapacityException.class)
                    .hasMessageContaining("capacity 2");
            assertThat(list.popHead()).contains(1L);
            list.pushHead(3L);
            assertThat(list.popTail()).contains(2L);
            assertThat(list.popTail()).contains(3L);
            assertThat(list.popTail()).isEmpty();
        }
    }

    @Test
    void aLinkOutsideTheNodeAreaIsAFormatErrorNotAWildRead() {
        Path path = dir.resolve("l.cxc");
        try (SharedLinkedList<Long> list =
                SharedLinkedList.TYPE.create(
                        path, new SharedLinkedList.Settings<>(4, FixedCodec.INT64))) {
            list.pushTail(1L);
        }
        // Another process (or a stray write) scribbles the head link.
        io.subetha.cxc.testing.RawBody.of(path)
                .setLongVolatile(SharedLinkedListDescriptor.HEAD_OFFSET, 12345);
        try (SharedLinkedList<Long> list =
                SharedLinkedList.open(path, new SharedLinkedList.Settings<>(4, FixedCodec.INT64))) {
            assertThatThrownBy(list::popHead)
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining("holds 12345");
        }
    }

    @Test
    void threadsPushingAndPoppingAtBothEndsLoseAndDuplicateNothing() throws Exception {
        try (SharedLinkedList<Long> list =
                SharedLinkedList.TYPE.create(
                        dir.resolve("l.cxc"),
                        new SharedLinkedList.Settings<>(4096, FixedCodec.INT64))) {
            Set<Long> popped = ConcurrentHashMap.newKeySet();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int id = t;
                threads.add(
                        new Thread(
                                () -> {
                                    for (long k = 0; k < 5_000; k++) {
                                        long v = id * 1_000_000L + k;
                                        if (id % 2 == 0) {
                                            list.pushHead(v);
                                        } else {
                                            list.pushTail(v);
                                        }
                                        var p = k % 2 == 0 ? list.popHead() : list.popTail();
                                        p.ifPresent(x -> assertThat(popped.add(x)).isTrue());
                                    }
                                }));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            List<Long> content = new ArrayList<>();
            assertThat(list.checkIntegrity(content)).isNull();
            assertThat(popped.size() + content.size()).isEqualTo(20_000);
            assertThat(content).doesNotContainAnyElementsOf(popped);
        }
    }
}
