import Synchronization

/// Live and total counts for a server, readable at any time from any thread.
public struct TransportMetrics: Sendable, Hashable {
    /// Connections accepted and not yet closed.
    public var openConnections: Int
    /// HTTP/2 streams and HTTP/1.1 requests begun and not yet finished.
    public var openStreams: Int
    /// Connections accepted since start.
    public var acceptedConnections: Int
    /// Connections closed at once because `maxConnections` was reached (or the server was
    /// shutting down), or `maxConnectionsPerSource` was.
    public var rejectedConnections: Int
    /// Of ``rejectedConnections``, those closed because their client already held
    /// `maxConnectionsPerSource`.
    public var rejectedSourceConnections: Int
    /// Complete requests handed to the handler since start.
    public var requests: Int
    /// Requests answered 408 since start, because they had not arrived whole within
    /// `HTTPServerConfiguration.requestReadTimeout`, or their headers within `requestHeadersTimeout`.
    public var timedOutRequests: Int
    /// HTTP/2 connections closed because the client's preface and first SETTINGS frame did
    /// not arrive within `HTTPServerConfiguration.connectionPrefaceTimeout`.
    public var prefaceTimeouts: Int
    /// Times the listener stopped accepting for a while because the process or the system
    /// ran out of file descriptors (`EMFILE`, `ENFILE`); see `HTTPServer`.
    public var acceptPauses: Int

    public init(openConnections: Int, openStreams: Int, acceptedConnections: Int, rejectedConnections: Int, requests: Int,
                timedOutRequests: Int = 0, rejectedSourceConnections: Int = 0, prefaceTimeouts: Int = 0,
                acceptPauses: Int = 0) {
        self.openConnections = openConnections
        self.openStreams = openStreams
        self.acceptedConnections = acceptedConnections
        self.rejectedConnections = rejectedConnections
        self.rejectedSourceConnections = rejectedSourceConnections
        self.requests = requests
        self.timedOutRequests = timedOutRequests
        self.prefaceTimeouts = prefaceTimeouts
        self.acceptPauses = acceptPauses
    }
}

/// The atomics behind `TransportMetrics`.
final class TransportCounters: Sendable {
    let openConnections = Atomic<Int>(0)
    let openStreams = Atomic<Int>(0)
    let acceptedConnections = Atomic<Int>(0)
    let rejectedConnections = Atomic<Int>(0)
    let rejectedSourceConnections = Atomic<Int>(0)
    let requests = Atomic<Int>(0)
    let timedOutRequests = Atomic<Int>(0)
    let prefaceTimeouts = Atomic<Int>(0)
    let acceptPauses = Atomic<Int>(0)
    /// The most output one closed connection held waiting for its peer to read
    /// (`ByteStream.peakPendingOutput`): what the per-connection bound is checked against.
    let largestHeldOutput = Atomic<Int>(0)
    /// Times `BurstMemoryTrim` gave free memory back to the system.
    let memoryTrims = Atomic<Int>(0)

    func recordHeldOutput(_ bytes: Int) {
        var current = largestHeldOutput.load(ordering: .relaxed)
        while bytes > current {
            let (exchanged, original) = largestHeldOutput.compareExchange(
                expected: current, desired: bytes, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    var snapshot: TransportMetrics {
        TransportMetrics(
            openConnections: openConnections.load(ordering: .relaxed),
            openStreams: openStreams.load(ordering: .relaxed),
            acceptedConnections: acceptedConnections.load(ordering: .relaxed),
            rejectedConnections: rejectedConnections.load(ordering: .relaxed),
            requests: requests.load(ordering: .relaxed),
            timedOutRequests: timedOutRequests.load(ordering: .relaxed),
            rejectedSourceConnections: rejectedSourceConnections.load(ordering: .relaxed),
            prefaceTimeouts: prefaceTimeouts.load(ordering: .relaxed),
            acceptPauses: acceptPauses.load(ordering: .relaxed))
    }
}
