/**
 * How a thread waits for another process without a futex: {@link io.subetha.cxc.wait.Backoff} idles
 * one wait (spin, then park doubling to a cap), {@link io.subetha.cxc.wait.Deadline} bounds it on
 * {@link System#nanoTime()}. Every cross-process wait of the primitives idles here, so a wake-up
 * other than the clock has one place to go.
 */
@NullMarked
package io.subetha.cxc.wait;

import org.jspecify.annotations.NullMarked;
