package io.subetha.cxc.scheduling;

/**
 * The last failure of a {@code FAILED} job, as its worker reported it: the exception's class name
 * and message, cut together to at most {@value BackgroundSchedulerDescriptor#FAILURE_TEXT_MAX}
 * bytes of UTF-8 (the message first gives way).
 */
public record JobFailure(String exceptionClass, String message) {}
