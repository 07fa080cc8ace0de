/**
 * The console's auto-configuration: on in a servlet web application unless
 * cxc.console.enabled=false.
 */
@NullMarked
package io.subetha.cxc.console.autoconfigure;

import org.jspecify.annotations.NullMarked;
