package io.walshadow.xact;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Test-only: builds little-endian main data the way PostgreSQL's XLogRegisterData calls lay it out. */
final class MainData {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    MainData i8(int v) {
        out.write(v);
        return this;
    }

    MainData i16(int v) {
        out.write(v);
        out.write(v >>> 8);
        return this;
    }

    MainData i32(int v) {
        for (int i = 0; i < 4; i++) {
            out.write(v >>> (8 * i));
        }
        return this;
    }

    MainData i64(long v) {
        for (int i = 0; i < 8; i++) {
            out.write((int) (v >>> (8 * i)));
        }
        return this;
    }

    MainData bytes(byte[] b) {
        out.write(b, 0, b.length);
        return this;
    }

    MainData cstring(String s) {
        bytes(s.getBytes(StandardCharsets.UTF_8));
        return i8(0);
    }

    MainData zeros(int n) {
        for (int i = 0; i < n; i++) {
            out.write(0);
        }
        return this;
    }

    /** Zero padding up to a multiple of 8 from the start. */
    MainData maxalign() {
        return zeros(-out.size() & 7);
    }

    MainData rel(int spc, int db, int rel) {
        return i32(spc).i32(db).i32(rel);
    }

    MainData stat(int kind, int db, int obj) {
        return i32(kind).i32(db).i32(obj);
    }

    /** A 16-byte message: id, 3 bytes of (garbage) padding, two words, 4 bytes of padding. */
    MainData inval(int id, int w1, int w2) {
        return i8(id).i8(0x7E).i8(0x7E).i8(0x7E).i32(w1).i32(w2).i32(0x7E7E7E7E);
    }

    MainData smgrInval(int backendHi, int backendLo, int spc, int db, int rel) {
        return i8(InvalidationMessage.SMGR_ID).i8(backendHi).i16(backendLo).i32(spc).i32(db).i32(rel);
    }

    int size() {
        return out.size();
    }

    byte[] toBytes() {
        return out.toByteArray();
    }
}
