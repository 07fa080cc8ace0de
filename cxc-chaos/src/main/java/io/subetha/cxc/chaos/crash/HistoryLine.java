package io.subetha.cxc.chaos.crash;

import java.util.Arrays;
import java.util.List;

/**
 * One line of a {@link History}: {@code <nanos> <worker> <family> <op> <fields...>}.
 *
 * @param nanos when it was written ({@link System#nanoTime()}): after the operation returned for a
 *     done line, before it started for a {@code -begin} line
 * @param worker the process incarnation that wrote it (0: the recovery after the run)
 */
public record HistoryLine(long nanos, int worker, Family family, String op, List<String> fields) {

    public static HistoryLine parse(String line) {
        String[] f = line.split(" ");
        if (f.length < 4) {
            throw new IllegalArgumentException("not a history line: '" + line + "'");
        }
        return new HistoryLine(
                Long.parseLong(f[0]),
                Integer.parseInt(f[1]),
                Family.of(f[2]),
                f[3],
                List.of(Arrays.copyOfRange(f, 4, f.length)));
    }

    public long longField(int i) {
        return Long.parseLong(fields.get(i));
    }

    public String field(int i) {
        return fields.get(i);
    }

    public boolean is(Family family, String op) {
        return this.family == family && this.op.equals(op);
    }

    @Override
    public String toString() {
        return nanos
                + " "
                + worker
                + " "
                + family.code()
                + " "
                + op
                + " "
                + String.join(" ", fields);
    }
}
