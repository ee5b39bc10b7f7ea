import APNsClient
import HTTPTransport
import HermesContract
import PushGateway
import Synchronization
import Testing

/// The gateway serves on its delivery's event loops when the delivery has them, so a push
/// goes from the HTTP request to APNs and back on one thread.
@Suite(.timeLimit(.minutes(1)))
struct GatewayEventLoopTests {
    /// Accepts every push from its loop, as `APNsClientDelivery` does, and notes whether the
    /// gateway called it on that loop (and through the callback form, with no task).
    final class LoopDelivery: APNsDelivering {
        let group: EventLoopGroup
        let onOwnLoop = Mutex<[Bool]>([])

        init() throws { group = try EventLoopGroup(threads: 1) }

        var eventLoopGroup: EventLoopGroup? { group }

        func deliver(_ request: GatewayAPNsRequest, to environment: HermesAPNsEnvironment) async -> APNsDeliveryResult {
            Issue.record("the gateway awaited the delivery in a task instead of calling it back")
            return .accepted(apnsID: request.apnsID)
        }

        func deliver(_ request: GatewayAPNsRequest, to environment: HermesAPNsEnvironment,
                     completion: @escaping @Sendable (APNsDeliveryResult) -> Void) {
            let loop = group.loops[0]
            let own = loop.inEventLoop
            onOwnLoop.withLock { $0.append(own) }
            // Answered later from the loop, as an APNs response would be.
            try? loop.execute { completion(.accepted(apnsID: request.apnsID)) }
        }

        func shutdown() async { group.shutdown() }
    }

    @Test func pushesAreDeliveredOnTheDeliverysLoop() async throws {
        let delivery = try LoopDelivery()
        let gateway = try GatewayFixture.start(delivery: delivery)
        let client = try GatewayFixture.client(for: gateway.url)
        for session in ["s1", "s2", "s3"] {
            let body = try GatewayFixture.pushRequest(session: session).encodedBody()
            #expect(try await client.send(GatewayFixture.post("/push", body)).status == 200)
        }
        await client.close()
        await gateway.shutdown()
        #expect(delivery.onOwnLoop.withLock { $0 } == [true, true, true])
    }

    @Test func theAPNsDeliveryRunsTheConfiguredNumberOfLoops() async throws {
        var configuration = GatewayFixture.configuration()
        configuration.eventLoopThreads = 2
        let delivery = try APNsClientDelivery(configuration: configuration)
        #expect(delivery.eventLoopGroup?.loops.count == 2)
        await delivery.shutdown()
        // More loops than the client's default pool: room for a connection on each.
        configuration.eventLoopThreads = APNsClientConfiguration.defaultMaximumConnectionsPerEnvironment + 2
        var pool = 0
        let many = try APNsClientDelivery(configuration: configuration, adjust: { pool = $0.maximumConnectionsPerEnvironment })
        #expect(pool == configuration.eventLoopThreads)
        await many.shutdown()
        configuration.eventLoopThreads = 1
        let single = try APNsClientDelivery(configuration: configuration)
        #expect(single.eventLoopGroup?.loops.count == 1)
        await single.shutdown()
    }

    @Test func aDeliveryWithoutLoopsLeavesTheGatewayItsOwn() async throws {
        let delivery = FakeDelivery()
        #expect(delivery.eventLoopGroup == nil)
        let gateway = try GatewayFixture.start(delivery: delivery)
        let client = try GatewayFixture.client(for: gateway.url)
        #expect(try await client.send(GatewayFixture.post("/push", try GatewayFixture.pushRequest().encodedBody())).status == 200)
        await client.close()
        await gateway.shutdown()
    }
}
