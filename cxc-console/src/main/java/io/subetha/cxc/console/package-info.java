/**
 * The operations console: one page, served by the application, that shows who leads, who is alive,
 * who holds which lease and every job, read from the starter's beans and the primitives' read-only
 * views.
 */
@NullMarked
package io.subetha.cxc.console;

import org.jspecify.annotations.NullMarked;
