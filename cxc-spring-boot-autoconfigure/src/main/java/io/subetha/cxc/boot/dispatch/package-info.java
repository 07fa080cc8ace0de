/** Registers the application's {@code @PassId} handlers in the declared pass registries. */
@NullMarked
package io.subetha.cxc.boot.dispatch;

import org.jspecify.annotations.NullMarked;
