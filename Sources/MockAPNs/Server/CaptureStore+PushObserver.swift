extension CaptureStore: PushObserver {
    /// Records every answered push: a store of one's own, beside the server's `capture`.
    public func pushAnswered(_ request: PushRequest, details: PushDetails, outcome: PushOutcome, faults: [String]) {
        record(CaptureRecord(request: request, details: details, outcome: outcome, faults: faults))
    }
}
