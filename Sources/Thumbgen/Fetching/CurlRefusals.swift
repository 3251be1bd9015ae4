/// libcurl options that thumbgen's setopt wrappers answer as unknown without asking libcurl, as
/// a libcurl too old for them would (`CURLE_UNKNOWN_OPTION`, `CURLM_UNKNOWN_OPTION`): the seam
/// through which tests reach the refusals and the older fallbacks with a libcurl that has every
/// option. Empty in every run; it can only make thumbgen refuse a transfer or take an option's
/// older equivalent, never skip a check.
struct CurlRefusals: Sendable, Equatable {
    /// Options of an easy handle (a transfer, a store request, the safeguards' probe).
    var easy: Set<CurlOption> = []
    /// Options of the multi handle (the transfer loop's connection limits).
    var multi: Set<CurlMultiOption> = []
}
