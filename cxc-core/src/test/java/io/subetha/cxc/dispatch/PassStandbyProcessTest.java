package io.subetha.cxc.dispatch;

import static io.subetha.cxc.dispatch.PassChild.bytes;
import static io.subetha.cxc.dispatch.PassChild.twice;
import static io.subetha.cxc.dispatch.PassChild.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.subetha.cxc.testing.ChildJvm;
import io.subetha.cxc.testing.ChildJvmGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Copies of one service register the same handler under the same key: one owns the pass id, the
 * others stand by and take it over once the owner is gone; a different handler is refused.
 */
class PassStandbyProcessTest {

    private static final long KEY = 0x5eed_0001L;
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir Path dir;

    private final ChildJvmGroup children = new ChildJvmGroup();
    private final List<PassRegistry> opened = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        children.close(); // kills every child still running
        opened.forEach(PassRegistry::close);
    }

    private Path file() {
        return dir.resolve("calls.passes");
    }

    private ChildJvm start(String name) {
        ChildJvm child = children.add(ChildJvm.start(name, PassChild.class));
        assertThat(child.ask("open " + file() + " 8 2 64")).isEqualTo("ok");
        return child;
    }

    private PassRegistry here() {
        PassRegistry registry =
                PassRegistry.openOrCreate(file(), new PassRegistry.Settings(8, 2, 64));
        opened.add(registry);
        return registry;
    }

    @Test
    void aCopyStandsByAnotherHandlerIsRefusedAndTheStandbyTakesOverFromAKilledOwner() {
        ChildJvm owner = start("owner");
        assertThat(owner.ask("stand-by 1 twice " + KEY)).isEqualTo("owns");
        PassRegistry standby = here();
        PassHandler same = a -> bytes(twice(value(a)));

        assertThat(standby.registerOrStandBy(1, same, KEY)).isFalse();
        assertThat(standby.registeredHere()).isEmpty();
        assertThatThrownBy(() -> standby.registerOrStandBy(1, a -> a, KEY + 1))
                .isInstanceOf(PassOwnedException.class)
                .hasMessageContaining("another handler");
        assertThatThrownBy(() -> standby.register(1, same)).isInstanceOf(PassOwnedException.class);

        owner.kill();

        assertThat(standby.registerOrStandBy(1, same, KEY)).isTrue();
        ChildJvm caller = start("caller");
        assertThat(caller.ask("call 1 100")).isEqualTo("done 100");
    }

    /**
     * A call sent to an owner that is killed before it took the request is sent again to the copy
     * that took the pass over, and answered: the handler never ran at the old owner.
     */
    @Test
    void aCallWaitingAtAKilledOwnerIsAnsweredByTheCopyThatTookItOver() {
        ChildJvm owner = start("owner");
        assertThat(owner.ask("stand-by 1 twice " + KEY)).isEqualTo("owns");
        PassRegistry standby = here();
        assertThat(standby.registerOrStandBy(1, a -> bytes(twice(value(a))), KEY)).isFalse();
        ChildJvm caller = start("caller");

        owner.suspend(); // alive but frozen: the request waits in its mailbox
        caller.send("call-one 1 20 60000");
        await().atMost(WAIT).until(() -> (int) standby.describe().get("busySlots") == 1);
        caller.suspend(); // its next owner check comes after the takeover
        owner.kill();
        assertThat(standby.registerOrStandBy(1, a -> bytes(twice(value(a))), KEY)).isTrue();
        caller.resume();

        assertThat(caller.readLine(WAIT)).isEqualTo("result " + twice(20));
    }
}
