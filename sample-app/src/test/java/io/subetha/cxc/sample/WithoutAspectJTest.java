package io.subetha.cxc.sample;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.util.ClassUtils;

/**
 * The starter no longer brings AspectJ: the sample runs {@code @LeaderOnly} with plain Spring AOP.
 * (Its job reads {@code LeaderContext.requireCurrentTerm()}, which throws unless the advisor ran,
 * and {@link SampleMultiProcessTest} awaits its runs on the leader.)
 */
class WithoutAspectJTest {

    @Test
    void aspectJIsNotOnTheSamplesClasspath() {
        assertThat(ClassUtils.isPresent("org.aspectj.weaver.Advice", null)).isFalse();
    }
}
