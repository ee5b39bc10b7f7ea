// Measures APNsClient throughput against a running apns-mock: C connections with up to M
// streams each, C×M pushes in flight, the same shape as `h2load -c C -m M`. Prints one
// `name=value` line per figure for scripts/bench-client.sh. Build with -c release.
import APNsClient
import APNsCore
import Foundation
import JWTVerify
import Synchronization

struct UsageError: Error {}

struct Options {
    var url = "https://127.0.0.1:2198"
    var ca: String?
    var authKey = "ABC123DEFG:TEAM000001:certs/AuthKey_ABC123DEFG.p8"
    var topic = "com.example.app"
    var device = String(repeating: "0", count: 63) + "1"
    var payloadFile: String?
    var connections = 4
    var streams = 100
    var requests = 100_000

    init(arguments: [String]) throws {
        var iterator = arguments.dropFirst().makeIterator()
        func next() throws -> String {
            guard let value = iterator.next() else { throw UsageError() }
            return value
        }
        func positive() throws -> Int {
            guard let value = Int(try next()), value > 0 else { throw UsageError() }
            return value
        }
        while let argument = iterator.next() {
            switch argument {
            case "--url": url = try next()
            case "--ca": ca = try next()
            case "--auth-key": authKey = try next()
            case "--topic": topic = try next()
            case "--device": device = try next()
            case "--payload-file": payloadFile = try next()
            case "-c", "--connections": connections = try positive()
            case "-m", "--streams": streams = try positive()
            case "-n", "--requests": requests = try positive()
            case "-h", "--help":
                print("USAGE: client-bench --url URL [--ca PEM] [--auth-key KEY_ID:TEAM_ID:P8] [--payload-file FILE] [-c N] [-m N] [-n N]")
                exit(0)
            default: throw UsageError()
            }
        }
    }
}

let options: Options
do {
    options = try Options(arguments: CommandLine.arguments)
} catch {
    FileHandle.standardError.write(Data("Error: bad arguments; see client-bench --help\n".utf8))
    exit(2)
}

let payload = options.payloadFile.flatMap { FileManager.default.contents(atPath: $0).map(Array.init) }
    ?? Array(#"{"aps":{"alert":"benchmark"}}"#.utf8)
var configuration: APNsClientConfiguration
do {
    configuration = APNsClientConfiguration(authentication: try .token(commandLineSpec: options.authKey))
    configuration.sandbox = try APNsDestination(url: options.url)
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(2)
}
configuration.trustRootsPath = options.ca
configuration.maximumConnectionsPerEnvironment = options.connections
configuration.maximumStreamsPerConnection = options.streams
configuration.retryPolicy = .none

let client = try APNsClient(configuration: configuration)
let notification = APNsNotification(deviceToken: options.device, pushType: .alert, topic: options.topic, payload: payload)

/// Pushes still to send, shared by the senders.
final class Countdown: Sendable {
    let remaining: Atomic<Int>
    init(_ total: Int) { remaining = Atomic(total) }
    /// Claims one push; false once all are claimed.
    func claim() -> Bool { remaining.subtract(1, ordering: .relaxed).oldValue > 0 }
}

/// Sends `total` pushes with `concurrency` senders; returns (elapsed, failures, first failure).
func measure(_ client: APNsClient, _ notification: APNsNotification, total: Int, concurrency: Int) async -> (Duration, Int, String?) {
    let countdown = Countdown(total)
    let clock = ContinuousClock()
    let start = clock.now
    let (failures, first) = await withTaskGroup(of: (Int, String?).self) { group in
        let loops = client.eventLoopGroup.loops
        for sender in 0..<concurrency {
            // Senders run on the client's event loops, as a busy sender should (see
            // docs/APNsClient.md): a push then never changes threads on its way.
            group.addTask(executorPreference: loops[sender % loops.count]) {
                var failures = 0
                var first: String?
                while countdown.claim() {
                    do {
                        _ = try await client.send(notification, environment: .sandbox)
                    } catch {
                        failures += 1
                        if first == nil { first = "\(error)" }
                    }
                }
                return (failures, first)
            }
        }
        var failures = 0
        var first: String?
        for await (count, message) in group {
            failures += count
            first = first ?? message
        }
        return (failures, first)
    }
    return (start.duration(to: clock.now), failures, first)
}

let concurrency = options.connections * options.streams
// Warm-up: connections open, the token is signed, the mock raises its stream limit.
_ = await measure(client, notification, total: min(options.requests, 5_000), concurrency: concurrency)
let (elapsed, failures, first) = await measure(client, notification, total: options.requests, concurrency: concurrency)
await client.shutdown()
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
print("requests=\(options.requests)")
print("failures=\(failures)")
print("seconds=\(seconds)")
print("pushes_per_second=\(Double(options.requests) / seconds)")
print("connections_opened=\(client.connectionsOpened(to: .sandbox))")
if let first {
    FileHandle.standardError.write(Data("first failure: \(first)\n".utf8))
    exit(1)
}
