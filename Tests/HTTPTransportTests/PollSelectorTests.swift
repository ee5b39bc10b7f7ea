import Foundation
import PushTestSupport
import Synchronization
import SystemSeam
import Testing
@testable import HTTPTransport

/// The portable backend's own promises: wake-ups through its pipe (from another thread,
/// before the wait, coalesced, never after close), no event for a descriptor deregistered
/// while the batch it was in is delivered, and descriptors beyond FD_SETSIZE. What both
/// backends share is in SelectorSemanticsTests. Every wait has a bound far above what it
/// needs; the clock only tells a wake-up from that bound running out.
@Suite(.timeLimit(.minutes(1)))
struct PollSelectorTests {
    /// Generous: a wake-up that works returns within milliseconds.
    static let bound: Int32 = 20_000

    /// Runs one wait and returns what it delivered, and whether it returned before `bound`.
    static func wait(_ selector: PollSelector, timeout: Int32 = bound) throws -> (events: [SelectorEvent], early: Bool) {
        var events: [SelectorEvent] = []
        let start = ContinuousClock.now
        try selector.whenReady(timeoutMilliseconds: timeout) { events.append($0) }
        return (events, ContinuousClock.now - start < .milliseconds(Int(timeout)))
    }

    @Test func aWakeUpFromAnotherThreadEndsAWaitInProgress() throws {
        let selector = try PollSelector()
        let waker = Waker(selector: selector)
        let woken = Mutex(false)
        let thread = Thread {
            usleep(50_000)
            woken.withLock { $0 = true }
            waker.selector.wakeup()
        }
        thread.start()
        let result = try Self.wait(selector)
        #expect(result.early, "the wait ran to its bound: the wake-up was lost")
        #expect(result.events.isEmpty, "a wake-up is not an event of any registered descriptor")
        let wasWoken = woken.withLock { $0 }
        #expect(wasWoken, "the wait returned before the other thread woke it")
    }

    @Test func aWakeUpBeforeTheWaitIsNotLost() throws {
        let selector = try PollSelector()
        selector.wakeup()
        let result = try Self.wait(selector)
        #expect(result.early, "a wake-up sent while nobody waited was lost")
        #expect(result.events.isEmpty)
    }

    /// More wake-ups than the pipe holds: none blocks the caller, one wait takes them all, and
    /// the pipe is empty after it, so the next wait sleeps.
    @Test func manyWakeUpsCoalesceIntoOneWaitAndLeaveThePipeEmpty() throws {
        let selector = try PollSelector()
        for _ in 0..<200_000 { selector.wakeup() }
        #expect(try Self.wait(selector).early)
        let next = try Self.wait(selector, timeout: 0)
        #expect(next.events.isEmpty)
        var poller = pollfd(fd: selector.wakeReadDescriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&poller, 1, 0) == 0, "the wait left wake-ups in the pipe")
    }

    /// The pipe is non-blocking and close-on-exec: a full pipe never blocks `wakeup()`, and a
    /// child process does not inherit the loop's pipe.
    @Test func theWakePipeIsNonBlockingAndCloseOnExec() throws {
        let selector = try PollSelector()
        for fd in [selector.wakeReadDescriptor, selector.wakeDescriptor] {
            #expect(fcntl(fd, F_GETFL) & O_NONBLOCK != 0)
            #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
        }
    }

    /// As for epoll's eventfd (EpollSelectorTests): a wake-up after close must not write into
    /// the socket that took the pipe's number.
    @Test func aWakeUpAfterCloseWritesNothingToTheDescriptorThatReusedItsNumber() throws {
        for _ in 0..<50 {
            let pair = try SocketPair()
            let selector = try PollSelector()
            let wake = selector.wakeDescriptor
            selector.close()
            let reused = fcntl(pair.left, F_DUPFD_CLOEXEC, wake)
            defer { if reused >= 0 { close(reused) } }
            guard reused == wake else { continue }
            selector.wakeup()
            #expect(!pair.rightIsReadable(), "the wake-up wrote into the socket that took its descriptor's number")
            return
        }
        Issue.record("no socket took the closed descriptor's number in 50 tries")
    }

    /// Both descriptors are readable in one batch. Whichever comes first closes the other and
    /// puts a fresh, silent socket on its number (dup2, so the number is surely reused) and
    /// registers it: the batch's event for the old socket must not reach the new one.
    @Test func aDescriptorDeregisteredDuringDispatchGetsNoEventFromThatBatch() throws {
        let selector = try PollSelector()
        let first = try SocketPair()
        let second = try SocketPair()
        let fresh = try SocketPair()
        try selector.register(fd: first.left, interest: .read)
        try selector.register(fd: second.left, interest: .read)
        first.sendFromRight()
        second.sendFromRight()
        var delivered: [Int32] = []
        var replaced: Int32 = -1
        try selector.whenReady(timeoutMilliseconds: Self.bound) { event in
            delivered.append(event.fd)
            guard replaced < 0 else { return }
            replaced = event.fd == first.left ? second.left : first.left
            selector.deregister(fd: replaced)
            #expect(dup2(fresh.left, replaced) == replaced)
            try? selector.register(fd: replaced, interest: .read)
        }
        #expect(delivered.count == 1, "delivered \(delivered) after \(replaced) was replaced")
        #expect(!delivered.contains(replaced))
        // The replacement is registered and silent until its own peer writes.
        #expect(try Self.wait(selector, timeout: 0).events.map(\.fd) == [delivered[0]])
        fresh.sendFromRight()
        #expect(Set(try Self.wait(selector, timeout: 0).events.map(\.fd)) == Set([delivered[0], replaced]))
    }

    /// An event is cut down to the interest of its delivery: a callback that pauses reading
    /// on another descriptor of the batch is not handed that descriptor's read.
    @Test func anInterestNarrowedDuringDispatchNarrowsTheBatchesEvent() throws {
        let selector = try PollSelector()
        let first = try SocketPair()
        let second = try SocketPair()
        try selector.register(fd: first.left, interest: .read)
        try selector.register(fd: second.left, interest: .read)
        first.sendFromRight()
        second.sendFromRight()
        var delivered: [Int32] = []
        try selector.whenReady(timeoutMilliseconds: Self.bound) { event in
            if delivered.isEmpty {
                try? selector.reregister(fd: event.fd == first.left ? second.left : first.left, interest: [])
            }
            delivered.append(event.fd)
        }
        #expect(delivered.count == 1)
    }

    @Test func registeringTwiceOrReregisteringAnUnknownDescriptorFailsAsEpollDoes() throws {
        let selector = try PollSelector()
        let pair = try SocketPair()
        try selector.register(fd: pair.left, interest: .read)
        #expect(throws: TransportError.system(call: "poll register", errno: EEXIST)) {
            try selector.register(fd: pair.left, interest: .write)
        }
        #expect(throws: TransportError.system(call: "poll reregister", errno: ENOENT)) {
            try selector.reregister(fd: pair.right, interest: .read)
        }
        selector.deregister(fd: pair.right)
        #expect(selector.registeredCount == 1)
    }

    /// More descriptors than FD_SETSIZE (1024), numbered above it: the index map and the swap
    /// on deregister keep every event on its own descriptor.
    @Test func descriptorsBeyondFDSetSizeAreWatchedAndDeregisteredInAnyOrder() throws {
        let count = 600
        // Each pair needs two descriptors above 1100 while the suite runs: raise the soft limit
        // (never lower it) if it is below what that takes.
        var limit = rlimit()
        try #require(getrlimit(resourceLimitFiles, &limit) == 0)
        let needed = rlim_t(1100 + 2 * count + 512)
        if limit.rlim_cur < needed {
            try #require(limit.rlim_max >= needed, "the hard descriptor limit \(limit.rlim_max) is below \(needed)")
            limit.rlim_cur = needed
            try #require(setrlimit(resourceLimitFiles, &limit) == 0)
        }
        let selector = try PollSelector()
        var pairs: [SocketPair] = []
        for _ in 0..<count { pairs.append(try SocketPair(atLeast: 1100)) }
        for pair in pairs { try selector.register(fd: pair.left, interest: .read) }
        #expect(selector.registeredCount == count)
        #expect(pairs.allSatisfy { $0.left > 1024 })
        for (index, pair) in pairs.enumerated() where index % 3 == 0 { pair.sendFromRight() }
        let expected = Set(pairs.enumerated().filter { $0.offset % 3 == 0 }.map(\.element.left))
        #expect(Set(try Self.wait(selector, timeout: 0).events.filter(\.readable).map(\.fd)) == expected)
        // Deregister every other one, from both ends inward, so that the last slot moves often.
        var removed = Set<Int32>()
        var low = 0, high = count - 1
        while low < high {
            selector.deregister(fd: pairs[low].left)
            selector.deregister(fd: pairs[high].left)
            removed.formUnion([pairs[low].left, pairs[high].left])
            low += 2
            high -= 2
        }
        #expect(selector.registeredCount == count - removed.count)
        for pair in pairs { pair.sendFromRight() }
        let remaining = Set(pairs.map(\.left)).subtracting(removed)
        #expect(Set(try Self.wait(selector, timeout: 0).events.map(\.fd)) == remaining)
    }
}

/// Hands a selector to another thread for `wakeup()`, the one method any thread may call.
private struct Waker: @unchecked Sendable {
    let selector: PollSelector
}

#if os(Linux)
let resourceLimitFiles = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#else
let resourceLimitFiles = RLIMIT_NOFILE
#endif

/// A connected pair of non-blocking Unix stream sockets, closed when released.
final class SocketPair {
    let left: Int32
    private(set) var right: Int32

    /// - Parameter atLeast: the lowest descriptor number either end may have.
    init(atLeast minimum: Int32 = 0) throws {
        var ends: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, TestSockets.streamType, 0, &ends) == 0, "socketpair: errno \(errno)")
        if minimum > 0 {
            for index in 0..<2 {
                let moved = fcntl(ends[index], F_DUPFD_CLOEXEC, minimum)
                close(ends[index])
                ends[index] = moved
            }
            try #require(ends.allSatisfy { $0 >= minimum }, "F_DUPFD_CLOEXEC: errno \(errno)")
        }
        for fd in ends { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        left = ends[0]
        right = ends[1]
    }

    deinit {
        close(left)
        if right >= 0 { close(right) }
    }

    /// Closes the right end: the left one's peer is gone.
    func closeRight() {
        close(right)
        right = -1
    }

    func sendFromRight() {
        var byte: UInt8 = 1
        _ = write(right, &byte, 1)
    }

    func rightIsReadable() -> Bool {
        var poller = pollfd(fd: right, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) == 1
    }
}
