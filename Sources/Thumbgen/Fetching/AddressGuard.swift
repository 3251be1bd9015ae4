import Foundation

/// Decides whether thumbgen may talk to an IP address: by default only public unicast ones.
///
/// Checked by libcurl's pre-request hook on the address actually connected (so DNS tricks and
/// redirects cannot slip past it), for every connection, IPv4 and IPv6 alike.
public enum AddressGuard {
    /// Whether `address` (textual IPv4 or IPv6) is loopback, private, link-local, CGNAT,
    /// multicast, unspecified or otherwise not a public unicast address. Unparseable text counts
    /// as not public.
    public static func isNonPublic(_ address: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            let b = withUnsafeBytes(of: v4.s_addr) { Array($0) }
            return isNonPublicIPv4(b)
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return true }
        let b = withUnsafeBytes(of: v6) { Array($0) }
        // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) forms: judge the IPv4.
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xff && b[11] == 0xff {
            return isNonPublicIPv4(Array(b[12..<16]))
        }
        if b[0..<12].allSatisfy({ $0 == 0 }) {
            return true  // ::, ::1 and the deprecated IPv4-compatible forms
        }
        if b[0] == 0xff { return true }                          // multicast ff00::/8
        if b[0] == 0xfe && (b[1] & 0xc0) == 0x80 { return true } // link-local fe80::/10
        if b[0] == 0xfe && (b[1] & 0xc0) == 0xc0 { return true } // site-local fec0::/10
        if (b[0] & 0xfe) == 0xfc { return true }                 // unique local fc00::/7
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8 { return true } // docs
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b {
            return isNonPublicIPv4(Array(b[12..<16]))            // NAT64 64:ff9b::/96
        }
        if b[0] == 0x20 && b[1] == 0x02 {
            return isNonPublicIPv4(Array(b[2..<6]))              // 6to4 2002::/16
        }
        return false
    }

    private static func isNonPublicIPv4(_ b: [UInt8]) -> Bool {
        switch (b[0], b[1]) {
        case (0, _), (10, _), (127, _): return true             // this network, private, loopback
        case (100, 64...127): return true                       // CGNAT 100.64/10
        case (169, 254): return true                            // link-local
        case (172, 16...31): return true                        // private
        case (192, 168): return true                            // private
        case (192, 0) where b[2] == 0 || b[2] == 2: return true // IETF, TEST-NET-1
        case (198, 18...19): return true                        // benchmarking
        case (198, 51) where b[2] == 100: return true           // TEST-NET-2
        case (203, 0) where b[2] == 113: return true            // TEST-NET-3
        default: return b[0] >= 224                             // multicast, reserved, broadcast
        }
    }
}
