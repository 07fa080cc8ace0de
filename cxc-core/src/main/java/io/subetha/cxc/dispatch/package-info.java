/**
 * Dispatch: call a handler in the process that owns it, from any process. {@link
 * io.subetha.cxc.dispatch.PassRegistry} keeps pass ids, their owners (through the one ownership
 * block) and a mailbox per pass in one mapped file; handlers never leave the process that
 * registered them.
 */
@NullMarked
package io.subetha.cxc.dispatch;

import org.jspecify.annotations.NullMarked;
