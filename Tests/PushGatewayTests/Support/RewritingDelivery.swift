import HTTPTransport
import HermesContract
import PushGateway

/// A delivery that changes what APNs answered before the gateway maps it: our gateway turned
/// into one that misreads APNs, for the conformance suite to catch.
struct RewritingDelivery: APNsDelivering {
    let base: any APNsDelivering
    let rewrite: @Sendable (APNsDeliveryResult) -> APNsDeliveryResult

    func deliver(_ request: GatewayAPNsRequest, to environment: HermesAPNsEnvironment) async -> APNsDeliveryResult {
        rewrite(await base.deliver(request, to: environment))
    }

    func deliver(_ request: GatewayAPNsRequest, to environment: HermesAPNsEnvironment,
                 completion: @escaping @Sendable (APNsDeliveryResult) -> Void) {
        let rewrite = rewrite
        base.deliver(request, to: environment) { completion(rewrite($0)) }
    }

    func shutdown() async { await base.shutdown() }

    var eventLoopGroup: EventLoopGroup? { base.eventLoopGroup }
}
