package io.subetha.cxc.scheduling;

import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.FAILURE_LENGTH_OFFSET;
import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.FAILURE_TEXT_MAX;
import static io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor.FAILURE_TEXT_OFFSET;

import io.subetha.cxc.mmf.AtomicBuffer;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * A job's last failure in its slot: {@code "exception class\nmessage"} as UTF-8, cut at a
 * character's boundary to {@value BackgroundSchedulerDescriptor#FAILURE_TEXT_MAX} bytes, so a
 * failure costs a bounded, fixed part of the slot whatever the exception says.
 */
final class FailureText {

    private FailureText() {}

    /**
     * The text of {@code failure}. Its message is the worker's code: one that throws is recorded as
     * unavailable rather than lose the failure.
     */
    static byte[] of(Throwable failure) {
        String message;
        try {
            String given = failure.getMessage();
            message = given == null ? "" : given;
        } catch (RuntimeException e) {
            message = "(its message threw " + e.getClass().getName() + ")";
        }
        return cut(failure.getClass().getName() + "\n" + message);
    }

    static byte[] cut(String text) {
        CharsetEncoder encoder =
                StandardCharsets.UTF_8
                        .newEncoder()
                        .onMalformedInput(CodingErrorAction.REPLACE)
                        .onUnmappableCharacter(CodingErrorAction.REPLACE);
        ByteBuffer out = ByteBuffer.allocate(FAILURE_TEXT_MAX);
        // An encoder stops before a character that does not fit whole: the cut is on a boundary.
        encoder.encode(CharBuffer.wrap(text), out, true);
        byte[] bytes = new byte[out.position()];
        out.flip().get(bytes);
        return bytes;
    }

    /** Writes {@code text} into the slot at {@code slot}; its holder alone calls it. */
    static void write(AtomicBuffer body, int slot, byte[] text) {
        body.putBytes(slot + FAILURE_TEXT_OFFSET, text);
        body.setIntRelease(slot + FAILURE_LENGTH_OFFSET, text.length);
    }

    /** The failure a slot holds; null if its length is out of bounds (a damaged slot). */
    static @Nullable JobFailure read(AtomicBuffer body, int slot) {
        int length = body.getIntAcquire(slot + FAILURE_LENGTH_OFFSET);
        if (length < 0 || length > FAILURE_TEXT_MAX) {
            return null;
        }
        byte[] bytes = new byte[length];
        body.getBytes(slot + FAILURE_TEXT_OFFSET, bytes);
        String text = new String(bytes, StandardCharsets.UTF_8);
        int newline = text.indexOf('\n');
        return newline < 0
                ? new JobFailure(text, "")
                : new JobFailure(text.substring(0, newline), text.substring(newline + 1));
    }
}
