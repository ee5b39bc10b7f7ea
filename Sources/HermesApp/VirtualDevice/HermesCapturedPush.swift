import Foundation

/// Reads the mock control API's `{"pushes":[record,…]}` answers (docs/capture-format.md):
/// only the members the virtual device needs, tolerating any others.
enum HermesCapturedPush {
    struct Page {
        var records: [HermesDelivery]
    }

    /// - Throws: ``HermesVirtualDeviceError/unexpectedAnswer(_:)`` when the body is not
    ///   the control API's shape.
    static func page(from body: Data) throws(HermesVirtualDeviceError) -> Page {
        guard let root = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let pushes = root["pushes"] as? [Any]
        else { throw .unexpectedAnswer("the body has no \"pushes\" array") }
        var records: [HermesDelivery] = []
        for case let push as [String: Any] in pushes {
            guard let sequence = integer(push["seq"]),
                  let payload = push["payload"] as? [String: Any],
                  let raw = payload["raw"] as? String
            else { throw .unexpectedAnswer("a record lacks seq or payload.raw") }
            let bytes: [UInt8]
            if payload["base64"] as? Bool == true {
                guard let data = Data(base64Encoded: raw) else { throw .unexpectedAnswer("payload.raw is not base64") }
                bytes = Array(data)
            } else {
                bytes = Array(raw.utf8)
            }
            records.append(HermesDelivery(
                sequence: sequence, apnsID: push["apns_id"] as? String, collapseID: push["collapse_id"] as? String,
                pushType: push["push_type"] as? String, priority: integer(push["priority"]),
                expiration: integer(push["expiration"]), topic: push["topic"] as? String,
                payload: bytes, outcome: nil))
        }
        return Page(records: records)
    }

    /// JSONSerialization gives NSNumber on Linux and Apple platforms alike; `as? Int`
    /// bridges it on both.
    private static func integer(_ value: Any?) -> Int? {
        value as? Int
    }
}
