import APNsCore
import StrictJSON

/// What the ring keeps of one record: its line, and the fields filters match on.
///
/// A record is built again from its line only when someone asks for it (a query, a wait),
/// which happens for a few records in a test and never on the push path: building every
/// record up front, and freeing it when the ring drops it, cost more than encoding the line.
///
/// The line's bytes and the filter keys share one allocation (``CaptureLineStorage``), so
/// that the ring, the waiters and a query's results hold an entry for one retain, and the
/// entry the ring drops is one release.
struct CaptureEntry: @unchecked Sendable {
    // Unchecked: the storage is never changed after `CaptureLineStorage.make` returns.
    let sequence: UInt64
    private let storage: CaptureLineStorage

    /// An entry for record `sequence`, whose tail (everything after `{"v":1,"seq":N,`
    /// through the newline, ``CaptureRecordEncoder/writeTail(_:into:)``) and keys are in `storage`.
    init(sequence: UInt64, storage: CaptureLineStorage) {
        self.sequence = sequence
        self.storage = storage
    }

    /// The fields filters look at.
    var keys: CaptureFilter.Keys { storage.keys }

    /// The record the line holds.
    ///
    /// - Throws: only if the line does not decode, which would be a bug in the encoder
    ///   (every line is written by it, and tests check that each field round-trips).
    func record() throws(CaptureDecodingError) -> CaptureRecord {
        var line: [UInt8] = []
        write(into: &line)
        return try CaptureRecordDecoder.decode(line)
    }

    /// Appends the whole line, newline included.
    func write(into output: inout [UInt8]) {
        storage.withTail { tail in
            output.reserveCapacity(output.count + tail.count + 32)
            CaptureRecordEncoder.writePrefix(sequence: sequence, into: &output)
            output.append(contentsOf: tail)
        }
    }
}
