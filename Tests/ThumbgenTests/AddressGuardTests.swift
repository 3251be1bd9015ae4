import Testing
import Thumbgen

/// The address classes `AddressGuard` refuses by default, IPv4 and IPv6.
@Suite("AddressGuard")
struct AddressGuardTests {
    @Test("Loopback, private, link-local, CGNAT, multicast and unspecified are not public",
          arguments: ["127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255",
                      "192.168.1.1", "169.254.169.254", "100.64.0.1", "100.127.255.254", "0.0.0.0",
                      "224.0.0.1", "255.255.255.255", "::", "::1", "fe80::1", "fc00::1", "fd12::3",
                      "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254",
                      "64:ff9b::a00:1", "2002:c0a8:101::1", "not an address", ""])
    func nonPublic(address: String) {
        #expect(AddressGuard.isNonPublic(address))
    }

    @Test("Public unicast addresses pass",
          arguments: ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "192.169.0.1",
                      "2606:4700:4700::1111", "::ffff:8.8.8.8", "2a00:1450:4001::200e"])
    func isPublic(address: String) {
        #expect(!AddressGuard.isNonPublic(address))
    }
}
