/**
 * Collections in a mapped file, shared by every process on the host: {@link
 * io.subetha.cxc.collections.SharedVec} (indexed, push and pop at the end) and {@link
 * io.subetha.cxc.collections.SharedLinkedList} (push and pop at both ends). Elements are
 * codec-typed, fixed-size and inline; writers take an {@link io.subetha.cxc.claim.IntentLock} (a
 * dead writer's half-done step is replayed by the next), readers read without locking and never see
 * a half-written element.
 */
@NullMarked
package io.subetha.cxc.collections;

import org.jspecify.annotations.NullMarked;
