import Foundation

/// The parts of the page around the cards: everything up to the grid (with the summary, known
/// only at the end of the run) and everything after it.
///
/// Layout, for scripts and tests to rely on:
/// - one `input.filter` radio per filter (`#show-all`, `#show-written`, ...), before the header;
/// - `header`: `.line` (the run's summary line), `nav.filters` with one `label[data-status]
///   [data-count]` per filter (`all` counts rows; `planned` in dry runs only), `.details` with
///   `[data-seconds]`, `ul.errors > li[data-code][data-count]`, `ul.cache > li[data-cache]
///   [data-count]` (cached runs) and `ul.plan > li[data-plan][data-count]` (dry runs);
/// - `main#cards`: the cards (`ContactSheet.card(for:outputURL:)`).
extension ContactSheet {
    /// The page up to and including the opening of the grid.
    static func head(summary: RunSummary) -> String {
        var filters = [("all", summary.rows), ("written", summary.written), ("unchanged", summary.unchanged),
                       ("failed", summary.failed), ("cancelled", summary.cancelled)]
        if let plan = summary.plan {
            filters.append(("planned", plan.keep + plan.reuse + plan.render + plan.fetch))
        }
        var html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="thumbgen">
        <title>thumbgen: \(summary.rows) rows, \(summary.failed) failed</title>
        <style>
        \(style)</style>
        </head>
        <body>

        """
        for (status, _) in filters {
            html += "<input class=\"filter\" type=\"radio\" name=\"show\" id=\"show-\(status)\" value=\"\(status)\""
                + (status == "all" ? " checked" : "") + ">\n"
        }
        html += "<header>\n<h1>thumbgen contact sheet</h1>\n<p class=\"line\">\(escaped(summary.line))</p>\n"
        html += "<nav class=\"filters\" aria-label=\"Show rows\">\n"
        for (status, count) in filters {
            html += "<label for=\"show-\(status)\" data-status=\"\(status)\" data-count=\"\(count)\">"
                + "\(status) <b class=\"n\">\(count)</b></label>\n"
        }
        html += "</nav>\n<dl class=\"details\">\n"
        html += "<div><dt>time</dt><dd data-seconds=\"\(summary.seconds)\">"
            + String(format: "%.2f s", summary.seconds) + "</dd></div>\n"
        if !summary.errors.isEmpty {
            html += "<div><dt>errors</dt><dd><ul class=\"errors\">"
            for (code, count) in summary.errors.sorted(by: { $0.key < $1.key }) {
                html += "<li data-code=\"\(escaped(code))\" data-count=\"\(count)\"><code>\(escaped(code))</code>"
                    + " <b class=\"n\">\(count)</b></li>"
            }
            html += "</ul></dd></div>\n"
        }
        if let cache = summary.cache {
            html += "<div><dt>cache</dt><dd><ul class=\"cache\">"
            for (outcome, count) in [("hit", cache.hit), ("revalidated", cache.revalidated), ("miss", cache.miss)] {
                html += "<li data-cache=\"\(outcome)\" data-count=\"\(count)\">\(outcome) <b class=\"n\">\(count)</b></li>"
            }
            html += "</ul></dd></div>\n"
        }
        if let plan = summary.plan {
            html += "<div><dt>plan</dt><dd><ul class=\"plan\">"
            for (step, count) in [("keep", plan.keep), ("reuse", plan.reuse), ("render", plan.render), ("fetch", plan.fetch)] {
                html += "<li data-plan=\"\(step)\" data-count=\"\(count)\">\(step) <b class=\"n\">\(count)</b></li>"
            }
            html += "</ul></dd></div>\n"
        }
        html += "</dl>\n</header>\n<main id=\"cards\">\n"
        if summary.rows == 0 { html += "<p class=\"empty\">The manifest had no rows.</p>\n" }
        return html
    }

    /// The page after the last card.
    static let tail = "</main>\n<script>\n\(script)</script>\n</body>\n</html>\n"
}
