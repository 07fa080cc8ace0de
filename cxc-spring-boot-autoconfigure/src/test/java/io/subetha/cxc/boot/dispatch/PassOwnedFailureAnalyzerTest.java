package io.subetha.cxc.boot.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.dispatch.PassOwnedException;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;

class PassOwnedFailureAnalyzerTest {

    @Test
    void saysWhoOwnsTheIdAndHowToFixIt() {
        PassOwnedException owned =
                new PassOwnedException(7, 4242, "pass 7 of calls.passes is registered by 4242");
        FailureAnalysis analysis =
                new PassOwnedFailureAnalyzer()
                        .analyze(new BeanCreationException("cxcPassHandlers", "failed", owned));
        assertThat(analysis.getDescription())
                .contains("Pass id 7", "PID 4242", "different handler");
        assertThat(analysis.getAction())
                .contains("@PassId(value = ...)", "cxc.pass-registries.<name>", "stand by");
    }
}
