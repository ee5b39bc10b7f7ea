/// What became of a line queued with an acknowledgement: in the file, or not.
///
/// The server answers a push only once its line's result is known, so that no answer
/// claims a capture that did not happen (docs/capture-format.md, "Durability").
public enum CaptureWriteResult: Sendable, Hashable {
    /// The whole line was handed to the kernel with `write(2)` (and, for a file opened with
    /// `syncsEachBatch`, `fdatasync` returned).
    case written
    /// The line is not in the file, or not durably: a failed write or sync, or a file already
    /// closed.
    case failed(CaptureFileError)
}

/// Called once per acknowledged line, on the capture writer's thread, in the order the lines
/// were queued. Keep it short: hand the work to where it belongs (an event loop).
public typealias CaptureAcknowledgement = @Sendable (CaptureWriteResult) -> Void
