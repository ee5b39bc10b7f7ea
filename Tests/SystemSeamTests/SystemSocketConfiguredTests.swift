import Testing
@testable import SystemSeam

/// `SystemSocket.configured`, what a system whose `socket(2)` takes no flags (macOS) gets
/// after each socket call: close-on-exec always, non-blocking unless asked for a blocking
/// one (the tests' `TestSockets`). Run here on a plain socket, as macOS would.
@Suite struct SystemSocketConfiguredTests {
    @Test(arguments: [true, false])
    func aConfiguredDescriptorIsCloseOnExecAndBlocksAsAsked(nonBlocking: Bool) throws {
        let fd = SystemSocket.configured(socket(AF_INET, c_system_sock_stream(), 0), nonBlocking: nonBlocking)
        try #require(fd >= 0, "socket: errno \(errno)")
        defer { close(fd) }
        #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
        #expect((fcntl(fd, F_GETFL) & O_NONBLOCK != 0) == nonBlocking)
    }

    @Test func aFailedSocketCallStaysAFailure() {
        #expect(SystemSocket.configured(-1) == -1)
    }
}
