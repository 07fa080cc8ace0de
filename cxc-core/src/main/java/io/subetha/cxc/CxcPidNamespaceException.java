package io.subetha.cxc;

/**
 * The file was created in another PID namespace (another container). PIDs only compare within one
 * namespace, so sharing the file would silently allow two leaders: refuse instead.
 */
public class CxcPidNamespaceException extends CxcException {

    public CxcPidNamespaceException(String message) {
        super(message);
    }
}
