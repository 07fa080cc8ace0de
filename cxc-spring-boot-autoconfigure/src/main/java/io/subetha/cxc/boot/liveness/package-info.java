/**
 * The participants' heartbeat table as the starter runs it: this process's registration, everyone's
 * liveness, and the declared watchdogs' scan.
 */
@NullMarked
package io.subetha.cxc.boot.liveness;

import org.jspecify.annotations.NullMarked;
