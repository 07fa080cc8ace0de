/**
 * The {@code @LeaderOnly} advisor: the leadership check around each call, the term it binds, and
 * the drain of running calls before this process steps down.
 */
@NullMarked
package io.subetha.cxc.boot.aop;

import org.jspecify.annotations.NullMarked;
