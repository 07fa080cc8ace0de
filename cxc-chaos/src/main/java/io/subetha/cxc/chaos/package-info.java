/**
 * Chaos harness for leader election: {@link io.subetha.cxc.chaos.ChaosParticipant} is one
 * participant JVM running the real election loop and writing fenced work; {@link
 * io.subetha.cxc.chaos.ChaosAnalysis} turns every participant's log into the safety figures.
 */
@NullMarked
package io.subetha.cxc.chaos;

import org.jspecify.annotations.NullMarked;
