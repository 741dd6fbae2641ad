package io.walshadow.buffer;

import io.walshadow.codec.StateFormatException;

import io.walshadow.change.ChangeEvent;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Snapshot of {@link ChangeEventSerializer} in checkpoints and savepoints. Its version is the serializer's format
 * version ({@link ChangeEventSerializer#FORMAT_VERSION}); it has no payload.
 *
 * <ul>
 *   <li>Restoring state a build with a format this build reads wrote (same version, or an older one down to
 *       {@link ChangeEventSerializer#OLDEST_READABLE_FORMAT_VERSION}): compatible as is. Every serialized event
 *       carries its own format version, so old values are read as they are, in RocksDB too, with no migration
 *       pass; they are rewritten in the current format whenever they are written again.
 *   <li>State from a newer build (a format version above this build's), or older than this build still reads:
 *       {@link #readSnapshot} fails with a message saying so, before any state is touched.
 *   <li>State of another serializer: incompatible.
 * </ul>
 */
public class ChangeEventSerializerSnapshot implements TypeSerializerSnapshot<ChangeEvent> {
    private final int currentVersion;
    private final int oldestReadableVersion;
    /** Format version of the serializer this snapshot describes. */
    private int version;

    public ChangeEventSerializerSnapshot() {
        this(ChangeEventSerializer.FORMAT_VERSION, ChangeEventSerializer.OLDEST_READABLE_FORMAT_VERSION);
    }

    /** For a build (or a test standing in for one) whose serializer writes {@code currentVersion}. */
    protected ChangeEventSerializerSnapshot(int currentVersion, int oldestReadableVersion) {
        if (oldestReadableVersion < 1 || oldestReadableVersion > currentVersion) {
            throw new IllegalArgumentException("readable versions " + oldestReadableVersion + " to " + currentVersion);
        }
        this.currentVersion = currentVersion;
        this.oldestReadableVersion = oldestReadableVersion;
        this.version = currentVersion;
    }

    @Override
    public int getCurrentVersion() {
        return currentVersion;
    }

    /** This build's version for a new snapshot; the writer's for one read from a checkpoint. */
    public int formatVersion() {
        return version;
    }

    @Override
    public void writeSnapshot(DataOutputView out) {
        // everything is in the version
    }

    @Override
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader) throws IOException {
        if (readVersion > currentVersion) {
            throw new StateFormatException("ChangeEvent state was written by a newer build, with ChangeEvent format "
                    + "version " + readVersion + "; this build reads versions " + oldestReadableVersion + " to "
                    + currentVersion + ". Restore the savepoint with that build or a newer one (going back to an "
                    + "older build is not supported once the format changed).");
        }
        if (readVersion < oldestReadableVersion) {
            throw new StateFormatException("ChangeEvent state has format version " + readVersion + ", older than "
                    + "this build still reads (versions " + oldestReadableVersion + " to " + currentVersion + "). "
                    + "Restore it with an intermediate build first, take a savepoint there, then upgrade.");
        }
        version = readVersion;
    }

    /** A serializer of this build: it reads every readable format version, record by record. */
    @Override
    public TypeSerializer<ChangeEvent> restoreSerializer() {
        return createSerializer();
    }

    /** The serializer of this build. */
    protected TypeSerializer<ChangeEvent> createSerializer() {
        return new ChangeEventSerializer();
    }

    @Override
    public TypeSerializerSchemaCompatibility<ChangeEvent> resolveSchemaCompatibility(
            TypeSerializerSnapshot<ChangeEvent> oldSnapshot) {
        if (!(oldSnapshot instanceof ChangeEventSerializerSnapshot old)) {
            return TypeSerializerSchemaCompatibility.incompatible();
        }
        if (old.version >= oldestReadableVersion && old.version <= currentVersion) {
            return TypeSerializerSchemaCompatibility.compatibleAsIs();
        }
        return TypeSerializerSchemaCompatibility.incompatible();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{formatVersion=" + version + ", reads=" + oldestReadableVersion + ".."
                + currentVersion + "}";
    }
}
