/// A GOAWAY frame the server sent (RFC 9113 section 6.8).
public struct HTTP2GoAway: Sendable, Hashable, CustomStringConvertible {
    /// Why the server is going away; `.noError` for a graceful shutdown.
    public var errorCode: HTTP2ErrorCode
    /// The highest stream the server may have processed; streams above it were not processed.
    public var lastStreamID: Int32
    /// Opaque bytes from the server; APNs sends `{"reason":"..."}`.
    public var debugData: [UInt8]

    /// A GOAWAY value, for tests and adapters.
    public init(errorCode: HTTP2ErrorCode, lastStreamID: Int32, debugData: [UInt8]) {
        self.errorCode = errorCode
        self.lastStreamID = lastStreamID
        self.debugData = debugData
    }

    /// What the server has said once `later` follows this GOAWAY on the same connection.
    ///
    /// A server may send several (RFC 9113 section 6.8: a graceful one, then the final one),
    /// and APNs follows a fatal GOAWAY carrying `{"reason":…}` with a second one that has no
    /// debug data. The later frame's last stream (never higher, by the RFC) and error code
    /// win, but debug data it lacks, or an error it downgrades to `NO_ERROR`, are kept from
    /// this one: the reason stays known however many frames follow.
    public func followed(by later: HTTP2GoAway) -> HTTP2GoAway {
        HTTP2GoAway(errorCode: later.errorCode == .noError ? errorCode : later.errorCode,
                    lastStreamID: min(lastStreamID, later.lastStreamID),
                    debugData: later.debugData.isEmpty ? debugData : later.debugData)
    }

    /// `debugData` decoded as UTF-8, with invalid bytes replaced.
    public var debugText: String { String(decoding: debugData, as: UTF8.self) }

    /// The frame in words, such as `GOAWAY NO_ERROR (0x0) (last stream 9, debug data {"reason":"Shutdown"})`.
    public var description: String {
        let debug = debugData.isEmpty ? "no debug data" : "debug data \(debugText)"
        return "GOAWAY \(errorCode.wireName) (last stream \(lastStreamID), \(debug))"
    }
}
