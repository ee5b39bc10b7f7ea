import APNsCore
import Foundation
import HTTPTransport
import Synchronization

/// Everything the listeners share: the current validator, id generator, capture, metrics,
/// observers and stream policy. The registry can be replaced while serving.
final class MockServices: Sendable {
    private let current: Mutex<PushValidator>
    let ids = APNsIDGenerator()
    let metrics: PushMetrics
    /// Records every push; with a file, a push is answered only once its line is written.
    let capture: CaptureStore
    /// Observers besides the capture.
    let observers: [any PushObserver]
    /// One per event loop, made when its first connection opens.
    private let answerQueues = Mutex<[ObjectIdentifier: LoopAnswerQueue]>([:])
    let streamPolicy: StreamLimitPolicy
    let faults: FaultEngine
    /// The provider-token clock, kept for validators built later; nil is the system clock.
    let clock: (@Sendable () -> Date)?

    init(validator: PushValidator, clock: (@Sendable () -> Date)?, faults: FaultEngine, metrics: PushMetrics,
         capture: CaptureStore, observers: [any PushObserver], streamPolicy: StreamLimitPolicy) {
        current = Mutex(validator)
        self.capture = capture
        self.clock = clock
        self.faults = faults
        self.metrics = metrics
        self.observers = observers
        self.streamPolicy = streamPolicy
    }

    /// The queue that runs released answers on `loop`.
    func answerQueue(for loop: EventLoop) -> LoopAnswerQueue {
        answerQueues.withLock { queues in
            if let queue = queues[ObjectIdentifier(loop)] { return queue }
            let queue = LoopAnswerQueue(loop: loop)
            queues[ObjectIdentifier(loop)] = queue
            return queue
        }
    }

    /// The validator for the next push.
    var validator: PushValidator { current.withLock { $0 } }

    /// Swaps in a validator for `registry`, keeping the settings and clock; pushes in flight
    /// finish with the old one.
    func replaceRegistry(_ registry: MockRegistry) {
        updateRegistry { $0 = registry }
    }

    /// Changes part of the registry and swaps in a validator for the result, in one step:
    /// two changes of different parts made at once (`PUT /devices` and `PUT /keys`) each keep
    /// the other's, where reading, changing and replacing separately lost one of them.
    ///
    /// - Returns: the registry as changed.
    @discardableResult
    func updateRegistry(_ change: (inout MockRegistry) -> Void) -> MockRegistry {
        current.withLock { validator in
            var registry = validator.registry
            change(&registry)
            validator = PushValidator(registry: registry, settings: validator.settings, now: clock)
            return registry
        }
    }
}
