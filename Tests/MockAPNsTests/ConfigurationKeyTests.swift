import Testing
@testable import MockAPNs

/// Every name the mock's JSON uses, in the configuration file and the control API, is
/// snake_case: lower-case ASCII letters, digits and underscores, starting with a letter.
@Suite struct ConfigurationKeyTests {
    static func isSnakeCase(_ name: String) -> Bool {
        guard let first = name.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) else { return false }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_")
        }
    }

    @Test func configurationAndFaultRuleNamesAreSnakeCase() {
        let actionFields = FaultActionKey.Kind.allCases.flatMap(\.fields) + [FaultActionKey.type]
        let names = ConfigurationKey.all + ServerSettingsKey.all + ValidationSettingsKey.all + KeyEntryKey.all
            + DeviceEntryKey.all + DeviceEntryKey.states + FaultRuleKey.all + FaultMatchKey.all + actionFields
            + FaultActionKey.Kind.allCases.map(\.rawValue) + SimulatorForwardingKey.all + [SimulatorForwardingKey.section]
        #expect(names.filter { !Self.isSnakeCase($0) } == [])
    }

    @Test func controlAPINamesAreSnakeCase() {
        let names = ControlQueryKey.filters + [ControlQueryKey.limit, ControlQueryKey.count, ControlQueryKey.timeout,
                                               ControlQueryKey.acceptUnknownDevices]
            + [ControlBodyKey.status, ControlBodyKey.error, ControlBodyKey.count, ControlBodyKey.pushes, ControlBodyKey.satisfied]
        #expect(names.filter { !Self.isSnakeCase($0) } == [])
    }
}
