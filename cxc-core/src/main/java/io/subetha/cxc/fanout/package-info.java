/**
 * Fan-out: a priority queue of items many processes submit and claim ({@link
 * io.subetha.cxc.fanout.PriorityFanout}), and a task's shared progress ({@link
 * io.subetha.cxc.fanout.ProgressTask}).
 */
@NullMarked
package io.subetha.cxc.fanout;

import org.jspecify.annotations.NullMarked;
