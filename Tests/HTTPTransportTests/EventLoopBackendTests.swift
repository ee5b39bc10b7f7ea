import Foundation
import Testing
@testable import HTTPTransport

/// `APNS_MOCK_EVENT_LOOP` picks every loop's backend: `make test` runs the transport, mock
/// and client targets a second time with it set to `poll`, and this suite fails that run if
/// the loops did not follow it.
@Suite struct EventLoopBackendTests {
    @Test func everyLoopRunsTheBackendTheEnvironmentNames() throws {
        let value = ProcessInfo.processInfo.environment["APNS_MOCK_EVENT_LOOP"] ?? ""
        #if os(Linux)
        let expected = value == "poll" ? "poll" : "epoll"
        #else
        let expected = "poll"
        #endif
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdown() }
        #expect(group.loops.map(\.backendName) == [expected, expected], "APNS_MOCK_EVENT_LOOP='\(value)'")
    }

    @Test func unsetOrEmptyMeansThePlatformDefault() throws {
        #if os(Linux)
        #expect(try EventLoopBackend(environmentValue: nil) == .epoll)
        #expect(try EventLoopBackend(environmentValue: "") == .epoll)
        #expect(try EventLoopBackend(environmentValue: "epoll") == .epoll)
        #else
        #expect(try EventLoopBackend(environmentValue: nil) == .poll)
        #endif
        #expect(try EventLoopBackend(environmentValue: "poll") == .poll)
    }

    /// A typo must stop the start, not run the suite on the default and pass.
    @Test(arguments: ["kqueue", "Poll", "poll ", "select"])
    func anUnknownValueIsAClearError(value: String) throws {
        #expect(throws: TransportError.unknownEventLoopBackend(value)) {
            try EventLoopBackend(environmentValue: value)
        }
        let message = TransportError.unknownEventLoopBackend(value).description
        #expect(message.contains("APNS_MOCK_EVENT_LOOP='\(value)'"))
        #expect(message.contains("'poll'"))
    }
}
