/// How the agent proves to the gateway that it may push (contract §2.1).
public enum HermesGatewayAuthorization: Sendable, Hashable {
    /// `hmac`: HMAC-SHA256 of the request's canonical bytes under a secret shared with
    /// the gateway.
    case sharedSecret([UInt8])
    /// `capability`: an opaque string the gateway issues per device token through
    /// `/register`; fetched on first use, cached, and refreshed once after a 403.
    case capability
}
