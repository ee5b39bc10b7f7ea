import APNsCore
import StrictJSON

/// `POST …/register` (contract §2.2): the plugin asks for a capability for one device
/// token, and sends it instead of an HMAC from then on.
public enum HermesRegistration {
    /// The request body: `{"device_token":"<hex>"}`.
    public static func requestBody(deviceToken: String) -> [UInt8] {
        var output: [UInt8] = []
        JSONWriter.writeObject([("device_token", .string(deviceToken))], into: &output)
        return output
    }

    /// Reads the device token from a request body: an even number of hex digits within
    /// ``HermesPushRequest/deviceTokenHexDigits``, as `/push` requires.
    ///
    /// - Parameters:
    ///   - bytes: the request body.
    ///   - maximumBodySize: the largest body accepted (the gateway's configured limit).
    /// - Throws: ``HermesRequestError`` when the body is not `{"device_token":"<hex>"}`.
    public static func deviceToken(
        fromRequestBody bytes: [UInt8], maximumBodySize: Int = HermesPushRequest.maximumBodySize
    ) throws(HermesRequestError) -> DeviceToken {
        guard bytes.count <= maximumBodySize else {
            throw .invalidValue(field: "body", reason: "is larger than \(maximumBodySize) bytes")
        }
        let text = try HermesFields(bytes: bytes).requiredString("device_token")
        guard let token = HermesPushRequest.deviceToken(text) else {
            throw .invalidValue(field: "device_token", reason: HermesPushRequest.deviceTokenRule)
        }
        return token
    }

    /// The answer body: `{"capability":"<string>"}`.
    public static func responseBody(capability: String) -> [UInt8] {
        var output: [UInt8] = []
        JSONWriter.writeObject([("capability", .string(capability))], into: &output)
        return output
    }

    /// Reads the capability from an answer body.
    public static func capability(fromResponseBody bytes: [UInt8]) throws(HermesRequestError) -> String {
        let capability = try HermesFields(bytes: bytes).requiredString("capability")
        guard !capability.isEmpty else { throw .invalidValue(field: "capability", reason: "must not be empty") }
        return capability
    }
}
