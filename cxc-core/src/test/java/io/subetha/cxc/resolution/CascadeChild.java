package io.subetha.cxc.resolution;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.resolution.AsyncPointerChild.Pair;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A child JVM for the cascade's process tests: one command per stdin line, one answer per line.
 *
 * <pre>
 * open PATH CAPACITY     ok         a cascade: memory, the shared level at PATH (long to long),
 *                                   a loader counting its calls (value = key * 31 + 7)
 * get FROM TO            loads N    gets keys FROM..TO-1; N = loader calls so far
 * open-pairs PATH CAP    ok         a shared level of long to Pair
 * churn KEYS             churning   a daemon thread puts Pair.of(key) for random keys forever
 * </pre>
 */
public final class CascadeChild {

    private static final AtomicLong LOADS = new AtomicLong();
    private static KTowerCascade<Long, Long> cascade;
    private static CascadeSharedLevel<Long, Pair> pairs;

    private CascadeChild() {}

    public static void main(String[] args) throws IOException {
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split(" ");
            String answer;
            try {
                answer = execute(words);
            } catch (RuntimeException e) {
                answer = "error " + e;
            }
            System.out.println(answer);
            System.out.flush();
        }
        Runtime.getRuntime().halt(0);
    }

    static KTowerCascade<Long, Long> cascade(Path path, int capacity, AtomicLong loads) {
        return KTowerCascade.<Long, Long>builder()
                .level(new BoundedLevel<>("memory", 1000))
                .level(
                        CascadeSharedLevel.openOrCreate(
                                path, capacity, FixedCodec.INT64, FixedCodec.INT64))
                .level(
                        new LoaderLevel<>(
                                "loader",
                                key -> {
                                    loads.incrementAndGet();
                                    return key * 31 + 7;
                                }))
                .build();
    }

    private static String execute(String[] words) {
        switch (words[0]) {
            case "open":
                cascade = cascade(Path.of(words[1]), Integer.parseInt(words[2]), LOADS);
                return "ok";
            case "get":
                for (long k = Long.parseLong(words[1]); k < Long.parseLong(words[2]); k++) {
                    long value = cascade.get(k).orElseThrow();
                    if (value != k * 31 + 7) {
                        return "error key " + k + " gave " + value;
                    }
                }
                return "loads " + LOADS.get();
            case "open-pairs":
                pairs =
                        CascadeSharedLevel.openOrCreate(
                                Path.of(words[1]),
                                Integer.parseInt(words[2]),
                                FixedCodec.INT64,
                                AsyncPointerChild.PAIR);
                return "ok";
            case "churn":
                int keys = Integer.parseInt(words[1]);
                Thread churn =
                        new Thread(
                                () -> {
                                    ThreadLocalRandom random = ThreadLocalRandom.current();
                                    while (true) {
                                        long key = random.nextInt(keys);
                                        if (random.nextInt(8) == 0) {
                                            pairs.remove(key);
                                        } else {
                                            pairs.insert(
                                                    key,
                                                    Pair.of(key * 1000 + random.nextInt(1000)));
                                        }
                                    }
                                },
                                "churn");
                churn.setDaemon(true);
                churn.start();
                return "churning";
            default:
                return "error unknown command " + words[0];
        }
    }
}
