/**
 * What a Spring Boot application uses of cxc: the {@link io.subetha.cxc.boot.CxcLeadership} facade,
 * the fencing token of a {@link io.subetha.cxc.boot.annotation.LeaderOnly} call ({@link
 * io.subetha.cxc.boot.LeaderContext}), and the leadership events.
 */
@NullMarked
package io.subetha.cxc.boot;

import org.jspecify.annotations.NullMarked;
