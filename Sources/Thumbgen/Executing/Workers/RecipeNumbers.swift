import Synchronization

/// The numbers a run gives its recipes for the worker protocol (`WorkerProtocol.UnitRow`):
/// equal recipes, equal numbers, for the life of the process.
final class RecipeNumbers: Sendable {
    /// The process's numbering.
    static let shared = RecipeNumbers()

    private let numbers = Mutex<[ThumbnailSpec: Int]>([:])

    /// The number of `spec`, given now if it has none.
    func number(of spec: ThumbnailSpec) -> Int {
        numbers.withLock { numbers in
            if let known = numbers[spec] { return known }
            let number = numbers.count
            numbers[spec] = number
            return number
        }
    }
}
