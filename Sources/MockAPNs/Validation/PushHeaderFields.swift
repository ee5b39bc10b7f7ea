import APNsCore
import HTTPTransport
import StrictJSON

/// The APNs headers of one request, gathered in a single pass over the header list.
///
/// One pass instead of a lookup per header: each `HTTPHeaders` lookup is a linear scan,
/// and validation runs for every push. Names from HTTP/2 are lowercase on the wire, so
/// an exact comparison is the fast path; other spellings are folded first.
struct PushHeaderFields {
    /// Every `apns-*` name begins with this.
    static let apnsPrefix = "apns-"
    private static let apnsPrefixBytes = Array(apnsPrefix.utf8)

    var authorization: String?
    var pushType: String?
    var id: String?
    var expiration: String?
    var priority: String?
    var topic: String?
    var collapseID: String?
    /// `apns-*` names the device-push API does not define, lowercased, in wire order.
    var unknownAPNsNames: [String] = []
    /// The first `apns-*` or `authorization` name that appeared twice.
    var repeatedName: String?

    init(_ headers: HTTPHeaders) {
        for field in headers {
            let name = Self.lowercased(field.name)
            if name.utf8.count == APNsHeaderName.authorization.utf8.count, name == APNsHeaderName.authorization {
                Self.record(field.value, name, in: &authorization, repeated: &repeatedName)
                continue
            }
            // Most other headers (user-agent, content-length, ...) are not ours: one byte
            // comparison instead of a string comparison per case below.
            let isAPNs = name.withBorrowedUTF8 { bytes in
                bytes.count >= Self.apnsPrefixBytes.count && zip(bytes, Self.apnsPrefixBytes).allSatisfy { $0 == $1 }
            }
            guard isAPNs else { continue }
            switch name {
            case APNsHeaderName.pushType: Self.record(field.value, name, in: &pushType, repeated: &repeatedName)
            case APNsHeaderName.id: Self.record(field.value, name, in: &id, repeated: &repeatedName)
            case APNsHeaderName.expiration: Self.record(field.value, name, in: &expiration, repeated: &repeatedName)
            case APNsHeaderName.priority: Self.record(field.value, name, in: &priority, repeated: &repeatedName)
            case APNsHeaderName.topic: Self.record(field.value, name, in: &topic, repeated: &repeatedName)
            case APNsHeaderName.collapseID: Self.record(field.value, name, in: &collapseID, repeated: &repeatedName)
            default:
                if unknownAPNsNames.contains(name) {
                    if repeatedName == nil { repeatedName = name }
                } else {
                    unknownAPNsNames.append(name)
                }
            }
        }
    }

    /// Keeps the first value; notes the name if it was already present.
    private static func record(_ value: String, _ name: String, in slot: inout String?, repeated: inout String?) {
        if slot == nil {
            slot = value
        } else if repeated == nil {
            repeated = name
        }
    }

    /// `name` in lowercase; allocates only when it holds an uppercase letter.
    private static func lowercased(_ name: String) -> String {
        // HTTP/2 names arrive lowercase; checking the contiguous bytes keeps that case cheap.
        let hasUppercase = name.withBorrowedUTF8 { bytes in
            bytes.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
        }
        return hasUppercase ? name.lowercased() : name
    }
}
