import StrictJSON

/// The apns-mock control API calls the checks need (docs/control-api.md).
struct MockControl: Sendable {
    let baseURL: String
    let http: ConformanceHTTP

    /// A GET to the control API, tried twice: these reads are idempotent, and one transport
    /// hiccup between the suite and the mock says nothing about the gateway under test.
    private func get(_ url: String) async throws -> ConformanceHTTP.Answer {
        do {
            return try await http.send("GET", url)
        } catch {
            return try await http.send("GET", url)
        }
    }

    /// Every captured push to `deviceToken` so far.
    func pushes(to deviceToken: String) async throws -> [CapturedPush] {
        let answer = try await get("\(baseURL)/pushes?device_token=\(deviceToken)")
        guard answer.status == 200 else { throw ConformanceHTTP.Failure(description: "GET /pushes answered \(answer.status)") }
        return try CapturedPush.list(from: answer.body)
    }

    /// Waits until `count` pushes to `deviceToken` were captured, or `timeout` passes;
    /// returns what was captured either way.
    func waitForPushes(to deviceToken: String, count: Int, timeout: Duration) async throws -> [CapturedPush] {
        let answer = try await get("\(baseURL)/pushes/wait?device_token=\(deviceToken)&count=\(count)&timeout=\(timeout.conformanceSeconds)")
        guard answer.status == 200 || answer.status == 408 else {
            throw ConformanceHTTP.Failure(description: "GET /pushes/wait answered \(answer.status)")
        }
        return try CapturedPush.list(from: answer.body)
    }

    /// Adds a fault rule that fires only for `deviceToken`.
    func addFault(id: String, deviceToken: String, count: Int? = nil, action: JSONValue) async throws {
        var members: [(key: String, value: JSONValue)] = [("id", .string(id)), ("match", .object(["device_token": .string(deviceToken)]))]
        if let count { members.append(("count", .integer(Int64(count)))) }
        members.append(("action", action))
        var body: [UInt8] = []
        JSONWriter.writeObject(members, into: &body)
        let answer = try await http.send("POST", "\(baseURL)/faults", json: body)
        guard answer.status == 201 else {
            throw ConformanceHTTP.Failure(description: "POST /faults answered \(answer.status): \(answer.text)")
        }
    }

    /// How often the fault rule `id` has fired, from `GET /faults`: a rule fires as its push
    /// arrives, so this tells whether a push reached the mock even while its answer is held.
    func firings(ofFault id: String) async throws -> Int {
        let answer = try await get("\(baseURL)/faults")
        guard answer.status == 200 else { throw ConformanceHTTP.Failure(description: "GET /faults answered \(answer.status)") }
        guard case .array(let rules)? = try? JSONParser.parse(answer.body, maximumDepth: 16) else {
            throw ConformanceHTTP.Failure(description: "GET /faults answered no list of rules: \(answer.text)")
        }
        for case .object(let rule) in rules where rule["id"]?.stringValue == id {
            guard case .integer(let fired)? = rule["fired"] else { break }
            return Int(clamping: fired)
        }
        throw ConformanceHTTP.Failure(description: "GET /faults does not list rule \(id) with its firings")
    }

    func removeFault(id: String) async {
        _ = try? await http.send("DELETE", "\(baseURL)/faults/\(id)")
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
