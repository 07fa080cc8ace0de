package io.subetha.cxc;

/** A primitive is full, or was opened with a capacity other than the one it was created with. */
public class CxcCapacityException extends CxcException {

    public CxcCapacityException(String message) {
        super(message);
    }
}
