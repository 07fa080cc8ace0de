package io.subetha.cxc.boot;

/**
 * One item of a declared fan-out, as its {@link FanoutHandler} gets it.
 *
 * @param item the item
 * @param priority the level it was taken from, 0..7 (higher first)
 * @param attempt 1 the first time any process handles it, then one more each time it was returned
 *     to its level (its handler threw, or its process died or went silent) and taken again, in
 *     whichever process: the count is kept in the fan-out's file beside the item
 * @param <T> the items
 */
public record FanoutItem<T>(T item, int priority, int attempt) {}
