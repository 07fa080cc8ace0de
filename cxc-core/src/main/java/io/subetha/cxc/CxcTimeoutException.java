package io.subetha.cxc;

/** A bounded wait ran out: the message says what was awaited and who did not arrive. */
public class CxcTimeoutException extends CxcException {

    public CxcTimeoutException(String message) {
        super(message);
    }
}
