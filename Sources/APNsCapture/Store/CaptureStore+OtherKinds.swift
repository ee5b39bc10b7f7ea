import StrictJSON

extension CaptureStore {
    /// Appends a delivery event's line to the file, after the next sequence number; the
    /// ring, its listings and its waits see only pushes. Does nothing without a file.
    ///
    /// It never touches the disk, never waits for the writer and is never dropped: it is
    /// queued as a push's line with an acknowledgement is. What bounds the backlog is the
    /// pushes' own lines, whose connections stop reading while the file is behind. The line
    /// is encoded before the lock, and copied into the writer's buffer under it.
    ///
    /// - Returns: the sequence number the line got, or nil without a file.
    @discardableResult
    package func appendToFile(_ event: CaptureDeliveryEvent) -> UInt64? {
        guard let fileWriter else { return nil }
        var buffer = TextBuffer(capacity: event.estimatedTailSize)
        event.writeTail(into: &buffer)
        let (sequence, queued) = buffer.withUnsafeBytes { tail in
            state.withLock { state in
                let sequence = state.nextSequence
                state.nextSequence += 1
                let queued = fileWriter.queueLine(acknowledgement: Self.ignoredAcknowledgement) { output in
                    CaptureRecordEncoder.writePrefix(sequence: sequence, into: &output)
                    output.append(contentsOf: tail)
                }
                return (sequence, queued)
            }
        }
        fileWriter.settle(queued)
        return sequence
    }

    /// Makes ``appendToFile(tail:)``'s line one that never waits and is never dropped.
    private static let ignoredAcknowledgement: CaptureAcknowledgement = { _ in }
}
