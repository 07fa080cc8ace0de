package io.subetha.cxc.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three sample JVMs work one declared scheduler and one declared fan-out ({@link ReportJobs},
 * {@link OrderShipping}): the recurring job {@code tick} fires once per due time across them (every
 * fire the timetable counts is run by exactly one copy, and fires come no faster than the rate), a
 * flaky job is retried and succeeds, a broken one ends FAILED, and each order submitted at a
 * priority is shipped by exactly one copy.
 */
class SampleJobsProcessTest {

    private static final long RATE_MILLIS = 500;
    private static final int ORDERS = 30;
    private static final Pattern FIRED = Pattern.compile("timetable: tick .*, fired (\\d+) times");
    private static final Pattern TICKS =
            Pattern.compile("ran tick \\d+ times: jobs \\[([0-9, ]*)]");
    private static final Pattern SHIPPED = Pattern.compile("orders: \\[([0-9, ]*)]");

    @TempDir Path temp;

    private final ChildJvmGroup children = new ChildJvmGroup();

    @AfterEach
    void stopChildren() {
        children.close();
    }

    @Test
    void theRecurringJobRunsOncePerFireAndEachOrderIsShippedOnce() throws Exception {
        Path directory = temp.resolve("cxc");
        int[] ports = {SampleCopies.freePort(), SampleCopies.freePort(), SampleCopies.freePort()};
        for (int port : ports) {
            SampleCopies.startAnswering(
                    children,
                    port,
                    directory,
                    "--cxc.schedulers.reports.recurring.tick.fixed-rate=" + RATE_MILLIS + "ms",
                    "--sample.orders.shipping-time=20ms");
        }

        long firstMillis = System.currentTimeMillis();
        long firstFires = fires(ports[0]);
        assertThat(SampleCopies.post(ports[1], "/orders?count=" + ORDERS + "&priority=6"))
                .contains("submitted");
        assertThat(SampleCopies.post(ports[2], "/reports/flaky")).contains("submitted");
        assertThat(SampleCopies.post(ports[0], "/reports/broken")).contains("submitted");

        await("fan-out orders shipped")
                .atMost(Duration.ofSeconds(60))
                .until(() -> allOf(ports, "/orders", SHIPPED).size() >= ORDERS);
        assertThat(allOf(ports, "/orders", SHIPPED))
                .containsExactlyInAnyOrderElementsOf(
                        LongStream.rangeClosed(1, ORDERS).boxed().toList());

        await("a retried flaky job and a failed broken one")
                .atMost(Duration.ofSeconds(60))
                .until(
                        () -> {
                            String reports = SampleCopies.get(ports[0], "/reports");
                            return reports.matches("(?s).*flaky attempt 1 retried.*")
                                    && reports.matches("(?s).*flaky attempt 2 succeeded.*")
                                    && reports.matches("(?s).*failed: job \\d+ after 3 attempts.*");
                        });

        // Every fire is run by exactly one copy: the runs of all three are the fires, no job twice.
        long[] fires = new long[1];
        List<Long> ticks = new ArrayList<>();
        await("ticks run once per fire")
                .atMost(Duration.ofSeconds(60))
                .until(
                        () -> {
                            fires[0] = fires(ports[0]);
                            ticks.clear();
                            ticks.addAll(allOf(ports, "/reports", TICKS));
                            return fires[0] >= firstFires + 6
                                    && ticks.size() == fires[0]
                                    && fires(ports[0]) == fires[0];
                        });
        assertThat(ticks).doesNotHaveDuplicates();
        long elapsed = System.currentTimeMillis() - firstMillis;
        assertThat(fires[0] - firstFires)
                .as("fires in %d ms at one per %d ms", elapsed, RATE_MILLIS)
                .isLessThanOrEqualTo(elapsed / RATE_MILLIS + 1);
    }

    private long fires(int port) throws InterruptedException {
        Matcher fired = FIRED.matcher(SampleCopies.get(port, "/reports"));
        assertThat(fired.find()).as("the timetable in /reports").isTrue();
        return Long.parseLong(fired.group(1));
    }

    /** The numbers every copy lists in {@code path}'s line that {@code list} matches. */
    private List<Long> allOf(int[] ports, String path, Pattern list) throws InterruptedException {
        List<Long> all = new ArrayList<>();
        for (int port : ports) {
            Matcher numbers = list.matcher(SampleCopies.get(port, path));
            assertThat(numbers.find()).as(path + " of port " + port).isTrue();
            for (String n : numbers.group(1).split(", ")) {
                if (!n.isBlank()) {
                    all.add(Long.parseLong(n.strip()));
                }
            }
        }
        return all;
    }
}
