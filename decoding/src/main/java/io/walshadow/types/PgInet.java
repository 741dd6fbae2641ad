package io.walshadow.types;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * An inet or cidr value (inet_struct): address family, netmask bits and the 4 or 16 address bytes (network
 * order). {@code cidr} says which of the two types it is, since they print differently. {@link #toString()} is
 * inet_out / cidr_out: inet omits {@code /32} ({@code /128}), cidr always shows the mask; IPv6 as
 * PostgreSQL's inet_net_ntop prints it (longest zero run as {@code ::}, embedded IPv4 forms).
 */
public record PgInet(boolean cidr, int bits, byte[] address) {
    public PgInet {
        if (address.length != 4 && address.length != 16) {
            throw new IllegalArgumentException("address of " + address.length + " bytes");
        }
        if (bits < 0 || bits > address.length * 8) {
            throw new IllegalArgumentException("netmask /" + bits + " for an IPv" + (address.length == 4 ? 4 : 6)
                    + " address");
        }
    }

    public boolean isIpv6() {
        return address.length == 16;
    }

    public InetAddress toInetAddress() {
        try {
            return InetAddress.getByAddress(address.clone());
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // unreachable: length is 4 or 16
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PgInet p && p.cidr == cidr && p.bits == bits && Arrays.equals(p.address, address);
    }

    @Override
    public int hashCode() {
        return (Boolean.hashCode(cidr) * 31 + bits) * 31 + Arrays.hashCode(address);
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder(48);
        int maxBits = address.length * 8;
        if (address.length == 4) {
            for (int i = 0; i < 4; i++) {
                if (i > 0) {
                    out.append('.');
                }
                out.append(address[i] & 0xFF);
            }
        } else {
            appendIpv6(out);
        }
        if (bits != maxBits || cidr) {
            out.append('/').append(bits);
        }
        return out.toString();
    }

    /** inet_net_ntop_ipv6 without the mask. */
    private void appendIpv6(StringBuilder out) {
        int[] words = new int[8];
        for (int i = 0; i < 16; i++) {
            words[i / 2] |= (address[i] & 0xFF) << ((1 - (i % 2)) << 3);
        }
        int bestBase = -1;
        int bestLen = 0;
        int curBase = -1;
        int curLen = 0;
        for (int i = 0; i < 8; i++) {
            if (words[i] == 0) {
                if (curBase == -1) {
                    curBase = i;
                    curLen = 1;
                } else {
                    curLen++;
                }
            } else if (curBase != -1) {
                if (bestBase == -1 || curLen > bestLen) {
                    bestBase = curBase;
                    bestLen = curLen;
                }
                curBase = -1;
            }
        }
        if (curBase != -1 && (bestBase == -1 || curLen > bestLen)) {
            bestBase = curBase;
            bestLen = curLen;
        }
        if (bestBase != -1 && bestLen < 2) {
            bestBase = -1;
        }
        for (int i = 0; i < 8; i++) {
            if (bestBase != -1 && i >= bestBase && i < bestBase + bestLen) {
                if (i == bestBase) {
                    out.append(':');
                }
                continue;
            }
            if (i != 0) {
                out.append(':');
            }
            if (i == 6 && bestBase == 0 && (bestLen == 6 || (bestLen == 7 && words[7] != 0x0001)
                    || (bestLen == 5 && words[5] == 0xffff))) {
                out.append(address[12] & 0xFF).append('.').append(address[13] & 0xFF).append('.')
                        .append(address[14] & 0xFF).append('.').append(address[15] & 0xFF);
                return; // (a trailing zero run cannot follow)
            }
            out.append(Integer.toHexString(words[i]));
        }
        if (bestBase != -1 && bestBase + bestLen == 8) {
            out.append(':');
        }
    }
}
