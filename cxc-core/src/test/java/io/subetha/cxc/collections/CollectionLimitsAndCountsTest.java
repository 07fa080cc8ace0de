package io.subetha.cxc.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.claim.IntentLock;
import io.subetha.cxc.claim.OwnerRecord;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The collections' limits at their exact edges (settings, body lengths, stored lengths and links
 * read back from the file), the answers that never wait for the writer lock, and the op counts.
 */
class CollectionLimitsAndCountsTest {

    @TempDir Path dir;

    @Test
    void settingsAcceptTheirRangeAndRefuseOnePastEachEnd() {
        assertThatCode(() -> new SharedVec.Settings(1, FixedCodec.INT64))
                .doesNotThrowAnyException();
        assertThatCode(
                        () ->
                                new SharedVec.Settings(
                                        SharedVecDescriptor.MAX_CAPACITY, FixedCodec.INT64))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> new SharedVec.Settings(0, FixedCodec.INT64))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("capacity 0 is outside 1..");
        assertThatThrownBy(
                        () ->
                                new SharedVec.Settings(
                                        SharedVecDescriptor.MAX_CAPACITY + 1, FixedCodec.INT64))
                .isInstanceOf(CxcSettingsException.class);
        assertThatThrownBy(() -> new SharedVec.Settings(1 << 20, FixedCodec.bytes(4096)))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("capacity " + (1 << 20));

        assertThatCode(() -> new SharedLinkedList.Settings(1, FixedCodec.INT64))
                .doesNotThrowAnyException();
        assertThatCode(
                        () ->
                                new SharedLinkedList.Settings(
                                        SharedLinkedListDescriptor.MAX_CAPACITY, FixedCodec.INT64))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> new SharedLinkedList.Settings(0, FixedCodec.INT64))
                .isInstanceOf(CxcSettingsException.class);
        assertThatThrownBy(
                        () ->
                                new SharedLinkedList.Settings(
                                        SharedLinkedListDescriptor.MAX_CAPACITY + 1,
                                        FixedCodec.INT64))
                .isInstanceOf(CxcSettingsException.class);
        assertThatThrownBy(() -> new SharedLinkedList.Settings(1 << 20, FixedCodec.bytes(4096)))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("capacity " + (1 << 20));
    }

    @Test
    void bodyLengthsAreTheAlignedSumAndRefuseOnePastEachEnd() {
        long a = HeaderDescriptor.ALIGNMENT;
        long vec = SharedVecDescriptor.slotsOffset(8) + 3L * SharedVecDescriptor.slotLength(8);
        assertThat(SharedVecDescriptor.bodyLength(3, 8)).isEqualTo((vec + a - 1) / a * a);
        long list =
                SharedLinkedListDescriptor.NODES_OFFSET
                        + 3L * SharedLinkedListDescriptor.nodeLength(8);
        assertThat(SharedLinkedListDescriptor.bodyLength(3, 8)).isEqualTo((list + a - 1) / a * a);
        int maxElement = (int) (HeaderDescriptor.MAX_BODY_LENGTH / 2);
        for (int[] bad :
                new int[][] {
                    {0, 8}, {SharedVecDescriptor.MAX_CAPACITY + 1, 8}, {1, 0}, {1, maxElement + 1}
                }) {
            assertThatThrownBy(() -> SharedVecDescriptor.bodyLength(bad[0], bad[1]))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> SharedLinkedListDescriptor.bodyLength(bad[0], bad[1]))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        for (int[] good :
                new int[][] {{1, 1}, {SharedVecDescriptor.MAX_CAPACITY, 1}, {1, maxElement}}) {
            assertThat(SharedVecDescriptor.bodyLength(good[0], good[1])).isPositive();
            assertThat(SharedLinkedListDescriptor.bodyLength(good[0], good[1])).isPositive();
        }
        assertThat(SharedVecDescriptor.bodyLength(1, 1) % a).isZero();
        assertThat(SharedLinkedListDescriptor.bodyLength(1, 1) % a).isZero();
    }

    @Test
    void aStoredLengthOrSizeOutsideTheCapacityIsAFormatError() {
        Path v = dir.resolve("v.cxc");
        Path l = dir.resolve("l.cxc");
        try (SharedVec<Long> vec =
                        SharedVec.TYPE.create(v, new SharedVec.Settings<>(4, FixedCodec.INT64));
                SharedLinkedList<Long> list =
                        SharedLinkedList.TYPE.create(
                                l, new SharedLinkedList.Settings<>(4, FixedCodec.INT64))) {
            AtomicBuffer rv = RawBody.of(v);
            AtomicBuffer rl = RawBody.of(l);
            rv.setLongVolatile(SharedVecDescriptor.LENGTH_OFFSET, 4);
            assertThat(vec.len()).isEqualTo(4);
            rv.setLongVolatile(SharedVecDescriptor.LENGTH_OFFSET, 5);
            assertThatThrownBy(vec::len)
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining("length 5");
            rv.setLongVolatile(SharedVecDescriptor.LENGTH_OFFSET, -1);
            assertThatThrownBy(vec::len)
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining("length -1");
            rl.setLongVolatile(SharedLinkedListDescriptor.SIZE_OFFSET, 5);
            assertThatThrownBy(list::size)
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining("size 5");
            rl.setLongVolatile(SharedLinkedListDescriptor.SIZE_OFFSET, -1);
            assertThatThrownBy(list::size)
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining("size -1");
        }
    }

    @Test
    void aListLinkToTheLastNodeIsReadAndOnePastItOrBeforeTheNodesIsAFormatError() {
        Path l = dir.resolve("l.cxc");
        try (SharedLinkedList<Long> list =
                SharedLinkedList.TYPE.create(
                        l, new SharedLinkedList.Settings<>(2, FixedCodec.INT64))) {
            list.pushTail(1L);
            list.pushTail(2L);
            AtomicBuffer raw = RawBody.of(l);
            long first = raw.getLongVolatile(SharedLinkedListDescriptor.HEAD_OFFSET);
            long nodeLength = SharedLinkedListDescriptor.nodeLength(8);
            long last = SharedLinkedListDescriptor.NODES_OFFSET + nodeLength;
            assertThat(raw.getLongVolatile(SharedLinkedListDescriptor.TAIL_OFFSET)).isEqualTo(last);
            assertThat(list.popTail()).contains(2L);
            raw.setLongVolatile(SharedLinkedListDescriptor.HEAD_OFFSET, last + nodeLength);
            assertThatThrownBy(list::popHead).isInstanceOf(CxcFormatException.class);
            raw.setLongVolatile(
                    SharedLinkedListDescriptor.HEAD_OFFSET,
                    SharedLinkedListDescriptor.NODES_OFFSET - nodeLength);
            assertThatThrownBy(list::popHead).isInstanceOf(CxcFormatException.class);
            raw.setLongVolatile(SharedLinkedListDescriptor.HEAD_OFFSET, first + 8);
            assertThatThrownBy(list::popHead).isInstanceOf(CxcFormatException.class);
            raw.setLongVolatile(SharedLinkedListDescriptor.HEAD_OFFSET, first);
            assertThat(list.popHead()).contains(1L);
        }
    }

    @Test
    void poppingAnEmptyCollectionNeverWaitsForTheWriterLock() {
        Path v = dir.resolve("v.cxc");
        Path l = dir.resolve("l.cxc");
        try (SharedVec<Long> vec =
                        SharedVec.TYPE.create(v, new SharedVec.Settings<>(4, FixedCodec.INT64));
                SharedLinkedList<Long> list =
                        SharedLinkedList.TYPE.create(
                                l, new SharedLinkedList.Settings<>(4, FixedCodec.INT64))) {
            // Another live writer (this PID, under a key no handle here holds) keeps both locks.
            long held = OwnerRecord.ownerWord(Pids.current(), 77);
            RawBody.of(v)
                    .setLongVolatile(
                            SharedVecDescriptor.LOCK_OFFSET + IntentLock.OWNER_OFFSET, held);
            RawBody.of(l)
                    .setLongVolatile(
                            SharedLinkedListDescriptor.LOCK_OFFSET + IntentLock.OWNER_OFFSET, held);
            assertThat(vec.writerPid()).isEqualTo(Pids.current());
            assertThat(list.writerPid()).isEqualTo(Pids.current());
            assertThat(vec.pop()).isEmpty();
            assertThat(list.popHead()).isEmpty();
            assertThat(list.popTail()).isEmpty();
            assertThat(vec.len()).isZero();
            assertThat(vec.cloneToList()).isEmpty();
        }
    }

    @Test
    void everyOpIsCountedOnceAndTheAccessorsSayTheShape() {
        try (SharedVec<Long> vec =
                SharedVec.TYPE.create(
                        dir.resolve("v.cxc"), new SharedVec.Settings<>(4, FixedCodec.INT64))) {
            vec.push(1L);
            vec.push(2L);
            vec.set(0, 3L);
            vec.get(0);
            vec.len();
            vec.cloneToList();
            vec.pop();
            assertThat(vec.opCounters().get(SharedVec.Op.PUSH)).isEqualTo(2);
            assertThat(vec.opCounters().get(SharedVec.Op.SET)).isEqualTo(1);
            assertThat(vec.opCounters().get(SharedVec.Op.GET)).isEqualTo(1);
            assertThat(vec.opCounters().get(SharedVec.Op.LEN)).isEqualTo(1);
            assertThat(vec.opCounters().get(SharedVec.Op.CLONE)).isEqualTo(1);
            assertThat(vec.opCounters().get(SharedVec.Op.POP)).isEqualTo(1);
            assertThat(vec.capacity()).isEqualTo(4);
            assertThat(vec.writerPid()).isZero();
            assertThat(vec.describe()).containsEntry("len", 1L).containsEntry("capacity", 4);
        }
        try (SharedLinkedList<Long> list =
                SharedLinkedList.TYPE.create(
                        dir.resolve("l.cxc"),
                        new SharedLinkedList.Settings<>(3, FixedCodec.INT64))) {
            list.pushHead(1L);
            list.pushTail(2L);
            list.pushTail(3L);
            list.popHead();
            list.popTail();
            list.popTail();
            assertThat(list.opCounters().get(SharedLinkedList.Op.PUSH_HEAD)).isEqualTo(1);
            assertThat(list.opCounters().get(SharedLinkedList.Op.PUSH_TAIL)).isEqualTo(2);
            assertThat(list.opCounters().get(SharedLinkedList.Op.POP_HEAD)).isEqualTo(1);
            assertThat(list.opCounters().get(SharedLinkedList.Op.POP_TAIL)).isEqualTo(2);
            assertThat(list.capacity()).isEqualTo(3);
            assertThat(list.writerPid()).isZero();
            assertThat(list.describe()).containsEntry("capacity", 3);
        }
    }
}
