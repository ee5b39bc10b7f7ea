extension CaptureStore {
    /// Records a channel management request: numbered in the pushes' sequence and appended
    /// to the file as a line of kind `channel`, but not kept in the ring, whose records,
    /// filters and waits are pushes. Never waits for the disk; without a file only the
    /// sequence number is used.
    ///
    /// - Returns: the line's sequence number.
    @discardableResult
    public func record(channelOperation operation: CaptureChannelOperation) -> UInt64 {
        let tail = CaptureChannelOperationEncoder.tail(operation)
        let (sequence, queued) = state.withLock { state -> (UInt64, CaptureFileWriter.QueuedLine?) in
            let sequence = state.nextSequence
            state.nextSequence += 1
            let queued = fileWriter?.queueLine { output in
                CaptureRecordEncoder.writePrefix(sequence: sequence, into: &output)
                output.append(contentsOf: tail)
            }
            return (sequence, queued)
        }
        if let queued { fileWriter?.settle(queued) }
        return sequence
    }

    /// The line ``record(channelOperation:)`` writes, newline included, for tests and tools.
    public static func encodedLine(_ operation: CaptureChannelOperation, sequence: UInt64) -> [UInt8] {
        var line: [UInt8] = []
        CaptureRecordEncoder.writePrefix(sequence: sequence, into: &line)
        line.append(contentsOf: CaptureChannelOperationEncoder.tail(operation))
        return line
    }
}
