import Foundation

/// One row's card: the output at display size with its facts, or a box saying why there is
/// none (a failure's code and message, or what `--dry-run` plans).
///
/// Every card carries `data-row` and `data-status`; a failure also `data-code`, a planned row
/// `data-plan`, an output `data-format` and `data-cache`, its image `data-width` and
/// `data-height`. The page's script sorts cards by `data-row`; the filters and tests pick them
/// out by these attributes without reading prose.
extension ContactSheet {
    /// The card for `result`; `outputURL` is the relative URL of the output folder, ending in `/`.
    static func card(for result: RowResult, outputURL: String) -> String {
        let status = result.status.rawValue
        let id = escaped(result.id)
        var html = "<figure class=\"card\" id=\"row-\(result.row)\" data-row=\"\(result.row)\" data-status=\"\(status)\""
        if let plan = result.plan { html += " data-plan=\"\(plan.rawValue)\"" }
        if let format = result.format { html += " data-format=\"\(format.rawValue)\"" }
        if let cache = result.cache { html += " data-cache=\"\(cache.rawValue)\"" }
        if let out = result.out, hasOutput(result) {
            let url = outputURL + encodedPath(out)
            html += "><a class=\"pic\" href=\"\(url)\"><img src=\"\(url)\" alt=\"\(id)\""
            if let width = result.width, let height = result.height {
                // Reserves the box before the image arrives, so the grid does not jump.
                html += " width=\"\(width)\" height=\"\(height)\" data-width=\"\(width)\" data-height=\"\(height)\""
            }
            html += "></a>"
        } else if let error = result.error {
            let code = escaped(error.code.rawValue)
            html += " data-code=\"\(code)\"><div class=\"why\"><p class=\"code\">\(code)</p>"
                + "<p class=\"message\">\(escaped(error.message))</p></div>"
        } else {
            let plan = result.plan?.rawValue ?? status
            html += "><div class=\"why\"><p class=\"code\">\(plan)</p>"
                + "<p class=\"message\">\(planText[plan] ?? "no output")</p></div>"
        }
        html += "<figcaption><p class=\"id\" title=\"\(id)\">\(id)</p><p class=\"row\">row \(result.row)</p>"
        if !hasOutput(result) {
            html += "<p class=\"src\" title=\"\(escaped(result.src))\">\(escaped(result.src))</p>"
        }
        if let out = result.out {
            html += "<p class=\"out\" title=\"\(escaped(out))\">\(escaped(out))</p>"
        }
        html += facts(result)
        html += "<p class=\"tags\"><span class=\"tag status\">\(status)</span>"
        if let cache = result.cache { html += " <span class=\"tag cache\">\(cache.rawValue)</span>" }
        return html + "</p></figcaption></figure>\n"
    }

    /// Whether the row's output is in place to be shown: written, unchanged, or (a dry run)
    /// already there.
    private static func hasOutput(_ result: RowResult) -> Bool {
        result.status == .written || result.status == .unchanged
            || (result.status == .planned && result.plan == .keep)
    }

    /// `W×H · 7.9 KiB · JPEG`, as far as known.
    private static func facts(_ result: RowResult) -> String {
        var facts: [String] = []
        if let width = result.width, let height = result.height {
            facts.append("<span class=\"dims\">\(width)×\(height)</span>")
        }
        if let bytes = result.bytes {
            facts.append("<span class=\"bytes\" data-bytes=\"\(bytes)\" title=\"\(bytes) bytes\">\(readableBytes(bytes))</span>")
        }
        if let format = result.format {
            facts.append("<span class=\"format\">\(format.rawValue.uppercased())</span>")
        }
        return facts.isEmpty ? "" : "<p class=\"facts\">" + facts.joined(separator: " · ") + "</p>"
    }

    /// What a dry run's plan means, for the box that stands in for an output not yet made.
    private static let planText = [
        "reuse": "would be copied from the cache",
        "render": "would be decoded and rendered",
        "fetch": "would be fetched, then rendered unless the cache has the output",
        "cancelled": "interrupted before it finished",
    ]
}
