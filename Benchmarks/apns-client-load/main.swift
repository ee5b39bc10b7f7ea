// Drives APNsClient straight at an APNs endpoint (the mock) at a fixed rate, with the
// gateway's own request shape: the latency reference of scripts/bench-gateway.sh
// (Benchmarks/client-bench measures throughput).
//
//   apns-client-load --url URL --ca PEM --auth-key KID:TEAM:P8 --topic T --rate R --seconds S
//       sends R pushes a second for S seconds and prints "p50_ms <x>" and "p99_ms <y>"
import APNsClient
import APNsCore
import Foundation
import HermesContract
import Synchronization

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("apns-client-load: \(message)\n".utf8))
    exit(2)
}

var options: [String: String] = [:]
var iterator = CommandLine.arguments.dropFirst().makeIterator()
while let name = iterator.next() {
    guard name.hasPrefix("--"), let value = iterator.next() else { fail("expected --name value pairs") }
    options[String(name.dropFirst(2))] = value
}
guard let url = options["url"], let spec = options["auth-key"], let topic = options["topic"] else {
    fail("--url, --auth-key and --topic are required")
}

let client: APNsClient
do {
    var configuration = APNsClientConfiguration(authentication: try .token(commandLineSpec: spec))
    configuration.production = try APNsDestination(url: url)
    configuration.sandbox = configuration.production
    configuration.trustRootsPath = options["ca"]
    client = try APNsClient(configuration: configuration)
} catch {
    fail("\(error)")
}

let load = Load(client: client, topic: topic)
// Warm up: connections, the provider token, the stream limit raised after the first push.
for _ in 0..<200 { _ = try? await client.send(load.push(), environment: .production) }

guard let rate = options["rate"].flatMap(Int.init), let duration = options["seconds"].flatMap(Int.init), rate > 0, duration > 0 else {
    fail("--rate and --seconds (positive integers) are required")
}
let (sorted, failures) = await load.paced(rate: rate, seconds: duration)
guard !sorted.isEmpty, failures == 0 else { fail("\(failures) pushes failed") }
print("p50_ms \(sorted[sorted.count / 2])")
print("p99_ms \(sorted[min(sorted.count - 1, sorted.count * 99 / 100)])")
await client.shutdown()
