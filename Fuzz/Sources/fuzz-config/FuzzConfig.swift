import FuzzSupport
import MockAPNs
import PushGateway
import PushRules

// The configuration and policy loaders: apns-mock's configuration file (registry, keys,
// devices, fault rules, server settings), push-inspect's policy files, and the push
// gateway's configuration file. A policy that loads is also run, with the apple profile,
// over a payload, since its patterns and paths only act then.
//
// Input: one option byte (its value modulo 3 picks the loader), then the file. For a
// policy, the file is followed by a NUL byte and the payload to check (a default payload
// when there is none).

private let certificates = FuzzPaths.file("certs")
private let defaultPayload = Array(#"{"aps":{"alert":{"title":"Hi","body":"Hello"},"badge":1,"sound":"default"},"id":"abc-123","url":"app://x/y"}"#.utf8)

@main
enum FuzzConfigTarget {
    static func main() { FuzzDriver.run(fuzzConfig) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    switch input.byte() % 3 {
    case 0:
        // Relative key and certificate paths resolve against certs/, where the test keys are.
        guard let json = try? ConfigurationJSON.parse(input.rest()) else { return 0 }
        if let configuration = try? MockConfiguration.decode(json, baseDirectory: certificates) {
            _ = configuration.serverJSON
        }
    case 1:
        let file = input.piece(until: [0])
        var payload = input.rest()
        if payload.isEmpty { payload = defaultPayload }
        guard let policy = try? Policy(json: file) else { return 0 }
        let rules = RuleSet(profiles: [.apple], policies: [policy], now: 1_700_000_000)
        let headers = PushHeaders(pushType: "alert", topic: "com.example.app", priority: 10, deviceToken: String(repeating: "ab", count: 32))
        _ = rules.check(PushInput(headers: headers, payload: payload), recordApplied: true)
    default:
        _ = try? GatewayConfiguration.decode(input.rest(), base: GatewayConfiguration(topic: "com.example.app"))
    }
    return 0
}
