import APNsCore
import StrictJSON

/// The payload rules of the `apple` profile: size, the shape of `aps` per push type, the
/// types of its known keys, and keys APNs ignores.
enum ApplePayloadRules {
    static let all: [any PushRule] = [size, shape, keyTypes, unknownKeys]

    private static let apsPath = JSONPath(components: [.key(APNsPayloadKey.aps)])

    private static func apsPath(_ key: String) -> JSONPath {
        JSONPath(components: [.key(APNsPayloadKey.aps), .key(key)])
    }

    /// The payload fits the limit of the push type APNs goes by: 4096 bytes, 5120 for VoIP,
    /// also for a push sent without `apns-push-type` to a `.voip` topic (whose missing
    /// header is `apple.push-type`'s finding).
    static let size = FunctionRule(id: "apple.payload-size") { push, findings in
        let type = push.effectivePushType ?? .alert
        if push.payloadSize > type.maxPayloadSize {
            let inferred = push.headers.pushType == nil ? " (inferred: no apns-push-type)" : ""
            findings.append(Finding(
                rule: "apple.payload-size", path: .root,
                message: "the payload is \(push.payloadSize) bytes; \(type.withArticle) push\(inferred) may have \(type.maxPayloadSize) (PayloadTooLarge)"))
        } else if push.payloadSize == 0 {
            findings.append(Finding(rule: "apple.payload-size", path: .root, message: "the payload is empty (PayloadEmpty)"))
        }
    }

    /// The push types whose payload must hold `aps` to do anything.
    private static let typesNeedingAPS: Set<APNsPushType> = [.alert, .background, .liveactivity]

    /// The payload is a JSON object and `aps` has the shape its push type needs: the type
    /// sent, or without `apns-push-type` the one APNs goes by (``PushInput/effectivePushType``).
    /// A Live Activity's keys and events are `apple.liveactivity`'s (``AppleLiveActivityRules``).
    static let shape = FunctionRule(id: "apple.aps-shape") { push, findings in
        let rule = "apple.aps-shape"
        guard push.payloadSize > 0 else { return }
        guard let payload = push.payloadObject else {
            findings.append(Finding(rule: rule, path: .root, message: push.payloadError ?? "the payload must be a JSON object"))
            return
        }
        // As sent, even a type APNs does not know; without the header, the type APNs goes by,
        // so an untyped push to a `.voip` topic is not held to an alert's shape.
        let type = push.effectivePushTypeName
        guard let apsValue = payload[APNsPayloadKey.aps] else {
            if let known = APNsPushType(rawValue: type), typesNeedingAPS.contains(known) {
                findings.append(Finding(rule: rule, path: apsPath, message: "\(known.withArticle) push needs an aps dictionary"))
            }
            return
        }
        guard case .object(let aps) = apsValue else {
            findings.append(Finding(rule: rule, path: apsPath, message: "aps must be an object, found \(apsValue.typeName)"))
            return
        }
        switch type {
        case APNsPushType.alert.rawValue:
            if aps[APNsPayloadKey.alert] == nil, aps[APNsPayloadKey.sound] == nil, aps[APNsPayloadKey.badge] == nil {
                findings.append(Finding(
                    rule: rule, path: apsPath,
                    message: "an alert push needs alert, sound or badge; for a silent update use the background type"))
            }
        case APNsPushType.background.rawValue:
            for key in [APNsPayloadKey.alert, APNsPayloadKey.badge, APNsPayloadKey.sound] where aps[key] != nil {
                findings.append(Finding(
                    rule: rule, path: apsPath(key), message: "a background push must not carry \(key)"))
            }
            if aps[APNsPayloadKey.contentAvailable] != .integer(1) {
                findings.append(Finding(
                    rule: rule, path: apsPath(APNsPayloadKey.contentAvailable),
                    message: "a background push needs content-available: 1"))
            }
        default:
            break
        }
    }

    /// The known `aps` keys have the types Apple documents.
    static let keyTypes = FunctionRule(id: "apple.aps-types") { push, findings in
        guard case .object(let aps)? = push.payloadObject?[APNsPayloadKey.aps] else { return }
        let isLiveActivity = push.effectivePushType == .liveactivity
        // Sorted so that findings come in the same order on every run.
        for key in aps.keys.sorted() {
            guard let value = aps[key] else { continue }
            checkType(key: key, value: value, isLiveActivity: isLiveActivity, into: &findings)
        }
    }

    private static func checkType(key: String, value: JSONValue, isLiveActivity: Bool, into findings: inout [Finding]) {
        let rule = "apple.aps-types"
        func wrongType(_ expected: String) {
            findings.append(Finding(
                rule: rule, path: apsPath(key), message: "\(key) must be \(expected), found \(value.typeName)",
                value: value.description))
        }
        func wrongValue(_ message: String) {
            findings.append(Finding(rule: rule, path: apsPath(key), message: message, value: value.description))
        }
        switch key {
        case APNsPayloadKey.badge:
            guard case .integer(let count) = value else { return wrongType("an integer") }
            if count < 0 { wrongValue("badge must be 0 or more") }
        case APNsPayloadKey.contentAvailable, APNsPayloadKey.mutableContent, APNsPayloadKey.inputPushToken:
            guard case .integer(let flag) = value else { return wrongType("the number 1") }
            if flag != 1 { wrongValue("\(key) means something only as 1; leave it out otherwise") }
        case APNsPayloadKey.alert:
            switch value {
            case .string: break
            case .object(let alert):
                for alertKey in alert.keys.sorted() {
                    guard let member = alert[alertKey] else { continue }
                    let isArray = alertKey.hasSuffix("-args")
                    let ok: Bool = if isArray { if case .array = member { true } else { false } } else { member.stringValue != nil || alertKey == APNsPayloadKey.sound }
                    if !ok {
                        findings.append(Finding(
                            rule: rule, path: apsPath(key).appending(alertKey),
                            message: "alert.\(alertKey) must be \(isArray ? "an array" : "a string"), found \(member.typeName)"))
                    }
                }
            default: wrongType("a string or an object")
            }
        case APNsPayloadKey.sound:
            switch value {
            case .string: break
            case .object(let sound):
                if let critical = sound["critical"], critical != .integer(0), critical != .integer(1) {
                    wrongValue("sound.critical must be 0 or 1")
                }
                if let name = sound["name"], name.stringValue == nil { wrongValue("sound.name must be a string") }
                if let volume = sound["volume"] {
                    let number: Double? = switch volume {
                    case .integer(let n): Double(n)
                    case .double(let n): n
                    default: nil
                    }
                    if number.map({ !(0...1).contains($0) }) ?? true { wrongValue("sound.volume must be a number from 0 to 1") }
                }
            default: wrongType("a string, or a critical-alert dictionary")
            }
        case APNsPayloadKey.interruptionLevel:
            guard case .string(let level) = value else { return wrongType("a string") }
            if !APNsPayloadKey.interruptionLevels.contains(level) {
                wrongValue("interruption-level must be passive, active, time-sensitive or critical")
            }
        case APNsPayloadKey.relevanceScore:
            let score: Double? = switch value {
            case .integer(let number): Double(number)
            case .double(let number): number
            default: nil
            }
            guard let score else { return wrongType("a number") }
            // Live Activities rank by any number; notifications use 0...1.
            if !isLiveActivity, !(0...1).contains(score) { wrongValue("relevance-score must be between 0 and 1") }
        case APNsPayloadKey.threadID, APNsPayloadKey.category, APNsPayloadKey.targetContentID, APNsPayloadKey.filterCriteria, APNsPayloadKey.attributesType,
             APNsPayloadKey.inputPushChannel:
            if value.stringValue == nil { wrongType("a string") }
        case APNsPayloadKey.staleDate, APNsPayloadKey.timestamp, APNsPayloadKey.dismissalDate:
            guard case .integer(let seconds) = value else { return wrongType("whole UNIX seconds") }
            if seconds < 0 { wrongValue("\(key) must be UNIX seconds") }
        case APNsPayloadKey.contentState, APNsPayloadKey.attributes:
            if case .object = value {} else { wrongType("an object") }
        case APNsPayloadKey.event:
            guard case .string(let event) = value else { return wrongType("a string") }
            if !APNsPayloadKey.liveActivityEvents.contains(event) { wrongValue("event must be start, update or end") }
        default:
            break
        }
    }

    /// Keys inside `aps` (and its `alert` and critical-alert `sound`) that APNs does not
    /// know and silently drops.
    static let unknownKeys = FunctionRule(id: "apple.aps-unknown-key") { push, findings in
        guard case .object(let aps)? = push.payloadObject?[APNsPayloadKey.aps] else { return }
        for key in aps.keys.sorted() where !APNsPayloadKey.known.contains(key) {
            findings.append(Finding(
                rule: "apple.aps-unknown-key", path: apsPath(key),
                message: "APNs ignores this key inside aps; put app data beside aps"))
        }
        if case .object(let alert)? = aps[APNsPayloadKey.alert] {
            for key in alert.keys.sorted() where !APNsPayloadKey.knownAlert.contains(key) {
                findings.append(Finding(
                    rule: "apple.aps-unknown-key", path: apsPath(APNsPayloadKey.alert).appending(key),
                    message: "APNs ignores this key inside alert"))
            }
        }
        if case .object(let sound)? = aps[APNsPayloadKey.sound] {
            for key in sound.keys.sorted() where !APNsPayloadKey.knownSound.contains(key) {
                findings.append(Finding(
                    rule: "apple.aps-unknown-key", path: apsPath(APNsPayloadKey.sound).appending(key),
                    message: "APNs ignores this key inside a critical-alert sound"))
            }
        }
    }
}
