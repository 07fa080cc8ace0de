package io.subetha.cxc.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcCapacityException;
import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.primitive.PrimitiveView;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedVecTest {

    /** Both halves always equal: a reader seeing them differ saw a half-written element. */
    record Twin(long a, long b) {}

    @TempDir Path dir;

    @Test
    void pushGetSetPopAndCloneFollowAnArrayList() {
        try (SharedVec<Long> vec =
                SharedVec.TYPE.create(
                        dir.resolve("v.cxc"), new SharedVec.Settings<>(8, FixedCodec.INT64))) {
            List<Long> model = new ArrayList<>();
            for (long v = 10; v < 15; v++) {
                assertThat(vec.push(v)).isEqualTo(model.size());
                model.add(v);
            }
            vec.set(2, 99L);
            model.set(2, 99L);
            assertThat(vec.get(2)).isEqualTo(99L);
            assertThat(vec.pop()).contains(14L);
            model.remove(4);
            assertThat(vec.len()).isEqualTo(4);
            assertThat(vec.cloneToList()).isEqualTo(model);
            assertThat(vec.opCounts()).containsEntry("push", 5L).containsEntry("set", 1L);
        }
    }

    @Test
    void fullIsACapacityExceptionAndEmptyPopIsEmpty() {
        try (SharedVec<Long> vec =
                SharedVec.TYPE.create(
                        dir.resolve("v.cxc"), new SharedVec.Settings<>(2, FixedCodec.INT64))) {
            assertThat(vec.pop()).isEmpty();
            vec.push(1L);
            vec.push(2L);
            assertThatThrownBy(() -> vec.push(3L))
                    .isInstanceOf(CxcCapacityException.class)
                    .hasMessageContaining("capacity 2");
            assertThat(vec.cloneToList()).containsExactly(1L, 2L);
        }
    }

    @Test
    void badArgumentsNameTheValueAndTheLimit() {
        try (SharedVec<Long> vec =
                SharedVec.TYPE.create(
                        dir.resolve("v.cxc"), new SharedVec.Settings<>(4, FixedCodec.INT64))) {
            vec.push(1L);
            assertThatThrownBy(() -> vec.get(1))
                    .isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessageContaining("index 1")
                    .hasMessageContaining("len 1");
            assertThatThrownBy(() -> vec.set(-1, 5L)).hasMessageContaining("index -1");
        }
        assertThatThrownBy(
                        () ->
                                SharedVec.TYPE.create(
                                        dir.resolve("w.cxc"),
                                        new SharedVec.Settings<>(0, FixedCodec.INT64)))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("capacity 0");
        try (SharedVec<String> s =
                SharedVec.TYPE.create(
                        dir.resolve("s.cxc"), new SharedVec.Settings<>(2, FixedCodec.string(4)))) {
            assertThatThrownBy(() -> s.push("far too long"))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(s.len()).isZero();
            s.push("ok");
            assertThat(s.get(0)).isEqualTo("ok");
        }
    }

    @Test
    void anotherCodecOrCapacityIsRefusedOnOpen() {
        Path path = dir.resolve("v.cxc");
        SharedVec.TYPE.create(path, new SharedVec.Settings<>(4, FixedCodec.INT64)).close();
        assertThatThrownBy(
                        () -> SharedVec.open(path, new SharedVec.Settings<>(4, FixedCodec.INT32)))
                .isInstanceOf(CxcFormatException.class);
        assertThatThrownBy(
                        () -> SharedVec.open(path, new SharedVec.Settings<>(5, FixedCodec.INT64)))
                .hasMessageContaining("capacity 4");
    }

    @Test
    void anObserversViewDescribesButRefusesElementOps() {
        Path path = dir.resolve("v.cxc");
        try (SharedVec<Long> vec =
                SharedVec.TYPE.create(path, new SharedVec.Settings<>(4, FixedCodec.INT64))) {
            vec.push(7L);
        }
        try (PrimitiveView view =
                SharedVec.TYPE.observe(path, io.subetha.cxc.mmf.CxcFileOptions.defaults())) {
            assertThat(view.describe()).containsEntry("len", 1L).containsEntry("capacity", 4);
        }
    }

    @Test
    void readersNeverSeeAHalfWrittenElementWhileWritersSetPushAndPop() throws Exception {
        FixedCodec<Twin> codec = FixedCodec.record(Twin.class);
        try (SharedVec<Twin> vec =
                SharedVec.TYPE.create(dir.resolve("t.cxc"), new SharedVec.Settings<>(64, codec))) {
            for (int i = 0; i < 32; i++) {
                vec.push(new Twin(i, i));
            }
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Set<Long> seen = ConcurrentHashMap.newKeySet();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                int writer = w;
                threads.add(
                        new Thread(
                                () -> {
                                    for (long k = 0; k < 20_000 && failure.get() == null; k++) {
                                        long v = writer * 1_000_000L + k;
                                        vec.set(k % 32, new Twin(v, v));
                                        if (k % 3 == 0) {
                                            vec.push(new Twin(v, v));
                                            vec.pop();
                                        }
                                    }
                                }));
            }
            Thread reader =
                    new Thread(
                            () -> {
                                while (!stop.get()) {
                                    for (int i = 0; i < 32; i++) {
                                        Twin t = vec.get(i);
                                        if (t.a() != t.b()) {
                                            failure.set(new AssertionError("torn " + t));
                                        }
                                        seen.add(t.a());
                                    }
                                    List<Twin> all = vec.cloneToList();
                                    if (all.size() < 32 || all.size() > 34) {
                                        failure.set(new AssertionError("clone of " + all.size()));
                                    }
                                    for (Twin t : all) {
                                        if (t.a() != t.b()) {
                                            failure.set(new AssertionError("torn in clone " + t));
                                        }
                                    }
                                }
                            });
            reader.start();
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            stop.set(true);
            reader.join();
            assertThat(failure.get()).isNull();
            assertThat(vec.len()).isEqualTo(32);
            assertThat(new HashSet<>(seen)).hasSizeGreaterThan(32);
            Optional<Twin> last = vec.pop();
            assertThat(last).isPresent();
        }
    }
}
