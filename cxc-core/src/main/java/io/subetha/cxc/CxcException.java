package io.subetha.cxc;

/**
 * Root of every exception CXC throws on purpose. Unchecked: a coordination file that is wrong is a
 * deployment error to report, not a condition to recover from at every call site.
 */
public class CxcException extends RuntimeException {

    public CxcException(String message) {
        super(message);
    }

    public CxcException(String message, Throwable cause) {
        super(message, cause);
    }
}
