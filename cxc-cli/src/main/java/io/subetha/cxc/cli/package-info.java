/**
 * The {@code cxc} command line: {@code inspect}, {@code watch} and {@code verify} cxc files without
 * starting the application that owns them, as Aeron's AeronStat reads a CnC file.
 *
 * <p><b>Read-only, always.</b> Every file is mapped read-only through {@link
 * io.subetha.cxc.primitive.PrimitiveType#open(java.nio.file.Path,
 * io.subetha.cxc.mmf.CxcFileOptions) PrimitiveType.open} with read-only options, or read with a
 * plain read; nothing is ever written, registered, joined or created, so the tool needs only read
 * permission and works on files of another user whose mode allows reading.
 */
@NullMarked
package io.subetha.cxc.cli;

import org.jspecify.annotations.NullMarked;
