import APNsCore

extension SimulatorForwarder: PushObserver {
    /// Queues an accepted alert push for its topic's app; every other push is not the
    /// simulator's business (background, VoIP, Live Activity and broadcast pushes included).
    /// Hears a push once its answer is final: one answered 500 because its capture line
    /// could not be written was not accepted, and must not reach the simulator.
    public var waitsForFinalAnswer: Bool { true }

    public func pushAnswered(_ request: PushRequest, details: PushDetails, outcome: PushOutcome, faults: [String]) {
        guard outcome.isAccepted, details.pushType == .alert, !details.isBroadcast, let topic = details.topic else { return }
        enqueue(bundleID: topic, payload: request.body)
    }
}
