package io.walshadow.types;

import io.walshadow.wal.Bytes;

/**
 * The contrib isn types (contrib/isn/isn.h, isn.c) into their number without hyphens: what {@code isn_out} /
 * {@code ean13_out} print with the hyphens taken out ({@code replace(v::text, '-', '')}). The datum is an int64
 * {@code ean13}: the 13-digit EAN (check digit included, always the correct one: the input fixes it) shifted left by
 * one, the low bit set when the input's check digit was wrong (accepted in weak mode, or marked with {@code !}), which
 * the output prints as a trailing {@code !}.
 *
 * <p>Hyphens are left out: {@code isn.c} places them by per-prefix range tables (EAN13.h, ISBN.h, ...) that record
 * registration agencies' ranges and change between releases; the digits are the identity. The types printed in the
 * long form (ean13, isbn13, ismn13, issn13: {@code ean13_out}) are the 13 digits. The short ones (isbn, ismn, issn,
 * upc: {@code isn_out}) print the old short form where the EAN's prefix has one ({@code ean2string}'s
 * {@code shortType}; every prefix these types can hold, 0 and 977 to 979, is in its EAN13 table):
 * <ul>
 * <li>978: ISBN-10, the 9 digits after the prefix and their mod-11 check digit ({@code X} for 10);
 * <li>977: ISSN, the 7 digits after the prefix and their mod-11 check digit, without {@code !} ({@code ean2ISSN}
 *     truncates it);
 * <li>9790: ISMN, {@code M} and the 9 digits after the prefix;
 * <li>0: UPC, the 12 digits after the leading 0, without {@code !} ({@code ean2UPC} keeps digits only);
 * <li>other prefixes (979 ISBN-13s among them): the 13 digits.
 * </ul>
 */
final class IsnCodec {
    /** The largest EAN: 13 digits. */
    private static final long MAX_EAN = 9_999_999_999_999L;

    private IsnCodec() {}

    /** ean13, isbn13, ismn13, issn13. */
    static final TypeCodec LONG = TypeCodec.of((b, o, l) -> text(b, o, l, false), String.class);
    /** isbn, ismn, issn, upc. */
    static final TypeCodec SHORT = TypeCodec.of((b, o, l) -> text(b, o, l, true), String.class);

    static String text(byte[] b, int o, int l, boolean shortForm) {
        if (l != 8) {
            throw new MalformedDatumException("ean13 of " + l + " bytes, expected 8");
        }
        return text(Bytes.int64(b, o), shortForm);
    }

    static String text(long datum, boolean shortForm) {
        long ean = datum >>> 1;
        if (ean > MAX_EAN) {
            // ean2string refuses it too ("out of range")
            throw new MalformedDatumException("ean13 value " + Long.toUnsignedString(ean) + " has more than 13 digits");
        }
        String bang = (datum & 1) != 0 ? "!" : "";
        String d = String.format("%013d", ean);
        if (!shortForm) {
            return d + bang;
        }
        if (d.startsWith("978")) {
            return d.substring(3, 12) + weightCheck(d, 3, 9) + bang;
        }
        if (d.startsWith("977")) {
            return d.substring(3, 10) + weightCheck(d, 3, 7);
        }
        if (d.startsWith("9790")) {
            return "M" + d.substring(4) + bang;
        }
        if (d.charAt(0) == '0') {
            return d.substring(1);
        }
        return d + bang;
    }

    /**
     * isn.c's {@code weight_checkdig}: {@code n} digits from {@code from} weighted n+1 down to 2, the check digit the
     * sum needs to be a multiple of 11; 10 prints as {@code X}.
     */
    private static char weightCheck(String d, int from, int n) {
        int weight = 0;
        for (int i = 0; i < n; i++) {
            weight += (n + 1 - i) * (d.charAt(from + i) - '0');
        }
        weight %= 11;
        int check = weight == 0 ? 0 : 11 - weight;
        return check == 10 ? 'X' : (char) ('0' + check);
    }

    /** SQL for what the decoder prints of an isn value: its text output without the hyphens. */
    static String withoutHyphens(String value) {
        return "pg_catalog.replace((" + value + ")::pg_catalog.text, '-', '')";
    }
}
