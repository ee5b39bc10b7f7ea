import APNsCore
import Foundation
import JWTVerify
import StrictJSON

extension ConfigurationJSON {
    /// Devices as a JSON array sorted by token.
    ///
    /// ```json
    /// [{"bundle_id":"com.example.app","environment":"sandbox","state":"unregistered",
    ///   "token":"…","unregistered_since":"2024-05-01T12:00:00.000Z"}]
    /// ```
    public static func encodeDevices(_ devices: [DeviceToken: RegisteredDevice]) -> JSONValue {
        .array(devices.values.sorted { $0.token.hex < $1.token.hex }.map { device in
            var members: [String: JSONValue] = [
                DeviceEntryKey.token: .string(device.token.hex), DeviceEntryKey.bundleID: .string(device.bundleID),
                DeviceEntryKey.environment: .string(device.environment.rawValue),
            ]
            switch device.state {
            case .active:
                members[DeviceEntryKey.state] = .string(DeviceEntryKey.active)
            case .unregistered(let since):
                members[DeviceEntryKey.state] = .string(DeviceEntryKey.unregistered)
                members[DeviceEntryKey.unregisteredSince] = ConfigurationTime.encode(since)
            case .expired:
                members[DeviceEntryKey.state] = .string(DeviceEntryKey.expired)
            }
            return .object(members)
        })
    }

    /// Decodes a JSON array of devices.
    ///
    /// Each has `token` (hex), `bundle_id`, `environment` (`production` or `sandbox`) and an
    /// optional `state`: `active` (the default), `unregistered` with `unregistered_since`
    /// (ISO-8601 or milliseconds since 1970), or `expired`.
    ///
    /// - Parameters:
    ///   - json: The array.
    ///   - path: Its JSON path, for errors.
    ///   - bundleIDs: When given, each device's `bundle_id` must be one of these.
    /// - Throws: ``ConfigurationError`` naming the field, or `.duplicateID` for a repeated token.
    public static func decodeDevices(
        _ json: JSONValue, path: String = "devices", bundleIDs: Set<String>? = nil
    ) throws(ConfigurationError) -> [DeviceToken: RegisteredDevice] {
        var devices: [DeviceToken: RegisteredDevice] = [:]
        for (index, element) in try JSONField.array(json, path: path).enumerated() {
            let object = try JSONObjectReader(element, path: JSONField.path(path, index), allowed: DeviceEntryKey.all)
            let tokenText = try object.requiredString(DeviceEntryKey.token)
            guard let token = DeviceToken(tokenText) else {
                throw ConfigurationError(
                    .invalidValue, path: object.path(DeviceEntryKey.token),
                    "expected an even number of hex digits, \(JSONField.found(.string(tokenText)))")
            }
            let bundleID = try object.requiredString(DeviceEntryKey.bundleID)
            if let bundleIDs, !bundleIDs.contains(bundleID) {
                throw ConfigurationError(
                    .invalidValue, path: object.path(DeviceEntryKey.bundleID),
                    "expected one of the apps (\(bundleIDs.sorted().joined(separator: ", "))), \(JSONField.found(.string(bundleID)))")
            }
            let environmentText = try object.requiredString(DeviceEntryKey.environment)
            guard let environment = APNsEnvironment(rawValue: environmentText) else {
                throw ConfigurationError(
                    .invalidValue, path: object.path(DeviceEntryKey.environment),
                    "expected \"production\" or \"sandbox\", \(JSONField.found(.string(environmentText)))")
            }
            let device = RegisteredDevice(
                token: token, bundleID: bundleID, environment: environment, state: try state(object))
            guard devices.updateValue(device, forKey: token) == nil else {
                throw ConfigurationError(.duplicateID, path: object.path(DeviceEntryKey.token), "duplicate device token \(token.masked)")
            }
        }
        return devices
    }

    private static func state(_ object: JSONObjectReader) throws(ConfigurationError) -> DeviceState {
        let text = try object.string(DeviceEntryKey.state) ?? DeviceEntryKey.active
        let since = object.value(DeviceEntryKey.unregisteredSince)
        switch text {
        case DeviceEntryKey.unregistered:
            guard let since else {
                throw ConfigurationError(
                    .missingField, path: object.path(DeviceEntryKey.unregisteredSince), "required when state is \"unregistered\"")
            }
            return .unregistered(since: try ConfigurationTime.decode(since, path: object.path(DeviceEntryKey.unregisteredSince)))
        case DeviceEntryKey.active, DeviceEntryKey.expired:
            guard since == nil else {
                throw ConfigurationError(
                    .invalidValue, path: object.path(DeviceEntryKey.unregisteredSince), "allowed only when state is \"unregistered\"")
            }
            return text == DeviceEntryKey.active ? .active : .expired
        default:
            throw ConfigurationError(
                .invalidValue, path: object.path(DeviceEntryKey.state),
                "expected one of \(DeviceEntryKey.states.joined(separator: ", ")), \(JSONField.found(.string(text)))")
        }
    }
}
