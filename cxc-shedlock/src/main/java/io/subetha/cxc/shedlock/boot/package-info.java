/** Spring Boot auto-configuration of the cxc ShedLock provider. */
@NullMarked
package io.subetha.cxc.shedlock.boot;

import org.jspecify.annotations.NullMarked;
