/** Spring Integration's leader events from cxc's leadership events. */
@NullMarked
package io.subetha.cxc.boot.integration;

import org.jspecify.annotations.NullMarked;
