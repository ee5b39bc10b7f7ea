/// Where fault probabilities get their random numbers: uniform in `0..<1`.
///
/// Tests inject a fixed sequence so that a rule with probability 0.5 fires exactly when
/// they expect. The source is called with the fault engine's lock held, so it needs no
/// locking of its own, and must not call back into the engine.
public struct FaultRandomSource: Sendable {
    private let next: @Sendable () -> Double

    /// A source that returns `next()` each time; values should lie in `0..<1`.
    public init(_ next: @escaping @Sendable () -> Double) {
        self.next = next
    }

    /// The system's random number generator.
    public static let system = FaultRandomSource { Double.random(in: 0..<1) }

    /// The next number in `0..<1`.
    public func nextUnit() -> Double { next() }
}
