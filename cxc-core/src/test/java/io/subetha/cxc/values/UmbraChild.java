package io.subetha.cxc.values;

import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.region.SharedRegion;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A child JVM for the values' two-process test, one command per stdin line.
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

    private UmbraChild() {}

    public static void main(String[] args) throws Exception {
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        SharedRegion region = null;
        SharedNaNValue cells = null;
        SharedNaNTaggedValue tagged = null;
        String line;
        while ((line = in.readLine()) != null) {
            String[] w = line.split(" ", 4);
            try {
                switch (w[0]) {
                    case "open":
                        region =
                                SharedRegion.TYPE.openAsRecorded(
                                        Path.of(w[1]), CxcFileOptions.defaults());
                        cells = SharedNaNValue.openOrCreate(Path.of(w[2]), 64);
                        tagged = SharedNaNTaggedValue.openOrCreate(Path.of(w[3]), 64, 99);
                        System.out.println("ok");
                        break;
                    case "store":
                        {
                            int i = Integer.parseInt(w[1]);
                            String text =
                                    line.substring(line.indexOf(' ', line.indexOf(' ') + 1) + 1);
                            SharedUmbraPointer p = SharedUmbraPointer.store(region, text);
                            cells.set(2 * i + 1, p.tail());
                            cells.set(2 * i, p.head());
                            System.out.println("ok");
                            break;
                        }
                    case "read":
                        {
                            int i = Integer.parseInt(w[1]);
                            System.out.println(
                                    "text "
                                            + SharedUmbraPointer.of(
                                                            region,
                                                            cells.get(2 * i),
                                                            cells.get(2 * i + 1))
                                                    .resolveString());
                            break;
                        }
                    case "box":
                        {
                            int i = Integer.parseInt(w[1]);
                            String v = w[3];
                            long bits;
                            switch (w[2]) {
                                case "int":
                                    bits = SharedNaNValue.box(Integer.parseInt(v));
                                    break;
                                case "uint32":
                                    bits = SharedNaNValue.boxUint32(Long.parseLong(v));
                                    break;
                                case "bool":
                                    bits = SharedNaNValue.box(Boolean.parseBoolean(v));
                                    break;
                                case "double":
                                    bits = SharedNaNValue.box(Double.parseDouble(v));
                                    break;
                                case "offset":
                                    bits = SharedNaNValue.boxOffset(Long.parseLong(v));
                                    break;
                                case "int48":
                                    bits = SharedNaNValue.boxInt48(Long.parseLong(v));
                                    break;
                                default:
                                    throw new IllegalArgumentException(w[2]);
                            }
                            cells.set(i, bits);
                            System.out.println("ok");
                            break;
                        }
                    case "cell":
                        System.out.println(
                                "cell "
                                        + SharedNaNValue.toString(
                                                cells.get(Integer.parseInt(w[1]))));
                        break;
                    case "tag":
                        tagged.set(
                                Integer.parseInt(w[1]),
                                Integer.parseInt(w[2]),
                                Integer.parseInt(w[3]));
                        System.out.println("ok");
                        break;
                    case "tagged":
                        {
                            long bits = tagged.get(Integer.parseInt(w[1]));
                            System.out.println(
                                    "tagged "
                                            + SharedNaNTaggedValue.userTagOf(bits)
                                            + " "
                                            + SharedNaNTaggedValue.valueOf(bits));
                            break;
                        }
                    case "cas":
                        System.out.println(
                                "cas "
                                        + cells.compareAndSet(
                                                Integer.parseInt(w[1]),
                                                Long.parseUnsignedLong(w[2], 16),
                                                Long.parseUnsignedLong(w[3], 16)));
                        break;
                    default:
                        System.out.println("error unknown command " + w[0]);
                }
            } catch (RuntimeException e) {
                System.out.println("error " + e);
            }
            System.out.flush();
        }
        Runtime.getRuntime().halt(0);
    }
}
