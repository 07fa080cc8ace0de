/** The {@code cxc} health contributor. */
@NullMarked
package io.subetha.cxc.boot.actuate.health;

import org.jspecify.annotations.NullMarked;
