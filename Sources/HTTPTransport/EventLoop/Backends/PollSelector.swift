internal import SystemSeam
import Synchronization

/// Level-triggered `poll(2)`, the portable backend, with a pipe for cross-thread wake-ups.
///
/// The `pollfd` array is dense: slot 0 is the wake pipe's read end and every registered
/// descriptor has one slot after it. `slotByFD` maps a descriptor to its slot, so register,
/// reregister and deregister are O(1) (deregister moves the last slot into the hole); the
/// wait itself costs O(registered descriptors), which is why epoll stays Linux's default.
///
/// Events are copied out before any is delivered, each with its slot's registration serial:
/// a callback may deregister (and close) a descriptor whose event is still to come, and the
/// number may be registered again at once for a new socket. Such an event is dropped, and
/// an event is also cut down to the interest registered when it is delivered.
final class PollSelector: Selector {
    private struct ReadyEvent {
        var fd: Int32
        var revents: Int16
        var serial: UInt64
    }

    private static let readBits = Int16(POLLIN)
    private static let writeBits = Int16(POLLOUT)
    /// Reported whatever the interest, as epoll reports EPOLLHUP and EPOLLERR. POLLNVAL (a
    /// descriptor closed while registered) is a hangup too, so its owner closes and leaves.
    private static let hangupBits = Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)

    private let wakeReadFD: Int32
    private let wakeWriteFD: Int32
    private var pollFDs: [pollfd]
    /// The registration serial of each slot, moved with it; 0 is the wake pipe's.
    private var serials: [UInt64]
    /// Slot by descriptor number, -1 when not registered.
    private var slotByFD: [Int32] = []
    private var nextSerial: UInt64 = 1
    private var ready: [ReadyEvent] = []
    /// Set once the pipe is closed. `wakeup()` comes from any thread, also after the loop has
    /// stopped: it writes only under this lock while the pipe is open, since a closed number
    /// is soon another socket's, and a byte written there corrupts its stream.
    private let closed = Mutex(false)

    init() throws(TransportError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .system(call: "pipe", errno: errno) }
        // pipe2 is missing on Darwin: one path on both, so that Linux CI runs what a Mac runs.
        for end in ends {
            let flags = fcntl(end, F_GETFL)
            guard flags >= 0, fcntl(end, F_SETFL, flags | O_NONBLOCK) == 0,
                  fcntl(end, F_SETFD, FD_CLOEXEC) == 0 else {
                let code = errno
                for fd in ends { _ = SystemSeam.close(fd) }
                throw .system(call: "fcntl(pipe)", errno: code)
            }
        }
        wakeReadFD = ends[0]
        wakeWriteFD = ends[1]
        pollFDs = [pollfd(fd: ends[0], events: Self.readBits, revents: 0)]
        serials = [0]
    }

    deinit { close() }

    private func events(_ interest: SelectorInterest) -> Int16 {
        var bits: Int16 = 0
        if interest.contains(.read) { bits |= Self.readBits }
        if interest.contains(.write) { bits |= Self.writeBits }
        return bits
    }

    private func slot(of fd: Int32) -> Int? {
        guard fd >= 0, Int(fd) < slotByFD.count else { return nil }
        let slot = slotByFD[Int(fd)]
        return slot < 0 ? nil : Int(slot)
    }

    func register(fd: Int32, interest: SelectorInterest) throws(TransportError) {
        // The errors epoll_ctl(ADD) gives for the same mistakes.
        guard fd >= 0, fd != wakeReadFD else { throw .system(call: "poll register", errno: EBADF) }
        guard slot(of: fd) == nil else { throw .system(call: "poll register", errno: EEXIST) }
        if Int(fd) >= slotByFD.count {
            slotByFD.append(contentsOf: repeatElement(-1, count: max(Int(fd) + 1 - slotByFD.count, 64)))
        }
        slotByFD[Int(fd)] = Int32(pollFDs.count)
        pollFDs.append(pollfd(fd: fd, events: events(interest), revents: 0))
        serials.append(nextSerial)
        nextSerial += 1
    }

    func reregister(fd: Int32, interest: SelectorInterest) throws(TransportError) {
        guard let slot = slot(of: fd) else { throw .system(call: "poll reregister", errno: ENOENT) }
        pollFDs[slot].events = events(interest)
    }

    func deregister(fd: Int32) {
        guard let slot = slot(of: fd) else { return }
        let last = pollFDs.count - 1
        if slot != last {
            pollFDs[slot] = pollFDs[last]
            serials[slot] = serials[last]
            slotByFD[Int(pollFDs[slot].fd)] = Int32(slot)
        }
        pollFDs.removeLast()
        serials.removeLast()
        slotByFD[Int(fd)] = -1
    }

    func whenReady(timeoutMilliseconds: Int32, _ body: (SelectorEvent) -> Void) throws(TransportError) {
        let count = pollFDs.withUnsafeMutableBufferPointer { fds in
            poll(fds.baseAddress, nfds_t(fds.count), timeoutMilliseconds)
        }
        if count < 0 {
            let code = errno
            if code == EINTR { return }
            throw .system(call: "poll", errno: code)
        }
        var remaining = Int(count)
        if remaining > 0, pollFDs[0].revents != 0 {
            drainWakePipe()
            remaining -= 1
        }
        ready.removeAll(keepingCapacity: true)
        var index = 1
        while remaining > 0, index < pollFDs.count {
            let revents = pollFDs[index].revents
            if revents != 0 {
                ready.append(ReadyEvent(fd: pollFDs[index].fd, revents: revents, serial: serials[index]))
                remaining -= 1
            }
            index += 1
        }
        for event in ready {
            guard let slot = slot(of: event.fd), serials[slot] == event.serial else { continue }
            let revents = event.revents & (pollFDs[slot].events | Self.hangupBits)
            guard revents != 0 else { continue }
            body(SelectorEvent(
                fd: event.fd,
                readable: revents & Self.readBits != 0,
                writable: revents & Self.writeBits != 0,
                hangup: revents & Self.hangupBits != 0))
        }
    }

    /// Empties the pipe: any number of wake-ups since the last wait cost one pass.
    private func drainWakePipe() {
        var scratch = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        let size = MemoryLayout.size(ofValue: scratch)
        while withUnsafeMutableBytes(of: &scratch, { read(wakeReadFD, $0.baseAddress, size) }) == size {}
    }

    func wakeup() {
        closed.withLock { closed in
            guard !closed else { return }
            // A full pipe (EAGAIN) already holds a wake-up: nothing is lost.
            var one: UInt8 = 1
            _ = write(wakeWriteFD, &one, 1)
        }
    }

    func close() {
        closed.withLock { closed in
            guard !closed else { return }
            closed = true
            _ = SystemSeam.close(wakeReadFD)
            _ = SystemSeam.close(wakeWriteFD)
        }
    }

    /// The pipe end `wakeup()` writes to, for tests.
    var wakeDescriptor: Int32 { wakeWriteFD }

    /// The pipe end the wait drains, for tests.
    var wakeReadDescriptor: Int32 { wakeReadFD }

    /// The number of registered descriptors, for tests.
    var registeredCount: Int { pollFDs.count - 1 }
}
