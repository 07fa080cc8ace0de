package io.subetha.cxc.badinput;

import static io.subetha.cxc.mmf.HeaderDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.CxcException;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.primitive.PrimitiveView;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random files against every primitive's {@code open}, with a fixed seed: fully random bytes, valid
 * headers with one field set to a random or boundary value (checksum fixed, so the lie reaches the
 * checks behind it), and valid headers over random bodies. {@code open} must either succeed with
 * readable state or throw a {@link CxcException}: never another exception, never a crash, never a
 * write to the file.
 */
class OpenFuzzTest {

    static final int CASES = 3000;
    static final long SEED = 0x5EED_CC_0FL;

    /** No wait for files that are "being created": the fuzz has thousands of them. */
    static final CxcFileOptions NO_WAIT =
            CxcFileOptions.defaults().withInitialisationTimeout(Duration.ZERO);

    static final int[] U32_FIELDS = {
        LAYOUT_VERSION_OFFSET,
        KIND_OFFSET,
        CAPACITY_OFFSET,
        SLOT_SIZE_OFFSET,
        CREATOR_PID_OFFSET,
        RESERVED_OFFSET,
        INITIALISED_OFFSET
    };
    static final int[] U64_FIELDS = {BODY_LENGTH_OFFSET, PID_NAMESPACE_OFFSET, CREATED_AT_OFFSET};
    static final long[] BOUNDARIES = {
        0,
        1,
        -1,
        63,
        64,
        65,
        128,
        Integer.MAX_VALUE,
        Integer.MIN_VALUE,
        0xFFFF_FFFFL,
        Long.MAX_VALUE,
        Long.MIN_VALUE,
        MAX_BODY_LENGTH,
        MAX_BODY_LENGTH + 64
    };

    @TempDir Path dir;

    static java.util.List<PrimitiveOpener> primitives() {
        return PrimitiveOpener.ALL;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("primitives")
    void randomFilesOpenConsistentlyOrThrowCxcExceptionAndAreNeverWritten(PrimitiveOpener primitive)
            throws Exception {
        Path valid = dir.resolve("valid.cxc");
        primitive.prepare(dir);
        primitive.create(valid, CxcFileOptions.defaults()).close();
        byte[] template = Files.readAllBytes(valid);
        Random random = new Random(SEED ^ primitive.type().code());
        Map<String, Integer> outcomes = new TreeMap<>();

        for (int i = 0; i < CASES; i++) {
            byte[] bytes =
                    switch (i % 4) {
                        case 0 -> randomBytes(random);
                        case 1, 2 -> mutatedHeader(template, random);
                        default -> randomBody(template, random);
                    };
            Path file = dir.resolve("fuzz-" + i + ".cxc");
            Files.write(file, bytes);
            String outcome;
            try (PrimitiveView opened = primitive.open(file, NO_WAIT)) {
                PrimitiveOpener.readState(opened);
                outcome = "opened";
            } catch (CxcException expected) {
                outcome = expected.getClass().getSimpleName();
            } catch (Throwable unexpected) {
                throw new AssertionError(
                        "case "
                                + i
                                + ": open threw "
                                + unexpected
                                + " for bytes "
                                + Arrays.toString(Arrays.copyOf(bytes, Math.min(bytes.length, 80))),
                        unexpected);
            }
            assertThat(Files.readAllBytes(file)).as("case %d was written to", i).isEqualTo(bytes);
            Files.delete(file);
            outcomes.merge(outcome, 1, Integer::sum);
        }
        // The mix reached both sides of validation: some files opened, many were refused.
        assertThat(outcomes).containsKey("opened").containsKey("CxcFormatException");
        System.out.println(primitive + " fuzz outcomes: " + outcomes);
    }

    private static byte[] randomBytes(Random random) {
        byte[] bytes = new byte[random.nextInt(4) == 0 ? random.nextInt(64) : random.nextInt(512)];
        random.nextBytes(bytes);
        return bytes;
    }

    /** A valid file with 1..3 header fields set to random or boundary values. */
    private static byte[] mutatedHeader(byte[] template, Random random) {
        ByteBuffer b = FileBytes.edit(template);
        int mutations = 1 + random.nextInt(3);
        for (int m = 0; m < mutations; m++) {
            long value =
                    random.nextBoolean()
                            ? BOUNDARIES[random.nextInt(BOUNDARIES.length)]
                            : random.nextLong();
            if (random.nextInt(3) == 0) {
                b.putLong(U64_FIELDS[random.nextInt(U64_FIELDS.length)], value);
            } else {
                b.putInt(U32_FIELDS[random.nextInt(U32_FIELDS.length)], (int) value);
            }
        }
        byte[] bytes = random.nextInt(8) == 0 ? b.array() : FileBytes.withChecksum(b);
        // Sometimes the file's real size lies too.
        return random.nextInt(6) == 0
                ? Arrays.copyOf(bytes, HEADER_LENGTH + 64 * random.nextInt(4))
                : bytes;
    }

    /** A valid header over a random body (sometimes with the body magic kept). */
    private static byte[] randomBody(byte[] template, Random random) {
        byte[] bytes = template.clone();
        byte[] body = new byte[bytes.length - HEADER_LENGTH];
        random.nextBytes(body);
        int from = random.nextBoolean() ? 8 : 0; // keep the body magic half the time
        System.arraycopy(body, from, bytes, HEADER_LENGTH + from, body.length - from);
        return bytes;
    }
}
