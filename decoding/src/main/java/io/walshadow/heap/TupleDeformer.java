package io.walshadow.heap;

import static io.walshadow.heap.HeapDecodeException.Kind.DESCRIPTOR_MISMATCH;
import static io.walshadow.heap.HeapDecodeException.Kind.MALFORMED_TUPLE;
import static io.walshadow.heap.HeapDecodeException.Kind.UNRESOLVED_MISSING_VALUE;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.heap.DeformedRow.Source;
import java.util.List;

/**
 * {@code heap_deform_tuple} (heaptuple.c) over a {@link HeapTuple} and a {@link RelationDescriptor}, producing raw
 * datum slices instead of Datums:
 *
 * <ul>
 *   <li>an attribute is NULL when HEAP_HASNULL is set and its bit in t_bits is clear;
 *   <li>fixed-length attributes (attlen &gt; 0) start at {@code att_align_nominal(off, attalign)};
 *   <li>varlenas (attlen -1) start at {@code att_align_pointer}: unaligned when the byte at the current offset is
 *       nonzero (a 1-byte header; pad bytes are always zero), else aligned; their length is {@code VARSIZE_ANY};
 *   <li>cstrings (attlen -2) run to their NUL, inclusive;
 *   <li>attributes past the tuple's natts take the column's attmissingval, or NULL ({@code getmissingattr});
 *   <li>dropped columns still occupy their position (their attlen/attalign are kept in pg_attribute) but are
 *       reported as {@link Source#DROPPED}.
 * </ul>
 *
 * <p>Stricter than PostgreSQL where a difference means a wrong descriptor rather than a valid tuple: a tuple
 * with more attributes than the descriptor, or bytes left over after the last attribute, is refused
 * ({@code DESCRIPTOR_MISMATCH}) instead of being silently cut; a varlena header that is not a stored form or runs
 * past the tuple is {@code MALFORMED_TUPLE}; a tuple that needs a missing value the catalog could not load is
 * {@code UNRESOLVED_MISSING_VALUE}. Errors name the tuple's record LSN and the descriptor's relation.
 */
public final class TupleDeformer {
    private TupleDeformer() {}

    public static DeformedRow deform(HeapTuple t, RelationDescriptor d) {
        List<Column> columns = d.columns();
        int descNatts = columns.size();
        int tupNatts = t.natts();
        if (tupNatts > descNatts) {
            throw fail(DESCRIPTOR_MISMATCH, t, d, "tuple has " + tupNatts + " attributes, descriptor of "
                    + d.qualifiedName() + " only " + descNatts + " (catalog older than the tuple?)");
        }
        Source[] sources = new Source[descNatts];
        int[] offsets = new int[descNatts];
        int[] lengths = new int[descNatts];
        byte[] b = t.buffer();
        final int base = t.dataOffset();
        final int dataLen = t.dataLength();
        int off = 0;
        for (int i = 0; i < tupNatts; i++) {
            Column c = columns.get(i);
            if (c.attnum() != i + 1) {
                throw fail(DESCRIPTOR_MISMATCH, t, d, "descriptor column " + i + " has attnum " + c.attnum());
            }
            if (t.attIsNull(i)) {
                sources[i] = c.dropped() ? Source.DROPPED : Source.NULL;
                offsets[i] = -1;
                lengths[i] = -1;
                continue;
            }
            int attlen = c.attlen();
            int len;
            if (attlen > 0) {
                off = alignNominal(off, c.attalign(), t, d, c);
                len = attlen;
                if (off + len > dataLen) {
                    throw fail(DESCRIPTOR_MISMATCH, t, d, attName(c) + " (attlen " + attlen + ") at data offset "
                            + off + " runs past the tuple's " + dataLen + " data bytes");
                }
            } else if (attlen == -1) {
                if (off >= dataLen || b[base + off] == 0) {
                    off = alignNominal(off, c.attalign(), t, d, c);
                }
                if (off >= dataLen) {
                    throw fail(DESCRIPTOR_MISMATCH, t, d, attName(c) + " (varlena) starts at data offset " + off
                            + ", past the tuple's " + dataLen + " data bytes");
                }
                len = VarlenaHeader.size(b, base + off, dataLen - off);
                if (len < 0) {
                    throw fail(MALFORMED_TUPLE, t, d, String.format("%s: varlena header 0x%02X%s at data offset %d"
                                    + " is not a stored form or runs past the tuple's %d data bytes", attName(c),
                            b[base + off] & 0xFF, off + 1 < dataLen ? String.format(" 0x%02X", b[base + off + 1] & 0xFF)
                                    : "", off, dataLen));
                }
            } else if (attlen == -2) {
                off = alignNominal(off, c.attalign(), t, d, c);
                int nul = -1;
                for (int p = base + off, end = base + dataLen; p < end; p++) {
                    if (b[p] == 0) {
                        nul = p;
                        break;
                    }
                }
                if (off >= dataLen || nul < 0) {
                    throw fail(MALFORMED_TUPLE, t, d, attName(c) + " (cstring) at data offset " + off
                            + " has no terminating NUL within the tuple");
                }
                len = nul - (base + off) + 1;
            } else {
                throw fail(DESCRIPTOR_MISMATCH, t, d, attName(c) + " has invalid attlen " + attlen);
            }
            sources[i] = c.dropped() ? Source.DROPPED : Source.TUPLE;
            offsets[i] = c.dropped() ? -1 : base + off;
            lengths[i] = c.dropped() ? -1 : len;
            off += len;
        }
        if (off != dataLen) {
            throw fail(DESCRIPTOR_MISMATCH, t, d, "the " + tupNatts + " attributes end at data offset " + off
                    + ", but the tuple has " + dataLen + " data bytes");
        }
        for (int i = tupNatts; i < descNatts; i++) {
            Column c = columns.get(i);
            if (c.attnum() != i + 1) {
                throw fail(DESCRIPTOR_MISMATCH, t, d, "descriptor column " + i + " has attnum " + c.attnum());
            }
            offsets[i] = -1;
            lengths[i] = -1;
            byte[] mv = c.missingValue();
            if (c.dropped()) {
                sources[i] = Source.DROPPED;
            } else if (mv == null) {
                sources[i] = Source.NULL;
            } else {
                checkMissingValue(t, d, c, mv);
                sources[i] = Source.MISSING_VALUE;
                offsets[i] = 0;
                lengths[i] = mv.length;
            }
        }
        return new DeformedRow(d, t, sources, offsets, lengths);
    }

    /** An attmissingval must be exactly one stored datum of the column's type; anything else fails closed. */
    private static void checkMissingValue(HeapTuple t, RelationDescriptor d, Column c, byte[] mv) {
        // Column.UNRESOLVED_MISSING is a zero-length marker; no stored datum is zero bytes long either.
        if (c.missingValueUnresolved() || mv.length == 0) {
            throw fail(UNRESOLVED_MISSING_VALUE, t, d, attName(c) + " is not in the tuple (natts " + t.natts()
                    + ") and its attmissingval could not be loaded");
        }
        int attlen = c.attlen();
        boolean ok = attlen > 0 ? mv.length == attlen
                : attlen == -1 ? VarlenaHeader.size(mv, 0, mv.length) == mv.length
                : attlen == -2 && mv[mv.length - 1] == 0;
        if (!ok) {
            throw fail(DESCRIPTOR_MISMATCH, t, d, attName(c) + " attmissingval of " + mv.length
                    + " bytes is not one stored datum of attlen " + attlen);
        }
    }

    /** att_align_nominal: 'c' 1, 's' 2, 'i' 4, 'd' 8 (offsets relative to the MAXALIGNed data start). */
    static int alignNominal(int off, char attalign, HeapTuple t, RelationDescriptor d, Column c) {
        return switch (attalign) {
            case 'c' -> off;
            case 's' -> (off + 1) & ~1;
            case 'i' -> (off + 3) & ~3;
            case 'd' -> (off + 7) & ~7;
            default -> throw fail(DESCRIPTOR_MISMATCH, t, d, attName(c) + " has invalid attalign '" + attalign + "'");
        };
    }

    private static String attName(Column c) {
        return "attribute " + c.attnum() + " (" + (c.dropped() ? "dropped" : c.name()) + ")";
    }

    private static HeapDecodeException fail(HeapDecodeException.Kind kind, HeapTuple t, RelationDescriptor d,
                                            String detail) {
        return new HeapDecodeException(kind, t.lsn(), d.locator(), detail);
    }
}
