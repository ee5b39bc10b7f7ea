import HermesContract

/// Why the device-token store could not load, save or accept a device.
public enum HermesDeviceStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The store file exists but is not a device list.
    case corrupt(path: String, detail: String)
    /// Reading or writing the file failed.
    case io(path: String, detail: String)
    /// The device token is not one the gateway accepts: an even number of hex digits within
    /// `HermesPushRequest.deviceTokenHexDigits`.
    case invalidDeviceToken

    public var description: String {
        switch self {
        case .corrupt(let path, let detail): "the device store \(path) is not valid (\(detail)); fix or delete it"
        case .io(let path, let detail): "cannot access the device store \(path): \(detail)"
        case .invalidDeviceToken: "the device token \(HermesPushRequest.deviceTokenRule)"
        }
    }
}
