package io.walshadow.types;

import io.walshadow.wal.Bytes;
import java.nio.charset.Charset;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * {@code tsquery} ({@code tsearch/ts_type.h}, {@code utils/adt/tsquery.c}), decoded from its on-disk form into the
 * text {@code tsqueryout} prints: operands quoted (a quote or backslash in them doubled), followed by {@code :},
 * {@code *} for a prefix match and the weights {@code ABCD}; operators {@code !}, {@code &}, {@code |},
 * {@code <->} and {@code <N>}, with {@code ( ... )} where a child binds looser than its parent, or where a phrase is
 * the right operand of a phrase (a phrase depends on order).
 *
 * <p>Layout after the varlena header: {@code int32 size}, {@code size} 12-byte QueryItems in polish (prefix) order,
 * then the operands as NUL-terminated strings. An operand item: {@code int8 type = 1}, {@code uint8 weight} (bit 3
 * A .. bit 0 D), {@code bool prefix}, pad, {@code int32 valcrc}, {@code uint32} with {@code length} in bits 0-11 and
 * its offset in the operand area in bits 12-31. An operator item: {@code int8 type = 2}, {@code int8 oper} (1 NOT,
 * 2 AND, 3 OR, 4 PHRASE), {@code int16 distance} (phrase), {@code uint32 left}: its right operand is the next item,
 * its left operand {@code left} items on. Unchanged through PostgreSQL 18.
 */
final class TsQuery {
    private static final int ITEM = 12;
    private static final int QI_VAL = 1;
    private static final int QI_OPR = 2;
    private static final int OP_NOT = 1;
    private static final int OP_PHRASE = 4;
    /** tsearch_op_priority, by oper - 1: NOT binds tightest, then phrase, AND, OR. */
    private static final int[] PRIORITY = {4, 2, 1, 3};

    private TsQuery() {}

    static String text(byte[] b, int o, int l, Charset cs) {
        if (l < 4) {
            throw new MalformedDatumException("tsquery of " + l + " bytes");
        }
        int size = Bytes.int32(b, o);
        if (size < 0 || 4L + (long) ITEM * size > l) {
            throw new MalformedDatumException("tsquery of " + l + " bytes claims " + size + " items");
        }
        if (size == 0) {
            return ""; // a query of stop words only
        }
        int items = o + 4;
        int operands = items + ITEM * size;
        int operandsLen = o + l - operands;
        int[] left = tree(b, items, size);
        StringBuilder out = new StringBuilder();
        // infix() of tsquery.c, with an explicit stack: a left-deep query of thousands of operands nests that deep
        Deque<Object> todo = new ArrayDeque<>();
        todo.push(new Visit(0, -1, false));
        while (!todo.isEmpty()) {
            Object next = todo.pop();
            if (next instanceof String s) {
                out.append(s);
                continue;
            }
            Visit v = (Visit) next;
            int p = items + ITEM * v.item;
            if (b[p] == QI_VAL) {
                operand(out, b, p, operands, operandsLen, cs);
                continue;
            }
            int oper = b[p + 1];
            int priority = PRIORITY[oper - 1];
            if (oper == OP_NOT) {
                boolean parens = priority < v.parentPriority;
                // pushed in reverse: "( " "!" child " )"
                if (parens) {
                    todo.push(" )");
                }
                todo.push(new Visit(v.item + 1, priority, false));
                out.append(parens ? "( !" : "!");
                continue;
            }
            boolean parens = priority < v.parentPriority || (oper == OP_PHRASE && v.rightPhraseOp);
            String op = switch (oper) {
                case 2 -> " & ";
                case 3 -> " | ";
                default -> {
                    int distance = (short) Bytes.uint16(b, p + 2);
                    yield distance == 1 ? " <-> " : " <" + distance + "> ";
                }
            };
            if (parens) {
                todo.push(" )");
                out.append("( ");
            }
            todo.push(new Visit(v.item + 1, priority, oper == OP_PHRASE)); // right operand: the next item
            todo.push(op);
            todo.push(new Visit(left[v.item], priority, false));
        }
        return out.toString();
    }

    private record Visit(int item, int parentPriority, boolean rightPhraseOp) {}

    /**
     * Checks that the items form one tree in polish order and returns each binary operator's left operand: reading
     * the items backwards, an operand is a finished subtree; an operator takes its right subtree (the most recent,
     * which must start right after it) and, unless NOT, its left one. The stored {@code left} offsets must agree.
     */
    private static int[] tree(byte[] b, int items, int size) {
        int[] left = new int[size];
        int[] stack = new int[size];
        int depth = 0;
        for (int i = size - 1; i >= 0; i--) {
            int p = items + ITEM * i;
            int type = b[p];
            if (type == QI_VAL) {
                stack[depth++] = i;
                continue;
            }
            if (type != QI_OPR) {
                throw new MalformedDatumException("tsquery item " + i + " of type " + type);
            }
            int oper = b[p + 1];
            if (oper < OP_NOT || oper > OP_PHRASE) {
                throw new MalformedDatumException("tsquery item " + i + " with operator " + oper);
            }
            int arity = oper == OP_NOT ? 1 : 2;
            if (depth < arity || stack[depth - 1] != i + 1) {
                throw new MalformedDatumException("tsquery operator " + i + " without its operands");
            }
            depth--;
            if (arity == 2) {
                int l = stack[--depth];
                if (Integer.toUnsignedLong(Bytes.int32(b, p + 4)) != l - i) {
                    throw new MalformedDatumException("tsquery operator " + i + " points to its left operand at +"
                            + Integer.toUnsignedString(Bytes.int32(b, p + 4)) + ", the tree has it at +" + (l - i));
                }
                left[i] = l;
            }
            stack[depth++] = i;
        }
        if (depth != 1) {
            throw new MalformedDatumException("tsquery of " + size + " items holds " + depth + " trees");
        }
        return left;
    }

    private static void operand(StringBuilder out, byte[] b, int p, int operands, int operandsLen, Charset cs) {
        int weight = b[p + 1] & 0xFF;
        boolean prefix = b[p + 2] != 0;
        int bits = Bytes.int32(b, p + 8);
        int len = bits & 0xFFF;
        int at = bits >>> 12;
        if ((long) at + len >= operandsLen || b[operands + at + len] != 0) {
            throw new MalformedDatumException("tsquery operand at " + at + "+" + len + " not NUL-terminated within its "
                    + operandsLen + "-byte operand area");
        }
        if (weight > 0xF) {
            throw new MalformedDatumException("tsquery operand weight bitmap " + weight);
        }
        out.append('\'');
        for (char c : new String(b, operands + at, len, cs).toCharArray()) {
            if (c == '\'' || c == '\\') {
                out.append(c);
            }
            out.append(c);
        }
        out.append('\'');
        if (weight != 0 || prefix) {
            out.append(':');
            if (prefix) {
                out.append('*');
            }
            for (int bit = 3; bit >= 0; bit--) {
                if ((weight & (1 << bit)) != 0) {
                    out.append("DCBA".charAt(bit));
                }
            }
        }
    }
}
