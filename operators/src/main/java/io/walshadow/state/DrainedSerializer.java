package io.walshadow.state;

/** Holds the snapshot name of the TOAST stage's held-for-seed state in savepoints before the move (see the package). */
@Deprecated
public final class DrainedSerializer {
    private DrainedSerializer() {}

    /** {@code io.walshadow.state.DrainedSerializer$Snapshot}, as those savepoints name it. */
    @Deprecated
    public static final class Snapshot extends io.walshadow.buffer.DrainedSerializer.Snapshot {
        public Snapshot() {}
    }
}
