import APNsCapture

/// What `GET /pushes` or `GET /pushes/wait` answered, record by record.
///
/// For a caller that treats records differently by what is wrong with them: a damaged
/// record (``CaptureDecodingError/Kind/malformed``) is an error, while one of a newer format
/// version or another kind may be skipped, as docs/capture-format.md allows.
/// ``MockControlClient/pushes(matching:limit:)`` instead fails on either.
public struct PushListing: Sendable {
    /// Each record of the answer, oldest first: decoded, or why it did not decode.
    public let results: [Result<CaptureRecord, CaptureDecodingError>]
    /// False only for a wait that timed out (`408`) with these records; true otherwise.
    public let satisfied: Bool
    /// The URL the answer came from, query included, for messages about its records.
    public let url: String
    /// The request, such as `GET /pushes`, for error messages.
    let request: String

    /// The records that decoded.
    public var records: [CaptureRecord] {
        results.compactMap { try? $0.get() }
    }
}
