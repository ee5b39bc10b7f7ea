import APNsCore
import HTTPTransport

/// The APNs headers of one request, gathered in a single pass over the header list.
///
/// One pass instead of a lookup per header: each `HTTPHeaders` lookup is a linear scan,
/// and validation runs for every push. Names from HTTP/2 are lowercase on the wire, so
/// an exact comparison is the fast path; other spellings are folded first.
struct PushHeaderFields {
    /// Every `apns-*` name begins with this.
    static let apnsPrefix = "apns-"

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
            switch name {
            case APNsHeaderName.authorization: Self.record(field.value, name, in: &authorization, repeated: &repeatedName)
            case APNsHeaderName.pushType: Self.record(field.value, name, in: &pushType, repeated: &repeatedName)
            case APNsHeaderName.id: Self.record(field.value, name, in: &id, repeated: &repeatedName)
            case APNsHeaderName.expiration: Self.record(field.value, name, in: &expiration, repeated: &repeatedName)
            case APNsHeaderName.priority: Self.record(field.value, name, in: &priority, repeated: &repeatedName)
            case APNsHeaderName.topic: Self.record(field.value, name, in: &topic, repeated: &repeatedName)
            case APNsHeaderName.collapseID: Self.record(field.value, name, in: &collapseID, repeated: &repeatedName)
            default:
                guard name.utf8.starts(with: Self.apnsPrefix.utf8) else { continue }
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
        for byte in name.utf8 where byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") {
            return name.lowercased()
        }
        return name
    }
}
