package io.subetha.cxc.sample;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/** A missing system tool skips its tests on a developer's machine and fails them in CI. */
class SystemToolTest {

    private static SystemTool tool(boolean present) {
        return new SystemTool("promtool", "install-promtool", "prometheus package", () -> present);
    }

    @Test
    void aPresentToolIsUsed() {
        assertThatCode(() -> tool(true).require(false, true)).doesNotThrowAnyException();
    }

    @Test
    void aMissingToolSkipsTheTestSayingHowToEnableIt() {
        assertThatThrownBy(() -> tool(false).require(false, false))
                .isInstanceOf(TestAbortedException.class)
                .hasMessageContaining("promtool is missing")
                .hasMessageContaining("bash .ci/install-promtool")
                .hasMessageContaining(".ci/run installs it");
    }

    @Test
    void aMissingToolFailsWhereItIsRequired() {
        assertThatThrownBy(() -> tool(false).require(false, true))
                .isInstanceOf(AssertionError.class)
                .isNotInstanceOf(TestAbortedException.class)
                .hasMessageContaining(SystemTool.REQUIRED + "=true");
    }
}
