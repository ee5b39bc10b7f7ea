import Synchronization

/// A typed key for per-connection state, such as which APNs team authenticated here.
///
/// ```swift
/// enum BoundTeam: HTTPConnectionStateKey { typealias Value = String }
/// request.connection[BoundTeam.self] = "TEAM000001"
/// ```
public protocol HTTPConnectionStateKey {
    associatedtype Value: Sendable
}

/// HTTP/2 error codes (RFC 9113 section 7) for GOAWAY and RST_STREAM.
public struct HTTP2ErrorCode: RawRepresentable, Sendable, Hashable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let noError = HTTP2ErrorCode(rawValue: 0x0)
    public static let protocolError = HTTP2ErrorCode(rawValue: 0x1)
    public static let internalError = HTTP2ErrorCode(rawValue: 0x2)
    public static let refusedStream = HTTP2ErrorCode(rawValue: 0x7)
    public static let cancel = HTTP2ErrorCode(rawValue: 0x8)
    public static let enhanceYourCalm = HTTP2ErrorCode(rawValue: 0xb)
}

/// What the transport does for a connection's controls; implemented per protocol.
protocol ConnectionController: AnyObject {
    func respond(streamID: Int32, response: HTTPResponse)
    func resetStream(streamID: Int32, errorCode: HTTP2ErrorCode)
    func setMaxConcurrentStreams(_ value: Int)
    func sendGoAway(errorCode: HTTP2ErrorCode, debugData: [UInt8])
    func closeConnection()
    func pauseReading()
    func resumeReading()
}

/// One accepted connection: its identity, its per-connection state and its controls.
///
/// Requests carry it, so a handler can keep state per connection and steer it the
/// way APNs does: lower the stream limit, send GOAWAY, or close. Controls may be
/// called from any thread; they run on the connection's event loop. After the
/// connection closes they do nothing.
public final class HTTPConnection: @unchecked Sendable, Hashable, CustomStringConvertible {
    // Unchecked: all stored properties are immutable except `controller`, which is
    // touched only on `eventLoop`, and `state`, which is a Mutex.
    /// Unique within the process, increasing.
    public let id: UInt64
    public let remoteAddress: SocketAddress?
    public let localAddress: SocketAddress?
    /// Whether the connection is under TLS.
    public let isSecure: Bool
    /// The ALPN protocol agreed in the TLS handshake, if any.
    public let applicationProtocol: String?
    /// HTTP/2 or HTTP/1.1, as detected.
    public let version: HTTPVersion
    /// The client's certificate, when mutual TLS asked for one and it verified.
    public let peerCertificate: PeerCertificate?
    /// The loop this connection lives on.
    public let eventLoop: EventLoop
    /// The session, until the connection closes. Strong, and cleared on close, because a
    /// weak reference would push every retain of the session onto the slow refcount path.
    var controller: ConnectionController?
    /// Values by key type, each in a ``StateSlot`` of its own type: reading one back is a
    /// class cast, where a cast out of `any Sendable` costs a generic dynamic cast on every
    /// request of a handler that keeps per-connection state.
    @usableFromInline let state = Mutex<[ObjectIdentifier: any AnyObject & Sendable]>([:])

    init(
        id: UInt64, remoteAddress: SocketAddress?, localAddress: SocketAddress?, isSecure: Bool,
        applicationProtocol: String?, version: HTTPVersion, peerCertificate: PeerCertificate?, eventLoop: EventLoop
    ) {
        self.id = id
        self.remoteAddress = remoteAddress
        self.localAddress = localAddress
        self.isSecure = isSecure
        self.applicationProtocol = applicationProtocol
        self.version = version
        self.peerCertificate = peerCertificate
        self.eventLoop = eventLoop
    }

    /// Per-connection state stored under `key`; nil until set.
    ///
    /// Inlinable so that a handler reading its state on every request gets a copy
    /// specialized to its key: unspecialized, finding the `StateSlot<Value>` class to cast
    /// to is a generic metadata lookup per read, half the cost of the read.
    @inlinable
    public subscript<Key: HTTPConnectionStateKey>(key: Key.Type) -> Key.Value? {
        get { (state.withLock { $0[ObjectIdentifier(key)] } as? StateSlot<Key.Value>)?.value }
        set { state.withLock { $0[ObjectIdentifier(key)] = newValue.map(StateSlot.init) } }
    }

    /// Atomically reads and updates the state under `key`.
    public func withState<Key: HTTPConnectionStateKey, Result>(
        _ key: Key.Type, _ body: (inout Key.Value?) throws -> Result
    ) rethrows -> Result {
        try state.withLock { storage in
            var value = (storage[ObjectIdentifier(key)] as? StateSlot<Key.Value>)?.value
            defer { storage[ObjectIdentifier(key)] = value.map(StateSlot.init) }
            return try body(&value)
        }
    }

    /// Changes SETTINGS_MAX_CONCURRENT_STREAMS for this HTTP/2 connection.
    public func setMaxConcurrentStreams(_ value: Int) {
        onLoop { $0.setMaxConcurrentStreams(value) }
    }

    /// Sends GOAWAY: streams in flight finish, then the connection closes.
    ///
    /// - Parameters:
    ///   - errorCode: the HTTP/2 error code; `.noError` for a graceful close.
    ///   - debugData: opaque bytes for the peer, such as APNs' `{"reason":"..."}`.
    public func sendGoAway(errorCode: HTTP2ErrorCode = .noError, debugData: [UInt8] = []) {
        onLoop { $0.sendGoAway(errorCode: errorCode, debugData: debugData) }
    }

    /// Closes the connection after writing what is already queued.
    public func close() {
        onLoop { $0.closeConnection() }
    }

    /// Stops reading requests from the peer until ``resumeReading()`` has been called as many
    /// times. Requests already read are still handled and answers still go out; the peer's
    /// further bytes wait in the kernel, so its sends stall (TCP flow control). A server that
    /// cannot keep up with its handler's work (a disk behind) uses it to stay bounded.
    public func pauseReading() {
        onLoop { $0.pauseReading() }
    }

    /// Undoes one ``pauseReading()``; the last one starts reading again.
    public func resumeReading() {
        onLoop { $0.resumeReading() }
    }

    func onLoop(_ body: @escaping @Sendable (ConnectionController) -> Void) {
        if eventLoop.inEventLoop {
            if let controller { body(controller) }
        } else {
            // Refused only once the loop has stopped, which closed this connection: there is
            // nothing left to control.
            try? eventLoop.execute { [self] in
                if let controller = self.controller { body(controller) }
            }
        }
    }

    public var description: String {
        "connection #\(id) from \(remoteAddress?.description ?? "?") (\(version.rawValue)\(isSecure ? ", TLS" : ""))"
    }

    public static func == (lhs: HTTPConnection, rhs: HTTPConnection) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// One per-connection state value, boxed under its own type (see `HTTPConnection.state`).
@usableFromInline
final class StateSlot<Value: Sendable>: Sendable {
    @usableFromInline let value: Value

    @usableFromInline
    init(_ value: Value) {
        self.value = value
    }
}
