import HermesContract
import PushGateway
import Synchronization

/// An `APNsDelivering` that records what reaches it and answers as scripted: the HTTP
/// side's tests check with it that nothing unauthorized ever gets this far.
final class FakeDelivery: APNsDelivering {
    private let sent = Mutex<[(request: GatewayAPNsRequest, environment: HermesAPNsEnvironment)]>([])
    private let scripted = Mutex<APNsDeliveryResult?>(nil)
    private let latency = Mutex<Duration>(.zero)

    /// Every request delivered so far.
    var requests: [(request: GatewayAPNsRequest, environment: HermesAPNsEnvironment)] { sent.withLock { $0 } }

    /// Answers every later push with `result`; nil accepts, echoing the request's apns-id.
    func answer(with result: APNsDeliveryResult?) { scripted.withLock { $0 = result } }

    /// Makes every later push take `duration` before it is answered, as APNs would.
    func answer(after duration: Duration) { latency.withLock { $0 = duration } }

    func deliver(_ request: GatewayAPNsRequest, to environment: HermesAPNsEnvironment) async -> APNsDeliveryResult {
        sent.withLock { $0.append((request, environment)) }
        let wait = latency.withLock { $0 }
        if wait > .zero { try? await Task.sleep(for: wait) }
        return scripted.withLock { $0 } ?? .accepted(apnsID: request.apnsID)
    }

    func shutdown() async {}
}
