package io.walshadow.wal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Little-endian reads from byte arrays (WAL is written in the server's byte order: x86-64 here). */
public final class Bytes {
    private static final VarHandle I16 = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle I32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle I64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private Bytes() {}

    public static int uint8(byte[] b, int off) {
        return b[off] & 0xFF;
    }

    public static int uint16(byte[] b, int off) {
        return ((short) I16.get(b, off)) & 0xFFFF;
    }

    public static int int32(byte[] b, int off) {
        return (int) I32.get(b, off);
    }

    public static long int64(byte[] b, int off) {
        return (long) I64.get(b, off);
    }

    public static void putInt32(byte[] b, int off, int v) {
        I32.set(b, off, v);
    }

    public static void putInt64(byte[] b, int off, long v) {
        I64.set(b, off, v);
    }
}
