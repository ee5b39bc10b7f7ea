import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A phone that does not exist: it long-polls the mock's control API for the pushes the
/// mock accepted for one device token, and feeds each through the app's
/// ``HermesNotificationHandler``, so a test can assert what the app would do.
///
/// ```swift
/// let device = HermesVirtualDevice(controlURL: URL(string: mock.controlURL)!, deviceToken: token)
/// await device.handler.setForeground(true)
/// let delivered = try await device.waitForDeliveries(count: 1, timeout: 10)
/// #expect(delivered[0].outcome?.tapRoute == .session("sess-1"))
/// ```
public actor HermesVirtualDevice {
    /// The device token it listens for, lowercase hex.
    public nonisolated let deviceToken: String
    /// The app logic pushes go through; set its foreground and viewed session to script
    /// the user.
    public nonisolated let handler: HermesNotificationHandler
    let controlURL: URL
    let session: URLSession
    /// `apns-id`s of shown notifications already handled (``handleShownNotifications()``).
    var handledShown: Set<String> = []
    private var seen: Set<Int> = []
    private var lastTotal = 0
    /// Every push delivered so far, oldest first.
    public private(set) var deliveries: [HermesDelivery] = []

    /// - Parameters:
    ///   - controlURL: The mock's control API, such as `http://127.0.0.1:2199`.
    ///   - deviceToken: The device token (hex, any case).
    ///   - handler: The app logic; a fresh one by default.
    public init(controlURL: URL, deviceToken: String, handler: HermesNotificationHandler = HermesNotificationHandler(),
                session: URLSession = .shared) {
        self.controlURL = controlURL
        self.deviceToken = deviceToken.lowercased()
        self.handler = handler
        self.session = session
    }

    /// Waits up to `timeout` seconds for at least one push not yet delivered, and
    /// delivers every new one in arrival order.
    ///
    /// - Returns: The new deliveries; empty when none arrived in time.
    /// - Throws: ``HermesVirtualDeviceError`` when the control API cannot be reached or
    ///   answers something else than captured pushes.
    public func poll(timeout: Double) async throws(HermesVirtualDeviceError) -> [HermesDelivery] {
        let seconds = max(0, min(timeout, 600))
        let path = "/pushes/wait?count=\(lastTotal + 1)&timeout=\(seconds)&device_token=\(deviceToken)&outcome=accepted"
        let request = URLRequest(url: URLSessionExchange.url(controlURL, path: path), timeoutInterval: seconds + 30)
        let answer: URLSessionExchange.Answer
        switch await URLSessionExchange.perform(request, session: session) {
        case .success(let success): answer = success
        case .failure(let failure): throw .unreachable(failure.description)
        }
        guard answer.status == 200 || answer.status == 408 else {
            throw .unexpectedAnswer("status \(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
        }
        let page = try HermesCapturedPush.page(from: answer.body)
        // A cleared capture counts again from zero.
        lastTotal = page.records.count
        var fresh: [HermesDelivery] = []
        for var record in page.records.sorted(by: { $0.sequence < $1.sequence }) where !seen.contains(record.sequence) {
            seen.insert(record.sequence)
            record.outcome = await handler.receive(payload: record.payload)
            fresh.append(record)
        }
        deliveries.append(contentsOf: fresh)
        return fresh
    }

    /// Polls until `count` new pushes were delivered or `timeout` seconds passed.
    ///
    /// - Returns: The new deliveries, possibly fewer than `count` on timeout.
    public func waitForDeliveries(count: Int, timeout: Double) async throws(HermesVirtualDeviceError) -> [HermesDelivery] {
        let deadline = Date().addingTimeInterval(timeout)
        var fresh: [HermesDelivery] = []
        while fresh.count < count {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { break }
            fresh += try await poll(timeout: remaining)
        }
        return fresh
    }
}

/// Why the virtual device could not read the mock.
public enum HermesVirtualDeviceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The control API did not answer.
    case unreachable(String)
    /// It answered something that is not a list of captured pushes.
    case unexpectedAnswer(String)

    public var description: String {
        switch self {
        case .unreachable(let detail): "the mock's control API could not be reached: \(detail)"
        case .unexpectedAnswer(let detail): "the mock's control API answered unexpectedly: \(detail)"
        }
    }
}
