extension Duration {
    /// The duration in seconds, as the report, the events and the progress line print it.
    /// `package`, not public: the CLI shares it, library users keep `Duration` as they know it.
    package var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in milliseconds, as a row's stage times hold it (computed from the parts,
    /// not from `inSeconds`, so that no rounding is added on the way).
    package var inMilliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
