package io.subetha.cxc.badinput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.eventlog.EventStateLog;
import io.subetha.cxc.eventlog.EventStateLogDescriptor;
import io.subetha.cxc.fanout.PriorityFanout;
import io.subetha.cxc.fanout.PriorityFanoutDescriptor;
import io.subetha.cxc.mmf.HeaderDescriptor;
import io.subetha.cxc.resolution.CascadeSharedLevel;
import io.subetha.cxc.resolution.SharedUniversal;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import io.subetha.cxc.scheduling.BackgroundSchedulerDescriptor;
import io.subetha.cxc.testing.SizedCodec;
import io.subetha.cxc.versioned.SharedVersionedChain;
import io.subetha.cxc.versioned.SharedVersionedChainDescriptor;
import org.junit.jupiter.api.Test;

/**
 * Settings each inside its documented range whose product is more than one file's body holds: the
 * settings record refuses them, naming the setting that multiplies, the values and the limit,
 * instead of a raw {@link IllegalArgumentException} from create.
 */
class SettingsBeyondOneFileTest {

    static final String LIMIT = String.valueOf(HeaderDescriptor.MAX_BODY_LENGTH);

    @Test
    void aSchedulerOfTheLargestCapacityAndPayloadsIsRefusedBySettings() {
        var big = new SizedCodec(BackgroundSchedulerDescriptor.MAX_PAYLOAD);
        assertThatThrownBy(
                        () ->
                                new BackgroundScheduler.Settings<>(
                                        BackgroundSchedulerDescriptor.MAX_CAPACITY, big, big))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("capacity " + BackgroundSchedulerDescriptor.MAX_CAPACITY)
                .hasMessageContaining(BackgroundSchedulerDescriptor.MAX_PAYLOAD + "-byte jobs")
                .hasMessageContaining(LIMIT)
                .extracting(e -> ((CxcSettingsException) e).setting())
                .isEqualTo("capacity");
        // The largest capacity with small jobs still fits.
        assertThat(
                        new BackgroundScheduler.Settings<>(
                                        BackgroundSchedulerDescriptor.MAX_CAPACITY,
                                        FixedCodec.INT64,
                                        FixedCodec.INT64)
                                .capacity())
                .isEqualTo(BackgroundSchedulerDescriptor.MAX_CAPACITY);
    }

    @Test
    void anEventLogOfTheLargestCapacityAndPayloadsIsRefusedBySettings() {
        var big = new SizedCodec(EventStateLogDescriptor.MAX_PAYLOAD);
        assertThatThrownBy(
                        () ->
                                new EventStateLog.Settings<>(
                                        EventStateLogDescriptor.MAX_CAPACITY, big, big, 0L))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("capacity " + EventStateLogDescriptor.MAX_CAPACITY)
                .hasMessageContaining(EventStateLogDescriptor.MAX_PAYLOAD + "-byte events")
                .hasMessageContaining(LIMIT)
                .extracting(e -> ((CxcSettingsException) e).setting())
                .isEqualTo("capacity");
        assertThat(
                        new EventStateLog.Settings<>(
                                        EventStateLogDescriptor.MAX_CAPACITY,
                                        FixedCodec.INT64,
                                        FixedCodec.INT64,
                                        0L)
                                .capacity())
                .isEqualTo(EventStateLogDescriptor.MAX_CAPACITY);
    }

    @Test
    void aFanoutOfTheLargestCapacityAndPayloadIsRefusedBySettings() {
        var big = new SizedCodec(PriorityFanoutDescriptor.MAX_PAYLOAD);
        assertThatThrownBy(
                        () ->
                                new PriorityFanout.Settings<>(
                                        PriorityFanoutDescriptor.MAX_CAPACITY_PER_PRIORITY, big))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining(
                        "capacityPerPriority " + PriorityFanoutDescriptor.MAX_CAPACITY_PER_PRIORITY)
                .hasMessageContaining(PriorityFanoutDescriptor.MAX_PAYLOAD + "-byte items")
                .hasMessageContaining(LIMIT)
                .extracting(e -> ((CxcSettingsException) e).setting())
                .isEqualTo("capacityPerPriority");
        assertThat(
                        new PriorityFanout.Settings<>(
                                        PriorityFanoutDescriptor.MAX_CAPACITY_PER_PRIORITY,
                                        FixedCodec.INT64)
                                .capacityPerPriority())
                .isEqualTo(PriorityFanoutDescriptor.MAX_CAPACITY_PER_PRIORITY);
    }

    @Test
    void aVersionedChainRetainingTheMostOfTheLargestValuesIsRefusedBySettings() {
        var big = new SizedCodec(SharedVersionedChainDescriptor.MAX_VALUE_SIZE);
        int most = SharedVersionedChainDescriptor.MAX_RETAINED;
        assertThatThrownBy(() -> new SharedVersionedChain.Settings<>(most, big))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("retained " + most)
                .hasMessageContaining(
                        SharedVersionedChainDescriptor.MAX_VALUE_SIZE + "-byte values")
                .hasMessageContaining(LIMIT)
                .extracting(e -> ((CxcSettingsException) e).setting())
                .isEqualTo("retained");
        assertThat(new SharedVersionedChain.Settings<>(most, FixedCodec.INT64).retained())
                .isEqualTo(most);
    }

    @Test
    void aCascadeLevelOfTheLargestCapacityAndPayloadsIsRefusedBySettings() {
        var big = new SizedCodec(CascadeSharedLevel.MAX_PAYLOAD_BYTES);
        int most = CascadeSharedLevel.MAX_CAPACITY;
        assertThatThrownBy(() -> new CascadeSharedLevel.Settings<>(most, big, big))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("capacity " + most)
                .hasMessageContaining(CascadeSharedLevel.MAX_PAYLOAD_BYTES + "-byte keys")
                .hasMessageContaining(LIMIT)
                .extracting(e -> ((CxcSettingsException) e).setting())
                .isEqualTo("capacity");
        assertThat(
                        new CascadeSharedLevel.Settings<>(most, FixedCodec.INT64, FixedCodec.INT64)
                                .capacity())
                .isEqualTo(most);
    }

    @Test
    void aUniversalOfTheLargestCapacityAndKeysIsRefusedBySettings() {
        var big = new SizedCodec(SharedUniversal.MAX_KEY_BYTES);
        int most = SharedUniversal.MAX_CAPACITY;
        assertThatThrownBy(() -> new SharedUniversal.Settings<>(most, big))
                .isInstanceOf(CxcSettingsException.class)
                .hasMessageContaining("capacity " + most)
                .hasMessageContaining(SharedUniversal.MAX_KEY_BYTES + "-byte keys")
                .hasMessageContaining(LIMIT)
                .extracting(e -> ((CxcSettingsException) e).setting())
                .isEqualTo("capacity");
        assertThat(new SharedUniversal.Settings<>(most, FixedCodec.INT64).capacity())
                .isEqualTo(most);
    }
}
