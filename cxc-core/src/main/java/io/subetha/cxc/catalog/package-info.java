/**
 * Every primitive type this library ships, listed by its {@code TYPE}: the one place above the
 * families that knows them all, for tools that open any file (the CLI's inspector, the bad-input
 * catalogue). No family imports it.
 */
@NullMarked
package io.subetha.cxc.catalog;

import org.jspecify.annotations.NullMarked;
