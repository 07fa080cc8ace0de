package io.subetha.cxc.badinput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.subetha.cxc.CxcException;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.primitive.MappedPrimitive;
import io.subetha.cxc.primitive.PrimitiveKinds;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A file truncated under an open handle, for every kind: each operation of {@link
 * PrimitiveOperations} on the handle afterwards throws a {@link CxcException} that names the file
 * and says it was truncated, instead of the JVM's {@code InternalError} for a fault in an unsafe
 * memory access (or garbage read from the missing pages).
 */
class TruncatedUnderHandleTest {

    static final Duration DEADLINE = Duration.ofSeconds(20);

    @TempDir Path dir;

    /**
     * Every kind but the leader election, whose handles {@link
     * io.subetha.cxc.election.ElectionParticipant} checks on every tick and retires onto a heap
     * copy (its own tests: {@code ElectionParticipantFileCheckTest}); a bare election handle's
     * operations still touch a truncated mapping.
     */
    static java.util.List<PrimitiveOpener> primitives() {
        return OperateFuzzTest.primitives().stream()
                .filter(p -> !p.name().equals(PrimitiveKinds.LEADER_ELECTION.name()))
                .toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("primitives")
    void everyOperationOnATruncatedFileThrowsCxcExceptionSayingSo(PrimitiveOpener primitive)
            throws Exception {
        primitive.prepare(dir);
        Map<String, String> outcomes = new TreeMap<>();
        for (PrimitiveOperations.Operation operation :
                PrimitiveOperations.BY_KIND.get(primitive.name())) {
            Path file = dir.resolve(operation.name().replace('/', '-') + ".cxc");
            MappedPrimitive handle = primitive.create(file, CxcFileOptions.defaults());
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.truncate(0);
            }
            outcomes.put(operation.name(), run(handle, operation, file));
        }
        assertThat(outcomes)
                .as(primitive + " after truncation")
                .allSatisfy((op, outcome) -> assertThat(outcome).as(op).isEqualTo("refused"));
    }

    private static String run(
            MappedPrimitive handle, PrimitiveOperations.Operation operation, Path file) {
        return assertTimeoutPreemptively(
                DEADLINE,
                () -> {
                    try {
                        operation.use().accept(handle);
                        return "worked";
                    } catch (CxcException refused) {
                        String message = refused.getMessage();
                        return message.contains(file.toString()) && message.contains("truncated")
                                ? "refused"
                                : "unclear: " + refused;
                    } catch (Throwable other) {
                        return "threw " + other;
                    }
                },
                () -> operation + " on a truncated file did not return within " + DEADLINE);
    }
}
