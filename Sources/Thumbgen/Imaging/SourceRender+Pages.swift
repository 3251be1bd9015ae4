/// Opening the pages a source's rows ask for (`page`): each once, each with its own header.
extension SourceRender {
    /// The pages the `open` rows ask for, opened, by number (counted from 1). The file is
    /// sniffed and its first page opened once, for all of them; a failure there throws, ending
    /// every row. A page that then cannot be opened (one past the end, one over the pixel
    /// limit) fails only the rows that ask for it, into `failures`.
    func openPages(_ path: String, rows: [Row], open: [Int],
                   failures: inout [(Int, Result<PreparedRow, ThumbnailFailure>)])
        throws(ImagingError) -> [Int: SourceDecoder.OpenedSource] {
        let sniffed = try decoder.sniff(path: path)
        let wanted = Set(open.map { rows[$0].spec.page })
        // The first page alone, as every source but a multi-page one's rows ask: its failure is
        // every row's, as it always was.
        if wanted == [1] { return [1: try decoder.open(page: 1, of: sniffed)] }
        var pages: [Int: SourceDecoder.OpenedSource] = [:]
        for page in wanted.sorted() {
            do {
                pages[page] = try decoder.open(page: page, of: sniffed)
            } catch {
                for index in open where rows[index].spec.page == page {
                    failures.append((index, .failure(.imaging(error, src: rows[index].sourceText, stage: .decodeFailed))))
                }
            }
        }
        return pages
    }

    /// What the source turned out to be, for the rows of the page `header` describes.
    static func facts(of header: ImageHeader, bytes: Int64) -> Facts {
        Facts(bytes: bytes, width: header.orientedWidth, height: header.orientedHeight,
              format: header.loader.replacingOccurrences(of: "load", with: ""), frames: header.frames)
    }
}
