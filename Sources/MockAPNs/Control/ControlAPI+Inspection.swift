import APNsCapture
import HTTPTransport
import PushRules
import StrictJSON

/// What the dashboard asks of single pushes and of the capture as a whole: the rule
/// findings of a push under a profile, its simulator file, the profiles on offer, and the
/// counts per reason (docs/control-api.md, "Inspecting pushes").
extension ControlAPI {
    /// The inspection endpoints, by method and path.
    enum InspectionRoute: Equatable {
        /// `GET /profiles`
        case profiles
        /// `GET /pushes/reasons`
        case reasons
        /// `GET /pushes/{seq}/findings`
        case findings(sequence: String)
        /// `GET /pushes/{seq}/simulator`
        case simulator(sequence: String)

        /// The route `method` and `path` name, or nil.
        init?(method: String, path: String) {
            guard method == "GET" else { return nil }
            switch path {
            case "/profiles": self = .profiles
            case "/pushes/reasons": self = .reasons
            default:
                let parts = path.split(separator: "/", omittingEmptySubsequences: false)
                guard parts.count == 4, parts[0].isEmpty, parts[1] == "pushes", !parts[2].isEmpty else { return nil }
                switch parts[3] {
                case "findings": self = .findings(sequence: String(parts[2]))
                case "simulator": self = .simulator(sequence: String(parts[2]))
                default: return nil
                }
            }
        }

        /// The query parameters the route reads.
        var parameters: [String] {
            switch self {
            case .profiles, .simulator: []
            case .reasons: ControlQueryKey.filters
            case .findings: [ControlQueryKey.profile]
            }
        }
    }

    /// The profile `GET /pushes/{seq}/findings` uses when none is named.
    static let defaultProfile = BuiltInProfile.apple.rawValue

    /// Answers one inspection route.
    func handle(_ route: InspectionRoute, query: QueryParameters, responder: HTTPResponder) throws {
        switch route {
        case .profiles:
            let list = profiles.all.map { profile -> JSONValue in
                .object([ControlBodyKey.name: .string(profile.name), ControlBodyKey.description: .string(profile.description)])
            }
            responder.respond(Self.json(200, .object([ControlBodyKey.profiles: .array(list)])))
        case .reasons:
            let counts = capture.outcomeCounts(matching: try Self.filter(from: query))
            let reasons = counts.reasons.map { entry -> JSONValue in
                .object([
                    ControlBodyKey.reason: entry.reason.map(JSONValue.string) ?? .null,
                    ControlBodyKey.status: .integer(Int64(entry.status)),
                    ControlBodyKey.count: .integer(Int64(entry.count)),
                ])
            }
            responder.respond(Self.json(200, .object([
                ControlBodyKey.total: .integer(Int64(counts.total)), ControlBodyKey.accepted: .integer(Int64(counts.accepted)),
                ControlBodyKey.rejected: .integer(Int64(counts.rejected)), ControlBodyKey.injected: .integer(Int64(counts.injected)),
                ControlBodyKey.reasons: .array(reasons),
            ])))
        case .findings(let text):
            let name = query[ControlQueryKey.profile] ?? Self.defaultProfile
            guard let profile = profiles.profile(named: name) else {
                throw QueryError(description: "\(ControlQueryKey.profile): no profile \(JSONValue.string(name)); expected one of "
                    + profiles.all.map(\.name).joined(separator: ", "))
            }
            guard let record = try capturedRecord(text, responder: responder) else { return }
            let result = profile.rules.check(PushInput(record: record, sourceName: "control API"))
            responder.respond(Self.json(200, .object([
                ControlBodyKey.seq: .integer(Int64(clamping: record.sequence)), ControlBodyKey.profile: .string(profile.name),
                ControlBodyKey.findings: .array(result.findings.map { $0.jsonValue(showValues: false) }),
            ])))
        case .simulator(let text):
            guard let record = try capturedRecord(text, responder: responder) else { return }
            let file: SimulatorPushFile
            do {
                file = try SimulatorPushFile(record: record)
            } catch {
                responder.respond(Self.error(422, error.description))
                return
            }
            responder.respond(HTTPResponse(status: 200, headers: [
                "content-type": "application/json",
                "content-disposition": "attachment; filename=\"\(file.fileName)\"",
            ], body: file.contents))
        }
    }

    /// The record numbered `text`; answers 404 and returns nil when the ring does not hold it.
    ///
    /// - Throws: `QueryError` when `text` is not a sequence number.
    private func capturedRecord(_ text: String, responder: HTTPResponder) throws -> CaptureRecord? {
        guard let sequence = UInt64(text), sequence > 0 else {
            throw QueryError(description: "expected a push's sequence number (its \"seq\") after /pushes/, found \(JSONValue.string(text))")
        }
        guard let record = capture.record(sequence: sequence) else {
            responder.respond(Self.error(404, "no push \(sequence) in the capture: it was never recorded, or was cleared or "
                + "dropped from the ring (the last \(capture.capacity) pushes are kept)"))
            return nil
        }
        return record
    }
}
