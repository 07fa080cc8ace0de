/**
 * Process identity and liveness: PIDs validated once, start times that tell a live process from a
 * new one that reused its PID, and zombies counted as dead.
 */
@NullMarked
package io.subetha.cxc.process;

import org.jspecify.annotations.NullMarked;
