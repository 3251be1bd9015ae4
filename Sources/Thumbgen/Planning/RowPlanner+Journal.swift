import Foundation

/// The planner's fast path: a local row whose source, records and output the warm journal
/// vouches for is planned `keep` on `stat`s alone, the very plan the slow path would make
/// (`WarmJournal` says why it is safe). A row it does not vouch for still gets its source's
/// digest from the journal when the source is unchanged, and goes the usual way from there.
extension RowPlanner {
    /// The plan of a local row with the journal's help; nil when the journal does not know
    /// the source as it is now (then the slow path plans it).
    func journalPlan(_ request: ThumbnailRequest, path: String, stat info: stat, plan: RowPlan,
                     memo: inout LocalSourceMemo) -> RowPlan? {
        guard let journal,
              let source = memo.journalSource(path: path, { journal.source(path: path, stamp: FileStamp(info)) })
        else { return nil }
        var plan = plan
        plan.cachedSource = .stampUnchanged
        plan.sourceDigest = source.digest
        let key = OutputKey(sourceDigest: source.digest, request: request, strictness: limits.strictness,
                            recent: &memo.recipes)
        if outputDirectory != nil,
           let vouched = journal.output(of: request, source: source, sourcePath: path, key: key,
                                        placeholder: readsPlaceholders, unlessOwing: fillsPlaceholders) {
            plan.key = key
            plan.cached = .present
            plan.output = vouched.record
            plan.path = vouched.path
            plan.outHolds = true
            plan.action = .keep
            return plan
        }
        return planOutput(request, plan, key: key, source: journal.writes ? journal.facts(of: source) : nil)
    }

    /// What the journal keeps of a local source identified by its `files` row, which generation
    /// `written` wrote; nil when no journal is written, or the row is not in the database yet
    /// (`written` 0: hashed by this run, still to be written).
    func journalSource(path: String, stat info: stat, digest: String, written: Int64) -> JournalSource? {
        guard journal?.writes == true, written != 0, let digestBytes = JournalFormat.raw(hex: digest) else { return nil }
        return JournalSource(path: path, stamp: FileStamp(info), digest: digestBytes, written: written)
    }
}
