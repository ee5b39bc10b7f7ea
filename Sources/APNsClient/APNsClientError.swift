import HTTPTransport

/// Why `APNsClient.send(_:environment:)` did not deliver a push, or the client could not start.
public indirect enum APNsClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// APNs answered with an error that must not be retried as is.
    case rejected(APNsRejection)
    /// Every attempt the retry policy allows failed; `last` is the final failure.
    case retriesExhausted(attempts: Int, last: APNsClientError)
    /// The push had no outcome within `APNsClientConfiguration.sendTimeout` (`after`): the
    /// attempt in flight was cancelled then (its stream reset), or the next attempt would
    /// have started too late. `attempts` counts the retry policy's attempts made; `last` is
    /// the latest failure of an attempt that ended before then, nil when none did. A push
    /// whose attempt was cut short may have been delivered.
    case sendTimedOut(after: Duration, attempts: Int, last: APNsClientError?)
    /// The connection failed: connect, TLS, timeout, reset, or lost in a way that is not retried.
    case transport(HTTPClientError)
    /// The notification cannot be sent as given; nothing was sent.
    case invalidRequest(String)
    /// A configuration setting or file is wrong.
    case invalidConfiguration(String)
    /// The provider token could not be signed.
    case tokenSigningFailed(String)
    /// The server answered a channel management request with success, but not in the
    /// form Apple documents (a 201 without `apns-channel-id`, a list that is not JSON).
    case invalidAnswer(String)
    /// `shutdown()` was called.
    case shutDown

    /// The APNs answer behind the error, directly or as the last of the retries.
    public var rejection: APNsRejection? {
        switch self {
        case let .rejected(rejection): rejection
        case let .retriesExhausted(_, last): last.rejection
        case let .sendTimedOut(_, _, last): last?.rejection
        default: nil
        }
    }

    /// What failed and what to do about it.
    public var description: String {
        switch self {
        case let .rejected(rejection):
            "APNs rejected the push: \(rejection)"
        case let .retriesExhausted(attempts, last):
            "the push failed \(attempts) times, as often as the retry policy allows; last: \(last)"
        case let .sendTimedOut(after, attempts, last):
            "the push had no outcome within the send timeout of \(after) (\(attempts) attempt\(attempts == 1 ? "" : "s")"
                + (last.map { "; last failure: \($0)" } ?? "") + "); an attempt cut short may have been delivered"
        case let .transport(error):
            "sending to APNs failed: \(error)"
        case let .invalidRequest(message):
            "invalid notification: \(message)"
        case let .invalidConfiguration(message):
            "invalid APNs client configuration: \(message)"
        case let .tokenSigningFailed(message):
            "cannot sign the provider token: \(message); check the .p8 key"
        case let .invalidAnswer(message):
            "the server's answer is not what APNs documents: \(message)"
        case .shutDown:
            "the APNs client was shut down; create a new one to send more pushes"
        }
    }
}
