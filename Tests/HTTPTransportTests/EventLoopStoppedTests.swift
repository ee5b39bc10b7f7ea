import Dispatch
import Foundation
import Synchronization
@testable import HTTPTransport
import Testing

/// A loop whose group was shut down refuses work instead of queueing it where nothing will
/// ever run it, and everything that waits on such a loop fails with a clear error: a client
/// on a shared group shut down under it, a server started on a stopped group. Every wait is
/// a hang guard on a thread or task of its own, not a measurement.
@Suite(.timeLimit(.minutes(1)))
struct EventLoopStoppedTests {
    @Test func aStoppedLoopRefusesTasksAndTimers() throws {
        let group = try EventLoopGroup(threads: 1)
        let loop = group.loops[0]
        #expect(loop.isRunning)
        group.shutdown()
        #expect(!loop.isRunning)
        #expect(throws: TransportError.eventLoopStopped(loop.name)) { try loop.execute {} }
        #expect(throws: TransportError.eventLoopStopped(loop.name)) { try loop.scheduleTask(after: .zero) {} }
    }

    /// A task that prefers a stopped loop as its executor still runs, on the global executor.
    @Test func aTaskPreferringAStoppedLoopStillRuns() async throws {
        let group = try EventLoopGroup(threads: 1)
        let loop = group.loops[0]
        group.shutdown()
        let value = try await withHTTP2ClientTimeout(.seconds(20)) {
            await Task(executorPreference: loop) { 42 }.value
        }
        #expect(value == 42)
    }

    @Test func aServerStartedOnAStoppedGroupThrows() throws {
        let group = try EventLoopGroup(threads: 1)
        group.shutdown()
        let thrown = Mutex<TransportError?>(nil)
        let returned = DispatchSemaphore(value: 0)
        // On a thread of its own: a hang must fail this test, not block the runner's pool.
        Thread.detachNewThread {
            do throws(TransportError) {
                let server = try HTTPServer(
                    configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0),
                    handler: ClosureHandler { _ in HTTPResponse(status: 200) }, group: group)
                server.shutdown()
            } catch {
                thrown.withLock { $0 = error }
            }
            returned.signal()
        }
        #expect(returned.wait(timeout: .now() + 20) == .success, "HTTPServer.init hung on a stopped group")
        #expect(thrown.withLock { $0 } == .eventLoopStopped(group.loops[0].name))
    }

    /// Requests in flight when the shared group stops, and requests sent after, all fail
    /// with `.eventLoopStopped`; none waits for a timeout timer that would run on that loop.
    @Test(arguments: [false, true])
    func aClientWhoseSharedGroupStopsFailsEverySend(connectFirst: Bool) async throws {
        let server = try HTTP2ClientFixtures.server(tls: true, handler: HTTP2ClientLifecycleTests.neverOnSlash)
        let group = try EventLoopGroup(threads: 1)
        let name = group.loops[0].name
        var configuration = HTTP2ClientConfiguration(
            host: "localhost", port: server.localAddress.port, tls: .makeClientConfiguration(trustRootsPath: HTTP2ClientFixtures.ca))
        configuration.requestTimeout = .seconds(600)
        let client = try HTTP2Client(configuration: configuration, group: group)
        if connectFirst {
            #expect(try await client.send(HTTPClientRequest(path: "/ok")).status == 200)
            let inFlight = Task { await outcome(of: client, HTTPClientRequest(path: "/never", timeout: nil)) }
            #expect(await eventually { server.metrics.openStreams == 1 })
            group.shutdown()
            let result = try await withHTTP2ClientTimeout(.seconds(20)) { await inFlight.value }
            #expect(result == .failure(.eventLoopStopped(name)))
        } else {
            group.shutdown()
        }
        let later = try await withHTTP2ClientTimeout(.seconds(20)) {
            await outcome(of: client, HTTPClientRequest(path: "/ok"))
        }
        #expect(later == .failure(.eventLoopStopped(name)))
        let completed = try await withHTTP2ClientTimeout(.seconds(20)) {
            await withCheckedContinuation { (done: CheckedContinuation<Result<HTTPClientResponse, HTTPClientError>, Never>) in
                client.send(HTTPClientRequest(path: "/ok")) { done.resume(returning: $0) }
            }
        }
        #expect(completed == .failure(.eventLoopStopped(name)))
        await #expect(throws: HTTPClientError.eventLoopStopped(name)) { try await client.connect() }
        try await withHTTP2ClientTimeout(.seconds(20)) { await client.close() }
        #expect(client.outstandingRequests == 0)
        await server.shutdown(gracePeriod: .milliseconds(200))
    }
}
