package io.subetha.cxc.badinput;

import static io.subetha.cxc.mmf.HeaderDescriptor.HEADER_LENGTH;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.subetha.cxc.CxcException;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Damaged bodies under valid headers against every primitive's operations, not only its open: each
 * case writes a valid file of the kind, damages its body with seeded random bytes (the magic and
 * the codec block kept, so the damage gets past open's checks as often as it can), opens it and
 * runs every operation of {@link PrimitiveOperations} twice, each under a deadline. An operation
 * must either work or throw a {@link CxcException} that names the file: a hang past the deadline, a
 * raw JDK exception or a wrong answer it can recognise fails the case, named with its seed.
 *
 * <p>{@value #CASES_PROPERTY} scales the cases per kind for a long run ({@code
 * -Dcxc.fuzz.operateCases=5000}); the build runs {@value #DEFAULT_CASES}.
 */
class OperateFuzzTest {

    static final String CASES_PROPERTY = "cxc.fuzz.operateCases";
    static final int DEFAULT_CASES = 40;
    static final int CASES = Integer.getInteger(CASES_PROPERTY, DEFAULT_CASES);
    static final long SEED = Long.getLong("cxc.fuzz.seed", 0x0BE7_A7E5L);

    /** Far above any operation's own time here; reached only by a loop that does not end. */
    static final Duration DEADLINE = Duration.ofSeconds(20);

    /** What open leaves unrandomised: the body magic and the codec block. */
    static final int KEPT_PREFIX = PrimitiveType.TYPED_BODY_START;

    static final long[] BOUNDARIES = {
        0,
        1,
        -1,
        2,
        7,
        8,
        63,
        64,
        Integer.MAX_VALUE,
        Integer.MIN_VALUE,
        0xFFFF_FFFFL,
        Long.MAX_VALUE,
        Long.MIN_VALUE,
        1L << 24,
        (1L << 24) - 1
    };

    @TempDir Path dir;

    /**
     * Only the kinds named (comma-separated) in {@code cxc.fuzz.kinds}, for a long run of a few.
     */
    static List<PrimitiveOpener> primitives() {
        String only = System.getProperty("cxc.fuzz.kinds", "");
        return PrimitiveOpener.ALL.stream()
                .filter(p -> only.isBlank() || List.of(only.split(",")).contains(p.name()))
                .toList();
    }

    @Test
    void everyKindHasItsOperations() {
        assertThat(PrimitiveOperations.BY_KIND.keySet())
                .containsExactlyInAnyOrderElementsOf(
                        PrimitiveOpener.ALL.stream().map(PrimitiveOpener::name).toList());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("primitives")
    void operationsOnADamagedBodyWorkOrThrowCxcExceptionNamingTheFile(PrimitiveOpener primitive)
            throws Exception {
        Path valid = dir.resolve("valid.cxc");
        primitive.prepare(dir);
        primitive.create(valid, CxcFileOptions.defaults()).close();
        byte[] template = Files.readAllBytes(valid);
        List<PrimitiveOperations.Operation> operations =
                PrimitiveOperations.BY_KIND.get(primitive.name());
        Map<String, Integer> outcomes = new TreeMap<>();

        for (int i = 0; i < CASES; i++) {
            long seed = SEED ^ ((long) primitive.type().code() << 32) ^ i;
            Random random = new Random(seed);
            Path file = dir.resolve("damaged-" + i + ".cxc");
            Files.write(file, damaged(template, random));
            MappedPrimitive opened;
            try {
                opened = openWithDefaults(primitive.type(), file);
            } catch (CxcException refused) {
                outcomes.merge("refused at open", 1, Integer::sum);
                Files.delete(file);
                continue;
            }
            try {
                for (int round = 0; round < 2; round++) {
                    for (PrimitiveOperations.Operation operation : operations) {
                        String outcome = run(opened, operation, file, seed);
                        outcomes.merge(operation + ": " + outcome, 1, Integer::sum);
                    }
                }
            } finally {
                run(opened, PrimitiveOperations.op("close", MappedPrimitive::close), file, seed);
            }
            Files.delete(file);
        }
        System.out.println(primitive + " operate fuzz outcomes: " + outcomes);
    }

    private static String run(
            MappedPrimitive primitive,
            PrimitiveOperations.Operation operation,
            Path file,
            long seed) {
        String where = operation + " on a damaged " + primitive.kind() + " body, seed " + seed;
        return assertTimeoutPreemptively(
                DEADLINE,
                () -> {
                    try {
                        operation.use().accept(primitive);
                        return "worked";
                    } catch (CxcException refused) {
                        assertThat(refused.getMessage())
                                .as("%s threw %s", where, refused)
                                .contains(file.getFileName().toString());
                        return refused.getClass().getSimpleName();
                    } catch (Exception answer) {
                        if (operation.documented().stream()
                                .anyMatch(type -> type.isInstance(answer))) {
                            return answer.getClass().getSimpleName();
                        }
                        throw new AssertionError(where + " threw " + answer, answer);
                    } catch (Throwable unexpected) {
                        throw new AssertionError(where + " threw " + unexpected, unexpected);
                    }
                },
                () -> where + " did not return within " + DEADLINE);
    }

    private static <P extends MappedPrimitive, S> P openWithDefaults(
            PrimitiveType<P, S> type, Path file) {
        return type.open(file, type.defaults(), OpenFuzzTest.NO_WAIT);
    }

    /** The template with its body damaged one of three ways: whole, by words, or by a run. */
    static byte[] damaged(byte[] template, Random random) {
        byte[] bytes = template.clone();
        int from = HEADER_LENGTH + KEPT_PREFIX;
        int bodyEnd = bytes.length;
        if (bodyEnd <= from) {
            return bytes;
        }
        switch (random.nextInt(3)) {
            case 0 -> {
                // Sometimes a few more words kept: the settings most kinds record after the codec
                // block (a grace, a size), so the noise behind them gets past open.
                int start = Math.min(bodyEnd, from + 8 * random.nextInt(4));
                byte[] noise = new byte[bodyEnd - start];
                random.nextBytes(noise);
                System.arraycopy(noise, 0, bytes, start, noise.length);
            }
            case 1 -> {
                ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
                int words = (bodyEnd - from) / 8;
                for (int w = 1 + random.nextInt(8); w > 0; w--) {
                    long value =
                            random.nextBoolean()
                                    ? BOUNDARIES[random.nextInt(BOUNDARIES.length)]
                                    : random.nextLong();
                    b.putLong(from + 8 * random.nextInt(words), value);
                }
            }
            default -> {
                int start = from + 8 * random.nextInt((bodyEnd - from) / 8);
                int length = Math.min(bodyEnd - start, 1 + random.nextInt(512));
                byte[] noise = new byte[length];
                random.nextBytes(noise);
                System.arraycopy(noise, 0, bytes, start, length);
            }
        }
        return bytes;
    }
}
