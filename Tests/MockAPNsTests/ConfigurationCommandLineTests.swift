import Foundation
import JWTVerify
import Testing
@testable import MockAPNs

@Suite struct ConfigurationCommandLineTests {
    static let certs = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("certs").path

    @Test func authKeySpecsRegisterPrivateOrPublicKeyFiles() throws {
        var configuration = MockConfiguration.makeDefault()
        try configuration.addKey(commandLineSpec: "KEY0000001:TEAM000009:\(Self.certs)/AuthKey_XYZ987WXYZ.p8")
        try configuration.addKey(commandLineSpec: "KEY0000002:TEAM000009:\(Self.certs)/AuthKey_ABC123DEFG.pub.pem")
        #expect(configuration.registry.keys["KEY0000001"]?.teamID == "TEAM000009")
        #expect(configuration.registry.keys["KEY0000002"]?.environments == .both)
    }

    @Test func badSpecsSayWhichPartIsWrong() {
        var configuration = MockConfiguration.makeDefault()
        let cases: [(String, String)] = [
            ("nocolons", "expected KEY_ID:TEAM_ID:PATH"),
            ("SHORT:TEAM000001:/x.p8", "KEY_ID must be 10 letters or digits"),
            ("KEY0000001:TEAM:/x.p8", "TEAM_ID must be 10 letters or digits"),
            ("KEY0000001:TEAM000001:/nonexistent.p8", "cannot read key file '/nonexistent.p8'"),
        ]
        for (spec, expected) in cases {
            let error = #expect(throws: ConfigurationError.self) { try configuration.addKey(commandLineSpec: spec) }
            #expect(error?.description.contains(expected) == true, "\(spec): \(String(describing: error))")
        }
    }

    @Test func topicsAddApps() throws {
        var configuration = MockConfiguration.makeDefault()
        try configuration.addApp(commandLineBundleID: "com.acme.chat")
        #expect(configuration.registry.bundleIDs == ["com.example.app", "com.acme.chat"])
        #expect(throws: ConfigurationError.self) { try configuration.addApp(commandLineBundleID: "has space") }
    }
}
