// EpollSelector exists on Linux only.
#if os(Linux)
import SystemSeam
import Testing
@testable import HTTPTransport

/// A loop is woken from other threads, and some wake it after it has stopped (a task handed
/// to a stopped loop, a second stop). Its eventfd is closed by then, and the number is soon
/// another socket's: the eight bytes of a wake-up written there would be injected into that
/// connection (a client would see them where the server's SETTINGS belong, "SETTINGS
/// expected").
@Suite struct EpollSelectorTests {
    @Test func aWakeUpAfterCloseWritesNothingToTheDescriptorThatReusedItsNumber() throws {
        // Tests run in parallel and open descriptors too: retry until ours takes the number.
        for _ in 0..<50 {
            var pair: [Int32] = [-1, -1]
            try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
            let selector = try EpollSelector()
            let wake = selector.wakeDescriptor
            selector.close()
            // The lowest free number from `wake` on: `wake` itself unless another test took it.
            let reused = fcntl(pair[0], F_DUPFD_CLOEXEC, wake)
            defer {
                close(pair[0])
                close(pair[1])
                if reused >= 0 { close(reused) }
            }
            guard reused == wake else { continue }
            selector.wakeup()
            var poller = pollfd(fd: pair[1], events: Int16(POLLIN), revents: 0)
            #expect(poll(&poller, 1, 0) == 0, "the wake-up wrote into the socket that took its descriptor's number")
            return
        }
        Issue.record("no socket took the closed descriptor's number in 50 tries")
    }
}
#endif
