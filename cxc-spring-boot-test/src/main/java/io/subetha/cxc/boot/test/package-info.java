/**
 * Test support: {@link io.subetha.cxc.boot.test.AutoConfigureCxc} for application tests that must
 * not take leadership from the application running on the same host.
 */
@NullMarked
package io.subetha.cxc.boot.test;

import org.jspecify.annotations.NullMarked;
