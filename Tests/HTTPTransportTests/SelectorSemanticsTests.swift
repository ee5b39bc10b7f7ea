import SystemSeam
import Testing
@testable import HTTPTransport

/// What EventLoop relies on from every backend, checked on each one this platform has:
/// level-triggered readiness, interest changes, and hangups reported whatever the interest.
/// (PollSelectorTests has the portable backend's own promises.)
@Suite(.timeLimit(.minutes(1)))
struct SelectorSemanticsTests {
    static let backends = EventLoopBackend.allCases.filter(\.isAvailable)

    /// One wait that returns at once, and the events it delivered.
    static func poll(_ selector: any Selector) throws -> [SelectorEvent] {
        var events: [SelectorEvent] = []
        try selector.whenReady(timeoutMilliseconds: 0) { events.append($0) }
        return events
    }

    @Test(arguments: backends)
    func readinessIsLevelTriggeredUntilTheDataIsRead(backend: EventLoopBackend) throws {
        let selector = try backend.makeSelector()
        defer { selector.close() }
        let pair = try SocketPair()
        try selector.register(fd: pair.left, interest: .read)
        #expect(try Self.poll(selector).isEmpty, "nothing was sent yet")
        pair.sendFromRight()
        for _ in 0..<2 {
            let events = try Self.poll(selector)
            #expect(events.count == 1)
            #expect(events.first.map { $0.fd == pair.left && $0.readable && !$0.writable && !$0.hangup } == true)
        }
        var byte: UInt8 = 0
        #expect(read(pair.left, &byte, 1) == 1)
        #expect(try Self.poll(selector).isEmpty, "the data was read")
    }

    @Test(arguments: backends)
    func reregisterChangesWhatIsReportedAndDeregisterStopsIt(backend: EventLoopBackend) throws {
        let selector = try backend.makeSelector()
        defer { selector.close() }
        let pair = try SocketPair()
        try selector.register(fd: pair.left, interest: .write)
        pair.sendFromRight()
        var events = try Self.poll(selector)
        #expect(events.count == 1 && events[0].writable && !events[0].readable)
        try selector.reregister(fd: pair.left, interest: [.read, .write])
        events = try Self.poll(selector)
        #expect(events.count == 1 && events[0].writable && events[0].readable)
        try selector.reregister(fd: pair.left, interest: [])
        #expect(try Self.poll(selector).isEmpty, "a paused descriptor with pending data is quiet")
        selector.deregister(fd: pair.left)
        try selector.register(fd: pair.left, interest: .read)
        #expect(try Self.poll(selector).count == 1, "a descriptor can be registered again after deregister")
        selector.deregister(fd: pair.left)
        #expect(try Self.poll(selector).isEmpty)
    }

    /// The peer closed: a paused descriptor hears it as a hangup alone (EventLoop calls
    /// `hangupReady()`), a reader as readable, and reads the end of the stream.
    @Test(arguments: backends)
    func aClosedPeerIsAHangupWhateverTheInterest(backend: EventLoopBackend) throws {
        let selector = try backend.makeSelector()
        defer { selector.close() }
        let pair = try SocketPair()
        try selector.register(fd: pair.left, interest: [])
        pair.closeRight()
        var events = try Self.poll(selector)
        #expect(events.count == 1 && events[0].hangup && !events[0].readable)
        try selector.reregister(fd: pair.left, interest: .read)
        events = try Self.poll(selector)
        #expect(events.count == 1 && events[0].hangup && events[0].readable)
    }

    /// The peer shut down its writing side only: a reader is told (and reads 0), a paused
    /// descriptor waits until it reads again.
    @Test(arguments: backends)
    func aHalfCloseReachesOnlyAReader(backend: EventLoopBackend) throws {
        let selector = try backend.makeSelector()
        defer { selector.close() }
        let pair = try SocketPair()
        try selector.register(fd: pair.left, interest: [])
        #expect(shutdown(pair.right, Int32(SHUT_WR)) == 0)
        #expect(try Self.poll(selector).isEmpty)
        try selector.reregister(fd: pair.left, interest: .read)
        let events = try Self.poll(selector)
        #expect(events.count == 1 && events[0].readable)
    }
}
