import APNsCore
import StrictJSON

/// The built-in `deep-link` profile: the generic part of deep-link checking that needs no
/// configuration. A policy file adds required fields, patterns and URL templates.
enum DeepLinkProfile {
    /// What an identifier looks like when nothing more is known: 1–128 characters from
    /// `[A-Za-z0-9._:-]`, starting with a letter or digit — no spaces, slashes or prose.
    static let identifierPattern = (try? TextPattern("[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")) ?? .literal("")

    private static let threadID = JSONPath(components: [.key(APNsPayloadKey.aps), .key(APNsPayloadKey.threadID)])
    private static let targetContentID = JSONPath(components: [.key(APNsPayloadKey.aps), .key(APNsPayloadKey.targetContentID)])
    /// Top-level fields that, by convention, name what a thread is about.
    private static let threadKeys = ["session_id", "thread_id", "conversation_id"]

    static let rules: [any PushRule] = [identifiers, threadAgreement]

    /// `aps.thread-id`, `aps.target-content-id` and top-level `*_id` / `*Id` strings are identifier-shaped.
    static let identifiers = FunctionRule(id: "deep-link.identifiers") { push, findings in
        guard let payload = push.payloadObject else { return }
        var fields: [(JSONPath, JSONValue)] = []
        for key in payload.keys.sorted() where key.hasSuffix("_id") || key.hasSuffix("Id") {
            if let value = payload[key] { fields.append((JSONPath(components: [.key(key)]), value)) }
        }
        for path in [threadID, targetContentID] {
            if let value = push.payload?.value(at: path) { fields.append((path, value)) }
        }
        for (path, value) in fields {
            guard case .string(let text) = value else { continue }
            if !identifierPattern.matches(text) {
                findings.append(Finding(
                    rule: "deep-link.identifiers", path: path,
                    message: text.isEmpty ? "the identifier is empty" : "not identifier-shaped (\(identifierPattern.source))",
                    value: value.description))
            }
        }
    }

    /// When the payload names its thread (`session_id`, `thread_id`, …) and `aps.thread-id` is
    /// set, they agree, so that tapping a grouped notification opens the right thread.
    static let threadAgreement = FunctionRule(id: "deep-link.thread-id") { push, findings in
        guard let payload = push.payloadObject, let thread = push.payload?.value(at: threadID) else { return }
        for key in threadKeys {
            guard let value = payload[key] else { continue }
            if value != thread {
                findings.append(Finding(
                    rule: "deep-link.thread-id", path: threadID, message: "aps.thread-id must equal \(key)",
                    value: thread.description))
            }
            return
        }
    }
}
