package io.subetha.cxc;

/**
 * The file system refused or did not offer what CXC needs: a missing file or directory, a directory
 * or symbolic link where a file should be, no permission, an I/O failure.
 */
public class CxcFileAccessException extends CxcException {

    public CxcFileAccessException(String message) {
        super(message);
    }

    public CxcFileAccessException(String message, Throwable cause) {
        super(message, cause);
    }
}
