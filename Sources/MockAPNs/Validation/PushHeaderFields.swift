import APNsCore
import HTTPTransport
import StrictJSON

/// The APNs headers of one request, gathered in a single pass over the header list.
///
/// One pass instead of a lookup per header: each `HTTPHeaders` lookup is a linear scan,
/// and validation runs for every push. Names are matched in any letter case.
struct PushHeaderFields {
    var authorization: String?
    var pushType: String?
    var id: String?
    var expiration: String?
    var priority: String?
    var topic: String?
    var collapseID: String?
    /// `apns-channel-id` and `apns-request-id`, which only broadcasts define.
    var channelID: String?
    var requestID: String?
    /// `apns-*` names the device-push API does not define, lowercased, in wire order.
    var unknownAPNsNames: [String] = []
    /// The first `apns-*` or `authorization` name that appeared twice.
    var repeatedName: String?

    init(_ headers: HTTPHeaders) {
        // Through the buffer, so that each field is read in place: iterating the headers
        // copied every name and value (a retain and a release each) only to look at them.
        headers.fields.withUnsafeBufferPointer { fields in
            for field in fields { record(field) }
        }
    }

    private mutating func record(_ field: HTTPHeaders.Field) {
        switch Self.recognize(field.name) {
        case nil: return
        case .authorization: Self.record(field.value, APNsHeaderName.authorization, in: &authorization, repeated: &repeatedName)
        case .pushType: Self.record(field.value, APNsHeaderName.pushType, in: &pushType, repeated: &repeatedName)
        case .id: Self.record(field.value, APNsHeaderName.id, in: &id, repeated: &repeatedName)
        case .expiration: Self.record(field.value, APNsHeaderName.expiration, in: &expiration, repeated: &repeatedName)
        case .priority: Self.record(field.value, APNsHeaderName.priority, in: &priority, repeated: &repeatedName)
        case .topic: Self.record(field.value, APNsHeaderName.topic, in: &topic, repeated: &repeatedName)
        case .collapseID: Self.record(field.value, APNsHeaderName.collapseID, in: &collapseID, repeated: &repeatedName)
        case .channelID: Self.record(field.value, APNsHeaderName.channelID, in: &channelID, repeated: &repeatedName)
        case .requestID: Self.record(field.value, APNsHeaderName.requestID, in: &requestID, repeated: &repeatedName)
        case .otherAPNs:
            let name = field.name.lowercased()
            if unknownAPNsNames.contains(name) {
                if repeatedName == nil { repeatedName = name }
            } else {
                unknownAPNsNames.append(name)
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

    /// The headers validation reads, and the other `apns-*` names.
    private enum Recognized {
        case authorization, pushType, id, expiration, priority, topic, collapseID, channelID, requestID, otherAPNs
    }

    /// Which header `name` is, from its bytes: its length picks the one known name it can
    /// be, and one case-folding comparison decides. Lowercasing every name and comparing
    /// it with each known name in turn would cost several times more, on every header of every push.
    private static func recognize(_ name: String) -> Recognized? {
        name.withBorrowedUTF8 { bytes -> Recognized? in
            if equalsIgnoringCase(bytes, "authorization") { return .authorization }
            guard bytes.count > 5, equalsIgnoringCase(UnsafeBufferPointer(rebasing: bytes[..<5]), "apns-") else { return nil }
            let known: (name: StaticString, header: Recognized)? =
                switch bytes.count {
                case 7: ("apns-id", .id)
                case 10: ("apns-topic", .topic)
                case 13: ("apns-priority", .priority)
                case 14: ("apns-push-type", .pushType)
                case 15: ("apns-expiration", .expiration)
                case 16: ("apns-collapse-id", .collapseID)
                default: nil
                }
            if let known, equalsIgnoringCase(bytes, known.name) { return known.header }
            // Three names have 15 bytes; the broadcast ones are tried only when the first is not it.
            if bytes.count == 15 {
                if equalsIgnoringCase(bytes, "apns-channel-id") { return .channelID }
                if equalsIgnoringCase(bytes, "apns-request-id") { return .requestID }
            }
            return .otherAPNs
        }
    }

    /// Whether `bytes` spell the ASCII `name` in any letter case.
    private static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        bytes.equalsIgnoringASCIICase(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }
}
