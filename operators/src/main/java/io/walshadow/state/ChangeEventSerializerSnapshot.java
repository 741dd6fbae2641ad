package io.walshadow.state;

/** The transaction buffer's entry serializer snapshot as savepoints before the move name it (see the package). */
@Deprecated
public final class ChangeEventSerializerSnapshot extends io.walshadow.buffer.ChangeEventSerializerSnapshot {
    public ChangeEventSerializerSnapshot() {}
}
