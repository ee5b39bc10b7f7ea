#if os(Linux)
import Synchronization
internal import SystemSeam

/// Level-triggered epoll, with an eventfd for cross-thread wake-ups.
final class EpollSelector: Selector {
    private let epollFD: Int32
    private let wakeFD: Int32
    private var events: UnsafeMutablePointer<epoll_event>
    private let capacity = 256
    /// Set once the descriptors are closed. `wakeup()` comes from any thread, also after the
    /// loop has stopped: it writes only under this lock while they are open, since a closed
    /// number is soon another socket's, and eight bytes written there corrupt its stream.
    private let closed = Mutex(false)

    init() throws(TransportError) {
        let epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epfd >= 0 else { throw .system(call: "epoll_create1", errno: errno) }
        let efd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard efd >= 0 else {
            let code = errno
            SystemSeam.close(epfd)
            throw .system(call: "eventfd", errno: code)
        }
        epollFD = epfd
        wakeFD = efd
        events = .allocate(capacity: capacity)
        var ev = epoll_event()
        ev.events = c_system_epollin()
        ev.data.fd = efd
        guard epoll_ctl(epfd, EPOLL_CTL_ADD, efd, &ev) == 0 else {
            let code = errno
            SystemSeam.close(epfd)
            SystemSeam.close(efd)
            events.deallocate()
            throw .system(call: "epoll_ctl", errno: code)
        }
    }

    deinit {
        close()
        events.deallocate()
    }

    private func mask(_ interest: SelectorInterest) -> UInt32 {
        // The peer's half-close is news only to a reader: a paused stream hears it when it
        // reads again (EPOLLHUP and EPOLLERR are always reported).
        var bits: UInt32 = 0
        if interest.contains(.read) { bits |= c_system_epollin() | c_system_epollrdhup() }
        if interest.contains(.write) { bits |= c_system_epollout() }
        return bits
    }

    func register(fd: Int32, interest: SelectorInterest) throws(TransportError) {
        var ev = epoll_event()
        ev.events = mask(interest)
        ev.data.fd = fd
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &ev) == 0 else {
            throw .system(call: "epoll_ctl(ADD)", errno: errno)
        }
    }

    func reregister(fd: Int32, interest: SelectorInterest) throws(TransportError) {
        var ev = epoll_event()
        ev.events = mask(interest)
        ev.data.fd = fd
        guard epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &ev) == 0 else {
            throw .system(call: "epoll_ctl(MOD)", errno: errno)
        }
    }

    func deregister(fd: Int32) {
        var ev = epoll_event()
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &ev)
    }

    func whenReady(timeoutMilliseconds: Int32, _ body: (SelectorEvent) -> Void) throws(TransportError) {
        let count = epoll_wait(epollFD, events, Int32(capacity), timeoutMilliseconds)
        if count < 0 {
            if errno == EINTR { return }
            throw .system(call: "epoll_wait", errno: errno)
        }
        let hangupBits = c_system_epollhup() | c_system_epollerr() | c_system_epollrdhup()
        for index in 0..<Int(count) {
            let ev = events[index]
            let fd = ev.data.fd
            if fd == wakeFD {
                var value: UInt64 = 0
                _ = read(wakeFD, &value, 8)
                continue
            }
            body(SelectorEvent(
                fd: fd,
                readable: ev.events & c_system_epollin() != 0,
                writable: ev.events & c_system_epollout() != 0,
                hangup: ev.events & hangupBits != 0))
        }
    }

    func wakeup() {
        closed.withLock { closed in
            guard !closed else { return }
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
    }

    func close() {
        closed.withLock { closed in
            guard !closed else { return }
            closed = true
            SystemSeam.close(epollFD)
            SystemSeam.close(wakeFD)
        }
    }

    /// The eventfd `wakeup()` writes to, for tests.
    var wakeDescriptor: Int32 { wakeFD }
}
#endif
