// Measures JWTVerify throughput on one core. Build with -c release; run from the package
// root or pass --key. Prints one `name=value` line per figure for scripts/bench-jwt.sh.
import Foundation
import JWTVerify

struct Options {
    var seconds = 3.0
    var keyPath = "certs/AuthKey_ABC123DEFG.p8"

    init(arguments: [String]) throws {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--seconds":
                guard let value = iterator.next().flatMap(Double.init), value > 0 else { throw UsageError() }
                seconds = value
            case "--key":
                guard let value = iterator.next() else { throw UsageError() }
                keyPath = value
            case "-h", "--help":
                print("USAGE: jwt-bench [--seconds N] [--key AuthKey.p8]")
                exit(0)
            default:
                throw UsageError()
            }
        }
    }
}

struct UsageError: Error {}

/// Runs `body` repeatedly for about `seconds` and returns calls per second.
func measure(seconds: Double, batch: Int, _ body: () -> Int) -> Double {
    // Warm up caches, context pools and branch predictors.
    var sink = 0
    for _ in 0..<batch { sink &+= body() }
    let clock = ContinuousClock()
    let start = clock.now
    let deadline = start + .milliseconds(Int(seconds * 1000))
    var calls = 0
    while clock.now < deadline {
        for _ in 0..<batch { sink &+= body() }
        calls += batch
    }
    let elapsed = clock.now - start
    let elapsedSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    if sink == Int.min { print("unreachable") }  // keeps `sink` alive
    return Double(calls) / elapsedSeconds
}

func run() throws {
    let options: Options
    do {
        options = try Options(arguments: CommandLine.arguments)
    } catch {
        FileHandle.standardError.write(Data("Error: bad arguments\nUsage: jwt-bench [--seconds N] [--key AuthKey.p8]\n".utf8))
        exit(2)
    }
    let privateKey = try ES256PrivateKey(contentsOfFile: options.keyPath)
    let signer = JWTSigner(key: privateKey, keyID: "ABC123DEFG")
    let issuedAt = Date()
    let token = try signer.makeProviderToken(teamID: "DEF123GHIJ", issuedAt: issuedAt)
    let authorization = "bearer \(token)"

    let verifier = JWTVerifier(keys: ["ABC123DEFG": privateKey.publicKey])
    let verifies = measure(seconds: options.seconds, batch: 64) {
        (try? verifier.verify(token)) == nil ? 0 : 1
    }
    print("uncached_verifies_per_sec=\(Int(verifies))")

    let signs = measure(seconds: options.seconds, batch: 64) {
        (try? signer.makeProviderToken(teamID: "DEF123GHIJ", issuedAt: issuedAt))?.utf8.count ?? 0
    }
    print("signs_per_sec=\(Int(signs))")

    let apns = APNsProviderTokenVerifier(
        keys: ["ABC123DEFG": APNsRegisteredKey(publicKey: privateKey.publicKey, teamID: "DEF123GHIJ")])
    var connection = APNsConnectionTokenState(environment: .production)
    let lookups = measure(seconds: options.seconds, batch: 4096) {
        (try? apns.verify(authorization: authorization, connection: &connection))?.wasCached == true ? 1 : 0
    }
    print("cached_lookups_per_sec=\(Int(lookups))")
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
