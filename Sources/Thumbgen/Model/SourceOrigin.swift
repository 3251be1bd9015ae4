/// Where a row's source bytes came from in this run: the report's cache outcome and `thumbgen
/// warm`'s classification are made from it.
enum SourceOrigin: Sendable, Equatable {
    /// A local file.
    case local
    /// A URL source whose stored body was fresh: no request was made.
    case stored
    /// A URL source whose stored body the server confirmed (`304`).
    case revalidated
    /// A URL source whose body was fetched in full.
    case fetched
}
