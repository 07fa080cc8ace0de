package io.subetha.cxc.values;

import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.region.SharedRegion;
import io.subetha.cxc.testing.ChildServer;
import java.nio.file.Path;
import java.util.List;

/**
 * A child JVM for the values' two-process test, served by {@link ChildServer}.
 *
 * <pre>
 * open REGION CELLS TAGGED     ok
 * store I TEXT                 ok        (stores TEXT as an Umbra pointer in cells 2I, 2I+1)
 * read I                       text TEXT (the string cells 2I, 2I+1 point to)
 * box I TYPE VALUE             ok        (boxes VALUE as TYPE: int, uint32, bool, double, offset, int48)
 * cell I                       cell DESCRIPTION (SharedNaNValue.toString of cell I)
 * tag I TAG VALUE              ok        (a user-tagged value in tagged cell I)
 * tagged I                     tagged TAG VALUE
 * cas I EXPECTED NEW           cas true|false  (raw bits, in hex)
 * </pre>
 */
public final class UmbraChild {

    private static SharedRegion region;
    private static SharedNaNValue cells;
    private static SharedNaNTaggedValue tagged;

    private UmbraChild() {}

    public static void main(String[] args) {
        new ChildServer()
                .on(
                        "open",
                        w -> {
                            region =
                                    SharedRegion.TYPE.openAsRecorded(
                                            Path.of(w[1]), CxcFileOptions.defaults());
                            cells =
                                    SharedNaNValue.openOrCreate(
                                            Path.of(w[2]), new SharedNaNValue.Settings(64));
                            tagged =
                                    SharedNaNTaggedValue.openOrCreate(
                                            Path.of(w[3]),
                                            new SharedNaNTaggedValue.Settings(64, 99));
                            return "ok";
                        })
                .on(
                        "store",
                        w -> {
                            int i = Integer.parseInt(w[1]);
                            String text = String.join(" ", List.of(w).subList(2, w.length));
                            SharedUmbraPointer p = SharedUmbraPointer.store(region, text);
                            cells.set(2 * i + 1, p.tail());
                            cells.set(2 * i, p.head());
                            return "ok";
                        })
                .on(
                        "read",
                        w -> {
                            int i = Integer.parseInt(w[1]);
                            return "text "
                                    + SharedUmbraPointer.of(
                                                    region, cells.get(2 * i), cells.get(2 * i + 1))
                                            .resolveString();
                        })
                .on(
                        "box",
                        w -> {
                            cells.set(Integer.parseInt(w[1]), box(w[2], w[3]));
                            return "ok";
                        })
                .on(
                        "cell",
                        w -> "cell " + SharedNaNValue.toString(cells.get(Integer.parseInt(w[1]))))
                .on(
                        "tag",
                        w -> {
                            tagged.set(
                                    Integer.parseInt(w[1]),
                                    Integer.parseInt(w[2]),
                                    Integer.parseInt(w[3]));
                            return "ok";
                        })
                .on(
                        "tagged",
                        w -> {
                            long bits = tagged.get(Integer.parseInt(w[1]));
                            return "tagged "
                                    + SharedNaNTaggedValue.userTagOf(bits)
                                    + " "
                                    + SharedNaNTaggedValue.valueOf(bits);
                        })
                .on(
                        "cas",
                        w ->
                                "cas "
                                        + cells.compareAndSet(
                                                Integer.parseInt(w[1]),
                                                Long.parseUnsignedLong(w[2], 16),
                                                Long.parseUnsignedLong(w[3], 16)))
                .serve();
    }

    private static long box(String type, String v) {
        return switch (type) {
            case "int" -> SharedNaNValue.box(Integer.parseInt(v));
            case "uint32" -> SharedNaNValue.boxUint32(Long.parseLong(v));
            case "bool" -> SharedNaNValue.box(Boolean.parseBoolean(v));
            case "double" -> SharedNaNValue.box(Double.parseDouble(v));
            case "offset" -> SharedNaNValue.boxOffset(Long.parseLong(v));
            case "int48" -> SharedNaNValue.boxInt48(Long.parseLong(v));
            default -> throw new IllegalArgumentException(type);
        };
    }
}
