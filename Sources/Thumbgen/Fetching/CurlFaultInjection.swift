import Foundation

/// TEST ONLY. `THUMBGEN_FAULT_CURL_OPTION` names libcurl options (comma-separated, by libcurl's
/// names, with or without their `CURLOPT_` or `CURLMOPT_`) that thumbgen's setopt wrappers, and
/// nothing else, answer as unknown without asking libcurl: what a libcurl too old for them says.
/// It lets the tests reach the refusals with a libcurl that has every option. It can only make
/// thumbgen refuse a transfer or take the older equivalent of an option, never skip a check.
enum CurlFaultInjection {
    /// The names in `THUMBGEN_FAULT_CURL_OPTION`, each without `prefix` where it has it; empty
    /// when the variable is unset (always, outside tests).
    static func refusedOptions(prefix: String) -> [String] {
        guard let names = ProcessInfo.processInfo.environment["THUMBGEN_FAULT_CURL_OPTION"] else { return [] }
        return names.split(separator: ",").map { name in
            let bare = name.trimmingCharacters(in: .whitespaces)
            return bare.hasPrefix(prefix) ? String(bare.dropFirst(prefix.count)) : bare
        }
    }
}
