import APNsCapture
import APNsCore
import MockAPNsControl
import StrictJSON

/// The apns-mock control API calls the checks need (docs/control-api.md), on
/// ``MockControlClient``.
struct MockControl: Sendable {
    /// The client, or why the configured URL cannot make one (reported by the first check).
    private let client: Result<MockControlClient, MockControlError>

    init(baseURL: String) {
        do {
            client = .success(try MockControlClient(baseURL: baseURL))
        } catch {
            client = .failure(error)
        }
    }

    func close() async {
        if case .success(let client) = client { await client.close() }
    }

    /// A read of the control API, tried twice: these reads are idempotent, and one transport
    /// hiccup between the suite and the mock says nothing about the gateway under test.
    private func read<T>(_ call: (MockControlClient) async throws(MockControlError) -> T) async throws(MockControlError) -> T {
        let client = try client.get()
        do {
            return try await call(client)
        } catch {
            return try await call(client)
        }
    }

    private static func filter(_ deviceToken: String) throws -> CaptureFilter {
        guard let token = DeviceToken(deviceToken) else {
            throw ConformanceHTTP.Failure(description: "not a device token: \(deviceToken)")
        }
        return CaptureFilter(deviceToken: token)
    }

    /// Every captured push to `deviceToken` so far.
    func pushes(to deviceToken: String) async throws -> [CapturedPush] {
        let filter = try Self.filter(deviceToken)
        return try await read { client throws(MockControlError) in try await client.pushes(matching: filter) }.map(CapturedPush.init)
    }

    /// Waits until `count` pushes to `deviceToken` were captured, or `timeout` passes;
    /// returns what was captured either way.
    func waitForPushes(to deviceToken: String, count: Int, timeout: Duration) async throws -> [CapturedPush] {
        let filter = try Self.filter(deviceToken)
        return try await read { client throws(MockControlError) in
            try await client.waitForPushes(matching: filter, count: count, timeout: timeout)
        }.records.map(CapturedPush.init)
    }

    /// Adds a fault rule that fires only for `deviceToken`.
    func addFault(id: String, deviceToken: String, count: Int? = nil, action: JSONValue) async throws {
        var rule: [String: JSONValue] = ["id": .string(id), "match": .object(["device_token": .string(deviceToken)]), "action": action]
        if let count { rule["count"] = .integer(Int64(count)) }
        try await client.get().addFault(.object(rule))
    }

    /// How often the fault rule `id` has fired, from `GET /faults`: a rule fires as its push
    /// arrives, so this tells whether a push reached the mock even while its answer is held.
    func firings(ofFault id: String) async throws -> Int {
        let faults = try await read { client throws(MockControlError) in try await client.faults() }
        guard let fault = faults.first(where: { $0.id == id }) else {
            throw ConformanceHTTP.Failure(description: "GET /faults does not list rule \(id) with its firings")
        }
        return fault.fired
    }

    func removeFault(id: String) async {
        _ = try? await client.get().removeFault(id: id)
    }

    /// A `delay` fault action: the mock holds its answer back this long.
    static func delay(_ duration: Duration) -> JSONValue {
        .object(["type": .string("delay"), "milliseconds": .integer(Int64((duration.conformanceSeconds * 1000).rounded()))])
    }

    /// A `status` fault action.
    static func status(_ status: Int, reason: String) -> JSONValue {
        .object(["type": .string("status"), "status": .integer(Int64(status)), "reason": .string(reason)])
    }
}
