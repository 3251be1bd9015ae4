/// The recipes one worker holds, as the parent keeps track of them: a fixed number of slots,
/// filled in turn, which the worker fills the same way from the rows that carry a recipe
/// (`WorkerProtocol.Unit.resolved`). A row names a recipe the worker holds by its slot alone.
/// Bounded on both sides: a manifest with a recipe per row (a crop each) keeps 64, not a
/// million.
struct RecipeSlots {
    /// Slots a worker holds: more than a manifest's sizes times its formats.
    static let count = 64

    private var specs: [ThumbnailSpec?] = Array(repeating: nil, count: count)
    private var next = 0

    /// The slot of `spec`, and whether the worker must be sent it (a new recipe takes the
    /// slot filled longest ago).
    mutating func slot(for spec: ThumbnailSpec) -> (slot: Int, isNew: Bool) {
        if let found = specs.firstIndex(of: spec) { return (found, false) }
        let slot = next
        next = (next + 1) % Self.count
        specs[slot] = spec
        return (slot, true)
    }
}
