package io.subetha.cxc.internal;

import java.util.Optional;
import java.util.function.IntFunction;

/**
 * What a primitive expects of its file: kind, layout version, and shape. Used to create a file and
 * to validate one on open. The substrate knows no primitive by name: a kind is a code and a name,
 * and {@code kindNames} names the other codes a file may hold (for the error that says which kind a
 * file holds instead).
 *
 * @param kindCode the primitive's kind code, stored in the header
 * @param kindName the primitive's name in messages: "heartbeat-table"
 * @param layoutVersion the body layout version this code reads and writes
 * @param capacity slots, participants, entries...; {@link #ANY} on open to accept what the file
 *     says (still checked against {@code layout})
 * @param slotSize bytes per slot where it varies; {@link #ANY} on open to accept what the file says
 * @param layout derives and checks the body length
 * @param kindNames the name of any kind code this library knows
 */
public record FileSpec(
        int kindCode,
        String kindName,
        int layoutVersion,
        int capacity,
        int slotSize,
        BodyLayout layout,
        IntFunction<Optional<String>> kindNames) {

    /** On open: accept the capacity or slot size the file declares. */
    public static final int ANY = -1;

    /** "a leader-election", "an epoch-barrier": for messages. */
    public String kindWithArticle() {
        return withArticle(kindName);
    }

    /** The name of kind {@code code} with its article, or "an unknown kind (code n)". */
    public String describeKind(int code) {
        return kindNames
                .apply(code)
                .map(FileSpec::withArticle)
                .orElse("an unknown kind (code " + code + ")");
    }

    public static String withArticle(String name) {
        return ("aeiou".indexOf(name.charAt(0)) >= 0 ? "an " : "a ") + name;
    }
}
