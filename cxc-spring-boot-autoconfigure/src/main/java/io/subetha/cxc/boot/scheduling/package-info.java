/** The worker pools of the schedulers declared by {@code cxc.schedulers.*}. */
@NullMarked
package io.subetha.cxc.boot.scheduling;

import org.jspecify.annotations.NullMarked;
