/** The console's page and its JSON endpoints, and how a bad request is answered. */
@NullMarked
package io.subetha.cxc.console.web;

import org.jspecify.annotations.NullMarked;
