import APNsCore
import StrictJSON

/// Field names of the `delivery` section and of a device's connectivity plan (the control
/// API's `PUT /delivery/devices/{token}` body is a plan).
enum DeliverySettingsKey {
    static let section = "delivery"
    static let enabled = "enabled"
    static let powerDelaySeconds = "power_delay_seconds"
    static let maximumStorageSeconds = "maximum_storage_seconds"
    static let backgroundBudget = "background_budget"
    static let notificationCentreLimit = "notification_centre_limit"
    static let devices = "devices"
    static let all = [enabled, powerDelaySeconds, maximumStorageSeconds, backgroundBudget, notificationCentreLimit, devices]

    static let count = "count"
    static let windowSeconds = "window_seconds"
    static let budgetKeys = [count, windowSeconds]

    static let deviceToken = "device_token"
    static let connectivity = "connectivity"
    static let offline = "offline"
    static let planKeys = [connectivity, offline]
    static let fromSeconds = "from_seconds"
    static let forSeconds = "for_seconds"
    static let windowKeys = [fromSeconds, forSeconds]
}

extension ConfigurationJSON {
    /// Up to a year, for every duration in the section.
    static let deliverySeconds: ClosedRange<Double> = 0...31_536_000

    /// Reads the `delivery` section over `base`.
    ///
    /// - Throws: ``ConfigurationError`` naming the field, such as `delivery.devices[0].offline[1].for_seconds`.
    static func decodeDelivery(_ json: JSONValue, base: DeliverySettings) throws(ConfigurationError) -> DeliverySettings {
        typealias Key = DeliverySettingsKey
        let object = try JSONObjectReader(json, path: Key.section, allowed: Key.all)
        var settings = base
        if let value = try object.bool(Key.enabled) { settings.enabled = value }
        if let value = try object.number(Key.powerDelaySeconds, in: deliverySeconds) { settings.powerDelay = value }
        if let value = try object.number(Key.maximumStorageSeconds, in: deliverySeconds) { settings.maximumStorage = value }
        if let budget = object.value(Key.backgroundBudget) {
            let fields = try JSONObjectReader(budget, path: object.path(Key.backgroundBudget), allowed: Key.budgetKeys)
            guard let count = try fields.integer(Key.count, in: 0...1_000_000),
                  let window = try fields.number(Key.windowSeconds, in: 0.001...deliverySeconds.upperBound) else {
                throw ConfigurationError(.missingField, path: fields.path, "expected both \(Key.count) and \(Key.windowSeconds)")
            }
            settings.backgroundBudget = DeliverySettings.BackgroundBudget(count: Int(count), window: window)
        }
        if let value = try object.integer(Key.notificationCentreLimit, in: 1...10_000) { settings.notificationCentreLimit = Int(value) }
        if let devices = try object.array(Key.devices) {
            settings.devices = [:]
            for (index, entry) in devices.enumerated() {
                let path = JSONField.path(object.path(Key.devices), index)
                let fields = try JSONObjectReader(entry, path: path, allowed: [Key.deviceToken] + Key.planKeys)
                let text = try fields.requiredString(Key.deviceToken)
                guard let token = DeviceToken(text) else {
                    throw ConfigurationError(.invalidValue, path: fields.path(Key.deviceToken), "expected hex digits, found \"\(text)\"")
                }
                settings.devices[token] = try decodeConnectivityPlan(entry, path: path, extra: [Key.deviceToken])
            }
        }
        return settings
    }

    /// Reads a device's plan: `{"connectivity":"offline","offline":[{"from_seconds":10,"for_seconds":30}]}`,
    /// each member optional (online, no windows).
    static func decodeConnectivityPlan(
        _ json: JSONValue, path: String, extra: [String] = []
    ) throws(ConfigurationError) -> DeviceConnectivityPlan {
        typealias Key = DeliverySettingsKey
        let fields = try JSONObjectReader(json, path: path, allowed: extra + Key.planKeys)
        var plan = DeviceConnectivityPlan()
        if let text = try fields.string(Key.connectivity) {
            guard let connectivity = DeviceConnectivity(rawValue: text) else {
                throw ConfigurationError(.invalidValue, path: fields.path(Key.connectivity), "expected \"online\" or \"offline\", found \"\(text)\"")
            }
            plan.connectivity = connectivity
        }
        for (index, window) in (try fields.array(Key.offline) ?? []).enumerated() {
            let entry = try JSONObjectReader(window, path: JSONField.path(fields.path(Key.offline), index), allowed: Key.windowKeys)
            guard let start = try entry.number(Key.fromSeconds, in: deliverySeconds),
                  let duration = try entry.number(Key.forSeconds, in: deliverySeconds) else {
                throw ConfigurationError(.missingField, path: entry.path, "expected both \(Key.fromSeconds) and \(Key.forSeconds)")
            }
            plan.offlineWindows.append(.init(start: start, duration: duration))
        }
        return plan
    }

    /// The `delivery` section as the file writes it.
    static func encodeDelivery(_ settings: DeliverySettings) -> JSONValue {
        typealias Key = DeliverySettingsKey
        var members: [String: JSONValue] = [
            Key.enabled: .bool(settings.enabled),
            Key.powerDelaySeconds: .double(settings.powerDelay),
            Key.maximumStorageSeconds: .double(settings.maximumStorage),
            Key.notificationCentreLimit: .integer(Int64(settings.notificationCentreLimit)),
        ]
        if let budget = settings.backgroundBudget {
            members[Key.backgroundBudget] = .object([Key.count: .integer(Int64(budget.count)), Key.windowSeconds: .double(budget.window)])
        }
        return .object(members)
    }
}
