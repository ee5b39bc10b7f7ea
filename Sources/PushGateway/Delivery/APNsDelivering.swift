import HTTPTransport
import HermesContract

/// Sends one APNs request to one environment: the gateway's only way out.
///
/// The HTTP side depends on this seam alone, so its tests run against a fake, and the
/// real implementation (`APNsClientDelivery`, on APNsClient) owns connections, provider
/// tokens and the bounded retries Apple allows (5xx, 429, a connection lost before the
/// answer), reusing the request's `apns-id` on every attempt.
public protocol APNsDelivering: Sendable {
    /// Sends `request` to `environment`'s APNs host and reports the final answer.
    ///
    /// Never throws: a failure to reach APNs is ``APNsDeliveryResult/unreachable(_:)``.
    /// It must await, never block.
    func deliver(_ request: GatewayAPNsRequest, to environment: HermesAPNsEnvironment) async -> APNsDeliveryResult

    /// Sends `request` like `deliver(_:to:)` and calls `completion` once with the final
    /// answer, from any thread. The gateway calls this one, on the event loop of the
    /// connection that asked, so it must return at once and never block.
    ///
    /// The default runs `deliver(_:to:)` in a task. A delivery on event loops answers from
    /// its loop instead (``APNsClientDelivery`` does): no task per push, no thread hop.
    func deliver(_ request: GatewayAPNsRequest, to environment: HermesAPNsEnvironment,
                 completion: @escaping @Sendable (APNsDeliveryResult) -> Void)

    /// Closes connections; called once when the gateway stops.
    func shutdown() async

    /// The loops the delivery's connections run on, if the gateway may serve on them too:
    /// then a push goes from its HTTP request to APNs and back without a thread hop (no
    /// wake-up, no context switch each way). Nil lets the gateway start its own loops. The
    /// delivery stops them in `shutdown()`, after the gateway has stopped serving.
    var eventLoopGroup: EventLoopGroup? { get }
}

extension APNsDelivering {
    public func deliver(_ request: GatewayAPNsRequest, to environment: HermesAPNsEnvironment,
                        completion: @escaping @Sendable (APNsDeliveryResult) -> Void) {
        Task { completion(await deliver(request, to: environment)) }
    }

    /// None: the gateway starts its own loops (deliveries that are not on event loops, fakes).
    public var eventLoopGroup: EventLoopGroup? { nil }
}
