import APNsCore
import Foundation
import HTTPTransport
import Synchronization

/// Everything the listeners share: the handler factory, the registry's home, id generator,
/// capture, metrics, observers and stream policy. The registry can be replaced while serving.
final class MockServices: Sendable {
    /// The built-in factory, which holds the registry the control API shows and changes,
    /// whether or not ``handlers`` uses it.
    let validation: ValidatingPushHandlerFactory
    /// Makes each connection's handler: ``validation`` itself, or a factory of the
    /// embedder's own.
    let handlers: any PushHandlerFactory
    let ids = APNsIDGenerator()
    let metrics: PushMetrics
    /// Records every push; with a file, a push is answered only once its line is written.
    let capture: CaptureStore
    /// Observers besides the capture.
    let observers: [any PushObserver]
    /// Of them, those told a push as soon as it is decided, and those told once its answer
    /// is final (``PushObserver/waitsForFinalAnswer``).
    let decisionObservers: [any PushObserver], finalObservers: [any PushObserver]
    /// The delivery model, when on: it files each push as the capture records it.
    let delivery: DeliveryModel?
    /// One per event loop, made when its first connection opens.
    private let answerQueues = Mutex<[ObjectIdentifier: LoopAnswerQueue]>([:])
    let streamPolicy: StreamLimitPolicy
    let errorBudget: ConnectionErrorBudget
    let faults: FaultEngine
    /// Channel management requests and broadcasts, counted and logged.
    let channelEvents = ChannelEventLog()
    /// Hands accepted alert pushes to an iOS Simulator, when configured; `/metrics` shows its counts.
    let simulatorForwarder: SimulatorForwarder?

    init(validation: ValidatingPushHandlerFactory, handlers: any PushHandlerFactory, faults: FaultEngine, metrics: PushMetrics,
         capture: CaptureStore, observers: [any PushObserver], delivery: DeliveryModel? = nil, streamPolicy: StreamLimitPolicy,
         errorBudget: ConnectionErrorBudget, simulatorForwarder: SimulatorForwarder? = nil) {
        self.delivery = delivery
        self.simulatorForwarder = simulatorForwarder
        self.errorBudget = errorBudget
        self.validation = validation
        self.handlers = handlers
        self.capture = capture
        self.faults = faults
        self.metrics = metrics
        self.observers = observers
        decisionObservers = observers.filter { !$0.waitsForFinalAnswer }
        finalObservers = observers.filter(\.waitsForFinalAnswer)
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

    /// The validator the built-in handlers check the next push with.
    var validator: PushValidator { validation.validator }

    /// Swaps in a validator for `registry`; pushes in flight finish with the old one.
    func replaceRegistry(_ registry: MockRegistry) {
        validation.replaceRegistry(registry)
    }

    /// Changes part of the registry and swaps in a validator for the result, in one step
    /// (``ValidatingPushHandlerFactory/updateRegistry(_:)``).
    ///
    /// - Returns: the registry as changed.
    @discardableResult
    func updateRegistry(_ change: (inout MockRegistry) -> Void) -> MockRegistry {
        validation.updateRegistry(change)
    }
}
