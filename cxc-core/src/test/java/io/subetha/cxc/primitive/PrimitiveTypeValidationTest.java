package io.subetha.cxc.primitive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.MappedFile;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.observe.OpKind;
import io.subetha.cxc.testing.RawBody;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How {@link PrimitiveType} validates what it did not write: the codec block of a primitive with
 * two codecs (fingerprint over both in order, each size compared), a file it just created through
 * {@code openOrCreate}, a body magic or body check that refuses, and the definitions it refuses
 * (layout version 0, a codec block of 0 or 3 codecs).
 */
class PrimitiveTypeValidationTest {

    @TempDir Path dir;

    /** A test primitive with a codec block of as many codecs as its settings list. */
    static final class Pair extends MappedPrimitive {
        static final PrimitiveKinds.Kind KIND =
                new PrimitiveKinds.Kind(60_002, "typed-pair", PrimitiveKinds.TEST);

        enum Op implements OpKind {
            READ;

            @Override
            public int code() {
                return 1;
            }
        }

        record Settings(List<FixedCodec<?>> codecs) {}

        Pair(MappedFile file) {
            super(file, TYPE);
        }

        @Override
        public Map<String, Object> describe() {
            return fields();
        }
    }

    static PrimitiveType<Pair, Pair.Settings> type(
            Function<Pair.Settings, List<FixedCodec<?>>> codecs, int layoutVersion) {
        return PrimitiveType.<Pair, Pair.Settings>define(Pair.KIND, Pair.Settings.class)
                .layoutVersion(layoutVersion)
                .bodyMagic("TESTPAIR")
                .ops(Pair.Op.class)
                .fixedBody(64)
                .codecs(codecs)
                .defaults(new Pair.Settings(List.of(FixedCodec.INT64)))
                .construct((file, settings, options) -> new Pair(file));
    }

    static final PrimitiveType<Pair, Pair.Settings> TYPE = type(Pair.Settings::codecs, 1);

    static Pair.Settings codecs(FixedCodec<?>... codecs) {
        return new Pair.Settings(List.of(codecs));
    }

    /** FNV-1a over each fingerprint's eight bytes, low byte first: the documented combination. */
    static long fnv(FixedCodec<?>... codecs) {
        long hash = 0xcbf29ce484222325L;
        for (FixedCodec<?> codec : codecs) {
            for (int b = 0; b < 8; b++) {
                hash ^= (codec.fingerprint() >>> (8 * b)) & 0xFF;
                hash *= 0x100000001b3L;
            }
        }
        return hash == 0 ? 1 : hash;
    }

    @Test
    void oneCodecIsItsOwnFingerprintAndTwoAreCombinedInOrder() {
        assertThat(PrimitiveType.fingerprint(List.of(FixedCodec.INT32)))
                .isEqualTo(FixedCodec.INT32.fingerprint());
        long pair = PrimitiveType.fingerprint(List.of(FixedCodec.INT64, FixedCodec.INT32));
        assertThat(pair).isEqualTo(fnv(FixedCodec.INT64, FixedCodec.INT32));
        assertThat(pair)
                .isNotEqualTo(
                        PrimitiveType.fingerprint(List.of(FixedCodec.INT32, FixedCodec.INT64)))
                .isNotEqualTo(FixedCodec.INT64.fingerprint());
    }

    @Test
    void aPairFileRecordsBothCodecsAndOpensOnlyWithBothInTheirOrder() throws Exception {
        Path path = dir.resolve("pair.cxc");
        TYPE.create(path, codecs(FixedCodec.INT64, FixedCodec.INT32), CxcFileOptions.defaults())
                .close();
        AtomicBuffer raw = RawBody.of(path);
        assertThat(raw.getLongVolatile(PrimitiveType.CODEC_FINGERPRINT_OFFSET))
                .isEqualTo(fnv(FixedCodec.INT64, FixedCodec.INT32));
        assertThat(raw.getIntVolatile(PrimitiveType.CODEC_SIZES_OFFSET)).isEqualTo(8);
        assertThat(raw.getIntVolatile(PrimitiveType.CODEC_SIZES_OFFSET + 4)).isEqualTo(4);

        TYPE.open(path, codecs(FixedCodec.INT64, FixedCodec.INT32), CxcFileOptions.defaults())
                .close();
        TYPE.openOrCreate(
                        path, codecs(FixedCodec.INT64, FixedCodec.INT32), CxcFileOptions.defaults())
                .close();
        byte[] before = Files.readAllBytes(path);

        assertThatThrownBy(
                        () ->
                                TYPE.open(
                                        path,
                                        codecs(FixedCodec.INT32, FixedCodec.INT64),
                                        CxcFileOptions.defaults()))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining(
                        FixedCodec.INT32.describe()
                                + " (4 bytes) and "
                                + FixedCodec.INT64.describe()
                                + " (8 bytes)")
                .hasMessageContaining(
                        String.format(
                                "fingerprint 0x%016x: the file was created with payload layout"
                                        + " fingerprint 0x%016x and payload sizes 8, 4 bytes",
                                fnv(FixedCodec.INT32, FixedCodec.INT64),
                                fnv(FixedCodec.INT64, FixedCodec.INT32)))
                .hasMessageContaining("left untouched");
        assertThatThrownBy(
                        () ->
                                TYPE.openOrCreate(
                                        path, codecs(FixedCodec.INT64), CxcFileOptions.defaults()))
                .isInstanceOf(CxcFormatException.class);
        assertThat(Files.readAllBytes(path)).isEqualTo(before);
    }

    @Test
    void aStoredSizeThatDisagreesIsRefusedEvenUnderTheRightFingerprint() {
        for (int which = 0; which < 2; which++) {
            Path path = dir.resolve("pair-" + which + ".cxc");
            TYPE.create(path, codecs(FixedCodec.INT64, FixedCodec.INT32), CxcFileOptions.defaults())
                    .close();
            RawBody.of(path).setIntVolatile(PrimitiveType.CODEC_SIZES_OFFSET + 4 * which, 16);

            assertThatThrownBy(
                            () ->
                                    TYPE.open(
                                            path,
                                            codecs(FixedCodec.INT64, FixedCodec.INT32),
                                            CxcFileOptions.defaults()))
                    .isInstanceOf(CxcFormatException.class)
                    .hasMessageContaining(
                            "payload sizes " + (which == 0 ? "16, 4" : "8, 16") + " bytes");
        }
    }

    @Test
    void openOrCreateOfANewFileCreatesItWithItsCodecs() {
        Path path = dir.resolve("new.cxc");
        TYPE.openOrCreate(path, codecs(FixedCodec.INT32), CxcFileOptions.defaults()).close();

        assertThat(RawBody.of(path).getLongVolatile(PrimitiveType.CODEC_FINGERPRINT_OFFSET))
                .isEqualTo(FixedCodec.INT32.fingerprint());
        TYPE.open(path, codecs(FixedCodec.INT32), CxcFileOptions.defaults()).close();
        assertThat(TYPE.isTyped()).isTrue();
    }

    @Test
    void aCodecBlockHoldsOneOrTwoCodecs() {
        for (int count : new int[] {0, 3}) {
            Path path = dir.resolve("codecs-" + count + ".cxc");
            List<FixedCodec<?>> list =
                    java.util.Collections.nCopies(count, (FixedCodec<?>) FixedCodec.INT64);
            assertThatThrownBy(
                            () ->
                                    TYPE.create(
                                            path,
                                            new Pair.Settings(list),
                                            CxcFileOptions.defaults()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("declares " + count + " codecs")
                    .hasMessageContaining("holds 1 or 2");
        }
    }

    @Test
    void aLayoutVersionBelowOneIsRefusedAndOneIsAccepted() {
        assertThatThrownBy(() -> type(Pair.Settings::codecs, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("layout version must be 1 or more");
        assertThat(type(Pair.Settings::codecs, 1).layoutVersion()).isEqualTo(1);
        assertThat(TYPE.toString()).isEqualTo("typed-pair (kind 60002, layout 1)");
    }

    @Test
    void aWrongBodyMagicIsRefusedNamingBothMagics() throws Exception {
        Path path = dir.resolve("magic.cxc");
        TYPE.create(path, codecs(FixedCodec.INT64), CxcFileOptions.defaults()).close();
        RawBody.of(path).setLongVolatile(0, 0x1122334455667788L);
        byte[] before = Files.readAllBytes(path);

        assertThatThrownBy(
                        () -> TYPE.open(path, codecs(FixedCodec.INT64), CxcFileOptions.defaults()))
                .isInstanceOf(CxcFormatException.class)
                .hasMessageContaining("body magic 0x1122334455667788")
                .hasMessageContaining("\"TESTPAIR\"")
                .hasMessageContaining("the body is corrupt");
        assertThat(Files.readAllBytes(path)).isEqualTo(before);
    }
}
