/// Bytes the capture encoder may copy instead of encoding a value again.
///
/// A hint never takes part in equality or hashing: two records that differ only in hints
/// are the same record. Whoever changes the hinted value drops the hint.
package struct CaptureEncodingHint: Sendable, Hashable {
    package var bytes: [UInt8]?

    package init(bytes: [UInt8]? = nil) {
        self.bytes = bytes
    }

    package static func == (lhs: Self, rhs: Self) -> Bool { true }
    package func hash(into hasher: inout Hasher) {}
}
