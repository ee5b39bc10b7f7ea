import APNsCore
import CLISupport
import Foundation
import HermesAgent
import HermesContract

extension Subcommand {
    static func required(_ arguments: ParsedArguments, _ name: String) throws(CommandLineError) -> String {
        guard let value = arguments.value(name), !value.isEmpty else { throw CommandLineError("--\(name) is required") }
        return value
    }

    static func environment(_ arguments: ParsedArguments) throws(CommandLineError) -> HermesAPNsEnvironment {
        let text = arguments.value("env") ?? "sandbox"
        guard let environment = HermesAPNsEnvironment(rawValue: text) else {
            throw CommandLineError("--env must be sandbox or production, not '\(text)'")
        }
        return environment
    }

    static func store(_ arguments: ParsedArguments) throws -> HermesDeviceStore {
        let path = arguments.value("store") ?? ProcessInfo.processInfo.environment["HERMES_PUSH_STORE"] ?? "push-devices.json"
        return try HermesDeviceStore(path: path)
    }

    static func gateway(_ arguments: ParsedArguments) throws(CommandLineError) -> HermesGatewayConfiguration {
        let text = try required(arguments, "gateway")
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
            throw CommandLineError("--gateway must be an http(s) URL, such as http://127.0.0.1:8088/push")
        }
        let secret = arguments.value("secret") ?? ProcessInfo.processInfo.environment["HERMES_PUSH_SECRET"]
        let authorization: HermesGatewayAuthorization
        switch (secret, arguments.has("capability")) {
        case (let secret?, false): authorization = .sharedSecret(Array(secret.utf8))
        case (nil, true): authorization = .capability
        case (_?, true): throw CommandLineError("give either --secret or --capability, not both")
        case (nil, false): throw CommandLineError("give --secret TEXT (or $HERMES_PUSH_SECRET) or --capability")
        }
        var configuration = HermesGatewayConfiguration(pushURL: url, authorization: authorization)
        if let attempts = try arguments.integer("attempts", in: 1...10) { configuration.maximumAttempts = attempts }
        return configuration
    }

    /// Runs a store change; a bad token is a usage error (exit 2), anything else a failure.
    static func storeChange<T>(_ body: () throws(HermesDeviceStoreError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            if error == .invalidDeviceToken {
                throw CommandLineError("--device-token must be an even number of hex digits")
            }
            throw error
        }
    }

    static func masked(_ token: String) -> String {
        DeviceToken(token)?.masked ?? "(invalid token)"
    }

    /// 0 when every push was delivered (or its device pruned, as asked), 1 otherwise.
    static func exitCode(_ results: [HermesSendResult]) -> Int32 {
        results.allSatisfy { $0.outcome == .delivered || $0.outcome == .pruned } ? 0 : 1
    }
}
