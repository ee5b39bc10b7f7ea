import Foundation
import StrictJSON

/// Hands each accepted alert push to a booted iOS Simulator with `xcrun simctl push DEVICE
/// BUNDLE FILE` (docs/macos.md): off unless set (``MockConfiguration/simulatorForwarding``,
/// the file's `simulator_forwarding` section, `apns-mock --forward-to-simulator DEVICE`).
///
/// The commands run one at a time on a worker thread of their own (``SimulatorForwarder``);
/// the push path only adds to a queue of ``queueCapacity`` pushes, and a push that finds it
/// full is dropped from forwarding (still answered and captured) and counted in `/metrics`.
public struct SimulatorForwardingSettings: Sendable, Hashable {
    /// The simulator: a UDID, a device name as `simctl list` shows it, or `booted`.
    public var device: String
    /// Pushes that may wait for `xcrun`; one more is dropped and counted.
    public var queueCapacity: Int
    /// How long one `xcrun simctl push` may run before it is terminated and counted as failed.
    public var commandTimeout: Duration

    /// `booted`: the simulator `simctl` takes when there is only one running.
    public static let bootedDevice = "booted"
    /// 64 pushes: more than a test sends in a burst; `simctl push` takes about a tenth of a
    /// second each, so a longer queue only delays what the person is watching.
    public static let defaultQueueCapacity = 64
    /// 30 seconds: a first `simctl` call may wait for CoreSimulator's service to start.
    public static let defaultCommandTimeout = Duration.seconds(30)
    /// The queue capacities the settings take.
    public static let queueCapacities = 1...100_000
    /// The command timeouts the settings take, in seconds.
    public static let commandTimeoutSeconds = 0.01...3600.0
    /// The program forwarding runs, looked up in `PATH`.
    public static let xcrunName = "xcrun"

    /// Settings for `device` with every other default.
    public init(device: String, queueCapacity: Int = defaultQueueCapacity, commandTimeout: Duration = defaultCommandTimeout) {
        self.device = device
        self.queueCapacity = queueCapacity
        self.commandTimeout = commandTimeout
    }

    /// The `xcrun` a forwarder would run: the first executable of that name in `searchPath`
    /// (a `PATH` value), or nil when there is none, as on Linux or a Mac without Xcode's
    /// command line tools.
    public static func locateXcrun(searchPath: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        for folder in (searchPath ?? "").split(separator: ":", omittingEmptySubsequences: true) {
            let candidate = "\(folder)/\(xcrunName)"
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
               FileManager.default.isExecutableFile(atPath: candidate) {
                return candidate
            }
        }
        return nil
    }

    /// What a person reads when `xcrun` is missing.
    public static let missingXcrunMessage = "simulator forwarding runs `xcrun simctl push`, and no xcrun is on PATH: "
        + "it needs macOS with Xcode or its command line tools (xcode-select --install)"

    /// Checks the device name, the queue capacity and the timeout, and that `xcrun` is on `PATH`.
    ///
    /// - Throws: ``ConfigurationError`` naming the field, such as `simulator_forwarding.queue_capacity`.
    public func validate() throws(ConfigurationError) {
        try validate(path: SimulatorForwardingKey.section)
    }

    func validate(path: String) throws(ConfigurationError) {
        try validateRanges(path: path)
        guard Self.locateXcrun() != nil else {
            throw ConfigurationError(.invalidValue, path: JSONField.path(path, SimulatorForwardingKey.device), Self.missingXcrunMessage)
        }
    }

    /// ``validate()`` without looking for `xcrun`.
    func validateRanges(path: String = SimulatorForwardingKey.section) throws(ConfigurationError) {
        func fail(_ field: String, _ message: String) -> ConfigurationError {
            ConfigurationError(.invalidValue, path: JSONField.path(path, field), message)
        }
        // simctl reads an argument starting with '-' as an option, and a control character
        // cannot name a device.
        let hasControl = device.unicodeScalars.contains { $0.properties.generalCategory == .control }
        guard !device.isEmpty, !device.hasPrefix("-"), !hasControl else {
            throw fail(SimulatorForwardingKey.device, "expected a simulator UDID, name or \"\(Self.bootedDevice)\", found \(JSONValue.string(device))")
        }
        guard Self.queueCapacities.contains(queueCapacity) else {
            throw fail(SimulatorForwardingKey.queueCapacity,
                       "expected an integer \(Self.queueCapacities.lowerBound)-\(Self.queueCapacities.upperBound), found \(queueCapacity)")
        }
        let seconds = Double(commandTimeout.components.seconds) + Double(commandTimeout.components.attoseconds) / 1e18
        guard Self.commandTimeoutSeconds.contains(seconds) else {
            throw fail(SimulatorForwardingKey.timeoutSeconds, "expected a number of seconds 0.01-3600, found \(seconds)")
        }
    }
}
