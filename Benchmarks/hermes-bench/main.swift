// Measures the synchronous cost of Hermes' two ends, each against a reference measured in
// the same run (scripts/bench-hermes.sh prints the ratios):
//   agent   policy gates + signed request body per push   vs   the HMAC-SHA256 alone
//   app     handling a received payload (actor, badge)    vs   parsing the payload alone
// Prints `name=nanoseconds_per_operation` lines. Build with -c release.
import Foundation
import HermesAgent
import HermesApp
import HermesContract
import JWTVerify
import Synchronization

let iterations = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 200_000
let sessions = (0..<10_000).map { "20261130_\($0)" }
let token = String(repeating: "ab", count: 32)
// Prepared once, as HermesGatewaySender does.
let key = HMACSHA256Key(Array("bench-secret".utf8))

let digits = Array("0123456789abcdef")
func hexByte(_ byte: UInt8) -> String { String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]]) }

/// Thread CPU time in nanoseconds: the machine is shared, wall time is not ours.
func cpuNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

func measure(_ name: String, _ body: () throws -> Void) rethrows {
    let start = cpuNanoseconds()
    try body()
    print("\(name)=\(Double(cpuNanoseconds() - start) / Double(iterations))")
}

func measureAsync(_ name: String, _ body: () async -> Void) async {
    let start = cpuNanoseconds()
    await body()
    print("\(name)=\(Double(cpuNanoseconds() - start) / Double(iterations))")
}

// A clock that advances 1 ms per read, so dedup never drops and the map is swept.
let tick = Atomic<Int64>(0)
let policy = HermesSuppressionPolicy(now: { Date(timeIntervalSince1970: Double(tick.wrappingAdd(1, ordering: .relaxed).newValue) / 1000) })
var bytes = 0

try measure("agent_push") {
    for index in 0..<iterations {
        let session = sessions[index % sessions.count]
        guard case .send(let type, let id) = policy.evaluate(.preApprovalRequest(sessionID: session, surface: .gateway), deviceCount: 1)
        else { continue }
        var request = HermesPushRequest(deviceToken: token, environment: .sandbox, type: type, sessionID: id)
        request.hmac = try key.authenticationCode(for: request.canonicalBytes).map(hexByte).joined()
        bytes &+= request.encodedBody().count
    }
}
try measure("reference_hmac") {
    for index in 0..<iterations {
        let request = HermesPushRequest(deviceToken: token, environment: .sandbox, type: .approval, sessionID: sessions[index % sessions.count])
        bytes &+= try key.authenticationCode(for: request.canonicalBytes).count
    }
}

let payloads = sessions.prefix(1_000).map { HermesNotification(type: .approval, sessionID: $0).payload() }
let handler = HermesNotificationHandler()
await handler.setForeground(true)
await measureAsync("app_receive") {
    for index in 0..<iterations {
        bytes &+= await handler.receive(payload: payloads[index % payloads.count])?.badge ?? 0
    }
}
measure("reference_parse") {
    for index in 0..<iterations {
        bytes &+= HermesNotification(payload: payloads[index % payloads.count])?.badge ?? 0
    }
}
// Keeps the work observable so the optimizer cannot drop it.
FileHandle.standardError.write(Data("checksum \(bytes)\n".utf8))
