package io.subetha.cxc.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three sample JVMs register the same {@code @PassId(1)} handler {@code quote} ({@link QuoteDesk}):
 * {@code GET /quote} on any copy is answered by the one owner; the owner is SIGKILLed and the
 * survivors' {@code /quote} is answered by a standby that took the id over.
 */
class SamplePassFailoverProcessTest {

    private static final Pattern BY_PID = Pattern.compile("^quote for (\\S+) by pid (\\d+)$");

    @Test
    void quotesContinueOnAStandbyWhenTheOwnerIsKilled(@TempDir Path temp) throws Exception {
        try (ChildJvmGroup children = new ChildJvmGroup()) { // kills every copy, whatever happens
            quotesContinue(children, temp.resolve("cxc"));
        }
    }

    private static void quotesContinue(ChildJvmGroup children, Path directory) throws Exception {
        List<ChildJvm> copies = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        // Started together: whichever registers first owns the id, the others stand by.
        for (int i = 0; i < 3; i++) {
            int port = SampleCopies.freePort();
            copies.add(SampleCopies.start(children, "sample-" + port, port, directory));
            ports.add(port);
        }
        for (int i = 0; i < 3; i++) {
            SampleCopies.awaitAnswering(copies.get(i), ports.get(i));
        }

        // Every copy's /quote is answered by the same owner, one of the three.
        long owner = answerer(ports.get(0), "a");
        assertThat(copies.stream().map(ChildJvm::pid)).contains(owner);
        for (int port : ports) {
            assertThat(answerer(port, "b")).isEqualTo(owner);
        }

        int ownerIndex = indexOf(copies, owner);
        copies.get(ownerIndex).kill();
        List<Integer> survivors = new ArrayList<>(ports);
        survivors.remove(ownerIndex);
        List<Long> survivorPids =
                copies.stream().map(ChildJvm::pid).filter(pid -> pid != owner).toList();

        long[] standby = new long[1];
        await("a standby answers /quote after the owner's SIGKILL")
                .atMost(Duration.ofSeconds(30))
                .until(
                        () -> {
                            String answer = SampleCopies.get(survivors.get(0), "/quote?for=c");
                            if (answer == null) {
                                return false;
                            }
                            standby[0] = pid(answer);
                            return survivorPids.contains(standby[0]);
                        });
        for (int port : survivors) {
            assertThat(answerer(port, "d")).isEqualTo(standby[0]);
        }
    }

    private static long answerer(int port, String item) throws InterruptedException {
        String answer = SampleCopies.get(port, "/quote?for=" + item);
        assertThat(answer).as("/quote of port " + port).isNotNull();
        Matcher matcher = BY_PID.matcher(answer.strip());
        assertThat(matcher.matches()).as(answer).isTrue();
        assertThat(matcher.group(1)).isEqualTo(item);
        return Long.parseLong(matcher.group(2));
    }

    private static long pid(String answer) {
        Matcher matcher = BY_PID.matcher(answer.strip());
        return matcher.matches() ? Long.parseLong(matcher.group(2)) : -1;
    }

    private static int indexOf(List<ChildJvm> copies, long pid) {
        for (int i = 0; i < copies.size(); i++) {
            if (copies.get(i).pid() == pid) {
                return i;
            }
        }
        throw new AssertionError("no copy has pid " + pid);
    }
}
