import Foundation
import FuzzSupport
import HTTPTransport
import JWTVerify
import MockAPNs

// The mock's push validator fed whole requests, several on one connection, against the
// registry of examples/apns-mock.json (keys under certs/, registered and unregistered
// devices, a topic-specific sandbox key). Each answered push then becomes the capture
// record the server would write, whose line must decode back to the same record.
//
// Input: one option byte (bit 0: production listener; bit 1: a client-certificate
// connection for com.example.app), then requests separated by "\n===\n". A request is
// "METHOD PATH", header lines "name: value", an empty line, and the body. In header
// values, $TOKEN, $TOKEN2 and $OLDTOKEN stand for provider tokens signed now with key
// ABC123DEFG, key XYZ987WXYZ, and ABC123DEFG two hours ago (a fuzzer cannot sign).

private let now = Date(timeIntervalSince1970: 1_700_000_000)
private let configuration: MockConfiguration = {
    do {
        return try MockConfiguration.load(path: FuzzPaths.file("examples/apns-mock.json"))
    } catch {
        fatalError("cannot load examples/apns-mock.json: \(error)")
    }
}()
private let tokens: [(String, String)] = [
    ("$OLDTOKEN", providerToken("ABC123DEFG", issuedAt: now - 7200)),
    ("$TOKEN2", providerToken("XYZ987WXYZ", issuedAt: now)),
    ("$TOKEN", providerToken("ABC123DEFG", issuedAt: now)),
]

private func providerToken(_ keyID: String, issuedAt: Date) -> String {
    do {
        let key = try ES256PrivateKey(contentsOfFile: FuzzPaths.file("certs/AuthKey_\(keyID).p8"))
        return try JWTSigner(key: key, keyID: keyID).makeProviderToken(teamID: MockConfiguration.defaultTeamID, issuedAt: issuedAt)
    } catch {
        fatalError("cannot sign a token with \(keyID): \(error)")
    }
}

@main
enum FuzzPushTarget {
    static func main() { FuzzDriver.run(fuzzPush) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPush(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    let options = input.byte()
    let environment: APNsEnvironment = options & 1 != 0 ? .production : .sandbox
    let certificate = options & 2 != 0
        ? CertificateIdentity(bundleID: MockConfiguration.defaultBundleID, topics: [], environments: [.sandbox, .production])
        : nil

    // A fresh token cache per input, so that each input is judged alone.
    var verifierSettings = APNsProviderTokenVerifier.Configuration()
    verifierSettings.cacheCapacity = 4
    let validator = PushValidator(
        registry: configuration.registry,
        tokenVerifier: APNsProviderTokenVerifier(keys: configuration.registry.keys, configuration: verifierSettings, now: { now }),
        settings: configuration.validation)
    var auth = ConnectionAuthState(environment: environment, certificate: certificate)

    for (index, text) in input.pieces(separatedBy: Array("\n===\n".utf8)).enumerated() {
        let push = request(text, environment: environment, receivedAt: now + Double(index) / 1000)
        let decision = validator.validate(push, auth: &auth)
        _ = decision.details.payload
        let apnsID = push.headers["apns-id"] ?? "0F0E0D0C-0B0A-0908-0706-050403020100"
        var record = CaptureRecord(request: push, details: decision.details, outcome: decision.outcome(apnsID: apnsID, uniqueID: nil))
        record.sequence = UInt64(index + 1)  // As the store numbers it.
        let line = record.encodedLine()
        fuzzCheck(line.last == UInt8(ascii: "\n"), "a capture line without its newline")
        do {
            let decoded = try CaptureRecord(decoding: Array(line.dropLast()))
            fuzzCheck(decoded == record, "the capture line of a push decodes to another record: \(String(decoding: line, as: UTF8.self))")
        } catch {
            fuzzCheck(false, "the capture line of a push does not decode (\(error)): \(String(decoding: line, as: UTF8.self))")
        }
    }
    return 0
}

/// One request from its text; see the input format above.
private func request(_ text: [UInt8], environment: APNsEnvironment, receivedAt: Date) -> PushRequest {
    let blank = Array("\n\n".utf8)
    var split = text.count
    if text.count >= 2 {
        for index in 0..<(text.count - 1) where text[index] == blank[0] && text[index + 1] == blank[1] {
            split = index
            break
        }
    }
    let head = String(decoding: text[..<split], as: UTF8.self)
    let body = split + 2 <= text.count ? Array(text[(split + 2)...]) : []
    var lines = head.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let requestLine = lines.isEmpty ? "" : lines.removeFirst()
    let parts = requestLine.split(separator: " ", maxSplits: 1).map(String.init)
    var headers = HTTPHeaders()
    for line in lines {
        guard let colon = line.firstIndex(of: ":") else { continue }
        var value = String(line[line.index(after: colon)...].drop { $0 == " " })
        for (placeholder, token) in tokens { value = value.replacingOccurrences(of: placeholder, with: token) }
        headers.add(name: String(line[..<colon]), value: value)
    }
    return PushRequest(
        method: parts.first ?? "", path: parts.count > 1 ? parts[1] : "", headers: headers, body: body,
        environment: environment, connectionID: 1, receivedAt: receivedAt)
}
