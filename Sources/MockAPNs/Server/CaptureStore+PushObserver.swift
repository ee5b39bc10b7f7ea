extension CaptureStore: PushObserver {
    /// Records every answered push.
    public func pushAnswered(_ request: PushRequest, details: PushDetails, outcome: PushOutcome, faults: [String]) {
        record(CaptureRecord(request: request, details: details, outcome: outcome, faults: faults))
    }
}
