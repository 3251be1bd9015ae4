/// The page's inline style sheet: no fonts or files from anywhere else, light and dark.
extension ContactSheet {
    /// The whole `<style>` content.
    static var style: String { baseStyle + filterStyle }

    /// Layout: a header, then cards in a wrapping row. A card is as wide as its image (the
    /// caption does not widen it: `width: 0; min-width: 100%`), so outputs show at their own
    /// size unless the window is narrower.
    private static let baseStyle = """
    :root { color-scheme: light dark; --fg: #1d1d1f; --muted: #6e6e73; --bg: #f5f5f7; --card: #fff;
      --line: #d2d2d7; --accent: #0a64d8; --bad: #c4271b; --bad-bg: #fdecea; --off: #8a6d00; --off-bg: #fff6d6; --plan-bg: #e8f0fc; }
    @media (prefers-color-scheme: dark) {
      :root { --fg: #f5f5f7; --muted: #a1a1a6; --bg: #1c1c1e; --card: #2c2c2e; --line: #48484a;
        --accent: #5ea8ff; --bad: #ff8a80; --bad-bg: #3a1f1d; --off: #f0cf65; --off-bg: #3a3320; --plan-bg: #1d2a3d; }
    }
    * { box-sizing: border-box; }
    body { margin: 0; padding: 1rem 1.25rem 3rem; background: var(--bg); color: var(--fg);
      font: 14px/1.4 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; }
    h1 { font-size: 1.25rem; margin: 0 0 .25rem; }
    header { margin-bottom: 1rem; }
    .line { margin: 0 0 .75rem; color: var(--muted); }
    .filters { display: flex; flex-wrap: wrap; gap: .5rem; margin-bottom: .75rem; }
    .filters label { cursor: pointer; padding: .3rem .8rem; border: 1px solid var(--line); border-radius: 999px;
      background: var(--card); user-select: none; }
    .filters label b { margin-left: .3rem; }
    .filters label[data-count="0"] { opacity: .55; }
    .filter { position: absolute; opacity: 0; pointer-events: none; }
    .details { display: flex; flex-wrap: wrap; gap: .25rem 2rem; margin: 0; color: var(--muted); }
    .details div { display: flex; gap: .5rem; }
    .details dt::after { content: ":"; }
    .details dd { margin: 0; }
    .details ul { display: inline; margin: 0; padding: 0; list-style: none; }
    .details li { display: inline; margin-right: .75rem; }
    main { display: flex; flex-wrap: wrap; align-items: flex-start; gap: 1rem; }
    .card { margin: 0; min-width: 11rem; max-width: 100%; background: var(--card); border: 1px solid var(--line);
      border-radius: 8px; overflow: hidden; }
    .pic { display: flex; justify-content: center;
      background: repeating-conic-gradient(#8882 0% 25%, transparent 0% 50%) 0 0 / 16px 16px; }
    .pic img { display: block; max-width: 100%; height: auto; }
    figcaption { width: 0; min-width: 100%; padding: .5rem .6rem .6rem; }
    figcaption p { margin: 0; overflow-wrap: anywhere; }
    .id { font-weight: 600; }
    .row, .out, .src, .facts { color: var(--muted); font-size: .9em; }
    .out, .src { font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
    .tags { margin-top: .35rem !important; }
    .tag { display: inline-block; padding: 0 .45rem; border-radius: 4px; font-size: .85em; border: 1px solid var(--line); }
    .card[data-status="written"] .status { color: var(--accent); border-color: currentColor; }
    .card[data-status="failed"] .why { background: var(--bad-bg); color: var(--bad); }
    .card[data-status="cancelled"] .why { background: var(--off-bg); color: var(--off); }
    .card[data-status="failed"] .status { color: var(--bad); border-color: currentColor; }
    .why { width: 18rem; max-width: 100%; padding: .75rem .6rem; min-height: 5rem; }
    .card[data-status="planned"] .why { background: var(--plan-bg); color: var(--accent); }
    .why p { margin: 0; overflow-wrap: anywhere; }
    .code { font: 600 1em ui-monospace, "DejaVu Sans Mono", monospace; margin-bottom: .3rem !important; }
    .empty { color: var(--muted); }

    """

    /// One rule per status: its radio hides every other card and marks its own label. Plain
    /// sibling selectors (the radios come before the header and the cards), so the filter
    /// works in any browser, without script.
    private static var filterStyle: String {
        let statuses = RowResult.Status.allCases.map(\.rawValue)
        let filters = ["all"] + statuses
        var css = statuses.map { "#show-\($0):checked ~ main .card:not([data-status=\"\($0)\"])" }
            .joined(separator: ",\n") + " { display: none; }\n"
        css += filters.map { "#show-\($0):checked ~ header label[for=\"show-\($0)\"]" }
            .joined(separator: ",\n") + " { background: var(--accent); border-color: var(--accent); color: #fff; }\n"
        css += filters.map { "#show-\($0):focus-visible ~ header label[for=\"show-\($0)\"]" }
            .joined(separator: ",\n") + " { outline: 2px solid var(--accent); outline-offset: 2px; }\n"
        return css
    }
}
