/**
 * The {@code cxc} actuator endpoint: the election, the participants and every registered primitive.
 */
@NullMarked
package io.subetha.cxc.boot.actuate.endpoint;

import org.jspecify.annotations.NullMarked;
