/// One captured line as a query or a wait hands it out: a copy of the ring's bytes, taken
/// under the store's lock, so it stays valid after the ring has moved on.
///
/// A record is built again from its line only when someone asks for it (a query, a wait),
/// which happens for a few records in a test and never on the push path: building every
/// record up front, and freeing it when the ring drops it, cost more than encoding the line.
package struct CaptureEntry: Sendable {
    package let sequence: UInt64
    /// Everything after `{"v":2,"seq":N,` through the newline
    /// (``CaptureRecordEncoder/writeTail(_:into:)``).
    private let tail: [UInt8]

    /// A copy of the entry `view` shows.
    init(_ view: CaptureEntryView) {
        sequence = view.sequence
        tail = Array(view.tail)
    }

    /// The record the line holds.
    ///
    /// - Throws: only if the line does not decode, which would be a bug in the encoder
    ///   (every line is written by it, and tests check that each field round-trips).
    func record() throws(CaptureDecodingError) -> CaptureRecord {
        var line: [UInt8] = []
        line.reserveCapacity(byteCount)
        write(into: &line)
        return try CaptureRecordDecoder.decode(line)
    }

    /// At least the bytes ``write(into:)`` appends: the tail and room for the prefix.
    package var byteCount: Int { tail.count + 32 }

    /// Appends the whole line, newline included. It reserves nothing: a caller writing many
    /// entries reserves their ``byteCount``s once, since reserving each one's exact room
    /// made every append copy all written before (a listing of 10,000 took seconds).
    package func write(into output: inout [UInt8]) {
        CaptureRecordEncoder.writePrefix(sequence: sequence, into: &output)
        output.append(contentsOf: tail)
    }
}
