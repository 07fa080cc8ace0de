package io.subetha.cxc.fanout;

import static io.subetha.cxc.testing.ChildServer.say;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.testing.ChildServer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A child JVM for the fan-out process tests. Items are {@code producer << 32 | sequence}; the
 * sequence's priority is {@code sequence % MAX_PRIORITIES}.
 *
 * <pre>
 * produce PATH CAP PRODUCER COUNT         produced COUNT            (retries while a level is full)
 * produce-forever PATH CAP PRODUCER       running                   (until killed)
 * consume PATH CAP drain|claim LOG BATCH  consumed N                (after "stop" on stdin and an
 *                                                                   empty take; each batch is
 *                                                                   appended to LOG before its ack)
 * churn PATH CAP PRODUCER LOG            running                   (until killed: submits two
 *                                                                   items, claims up to two, appends
 *                                                                   them to LOG, acks; repeats)
 * hold PATH CAP MAX                       claimed ITEM,...  then stdin "ack" answers "ack true|false",
 *                                                           "attempts" answers "attempts N,..."
 * wait PATH CAP                           ready             then stdin "take MILLIS" answers
 *                                                           "took ITEM attempt N" or "took none"
 * </pre>
 */
public final class FanoutChild {

    private static volatile boolean stop;

    private FanoutChild() {}

    static long item(long producer, long sequence) {
        return (producer << 32) | sequence;
    }

    static int priorityOf(long item) {
        return (int) ((item & 0xFFFF_FFFFL) % PriorityFanout.MAX_PRIORITIES);
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        ChildServer commands = new ChildServer();
        Path path = Path.of(args[1]);
        int cap = Integer.parseInt(args[2]);
        PriorityFanout<Long> fanout =
                PriorityFanout.open(path, new PriorityFanout.Settings<>(cap, FixedCodec.INT64));
        switch (args[0]) {
            case "produce" -> {
                long producer = Long.parseLong(args[3]);
                long count = Long.parseLong(args[4]);
                for (long s = 0; s < count; s++) {
                    long item = item(producer, s);
                    while (!fanout.trySubmit(priorityOf(item), item)) {
                        Thread.yield();
                    }
                }
                say("produced " + count);
            }
            case "produce-forever" -> {
                long producer = Long.parseLong(args[3]);
                for (long s = 0; ; s++) {
                    long item = item(producer, s);
                    while (!fanout.trySubmit(priorityOf(item), item)) {
                        fanout.drainPriority(priorityOf(item), 16); // keep the level moving
                    }
                    if (s == 1000) {
                        say("running");
                    }
                }
            }
            case "churn" -> {
                long producer = Long.parseLong(args[3]);
                try (FileChannel log =
                        FileChannel.open(
                                Path.of(args[4]),
                                StandardOpenOption.CREATE,
                                StandardOpenOption.WRITE,
                                StandardOpenOption.APPEND)) {
                    ByteBuffer bytes = ByteBuffer.allocate(8 * 2).order(ByteOrder.LITTLE_ENDIAN);
                    long s = 0;
                    for (long round = 0; ; round++) {
                        for (int i = 0; i < 2; i++) {
                            long item = item(producer, s);
                            if (fanout.trySubmit(priorityOf(item), item)) {
                                s++;
                            }
                        }
                        FanoutClaim<Long> c = fanout.claimHighest(2);
                        bytes.clear();
                        c.items().forEach(bytes::putLong);
                        bytes.flip();
                        while (bytes.hasRemaining()) {
                            log.write(bytes);
                        }
                        c.ack();
                        if (round == 1000) {
                            say("running");
                        }
                    }
                }
            }
            case "consume" -> {
                boolean claim = args[3].equals("claim");
                int batch = Integer.parseInt(args[5]);
                commands.on(
                        "stop",
                        w -> {
                            stop = true;
                            return null; // answered by "consumed" once the level is empty
                        });
                Thread serving = ChildServer.daemon("fanout-commands", commands::serve);
                say("ready");
                long consumed = 0;
                try (FileChannel log =
                        FileChannel.open(
                                Path.of(args[4]),
                                StandardOpenOption.CREATE,
                                StandardOpenOption.WRITE,
                                StandardOpenOption.APPEND)) {
                    while (true) {
                        boolean wasStopped = stop; // read before the take: an empty take after it
                        List<Long> items;
                        FanoutClaim<Long> c = null;
                        if (claim) {
                            c = fanout.claimHighest(batch);
                            items = c.items();
                        } else {
                            items = fanout.drainHighest(batch);
                        }
                        if (items.isEmpty()) {
                            if (wasStopped) {
                                break;
                            }
                            Thread.yield();
                            continue;
                        }
                        ByteBuffer bytes =
                                ByteBuffer.allocate(8 * items.size())
                                        .order(ByteOrder.LITTLE_ENDIAN);
                        items.forEach(bytes::putLong);
                        bytes.flip();
                        while (bytes.hasRemaining()) {
                            log.write(bytes);
                        }
                        if (c != null) {
                            c.ack();
                        }
                        consumed += items.size();
                    }
                }
                say("consumed " + consumed);
                serving.join(); // it halts the JVM when the parent closes stdin
            }
            case "hold" -> {
                FanoutClaim<Long> c = fanout.claimHighest(Integer.parseInt(args[3]));
                say(
                        "claimed "
                                + c.items().stream()
                                        .map(String::valueOf)
                                        .collect(Collectors.joining(",")));
                commands.on("ack", w -> "ack " + c.ack());
                commands.on(
                        "attempts",
                        w -> {
                            StringBuilder a = new StringBuilder("attempts ");
                            for (int i = 0; i < c.items().size(); i++) {
                                a.append(i == 0 ? "" : ",").append(c.attempt(i));
                            }
                            return a.toString();
                        });
            }
            case "wait" -> {
                commands.on(
                        "take",
                        w -> {
                            FanoutClaim<Long> c =
                                    fanout.claimHighest(1, Duration.ofMillis(Long.parseLong(w[1])));
                            if (c.isEmpty()) {
                                return "took none";
                            }
                            c.ack();
                            return "took " + c.items().get(0) + " attempt " + c.attempt(0);
                        });
                say("ready");
            }
            default -> throw new IllegalArgumentException("unknown mode " + args[0]);
        }
        commands.serve();
    }
}
