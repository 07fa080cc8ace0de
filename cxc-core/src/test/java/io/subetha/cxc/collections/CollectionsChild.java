package io.subetha.cxc.collections;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.internal.Interleaving.Point;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A child JVM for the collections' process tests: one command per stdin line, one answer line on
 * stdout, {@code error <message>} on failure; exits on stdin EOF.
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

    public static void main(String[] args) throws IOException {
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split(" ");
            try {
                answer(execute(words));
            } catch (RuntimeException e) {
                answer("error " + e);
            }
        }
    }

    private static synchronized void answer(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static String execute(String[] w) {
        switch (w[0]) {
            case "vec-open" -> {
                vec =
                        SharedVec.openOrCreate(
                                Path.of(w[1]),
                                new SharedVec.Settings<>(Integer.parseInt(w[2]), FixedCodec.INT64));
                return "ok";
            }
            case "list-open" -> {
                list =
                        SharedLinkedList.openOrCreate(
                                Path.of(w[1]),
                                new SharedLinkedList.Settings<>(
                                        Integer.parseInt(w[2]), FixedCodec.INT64));
                return "ok";
            }
            case "park-at" -> {
                Point point = Point.valueOf(w[1]);
                int n = Integer.parseInt(w[2]);
                AtomicInteger seen = new AtomicInteger();
                Interleaving.install(
                        p -> {
                            if (p == point && seen.incrementAndGet() == n) {
                                answer("parked " + p);
                                while (true) {
                                    LockSupport.park();
                                }
                            }
                        });
                return "ok";
            }
            case "vec-rounds" -> {
                long from = Long.parseLong(w[1]);
                long count = Long.parseLong(w[2]);
                answer("running");
                for (long r = from; count < 0 || r < from + count; r++) {
                    vec.push(2 * r);
                    vec.push(2 * r + 1);
                    vec.pop();
                }
                return "done";
            }
            case "vec-push-each" -> {
                long from = Long.parseLong(w[1]);
                int count = Integer.parseInt(w[2]);
                List<String> indices = new ArrayList<>();
                for (long v = from; v < from + count; v++) {
                    indices.add(Long.toString(vec.push(v)));
                }
                return "indices " + String.join(",", indices);
            }
            case "vec-pop" -> {
                return "popped " + joined(Integer.parseInt(w[1]), vec::pop);
            }
            case "list-rounds" -> {
                long from = Long.parseLong(w[1]);
                long count = Long.parseLong(w[2]);
                answer("running");
                for (long r = from; count < 0 || r < from + count; r++) {
                    list.pushTail(3 * r);
                    list.pushHead(3 * r + 1);
                    list.popHead();
                    list.pushTail(3 * r + 2);
                    list.popTail();
                }
                return "done";
            }
            case "list-push-each" -> {
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
            }
            case "list-pop" -> {
                boolean head = w[2].equals("HEAD");
                return "popped "
                        + joined(
                                Integer.parseInt(w[1]),
                                head ? () -> list.popHead() : () -> list.popTail());
            }
            default -> throw new IllegalArgumentException("unknown command " + w[0]);
        }
    }

    private static String joined(int count, java.util.function.Supplier<Optional<Long>> pop) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            pop.get().ifPresent(v -> values.add(Long.toString(v)));
        }
        return String.join(",", values);
    }
}
