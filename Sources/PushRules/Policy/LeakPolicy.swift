/// Which leak detectors run, with which thresholds, on which strings.
public struct LeakPolicy: Sendable, Hashable {
    /// The detectors and their thresholds.
    public var scanner: LeakScanner
    /// Paths whose strings are not scanned (a deep-link URL checked by its own rule, say).
    public var exempt: [JSONPath]

    /// Every detector on every string by default.
    public init(scanner: LeakScanner = LeakScanner(), exempt: [JSONPath] = []) {
        self.scanner = scanner
        self.exempt = exempt
    }
}
