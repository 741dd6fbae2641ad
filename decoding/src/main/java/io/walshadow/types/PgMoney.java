package io.walshadow.types;

import java.math.BigDecimal;

/**
 * A money value: an int64 count of the smallest currency unit (cents for lc_monetary C, which has two fraction
 * digits). {@link #toString()} is cash_out under lc_monetary C: {@code $1,234.56}, {@code -$1.00}.
 */
public record PgMoney(long cents) {
    /** The amount in currency units, assuming two fraction digits (lc_monetary C and most locales). */
    public BigDecimal toBigDecimal() {
        return BigDecimal.valueOf(cents, 2);
    }

    @Override
    public String toString() {
        // cash_out with C locale conventions: frac_digits 2, grouping 3, '.', ',', symbol '$', sign '-' in front
        String digits = Long.toUnsignedString(cents < 0 ? -cents : cents); // -MIN_VALUE stays 2^63 unsigned
        StringBuilder num = new StringBuilder(digits.length() + 8);
        if (digits.length() < 3) {
            digits = "000".substring(digits.length()) + digits;
        }
        int intLen = digits.length() - 2;
        for (int i = 0; i < intLen; i++) {
            if (i > 0 && (intLen - i) % 3 == 0) {
                num.append(',');
            }
            num.append(digits.charAt(i));
        }
        num.append('.').append(digits, intLen, digits.length());
        return (cents < 0 ? "-$" : "$") + num;
    }
}
