import APNsCapture
import Foundation

/// The control API's filter query parameters for a ``CaptureFilter`` (docs/control-api.md).
enum PushQuery {
    /// `name=value` pairs, percent-encoded, in the order the documentation lists them.
    static func parameters(for filter: CaptureFilter) -> [String] {
        var pairs: [(String, String)] = []
        if let token = filter.deviceToken { pairs.append(("device_token", token.hex)) }
        if let prefix = filter.deviceTokenPrefix { pairs.append(("device_token_prefix", prefix)) }
        if let topic = filter.topic { pairs.append(("topic", topic)) }
        if let pushType = filter.pushType { pairs.append(("push_type", pushType.rawValue)) }
        if let environment = filter.environment { pairs.append(("environment", environment.rawValue)) }
        switch filter.outcome {
        case .accepted?: pairs.append(("outcome", "accepted"))
        case .rejected?: pairs.append(("outcome", "rejected"))
        case nil: break
        }
        if let reason = filter.reason { pairs.append(("reason", reason.description)) }
        if let apnsID = filter.apnsID { pairs.append(("apns_id", apnsID)) }
        if let uniqueID = filter.uniqueID { pairs.append(("unique_id", uniqueID)) }
        if let since = filter.since { pairs.append(("since", String(milliseconds(since)))) }
        if let until = filter.until { pairs.append(("until", String(milliseconds(until)))) }
        return pairs.map { "\($0.0)=\(encoded($0.1))" }
    }

    /// `path` with `parameters` as its query.
    static func path(_ path: String, _ parameters: [String]) -> String {
        parameters.isEmpty ? path : path + "?" + parameters.joined(separator: "&")
    }

    /// Epoch milliseconds, rounded down so `since` keeps a record of that very millisecond.
    private static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// Percent-encodes all but RFC 3986's unreserved characters.
    static func encoded(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }
}
