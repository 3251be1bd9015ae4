import Foundation

/// A row's priority; it sets the `queuePriority` of all the row's operations.
public enum Priority: String, Sendable, CaseIterable, Codable, Comparable {
    case veryLow = "very-low", low, normal, high, veryHigh = "very-high"

    /// The matching `Operation` priority.
    public var queuePriority: Operation.QueuePriority {
        switch self {
        case .veryLow: return .veryLow
        case .low: return .low
        case .normal: return .normal
        case .high: return .high
        case .veryHigh: return .veryHigh
        }
    }

    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 2 }

    /// Orders priorities from lowest to highest.
    public static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rank < rhs.rank }
}
