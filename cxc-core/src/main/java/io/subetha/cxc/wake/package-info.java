/**
 * How a process sleeps until another process has work for it, and wakes it: one mechanism for every
 * primitive. A primitive keeps a {@link io.subetha.cxc.wake.DoorbellDescriptor doorbell region} in
 * its file, calls {@link io.subetha.cxc.wake.Doorbell#ringIfAnnounced} after each write that a
 * waiter may wait for, and waits through a {@link io.subetha.cxc.wake.DoorbellWaiter}: spin, then
 * yield, then sleep on a Unix domain socket that carries nothing but "look now", always bounded by
 * the caller's timeout and an adaptive safety look.
 */
@NullMarked
package io.subetha.cxc.wake;

import org.jspecify.annotations.NullMarked;
