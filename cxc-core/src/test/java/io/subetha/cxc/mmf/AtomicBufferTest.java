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
}
