package io.subetha.cxc.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecordCodecTest {

    private record Order(
            long id, short quantity, boolean urgent, @FixedSize(10) String note, double price) {}

    private record Everything(
            long aLong,
            Long boxedLong,
            int anInt,
            Integer boxedInt,
            short aShort,
            Short boxedShort,
            byte aByte,
            Byte boxedByte,
            double aDouble,
            Double boxedDouble,
            float aFloat,
            Float boxedFloat,
            boolean aBoolean,
            Boolean boxedBoolean,
            @FixedSize(3) byte[] digest,
            @FixedSize(15) String name) {}

    private record Price(long units, byte scale) {}

    private record Trade(int id, Price price, boolean settled) {}

    private record Inner(@FixedSize(4) String note) {}

    private record Outer(byte tag, Inner inner) {}

    private record Positive(int value) {
        Positive {
            if (value <= 0) {
                throw new IllegalArgumentException("value must be positive, got " + value);
            }
        }
    }

    private final AtomicBuffer buffer = Buffers.direct(256);

    @Test
    void everySupportedComponentTypeRoundTrips() {
        FixedCodec<Everything> codec = FixedCodec.record(Everything.class);
        Everything value =
                new Everything(
                        Long.MIN_VALUE,
                        Long.MAX_VALUE,
                        Integer.MIN_VALUE,
                        -7,
                        Short.MIN_VALUE,
                        (short) 9,
                        Byte.MIN_VALUE,
                        (byte) 5,
                        -0.0,
                        Double.NaN,
                        Float.MAX_VALUE,
                        -1.5f,
                        true,
                        false,
                        new byte[] {1, 2, 3},
                        "naïve ∑ 😀"); // exactly 15 UTF-8 bytes
        codec.write(buffer, 8, value);
        Everything read = codec.read(buffer, 8);

        // Double.compare: NaN equals NaN, -0.0 does not equal 0.0.
        assertThat(read)
                .usingRecursiveComparison()
                .withComparatorForType(Double::compare, Double.class)
                .withComparatorForType(Float::compare, Float.class)
                .isEqualTo(value);
        assertThat(Double.doubleToRawLongBits(read.aDouble())).isEqualTo(Long.MIN_VALUE);
        assertThat(codec.describe())
                .isEqualTo(
                        "record Everything(long aLong, long boxedLong, int anInt, int boxedInt,"
                                + " short aShort, short boxedShort, byte aByte, byte boxedByte,"
                                + " double aDouble, double boxedDouble, float aFloat,"
                                + " float boxedFloat, boolean aBoolean, boolean boxedBoolean,"
                                + " byte[3] digest, string(15) name)");
    }

    @Test
    void componentsAreNaturallyAlignedAndTheRecordPaddedToItsAlignment() {
        FixedCodec<Order> codec = FixedCodec.record(Order.class);
        assertThat(codec.size()).isEqualTo(40);
        assertThat(codec.describe())
                .isEqualTo(
                        "record Order(long id, short quantity, boolean urgent, string(10) note,"
                                + " double price)");

        AtomicBuffer filled = Buffers.filled(48, 0xEE);
        codec.write(filled, 8, new Order(0x0102_0304_0506_0708L, (short) 0x0A0B, true, "hi", 2.5));
        assertThat(filled.getLongPlain(8)).isEqualTo(0x0102_0304_0506_0708L);
        assertThat(filled.getShortPlain(8 + 8)).isEqualTo((short) 0x0A0B);
        assertThat(filled.getByte(8 + 10)).isEqualTo((byte) 1);
        assertThat(filled.getByte(8 + 11)).as("padding").isZero();
        assertThat(filled.getIntPlain(8 + 12)).as("note length").isEqualTo(2);
        assertThat(filled.getByte(8 + 16)).isEqualTo((byte) 'h');
        assertThat(filled.getByte(8 + 17)).isEqualTo((byte) 'i');
        assertThat(filled.getLongPlain(8 + 24)).as("end of note, padding").isZero();
        assertThat(Double.longBitsToDouble(filled.getLongPlain(8 + 32))).isEqualTo(2.5);
        assertThat(filled.getLongPlain(0)).as("before the value").isEqualTo(0xEEEE_EEEE_EEEE_EEEEL);
    }

    private record OneByte(byte a) {}

    private record ByteThenShort(byte a, short b) {}

    private record IntThenByte(int a, byte b) {}

    private record ByteThenString(byte a, @FixedSize(1) String b) {}

    private record BytesThenLong(@FixedSize(3) byte[] a, long b) {}

    @Test
    void sizesFollowTheAlignmentRules() {
        assertThat(FixedCodec.record(OneByte.class).size()).isEqualTo(1);
        assertThat(FixedCodec.record(ByteThenShort.class).size()).isEqualTo(4);
        assertThat(FixedCodec.record(IntThenByte.class).size()).isEqualTo(8);
        assertThat(FixedCodec.record(ByteThenString.class).size()).isEqualTo(12);
        assertThat(FixedCodec.record(BytesThenLong.class).size()).isEqualTo(16);
        assertThat(FixedCodec.record(Price.class).size()).isEqualTo(16);
    }

    @Test
    void aNestedRecordIsLaidOutAsOneAlignedUnit() {
        FixedCodec<Trade> codec = FixedCodec.record(Trade.class);
        // id 0..4, padding, price 8..24 (units 8, scale 16, its own padding), settled 24, padding.
        assertThat(codec.size()).isEqualTo(32);
        assertThat(codec.describe())
                .isEqualTo(
                        "record Trade(int id, record Price(long units, byte scale) price,"
                                + " boolean settled)");

        Trade trade = new Trade(-3, new Price(Long.MAX_VALUE, (byte) -2), true);
        AtomicBuffer filled = Buffers.filled(64, 0xEE);
        codec.write(filled, 32, trade);
        assertThat(codec.read(filled, 32)).isEqualTo(trade);
        assertThat(filled.getLongPlain(32 + 8)).isEqualTo(Long.MAX_VALUE);
        assertThat(filled.getByte(32 + 16)).isEqualTo((byte) -2);
        assertThat(filled.getByte(32 + 24)).isEqualTo((byte) 1);
    }

    @Test
    void equalValuesLeaveEqualBytesWhateverWasThereBefore() {
        FixedCodec<Order> codec = FixedCodec.record(Order.class);
        Order order = new Order(7, (short) 1, false, "x", 1.0);
        AtomicBuffer zeros = Buffers.filled(40, 0);
        AtomicBuffer garbage = Buffers.filled(40, 0xEE);
        codec.write(zeros, 0, order);
        codec.write(garbage, 0, order);
        assertThat(Buffers.bytes(garbage)).isEqualTo(Buffers.bytes(zeros));
    }

    @Test
    void aNullComponentIsRefusedBeforeAnyStore() {
        FixedCodec<Everything> codec = FixedCodec.record(Everything.class);
        AtomicBuffer filled = Buffers.filled(codec.size(), 0xEE);
        Everything withNullName =
                new Everything(
                        1,
                        2L,
                        3,
                        4,
                        (short) 5,
                        (short) 6,
                        (byte) 7,
                        (byte) 8,
                        9,
                        10.0,
                        11,
                        12f,
                        true,
                        true,
                        new byte[3],
                        null);
        assertThatThrownBy(() -> codec.write(filled, 0, withNullName))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Everything.name: FixedCodec values cannot be null");
        Everything withNullBox =
                new Everything(
                        1,
                        null,
                        3,
                        4,
                        (short) 5,
                        (short) 6,
                        (byte) 7,
                        (byte) 8,
                        9,
                        10.0,
                        11,
                        12f,
                        true,
                        true,
                        new byte[3],
                        "");
        assertThatThrownBy(() -> codec.write(filled, 0, withNullBox))
                .hasMessage("Everything.boxedLong: FixedCodec values cannot be null");
        assertThatThrownBy(() -> codec.write(filled, 0, null))
                .hasMessage("FixedCodec values cannot be null");
        assertThat(Buffers.bytes(filled)).containsOnly(0xEE);
    }

    @Test
    void aValueTooLongForANestedComponentIsRefusedNamingThePath() {
        FixedCodec<Outer> codec = FixedCodec.record(Outer.class);
        AtomicBuffer filled = Buffers.filled(16, 0xEE);
        assertThatThrownBy(() -> codec.write(filled, 0, new Outer((byte) 1, new Inner("12345"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Outer.inner: Inner.note: string(4) holds at most 4")
                .hasMessageContaining("is 5 UTF-8 bytes");
        assertThat(Buffers.bytes(filled)).containsOnly(0xEE);
    }

    @Test
    void aCorruptLengthInsideARecordIsAFormatErrorNamingTheComponent() {
        FixedCodec<Outer> codec = FixedCodec.record(Outer.class);
        codec.write(buffer, 0, new Outer((byte) 1, new Inner("ok")));
        buffer.setIntPlain(4, 1000);
        assertThatThrownBy(() -> codec.read(buffer, 0))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageStartingWith("Outer.inner: Inner.note: string(4) at offset 4")
                .hasMessageContaining("length of 1000 bytes");
    }

    @Test
    void theCanonicalConstructorChecksWhatIsRead() {
        FixedCodec<Positive> codec = FixedCodec.record(Positive.class);
        codec.write(buffer, 0, new Positive(3));
        assertThat(codec.read(buffer, 0)).isEqualTo(new Positive(3));
        buffer.setIntPlain(0, -1);
        assertThatThrownBy(() -> codec.read(buffer, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("value must be positive, got -1");
    }

    @Test
    void aRecordThatWouldOverflowTheBufferIsRefusedBeforeAnyStore() {
        FixedCodec<Order> codec = FixedCodec.record(Order.class);
        AtomicBuffer filled = Buffers.filled(64, 0xEE);
        assertThatThrownBy(() -> codec.write(filled, 32, new Order(1, (short) 1, true, "", 1)))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("record Order(")
                .hasMessageContaining("needs 40 bytes at offset 32, outside a buffer of 64 bytes");
        assertThat(Buffers.bytes(filled)).containsOnly(0xEE);
    }

    private record WithList(long id, List<String> tags) {}

    private record WithUnsizedString(long id, String note) {}

    private record WithUnsizedBytes(@FixedSize(2) byte[] ok, byte[] digest) {}

    private record WithSizedLong(@FixedSize(8) long id) {}

    private record WithZeroSize(@FixedSize(0) String note) {}

    private record Empty() {}

    private record Node(long value, Node next) {}

    private record Holder(Cycle cycle) {}

    private record Cycle(long value, Holder holder) {}

    private record WithEnum(Thread.State state) {}

    @Test
    void unsupportedShapesAreRefusedNamingTheRecordTheComponentAndTheFix() {
        assertThatThrownBy(() -> FixedCodec.record(WithList.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("record " + WithList.class.getName() + ", component tags")
                .hasMessageContaining("java.util.List<java.lang.String>")
                .hasMessageContaining("use long, int, short, byte, double, float, boolean");
        assertThatThrownBy(() -> FixedCodec.record(WithEnum.class))
                .hasMessageContaining("component state has type java.lang.Thread$State");
        assertThatThrownBy(() -> FixedCodec.record(WithUnsizedString.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("component note is a String without a size")
                .hasMessageContaining("@FixedSize(n) with its largest UTF-8 length in bytes");
        assertThatThrownBy(() -> FixedCodec.record(WithUnsizedBytes.class))
                .hasMessageContaining("component digest is a byte[] without a size")
                .hasMessageContaining("its exact length in bytes");
        assertThatThrownBy(() -> FixedCodec.record(WithSizedLong.class))
                .hasMessageContaining("component id is a long")
                .hasMessageContaining("@FixedSize applies only to byte[] and String");
        assertThatThrownBy(() -> FixedCodec.record(WithZeroSize.class))
                .hasMessageContaining("component note: @FixedSize(0) is invalid");
        assertThatThrownBy(() -> FixedCodec.record(Empty.class))
                .hasMessageContaining("has no components");
        assertThatThrownBy(() -> FixedCodec.record(Node.class))
                .hasMessageContaining("component next makes record " + Node.class.getName())
                .hasMessageContaining("contain itself");
        assertThatThrownBy(() -> FixedCodec.record(Holder.class))
                .hasMessageContaining("component holder makes record " + Holder.class.getName());
    }

    @Test
    @SuppressWarnings({"unchecked", "rawtypes"})
    void aClassThatIsNotARecordIsRefused() {
        Class raw = String.class;
        assertThatThrownBy(() -> FixedCodec.record(raw))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.String is not a record class");
    }

    private record Tick(long sequence, int count, double value, boolean ok) {}

    @Test
    void writingARecordOfPrimitivesAllocatesNothing() {
        FixedCodec<Tick> codec = FixedCodec.record(Tick.class);
        Tick tick = new Tick(Long.MAX_VALUE, Integer.MIN_VALUE, Math.E, true);
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 20_000; i++) {
            codec.write(buffer, 64, tick);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            codec.write(buffer, 64, tick);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        // A boxed long per write would be 1.6 MB; allow for the measurement's own few objects.
        assertThat(allocated).isLessThan(10_000);
        assertThat(codec.read(buffer, 64)).isEqualTo(tick);
    }

    @Test
    void aValueWrittenThroughOneMappingIsReadThroughAnother(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("orders.bin");
        FixedCodec<Order> codec = FixedCodec.record(Order.class);
        Order order = new Order(42, (short) 3, true, "ünïcø", -0.0);
        try (FileChannel writer =
                        FileChannel.open(
                                file,
                                StandardOpenOption.CREATE_NEW,
                                StandardOpenOption.READ,
                                StandardOpenOption.WRITE);
                FileChannel reader = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer writable = writer.map(FileChannel.MapMode.READ_WRITE, 0, 4096);
            codec.write(new AtomicBuffer(writable), 64, order);
            ByteBuffer readable = reader.map(FileChannel.MapMode.READ_ONLY, 0, 4096);
            assertThat(codec.read(new AtomicBuffer(readable), 64)).isEqualTo(order);
        }
    }
}
