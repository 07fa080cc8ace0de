package io.subetha.cxc.primitive;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.catalog.PrimitiveCatalog;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The registry of kind codes: a code is part of the file format. */
class PrimitiveKindsTest {

    @Test
    void codesAreUniqueAndNeverARetiredOne() {
        Set<Integer> codes = new HashSet<>();
        for (PrimitiveKinds.Kind kind : PrimitiveKinds.all()) {
            assertThat(codes.add(kind.code())).as("code %d given twice", kind.code()).isTrue();
            assertThat(PrimitiveKinds.RETIRED).doesNotContain(kind.code());
        }
    }

    @Test
    void everyCodeLiesInItsFamilysRange() {
        for (PrimitiveKinds.Kind kind : PrimitiveKinds.all()) {
            assertThat(kind.family().contains(kind.code()))
                    .as("%s (code %d) in %s", kind, kind.code(), kind.family())
                    .isTrue();
            assertThat(kind.family()).isNotEqualTo(PrimitiveKinds.TEST);
        }
    }

    @Test
    void familyRangesDoNotOverlap() {
        List<PrimitiveKinds.Family> families = PrimitiveKinds.FAMILIES;
        for (int i = 0; i < families.size(); i++) {
            for (int j = i + 1; j < families.size(); j++) {
                PrimitiveKinds.Family a = families.get(i);
                PrimitiveKinds.Family b = families.get(j);
                assertThat(a.overlaps(b)).as("%s and %s overlap", a, b).isFalse();
            }
        }
    }

    @Test
    void everyTypesOpsLiveInItsFamilysPackage() {
        for (PrimitiveType<?, ?> type : PrimitiveCatalog.TYPES) {
            assertThat(type.opKinds().getPackageName())
                    .as("%s", type.kind())
                    .isEqualTo(type.kind().family().packageName());
        }
    }

    /** The first five codes are fixed forever: files in the field carry them. */
    @Test
    void theFirstWavesCodesKeepTheirNumbers() {
        assertThat(PrimitiveKinds.LEADER_ELECTION.code()).isEqualTo(1);
        assertThat(PrimitiveKinds.HEARTBEAT_TABLE.code()).isEqualTo(2);
        assertThat(PrimitiveKinds.FAILOVER_WATCHDOG.code()).isEqualTo(3);
        assertThat(PrimitiveKinds.EPOCH_BARRIER.code()).isEqualTo(4);
        assertThat(PrimitiveKinds.FENCED_LEDGER.code()).isEqualTo(5);
    }

    @Test
    void everyKindHasItsTypeAndTheTypeNamesItsKind() {
        assertThat(PrimitiveCatalog.TYPES).hasSameSizeAs(PrimitiveKinds.all());
        assertThat(PrimitiveCatalog.TYPES)
                .extracting(PrimitiveType::kind)
                .containsExactlyElementsOf(PrimitiveKinds.all());
        for (PrimitiveKinds.Kind kind : PrimitiveKinds.all()) {
            PrimitiveType<?, ?> type = PrimitiveCatalog.typeOf(kind);
            assertThat(type.kind()).isSameAs(kind);
            assertThat(type.ops()).as("%s counts ops", kind).isNotEmpty();
        }
    }

    @Test
    void everyKindIsKnownByCodeAndName() {
        for (PrimitiveKinds.Kind kind : PrimitiveKinds.all()) {
            assertThat(PrimitiveKinds.ofCode(kind.code())).containsSame(kind);
            assertThat(PrimitiveKinds.nameOf(kind.code())).contains(kind.name());
        }
        assertThat(PrimitiveKinds.ofCode(999)).isEmpty();
    }
}
