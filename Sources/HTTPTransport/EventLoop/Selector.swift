/// What a registered file descriptor is waiting for.
struct SelectorInterest: OptionSet, Sendable {
    let rawValue: UInt8
    static let read = SelectorInterest(rawValue: 1 << 0)
    static let write = SelectorInterest(rawValue: 1 << 1)
}

/// What the operating system reported for one file descriptor.
struct SelectorEvent {
    var fd: Int32
    var readable: Bool
    var writable: Bool
    /// The peer hung up or the socket has an error pending.
    var hangup: Bool
}

/// The one place that knows the OS readiness mechanism.
///
/// `EventLoop` speaks only to this protocol, so a kqueue backend for macOS is one
/// new conforming type, not a rewrite. Implementations are confined to their loop's
/// thread except `wakeup()`, which any thread may call.
protocol Selector: AnyObject {
    func register(fd: Int32, interest: SelectorInterest) throws(TransportError)
    func reregister(fd: Int32, interest: SelectorInterest) throws(TransportError)
    func deregister(fd: Int32)
    /// Waits up to `timeoutMilliseconds` (-1: forever) and calls `body` per event.
    func whenReady(timeoutMilliseconds: Int32, _ body: (SelectorEvent) -> Void) throws(TransportError)
    /// Interrupts a `whenReady` call in progress from another thread.
    func wakeup()
    func close()
}
