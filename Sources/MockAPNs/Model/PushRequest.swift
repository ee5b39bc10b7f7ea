import Foundation
import HTTPTransport
import JWTVerify

/// One request to the mock's APNs endpoint, independent of the transport that carried it.
public struct PushRequest: Sendable {
    /// `:method`.
    public var method: String
    /// `:path`, such as `/3/device/<token>`.
    public var path: String
    /// Regular headers in wire order, duplicates included.
    public var headers: HTTPHeaders
    /// The body bytes as received.
    public var body: [UInt8]
    /// The listener the request arrived on.
    public var environment: APNsEnvironment
    /// The HTTP/2 connection it arrived on, for per-connection rules.
    public var connectionID: UInt64
    /// When it arrived.
    public var receivedAt: Date
    /// Set when the body grew past this many bytes and the transport stopped reading it:
    /// `body` is then empty, and the push is too large whatever else it held.
    public var oversizedBodyLimit: Int?
    /// Set when the header list grew past this many bytes (RFC 9113 size) and the transport
    /// stopped reading the request: `headers` then holds only the fields that fit, in wire
    /// order, `body` is empty, and the push is answered 431 whatever else it held.
    public var oversizedHeaderListLimit: Int?

    public init(
        method: String, path: String, headers: HTTPHeaders, body: [UInt8],
        environment: APNsEnvironment, connectionID: UInt64, receivedAt: Date
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.environment = environment
        self.connectionID = connectionID
        self.receivedAt = receivedAt
    }
}
