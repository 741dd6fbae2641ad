package io.walshadow.types;

/** A type resolved to what decoding needs: storage length and alignment, and its codec. */
final class ResolvedType {
    final int oid;
    final String name;
    /** -1 varlena, -2 cstring, 0 a raw datum of the column's length, else fixed length. */
    final int typlen;
    final char typalign;
    final TypeCodec codec;
    /** typdelim: what separates this type's elements in an array's text form (',' but for box, ';'). */
    final char typdelim;

    ResolvedType(int oid, String name, int typlen, char typalign, TypeCodec codec) {
        this(oid, name, typlen, typalign, codec, ',');
    }

    ResolvedType(int oid, String name, int typlen, char typalign, TypeCodec codec, char typdelim) {
        this.oid = oid;
        this.name = name;
        this.typlen = typlen;
        this.typalign = typalign;
        this.codec = codec;
        this.typdelim = typdelim;
    }

    /** The same storage and codec under another type's oid and name (domains). */
    ResolvedType as(int otherOid, String otherName) {
        return new ResolvedType(otherOid, otherName, typlen, typalign, codec, typdelim);
    }

    /** Bytes the datum at {@code off} occupies (att_addlength_pointer), checked against {@code avail}. */
    int datumSize(byte[] b, int off, int avail) {
        if (typlen > 0) {
            if (avail < typlen) {
                throw new MalformedDatumException(name + ": " + typlen + "-byte value but only " + avail
                        + " byte(s) available");
            }
            return typlen;
        }
        if (typlen == -1) {
            return Varlena.sizeAny(b, off, avail);
        }
        return cstringLength(b, off, avail, true) + 1;
    }

    /**
     * Decodes the datum occupying exactly {@code b[off, off+size)} (as {@link #datumSize} measured it, or as the
     * tuple deformer sliced it); a varlena may be short-header, inline-compressed, or an external TOAST pointer
     * (returned as {@link ToastPointer}).
     */
    Object decodeDatum(byte[] b, int off, int size) {
        if (typlen == 0) {
            return codec.decode(b, off, size); // a raw fixed-length datum: its length is the column's
        }
        if (typlen > 0) {
            if (size != typlen) {
                throw new MalformedDatumException(name + ": expected " + typlen + " bytes, got " + size);
            }
            return codec.decode(b, off, typlen);
        }
        if (typlen == -1) {
            int vsize = Varlena.sizeAny(b, off, size);
            if (vsize != size) {
                throw new MalformedDatumException(name + ": varlena header says " + vsize + " bytes, datum has "
                        + size);
            }
            Object p = Varlena.payload(b, off, size);
            if (p instanceof ToastPointer) {
                return p;
            }
            Datum d = (Datum) p;
            return codec.decode(d.buf(), d.off(), d.len());
        }
        int n = cstringLength(b, off, size, false); // the slice may end at the NUL or include it
        return codec.decode(b, off, n);
    }

    private int cstringLength(byte[] b, int off, int avail, boolean requireNul) {
        for (int i = 0; i < avail; i++) {
            if (b[off + i] == 0) {
                return i;
            }
        }
        if (!requireNul) {
            return avail;
        }
        throw new MalformedDatumException(name + ": unterminated cstring");
    }

    /** Aligns {@code pos} to {@code align} ('c', 's', 'i', 'd') relative to {@code base}, an aligned address. */
    static int align(int pos, char align, int base) {
        int a = switch (align) {
            case 'c' -> 1;
            case 's' -> 2;
            case 'i' -> 4;
            case 'd' -> 8;
            default -> throw new MalformedDatumException("unknown alignment '" + align + "'");
        };
        int rel = pos - base;
        return base + ((rel + a - 1) & -a);
    }

    @Override
    public String toString() {
        return name + " (oid " + Integer.toUnsignedString(oid) + ")";
    }
}
