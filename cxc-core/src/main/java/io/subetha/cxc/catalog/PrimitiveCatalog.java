package io.subetha.cxc.catalog;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.collections.SharedLinkedList;
import io.subetha.cxc.collections.SharedVec;
import io.subetha.cxc.dispatch.PassRegistry;
import io.subetha.cxc.election.FencedLedger;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.eventlog.NamedReaders;
import io.subetha.cxc.fanout.PriorityFanout;
import io.subetha.cxc.fanout.ProgressTask;
import io.subetha.cxc.graph.SharedGraph;
import io.subetha.cxc.graph.SharedTopologyMap;
import io.subetha.cxc.internal.MappedFiles;
import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.liveness.EpochBarrier;
import io.subetha.cxc.liveness.FailoverWatchdog;
import io.subetha.cxc.liveness.HeartbeatTable;
import io.subetha.cxc.mmf.CxcFileOptions;
import io.subetha.cxc.mmf.FileHeader;
import io.subetha.cxc.primitive.PrimitiveKinds;
import io.subetha.cxc.primitive.PrimitiveType;
import io.subetha.cxc.primitive.PrimitiveView;
import io.subetha.cxc.region.SharedRegion;
import io.subetha.cxc.resolution.CascadeSharedLevel;
import io.subetha.cxc.resolution.SharedAsyncPointer;
import io.subetha.cxc.resolution.SharedUniversal;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.values.SharedNaNTaggedValue;
import io.subetha.cxc.values.SharedNaNValue;
import io.subetha.cxc.versioned.SharedTimePointTile;
import io.subetha.cxc.versioned.SharedVersionedChain;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every {@link PrimitiveType} this library ships, in kind-code order: what the inspector and the
 * bad-input catalogue open files through. A new primitive adds its {@code TYPE} here, once; the
 * class fails to load if a kind of {@link PrimitiveKinds} has no type or two types share a kind.
 */
public final class PrimitiveCatalog {

    /** Every type, in kind-code order. */
    public static final List<PrimitiveType<?, ?>> TYPES =
            List.of(
                    SharedLeaderElection.TYPE,
                    HeartbeatTable.TYPE,
                    FailoverWatchdog.TYPE,
                    EpochBarrier.TYPE,
                    FencedLedger.TYPE,
                    OwnerLease.TYPE,
                    EventStateLog.TYPE,
                    SharedVersionedChain.TYPE,
                    SharedTimePointTile.TYPE,
                    NamedReaders.TYPE,
                    PriorityFanout.TYPE,
                    ProgressTask.TYPE,
                    BackgroundScheduler.TYPE,
                    SharedGraph.TYPE,
                    SharedTopologyMap.TYPE,
                    CascadeSharedLevel.TYPE,
                    SharedAsyncPointer.TYPE,
                    SharedUniversal.TYPE,
                    SharedRegion.TYPE,
                    SharedNaNValue.TYPE,
                    SharedNaNTaggedValue.TYPE,
                    SharedVec.TYPE,
                    SharedLinkedList.TYPE,
                    PassRegistry.TYPE);

    private static final Map<PrimitiveKinds.Kind, PrimitiveType<?, ?>> BY_KIND = index();

    private PrimitiveCatalog() {}

    private static Map<PrimitiveKinds.Kind, PrimitiveType<?, ?>> index() {
        Map<PrimitiveKinds.Kind, PrimitiveType<?, ?>> byKind = new LinkedHashMap<>();
        for (PrimitiveType<?, ?> type : TYPES) {
            if (byKind.put(type.kind(), type) != null) {
                throw new ExceptionInInitializerError("two types of kind " + type.kind());
            }
        }
        for (PrimitiveKinds.Kind kind : PrimitiveKinds.all()) {
            if (!byKind.containsKey(kind)) {
                throw new ExceptionInInitializerError("kind " + kind + " has no type listed");
            }
        }
        return byKind;
    }

    /** The type of {@code kind}. */
    public static PrimitiveType<?, ?> typeOf(PrimitiveKinds.Kind kind) {
        PrimitiveType<?, ?> type = BY_KIND.get(kind);
        if (type == null) {
            throw new IllegalArgumentException(
                    "kind " + kind + " is not one of this library's; its types are " + TYPES);
        }
        return type;
    }

    /** The type whose kind has {@code code}, if this library knows it. */
    public static Optional<PrimitiveType<?, ?>> ofCode(int code) {
        return PrimitiveKinds.ofCode(code).map(BY_KIND::get);
    }

    /**
     * Reads the common header of whatever file {@code path} holds, with one plain read and no
     * mapping, checking nothing but its size: for tools that report on a file before (or instead
     * of) opening it. Its magic, checksum and marker say whether it is a sound cxc header.
     *
     * @throws io.subetha.cxc.CxcException if the file cannot be read or is shorter than a header
     */
    public static FileHeader readHeader(Path path) {
        return MappedFiles.readHeader(path);
    }

    /**
     * Opens whatever cxc file {@code path} holds, by the kind its header names, as an observer's
     * view.
     *
     * @throws CxcFormatException if the file is no cxc file, its kind is unknown, or it fails its
     *     kind's checks
     */
    public static PrimitiveView observe(Path path, CxcFileOptions options) {
        int code = MappedFiles.readHeader(path).kindCode();
        return ofCode(code)
                .orElseThrow(
                        () ->
                                new CxcFormatException(
                                        "cannot open "
                                                + path
                                                + " as a cxc file: it holds an unknown kind (code "
                                                + Integer.toUnsignedString(code)
                                                + "): a newer CXC release wrote it, or its header"
                                                + " is corrupt. The file was left untouched."))
                .observe(path, options);
    }
}
