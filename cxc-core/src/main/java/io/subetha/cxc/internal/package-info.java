/**
 * Not API: seams and helpers the primitives share that applications must not depend on. Anything
 * here may change in any release.
 */
@NullMarked
package io.subetha.cxc.internal;

import org.jspecify.annotations.NullMarked;
