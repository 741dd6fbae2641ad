package io.walshadow.codec;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Snapshot of a serializer whose every value starts with its own format version (no payload here): a state
 * written by formats {@code oldest..current} restores as is; a newer or too old one fails with a clear message
 * before any state is read. Subclasses have a public no-argument constructor (Flink instantiates them).
 */
public abstract class FormatVersionSnapshot<T> implements TypeSerializerSnapshot<T> {
    private final String what;
    private final int currentVersion;
    private final int oldestReadableVersion;
    private int version;

    protected FormatVersionSnapshot(String what, int currentVersion, int oldestReadableVersion) {
        this.what = what;
        this.currentVersion = currentVersion;
        this.oldestReadableVersion = oldestReadableVersion;
        this.version = currentVersion;
    }

    @Override
    public int getCurrentVersion() {
        return currentVersion;
    }

    public int formatVersion() {
        return version;
    }

    @Override
    public void writeSnapshot(DataOutputView out) {
        // everything is in the version
    }

    @Override
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader) throws IOException {
        if (readVersion > currentVersion || readVersion < oldestReadableVersion) {
            throw new StateFormatException(what + " state has format version " + readVersion + "; this build reads "
                    + "versions " + oldestReadableVersion + " to " + currentVersion
                    + (readVersion > currentVersion ? " (written by a newer build: restore it with that build or a newer one)"
                            : " (restore it with an intermediate build first)"));
        }
        version = readVersion;
    }

    @Override
    public TypeSerializer<T> restoreSerializer() {
        return createSerializer();
    }

    protected abstract TypeSerializer<T> createSerializer();

    @Override
    public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(TypeSerializerSnapshot<T> oldSnapshot) {
        // a subclass: the same snapshot under the name an older build gave it (a shim kept for its savepoints)
        if (!getClass().isInstance(oldSnapshot)) {
            return TypeSerializerSchemaCompatibility.incompatible();
        }
        int v = ((FormatVersionSnapshot<T>) oldSnapshot).version;
        return v >= oldestReadableVersion && v <= currentVersion
                ? TypeSerializerSchemaCompatibility.compatibleAsIs()
                : TypeSerializerSchemaCompatibility.incompatible();
    }
}
