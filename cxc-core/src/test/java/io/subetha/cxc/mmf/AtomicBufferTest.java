package io.subetha.cxc.mmf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class AtomicBufferTest {

    @Test
    void heapBuffersAreRefused() {
        assertThatThrownBy(() -> new AtomicBuffer(ByteBuffer.allocate(64)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("JDK-8318966");
    }

    @Test
    void misalignedRegionsAreRefused() {
        ByteBuffer direct = ByteBuffer.allocateDirect(128);
        assertThatThrownBy(() -> new AtomicBuffer(direct.slice(4, 64)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("aligned");
    }

    @Test
    void misalignedAtomicAccessThrowsAndOutOfBoundsAccessNeverTouchesMemory() {
        AtomicBuffer buffer = new AtomicBuffer(ByteBuffer.allocateDirect(64));
        assertThatThrownBy(() -> buffer.getLongVolatile(4))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> buffer.getLongVolatile(64))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> buffer.compareAndSetLong(Integer.MAX_VALUE - 7, 0, 1))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void atomicsAreLittleEndianAndWorkOnSlices() {
        AtomicBuffer buffer = new AtomicBuffer(ByteBuffer.allocateDirect(64));
        buffer.setLongRelease(8, 0x0000_0002_0000_0001L);
        assertThat(buffer.getIntAcquire(8)).isEqualTo(1);
        assertThat(buffer.getIntAcquire(12)).isEqualTo(2);
        assertThat(buffer.compareAndSetLong(8, 0x0000_0002_0000_0001L, 7)).isTrue();
        assertThat(buffer.getAndAddLong(8, 3)).isEqualTo(7);

        AtomicBuffer slice = buffer.slice(8, 16);
        assertThat(slice.getLongVolatile(0)).isEqualTo(10);
        assertThat(slice.capacity()).isEqualTo(16);
    }

    @Test
    void shortsAreLittleEndianPlainAndBoundsChecked() {
        AtomicBuffer buffer = new AtomicBuffer(ByteBuffer.allocateDirect(16));
        buffer.setShortPlain(3, (short) 0x0201);
        assertThat(buffer.getByte(3)).isEqualTo((byte) 1);
        assertThat(buffer.getByte(4)).isEqualTo((byte) 2);
        assertThat(buffer.getShortPlain(3)).isEqualTo((short) 0x0201);
        buffer.setShortPlain(14, Short.MIN_VALUE);
        assertThat(buffer.getShortPlain(14)).isEqualTo(Short.MIN_VALUE);
        assertThatThrownBy(() -> buffer.setShortPlain(15, (short) 1))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> buffer.getShortPlain(-1))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }
}
