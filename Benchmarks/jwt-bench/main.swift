// Measures JWTVerify throughput on one core. Build with -c release; run from the package
// root or pass --key. Prints one `name=value` line per figure for scripts/bench-jwt.sh.
import Foundation
import JWTVerify

struct Options {
    var seconds = 3.0
    /// Keys to verify with, round-robin. ECDSA verify time varies with the key and the
    /// signature by several percent, so several fresh keys give a fair average; `openssl
    /// speed` likewise draws a fresh key each run. The first key also signs.
    var keyPaths: [String] = []
    /// Runs only one figure (verify, sign or cached), for profiling.
    var only: String?

    init(arguments: [String]) throws {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--seconds":
                guard let value = iterator.next().flatMap(Double.init), value > 0 else { throw UsageError() }
                seconds = value
            case "--key":
                guard let value = iterator.next() else { throw UsageError() }
                keyPaths.append(value)
            case "--only":
                guard let value = iterator.next(), ["verify", "parse", "sign", "cached"].contains(value) else { throw UsageError() }
                only = value
            case "-h", "--help":
                print("USAGE: jwt-bench [--seconds N] [--key AuthKey.p8]... [--only verify|parse|sign|cached]")
                exit(0)
            default:
                throw UsageError()
            }
        }
    }
}

struct UsageError: Error {}

/// CPU time used by this thread, in seconds.
///
/// `openssl speed` divides by user CPU time unless given `-elapsed`, so figures here do the
/// same; that also keeps them comparable when other processes share the machine.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Runs `body` repeatedly for about `seconds` of CPU time and returns calls per CPU second.
func measure(seconds: Double, batch: Int, _ body: () -> Int) -> Double {
    // Warm up caches, context pools and branch predictors.
    var sink = 0
    for _ in 0..<batch { sink &+= body() }
    let start = threadCPUSeconds()
    var now = start
    var calls = 0
    while now - start < seconds {
        for _ in 0..<batch { sink &+= body() }
        calls += batch
        now = threadCPUSeconds()
    }
    if sink == Int.min { print("unreachable") }  // keeps `sink` alive
    return Double(calls) / (now - start)
}

func run() throws {
    let options: Options
    do {
        options = try Options(arguments: CommandLine.arguments)
    } catch {
        FileHandle.standardError.write(Data("Error: bad arguments\nUsage: jwt-bench [--seconds N] [--key AuthKey.p8]... [--only verify|parse|sign|cached]\n".utf8))
        exit(2)
    }
    let keyPaths = options.keyPaths.isEmpty ? ["certs/AuthKey_ABC123DEFG.p8"] : options.keyPaths
    let privateKeys = try keyPaths.map { try ES256PrivateKey(contentsOfFile: $0) }
    let privateKey = privateKeys[0]
    let signer = JWTSigner(key: privateKey, keyID: "ABC123DEFG")
    let issuedAt = Date()
    let token = try signer.makeProviderToken(teamID: "DEF123GHIJ", issuedAt: issuedAt)
    var verifyKeys: [String: ES256PublicKey] = [:]
    var verifyTokens: [String] = []
    for (index, key) in privateKeys.enumerated() {
        let keyID = String(format: "KEY%07d", index)
        verifyKeys[keyID] = key.publicKey
        verifyTokens.append(try JWTSigner(key: key, keyID: keyID).makeProviderToken(teamID: "DEF123GHIJ", issuedAt: issuedAt))
    }
    let authorization = "bearer \(token)"

    func wanted(_ name: String) -> Bool { options.only == nil || options.only == name }

    if wanted("verify") {
        let verifier = JWTVerifier(keys: verifyKeys)
        var next = 0
        let verifies = measure(seconds: options.seconds, batch: 64) {
            next = (next + 1) % verifyTokens.count
            return (try? verifier.verify(verifyTokens[next])) == nil ? 0 : 1
        }
        print("uncached_verifies_per_sec=\(Int(verifies))")
    }
    if wanted("parse") {
        // Decoding alone (base64url, JSON, SHA-256 of the signing input): the overhead that
        // uncached verification adds on top of the ECDSA verify itself.
        let parses = measure(seconds: options.seconds, batch: 1024) {
            (try? DecodedJWT(parsing: token))?.signature.count ?? 0
        }
        print("token_parses_per_sec=\(Int(parses))")
    }
    if wanted("sign") {
        let signs = measure(seconds: options.seconds, batch: 64) {
            (try? signer.makeProviderToken(teamID: "DEF123GHIJ", issuedAt: issuedAt))?.utf8.count ?? 0
        }
        print("signs_per_sec=\(Int(signs))")
    }
    if wanted("cached") {
        let apns = APNsProviderTokenVerifier(
            keys: ["ABC123DEFG": APNsRegisteredKey(publicKey: privateKey.publicKey, teamID: "DEF123GHIJ")])
        // Shared-cache lookups: a new connection state per call, so every call hashes the
        // token and looks it up in the shared, locked cache (the path of a new connection).
        let lookups = measure(seconds: options.seconds, batch: 4096) {
            var connection = APNsConnectionTokenState(environment: .production)
            return (try? apns.verify(authorization: authorization, connection: &connection))?.wasCached == true ? 1 : 0
    }
        print("cached_lookups_per_sec=\(Int(lookups))")
        // The common case: the token already in force on this connection.
        var connection = APNsConnectionTokenState(environment: .production)
        let reuses = measure(seconds: options.seconds, batch: 4096) {
            (try? apns.verify(authorization: authorization, connection: &connection))?.wasCached == true ? 1 : 0
    }
        print("same_connection_checks_per_sec=\(Int(reuses))")
    }
}
do {
    try run()
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
