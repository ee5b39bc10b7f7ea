import Dispatch
import Foundation
@testable import HTTPTransport
import Testing

/// A group shut down twice (a server's shutdown run again by a test's clean-up, say): the
/// second shutdown returns instead of waiting for ever for the signal of a loop thread the
/// first one took.
@Suite(.timeLimit(.minutes(1)))
struct EventLoopGroupShutdownTests {
    @Test func aSecondShutdownReturnsAsTheFirstDid() throws {
        let group = try EventLoopGroup(threads: 2)
        group.shutdown()
        let returned = DispatchSemaphore(value: 0)
        // On a thread of its own: a hang must fail this test, not block the runner's pool.
        Thread.detachNewThread {
            group.shutdown()
            returned.signal()
        }
        #expect(returned.wait(timeout: .now() + 20) == .success, "the second shutdown hung")
    }
}
