import APNsCore
import Foundation
import HermesContract
import StrictJSON
import Synchronization
internal import SystemSeam

/// The agent's registered devices, in a JSON file that survives restarts.
///
/// Every change rewrites the whole file atomically: the new list goes to a temporary
/// file in the same folder, is flushed to disk, then renamed over the old one, so a crash
/// at any moment leaves either the old or the new list. Changes are serialized; the store
/// is safe to share between threads.
///
/// ```swift
/// let store = try HermesDeviceStore(path: "~/.hermes/push-devices.json")
/// try store.register(HermesRegisteredDevice(deviceToken: hex, environment: .sandbox, appVersion: "1.4.0"))
/// try store.prune(deviceToken: hex)        // the gateway answered 410
/// ```
public final class HermesDeviceStore: Sendable {
    /// The file the devices are kept in.
    public let path: String
    private let devices: Mutex<[HermesRegisteredDevice]>

    /// The file's format version.
    static let formatVersion: Int64 = 1

    /// Opens the store at `path`, loading what it holds; a missing file is an empty store.
    ///
    /// - Throws: ``HermesDeviceStoreError`` when the file cannot be read or is not a device list.
    public init(path: String) throws(HermesDeviceStoreError) {
        self.path = path
        self.devices = Mutex(try Self.load(path: path))
    }

    /// Every registered device, in registration order.
    public var all: [HermesRegisteredDevice] { devices.withLock { $0 } }

    /// How many devices are registered.
    public var count: Int { devices.withLock { $0.count } }

    /// Adds a device, or updates the one with the same token (a re-registration moves it
    /// to the end).
    ///
    /// - Throws: ``HermesDeviceStoreError`` when the token is not one the gateway accepts
    ///   (``HermesPushRequest/deviceTokenHexDigits`` hex digits) or the file cannot be
    ///   written; the store is then unchanged.
    public func register(_ device: HermesRegisteredDevice) throws(HermesDeviceStoreError) {
        // The gateway's rule: a token it would refuse with 400 on every push is refused here,
        // once, where the app can be told.
        guard let token = HermesPushRequest.deviceToken(device.deviceToken) else { throw .invalidDeviceToken }
        var device = device
        device.deviceToken = token.hex
        try change { list in
            list.removeAll { $0.deviceToken == token.hex }
            list.append(device)
            return true
        }
    }

    /// Removes a device the app unregistered.
    ///
    /// - Returns: Whether it was registered.
    @discardableResult
    public func unregister(deviceToken: String) throws(HermesDeviceStoreError) -> Bool {
        guard let token = DeviceToken(deviceToken) else { throw .invalidDeviceToken }
        return try change { list in
            let before = list.count
            list.removeAll { $0.deviceToken == token.hex }
            return list.count != before
        }
    }

    /// Removes a device APNs reported gone (the gateway answered 410).
    ///
    /// - Returns: Whether it was registered.
    @discardableResult
    public func prune(deviceToken: String) throws(HermesDeviceStoreError) -> Bool {
        try unregister(deviceToken: deviceToken)
    }

    /// Applies `body` to the list and saves it, under the lock so saves happen in order.
    @discardableResult
    private func change(_ body: (inout [HermesRegisteredDevice]) -> Bool) throws(HermesDeviceStoreError) -> Bool {
        try devices.withLock { (list: inout [HermesRegisteredDevice]) throws(HermesDeviceStoreError) -> Bool in
            var updated = list
            guard body(&updated) else { return false }
            try Self.save(updated, path: path)
            list = updated
            return true
        }
    }

    // MARK: File format

    /// `{"version":1,"devices":[{"device_token":…,"apns_env":…,"app_version":…,"registered_at":<unix seconds>}]}`
    static func encode(_ devices: [HermesRegisteredDevice]) -> [UInt8] {
        let list = devices.map { device -> JSONValue in
            .object(["device_token": .string(device.deviceToken), "apns_env": .string(device.environment.rawValue),
                     "app_version": .string(device.appVersion),
                     "registered_at": .integer(Int64(device.registeredAt.timeIntervalSince1970.rounded(.down)))])
        }
        var output: [UInt8] = []
        JSONWriter.writeObject([("version", .integer(formatVersion)), ("devices", .array(list))], into: &output)
        output.append(UInt8(ascii: "\n"))
        return output
    }

    static func decode(_ bytes: [UInt8], path: String) throws(HermesDeviceStoreError) -> [HermesRegisteredDevice] {
        func corrupt(_ detail: String) -> HermesDeviceStoreError { .corrupt(path: path, detail: detail) }
        let root: JSONValue
        do { root = try JSONParser.parse(bytes, maximumDepth: 4) } catch { throw corrupt(error.description) }
        guard case .object(let members) = root, case .array(let list)? = members["devices"] else {
            throw corrupt("expected an object with a \"devices\" array")
        }
        guard members["version"] == .integer(formatVersion) else { throw corrupt("unknown version, expected 1") }
        var devices: [HermesRegisteredDevice] = []
        for (index, entry) in list.enumerated() {
            guard case .object(let fields) = entry,
                  let token = fields["device_token"]?.stringValue.flatMap({ DeviceToken($0) }),
                  let environment = fields["apns_env"]?.stringValue.flatMap(HermesAPNsEnvironment.init(rawValue:)),
                  let appVersion = fields["app_version"]?.stringValue,
                  case .integer(let registeredAt)? = fields["registered_at"]
            else { throw corrupt("device \(index) lacks device_token, apns_env, app_version or registered_at") }
            devices.append(HermesRegisteredDevice(deviceToken: token.hex, environment: environment, appVersion: appVersion,
                                                  registeredAt: Date(timeIntervalSince1970: TimeInterval(registeredAt))))
        }
        return devices
    }

    private static func load(path: String) throws(HermesDeviceStoreError) -> [HermesRegisteredDevice] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .io(path: path, detail: "\(error)")
        }
        return try decode(Array(data), path: path)
    }

    /// Writes a temporary file beside `path`, flushes it, and renames it over `path`.
    private static func save(_ devices: [HermesRegisteredDevice], path: String) throws(HermesDeviceStoreError) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil,
                                                 attributes: [.posixPermissions: 0o600]) else {
                throw HermesDeviceStoreError.io(path: temporary.path, detail: "cannot create the temporary file")
            }
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            try handle.write(contentsOf: encode(devices))
            try handle.synchronize()
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw .io(path: path, detail: "\(error)")
        }
        guard rename(temporary.path, path) == 0 else {
            let detail = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw .io(path: path, detail: "rename failed: \(detail)")
        }
    }
}
