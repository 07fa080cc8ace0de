/** {@link io.subetha.cxc.boot.annotation.LeaderOnly}: run a method only on the cxc leader. */
@NullMarked
package io.subetha.cxc.boot.annotation;

import org.jspecify.annotations.NullMarked;
