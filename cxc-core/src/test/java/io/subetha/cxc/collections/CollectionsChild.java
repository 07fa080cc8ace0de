package io.subetha.cxc.collections;

import static io.subetha.cxc.testing.ChildServer.say;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.Interleaving.Point;
import io.subetha.cxc.testing.ChildServer;
import io.subetha.cxc.testing.PointFreeze;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A child JVM for the collections' process tests: served by {@link ChildServer}.
 *
 * <pre>
 * vec-open PATH CAPACITY          ok      (INT64 elements)
 * list-open PATH CAPACITY         ok
 * park-at POINT N                 ok      (the N-th time this process passes POINT it prints
 *                                          "parked POINT" and parks forever, to be killed there)
 * vec-rounds FROM COUNT           running, then done   (round r: push 2r, push 2r+1, pop; COUNT -1: forever)
 * vec-push-each FROM COUNT        indices I,I,...      (pushes FROM..FROM+COUNT-1)
 * vec-pop COUNT                   popped V,V,...
 * list-rounds FROM COUNT          running, then done   (round r: pushTail 3r, pushHead 3r+1,
 *                                                       popHead, pushTail 3r+2, popTail)
 * list-push-each FROM COUNT HEAD|TAIL   ok
 * list-pop COUNT HEAD|TAIL        popped V,V,...
 * </pre>
 */
public final class CollectionsChild {

    private static SharedVec<Long> vec;
    private static SharedLinkedList<Long> list;

    private CollectionsChild() {}

    public static void main(String[] args) {
        new ChildServer()
                .on(
                        "vec-open",
                        w -> {
                            vec =
                                    SharedVec.openOrCreate(
                                            Path.of(w[1]),
                                            new SharedVec.Settings<>(
                                                    Integer.parseInt(w[2]), FixedCodec.INT64));
                            return "ok";
                        })
                .on(
                        "list-open",
                        w -> {
                            list =
                                    SharedLinkedList.openOrCreate(
                                            Path.of(w[1]),
                                            new SharedLinkedList.Settings<>(
                                                    Integer.parseInt(w[2]), FixedCodec.INT64));
                            return "ok";
                        })
                .on(
                        "park-at",
                        w -> {
                            Point point = Point.valueOf(w[1]);
                            int n = Integer.parseInt(w[2]);
                            PointFreeze.install(point, n, "parked");
                            return "ok";
                        })
                .on(
                        "vec-rounds",
                        w -> {
                            long from = Long.parseLong(w[1]);
                            long count = Long.parseLong(w[2]);
                            say("running");
                            for (long r = from; count < 0 || r < from + count; r++) {
                                vec.push(2 * r);
                                vec.push(2 * r + 1);
                                vec.pop();
                            }
                            return "done";
                        })
                .on(
                        "vec-push-each",
                        w -> {
                            long from = Long.parseLong(w[1]);
                            int count = Integer.parseInt(w[2]);
                            List<String> indices = new ArrayList<>();
                            for (long v = from; v < from + count; v++) {
                                indices.add(Long.toString(vec.push(v)));
                            }
                            return "indices " + String.join(",", indices);
                        })
                .on(
                        "vec-pop",
                        w -> {
                            return "popped " + joined(Integer.parseInt(w[1]), vec::pop);
                        })
                .on(
                        "list-rounds",
                        w -> {
                            long from = Long.parseLong(w[1]);
                            long count = Long.parseLong(w[2]);
                            say("running");
                            for (long r = from; count < 0 || r < from + count; r++) {
                                list.pushTail(3 * r);
                                list.pushHead(3 * r + 1);
                                list.popHead();
                                list.pushTail(3 * r + 2);
                                list.popTail();
                            }
                            return "done";
                        })
                .on(
                        "list-push-each",
                        w -> {
                            long from = Long.parseLong(w[1]);
                            int count = Integer.parseInt(w[2]);
                            boolean head = w[3].equals("HEAD");
                            for (long v = from; v < from + count; v++) {
                                if (head) {
                                    list.pushHead(v);
                                } else {
                                    list.pushTail(v);
                                }
                            }
                            return "ok";
                        })
                .on(
                        "list-pop",
                        w -> {
                            boolean head = w[2].equals("HEAD");
                            return "popped "
                                    + joined(
                                            Integer.parseInt(w[1]),
                                            head ? () -> list.popHead() : () -> list.popTail());
                        })
                .serve();
    }

    private static String joined(int count, java.util.function.Supplier<Optional<Long>> pop) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            pop.get().ifPresent(v -> values.add(Long.toString(v)));
        }
        return String.join(",", values);
    }
}
