import StrictJSON

/// Field names of the `simulator_forwarding` section (``SimulatorForwardingSettings``).
enum SimulatorForwardingKey {
    static let section = "simulator_forwarding"
    static let device = "device"
    static let queueCapacity = "queue_capacity"
    static let timeoutSeconds = "timeout_seconds"
    static let all = [device, queueCapacity, timeoutSeconds]
}

extension ConfigurationJSON {
    /// Reads the `simulator_forwarding` section: `{"device":"booted"}`, with `queue_capacity`
    /// and `timeout_seconds` optional. `null` turns forwarding off.
    ///
    /// - Throws: ``ConfigurationError`` naming the field, such as `simulator_forwarding.device`.
    static func decodeSimulatorForwarding(
        _ json: JSONValue, base: SimulatorForwardingSettings?
    ) throws(ConfigurationError) -> SimulatorForwardingSettings? {
        typealias Key = SimulatorForwardingKey
        if case .null = json { return nil }
        let object = try JSONObjectReader(json, path: Key.section, allowed: Key.all)
        let device = try object.string(Key.device) ?? base?.device
        guard let device else {
            throw ConfigurationError(.missingField, path: object.path(Key.device),
                                     "expected the simulator to forward to: a UDID, a name or \"\(SimulatorForwardingSettings.bootedDevice)\"")
        }
        var settings = base ?? SimulatorForwardingSettings(device: device)
        settings.device = device
        let capacities = SimulatorForwardingSettings.queueCapacities
        if let value = try object.integer(Key.queueCapacity, in: Int64(capacities.lowerBound)...Int64(capacities.upperBound)) {
            settings.queueCapacity = Int(value)
        }
        if let value = try object.number(Key.timeoutSeconds, in: SimulatorForwardingSettings.commandTimeoutSeconds) {
            settings.commandTimeout = .milliseconds(Int64((value * 1000).rounded()))
        }
        return settings
    }
}
