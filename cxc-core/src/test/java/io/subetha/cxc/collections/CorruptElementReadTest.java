package io.subetha.cxc.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lock-free reader that meets an element its codec refuses, under a sequence (or version) that
 * did not move while it read, has read the file as it is: the codec's error is thrown, never taken
 * for a torn read and retried, never swallowed. A vec of {@code string(8)} elements whose stored
 * UTF-8 length is planted past its limit.
 */
class CorruptElementReadTest {

    @TempDir Path dir;

    private static final int ELEMENT = 8;
    private static final int ELEMENT_BYTES = 4 + ELEMENT;

    private SharedVec<String> vecWithACorruptSecondElement(Path path) {
        SharedVec<String> vec =
                SharedVec.TYPE.create(
                        path, new SharedVec.Settings<>(4, FixedCodec.string(ELEMENT)));
        vec.push("ab");
        vec.push("cd");
        AtomicBuffer raw = RawBody.of(path);
        int slot1 =
                SharedVecDescriptor.slotsOffset(ELEMENT_BYTES)
                        + SharedVecDescriptor.slotLength(ELEMENT_BYTES);
        raw.setIntVolatile(slot1 + SharedVecDescriptor.ELEMENT_OFFSET, 1000);
        return vec;
    }

    @Test
    void getThrowsTheCodecsErrorForAStableCorruptElement() {
        try (SharedVec<String> vec = vecWithACorruptSecondElement(dir.resolve("v.cxc"))) {
            assertThat(vec.get(0)).isEqualTo("ab");
            assertThatThrownBy(() -> vec.get(1)).isInstanceOf(CxcFormatException.class);
            assertThat(vec.writerPid()).as("no lock left held").isZero();
        }
    }

    @Test
    void aSnapshotThrowsTheCodecsErrorForAStableCorruptElement() {
        try (SharedVec<String> vec = vecWithACorruptSecondElement(dir.resolve("v.cxc"))) {
            assertThatThrownBy(vec::cloneToList).isInstanceOf(CxcFormatException.class);
            assertThat(vec.writerPid()).isZero();
            // A pop reads the element under the lock: refused too, and nothing removed.
            assertThatThrownBy(vec::pop).isInstanceOf(CxcFormatException.class);
            assertThat(vec.len()).isEqualTo(2);
            assertThat(vec.writerPid()).isZero();
        }
    }
}
