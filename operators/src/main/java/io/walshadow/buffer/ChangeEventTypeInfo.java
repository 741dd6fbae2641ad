package io.walshadow.buffer;

import io.walshadow.change.ChangeEvent;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * TypeInformation of change-event streams ({@code .returns(ChangeEventTypeInfo.INSTANCE)}, state descriptors):
 * serialized with {@link ChangeEventSerializer}, never Kryo.
 */
public final class ChangeEventTypeInfo {
    public static final TypeInformation<ChangeEvent> INSTANCE = ChangeEventSerializer.typeInfo();

    private ChangeEventTypeInfo() {}
}
