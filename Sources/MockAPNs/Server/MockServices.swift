import APNsCore
import Synchronization

/// Everything the listeners share: the current validator, id generator, metrics,
/// observers and stream policy. The registry can be replaced while serving.
final class MockServices: Sendable {
    private let current: Mutex<PushValidator>
    let ids = APNsIDGenerator()
    let metrics: PushMetrics
    let observers: [any PushObserver]
    let streamPolicy: StreamLimitPolicy

    init(validator: PushValidator, metrics: PushMetrics, observers: [any PushObserver], streamPolicy: StreamLimitPolicy) {
        current = Mutex(validator)
        self.metrics = metrics
        self.observers = observers
        self.streamPolicy = streamPolicy
    }

    /// The validator for the next push.
    var validator: PushValidator { current.withLock { $0 } }

    /// Swaps in a validator built from a new registry; pushes in flight finish with the old one.
    func replaceValidator(_ validator: PushValidator) {
        current.withLock { $0 = validator }
    }
}
