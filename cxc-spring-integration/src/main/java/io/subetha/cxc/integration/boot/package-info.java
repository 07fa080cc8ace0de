/** Spring Boot auto-configuration of the cxc Spring Integration lock registry. */
@NullMarked
package io.subetha.cxc.integration.boot;

import org.jspecify.annotations.NullMarked;
