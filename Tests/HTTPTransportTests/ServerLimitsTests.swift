import Foundation
import Testing
@testable import HTTPTransport

/// Connection-count and idle limits.
@Suite(.timeLimit(.minutes(1)))
struct ServerLimitsTests {
    /// Opens an h2c connection and waits for the server's SETTINGS, so the server has surely accepted it.
    static func openHTTP2(_ server: TestServer) throws -> RawClient {
        let client = try RawClient(port: server.port)
        client.send(H2Frame.clientStart)
        _ = client.read { H2Frame.parse($0).contains { $0.type == H2Frame.typeSettings } }
        return client
    }

    @Test func connectionsBeyondMaxAreClosedAndCounted() async throws {
        let server = try TestServer(handler: RecordingHandler()) { $0.maxConnections = 2 }
        defer { server.shutdown() }

        let first = try Self.openHTTP2(server)
        let second = try Self.openHTTP2(server)
        #expect(server.metrics.openConnections == 2)
        let extra = try RawClient(port: server.port)
        extra.send(H2Frame.clientStart)
        let (bytes, closed) = extra.readUntilClose(timeout: .seconds(3))

        #expect(closed)
        #expect(bytes.isEmpty)
        #expect(await eventually { server.metrics.rejectedConnections == 1 })
        #expect(server.metrics.acceptedConnections == 2)
        #expect(server.metrics.openConnections == 2)
        // Room again once one closes.
        first.close()
        #expect(await eventually { server.metrics.openConnections == 1 })
        let reply = try await Curl.request(["--http2-prior-knowledge", server.url("/room")])
        #expect(reply.status == 200)
        #expect(server.metrics.rejectedConnections == 1)
        second.close()
    }

    /// A client address past `maxConnectionsPerSource` is refused on its own; other addresses
    /// are still served, and the closed connection gives its source a place back.
    @Test func connectionsBeyondOneSourcesLimitAreClosedAndCountedApart() async throws {
        let server = try TestServer(handler: RecordingHandler()) {
            $0.maxConnections = 10
            $0.maxConnectionsPerSource = 2
        }
        defer { server.shutdown() }
        func open(from source: String) throws -> RawClient {
            let client = try RawClient(port: server.port, source: source)
            client.send(H2Frame.clientStart)
            return client
        }

        let first = try open(from: "127.0.0.1")
        let second = try open(from: "127.0.0.1")
        #expect(await eventually { server.metrics.openConnections == 2 })
        let (bytes, closed) = try open(from: "127.0.0.1").readUntilClose(timeout: .seconds(3))
        #expect(closed && bytes.isEmpty)
        let other = try open(from: "127.0.0.2")
        #expect(!other.read { H2Frame.parse($0).contains { $0.type == H2Frame.typeSettings } }.isEmpty, "another source is served")
        #expect(await eventually { server.metrics.rejectedSourceConnections == 1 })
        #expect(server.metrics.rejectedConnections == 1 && server.metrics.openConnections == 3)

        first.close()
        #expect(await eventually { server.metrics.openConnections == 2 })
        let again = try open(from: "127.0.0.1")
        #expect(!again.read { H2Frame.parse($0).contains { $0.type == H2Frame.typeSettings } }.isEmpty)
        #expect(server.metrics.rejectedSourceConnections == 1)
        for client in [second, other, again] { client.close() }
    }

    /// Clients are counted by IPv4 address, or by IPv6 /64 (a host can pick any address in its
    /// /64); an IPv4-mapped IPv6 address is its IPv4 host.
    @Test func clientSourcesAreIPv4AddressesOrIPv6Prefixes() throws {
        func source(_ host: String, _ port: Int = 1) throws -> ClientSource { ClientSource(try SocketAddress(host: host, port: port)) }
        #expect(try source("203.0.113.7", 1) == source("203.0.113.7", 2))
        #expect(try source("203.0.113.7") != source("203.0.113.8"))
        #expect(try source("203.0.113.7").description == "203.0.113.7")
        #expect(try source("2001:db8:0:1::1") == source("2001:db8:0:1:ffff::2"))
        #expect(try source("2001:db8:0:1::1") != source("2001:db8:0:2::1"))
        #expect(try source("2001:db8:0:1::1").description == "2001:db8:0:1::/64")
        #expect(try source("::ffff:203.0.113.7") == source("203.0.113.7"))
    }

    /// The first SETTINGS carries the configured values, in identifier order, with a frame
    /// size HTTP/2 cannot carry brought into range (nghttp2 would drop the whole frame), and
    /// the connection's window is opened to its own size, not one derived from the streams'.
    @Test func firstSettingsAndConnectionWindowFollowTheConfiguration() async throws {
        let server = try TestServer(handler: RecordingHandler()) {
            $0.headerTableSize = 4096
            $0.initialWindowSize = 65_535
            $0.maxFrameSize = 1000
            $0.maxHeaderListSize = 8000
            $0.connectionWindowSize = 4 * 1024 * 1024
        }
        defer { server.shutdown() }
        let typeWindowUpdate: UInt8 = 0x8

        let client = try RawClient(port: server.port)
        client.send(H2Frame.clientStart)
        let frames = H2Frame.parse(client.read { bytes in H2Frame.parse(bytes).contains { $0.type == typeWindowUpdate } })
        client.close()

        let settings = try #require(frames.first { $0.type == H2Frame.typeSettings && $0.flags & H2Frame.flagAck == 0 })
        let entries = ServerInitialStreamLimitTests.settingsEntries(settings.payload)
        #expect(entries.map(\.0) == [1, 4, 5, 6, 3], "HEADER_TABLE_SIZE, INITIAL_WINDOW_SIZE, MAX_FRAME_SIZE, MAX_HEADER_LIST_SIZE, then the stream limit")
        #expect(entries.map(\.1) == [4096, 65_535, 16_384, 8000, 1000])
        let update = try #require(frames.first { $0.type == typeWindowUpdate })
        #expect(update.stream == 0)
        let increment = update.payload.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        #expect(Int(increment) == 4 * 1024 * 1024 - 65_535)
    }

    @Test func unsetHeaderTableAndFrameSizesAreNotAnnounced() async throws {
        let server = try TestServer(handler: RecordingHandler())
        defer { server.shutdown() }

        let client = try RawClient(port: server.port)
        client.send(H2Frame.clientStart)
        let frames = H2Frame.parse(client.read { bytes in H2Frame.parse(bytes).contains { $0.type == H2Frame.typeSettings } })
        client.close()

        let settings = try #require(frames.first { $0.type == H2Frame.typeSettings && $0.flags & H2Frame.flagAck == 0 })
        #expect(ServerInitialStreamLimitTests.settingsEntries(settings.payload).map(\.0) == [4, 6, 3])
    }

    @Test func idleHTTP2ConnectionGetsGoAwayAndClose() async throws {
        let server = try TestServer(handler: RecordingHandler()) { $0.idleTimeout = .milliseconds(300) }
        defer { server.shutdown() }

        let client = try RawClient(port: server.port)
        let start = ContinuousClock.now
        client.send(H2Frame.clientStart)
        // A hang guard far past the idle timeout, however late a loaded machine runs its timer.
        let (bytes, closed) = client.readUntilClose(timeout: .seconds(30))
        let elapsed = start.duration(to: .now)

        #expect(closed)
        #expect(elapsed >= .milliseconds(250), "closed after \(elapsed), before the idle timeout")
        let goAway = try #require(H2Frame.parse(bytes).first { $0.type == H2Frame.typeGoAway })
        #expect(Array(goAway.payload[4..<8]) == [0, 0, 0, 0])  // NO_ERROR
        #expect(Array(goAway.payload[8...]).text == "idle timeout")
        #expect(await eventually { server.metrics.openConnections == 0 })
    }

    @Test func idleHTTP1ConnectionIsClosed() async throws {
        let server = try TestServer(handler: RecordingHandler()) { $0.idleTimeout = .milliseconds(300) }
        defer { server.shutdown() }

        let client = try RawClient(port: server.port)
        client.send("GET /once HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = client.read { $0.text.hasSuffix("ok GET /once 0\n") }
        // A hang guard far past the idle timeout, however late a loaded machine runs its timer.
        let (_, closed) = client.readUntilClose(timeout: .seconds(30))

        #expect(response.text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(closed)
        #expect(await eventually { server.metrics.openConnections == 0 })
    }

    @Test func requestInFlightOutlastsIdleTimeout() async throws {
        let handler = RecordingHandler { request, responder in
            responder.respond(HTTPResponse(status: 200, text: "worth the wait"), after: .milliseconds(900))
        }
        let server = try TestServer(handler: handler) { $0.idleTimeout = .milliseconds(300) }
        defer { server.shutdown() }

        let h2 = try await Curl.request(["--http2-prior-knowledge", server.url("/slow")])
        let h1 = try await Curl.request(["--http1.1", server.url("/slow")])

        #expect(h2.status == 200 && h2.body == "worth the wait", "\(h2.result.stderr)")
        #expect(h1.status == 200 && h1.body == "worth the wait", "\(h1.result.stderr)")
    }
}
