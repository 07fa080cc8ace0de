package io.subetha.cxc.boot;

/**
 * One item of a declared fan-out, as its {@link FanoutHandler} gets it.
 *
 * @param item the item
 * @param priority the level it was taken from, 0..7 (higher first)
 * @param attempt 1 for the first time this process handles it, then one more for each time its
 *     handler threw here (the fan-out's slots keep no count: another process starts again at 1)
 * @param <T> the items
 */
public record FanoutItem<T>(T item, int priority, int attempt) {}
