/// Bytes the capture encoder may copy instead of encoding a value again.
///
/// A hint never takes part in equality or hashing: two records that differ only in hints
/// are the same record. Whoever changes the hinted value drops the hint.
struct CaptureEncodingHint: Sendable, Hashable {
    var bytes: [UInt8]?

    static func == (lhs: Self, rhs: Self) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}
