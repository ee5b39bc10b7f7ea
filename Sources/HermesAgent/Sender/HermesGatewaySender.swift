import Foundation
import HermesContract
import JWTVerify
import StrictJSON
import Synchronization

/// Sends one push request per device to the gateway, as the plugin does (contract §2):
/// signs it (HMAC) or attaches the device's capability, retries transport errors and 5xx
/// a bounded number of times with backoff, re-registers once after a 403, and prunes the
/// device from the store on 410.
///
/// `send` is async and may take seconds (timeouts, backoff); callers that must not wait,
/// like hooks, go through ``HermesPushAgent``, which runs it in a task.
///
/// ```swift
/// let sender = HermesGatewaySender(
///     configuration: HermesGatewayConfiguration(pushURL: URL(string: "https://push.example.com/push")!,
///                                               authorization: .capability),
///     store: store)
/// let result = await sender.send(.approval, sessionID: "sess-1", to: device)
/// print(result)      // approval sess-1 -> abab…abab: delivered (attempts 1, register 1)
/// ```
public final class HermesGatewaySender: Sendable {
    /// Where and how it sends.
    public let configuration: HermesGatewayConfiguration
    private let transport: any HermesGatewayTransport
    private let store: HermesDeviceStore?
    private let sleep: @Sendable (Duration) async -> Void
    /// The shared secret prepared once, in HMAC mode.
    private let hmacKey: HMACSHA256Key?
    /// Capabilities by device token (lowercase hex).
    private let capabilities = Mutex<[String: String]>([:])

    /// - Parameters:
    ///   - store: Where a device answered with 410 is pruned; nil to prune nothing.
    ///   - transport: The HTTP path; URLSession unless a test scripts one.
    ///   - sleep: How backoff waits; tests pass one that returns at once and records.
    public init(configuration: HermesGatewayConfiguration, store: HermesDeviceStore?,
                transport: any HermesGatewayTransport = URLSessionGatewayTransport(),
                sleep: @escaping @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) }) {
        self.configuration = configuration
        self.store = store
        self.transport = transport
        self.sleep = sleep
        if case .sharedSecret(let secret) = configuration.authorization { hmacKey = HMACSHA256Key(secret) } else { hmacKey = nil }
    }

    /// Pushes `type` about `sessionID` to `device`. Never throws: every failure is an
    /// outcome in the result.
    public func send(_ type: HermesPushType, sessionID: String, to device: HermesRegisteredDevice) async -> HermesSendResult {
        var result = HermesSendResult(deviceToken: device.deviceToken, type: type, sessionID: sessionID)
        var request = HermesPushRequest(deviceToken: device.deviceToken, environment: device.environment,
                                        type: type, sessionID: sessionID)
        while true {
            switch configuration.authorization {
            case .sharedSecret:
                guard let tag = try? hmacKey?.authenticationCode(for: request.canonicalBytes) else {
                    result.outcome = .failed("HMAC-SHA256 failed")
                    return result
                }
                request.hmac = Self.lowercaseHex(tag)
            case .capability:
                switch await capability(for: device.deviceToken, result: &result) {
                case .success(let capability): request.capability = capability
                case .failure(let failure):
                    result.outcome = failure.outcome
                    return result
                }
            }
            let exchange = await post(configuration.pushURL, body: request.encodedBody(), attempts: &result.pushAttempts)
            switch exchange {
            case .answered(let status, _) where (200..<300).contains(status):
                result.outcome = .delivered
            case .answered(403, _) where configuration.authorization == .capability && !result.refreshedCapability:
                // The gateway may have rotated its key: one fresh capability, one retry.
                _ = capabilities.withLock { $0.removeValue(forKey: device.deviceToken) }
                result.refreshedCapability = true
                continue
            case .answered(410, _):
                _ = try? store?.prune(deviceToken: device.deviceToken)
                result.outcome = .pruned
            default:
                result.outcome = Self.failureOutcome(exchange)
            }
            return result
        }
    }

    private struct Failure: Error {
        var outcome: HermesSendResult.Outcome
    }

    /// The cached capability for `token`, or a fresh one from `/register`.
    private func capability(for token: String, result: inout HermesSendResult) async -> Result<String, Failure> {
        if let cached = capabilities.withLock({ $0[token] }) { return .success(cached) }
        let exchange = await post(configuration.registerURL, body: HermesRegistration.requestBody(deviceToken: token),
                                  attempts: &result.registerAttempts)
        guard case .answered(let status, let body) = exchange, (200..<300).contains(status) else {
            return .failure(Failure(outcome: Self.failureOutcome(exchange)))
        }
        guard let capability = try? HermesRegistration.capability(fromResponseBody: body) else {
            return .failure(Failure(outcome: .failed("the gateway's /register answer has no capability")))
        }
        capabilities.withLock { $0[token] = capability }
        return .success(capability)
    }

    /// POSTs, retrying transport errors and 5xx up to `maximumAttempts` with backoff.
    private func post(_ url: URL, body: [UInt8], attempts: inout Int) async -> HermesGatewayExchange {
        var attempt = 0
        while true {
            attempt += 1
            attempts += 1
            let exchange = await transport.post(to: url, body: body, userAgent: configuration.userAgent,
                                                timeout: configuration.requestTimeout)
            let retryable = switch exchange {
            case .transportError: true
            case .answered(let status, _): (500..<600).contains(status)
            }
            guard retryable, attempt < configuration.maximumAttempts else { return exchange }
            await sleep(configuration.delay(afterAttempt: attempt))
        }
    }

    private static func failureOutcome(_ exchange: HermesGatewayExchange) -> HermesSendResult.Outcome {
        switch exchange {
        case .transportError(let detail):
            return .failed("gateway unreachable: \(detail)")
        case .answered(let status, let body):
            let code = errorCode(body)
            if (500..<600).contains(status) { return .failed("gateway answered \(status)" + (code.map { " \($0)" } ?? "")) }
            return .rejected(status: status, code: code)
        }
    }

    /// The `error` member of a gateway error body, if it is one of the contract's codes
    /// (an unknown string could carry anything, so it is not repeated).
    private static func errorCode(_ body: [UInt8]) -> String? {
        guard case .object(let members)? = try? JSONParser.parse(body, maximumDepth: 4),
              let code = members["error"]?.stringValue.flatMap(HermesGatewayErrorCode.init(rawValue:))
        else { return nil }
        return code.rawValue
    }

    static func lowercaseHex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
