/**
 * Resolution: finding a value through layers and resolving it once. {@link
 * io.subetha.cxc.resolution.SharedAsyncPointer} (a cross-process once-cell: exactly one fetch runs
 * across every process), {@link io.subetha.cxc.resolution.KTowerCascade} (K resolver levels walked
 * in order, the first hit short-circuiting the rest, with a bounded in-process level, a shared
 * mapped-file hash level {@link io.subetha.cxc.resolution.CascadeSharedLevel} and a loader level)
 * and {@link io.subetha.cxc.resolution.SharedUniversal} (a shared set that migrates between
 * representations).
 */
@NullMarked
package io.subetha.cxc.resolution;

import org.jspecify.annotations.NullMarked;
