extension CaptureDeliveryEvent {
    /// The line, newline included, without `"seq"`: for events read from the control API's
    /// delivery log, which numbers none (push-inspect's `delivery --from --json`).
    package func encodedLineWithoutSequence() -> [UInt8] {
        Array("{\"\(CaptureFormat.Key.version)\":\(CaptureFormat.version),".utf8) + encodedTail()
    }
}
